//! Ctrl-C, SIGTERM and SIGHUP for the commands that referee a match: the first asks the
//! referee to stop, to be resumed later; a second exits at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};
use argus::mediator::{self, Control};
use argus::watch::tui;
use crossbeam_channel::Sender;

/// Set at the first interrupt: the second one exits at once.
pub(crate) static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Ctrl-C, SIGTERM from a service manager or SIGHUP from a lost terminal asks the
/// referee to stop, to be resumed later (a second one exits at once: the journal is
/// already on disk, and the terminal is given back).
pub(crate) fn interrupts(control: &Sender<Control>) -> Result<()> {
    let stop = control.clone();
    ctrlc::set_handler(move || {
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            tui::restore();
            eprintln!("argus: interrupted again, exiting now; the journal is on disk");
            // Observers are told it stopped: they do not take over what was stopped.
            mediator::standby::end_now(Duration::from_millis(500));
            std::process::exit(130);
        }
        eprintln!(
            "argus: stopping: the match stands and goes on with --resume (quit ends it instead)"
        );
        let _ = stop.send(Control::Stop);
    })
    .context("cannot install the interrupt handler")
}
