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
    // The tables of the event file, or of the command line.
    let tb = match &args.config {
        Some(file) => {
            let event = argus::mediator::config::EventConfig::load(file)?;
            // Without `tb` the other keys do nothing.
            match event.tb.as_deref() {
                Some(tb) => crate::commands::serve::settings::tb_config(
                    Some(tb),
                    event.tb_pieces,
                    event.tb_ignore_50,
                    event.tb_adjudicate.as_deref(),
                )?,
                None => None,
            }
        }
        None => crate::commands::serve::settings::tb_config(
            args.tb.as_deref(),
            args.tb_pieces,
            args.tb_ignore_50,
            args.tb_adjudicate.as_deref(),
        )?,
    };
    let mut plan = plan::resolve(args, typed)?;
    plan.tb = tb;
    run::run(plan)
}
