//! The fact providers (#1272 step 2, acceptance 10): one function per fact a
//! guard asks about, each turning an answer a reader already got into one
//! artifact, never fetching. No token, no answer, or an answer missing a
//! field is `unreadable` with the reason, never a guess; a check that ran but
//! reported no conclusion is unreadable too, since "still running" is not a
//! reading (#1298).

use super::artifact::{Artifact, ArtifactSpec, Fact, parse_spec};
use serde_json::{Value, json};

/// What a provider may know besides the answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FactArgs {
    /// Whether a GitHub token was there when the answer was read.
    pub token: bool,
    /// The artifact spec a generic provider hands out (`task.progress`,
    /// `manual.tick`, the check name of `github.checkAtSha`).
    pub spec: Option<String>,
}

/// What an answer says about one fact: read, unreadable, or not there yet.
pub type Reading = Option<Fact>;

/// Every provider name, the one spelling a caller with the name as data uses.
pub const PROVIDERS: [&str; 7] = [
    "github.labels",
    "github.checkAtSha",
    "github.verdictAtTip",
    "github.mergeable",
    "github.prBodyTip",
    "task.progress",
    "manual.tick",
];

/// Runs the provider `name`; an unknown name is an error naming it.
pub fn workflow_fact(
    name: &str,
    args: &FactArgs,
    answer: Option<&Value>,
) -> Result<Reading, String> {
    match name {
        "github.labels" => Ok(github_labels(args, answer)),
        "github.checkAtSha" => Ok(github_check_at_sha(args, answer)),
        "github.verdictAtTip" => Ok(github_verdict_at_tip(args, answer)),
        "github.mergeable" => Ok(github_mergeable(args, answer)),
        "github.prBodyTip" => Ok(github_pr_body_tip(args, answer)),
        "task.progress" => Ok(task_progress(args, answer)),
        "manual.tick" => Ok(manual_tick(args, answer)),
        other => Err(format!(
            "No fact provider is named {other:?}; it cannot be read."
        )),
    }
}

fn spec(raw: &str) -> ArtifactSpec {
    parse_spec(raw).unwrap_or(ArtifactSpec {
        kind: raw.to_owned(),
        name: None,
    })
}

fn unreadable(spec: ArtifactSpec, why: impl Into<String>) -> Reading {
    Some(Fact::Unreadable {
        spec,
        why: why.into(),
    })
}

fn read(spec: ArtifactSpec, revision: String, current: Option<String>, value: Value) -> Reading {
    Some(Fact::Read {
        artifact: Artifact {
            spec,
            revision,
            value,
        },
        current,
    })
}

/// A field as text: a non-empty string or a number.
fn text(answer: &Value, field: &str) -> Option<String> {
    match answer.get(field)? {
        Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(_) | Value::Null | Value::Bool(_) | Value::Array(_) | Value::Object(_) => {
            None
        }
    }
}

/// The GitHub checks every GitHub provider makes first: why it cannot
/// read, if it cannot.
fn github_answer<'a>(
    args: &FactArgs,
    answer: Option<&'a Value>,
) -> Result<&'a Value, &'static str> {
    if !args.token {
        return Err("no GitHub token is set");
    }
    answer.ok_or("GitHub gave no answer")
}

macro_rules! need {
    ($spec:expr, $answer:expr, $field:literal) => {
        match text($answer, $field) {
            Some(value) => value,
            None => return unreadable($spec.clone(), concat!("the answer has no ", $field)),
        }
    };
}

/// `github.labels`: the issue is ready when it carries the `ready` label.
pub fn github_labels(args: &FactArgs, answer: Option<&Value>) -> Reading {
    let spec = spec("issue.ready");
    let answer = match github_answer(args, answer) {
        Ok(answer) => answer,
        Err(why) => return unreadable(spec, why),
    };
    let number = need!(spec, answer, "number");
    let Some(labels) = answer.get("labels").and_then(Value::as_array) else {
        return unreadable(spec, "the answer has no labels");
    };
    let ready = labels.iter().any(|label| {
        label.as_str() == Some("ready")
            || label.get("name").and_then(Value::as_str) == Some("ready")
    });
    ready.then(|| Fact::Read {
        artifact: Artifact {
            spec,
            revision: number.clone(),
            value: json!({"number": number, "labels": labels}),
        },
        current: None,
    })
}

