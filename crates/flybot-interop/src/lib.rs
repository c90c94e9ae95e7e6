//! The room-collaboration contract's machinery (issue 6,
//! `spec/room-collaboration-contract.md`): the envelope codec v1 with its
//! canonical serialization and digest, the execution journal, budgets,
//! cancellation generations and the projection of execution observations
//! onto the FlyBot board. Participants and drivers build on these modules.

pub mod a2a;
pub mod budgets;
pub mod cancel;
pub mod canonical;
pub mod digest;
pub mod egress;
pub mod envelope;
pub mod external;
pub mod journal;
pub mod opencode;
pub mod pilot;
pub mod project;
pub mod projection;
pub mod runtime;
pub mod sandbox;
pub mod subprocess;

pub use canonical::{canonical_bytes, canonical_json_bytes};
pub use digest::{digest_of, is_digest, sha256_hex};
pub use envelope::{
    CheckedEnvelope, Envelope, EnvelopeKind, Excerpt, Payload, Refusal, RefusalCode, check_bytes,
    check_value,
};
