//! The contract's proposed size limits, checked on bytes at ingress before
//! any parsing so a malformed flood costs no parser time.

/// 32 KiB of UTF-8 per envelope.
pub const ENVELOPE_MAX_BYTES: usize = 32 * 1024;
/// 16 KiB of canonical shared task input (requirement, criteria, excerpts).
pub const TASK_INPUT_MAX_BYTES: usize = 16 * 1024;
/// 16 KiB of result (text plus cited excerpts, canonical).
pub const RESULT_MAX_BYTES: usize = 16 * 1024;
/// 2,000 characters (Unicode scalar values) per progress message.
pub const PROGRESS_MAX_CHARS: usize = 2_000;
/// An opaque id's longest form, in bytes.
pub const ID_MAX_BYTES: usize = 128;
