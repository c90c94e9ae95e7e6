//! What a member's turn reads (#894): the standing section, rendered from
//! room settings only so it changes only when they change, and per turn the
//! round, a short route note and the reply rule.

use sha2::{Digest, Sha256};

/// `ROOM_REPLY`: the standing reply rule.
pub const ROOM_REPLY: &str = "Reply with your line for the group, or [PASS] when you have nothing to add. Never explain a pass.";
/// `ROOM_REPLY_NOW`: the per-turn reply rule.
pub const ROOM_REPLY_NOW: &str = "Answer now with your line, or [PASS].";
/// `ROOM_REPLY_FORCED`: the fallback turn has no pass option.
pub const ROOM_REPLY_FORCED: &str =
    "Everyone passed on the person's line. Answer it now; [PASS] is not an option this time.";
/// `ROOM_REPLY_BOARD`: a room with a board.
pub const ROOM_REPLY_BOARD: &str = "Assigning, claiming and progress are track_tasks writes (overall task, subtask, assignee, column, progress); @Name only wakes; a status the board already shows is [PASS].";

/// `FACE_LEAD_NOTE` (#476): the lead of a face-to-face room.
pub const FACE_LEAD_NOTE: &str = "You lead this face-to-face room (its 总负责人): plan once, give each Bot its part by @Name, and answer a line that names no Bot.";
/// `FACE_LEAD_ROUTE` (#476): the lead's route note on a line naming no Bot.
pub const FACE_LEAD_ROUTE: &str = "This line names no Bot: it is yours as this room's lead; pass only when it is plainly another Bot's.";

/// `faceMemberNote` (#476): every other Bot of a face-to-face room that has
/// a lead.
pub fn face_member_note(lead: &str) -> String {
    format!(
        "{lead} leads this face-to-face room. Do only your part; answer when named; do not re-plan; a line that names no Bot is the lead's."
    )
}

/// The room settings the standing section reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub room_name: String,
    /// Member names in the room's order.
    pub members: Vec<String>,
    pub admin: Option<String>,
    pub notice: Option<String>,
    pub has_board: bool,
    /// The member this section is for.
    pub me: String,
    pub i_lead: bool,
    /// A face-to-face room (#476): the lead's notes, and `members` is every
    /// home's Bots.
    pub face: bool,
}

/// `standingText` (#894).
pub fn standing_text(s: &Settings) -> String {
    let mut out = vec![format!(
        "[Group \"{}\"] You are {} in this group.",
        s.room_name, s.me
    )];
    out.push(format!("Members: {}.", s.members.join(", ")));
    out.push("Call a member with @Name; @all calls everyone.".to_string());
    if let Some(notice) = s.notice.as_deref().filter(|n| !n.trim().is_empty()) {
        out.push(format!("Notice: {}", notice.trim()));
    }
    match (s.face, &s.admin, s.i_lead) {
        (true, _, true) => out.push(FACE_LEAD_NOTE.to_string()),
        (true, Some(lead), false) => out.push(face_member_note(lead)),
        (false, _, true) => out.push("You lead this group: plan once, give each member its part on the board, and answer a line that names nobody.".to_string()),
        (false, Some(admin), false) => out.push(format!("{admin} leads this group. Do your own part; answer when named; do not re-plan.")),
        (_, None, false) => {}
    }
    out.push("A line that names nobody is someone's: answer it only when it is yours (it names you or your role, or follows up on your own last answer); default to [PASS].".to_string());
    if s.has_board {
        out.push(ROOM_REPLY_BOARD.to_string());
    }
    out.push(ROOM_REPLY.to_string());
    out.join("\n")
}

/// A 16-hex SHA-256 mark of the notice a member last saw (`noticeSeen`).
pub fn notice_mark(notice: &str) -> String {
    let digest = Sha256::digest(notice.trim().as_bytes());
    crate::hex::lower_hex(&digest[..8])
}

/// Whether the member a turn is for leads the room, and which kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lead {
    No,
    /// The group's lead (its admin or task lead).
    Group,
    /// A face-to-face room's lead (#476).
    FaceRoom,
}

