//! The pilot report's proof of the network rule (#198: "no network"): a
//! throwaway thread restricts itself with Landlock (TCP connect only to the
//! allowed ports, abstract Unix sockets and signals scoped) and shows a
//! forbidden port refused and an allowed one reached. Children are not
//! spawned here: every process the collaboration starts goes through
//! `flybot-sandbox` (issue 30), which applies the same TCP rule and more.

use landlock::{
    ABI, AccessNet, CompatLevel, Compatible, LandlockStatus, NetPort, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope,
};

/// What a sandboxed child may reach: TCP connections to these ports only
/// (on any address: Landlock's rules name ports, so a model endpoint must be
/// on loopback for the rule to mean "the model and nothing else").
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NetworkPolicy {
    pub connect_ports: Vec<u16>,
}

impl NetworkPolicy {
    /// No TCP connection at all: the verifier's test runs.
    pub fn offline() -> NetworkPolicy {
        NetworkPolicy::default()
    }

    /// TCP connections to `ports` only.
    pub fn only(ports: &[u16]) -> NetworkPolicy {
        NetworkPolicy {
            connect_ports: ports.to_vec(),
        }
    }
}

/// Why the sandbox could not be had.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    /// The kernel has no Landlock TCP rules (Linux 6.7, ABI 4, or later).
    #[error(
        "this kernel cannot enforce Landlock's TCP rules (Linux 6.7 or later with Landlock enabled is needed), so the child is not started unguarded"
    )]
    Unsupported,
    #[error("the network sandbox could not be set up: {0}")]
    Setup(String),
}

impl From<SandboxError> for std::io::Error {
    fn from(error: SandboxError) -> std::io::Error {
        std::io::Error::other(error.to_string())
    }
}

/// Restricts the calling thread (and every process it starts afterwards)
/// to `policy`; answers the mechanism, for a report.
fn restrict_this_thread(policy: &NetworkPolicy) -> Result<String, SandboxError> {
    let setup = |e: landlock::RulesetError| SandboxError::Setup(e.to_string());
    let ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessNet::ConnectTcp)
        .map_err(|_| SandboxError::Unsupported)?
        // Scopes came with ABI 6; on an older kernel TCP alone still holds.
        .set_compatibility(CompatLevel::BestEffort)
        .scope(Scope::AbstractUnixSocket | Scope::Signal)
        .map_err(setup)?
        .create()
        .map_err(|_| SandboxError::Unsupported)?
        .set_compatibility(CompatLevel::HardRequirement)
        .add_rules(policy.connect_ports.iter().map(|port| {
            Ok::<_, landlock::RulesetError>(NetPort::new(*port, AccessNet::ConnectTcp))
        }))
        .map_err(setup)?;
    let status = ruleset.restrict_self().map_err(setup)?;
    let abi = match status.landlock {
        LandlockStatus::Available { effective_abi, .. } => effective_abi,
        LandlockStatus::NotEnabled | LandlockStatus::NotImplemented => {
            return Err(SandboxError::Unsupported);
        }
    };
    if status.ruleset == RulesetStatus::NotEnforced || abi < ABI::V4 {
        return Err(SandboxError::Unsupported);
    }
    Ok(describe(
        policy,
        abi,
        status.ruleset == RulesetStatus::FullyEnforced,
    ))
}

fn describe(policy: &NetworkPolicy, abi: ABI, scoped: bool) -> String {
    let ports = if policy.connect_ports.is_empty() {
        "no TCP connection".to_owned()
    } else {
        let ports: Vec<String> = policy.connect_ports.iter().map(u16::to_string).collect();
        format!("TCP connect to port {} only", ports.join(", "))
    };
    let scopes = if scoped {
        "; abstract Unix sockets and signals scoped to the sandbox"
    } else {
        ""
    };
    format!("Landlock ABI {}: {ports}{scopes}", abi as i32)
}

/// The mechanism `policy` is enforced with here, or why it cannot be:
/// checked on a throwaway thread.
pub fn probe(policy: &NetworkPolicy) -> Result<String, SandboxError> {
    let policy = policy.clone();
    std::thread::spawn(move || restrict_this_thread(&policy))
        .join()
        .map_err(|_| SandboxError::Setup("the probe thread panicked".to_owned()))?
}

/// What `prove` saw: the mechanism, and a connection from inside the
/// sandbox to a port it does not allow and to one it does.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxProof {
    pub mechanism: String,
    /// The error a connection to a listening, disallowed loopback port got.
    pub forbidden_port: String,
    /// Whether a connection to an allowed, listening port was made.
    pub allowed_port_reached: bool,
}

impl SandboxProof {
    /// The forbidden port was refused by the sandbox and the allowed one reached.
    pub fn holds(&self) -> bool {
        self.forbidden_port == "permission denied" && self.allowed_port_reached
    }
}

/// Proves the sandbox on this machine, for a report: a throwaway thread
/// restricts itself to one listening loopback port and tries that one and
/// another that also listens.
pub fn prove() -> Result<SandboxProof, SandboxError> {
    let setup = |e: std::io::Error| SandboxError::Setup(e.to_string());
    let allowed = std::net::TcpListener::bind("127.0.0.1:0").map_err(setup)?;
    let forbidden = std::net::TcpListener::bind("127.0.0.1:0").map_err(setup)?;
    let allowed = allowed.local_addr().map_err(setup)?;
    let forbidden = forbidden.local_addr().map_err(setup)?;
    let policy = NetworkPolicy::only(&[allowed.port()]);
    std::thread::spawn(move || {
        let mechanism = restrict_this_thread(&policy)?;
        let forbidden_port = match std::net::TcpStream::connect(forbidden) {
            Ok(_) => "connected".to_owned(),
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                "permission denied".to_owned()
            }
            Err(e) => e.to_string(),
        };
        Ok(SandboxProof {
            mechanism,
            forbidden_port,
            allowed_port_reached: std::net::TcpStream::connect(allowed).is_ok(),
        })
    })
    .join()
    .map_err(|_| SandboxError::Setup("the proof's thread panicked".to_owned()))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mechanism_names_the_ports_and_the_scopes() {
        assert_eq!(
            describe(&NetworkPolicy::only(&[8080, 9]), ABI::V6, true),
            "Landlock ABI 6: TCP connect to port 8080, 9 only; abstract Unix sockets and signals scoped to the sandbox"
        );
        assert_eq!(
            describe(&NetworkPolicy::offline(), ABI::V4, false),
            "Landlock ABI 4: no TCP connection"
        );
    }

    #[test]
    fn the_proof_refuses_the_forbidden_port_and_reaches_the_allowed_one() {
        let proof = prove().unwrap();
        assert_eq!(proof.forbidden_port, "permission denied", "{proof:?}");
        assert!(proof.allowed_port_reached, "{proof:?}");
        assert!(proof.holds());
    }
}
