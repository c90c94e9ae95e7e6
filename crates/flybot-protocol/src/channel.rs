//! Request bodies of the channel's endpoints (`POST /api/bot/<endpoint>`).
//!
//! Every body refuses fields it does not know, so a misspelt field is a
//! `bot/invalid` naming it rather than a silent no-op. `actorId` is accepted
//! and ignored everywhere: the actor comes from the session header (#48).

use crate::state::Grant;
use serde::Deserialize;
use serde_json::Value;

/// `auth-invite {name?}`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuthInvite {
    pub name: Option<String>,
}

/// `auth-redeem {code, name}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuthRedeem {
    pub code: String,
    pub name: String,
}

/// `POST /web/sign-in`: the owner's token from her sign-in link (and the
/// name she goes by, if she gives one), or an invitation's code and the
/// new member's name (issue 29).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WebSignIn {
    #[serde(default)]
    pub token: Option<String>,
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
}

/// `auth-whoami {}` and other bodies that take nothing.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Empty {}

/// `auth-revoke {sessionId?}`: the caller's own session when absent.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuthRevoke {
    pub session_id: Option<String>,
}

/// `auth-revoke-invite {id}`, `delete-bot {id}`, `delete-room {id}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ById {
    pub id: String,
}

/// `auth-remove-member {memberId}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AuthRemoveMember {
    pub member_id: String,
}

/// `create-bot {name, model?, instructions?}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateBot {
    pub name: String,
    pub model: Option<String>,
    pub instructions: Option<String>,
    /// The role the Bot carries on the board's queues (#1247), e.g. `Dev`.
    pub role: Option<String>,
    /// `{driver: "subprocess", command: [argv...], cwd?, env?}` (#198):
    /// validated by the host, kept in the Bot record.
    #[serde(default)]
    pub external: Option<Value>,
    /// How hard its model thinks: `least`, `low`, `medium` or `high`.
    #[serde(default)]
    pub thinking: Option<crate::ThinkingLevel>,
    /// The harness tier its turns run under (#874): `default`, `lite`,
    /// `medium` or `heavy`; any other id is refused.
    #[serde(default)]
    pub harness: Option<crate::HarnessId>,
}

/// `update-bot {id, name?, model?, instructions?}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateBot {
    pub id: String,
    pub name: Option<String>,
    pub model: Option<String>,
    pub instructions: Option<String>,
    /// The Bot's queue role (#1247); `""` clears it.
    pub role: Option<String>,
    /// A new `external` record (#198); validated like create-bot's.
    #[serde(default)]
    pub external: Option<Value>,
    /// A new thinking level: `least`, `low`, `medium` or `high`.
    #[serde(default)]
    pub thinking: Option<crate::ThinkingLevel>,
    /// A new harness tier (#874); `default` goes back to the default one.
    #[serde(default)]
    pub harness: Option<crate::HarnessId>,
}

/// `duplicate-bot {id, name?}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DuplicateBot {
    pub id: String,
    pub name: Option<String>,
}

/// `set-main {id, replace?}` (#613).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SetMain {
    pub id: String,
    pub replace: Option<String>,
}

/// `create-room {name, members, admin?, participants?, notice?, taskLead?}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateRoom {
    pub name: String,
    #[serde(default)]
    pub members: Vec<String>,
    pub admin: Option<String>,
    #[serde(default)]
    pub participants: Vec<Value>,
    /// The room's standing notice (#894).
    pub notice: Option<String>,
    /// The member Bot that divides the room's board (#1182).
    pub task_lead: Option<String>,
}

/// `update-room {id, name?, members?, admin?, notice?, taskLead?}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateRoom {
    pub id: String,
    pub name: Option<String>,
    pub members: Option<Vec<String>>,
    pub admin: Option<String>,
    /// The room's standing notice (#894); `""` clears it.
    pub notice: Option<String>,
    /// The member Bot that divides the room's board (#1720); `""` clears it.
    pub task_lead: Option<String>,
}

/// `set-grants {botId, grants}` (#90): replaces the Bot's whole grant list.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SetGrants {
    pub bot_id: String,
    pub grants: Vec<Grant>,
}

/// `set-prefs {prefs}`: merges keys into the deployment-wide preferences;
/// a key set to null is removed.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SetPrefs {
    pub prefs: serde_json::Map<String, Value>,
}
