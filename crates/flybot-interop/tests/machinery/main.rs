//! The contract machinery's integration tests (issue 6): the codec driven
//! by `tests/vectors/envelopes.json`, and one group per matrix row that the
//! journal, budgets, cancellation and projection decide on their own.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod codec_vectors;
mod completion_evidence;
mod delivery_and_crash;
mod dm;
mod dm_experiment;
mod identity_and_scope;
mod kit;
mod parallel_work;
mod resource_bounds;
mod stop_and_late_result;
