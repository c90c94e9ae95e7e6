//! One supervised peer process: started through the sandbox (issue 30:
//! writes only its working folder, reads the system and its program's own
//! install, no network, limits) in its own process group with an explicit
//! working folder and a clean environment, spoken to one line at a time,
//! and stopped by asking, then SIGTERM, then SIGKILL on the group.

use super::wire::{HostLine, MAX_LINE_BYTES, PeerLine, encode, parse_peer_line};
use flybot_core::sync::lock;
use flybot_sandbox::{ChildSandbox, Policy, Signal};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{mpsc, watch};

/// How many stderr bytes are kept for a crash line.
const STDERR_KEEP: usize = 4096;
/// How many characters of stderr a crash line shows.
pub const STDERR_SHOWN: usize = 200;

/// What a peer is started with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    pub command: Vec<String>,
    /// Always explicit (conventions: no inherited working folder).
    pub cwd: PathBuf,
    pub env: BTreeMap<String, String>,
}

/// The graces of a stop: after asking on the protocol, after SIGTERM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Graces {
    pub after_ask: Duration,
    pub after_term: Duration,
}

impl Default for Graces {
    fn default() -> Self {
        Graces {
            after_ask: Duration::from_secs(2),
            after_term: Duration::from_secs(5),
        }
    }
}

/// How a stop ended the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopEnd {
    /// It left after the protocol's `stop` (or had already left).
    Asked,
    /// It left after SIGTERM to its group.
    Terminated,
    /// SIGKILL to its group.
    Killed,
}

/// How one turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PeerAnswer {
    Text(String),
    /// The peer answered `{"error"}`.
    Error(String),
    /// The process is gone: its stderr tail, on one line.
    Died {
        detail: String,
    },
    /// A line that is not the protocol's.
    Protocol {
        detail: String,
    },
    /// The person stopped the turn: nothing to answer.
    Stopped,
    /// The room's turn limit passed.
    TimedOut,
}

#[derive(Default)]
struct Tail(Vec<u8>);

impl Tail {
    fn push(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
        if self.0.len() > STDERR_KEEP {
            let cut = self.0.len() - STDERR_KEEP;
            self.0.drain(..cut);
        }
    }
}

/// The last `STDERR_SHOWN` characters of `raw`, whitespace folded to single
/// spaces so it fits on one room line.
pub fn one_line_tail(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    let folded = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let count = folded.chars().count();
    folded
        .chars()
        .skip(count.saturating_sub(STDERR_SHOWN))
        .collect()
}

/// A running peer.
pub struct Peer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Result<String, String>>,
    stderr: Arc<Mutex<Tail>>,
    sandbox: ChildSandbox,
}

impl Peer {
    /// Starts the program; never through a shell.
    pub fn start(launch: &Launch) -> std::io::Result<Peer> {
        let Some((program, args)) = launch.command.split_first() else {
            return Err(std::io::Error::other("empty command"));
        };
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(&launch.cwd)
            // Not the host's environment: it holds the provider keys.
            .env_clear()
            .env(
                "PATH",
                std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()),
            )
            .env("HOME", &launch.cwd)
            .env("LANG", "C.UTF-8")
            .envs(&launch.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let policy = Policy::writing(&[&launch.cwd])
            .reading(flybot_sandbox::program_roots(&launch.command, None));
        let (mut child, sandbox) = flybot_sandbox::spawn(command, &policy)?;
        let stdin = child.stdin.take();
        let (send, lines) = mpsc::channel(16);
        if let Some(stdout) = child.stdout.take() {
            tokio::spawn(read_lines(stdout, send));
        }
        let stderr = Arc::new(Mutex::new(Tail::default()));
        if let Some(mut pipe) = child.stderr.take() {
            let tail = stderr.clone();
            tokio::spawn(async move {
                let mut buffer = [0u8; 2048];
                while let Ok(read) = pipe.read(&mut buffer).await {
                    if read == 0 {
                        break;
                    }
                    lock(&tail).push(&buffer[..read]);
                }
            });
        }
        Ok(Peer {
            child,
            stdin,
            lines,
            stderr,
            sandbox,
        })
    }

    /// The process id (the group's id too).
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// The last stderr characters, on one line.
    pub fn stderr_tail(&self) -> String {
        one_line_tail(&lock(&self.stderr).0)
    }

