//! The subcommands of the `argus` binary that need more than a few lines, one file
//! each (the others are in `main.rs`).

pub(crate) mod client;
pub(crate) mod demo;
pub(crate) mod serve;
pub(crate) mod serve_console;
