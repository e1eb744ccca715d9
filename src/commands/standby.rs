//! The standby stream of a referee (`--standby-listen`): its journals offered to
//! observers (`argus observe`), and the exit when one of them takes over.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use argus::cli::StandbyArgs;
use argus::client::engine_process;
use argus::mediator::standby::Hub;
use argus::secret::Key;
use argus::watch::tui;

/// The status an `argus serve` or `argus serial` exits with when an observer has taken
/// over its event (docs/standby.md).
pub(crate) const TAKEN_OVER: u8 = 3;

/// Offers the journal of a match (`argus serial`) to observers, as [`standby_hub`].
pub(crate) fn standby_hub_for_journal(
    what: &'static str,
    standby: &StandbyArgs,
    journal: &Path,
) -> Result<Option<Arc<Hub>>> {
    standby_hub(what, standby, journal, true)
}

/// Offers the journals of `root` (with `only`: the journal `root` alone) to observers (`--standby-listen`); when one says it
/// took over, this referee says so and exits with [`TAKEN_OVER`], relaying nothing
/// more.
pub(crate) fn standby_hub(
    what: &'static str,
    standby: &StandbyArgs,
    root: &Path,
    only: bool,
) -> Result<Option<Arc<Hub>>> {
    let Some(addr) = standby.standby_listen else {
        return Ok(None);
    };
    let key = standby
        .standby_key
        .as_deref()
        .map(Key::read)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    // The stream gives the journals and the power to stop this referee: beyond this
    // machine, only to observers that hold the key.
    if key.is_none() && !addr.ip().is_loopback() {
        bail!(
            "--standby-listen {addr}: an address beyond this machine needs --standby-key FILE (a secret the observers hold too: head -c 32 /dev/urandom | base64 > standby.key), or listen on 127.0.0.1"
        );
    }
    let listen = if only {
        Hub::listen_for_journal
    } else {
        Hub::listen
    };
    let hub = listen(
        addr,
        root,
        standby.standby_sync,
        key,
        Box::new(move |by| {
            tui::restore();
            eprintln!(
                "{what}: the observer {by} has taken over: this referee goes on no more (exit status {TAKEN_OVER})"
            );
            engine_process::kill_all();
            std::process::exit(i32::from(TAKEN_OVER));
        }),
    )
    .with_context(|| format!("--standby-listen {addr}"))?;
    println!(
        "{what}: observers follow at {} (argus observe {}{}{})",
        hub.addr(),
        hub.addr(),
        if standby.standby_key.is_some() {
            " --standby-key FILE"
        } else {
            ""
        },
        if standby.standby_sync {
            "; a line is relayed once they hold it"
        } else {
            ""
        }
    );
    Ok(Some(hub))
}
