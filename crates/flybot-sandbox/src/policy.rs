//! What one child may touch: the folders it writes (its own folder), the
//! extra folders it reads (its program's own install), its network (none,
//! or one loopback port) and its limits. The system's programs and
//! libraries are readable by every child (`rules::SYSTEM_READ`).

use std::path::{Path, PathBuf};

/// The network a child gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Network {
    /// No TCP at all, no UDP, no raw or Unix sockets, no listening.
    Off,
    /// TCP connect to `connect_port` only (Landlock names ports, not
    /// addresses: see ARCHITECTURE.md for what that leaves open); with
    /// `serve`, it may also bind an ephemeral port and listen (OpenCode's
    /// own server, which the host checks is on loopback).
    Loopback { connect_port: u16, serve: bool },
    /// Outbound TCP and UDP anywhere (DNS included), still no raw or Unix
    /// sockets and no listening: a connector whose work is a remote API
    /// (the `github` connector), until the filtering proxy exists.
    Open,
}

/// The limits one child (with everything it starts) is held to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Processes and threads at once (a cgroup's `pids.max` where the host
    /// may make one; else RLIMIT_NPROC, which does not bind root).
    pub processes: u64,
    /// Memory (a cgroup's limit where the host may make one).
    pub memory_bytes: u64,
    /// Also cap the address space at `memory_bytes` (RLIMIT_AS) when no
    /// memory cgroup can be made. Off for JavaScript runtimes, which
    /// reserve far more address space than they use.
    pub address_space: bool,
    /// CPU seconds (RLIMIT_CPU: SIGXCPU, then SIGKILL a second later).
    pub cpu_seconds: u64,
}

impl Limits {
    /// A shell call, a test run, a subprocess peer.
    pub const COMMAND: Limits = Limits {
        processes: 512,
        memory_bytes: 4 << 30,
        address_space: true,
        cpu_seconds: 1200,
    };
    /// A long-lived JavaScript server: `opencode serve`, an MCP server.
    pub const SERVER: Limits = Limits {
        processes: 1024,
        memory_bytes: 4 << 30,
        address_space: false,
        cpu_seconds: 24 * 3600,
    };
}

/// One child's sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// Read, written, executed: the child's own folders.
    pub writable: Vec<PathBuf>,
    /// Read and executed besides the system: its program's own install.
    pub readable: Vec<PathBuf>,
    pub network: Network,
    pub limits: Limits,
}

impl Policy {
    /// Writes only `folders`, no network, a command's limits.
    pub fn writing(folders: &[&Path]) -> Policy {
        Policy {
            writable: folders.iter().map(|f| f.to_path_buf()).collect(),
            readable: Vec::new(),
            network: Network::Off,
            limits: Limits::COMMAND,
        }
    }

    /// Also reads (and executes) `roots`.
    pub fn reading(mut self, roots: Vec<PathBuf>) -> Policy {
        self.readable.extend(roots);
        self
    }

    pub fn network(mut self, network: Network) -> Policy {
        self.network = network;
        self
    }

    pub fn limits(mut self, limits: Limits) -> Policy {
        self.limits = limits;
        self
    }
}

/// The folders a command's program is installed in, outside the system
/// folders every child reads: the program (found through `PATH` when
/// named bare) and every argument that is an existing absolute path
/// file (`node /x/node_modules/pkg/dist/index.js`). Each counts from its
/// nearest `node_modules` folder, else from above its `bin` folder, else
/// it is the file alone (a folder argument opens nothing). A root that holds `home`, or lies inside it, is left
/// out: a program kept in the home does not open the home.
pub fn program_roots(argv: &[String], home: Option<&Path>) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = Vec::new();
    if let Some(program) = argv.first() {
        paths.extend(find_program(program));
    }
    paths.extend(
        argv.iter()
            .skip(1)
            .map(Path::new)
            .filter(|p| p.is_absolute() && p.is_file())
            .map(Path::to_path_buf),
    );
    let mut roots: Vec<PathBuf> = Vec::new();
    for path in paths {
        let Ok(real) = path.canonicalize() else {
            continue;
        };
        let root = install_root(&real);
        let inside_home = home.is_some_and(|h| h.starts_with(&root) || root.starts_with(h));
        if !inside_home && !crate::rules::is_system(&root) && !roots.contains(&root) {
            roots.push(root);
        }
    }
    roots
}

/// The install folders of the host's `PATH` (a toolchain under a user's
/// home, `~/.pyenv`, `~/.cargo`): read, never written, so the Bot's shell
/// finds what the host's user would. Outside the system folders only.
pub fn path_roots() -> Vec<PathBuf> {
    let Some(path) = std::env::var_os("PATH") else {
        return Vec::new();
    };
    let mut roots: Vec<PathBuf> = Vec::new();
    for dir in std::env::split_paths(&path) {
        let Ok(real) = dir.canonicalize() else {
            continue;
        };
        let root = install_root(&real.join("program"));
        if !crate::rules::is_system(&root) && !roots.contains(&root) {
            roots.push(root);
        }
    }
    roots
}

/// `program` as a path: as given when it holds a `/`, else the first
/// `PATH` entry that has it.
fn find_program(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        return Some(PathBuf::from(program));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}

fn install_root(real: &Path) -> PathBuf {
    if let Some(modules) = real
        .ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "node_modules"))
    {
        return modules.to_path_buf();
    }
    let folder = real.parent().unwrap_or(real);
    match folder.file_name() {
        Some(name) if name == "bin" => folder.parent().unwrap_or(folder).to_path_buf(),
        // A lone script: itself only, never the folder it happens to be in.
        _ => real.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_install_counts_from_node_modules_or_above_bin_30() {
        assert_eq!(
            install_root(Path::new("/w/.tools/mcp/node_modules/@m/s/dist/index.js")),
            PathBuf::from("/w/.tools/mcp/node_modules")
        );
        assert_eq!(
            install_root(Path::new("/opt/py/3.12/bin/python3")),
            PathBuf::from("/opt/py/3.12")
        );
        assert_eq!(
            install_root(Path::new("/srv/tools/peer.py")),
            PathBuf::from("/srv/tools/peer.py")
        );
    }

    #[test]
    fn a_program_in_the_home_does_not_open_the_home_30() {
        let home = tempfile::tempdir().unwrap();
        let script = home.path().join("peer.py");
        std::fs::write(&script, "").unwrap();
        let argv = vec!["/usr/bin/python3".to_owned(), script.display().to_string()];
        assert_eq!(
            program_roots(&argv, Some(home.path())),
            Vec::<PathBuf>::new()
        );
        let elsewhere = tempfile::tempdir().unwrap();
        let script = elsewhere.path().join("peer.py");
        std::fs::write(&script, "").unwrap();
        let argv = vec!["python3".to_owned(), script.display().to_string()];
        let roots = program_roots(&argv, Some(home.path()));
        assert!(roots.contains(&script.canonicalize().unwrap()), "{roots:?}");
        // A folder given as an argument (the home itself) opens nothing.
        let argv = vec![
            "/usr/bin/python3".to_owned(),
            home.path().display().to_string(),
        ];
        assert_eq!(program_roots(&argv, None), Vec::<PathBuf>::new());
    }
}
