//! `argus serial`, the referee of a match between the players on two serial ports: what
//! was typed resolved into a [`plan::Plan`] (`plan`, with `resume_check` for `--resume`), then
//! run (`run`) with its supervisor's console (`console`).

mod console;
pub(crate) mod plan;
mod resume_check;
pub(crate) mod run;

use std::process::ExitCode;

use anyhow::Result;
use argus::cli::{SerialArgs, Typed};

/// `argus serial`: the match that `args` (of which `typed` were typed) describes, run.
pub(crate) fn serial_cmd(args: SerialArgs, typed: &Typed) -> Result<ExitCode> {
    let plan = plan::resolve(args, typed)?;
    run::run(plan)
}
