//! A Project's memory (#1712, Stage 2.5): `state.projectMemory[<project
//! id>]`, keyed by the Project so one Project never reads another's. It
//! holds the decisions and open questions written for it and the Project
//! Assistant's latest digest.

use serde::{Deserialize, Serialize};

/// What `project-memory-write` appends to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryKind {
    Decision,
    Question,
}

/// One written entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryNote {
    pub text: String,
    pub at: u64,
    /// The member who wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

/// The assistant's stored digest of one day (in the digest's zone).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DigestNote {
    /// `YYYY-MM-DD` in the digest's zone: one digest per day.
    pub day: String,
    pub text: String,
    pub at: u64,
}

/// A Project's memory.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectMemory {
    #[serde(default)]
    pub decisions: Vec<MemoryNote>,
    #[serde(default)]
    pub questions: Vec<MemoryNote>,
    #[serde(default)]
    pub digest: Option<DigestNote>,
}

/// `project-memory-write {project, kind, text}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProjectMemoryWrite {
    pub project: String,
    pub kind: MemoryKind,
    pub text: String,
}

/// `project-memory` / `project-memory-write` → `{memory}`.
#[derive(Debug, Clone, Serialize)]
pub struct ProjectMemoryAnswer {
    pub memory: ProjectMemory,
}

/// `project-digest {project}` → `{digest, skipped}`: today's digest, and
/// whether it was already built today (nothing stored or delivered again).
#[derive(Debug, Clone, Serialize)]
pub struct DigestAnswer {
    pub digest: Option<DigestNote>,
    pub skipped: bool,
}
