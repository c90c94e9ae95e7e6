//! A room line's attachments are in the line's own record (issue 32): the
//! line and its ids are one write, durable together. Who may read an
//! attachment is decided from the records' postings in team state
//! (`flybot_core::attachments::may_read`, #50), written right after the
//! line; a crash between the two leaves a line whose files its readers
//! cannot fetch yet (never one they could read too early). At a start the
//! postings are put back from the lines, in one change.

use crate::rooms::RoomLogs;
use crate::team::Team;
use flybot_protocol::ApiError;
use flybot_protocol::attachment::Posting;

/// At a start, puts back the postings a crash cut off after their lines
/// were written. Only the home's writer.
pub async fn repair_on_start(team: &Team, logs: &RoomLogs) {
    if team.store().status() != flybot_store::StoreStatus::Writer {
        return;
    }
    match repair(team, logs).await {
        Ok(0) => {}
        Ok(count) => tracing::info!("put back {count} attachment posting(s) a crash cut off"),
        Err(e) => tracing::warn!("attachment postings were not put back: {}", e.message),
    }
}

/// Posts every attachment a stored room line carries that its record does
/// not name yet; answers how many postings were put back.
pub async fn repair(team: &Team, logs: &RoomLogs) -> Result<usize, ApiError> {
    let rooms: Vec<String> = team.read(|state| state.rooms.keys().cloned().collect());
    let mut missing: Vec<(String, Posting)> = Vec::new();
    for room_id in rooms {
        let Ok(lines) = logs.lines(&room_id) else {
            continue;
        };
        team.read(|state| {
            for line in lines.iter().filter(|l| !l.attachments.is_empty()) {
                let posting = Posting::Room {
                    room_id: room_id.clone(),
                    seq: line.seq,
                };
                for id in &line.attachments {
                    let cut = state
                        .attachments
                        .get(id)
                        .is_some_and(|a| !a.postings.contains(&posting));
                    if cut {
                        missing.push((id.clone(), posting.clone()));
                    }
                }
            }
        });
    }
    if missing.is_empty() {
        return Ok(0);
    }
    let count = missing.len();
    team.mutate("attachment-postings", |change| {
        for (id, posting) in missing {
            change.post_attachment(&id, posting);
        }
        Ok(())
    })
    .await?;
    Ok(count)
}
