//! `attach_file` as the host answers it (issue 32): a file of the Bot's own
//! workspace becomes an attachment of its answer. The path is the Bot's
//! output, so it is hostile: it must name a regular file inside the
//! workspace (no absolute path, no `..`, no symlink that leads outside, no
//! FIFO, device or folder) within the upload limits, or it is refused with
//! one sentence and nothing is stored. The bytes are sniffed and stored
//! once like an upload; the record is the Bot's owner's, posted on the
//! Bot's own chat when the answer is said there (#50).

use super::AttachmentConfig;
use crate::team::Team;
use flybot_core::attachments::{check_quota, clean_name, shown_size};
use flybot_protocol::attachment::{Attachment, AttachmentShown, Posting};
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Component, Path, PathBuf};

/// Stores the workspace file `raw` of `bot_id` (speaking in `session_id`)
/// as an attachment; `Err` is the sentence the Bot is told.
pub async fn attach_for_bot(
    team: &Team,
    home: &Path,
    config: &AttachmentConfig,
    session_id: &str,
    bot_id: &str,
    workdir: &Path,
    raw: &str,
) -> Result<AttachmentShown, String> {
    let (owner, own_chat) = team
        .read(|state| {
            let bot = state.bots.get(bot_id)?;
            Some((bot.owner_id.clone(), bot.session_id == session_id))
        })
        .ok_or_else(|| "This Bot is no longer on the team.".to_owned())?;
    let limits = config.limits;
    let (workdir, raw_owned) = (workdir.to_owned(), raw.to_owned());
    let (path, bytes) = tokio::task::spawn_blocking(move || {
        let path = inside_workspace(&workdir, &raw_owned)?;
        let bytes = read_regular(&path, limits.per_file)?;
        Ok::<_, String>((path, bytes))
    })
    .await
    .map_err(|_| "The file could not be read; try again.".to_owned())??;
    let size = bytes.len() as u64;
    team.read(|state| check_quota(state, &owner, size, limits))
        .map_err(|e| e.message)?;
    let (mime, kind) = super::sniff::sniff(&bytes);
    let sha = super::upload::store_object(home, bytes)
        .await
        .map_err(|e| e.message)?;
    let name = clean_name(&path.file_name().unwrap_or_default().to_string_lossy());
    let id = crate::ids::new_id("att");
    let postings = if own_chat {
        vec![Posting::Chat {
            session_id: session_id.to_owned(),
        }]
    } else {
        Vec::new()
    };
    let record = team
        .mutate(&format!("bot:{bot_id}"), |change| {
            check_quota(change.state(), &owner, size, limits)?;
            let record = Attachment {
                id,
                sha256: sha,
                name,
                mime,
                kind,
                size,
                owner_id: owner.clone(),
                created_at: change.now_ms(),
                postings,
                extra: Default::default(),
            };
            change.put_attachment(&record);
            Ok(record)
        })
        .await
        .map_err(|e| e.message)?;
    Ok(AttachmentShown::from(&record))
}

/// The canonical path of `raw` inside `workdir`, or the sentence why not.
pub fn inside_workspace(workdir: &Path, raw: &str) -> Result<PathBuf, String> {
    let asked = Path::new(raw.trim());
    // The path is the model's output: said back short, on one line.
    let raw = clean_name_of_path(raw);
    let raw = raw.as_str();
    if asked.is_absolute() {
        return Err(format!(
            "{raw} is an absolute path; name the file by its path inside your workspace folder."
        ));
    }
    if asked
        .components()
        .any(|c| matches!(c, Component::ParentDir | Component::Prefix(_)))
    {
        return Err(format!(
            "{raw} climbs out with `..`; name a file inside your workspace folder."
        ));
    }
    let not_there = || format!("There is no file {raw} in your workspace folder.");
    let root = workdir.canonicalize().map_err(|_| not_there())?;
    let full = root.join(asked).canonicalize().map_err(|_| not_there())?;
    // A symlink anywhere on the way that leads outside lands here.
    if !full.starts_with(&root) {
        return Err(format!(
            "{raw} leads outside your workspace folder; only its own files can be attached."
        ));
    }
    Ok(full)
}

/// The bytes of the regular file at `path`, at most `limit` of them.
/// Opened without following a last symlink and without blocking on a FIFO;
/// the open file is what is checked, so a swap after the check changes
/// nothing read.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    let shown = path.file_name().unwrap_or_default().to_string_lossy();
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(|_| format!("{shown} could not be opened; attach a regular file."))?;
    let meta = file
        .metadata()
        .map_err(|_| format!("{shown} could not be opened; attach a regular file."))?;
    if !meta.is_file() {
        return Err(format!(
            "{shown} is not a regular file (a folder, a pipe or a device); attach a regular file."
        ));
    }
    let too_large = |size: u64| {
        format!(
            "{shown} is {} and the limit per file is {}; attach a smaller one.",
            shown_size(size),
            shown_size(limit)
        )
    };
    if meta.len() > limit {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|_| format!("{shown} could not be read; try again."))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    if bytes.is_empty() {
        return Err(format!(
            "{shown} is empty; attach a file with something in it."
        ));
    }
    Ok(bytes)
}

/// `raw` as a sentence names it: one printable line of at most 200
/// characters.
fn clean_name_of_path(raw: &str) -> String {
    let line: String = raw
        .trim()
        .chars()
        .filter(|c| !c.is_control())
        .take(200)
        .collect();
    if raw.trim().chars().count() > 200 {
        format!("{line}…")
    } else {
        line
    }
}
