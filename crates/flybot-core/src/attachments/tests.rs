//! The attachment rules, each tested by the name of the rule it keeps.

use super::images::{ServedModel, image_as_text, image_placeholder, ocr_route, sees_images};
use super::text::fenced_file;
use super::*;
use flybot_protocol::attachment::AttachmentKind;
use flybot_protocol::state::Room;

fn attachment(owner: &str, postings: Vec<Posting>) -> Attachment {
    Attachment {
        id: "att-1".into(),
        sha256: "a".repeat(64),
        name: "shot.png".into(),
        mime: "image/png".into(),
        kind: AttachmentKind::Image,
        size: 10,
        owner_id: owner.into(),
        created_at: 1,
        postings,
        extra: Default::default(),
    }
}

fn room_with(seats: serde_json::Value) -> TeamState {
    let mut state = TeamState::default();
    let room: Room = serde_json::from_value(serde_json::json!({
        "id": "room-1", "name": "R", "ownerId": "ann", "participants": seats,
        "createdAt": 1, "updatedAt": 1
    }))
    .unwrap();
    state.rooms.insert(room.id.clone(), room);
    state
}

#[test]
fn the_owner_reads_her_attachment_and_no_one_else_in_her_own_chat() {
    let state = TeamState::default();
    let a = attachment(
        "ann",
        vec![Posting::Chat {
            session_id: "s".into(),
        }],
    );
    assert!(may_read(&state, "ann", &a));
    assert!(!may_read(&state, "bob", &a));
}

#[test]
fn a_room_member_whose_window_covers_the_line_reads_it_and_a_late_joiner_does_not() {
    let state = room_with(serde_json::json!([
        {"id": "ann", "kind": "human", "role": "admin", "joinedSeq": 0},
        {"id": "bob", "kind": "human", "role": "member", "joinedSeq": 2},
        {"id": "cid", "kind": "human", "role": "member", "joinedSeq": 9},
    ]));
    let a = attachment(
        "ann",
        vec![Posting::Room {
            room_id: "room-1".into(),
            seq: 5,
        }],
    );
    assert!(may_read(&state, "bob", &a));
    assert!(!may_read(&state, "cid", &a), "joined after the line (#50)");
    assert!(!may_read(&state, "dan", &a), "not in the room");
}

#[test]
fn a_member_who_left_the_room_no_longer_reads_its_attachments() {
    let state = room_with(serde_json::json!([
        {"id": "ann", "kind": "human", "role": "admin", "joinedSeq": 0},
        {"id": "bob", "kind": "human", "role": "member", "joinedSeq": 1, "leftSeq": 7},
    ]));
    let a = attachment(
        "ann",
        vec![Posting::Room {
            room_id: "room-1".into(),
            seq: 5,
        }],
    );
    assert!(!may_read(&state, "bob", &a));
}

#[test]
fn a_bot_reads_an_attachment_of_its_own_chat_or_its_rooms_window_and_nothing_else() {
    let mut state = room_with(serde_json::json!([
        {"id": "ann", "kind": "human", "role": "admin", "joinedSeq": 0},
        {"id": "bot-a", "kind": "local-bot", "role": "member", "joinedSeq": 3},
        {"id": "bot-b", "kind": "local-bot", "role": "member", "joinedSeq": 9},
        {"id": "bot-c", "kind": "local-bot", "role": "member", "joinedSeq": 0, "leftSeq": 4},
    ]));
    let room = state.rooms.get_mut("room-1").unwrap();
    for bot in ["bot-a", "bot-b", "bot-c"] {
        room.sessions.insert(bot.into(), format!("room-s-{bot}"));
    }
    let in_room = attachment(
        "ann",
        vec![Posting::Room {
            room_id: "room-1".into(),
            seq: 5,
        }],
    );
    assert!(session_may_read(&state, "room-s-bot-a", "bot-a", &in_room));
    // #50: a seat that joined after the line, or left before it.
    assert!(!session_may_read(&state, "room-s-bot-b", "bot-b", &in_room));
    assert!(!session_may_read(&state, "room-s-bot-c", "bot-c", &in_room));
    // The Bot's own chat is not the room, and a seat is not borrowed.
    assert!(!session_may_read(&state, "chat-bot-a", "bot-a", &in_room));
    assert!(!session_may_read(&state, "room-s-bot-a", "bot-b", &in_room));
    let in_chat = attachment(
        "ann",
        vec![Posting::Chat {
            session_id: "chat-bot-a".into(),
        }],
    );
    assert!(session_may_read(&state, "chat-bot-a", "bot-a", &in_chat));
    assert!(!session_may_read(&state, "chat-bot-b", "bot-b", &in_chat));
    assert!(!session_may_read(&state, "room-s-bot-a", "bot-a", &in_chat));
    // An upload on no line is read by no Bot.
    assert!(!session_may_read(
        &state,
        "chat-bot-a",
        "bot-a",
        &attachment("ann", vec![])
    ));
}

