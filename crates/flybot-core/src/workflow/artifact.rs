//! The typed facts a workflow node takes in and hands out (#1272): an
//! artifact spec (`check:tests-ok`, `issue.ready`, `text:topic`) parsed into
//! `{kind, name}` with one canonical key, the revision rule of each kind, and
//! `freshness`, which tells present-and-current apart from present. This file
//! names no producer: who makes a fact is the definition's business.

use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

/// Every kind a spec may name, with what its revision is (REVISION_RULES).
pub const KINDS: [(&str, RevisionRule); 12] = [
    ("text", RevisionRule::Field("revision")),
    ("link", RevisionRule::Field("revision")),
    ("file", RevisionRule::Field("revision")),
    ("issue", RevisionRule::Field("number")),
    ("pr", RevisionRule::NumberAtHead),
    ("check", RevisionRule::Field("sha")),
    ("verdict", RevisionRule::Field("sha")),
    ("risk", RevisionRule::Field("sha")),
    ("merge-commit", RevisionRule::Field("sha")),
    ("release", RevisionRule::Field("tag")),
    ("tick", RevisionRule::Field("at")),
    ("task", RevisionRule::Field("revision")),
];

/// What the revision of one kind of fact is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RevisionRule {
    /// One field of the value: a verdict's and a check's `sha`, an issue's
    /// `number`, a text's `revision`.
    Field(&'static str),
    /// A pull request: its `number` and `headRefOid`, as `12@abc123`.
    NumberAtHead,
}

impl RevisionRule {
    /// The revision of `value` under this rule, or `None` when a field is
    /// missing (a fact with no revision is unreadable, never a guess).
    pub fn revision_of(self, value: &Value) -> Option<String> {
        match self {
            RevisionRule::Field(field) => scalar(value.get(field)?),
            RevisionRule::NumberAtHead => {
                let number = scalar(value.get("number")?)?;
                let head = scalar(value.get("headRefOid")?)?;
                Some(format!("{number}@{head}"))
            }
        }
    }
}

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(text) if !text.trim().is_empty() => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        Value::String(_) | Value::Null | Value::Bool(_) | Value::Array(_) | Value::Object(_) => {
            None
        }
    }
}

/// The revision rule of `kind`, if the vocabulary has the kind.
pub fn revision_rule(kind: &str) -> Option<RevisionRule> {
    KINDS
        .iter()
        .find(|(known, _)| *known == kind)
        .map(|(_, rule)| *rule)
}

/// How the name hangs off the kind: `text:draft` names an instance,
/// `issue.ready` a state of the kind. The two are different spellings of
/// different facts; whitespace around either part is not (#1298).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Separator {
    Colon,
    Dot,
}

/// A parsed artifact spec. Equal specs have equal canonical keys.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ArtifactSpec {
    pub kind: String,
    pub name: Option<(Separator, String)>,
}

impl ArtifactSpec {
    /// The one spelling of this fact everywhere: `text: draft` is `text:draft`.
    pub fn key(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for ArtifactSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.name {
            None => f.write_str(&self.kind),
            Some((Separator::Colon, name)) => write!(f, "{}:{name}", self.kind),
            Some((Separator::Dot, name)) => write!(f, "{}.{name}", self.kind),
        }
    }
}

/// Why a spelling is not an artifact spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpecError {
    Empty,
    UnknownKind(String),
    BadName(String),
}

impl SpecError {
    /// The sentence a person reads, naming the spelling.
    pub fn sentence(&self, raw: &str) -> String {
        match self {
            SpecError::Empty => {
                "An artifact spec is empty; write kind or kind:name, such as text:draft.".to_owned()
            }
            SpecError::UnknownKind(kind) => format!(
                "The artifact {raw} has the kind {kind}, which the vocabulary does not have; use one of {}.",
                KINDS.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
            ),
            SpecError::BadName(name) => format!(
                "The artifact {raw} has the name {name:?}; a name is lowercase letters, digits and hyphens."
            ),
        }
    }
}

