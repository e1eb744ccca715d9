//! The views a referee command starts: the audience's page (`--http`) and the
//! supervisor's terminal view, on one model of the games.

use std::sync::Arc;

use anyhow::Result;
use argus::watch::live::Live;
use argus::watch::{http, tui};

/// Starts the audience's page (`--http ADDR`) on the views' model `live` (which the
/// terminal view may share), and says where it is.
pub(crate) fn start_page(addr: &str, event: &str, site: &str, live: Arc<Live>) -> Result<()> {
    let addr = http::parse_addr(addr).map_err(anyhow::Error::msg)?;
    let names = http::Names {
        event: event.to_string(),
        site: site.to_string(),
    };
    let bound = http::serve(addr, Arc::clone(&live), names)?;
    println!("argus: the games are shown at http://{bound}/ (live PGN at http://{bound}/live.pgn)");
    Ok(())
}

/// Starts the supervisor's terminal view on a model of its own, which the page shares
/// when there is one; None (and a warning, and plain lines) when the terminal will not
/// have it.
pub(crate) fn start_view(
    title: &str,
    commands: &str,
    on_line: tui::OnLine,
) -> Option<(tui::View, Arc<Live>)> {
    let live = Arc::new(Live::new());
    match tui::View::start(Arc::clone(&live), title, commands, on_line) {
        Ok(view) => Some((view, live)),
        Err(e) => {
            log::warn!("no terminal view ({e}): plain lines instead");
            None
        }
    }
}