/// `routeNote`: to everyone, the lead's, or "Default to [PASS]"; who spoke
/// last before a line that names nobody; who already answered.
pub fn route_note(
    to_everyone: bool,
    named_me: bool,
    lead: Lead,
    spoke_last: Option<&str>,
    answered: &[String],
) -> String {
    let mut note = if to_everyone {
        "This line is to everyone: each may answer.".to_string()
    } else if named_me {
        "This line names you: answer it.".to_string()
    } else if lead == Lead::FaceRoom {
        FACE_LEAD_ROUTE.to_string()
    } else if lead == Lead::Group {
        "This line names nobody: it is yours as the lead; pass only when it is plainly another member's.".to_string()
    } else {
        "This line names nobody. Default to [PASS].".to_string()
    };
    if let Some(last) = spoke_last.filter(|_| !to_everyone && !named_me) {
        note.push_str(&format!(
            " {last} spoke last before this line: a follow-up is theirs first."
        ));
    }
    if !answered.is_empty() {
        note.push_str(&format!(
            " Already answered: {}; add only your role's part.",
            answered.join(", ")
        ));
    }
    note
}

/// One member turn's message: the round, the route note, the reply rule.
pub fn turn_message(round_text: &str, route: &str, forced: bool) -> String {
    let rule = if forced {
        ROOM_REPLY_FORCED
    } else {
        ROOM_REPLY_NOW
    };
    format!("{round_text}\n\n{route}\n{rule}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        Settings {
            room_name: "Build".into(),
            members: vec!["Ada".into(), "Bo".into()],
            admin: Some("Ada".into()),
            notice: None,
            has_board: true,
            me: "Bo".into(),
            i_lead: false,
            face: false,
        }
    }

    #[test]
    /// Rule #894.
    fn the_standing_section_reads_room_settings_only_and_changes_only_with_them() {
        let a = standing_text(&settings());
        assert_eq!(a, standing_text(&settings()));
        assert!(
            a.contains("Members: Ada, Bo.") && a.contains(ROOM_REPLY) && a.contains("track_tasks")
        );
        let mut changed = settings();
        changed.notice = Some("ship friday".into());
        assert_ne!(standing_text(&changed), a);
        assert_eq!(notice_mark("ship friday").len(), 16);
        assert_eq!(notice_mark("ship friday"), notice_mark(" ship friday "));
    }

    #[test]
    /// Rule #894.
    fn the_turn_carries_the_round_a_route_note_and_the_reply_rule() {
        let note = route_note(false, false, Lead::No, None, &["Ada".into()]);
        assert!(note.contains("Default to [PASS]") && note.contains("Already answered: Ada"));
        let msg = turn_message("Alice: hi", &note, false);
        assert!(msg.starts_with("Alice: hi") && msg.ends_with(ROOM_REPLY_NOW));
        assert!(turn_message("x", "y", true).ends_with(ROOM_REPLY_FORCED));
    }

    #[test]
    fn the_route_note_names_who_spoke_last_on_a_line_that_names_nobody() {
        let note = route_note(false, false, Lead::No, Some("Cy"), &[]);
        assert!(note.contains("Cy spoke last before this line"), "{note}");
        // A line to everyone, or one that names the member, says no more.
        assert!(!route_note(true, false, Lead::No, Some("Cy"), &[]).contains("spoke last"));
        assert!(!route_note(false, true, Lead::No, Some("Cy"), &[]).contains("spoke last"));
    }

    #[test]
    /// Rule #476.
    fn a_face_rooms_lead_gets_the_leads_notes_and_every_other_bot_the_members_note() {
        let mut lead = settings();
        lead.face = true;
        lead.i_lead = true;
        lead.me = "Ada".into();
        let text = standing_text(&lead);
        assert!(text.contains(FACE_LEAD_NOTE), "{text}");
        assert!(
            !text.contains("on the board, and"),
            "not the team lead's note"
        );
        let mut member = settings();
        member.face = true;
        member.admin = Some("Quinn (Bob)".into());
        let text = standing_text(&member);
        assert!(text.contains(&face_member_note("Quinn (Bob)")), "{text}");
        let mut leaderless = member.clone();
        leaderless.admin = None;
        assert!(!standing_text(&leaderless).contains("leads this"));
        // The lead's route on a line naming no Bot; the others keep [PASS].
        let route = route_note(false, false, Lead::FaceRoom, None, &[]);
        assert!(route.starts_with(FACE_LEAD_ROUTE), "{route}");
        assert!(route_note(false, false, Lead::No, None, &[]).contains("Default to [PASS]"));
        assert!(route_note(false, true, Lead::FaceRoom, None, &[]).contains("names you"));
    }
}
