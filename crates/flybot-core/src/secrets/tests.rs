//! The secrets rules: scope and widening (#545), who gets a key (#601) and
//! why a key is withheld (#651), the edits' refusals, redaction.

use super::*;
use flybot_protocol::ErrorCode;
use flybot_protocol::secrets::{SecretSet, SecretUpdate, SecretValue};

fn file_with(keys: &[(&str, SecretScope, bool, Option<&str>)]) -> SecretsFile {
    let mut file = SecretsFile::default();
    for (name, scope, scope_set, by) in keys {
        file.secrets.insert(
            (*name).to_owned(),
            SecretRecord {
                value: SecretValue(format!("value-of-{name}")),
                scope: scope.clone(),
                scope_set: *scope_set,
                set_by: by.map(str::to_owned),
                set_at: 1,
                updated_at: 1,
            },
        );
    }
    file
}

fn own<'a>(bot_id: &'a str) -> ShellBot<'a> {
    ShellBot::Own {
        bot_id,
        owner_id: "member-ada",
    }
}

#[test]
/// Rule #545.
fn secret_scope_a_new_key_is_for_all_bots_unless_the_owner_narrows_it() {
    let mut file = SecretsFile::default();
    let req = |scope| SecretSet {
        name: "GITHUB_TOKEN".into(),
        value: SecretValue("ghp_abcdef".into()),
        scope,
    };
    set(&mut file, req(None), Some("member-ada".into()), 5).unwrap();
    let record = &file.secrets["GITHUB_TOKEN"];
    assert_eq!(record.scope, SecretScope::all());
    assert!(!record.scope_set);
    // A reconnect (a new value, no scope) keeps the scope the key has.
    let only = SecretScope::Bots(vec!["bot-1".into()]);
    update(
        &mut file,
        SecretUpdate {
            name: "GITHUB_TOKEN".into(),
            value: None,
            scope: Some(only.clone()),
        },
        6,
    )
    .unwrap();
    set(&mut file, req(None), None, 7).unwrap();
    let record = &file.secrets["GITHUB_TOKEN"];
    assert_eq!(record.scope, only);
    assert!(record.scope_set);
    assert_eq!(record.set_by.as_deref(), Some("member-ada"));
    assert_eq!((record.set_at, record.updated_at), (5, 7));
}

#[test]
/// Rule #545.
fn secret_scope_an_unmarked_empty_list_widens_on_load_a_chosen_one_stays() {
    let mut file = file_with(&[
        ("OLD", SecretScope::Bots(vec![]), false, None),
        ("NONE", SecretScope::Bots(vec![]), true, None),
        ("SOME", SecretScope::Bots(vec!["bot-1".into()]), false, None),
    ]);
    assert!(widen_on_load(&mut file));
    assert_eq!(file.secrets["OLD"].scope, SecretScope::all());
    assert_eq!(file.secrets["NONE"].scope, SecretScope::Bots(vec![]));
    assert_eq!(
        file.secrets["SOME"].scope,
        SecretScope::Bots(vec!["bot-1".into()])
    );
    assert!(!widen_on_load(&mut file), "widening happens once");
}

