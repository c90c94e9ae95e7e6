//! A PostgreSQL cluster of one test's own (the `testing` feature only):
//! initdb in a temporary folder, started on a free loopback port, so a test
//! may restart the whole server (`pg_ctl restart`) without cutting the
//! shared test cluster the other tests use. Run as the unprivileged
//! `postgres` user when the tests run as root, as `scripts/test-postgres.sh`
//! does; stopped and removed when the handle drops.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A running private cluster.
pub struct TestCluster {
    dir: tempfile_dir::Dir,
    bin: PathBuf,
    as_postgres: bool,
    /// The maintenance database's URL.
    pub admin_url: String,
}

/// A folder removed on drop (no dev-dependency in the library).
mod tempfile_dir {
    use std::path::{Path, PathBuf};

    pub struct Dir(pub PathBuf);

    impl Dir {
        pub fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn newest_bin() -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|entry| Some(entry.ok()?.path().join("bin")))
        .filter(|bin| bin.join("initdb").exists())
        .collect();
    found.sort_by_key(|bin| {
        bin.parent()
            .and_then(Path::file_name)
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(0)
    });
    found.pop()
}

/// How many ports a cluster tries before it gives up.
const PORT_TRIES: usize = 5;

fn free_port() -> Option<u16> {
    let socket = std::net::TcpListener::bind("127.0.0.1:0").ok()?;
    Some(socket.local_addr().ok()?.port())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

impl TestCluster {
    /// Starts a cluster, or answers `None` (after printing why) when the
    /// tests have no PostgreSQL (`FLYBOT_TEST_PG` unset). With PostgreSQL
    /// set up, a cluster that cannot start fails the test: it must not
    /// pass without running.
    #[allow(clippy::print_stderr)]
    pub fn start() -> Option<TestCluster> {
        if std::env::var(crate::engine::test_database::TEST_PG_VAR).is_err() {
            eprintln!("skipped: FLYBOT_TEST_PG is not set (scripts/test sets up PostgreSQL)");
            return None;
        }
        match TestCluster::start_private() {
            Ok(cluster) => Some(cluster),
            Err(why) => panic!("FLYBOT_TEST_PG is set and a private PostgreSQL cluster {why}"),
        }
    }

    fn start_private() -> Result<TestCluster, String> {
        let bin = newest_bin().ok_or("found no initdb under /usr/lib/postgresql")?;
        let mut random = [0u8; 6];
        getrandom::fill(&mut random).map_err(|e| format!("had no random name: {e}"))?;
        let dir = tempfile_dir::Dir(
            std::env::temp_dir().join(format!("flybot-test-cluster-{}", crate::hex(&random))),
        );
        std::fs::create_dir_all(dir.path()).map_err(|e| format!("had no folder: {e}"))?;
        let as_postgres = is_root();
        if as_postgres {
            Command::new("chown")
                .args(["postgres"])
                .arg(dir.path())
                .status()
                .map_err(|e| format!("could not be given to postgres: {e}"))?;
        }
        let mut cluster = TestCluster {
            admin_url: String::new(),
            dir,
            bin,
            as_postgres,
        };
        let data = cluster.dir.path().join("data");
        let made = cluster.run(
            "initdb",
            &[
                "-D",
                &data.to_string_lossy(),
                "-A",
                "trust",
                "-U",
                "postgres",
            ],
        );
        if !made {
            return Err("was not made (initdb failed)".to_owned());
        }
        // A port is free only until the server binds it: when another
        // test's server took it meanwhile, the start fails and another
        // port is tried.
        if !(0..PORT_TRIES).any(|_| cluster.start_on_free_port()) {
            cluster.admin_url.clear();
            let log = std::fs::read_to_string(cluster.dir.path().join("log")).unwrap_or_default();
            return Err(format!("did not start on {PORT_TRIES} ports: {log}"));
        }
        Ok(cluster)
    }

    fn start_on_free_port(&mut self) -> bool {
        let Some(port) = free_port() else {
            return false;
        };
        self.admin_url = format!("postgres://postgres@127.0.0.1:{port}/postgres");
        let options = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1",
            self.dir.path().display()
        );
        self.pg_ctl(&["-o", &options, "start"])
    }

    fn run(&self, tool: &str, args: &[&str]) -> bool {
        let path = self.bin.join(tool);
        let mut command = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(path);
            c
        } else {
            Command::new(path)
        };
        command
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    fn pg_ctl(&self, args: &[&str]) -> bool {
        let data = self.dir.path().join("data");
        let log = self.dir.path().join("log");
        let mut all = vec![
            "-D".to_owned(),
            data.to_string_lossy().into_owned(),
            "-l".to_owned(),
            log.to_string_lossy().into_owned(),
            "-w".to_owned(),
        ];
        all.extend(args.iter().map(|a| (*a).to_owned()));
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        self.run("pg_ctl", &all)
    }

    /// `pg_ctl restart -m fast`: every connection is cut, and the server
    /// is back once this answers.
    pub fn restart(&self) -> bool {
        self.pg_ctl(&["-m", "fast", "restart"])
    }

    /// A new database in this cluster; answers its URL.
    pub fn database(&self, name: &str) -> String {
        super::test_database::run_admin(&self.admin_url, format!("CREATE DATABASE {name}"));
        match self.admin_url.rfind('/') {
            Some(slash) => format!("{}/{name}", &self.admin_url[..slash]),
            None => self.admin_url.clone(),
        }
    }
}

impl Drop for TestCluster {
    fn drop(&mut self) {
        if !self.admin_url.is_empty() {
            self.pg_ctl(&["-m", "immediate", "stop"]);
        }
    }
}
