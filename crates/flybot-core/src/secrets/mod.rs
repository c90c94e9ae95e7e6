//! Secrets (#545, #601, #651): which saved keys a Bot's shell gets, why the
//! others are withheld, the load-time widening of an old empty scope, and
//! the checks and edits of `secrets.json`'s records. Pure: the host reads
//! and writes the file.

mod edit;
#[cfg(test)]
mod tests;

pub use edit::{check_name, check_value, delete, set, update};

use flybot_protocol::secrets::{SecretRecord, SecretScope, SecretsFile};

/// The prefix of a key's name in a shell's environment.
pub const ENV_PREFIX: &str = "FLYBOT_SECRET_";
/// The variable naming the keys a shell did not get, and why (#651).
pub const WITHHELD_ENV: &str = "FLYBOT_SECRETS_WITHHELD";

/// Why a saved key is not in a shell (#651): a closed set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Withheld {
    /// A friend's Bot never gets the owner's keys.
    RemoteBot,
    /// The owner scoped the key to other Bots, or to none (or it is
    /// another owner's key).
    NotInScope,
    /// The Bot behind the call could not be determined.
    UnknownBot,
}

impl Withheld {
    pub fn as_str(self) -> &'static str {
        match self {
            Withheld::RemoteBot => "remote-bot",
            Withheld::NotInScope => "not-in-scope",
            Withheld::UnknownBot => "unknown-bot",
        }
    }

    /// What a Bot is told about a key withheld for this reason.
    pub fn sentence(self) -> &'static str {
        match self {
            Withheld::RemoteBot => "a friend's Bot never gets the owner's keys",
            Withheld::NotInScope => {
                "the owner gave it to other Bots only; ask them to add you to its scope"
            }
            Withheld::UnknownBot => "the Bot this call works for could not be determined",
        }
    }
}

/// Whose shell asks: one of the team's Bots (with its owner), a friend's
/// Bot, or a call whose Bot cannot be determined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellBot<'a> {
    Own { bot_id: &'a str, owner_id: &'a str },
    Remote,
    Unknown,
}

/// The keys one shell gets and the ones it does not, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellSecrets {
    /// `(NAME, value)` for each key in scope.
    pub given: Vec<(String, String)>,
    /// `(NAME, reason)` for each key withheld.
    pub withheld: Vec<(String, Withheld)>,
}

impl ShellSecrets {
    /// The environment a shell gets: each key as `FLYBOT_SECRET_<NAME>`, and
    /// `FLYBOT_SECRETS_WITHHELD` (`NAME:reason,...`) when any is withheld.
    pub fn env(&self) -> Vec<(String, String)> {
        let mut env: Vec<(String, String)> = self
            .given
            .iter()
            .map(|(name, value)| (format!("{ENV_PREFIX}{name}"), value.clone()))
            .collect();
        if !self.withheld.is_empty() {
            let list: Vec<String> = self
                .withheld
                .iter()
                .map(|(name, why)| format!("{name}:{}", why.as_str()))
                .collect();
            env.push((WITHHELD_ENV.to_owned(), list.join(",")));
        }
        env
    }

    /// The values given, for redaction of what the shell printed.
    pub fn values(&self) -> Vec<&str> {
        self.given.iter().map(|(_, value)| value.as_str()).collect()
    }
}

/// Whether `record` goes to the owner's Bot `bot_id` of `owner_id`.
fn in_scope(record: &SecretRecord, bot_id: &str, owner_id: &str) -> bool {
    let owners_key = record.set_by.as_deref().is_none_or(|by| by == owner_id);
    owners_key
        && match &record.scope {
            SecretScope::All(_) => true,
            SecretScope::Bots(bots) => bots.iter().any(|b| b == bot_id),
        }
}

/// The keys `who`'s shell gets (#601: every turn of the owner's own Bot,
/// whatever started it) and why each other key is withheld (#651).
pub fn shell_secrets(file: &SecretsFile, who: ShellBot<'_>) -> ShellSecrets {
    let mut shell = ShellSecrets::default();
    for (name, record) in &file.secrets {
        let verdict = match who {
            ShellBot::Own { bot_id, owner_id } if in_scope(record, bot_id, owner_id) => Ok(()),
            ShellBot::Own { .. } => Err(Withheld::NotInScope),
            ShellBot::Remote => Err(Withheld::RemoteBot),
            ShellBot::Unknown => Err(Withheld::UnknownBot),
        };
        match verdict {
            Ok(()) => shell.given.push((name.clone(), record.value.0.clone())),
            Err(why) => shell.withheld.push((name.clone(), why)),
        }
    }
    shell
}

/// #651: the shell of a turn that answers a friend's line (a remote
/// asker) gets no key: each saved key is withheld as `remote-bot`, so a
/// friend's words can never talk a Bot into using the owner's keys.
pub fn for_remote_asker(shell: ShellSecrets) -> ShellSecrets {
    let given = shell.given.into_iter().map(|(name, _)| name);
    let others = shell.withheld.into_iter().map(|(name, _)| name);
    let mut names: Vec<String> = given.chain(others).collect();
    names.sort();
    ShellSecrets {
        given: Vec::new(),
        withheld: (names.into_iter())
            .map(|name| (name, Withheld::RemoteBot))
            .collect(),
    }
}

/// The load-time widening (#545): an empty list the owner did not mark as
/// chosen is the old connector default and becomes `all`. Answers whether
/// anything changed (the writing host then saves the file).
pub fn widen_on_load(file: &mut SecretsFile) -> bool {
    let mut changed = false;
    for record in file.secrets.values_mut() {
        if !record.scope_set && matches!(&record.scope, SecretScope::Bots(b) if b.is_empty()) {
            record.scope = SecretScope::all();
            changed = true;
        }
    }
    changed
}

/// `text` with every value in `values` replaced by `[secret]`, so a shell's
/// output never carries a key into a Session log (longest first, so a value
/// inside another is not left half shown).
pub fn redact(text: &str, values: &[&str]) -> String {
    let mut values: Vec<&str> = values.iter().copied().filter(|v| !v.is_empty()).collect();
    values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    let mut text = text.to_owned();
    for value in values {
        if text.contains(value) {
            text = text.replace(value, "[secret]");
        }
    }
    text
}