    /// Whether the process has left, without waiting.
    pub fn has_exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    async fn died(&mut self) -> PeerAnswer {
        // Give the stderr reader a moment to drain what the process wrote last.
        let status = tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await;
        tokio::time::sleep(Duration::from_millis(30)).await;
        let how = match status {
            Ok(Ok(status)) => status.to_string(),
            Ok(Err(_)) | Err(_) => "closed its output".to_owned(),
        };
        let tail = self.stderr_tail();
        PeerAnswer::Died {
            detail: if tail.is_empty() {
                how
            } else {
                format!("{how}: {tail}")
            },
        }
    }

    async fn write(&mut self, line: &HostLine) -> bool {
        let Some(stdin) = self.stdin.as_mut() else {
            return false;
        };
        stdin.write_all(encode(line).as_bytes()).await.is_ok() && stdin.flush().await.is_ok()
    }

    /// Runs one turn: writes it, then waits for the answer, the process's
    /// end, the person's stop or the limit.
    pub async fn turn(
        &mut self,
        line: &HostLine,
        stop: &mut watch::Receiver<bool>,
        limit: Duration,
    ) -> PeerAnswer {
        if *stop.borrow() {
            return PeerAnswer::Stopped;
        }
        if self.has_exited() || !self.write(line).await {
            return self.died().await;
        }
        let deadline = tokio::time::sleep(limit);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                line = self.lines.recv() => match line {
                    Some(Ok(text)) if text.trim().is_empty() => continue,
                    Some(Ok(text)) => return match parse_peer_line(&text) {
                        Some(PeerLine::Text { text }) => PeerAnswer::Text(text),
                        Some(PeerLine::Error { error }) => PeerAnswer::Error(error),
                        None => PeerAnswer::Protocol {
                            detail: one_line_tail(text.as_bytes()),
                        },
                    },
                    Some(Err(detail)) => return PeerAnswer::Protocol { detail },
                    None => return self.died().await,
                },
                changed = stop.changed() => {
                    if changed.is_err() || *stop.borrow() {
                        return PeerAnswer::Stopped;
                    }
                }
                () = &mut deadline => return PeerAnswer::TimedOut,
            }
        }
    }

    async fn exited_within(&mut self, limit: Duration) -> bool {
        matches!(
            tokio::time::timeout(limit, self.child.wait()).await,
            Ok(Ok(_)) | Ok(Err(_))
        )
    }

    /// Stops the process: asks on the protocol, then SIGTERM after
    /// `after_ask`, then SIGKILL after `after_term`, on the whole group.
    pub async fn stop(mut self, graces: Graces) -> StopEnd {
        if self.has_exited() {
            self.sandbox.group().signal(Signal::KILL);
            return StopEnd::Asked;
        }
        let asked = self.write(&HostLine::Stop).await;
        // Closing stdin is part of asking: a peer reading to EOF leaves.
        self.stdin = None;
        let end = if asked && self.exited_within(graces.after_ask).await {
            StopEnd::Asked
        } else {
            self.sandbox.group().signal(Signal::TERM);
            if self.exited_within(graces.after_term).await {
                StopEnd::Terminated
            } else {
                self.sandbox.group().signal(Signal::KILL);
                let _ = self.exited_within(Duration::from_secs(5)).await;
                StopEnd::Killed
            }
        };
        // Whatever the leader left behind in its group goes with it.
        self.sandbox.group().signal(Signal::KILL);
        end
    }
}

async fn read_lines(
    stdout: tokio::process::ChildStdout,
    send: mpsc::Sender<Result<String, String>>,
) {
    let mut reader = BufReader::new(stdout);
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        let read = (&mut reader)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut buffer)
            .await;
        match read {
            Ok(0) | Err(_) => return,
            Ok(_) if buffer.len() > MAX_LINE_BYTES => {
                let _ = send
                    .send(Err(format!("a line longer than {MAX_LINE_BYTES} bytes")))
                    .await;
                return;
            }
            Ok(_) => {
                let text = String::from_utf8_lossy(&buffer).into_owned();
                if send.send(Ok(text)).await.is_err() {
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_is_the_last_characters_on_one_line() {
        let raw = format!("{}\npanic: boom\n\tat main\n", "x".repeat(500));
        let tail = one_line_tail(raw.as_bytes());
        assert_eq!(tail.chars().count(), STDERR_SHOWN);
        assert!(tail.ends_with("panic: boom at main"));
        assert!(!tail.contains('\n'));
    }
}
