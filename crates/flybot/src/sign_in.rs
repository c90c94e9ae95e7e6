//! The host's sign-in settings at the command line (issue 29): the owner's
//! sign-in link `flybot serve` prints and `flybot token` prints again, the
//! names the host answers to, how long a session lasts, and the explicit
//! loopback-only open mode (`--no-sign-in`).

use crate::config::SignInSection;
use anyhow::Context;
use clap::Args;
use flybot_host::edge::EdgeConfig;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// `flybot serve`'s sign-in flags.
#[derive(Args)]
pub struct SignInArgs {
    /// Answer to this name too (a host reached by another name than
    /// 127.0.0.1 or localhost); repeat for more. Any other Host is refused.
    #[arg(long = "public-name", value_name = "NAME")]
    pub public_names: Vec<String>,
    /// Let anyone who reaches the port act as the owner, without the
    /// token, while the home has no other member. Loopback addresses only;
    /// for scripts on a machine nobody else uses.
    #[arg(long)]
    pub no_sign_in: bool,
}

const HOUR_MS: u64 = 60 * 60 * 1000;

/// The edge's settings from the flags and config.toml's `[signIn]`; the
/// open mode is refused on an address other machines can reach.
pub fn edge_config(
    args: &SignInArgs,
    section: &SignInSection,
    address: SocketAddr,
) -> anyhow::Result<EdgeConfig> {
    anyhow::ensure!(
        !args.no_sign_in || address.ip().is_loopback(),
        "--no-sign-in is only for a loopback address, and {address} is not one: anyone who reaches it would be the owner. Listen on 127.0.0.1, or sign in with the owner's link."
    );
    let mut edge = EdgeConfig {
        open_mode: args.no_sign_in,
        ..EdgeConfig::default()
    };
    edge.public_names = section
        .public_names
        .iter()
        .chain(&args.public_names)
        .cloned()
        .collect();
    if let Some(hours) = section.session_idle_hours {
        edge.session_idle_ms = hours.max(1) * HOUR_MS;
    }
    if let Some(days) = section.session_max_days {
        edge.session_max_ms = days.max(1) * 24 * HOUR_MS;
    }
    Ok(edge)
}

/// The link that signs the owner in: the token in the address, which the
/// page trades for its cookie and drops from the address bar.
pub fn sign_in_link(address: SocketAddr, token: &str) -> String {
    let host = match address.ip() {
        ip if ip.is_unspecified() => "127.0.0.1".to_owned(),
        std::net::IpAddr::V6(ip) => format!("[{ip}]"),
        ip => ip.to_string(),
    };
    format!("http://{host}:{}/?token={token}", address.port())
}

/// The owner token of `home`, made if the home has none yet.
pub fn owner_token(home: &Path) -> anyhow::Result<String> {
    flybot_host::edge::owner_token(home)
        .with_context(|| format!("could not keep the owner token in {}", home.display()))
}

/// `flybot token`: prints the owner's sign-in link again.
#[derive(Args)]
pub struct TokenArgs {
    /// The home folder (default: $FLYBOT_HOME, else ~/.flybot).
    #[arg(long)]
    home: Option<PathBuf>,
    /// The address the host listens on, for the link.
    #[arg(long, default_value = "127.0.0.1:7450")]
    listen: SocketAddr,
    /// Print the token alone, for a script's `Authorization: Bearer`.
    #[arg(long)]
    bare: bool,
}

pub fn print_token(args: TokenArgs) -> anyhow::Result<()> {
    let home = crate::config::home_dir(args.home)?;
    let token = owner_token(&home)?;
    if args.bare {
        println!("{token}");
        return Ok(());
    }
    println!("{}", sign_in_link(args.listen, &token));
    println!("For curl and scripts: Authorization: Bearer {token}");
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn args(no_sign_in: bool) -> SignInArgs {
        SignInArgs {
            public_names: vec!["flybot.lan".into()],
            no_sign_in,
        }
    }

    #[test]
    fn open_mode_is_refused_on_an_address_other_machines_reach_29() {
        let section = SignInSection::default();
        let any: SocketAddr = "0.0.0.0:7450".parse().unwrap();
        let lan: SocketAddr = "192.168.1.5:7450".parse().unwrap();
        assert!(edge_config(&args(true), &section, any).is_err());
        assert!(edge_config(&args(true), &section, lan).is_err());
        let loopback: SocketAddr = "127.0.0.1:7450".parse().unwrap();
        let edge = edge_config(&args(true), &section, loopback).unwrap();
        assert!(edge.open_mode);
        assert_eq!(edge.public_names, ["flybot.lan"]);
        assert!(!edge_config(&args(false), &section, any).unwrap().open_mode);
    }

    #[test]
    fn the_link_names_a_loopback_address_the_browser_can_open_29() {
        let any: SocketAddr = "0.0.0.0:7450".parse().unwrap();
        assert_eq!(sign_in_link(any, "t"), "http://127.0.0.1:7450/?token=t");
        let v6: SocketAddr = "[::1]:80".parse().unwrap();
        assert_eq!(sign_in_link(v6, "t"), "http://[::1]:80/?token=t");
    }
}
