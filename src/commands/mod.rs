//! The subcommands of the `argus` binary that need more than a few lines, one file
//! each (the others are in `main.rs`).

pub(crate) mod client;
pub(crate) mod demo;
pub(crate) mod observe;
pub(crate) mod replay;
pub(crate) mod serve;
pub(crate) mod serve_console;

/// Starts the audience's page (`--http ADDR`) on the views' model `live` (which the
/// terminal view may share), and says where it is.
pub(crate) fn start_page(
    addr: &str,
    event: &str,
    site: &str,
    live: std::sync::Arc<argus::watch::live::Live>,
) -> anyhow::Result<()> {
    use argus::watch::http;
    let addr = http::parse_addr(addr).map_err(anyhow::Error::msg)?;
    let names = http::Names {
        event: event.to_string(),
        site: site.to_string(),
    };
    let bound = http::serve(addr, std::sync::Arc::clone(&live), names)?;
    println!("argus: the games are shown at http://{bound}/ (live PGN at http://{bound}/live.pgn)");
    Ok(())
}
