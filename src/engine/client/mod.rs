//! client-go's machinery: work queues with rate limiting, reflectors and informers, leader election.
//!
//! Every piece is a state machine driven by the world in virtual time (no threads, no sleeping,
//! no host clock): operations take `now` and return what happened, and anything that would wait
//! exposes its deadline instead.
//!
//! - [`ratelimit`]: per-item exponential back-off, the token bucket, `MaxOf` (§1.5).
//! - [`workqueue`]: the de-duplicating, delaying, rate-limiting queue (§1.1-§1.4).

pub mod ratelimit;
pub mod workqueue;

pub use ratelimit::{Bucket, ItemExponentialFailure, RateLimiter};
pub use workqueue::{DelayedKey, WorkQueue};
