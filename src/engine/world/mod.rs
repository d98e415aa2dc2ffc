//! The World: the API server, the clock, the seeded RNG and every controller process, one step at a time.
