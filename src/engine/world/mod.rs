//! The World: the API server, the clock, the seeded RNG and every controller process, one step at a time.
//!
//! Work in progress: [`record`] holds the step records and pending actions the page and the
//! console render; the `World` itself follows (see `controllers/mod.rs` for the controller interface).

pub mod cloud;
pub mod record;

pub use record::{ActionKind, Actor, ApiCall, ObjectRef, Pending, Settled, StepRecord};
