//! A standing grant never answers a turn whose input came from outside the
//! owner (#540, issue 29): a message through a channel connector (Feishu,
//! #1266) or a schedule another person made still asks, while the owner's
//! own schedule is answered at once as before.

use crate::approvals::{answer, edit_bot, last_result, scripted_kit, the_one_waiting, waiting};
use flybot_agent::session::{ItemKind, Source};
use flybot_testkit::Kit;
use serde_json::json;

/// A schedule record on the Bot's chat, made by `made_by`.
async fn put_schedule(kit: &Kit, id: &str, session: &str, made_by: &str) {
    let task = serde_json::from_value(json!({
        "id": id, "sessionId": session, "title": "Nightly", "prompt": "run it",
        "when": {"kind": "every", "seconds": 3600}, "status": "paused",
        "createdBy": made_by, "createdAt": 1, "updatedAt": 1
    }))
    .unwrap();
    kit.host
        .team()
        .mutate("test", |change| {
            change.put_schedule(&task);
            Ok(())
        })
        .await
        .unwrap();
}

/// Delivers "run it" into the Bot's chat from `source`.
fn deliver(kit: &Kit, session: &str, source: Source) {
    kit.host
        .sessions()
        .deliver(session, "run it", source, ItemKind::NextTurn)
        .unwrap();
}

#[tokio::test]
/// Rule #540.
async fn outside_input_a_connector_message_or_a_strangers_schedule_still_asks() {
    let kit = scripted_kit().await;
    let ada = kit.bot("Ada").await;
    edit_bot(&kit, &ada.id, |bot| {
        bot.extra.insert(
            "standingApprovals".into(),
            json!([{"kind": "run_command", "label": "run", "at": 1}]),
        );
    })
    .await;
    let owner_id = kit.host.store().read(|s| s.bots[&ada.id].owner_id.clone());
    put_schedule(&kit, "schedule-theirs", &ada.session, "member-stranger").await;
    put_schedule(&kit, "schedule-mine", &ada.session, &owner_id).await;
    let outside = [
        Source::Connector {
            connector: "feishu".into(),
            chat: "oc_1".into(),
        },
        Source::Schedule {
            task_id: "schedule-theirs".into(),
        },
    ];
    for source in outside {
        deliver(&kit, &ada.session, source.clone());
        let id = the_one_waiting(kit.anyone()).await;
        answer(kit.anyone(), &id, "rejected").await;
        kit.idle(&ada.session).await;
        assert!(waiting(kit.anyone(), 0).await.is_empty(), "{source:?}");
    }
    // The owner's own schedule: the grant answers at once, nothing waits.
    let mine = Source::Schedule {
        task_id: "schedule-mine".into(),
    };
    deliver(&kit, &ada.session, mine);
    kit.idle(&ada.session).await;
    let result = last_result(&kit, &ada.id).await;
    assert_eq!(result["isError"], false, "{result}");
    let all = kit.host.store().read(|s| s.flybot.approvals.len());
    assert_eq!(all, 2, "only the two outside turns asked");
}
