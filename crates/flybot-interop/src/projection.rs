//! The FlyBot projection table: which board move each execution
//! observation may ask the host for, through the host-authorized seam.
//! The adapter never writes a status itself and never invents one:
//! waiting, cancellation and recovery are facets beside the status, and no
//! observation reaches `accepted` (only a person's `task-accept-result`
//! does).

use flybot_core::tasks::machine::edge;
use flybot_protocol::state::TaskStatus;
use flybot_protocol::task::WaitingFor;
use serde::Serialize;

/// What the adapter observed of execution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "kebab-case", tag = "observation")]
#[strum(serialize_all = "kebab-case")]
pub enum Observation {
    /// The request enrolled and execution starts.
    ExecutionStarted,
    /// Bot B asked for a selected input; `questionId` is the host's.
    WaitingForInput {
        question_id: String,
    },
    /// Outbound approval is pending; each layer's id is kept.
    WaitingForApproval {
        approval_ids: Vec<String>,
    },
    /// The answer arrived and the task's approvals are clear.
    InputAnswered,
    /// The runtime asked for a tool permission the pilot does not grant.
    UnexpectedPermission {
        permission: String,
    },
    /// The runtime is idle: not completion evidence.
    RuntimeIdle,
    /// A result matching the active turn, validated, deliveries approved.
    ValidResult {
        summary: String,
    },
    /// A known execution failure with its evidence.
    KnownFailure {
        evidence: String,
    },
    CancelRequested,
    AbortObserved,
    /// Lost connection or an ambiguous write, with the raw status.
    Uncertain {
        raw_status: String,
    },
}

/// A facet shown beside the status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Facet {
    CancelRequested,
    CancelObserved,
    RecoveryUncertain {
        raw_status: String,
    },
    /// An unsupported action was denied and the turn stopped.
    PermissionDenied {
        permission: String,
    },
    /// Failure evidence awaiting an authorized host transition.
    FailureReported {
        evidence: String,
    },
}

/// What the host seam is asked to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Projection {
    /// Board moves, in order, each an edge of the task machine.
    pub moves: Vec<TaskStatus>,
    pub waiting_for: Option<WaitingFor>,
    pub question_id: Option<String>,
    pub approval_ids: Vec<String>,
    pub summary: Option<String>,
    pub facet: Option<Facet>,
    /// The driver must stop the turn (deny and report).
    pub stop_turn: bool,
    /// Automatic dispatch and acceptance stay off until reconciled.
    pub suppress_dispatch: bool,
}

impl Projection {
    fn none() -> Projection {
        Projection {
            moves: Vec::new(),
            waiting_for: None,
            question_id: None,
            approval_ids: Vec::new(),
            summary: None,
            facet: None,
            stop_turn: false,
            suppress_dispatch: false,
        }
    }
}

/// Why an observation projects nothing from this status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("the observation {observation} cannot move a {from:?} card")]
pub struct NotProjectable {
    pub observation: &'static str,
    pub from: TaskStatus,
}

/// The table: `(current status, observation) → projection`. Every move it
/// returns is drawn by `flybot_core::tasks::machine::edge`.
pub fn project(from: TaskStatus, observation: &Observation) -> Result<Projection, NotProjectable> {
    use TaskStatus::{Blocked, Claimed, Open, ResultReady, Working};
    let mut out = Projection::none();
    let path: &[TaskStatus] = match observation {
        Observation::ExecutionStarted => match from {
            Open => &[Claimed, Working],
            Claimed => &[Working],
            _ => return Err(refuse(observation, from)),
        },
        Observation::WaitingForInput { question_id } => {
            out.waiting_for = Some(WaitingFor::Input);
            out.question_id = Some(question_id.clone());
            working_to(from, observation, Blocked)?
        }
        Observation::WaitingForApproval { approval_ids } => {
            out.waiting_for = Some(WaitingFor::Approval);
            out.approval_ids = approval_ids.clone();
            working_to(from, observation, Blocked)?
        }
        Observation::InputAnswered => match from {
            Blocked => &[Working],
            _ => return Err(refuse(observation, from)),
        },
        Observation::UnexpectedPermission { permission } => {
            out.facet = Some(Facet::PermissionDenied {
                permission: permission.clone(),
            });
            out.stop_turn = true;
            &[]
        }
        Observation::RuntimeIdle => &[],
        Observation::ValidResult { summary } => {
            out.summary = Some(summary.clone());
            match from {
                Working => &[ResultReady],
                _ => return Err(refuse(observation, from)),
            }
        }
        Observation::KnownFailure { evidence } => {
            // No public task-fail endpoint: report, the host decides.
            out.facet = Some(Facet::FailureReported {
                evidence: evidence.clone(),
            });
            &[]
        }
        Observation::CancelRequested => {
            out.facet = Some(Facet::CancelRequested);
            out.suppress_dispatch = true;
            &[]
        }
        Observation::AbortObserved => {
            out.facet = Some(Facet::CancelObserved);
            out.suppress_dispatch = true;
            &[]
        }
        Observation::Uncertain { raw_status } => {
            out.facet = Some(Facet::RecoveryUncertain {
                raw_status: raw_status.clone(),
            });
            out.suppress_dispatch = true;
            &[]
        }
    };
    let mut at = from;
    for to in path {
        if !edge(at, *to) {
            return Err(refuse(observation, from));
        }
        at = *to;
    }
    out.moves = path.to_vec();
    Ok(out)
}

fn working_to(
    from: TaskStatus,
    observation: &Observation,
    to: TaskStatus,
) -> Result<&'static [TaskStatus], NotProjectable> {
    match (from, to) {
        (TaskStatus::Working, TaskStatus::Blocked) => Ok(&[TaskStatus::Blocked]),
        _ => Err(refuse(observation, from)),
    }
}

fn refuse(observation: &Observation, from: TaskStatus) -> NotProjectable {
    NotProjectable {
        observation: observation_word(observation),
        from,
    }
}

/// The observation's wire word: the variant in kebab case, as serde tags it.
pub fn observation_word(observation: &Observation) -> &'static str {
    observation.into()
}
