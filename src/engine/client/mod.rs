//! client-go's machinery: work queues with rate limiting, reflectors and informers, leader election.
//!
//! Every piece is a state machine driven by the world in virtual time (no threads, no sleeping,
//! no host clock): operations take `now` and return what happened, and anything that would wait
//! exposes its deadline instead.
//!
//! - [`ratelimit`]: per-item exponential back-off, the token bucket, `MaxOf` (§1.5).
//! - [`workqueue`]: the de-duplicating, delaying, rate-limiting queue (§1.1-§1.4).
//! - [`store`]: the informer's indexed cache (§2.2).
//! - [`informer`]: reflector, shared informer and handler notifications (§2.1-§2.4).
//! - [`leaderelection`]: leader election over a Lease (§7).
//! - [`clientset`]: the API calls a controller makes ([`Api`], [`DeleteOpts`]).

pub mod clientset;
pub mod informer;
pub mod leaderelection;
pub mod ratelimit;
pub mod store;
pub mod workqueue;

pub use clientset::{Api, DeleteOpts};
pub use informer::{
    DeletedFinalStateUnknown, DeletedObject, HandlerId, Informer, InformerStep, ListerWatcher, Notification,
    ReflectorState, SharedInformerFactory,
};
pub use leaderelection::{
    ElectionOutcome, ElectionStep, LeaderElectionConfig, LeaderElector, LeaseClient, Unreachable,
};
pub use ratelimit::{Bucket, ItemExponentialFailure, RateLimiter};
pub use store::Indexer;
pub use workqueue::{DelayedKey, WorkQueue};
