//! The seccomp filter every child gets, for what Landlock cannot name:
//! sockets other than TCP over IPv4/IPv6 (UDP, raw, packet, netlink, and
//! Unix sockets, whose `connect` by path Landlock does not check on this
//! kernel), listening (unless the policy serves), new namespaces, mounts,
//! io_uring (its socket operations would pass the filter by) and the other
//! calls a confined root could use to step out. Anonymous `socketpair`
//! stays. Taken from codex-rs `linux-sandbox` (a seccomp filter beside
//! Landlock, `clone3` answered ENOSYS so libc falls back to `clone`).

use crate::SandboxError;
use crate::policy::Network;
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};
use std::collections::BTreeMap;

type Rules = BTreeMap<i64, Vec<SeccompRule>>;

fn condition(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, SandboxError> {
    SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value)
        .map_err(|e| SandboxError::Setup(format!("seccomp: {e}")))
}

fn rule(conditions: Vec<SeccompCondition>) -> Result<SeccompRule, SandboxError> {
    SeccompRule::new(conditions).map_err(|e| SandboxError::Setup(format!("seccomp: {e}")))
}

/// `socket(domain, type, protocol)` refused unless it is TCP over IPv4 or
/// IPv6 (where Landlock's port rules hold).
fn socket_rules(udp: bool) -> Result<Vec<SeccompRule>, SandboxError> {
    use SeccompCmpOp::{Eq, Ge, Gt, Le, MaskedEq, Ne};
    let (inet, inet6) = (libc::AF_INET as u64, libc::AF_INET6 as u64);
    let mut rules = vec![rule(vec![
        condition(0, Ne, inet)?,
        condition(0, Ne, inet6)?,
    ])?];
    for domain in [inet, inet6] {
        // Every type but SOCK_STREAM (the low four bits; the rest are flags).
        let refused: &[u64] = if udp {
            &[0, 3, 4, 5, 6, 10]
        } else {
            &[0, 2, 3, 4, 5, 6, 10]
        };
        for &kind in refused {
            rules.push(rule(vec![
                condition(0, Eq, domain)?,
                condition(1, MaskedEq(0xf), kind)?,
            ])?);
        }
        // Another protocol than TCP (SCTP, MPTCP), or than UDP (17) where
        // datagrams are allowed.
        let top = if udp { 17 } else { 6 };
        rules.push(rule(vec![
            condition(0, Eq, domain)?,
            condition(2, Gt, top)?,
        ])?);
        rules.push(rule(vec![
            condition(0, Eq, domain)?,
            condition(2, Ge, 1)?,
            condition(2, Le, 5)?,
        ])?);
        if udp {
            rules.push(rule(vec![
                condition(0, Eq, domain)?,
                condition(2, Ge, 7)?,
                condition(2, Le, 16)?,
            ])?);
        }
    }
    Ok(rules)
}

/// `clone` with a flag that makes a new namespace.
fn clone_rules() -> Result<Vec<SeccompRule>, SandboxError> {
    let flags = [
        libc::CLONE_NEWNS,
        libc::CLONE_NEWCGROUP,
        libc::CLONE_NEWUTS,
        libc::CLONE_NEWIPC,
        libc::CLONE_NEWUSER,
        libc::CLONE_NEWPID,
        libc::CLONE_NEWNET,
    ];
    flags
        .iter()
        .map(|flag| {
            let flag = *flag as u64;
            rule(vec![condition(0, SeccompCmpOp::MaskedEq(flag), flag)?])
        })
        .collect()
}

fn add(rules: &mut Rules, syscalls: &[libc::c_long]) {
    for call in syscalls {
        rules.insert(*call, Vec::new());
    }
}

/// The filter of `network`, as one program per errno: sockets answer
/// EACCES, like Landlock; the rest EPERM; io_uring and clone3 ENOSYS so a
/// runtime falls back. Only a serving policy may bind and listen; only an
/// open one may make UDP sockets.
pub fn programs(network: Network) -> Result<Vec<BpfProgram>, SandboxError> {
    let serve = matches!(network, Network::Loopback { serve: true, .. });
    let udp = network == Network::Open;
    let arch = TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|e| SandboxError::Unsupported(format!("seccomp on this architecture: {e}")))?;
    let mut sockets: Rules = BTreeMap::new();
    sockets.insert(libc::SYS_socket, socket_rules(udp)?);
    if !serve {
        add(&mut sockets, &[libc::SYS_bind, libc::SYS_listen]);
    }
    let mut privileged: Rules = BTreeMap::new();
    privileged.insert(libc::SYS_clone, clone_rules()?);
    add(
        &mut privileged,
        &[
            libc::SYS_unshare,
            libc::SYS_setns,
            libc::SYS_mount,
            libc::SYS_umount2,
            libc::SYS_pivot_root,
            libc::SYS_chroot,
            libc::SYS_bpf,
            libc::SYS_perf_event_open,
            libc::SYS_keyctl,
            libc::SYS_add_key,
            libc::SYS_request_key,
            libc::SYS_open_by_handle_at,
            libc::SYS_init_module,
            libc::SYS_finit_module,
            libc::SYS_delete_module,
            libc::SYS_kexec_load,
            libc::SYS_reboot,
            libc::SYS_swapon,
            libc::SYS_swapoff,
        ],
    );
    let mut absent: Rules = BTreeMap::new();
    add(
        &mut absent,
        &[
            libc::SYS_io_uring_setup,
            libc::SYS_io_uring_enter,
            libc::SYS_io_uring_register,
            libc::SYS_clone3,
        ],
    );
    [
        (sockets, libc::EACCES),
        (privileged, libc::EPERM),
        (absent, libc::ENOSYS),
    ]
    .into_iter()
    .map(|(rules, errno)| {
        let filter = SeccompFilter::new(
            rules,
            SeccompAction::Allow,
            SeccompAction::Errno(errno as u32),
            arch,
        )
        .map_err(|e| SandboxError::Setup(format!("seccomp: {e}")))?;
        TryInto::<BpfProgram>::try_into(filter)
            .map_err(|e| SandboxError::Setup(format!("seccomp: {e}")))
    })
    .collect()
}
