//! The board's columns come from the definition alone (#1265, #1363): the
//! nodes in dependency order with the column each card sits in. A node with
//! `column: false` draws none; a node that states no column keeps its id.

use super::definition::{dependency_order, node};
use flybot_protocol::workflow::{NodeColumn, WorkflowDefinition};
use serde::Serialize;

/// One node's place on the board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BoardColumn {
    pub node: String,
    pub column: String,
}

/// The nodes that draw a column, in dependency order.
pub fn workflow_columns(def: &WorkflowDefinition) -> Vec<BoardColumn> {
    dependency_order(def)
        .into_iter()
        .filter_map(|id| node(def, id))
        .filter_map(|n| {
            let column = match &n.column {
                Some(NodeColumn::Hidden) => return None,
                Some(NodeColumn::Named(column)) => column.clone(),
                None => n.id.clone(),
            };
            Some(BoardColumn {
                node: n.id.clone(),
                column,
            })
        })
        .collect()
}
