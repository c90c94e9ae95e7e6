//! A child's process group: the sandbox's (`flybot-sandbox`, issue 30),
//! signalled through `kill(2)` and killed when dropped; re-exported for
//! the seats that hold one.

pub use flybot_sandbox::ProcessGroup;
