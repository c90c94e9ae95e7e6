//! Whether the sandbox is on for this process: on unless the owner set
//! `sandbox = "off"` in config.toml (the binary calls [`set_mode`] once at
//! start). Off, a child still leads its own group, dies with the host and
//! takes its limits, but has no Landlock and no seccomp filter.

use std::sync::atomic::{AtomicBool, Ordering};

static OFF: AtomicBool = AtomicBool::new(false);

/// The owner's choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    On,
    Off,
}

/// Sets the mode for every child started afterwards.
pub fn set_mode(mode: Mode) {
    OFF.store(mode == Mode::Off, Ordering::SeqCst);
}

/// The mode children start with now.
pub fn mode() -> Mode {
    if OFF.load(Ordering::SeqCst) {
        Mode::Off
    } else {
        Mode::On
    }
}

/// The page's standing warning: the sandbox is off, or this kernel cannot
/// give it (then no agent process starts); `None` while it holds.
pub fn standing_warning() -> Option<String> {
    match mode() {
        Mode::Off => Some(
            "The sandbox is off (sandbox = \"off\" in config.toml): the Bots' shells, OpenCode, MCP servers and subprocess peers run with the host's own access to its files and network."
                .to_owned(),
        ),
        Mode::On => crate::support().missing().map(|why| {
            format!(
                "This host cannot sandbox agent processes ({why}), so no shell, OpenCode, MCP server or subprocess peer starts; the owner may set sandbox = \"off\" in config.toml."
            )
        }),
    }
}