/// Reads `raw` into `{kind, name}`, refusing a kind the vocabulary lacks.
pub fn parse_spec(raw: &str) -> Result<ArtifactSpec, SpecError> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Err(SpecError::Empty);
    }
    let split = raw.char_indices().find(|(_, c)| *c == ':' || *c == '.');
    let (kind, name) = match split {
        None => (raw, None),
        Some((at, c)) => {
            let separator = if c == ':' {
                Separator::Colon
            } else {
                Separator::Dot
            };
            let name = raw[at + 1..].trim();
            (raw[..at].trim(), Some((separator, name.to_owned())))
        }
    };
    if revision_rule(kind).is_none() {
        return Err(SpecError::UnknownKind(kind.to_owned()));
    }
    if let Some((_, name)) = &name
        && !is_name(name)
    {
        return Err(SpecError::BadName(name.clone()));
    }
    Ok(ArtifactSpec {
        kind: kind.to_owned(),
        name,
    })
}

/// Lowercase letters, digits and hyphens, not empty: node ids, workflow ids
/// and artifact names share the rule.
pub fn is_name(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// The canonical key of `raw`, or `raw` trimmed when it does not parse (so
/// a caller keying on it still never splits one fact in two).
pub fn canonical_key(raw: &str) -> String {
    parse_spec(raw)
        .map(|spec| spec.key())
        .unwrap_or_else(|_| raw.trim().to_owned())
}

/// One instance of a fact: its spec, its revision and what it says.
#[derive(Debug, Clone, PartialEq)]
pub struct Artifact {
    pub spec: ArtifactSpec,
    pub revision: String,
    pub value: Value,
}

/// Builds one artifact whose revision follows its kind's rule from `value`.
pub fn artifact_from_value(spec: ArtifactSpec, value: Value) -> Option<Artifact> {
    let revision = revision_rule(&spec.kind)?.revision_of(&value)?;
    Some(Artifact {
        spec,
        revision,
        value,
    })
}

/// What a reader found for one fact.
#[derive(Debug, Clone, PartialEq)]
pub enum Fact {
    /// The artifact as read, and the revision its source holds now when the
    /// reader knows it (`None`: the source has not moved past what was read).
    Read {
        artifact: Artifact,
        current: Option<String>,
    },
    /// Nobody could read it: no answer, no token, a missing field (#1298).
    Unreadable { spec: ArtifactSpec, why: String },
}

impl Fact {
    pub fn spec(&self) -> &ArtifactSpec {
        match self {
            Fact::Read { artifact, .. } => &artifact.spec,
            Fact::Unreadable { spec, .. } => spec,
        }
    }
}

/// The facts a tick read, keyed by canonical key.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    by_key: BTreeMap<String, Fact>,
}

impl Facts {
    pub fn new() -> Self {
        Facts::default()
    }

    /// Adds or replaces the fact under its spec's canonical key.
    pub fn insert(&mut self, fact: Fact) {
        self.by_key.insert(fact.spec().key(), fact);
    }

    /// Convenience for tests and callers that read a current fact.
    pub fn read(&mut self, spec: &str, revision: &str, value: Value) {
        if let Ok(spec) = parse_spec(spec) {
            self.insert(Fact::Read {
                artifact: Artifact {
                    spec,
                    revision: revision.to_owned(),
                    value,
                },
                current: None,
            });
        }
    }

    /// The fact spelled `raw`, however it is spaced (#1298).
    pub fn get(&self, raw: &str) -> Option<&Fact> {
        self.by_key.get(&canonical_key(raw))
    }

    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }
}

/// Present apart from present-and-current (#1272).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Freshness {
    Missing,
    /// A fact nobody could read is never a match.
    Unreadable {
        why: String,
    },
    /// Present, read at `read`, while its source holds `current`.
    Stale {
        read: String,
        current: String,
    },
    Current {
        revision: String,
    },
}