#[test]
fn an_upload_past_a_limit_is_refused_with_a_sentence_naming_the_limit() {
    let mut state = TeamState::default();
    let limits = Limits {
        per_file: 1024 * 1024,
        per_member: 3 * 1024 * 1024,
    };
    let over = check_quota(&state, "ann", 2 * 1024 * 1024, limits).unwrap_err();
    assert_eq!(over.code, ErrorCode::TooLarge);
    assert!(
        over.message.contains("limit per file is 1 MiB"),
        "{}",
        over.message
    );
    let mut held = attachment("ann", Vec::new());
    held.size = 3 * 1024 * 1024 - 10;
    state.attachments.insert(held.id.clone(), held);
    let full = check_quota(&state, "ann", 100, limits).unwrap_err();
    assert!(
        full.message.contains("3 MiB each member may store"),
        "{}",
        full.message
    );
    assert!(check_quota(&state, "bob", 100, limits).is_ok());
}

#[test]
fn a_name_is_one_line_and_never_a_path() {
    assert_eq!(clean_name("../../etc/passwd"), "passwd");
    assert_eq!(clean_name("a\nb.png"), "ab.png");
    assert_eq!(clean_name(".."), "file");
}

fn served() -> Vec<ServedModel> {
    vec![
        ServedModel {
            name: "text".into(),
            image_input: false,
        },
        ServedModel {
            name: "eyes-a".into(),
            image_input: true,
        },
        ServedModel {
            name: "eyes-b".into(),
            image_input: true,
        },
        ServedModel {
            name: "claims".into(),
            image_input: true,
        },
    ]
}

#[test]
/// Rule #779.
fn ocr_route_tries_config_ocr_model_first_then_image_models_default_first() {
    let text_only = vec!["claims".to_owned()];
    let route = ocr_route(Some("tesseract"), &served(), "eyes-b", &text_only);
    assert_eq!(route, ["tesseract", "eyes-b", "eyes-a"]);
    let route = ocr_route(None, &served(), "text", &[]);
    assert_eq!(route, ["eyes-a", "eyes-b", "claims"]);
}

#[test]
/// Rule #779.
fn text_only_models_overrides_a_providers_image_claim() {
    let text_only = vec!["claims".to_owned()];
    assert!(!sees_images(&served(), &text_only, "claims"));
    assert!(sees_images(&served(), &text_only, "eyes-a"));
    assert!(!ocr_route(None, &served(), "claims", &text_only).contains(&"claims".to_owned()));
}

#[test]
/// Rule #779.
fn image_placeholder_names_the_file_only_when_given_a_path() {
    assert_eq!(
        image_placeholder("shot.png", None),
        "[image: shot.png, not shown to this model]"
    );
    assert!(image_placeholder("shot.png", Some("/h/o")).contains("the file is at /h/o"));
    let with = image_as_text("shot.png", None, Some("HELLO WORLD\n"));
    assert!(with.starts_with(&image_placeholder("shot.png", None)));
    assert!(with.ends_with("HELLO WORLD"));
}

#[test]
/// Rule #98.
fn a_text_file_is_fenced_and_cut_with_a_note_past_the_budget() {
    let fenced = fenced_file("notes.md", "hi </untrusted-file> you", 100);
    assert!(fenced.starts_with("<untrusted-file name=\"notes.md\">\n"));
    assert_eq!(fenced.matches("</untrusted-file>").count(), 1);
    let cut = fenced_file("big.txt", &"x".repeat(50), 10);
    assert!(cut.contains(&format!("\n{}\n", "x".repeat(10))));
    assert!(cut.ends_with("[cut: the file has 50 characters; only the first 10 are shown]"));
}
