//! Tools for the day of an event, before and around the games: which serial ports a
//! machine has (`argus ports`), whether a cable carries bytes cleanly (`argus
//! cable-test`), and a line simulator at a real line's byte timing (`argus wire`).

pub mod cable_test;
pub mod ports;
pub mod wire;
