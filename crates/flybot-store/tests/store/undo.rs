//! A change its caller refuses part-way leaves the team as it was, to the
//! byte: every write it had made is undone, records and whole fields alike,
//! and nothing reaches the journal.

//!
//! Both engines (issue 35): each test runs on the home folder and on
//! PostgreSQL (`both_engines!`).

use crate::engines::Place;
use crate::support::{OWNER, add_bot, bot, pretty};
use flybot_protocol::{ApiError, ErrorCode};
use serde_json::json;

both_engines!(a_refused_change_leaves_the_team_to_the_byte);
async fn a_refused_change_leaves_the_team_to_the_byte(place: Place) {
    let store = place.open();
    add_bot(&store, "bot-a").await;
    add_bot(&store, "bot-b").await;
    store
        .mutate("host", |change| {
            change.set_main_bot_ids(&["bot-a".to_owned()]);
            change.set_pref("theme", Some(&json!("dark")));
            Ok(())
        })
        .await
        .unwrap();
    store.saves_settled().await;
    let before = store.read(pretty);
    let journal_before = place.journal().await;
    let revision_before = store.read(|team| team.journal_seq);

    let refused = store
        .mutate("host", |change| {
            let mut renamed = bot("bot-a", OWNER);
            renamed.name = "Renamed".to_owned();
            change.put_bot(&renamed);
            change.put_bot(&bot("bot-new", OWNER));
            change.remove_bot("bot-b");
            change.remove_bot("bot-never-there");
            change.set_main_bot_ids(&["bot-new".to_owned(), "bot-a".to_owned()]);
            change.set_designated_chief_id(Some("bot-new"));
            change.set_pref("theme", None);
            change.set_pref("density", Some(&json!({"rows": 3})));
            assert!(change.state().bots.contains_key("bot-new"));
            assert!(!change.state().bots.contains_key("bot-b"));
            Err::<(), _>(ApiError::new(ErrorCode::Invalid, "refused on purpose"))
        })
        .await;

    assert_eq!(refused.unwrap_err().code, ErrorCode::Invalid);
    assert_eq!(
        String::from_utf8(store.read(pretty)).unwrap(),
        String::from_utf8(before).unwrap()
    );
    assert_eq!(store.read(|team| team.journal_seq), revision_before);
    store.saves_settled().await;
    assert_eq!(place.journal().await, journal_before);
    store.close().await.unwrap();
}

both_engines!(deleting_what_is_not_there_writes_nothing);
async fn deleting_what_is_not_there_writes_nothing(place: Place) {
    let store = place.open();
    add_bot(&store, "bot-a").await;
    let queued = store.saves_queued();
    store
        .mutate("host", |change| {
            change.remove_bot("bot-never-there");
            change.set_pref("never-set", None);
            Ok(())
        })
        .await
        .unwrap();
    assert_eq!(store.saves_queued(), queued);
    store.close().await.unwrap();
}
