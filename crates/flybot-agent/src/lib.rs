//! The agent loop: Sessions and their turns, the inbox, tools, and the model
//! providers a turn calls (OpenAI-compatible over HTTP, and the offline mock).

pub mod context;
pub mod model;
pub mod prompt;
pub mod session;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod tools;
pub mod turn;