/// `github.checkAtSha`: a check that concluded `success` at a SHA, read
/// against the pull request's head now.
pub fn github_check_at_sha(args: &FactArgs, answer: Option<&Value>) -> Reading {
    let spec = spec(args.spec.as_deref().unwrap_or("check:tests-ok"));
    let answer = match github_answer(args, answer) {
        Ok(answer) => answer,
        Err(why) => return unreadable(spec, why),
    };
    let sha = need!(spec, answer, "sha");
    let Some(conclusion) = text(answer, "conclusion") else {
        return unreadable(
            spec.clone(),
            format!("the check {spec} at {sha} reported no conclusion yet"),
        );
    };
    if conclusion != "success" {
        return None;
    }
    let head = text(answer, "headSha");
    read(
        spec,
        sha.clone(),
        head,
        json!({"sha": sha, "conclusion": conclusion}),
    )
}

/// `github.verdictAtTip`: the review verdict, the SHA it judged, who wrote it.
pub fn github_verdict_at_tip(args: &FactArgs, answer: Option<&Value>) -> Reading {
    let spec = spec("verdict");
    let answer = match github_answer(args, answer) {
        Ok(answer) => answer,
        Err(why) => return unreadable(spec, why),
    };
    let sha = need!(spec, answer, "sha");
    let conclusion = need!(spec, answer, "conclusion");
    let head = need!(spec, answer, "headSha");
    let written_by = text(answer, "writtenBy");
    read(
        spec,
        sha.clone(),
        Some(head),
        json!({"sha": sha, "conclusion": conclusion, "writtenBy": written_by}),
    )
}

/// `github.mergeable`: the pull request, its head, and who holds it
/// (`"none"` when no one does).
pub fn github_mergeable(args: &FactArgs, answer: Option<&Value>) -> Reading {
    let spec = spec("pr");
    let answer = match github_answer(args, answer) {
        Ok(answer) => answer,
        Err(why) => return unreadable(spec, why),
    };
    let number = need!(spec, answer, "number");
    let head = need!(spec, answer, "headRefOid");
    let hold = text(answer, "hold").unwrap_or_else(|| "none".to_owned());
    let mergeable = answer.get("mergeable").cloned().unwrap_or(Value::Null);
    read(
        spec,
        format!("{number}@{head}"),
        None,
        json!({"number": number, "headRefOid": head, "mergeable": mergeable, "hold": hold}),
    )
}

/// `github.prBodyTip`: the risk tier the pull request body names at its tip.
pub fn github_pr_body_tip(args: &FactArgs, answer: Option<&Value>) -> Reading {
    let spec = spec("risk:tier");
    let answer = match github_answer(args, answer) {
        Ok(answer) => answer,
        Err(why) => return unreadable(spec, why),
    };
    let head = need!(spec, answer, "headRefOid");
    let body = answer.get("body").and_then(Value::as_str).unwrap_or("");
    let tier = body.split_whitespace().find_map(|word| {
        word.strip_prefix("risk:")
            .filter(|t| t.starts_with('T') && t.len() > 1)
            .map(|t| {
                t.trim_end_matches(|c: char| !c.is_ascii_alphanumeric())
                    .to_owned()
            })
    });
    match tier {
        Some(tier) => read(spec, head.clone(), None, json!({"tier": tier, "sha": head})),
        None => unreadable(spec, "the pull request body names no risk tier"),
    }
}

/// `task.progress`: a node's output once its task is accepted.
pub fn task_progress(args: &FactArgs, answer: Option<&Value>) -> Reading {
    let spec = spec(args.spec.as_deref().unwrap_or("task"));
    let Some(answer) = answer else {
        return unreadable(spec, "the task board gave no answer");
    };
    let status = need!(spec, answer, "status");
    if status != "accepted" {
        return None;
    }
    let revision = need!(spec, answer, "revision");
    read(spec, revision, text(answer, "current"), answer.clone())
}

/// `manual.tick`: a person ticked the fact off, at a time.
pub fn manual_tick(args: &FactArgs, answer: Option<&Value>) -> Reading {
    let spec = spec(args.spec.as_deref().unwrap_or("tick"));
    let Some(answer) = answer else {
        return unreadable(spec, "nobody has ticked it");
    };
    let at = need!(spec, answer, "at");
    read(spec, at, None, answer.clone())
}
