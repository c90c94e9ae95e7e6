//! The host-wide endpoints' answers: a model's connection test (#409), the
//! diagnostics (#49) and the usage ledger's rows (#903).

use crate::failure::FailureCode;
use serde::Serialize;

/// `test-model` → `{test}`.
#[derive(Debug, Clone, Serialize)]
pub struct ModelTested {
    pub test: ModelTest,
}

/// One connection test: `{ok: true, ref, ms}`, with `unknown: true` when
/// the stream had no finish, or `{ok: false, ref, code, ms}`.
#[derive(Debug, Clone, Serialize)]
pub struct ModelTest {
    pub ok: bool,
    #[serde(rename = "ref")]
    pub model_ref: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<FailureCode>,
    pub ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown: Option<bool>,
    /// The model's own short reply (issue 31), clipped to one line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply: Option<String>,
    /// A failure's sentence a person can act on (#409, issue 31).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sentence: Option<String>,
    /// The route is the built-in mock: nothing was sent anywhere.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub mock: bool,
}

/// `diagnostics` → `{diagnostics}`.
#[derive(Debug, Clone, Serialize)]
pub struct DiagnosticsAnswer {
    pub diagnostics: Diagnostics,
}

/// Where the home is, whether this host writes it, and its sizes.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostics {
    pub version: String,
    pub home: String,
    pub store: StoreWriter,
    pub revision: u64,
    pub saves_queued: u64,
    pub counts: TeamCounts,
    /// The build (#374): `{branch?, commit?, pinned?}` stamped when the
    /// binary was built from git; null when it was not (a source tarball).
    pub build: Option<BuildView>,
    /// Where FlyBot's source, releases and issue form are.
    pub links: AboutLinks,
    /// Commits the build's branch is ahead of it, when known; null when no
    /// check answered (#374).
    pub behind: Option<u64>,
}

/// The build a binary was made from (#374); `commit` is the short 7.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct BuildView {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pinned: bool,
}

/// The About block's links.
#[derive(Debug, Clone, Serialize)]
pub struct AboutLinks {
    pub repository: &'static str,
    pub releases: &'static str,
    pub issues: &'static str,
}

/// `diagnostics-log` → the home's diagnostics log, oldest line first (#68).
#[derive(Debug, Clone, Serialize)]
pub struct DiagnosticsLogAnswer {
    /// The file name a download is saved as.
    pub name: &'static str,
    pub text: String,
    pub bytes: usize,
}

/// `{writer: true}`, or `{writer: false, reason}` for a read-only home.
#[derive(Debug, Clone, Serialize)]
pub struct StoreWriter {
    pub writer: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// How many records of each kind the team holds.
#[derive(Debug, Clone, Serialize)]
pub struct TeamCounts {
    pub members: usize,
    pub bots: usize,
    pub rooms: usize,
    pub tasks: usize,
}

/// One row of the usage ledger: one model call; an unknown count is null.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageRow {
    pub id: String,
    pub session_id: String,
    pub bot_id: String,
    pub at: i64,
    pub provider: String,
    pub model: String,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cached_tokens: Option<u64>,
    pub reasoning_tokens: Option<u64>,
    pub harness: String,
    pub issue_pr: String,
    pub tool_calls: Option<u32>,
    pub wall_ms: Option<u64>,
}
