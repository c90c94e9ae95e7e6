//! The definition as a file (#1272 step 3, #1299): canonical bytes with a
//! fixed key order, two-space indent and a trailing newline, a field the
//! definition does not state left out, and `column: false` written while an
//! absent column is not (two different decisions, #1265). A load → save
//! round trip is byte-identical, so an unedited save changes nothing.

use super::definition::is_workflow_id;
use flybot_protocol::workflow::WorkflowDefinition;

/// The ids a workspace file may not claim: the presets, and `project`,
/// whose file records the project's default workflow.
pub const RESERVED_IDS: [&str; 3] = ["blank", "repo-dev", "project"];

/// The canonical bytes of `def`. The key order is the protocol struct's
/// field order; `serde_json`'s pretty printer indents by two spaces.
pub fn workflow_bytes(def: &WorkflowDefinition) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(def).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// Reads a definition file, or says why it cannot be read.
pub fn parse_definition(bytes: &[u8]) -> Result<WorkflowDefinition, String> {
    serde_json::from_slice(bytes).map_err(|error| error.to_string())
}

/// Whether `id` may name a workspace file: the id rule, and not reserved.
pub fn is_writable_id(id: &str) -> bool {
    is_workflow_id(id) && !RESERVED_IDS.contains(&id)
}

/// What Customize writes: the preset with a new id and name, nothing else.
pub fn copy_of_preset(preset: &WorkflowDefinition, id: &str, name: &str) -> WorkflowDefinition {
    WorkflowDefinition {
        id: id.to_owned(),
        name: name.to_owned(),
        ..preset.clone()
    }
}

/// The top-level fields in which `a` and `b` differ, in file order.
pub fn differing_fields(a: &WorkflowDefinition, b: &WorkflowDefinition) -> Vec<&'static str> {
    let mut fields = Vec::new();
    let mut check = |name: &'static str, same: bool| {
        if !same {
            fields.push(name);
        }
    };
    check("id", a.id == b.id);
    check("name", a.name == b.name);
    check("description", a.description == b.description);
    check("inputs", a.inputs == b.inputs);
    check("deliverables", a.deliverables == b.deliverables);
    check("nodes", a.nodes == b.nodes);
    check("edges", a.edges == b.edges);
    check("loops", a.loops == b.loops);
    fields
}
