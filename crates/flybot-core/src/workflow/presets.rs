//! The two presets (#1272): data, not logic. The JSON files under
//! `crates/flybot-core/presets/` are the same bytes a workspace
//! `workflows/<id>.json` would hold, and the proof that the engine
//! special-cases no node id: they run through the same code as any file.

use super::canonical::parse_definition;
use flybot_protocol::workflow::WorkflowDefinition;

/// The preset ids with their canonical bytes, in the order a list shows them.
pub const PRESETS: [(&str, &str); 2] = [
    ("blank", include_str!("../../presets/blank.json")),
    ("repo-dev", include_str!("../../presets/repo-dev.json")),
];

/// Whether `id` names a preset (copied by Customize, never written).
pub fn is_preset(id: &str) -> bool {
    PRESETS.iter().any(|(known, _)| *known == id)
}

/// The preset `id`, parsed. A preset that does not parse is a build defect
/// that this crate's tests catch; here it reads as absent.
pub fn preset(id: &str) -> Option<WorkflowDefinition> {
    PRESETS
        .iter()
        .find(|(known, _)| *known == id)
        .and_then(|(_, text)| parse_definition(text.as_bytes()).ok())
}

/// Every preset, parsed.
pub fn presets() -> Vec<WorkflowDefinition> {
    PRESETS.iter().filter_map(|(id, _)| preset(id)).collect()
}
