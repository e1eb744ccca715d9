//! The supervisor's console of `argus serial`: a line typed at the terminal view or on
//! standard input, as a command to the referee.

use std::io;

use anyhow::{Context, Result};
use argus::core::supervisor;
use argus::mediator::Control;
use argus::watch::tui;
use crossbeam_channel::Sender;

/// A line typed on the supervisor's console, as a command to the referee.
fn console_command(control: &Sender<Control>, line: &str) -> bool {
    if line.trim().is_empty() {
        return true;
    }
    match line.parse::<supervisor::Command>() {
        Ok(command) => control.send(Control::Command(command)).is_ok(),
        Err(e) => {
            println!("argus: {e}");
            true
        }
    }
}

/// What the terminal view does with a line typed on its console.
pub(super) fn console_line(control: Sender<Control>) -> tui::OnLine {
    // One game: the selected game is it.
    Box::new(move |line, _selected| {
        console_command(&control, line);
    })
}

/// Reads the supervisor's commands on standard input, a line each, without the view.
pub(super) fn read_console(control: Sender<Control>) -> Result<()> {
    std::thread::Builder::new()
        .name("argus-console".into())
        .spawn(move || {
            for line in io::stdin().lines() {
                let Ok(line) = line else { break };
                if !console_command(&control, &line) {
                    return;
                }
            }
            log::warn!(
                "standard input closed: no more console commands (--unattended runs without a supervisor)"
            );
        })
        .context("cannot start the console")?;
    Ok(())
}