impl Freshness {
    pub fn is_present(&self) -> bool {
        match self {
            Freshness::Stale { .. } | Freshness::Current { .. } => true,
            Freshness::Missing | Freshness::Unreadable { .. } => false,
        }
    }

    pub fn is_current(&self) -> bool {
        match self {
            Freshness::Current { .. } => true,
            Freshness::Missing | Freshness::Unreadable { .. } | Freshness::Stale { .. } => false,
        }
    }
}

/// How `input` stands against the revision its source holds now.
pub fn freshness(input: Option<&Fact>) -> Freshness {
    match input {
        None => Freshness::Missing,
        Some(Fact::Unreadable { why, .. }) => Freshness::Unreadable { why: why.clone() },
        Some(Fact::Read { artifact, current }) => match current {
            Some(current) if *current != artifact.revision => Freshness::Stale {
                read: artifact.revision.clone(),
                current: current.clone(),
            },
            Some(_) | None => Freshness::Current {
                revision: artifact.revision.clone(),
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    /// Rule #1272.
    fn specs_parse_into_kind_and_name() {
        let check = parse_spec("check:tests-ok").unwrap();
        assert_eq!(check.kind, "check");
        assert_eq!(check.name, Some((Separator::Colon, "tests-ok".into())));
        let ready = parse_spec("issue.ready").unwrap();
        assert_eq!(ready.name, Some((Separator::Dot, "ready".into())));
        assert_eq!(ready.key(), "issue.ready");
        assert_eq!(parse_spec("pr").unwrap().key(), "pr");
    }

    #[test]
    /// Rule #1298.
    fn spaced_and_unspaced_are_one_fact() {
        assert_eq!(canonical_key("text: draft"), "text:draft");
        assert_eq!(canonical_key(" text :draft "), "text:draft");
        let mut facts = Facts::new();
        facts.read("text:draft", "r1", json!({}));
        assert!(facts.get("text: draft").is_some());
    }

    #[test]
    /// Rule #1272.
    fn unknown_kind_refused() {
        let err = parse_spec("tweet:x").unwrap_err();
        assert_eq!(err, SpecError::UnknownKind("tweet".into()));
        assert!(err.sentence("tweet:x").contains("tweet:x"));
        assert_eq!(parse_spec("  "), Err(SpecError::Empty));
        assert!(matches!(
            parse_spec("text:Draft"),
            Err(SpecError::BadName(_))
        ));
    }

    #[test]
    /// Rule #1272.
    fn revision_rule_per_kind() {
        let pr = json!({"number": 12, "headRefOid": "abc"});
        assert_eq!(
            RevisionRule::NumberAtHead.revision_of(&pr).unwrap(),
            "12@abc"
        );
        let verdict = parse_spec("verdict").unwrap();
        let made = artifact_from_value(verdict.clone(), json!({"sha": "def"})).unwrap();
        assert_eq!(made.revision, "def");
        assert!(artifact_from_value(verdict, json!({"conclusion": "PASS"})).is_none());
        assert_eq!(revision_rule("check"), Some(RevisionRule::Field("sha")));
    }

    #[test]
    /// Rule #1272.
    fn freshness_tells_current_from_present() {
        let spec = parse_spec("check:tests-ok").unwrap();
        let read = |current: Option<&str>| Fact::Read {
            artifact: Artifact {
                spec: spec.clone(),
                revision: "a1".into(),
                value: json!({}),
            },
            current: current.map(str::to_owned),
        };
        let stale = freshness(Some(&read(Some("b2"))));
        assert!(stale.is_present() && !stale.is_current());
        assert_eq!(
            stale,
            Freshness::Stale {
                read: "a1".into(),
                current: "b2".into()
            }
        );
        assert!(freshness(Some(&read(Some("a1")))).is_current());
        assert!(freshness(Some(&read(None))).is_current());
        assert_eq!(freshness(None), Freshness::Missing);
        let unreadable = Fact::Unreadable {
            spec,
            why: "no token".into(),
        };
        let answer = freshness(Some(&unreadable));
        assert!(!answer.is_present() && !answer.is_current());
    }
}
