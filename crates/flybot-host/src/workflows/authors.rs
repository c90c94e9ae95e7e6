//! Who saved each workflow (#1544, #1582): the Bot whose `define_workflow`
//! call wrote the file, kept beside the definitions (never inside them, so
//! the canonical bytes stay the definition's own). A save with no Bot
//! behind it (the channel's `workflow-save`, Customize) is the owner's own
//! edit and records no author, which lifts that cap again.

use super::Workflows;
use flybot_store::workflows::{read_authors, write_authors};
use serde_json::{Map, Value};

fn read_all(wf: &Workflows) -> Map<String, Value> {
    read_authors(&wf.home)
}

/// The Bot that saved workflow `id`, if a Bot did.
pub fn author_of(wf: &Workflows, id: &str) -> Option<String> {
    read_all(wf).get(id)?.as_str().map(str::to_owned)
}

/// Records who saved `id`: a Bot, or `None` for the owner's own edit.
pub fn record_author(wf: &Workflows, id: &str, bot: Option<&str>) {
    let mut all = read_all(wf);
    let before = all.get(id).cloned();
    match bot {
        Some(bot) => all.insert(id.to_owned(), Value::from(bot)),
        None => all.remove(id),
    };
    if all.get(id) == before.as_ref() {
        return;
    }
    if let Err(error) = write_authors(&wf.home, &all) {
        tracing::warn!("could not record who saved the workflow {id}: {error}");
    }
}
