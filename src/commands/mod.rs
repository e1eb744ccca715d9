//! The subcommands of the `argus` binary that need more than a few lines, one file
//! each (the others are in `main.rs`).

pub(crate) mod client;
pub(crate) mod demo;
pub(crate) mod serve;
pub(crate) mod serve_console;

/// Starts the audience's page (`--http ADDR`) on the views' model that it returns,
/// and says where it is.
pub(crate) fn start_page(
    addr: &str,
    event: &str,
    site: &str,
) -> anyhow::Result<std::sync::Arc<argus::watch::live::Live>> {
    use argus::watch::{http, live::Live};
    let addr = http::parse_addr(addr).map_err(anyhow::Error::msg)?;
    let live = std::sync::Arc::new(Live::new());
    let names = http::Names {
        event: event.to_string(),
        site: site.to_string(),
    };
    let bound = http::serve(addr, std::sync::Arc::clone(&live), names)?;
    println!("argus: the games are shown at http://{bound}/ (live PGN at http://{bound}/live.pgn)");
    Ok(live)
}
