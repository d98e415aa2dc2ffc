//! client-go's machinery: work queues with rate limiting, reflectors and informers, leader
//! election.
//!
//! Every piece is a state machine driven by the world in virtual time (no threads, no sleeping,
//! no host clock): operations take `now` and return what happened, and anything that would wait
//! exposes its deadline instead.
//!
//! - [`ratelimit`]: per-item exponential back-off, the token bucket, `MaxOf`
//!   (client-go/util/workqueue/default_rate_limiters.go).
//! - [`workqueue`]: the de-duplicating, delaying, rate-limiting queue (client-go/util/workqueue:
//!   queue.go, delaying_queue.go, rate_limiting_queue.go).
//! - [`store`]: the informer's indexed cache (client-go/tools/cache/thread_safe_store.go).
//! - [`informer`]: reflector, shared informer and handler notifications (client-go/tools/cache:
//!   reflector.go, shared_informer.go).
//! - [`leaderelection`]: leader election over a Lease
//!   (client-go/tools/leaderelection/leaderelection.go).
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
