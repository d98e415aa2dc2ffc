//! client-go's machinery: work queues with rate limiting, reflectors and informers, leader election.