#[test]
/// Rule #651.
fn withheld_each_boundary_names_its_reason() {
    let file = file_with(&[
        ("ALL", SecretScope::all(), false, Some("member-ada")),
        (
            "ONLY_B",
            SecretScope::Bots(vec!["bot-b".into()]),
            true,
            None,
        ),
        ("NOBODY", SecretScope::Bots(vec![]), true, None),
        ("BOS", SecretScope::all(), false, Some("member-bo")),
    ]);
    let a = shell_secrets(&file, own("bot-a"));
    let names: Vec<&str> = a.given.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["ALL"]);
    assert_eq!(
        a.withheld,
        vec![
            ("BOS".into(), Withheld::NotInScope),
            ("NOBODY".into(), Withheld::NotInScope),
            ("ONLY_B".into(), Withheld::NotInScope),
        ]
    );
    let env = a.env();
    assert_eq!(
        env,
        vec![
            ("FLYBOT_SECRET_ALL".into(), "value-of-ALL".into()),
            (
                "FLYBOT_SECRETS_WITHHELD".into(),
                "BOS:not-in-scope,NOBODY:not-in-scope,ONLY_B:not-in-scope".into()
            ),
        ]
    );
    let b = shell_secrets(&file, own("bot-b"));
    assert_eq!(b.given.len(), 2);
    let remote = shell_secrets(&file, ShellBot::Remote);
    assert!(remote.given.is_empty());
    assert!(remote.env()[0].1.contains("ALL:remote-bot"));
    let unknown = shell_secrets(&file, ShellBot::Unknown);
    assert!(unknown.given.is_empty());
    assert!(
        unknown
            .withheld
            .iter()
            .all(|(_, why)| *why == Withheld::UnknownBot)
    );
    assert!(unknown.env()[0].1.contains("ALL:unknown-bot"));
}

#[test]
/// Rule #651.
fn withheld_no_key_saved_sets_no_variable() {
    let shell = shell_secrets(&SecretsFile::default(), own("bot-a"));
    assert!(shell.env().is_empty());
}

#[test]
fn secret_edits_refuse_bad_names_values_and_unknown_keys_and_change_nothing() {
    let mut file = file_with(&[("KEPT", SecretScope::all(), false, None)]);
    let before = file.clone();
    for name in ["", "lower", "1ABC", "A-B", &"A".repeat(65)] {
        let req = SecretSet {
            name: name.into(),
            value: SecretValue("abcd".into()),
            scope: None,
        };
        let err = set(&mut file, req, None, 2).unwrap_err();
        assert_eq!(err.code, ErrorCode::Invalid, "{name}");
    }
    for value in ["abc", "with\0nul", &"x".repeat(16 * 1024 + 1)] {
        let req = SecretSet {
            name: "KEPT".into(),
            value: SecretValue(value.into()),
            scope: None,
        };
        assert_eq!(
            set(&mut file, req, None, 2).unwrap_err().code,
            ErrorCode::Invalid
        );
    }
    let missing = SecretUpdate {
        name: "MISSING".into(),
        value: Some(SecretValue("abcd".into())),
        scope: None,
    };
    assert_eq!(
        update(&mut file, missing, 2).unwrap_err().code,
        ErrorCode::NotFound
    );
    assert_eq!(
        delete(&mut file, "MISSING").unwrap_err().code,
        ErrorCode::NotFound
    );
    assert_eq!(file, before);
}

#[test]
fn a_value_debug_prints_never_show_it() {
    let value = SecretValue("hunter2-secret".into());
    assert!(!format!("{value:?}").contains("hunter2"));
}

#[test]
fn redact_hides_every_value_longest_first() {
    let text = "token=abcd1234 short=abcd end";
    assert_eq!(
        redact(text, &["abcd", "abcd1234"]),
        "token=[secret] short=[secret] end"
    );
    assert_eq!(redact("plain", &[""]), "plain");
}

#[test]
/// Rule #651.
fn withheld_a_turn_for_a_remote_asker_gets_no_key_each_withheld_as_remote_bot() {
    let file = file_with(&[
        ("ALL", SecretScope::all(), false, Some("member-ada")),
        (
            "ONLY_B",
            SecretScope::Bots(vec!["bot-b".into()]),
            true,
            None,
        ),
    ]);
    let own_turn = shell_secrets(&file, own("bot-a"));
    assert_eq!(
        own_turn.given.len(),
        1,
        "the owner's line: the key is given"
    );
    let asked_by_a_friend = for_remote_asker(own_turn);
    assert!(asked_by_a_friend.given.is_empty());
    assert!(asked_by_a_friend.values().is_empty());
    assert_eq!(
        asked_by_a_friend.env(),
        vec![(
            "FLYBOT_SECRETS_WITHHELD".into(),
            "ALL:remote-bot,ONLY_B:remote-bot".into()
        )]
    );
}
