//! Integration tests of the home folder: files on a temp dir, the real
//! store, no sleeps that decide an outcome.

// Helpers outside `#[test]` functions fail a test by panicking, like the tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[macro_use]
mod engines;
mod damage;
mod durability;
mod faults;
mod fencing;
mod migrate;
mod one_writer;
mod reconnect;
mod records;
mod replay;
mod restart;
mod room;
mod room_cards;
mod support;
mod trim;
mod turns;
mod undo;
