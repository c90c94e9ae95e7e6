//! End to end: the real `flybot` binary on a temporary home and a loopback
//! port, driven over HTTP like a person with curl would.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

mod chat;
mod console;
mod crash_round;
mod envelope;
mod face_crash;
mod lifecycle;
mod postgres_failover;
mod postgres_live_resume;
mod postgres_round_failover;
mod postgres_social_failover;
mod replay;
mod restart_round;
mod rooms;
mod sandbox_lifetime;
mod social_crash;
mod social_homes;
mod support;
mod two_writers;
