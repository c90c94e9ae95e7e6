//! What A2A (protocol 1.0, as the pinned `a2a-sdk` serves it) lacks against
//! the room-collaboration contract, facet by facet (the contract's slice 5
//! names identity, session, events, cancel, permissions and usage), and
//! what FlyBot's A2A driver does about each. The pilot's report prints
//! this list; each line is exercised by the matrix row named in it.

use serde::Serialize;

/// One facet of the contract and A2A's shortfall there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Gap {
    pub facet: &'static str,
    /// What the contract needs.
    pub contract: &'static str,
    /// What A2A offers instead.
    pub a2a: &'static str,
    /// What FlyBot's driver does about it.
    pub flybot: &'static str,
}

/// The six facets, in the contract's order.
pub const GAPS: [Gap; 6] = [
    Gap {
        facet: "identity",
        contract: "an authenticated transport identity per Bot and owner, with per-Bot grants in each direction",
        a2a: "the agent card declares security schemes (this agent declares none); there is no owner, no Bot identity and no grant in the protocol",
        flybot: "the sender and recipient come only from FlyBot's own binding (row identity-and-scope); the card is a self-description that can only narrow, never point FlyBot elsewhere",
    },
    Gap {
        facet: "session",
        contract: "one dedicated session per task, persisted before submission, with history to reconcile after a crash",
        a2a: "no session creation call: the client names the contextId, the agent names the taskId in its first answer; a first answer that is lost leaves the agent's task id unknown",
        flybot: "the context name is journaled before the first message (row complete-collaboration); reconciliation by ListTasks on the context is not built, so a lost first answer stays uncertain (row delivery-and-crash)",
    },
    Gap {
        facet: "events",
        contract: "events with a producer sequence, deduplicated, bounded at ingress",
        a2a: "SSE per request (SendStreamingMessage, SubscribeToTask) with no sequence number and no durable replay",
        flybot: "the stream is a notification source only; GetTask is the record a turn ends on; streams are bounded in bytes and events (the hostile-agent tests, a2a_hostile)",
    },
    Gap {
        facet: "cancel",
        contract: "a host-owned cancellation generation; cancel requested and observed kept apart",
        a2a: "CancelTask answers with the task; a task already terminal is not cancelable; there is no generation",
        flybot: "the generation and tombstone are FlyBot's journal's; observed only once GetTask shows TASK_STATE_CANCELED (row stop-and-late-result)",
    },
    Gap {
        facet: "permissions",
        contract: "a tool-permission request the policy denies, with a deny reply",
        a2a: "no tool-permission request or reply; the nearest is TASK_STATE_AUTH_REQUIRED, and there is no deny",
        flybot: "AUTH_REQUIRED is refused: the task is cancelled, journaled as a deny, and the turn ends refused (row approval)",
    },
    Gap {
        facet: "usage",
        contract: "request, token and cost observations, nullable, never guessed",
        a2a: "no usage fields at all",
        flybot: "usage stays unknown (null) in the journal and the report, never zero (row resource-bounds)",
    },
];
