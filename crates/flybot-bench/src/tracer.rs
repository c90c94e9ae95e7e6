//! Counting this process's syscalls from outside, as a tracer does (issue
//! 38): `strace -f -c` attached to the bench for the measured part only, so
//! a count is the kernel's, not the host's own counters. Attaching slows
//! every syscall, so a traced part is never the one that is timed.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// A running `strace` attached to this process.
pub struct Tracer {
    strace: Child,
    table: tempfile::NamedTempFile,
}

/// Attaches `strace -f -c` for `syscalls`; answers why not when it cannot
/// (not installed, or not allowed to attach).
pub fn attach(syscalls: &[&str]) -> Result<Tracer, String> {
    let table = tempfile::NamedTempFile::new().map_err(|e| e.to_string())?;
    let mut strace = Command::new("strace")
        .args(["-f", "-c", "-e"])
        .arg(format!("trace={}", syscalls.join(",")))
        .arg("-o")
        .arg(table.path())
        .arg("-p")
        .arg(std::process::id().to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("strace could not start ({e}); run bench/setup"))?;
    let Some(stderr) = strace.stderr.take() else {
        return Err("strace's output could not be read".into());
    };
    let mut lines = BufReader::new(stderr).lines();
    // "strace: Process N attached with T threads" once it traces us.
    for line in lines.by_ref() {
        let line = line.map_err(|e| e.to_string())?;
        if line.contains("attached") {
            std::thread::spawn(move || lines.for_each(drop));
            return Ok(Tracer { strace, table });
        }
        if line.contains("Operation not permitted") || line.contains("attach:") {
            let _ = strace.kill();
            return Err(format!("strace could not attach: {line}"));
        }
    }
    let _ = strace.wait();
    Err("strace ended before it attached".into())
}

impl Tracer {
    /// Detaches and answers the calls counted for each syscall traced.
    pub fn finish(mut self) -> Result<Vec<(String, u64)>, String> {
        // A signal, not a `kill` command: a child forked now would be
        // traced (`-f`) and its own opens counted.
        let pid = rustix::process::Pid::from_raw(self.strace.id() as i32)
            .ok_or("strace has no process id")?;
        rustix::process::kill_process(pid, rustix::process::Signal::INT)
            .map_err(|e| format!("strace could not be stopped: {e}"))?;
        self.strace.wait().map_err(|e| e.to_string())?;
        let table = std::fs::read_to_string(self.table.path()).map_err(|e| e.to_string())?;
        Ok(calls(&table))
    }
}

/// The `calls` column of strace's `-c` table, by syscall (no `total`).
fn calls(table: &str) -> Vec<(String, u64)> {
    table
        .lines()
        .filter_map(|row| {
            let cells: Vec<&str> = row.split_whitespace().collect();
            let name = *cells.last()?;
            let calls = cells.get(3)?.parse().ok()?;
            (name != "total" && cells.len() >= 5).then(|| (name.to_owned(), calls))
        })
        .collect()
}

/// The calls counted for `names` together.
pub fn sum(counted: &[(String, u64)], names: &[&str]) -> u64 {
    counted
        .iter()
        .filter(|(name, _)| names.contains(&name.as_str()))
        .map(|(_, calls)| calls)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_calls_column_is_read_by_syscall_with_or_without_errors_38() {
        let table = "% time     seconds  usecs/call     calls    errors syscall\n\
            ------ ----------- ----------- --------- --------- ----------------\n\
             80.00    0.000040           4        10         3 openat\n\
             20.00    0.000010           5         2           fsync\n\
            ------ ----------- ----------- --------- --------- ----------------\n\
            100.00    0.000050           4        12         3 total\n";
        let counted = calls(table);
        assert_eq!(
            counted,
            vec![("openat".to_owned(), 10), ("fsync".to_owned(), 2)]
        );
        assert_eq!(sum(&counted, &["open", "openat"]), 10);
    }
}
