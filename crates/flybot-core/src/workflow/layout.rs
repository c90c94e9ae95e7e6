//! The flowchart of a definition (#1272): one box per node carrying its role
//! and its rails (inputs, outputs), one edge per `edges[]` row, ranks left to
//! right by dependency. Pure geometry, so a test asserts a drawing with no
//! browser.

use super::artifact::canonical_key;
use super::definition::{
    dependency_order, forward_successors, inputs_of, is_loop_edge, node, outputs_of, resolved_edges,
};
use flybot_protocol::workflow::WorkflowDefinition;
use serde::Serialize;
use std::collections::BTreeMap;

pub const BOX_WIDTH: u32 = 180;
pub const BOX_HEIGHT: u32 = 72;
pub const GAP: u32 = 48;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LayoutBox {
    pub id: String,
    pub role: String,
    pub rank: u32,
    pub row: u32,
    pub x: u32,
    pub y: u32,
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LayoutEdge {
    /// Its row in `edges[]`.
    pub row: usize,
    pub from: String,
    pub to: String,
    pub artifact: String,
    pub is_loop: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Layout {
    pub boxes: Vec<LayoutBox>,
    pub edges: Vec<LayoutEdge>,
    pub width: u32,
    pub height: u32,
}

/// Lays `def` out: a node's rank is the longest forward path to it.
pub fn layout_workflow(def: &WorkflowDefinition) -> Layout {
    let order = dependency_order(def);
    let next = forward_successors(def);
    let mut rank: BTreeMap<&str, u32> = order.iter().map(|id| (*id, 0)).collect();
    for id in &order {
        let here = rank.get(id).copied().unwrap_or(0);
        for to in next.get(id).into_iter().flatten() {
            if let Some(theirs) = rank.get_mut(to)
                && *theirs < here + 1
            {
                *theirs = here + 1;
            }
        }
    }
    let mut rows: BTreeMap<u32, u32> = BTreeMap::new();
    let boxes: Vec<LayoutBox> = order
        .iter()
        .filter_map(|id| node(def, id))
        .map(|n| {
            let r = rank.get(n.id.as_str()).copied().unwrap_or(0);
            let slot = rows.entry(r).or_insert(0);
            let row = *slot;
            *slot += 1;
            LayoutBox {
                id: n.id.clone(),
                role: n.role.clone(),
                rank: r,
                row,
                x: r * (BOX_WIDTH + GAP),
                y: row * (BOX_HEIGHT + GAP),
                inputs: inputs_of(n).iter().map(|s| canonical_key(s)).collect(),
                outputs: outputs_of(n).iter().map(|s| canonical_key(s)).collect(),
            }
        })
        .collect();
    let edges = resolved_edges(def)
        .into_iter()
        .map(|e| LayoutEdge {
            is_loop: is_loop_edge(def, &e.from, &e.to),
            row: e.row,
            from: e.from,
            to: e.to,
            artifact: e.artifact,
        })
        .collect();
    let ranks = boxes.iter().map(|b| b.rank + 1).max().unwrap_or(0);
    let tallest = rows.values().copied().max().unwrap_or(0);
    Layout {
        boxes,
        edges,
        width: (ranks * (BOX_WIDTH + GAP)).saturating_sub(GAP),
        height: (tallest * (BOX_HEIGHT + GAP)).saturating_sub(GAP),
    }
}
