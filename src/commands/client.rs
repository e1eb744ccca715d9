//! `argus client`: a player's side, over a serial port or TCP, with its engine.

use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use argus::cli::ClientArgs;
use argus::client::{self, ClientOptions, Engine};
use argus::transport::{Duplex, serial, tcp};

use super::engines::engine_of;
use super::interrupt::INTERRUPTED;

/// The player named by `--engine`.
pub(crate) fn make_engine(args: &ClientArgs) -> Result<Box<dyn Engine>> {
    engine_of(
        &args.engine,
        &args.options,
        args.limit,
        (args.seed, args.think_ms),
        args.name.as_deref(),
    )
}

/// How long a client may take to stop its engine and leave after Ctrl-C or a
/// termination signal before it exits anyway, killing its engines.
const CLIENT_STOP_LIMIT: Duration = Duration::from_secs(3);

/// The client's controls: Ctrl-C, SIGTERM or SIGHUP fires `stop`, which stops the
/// engine (even mid-search) and ends the session; should that take longer than
/// [`CLIENT_STOP_LIMIT`], or at a second signal, the client kills its engines and exits
/// at once.
fn client_controls(stop: &Arc<Mutex<client::Stop>>) -> Result<()> {
    let stop = Arc::clone(stop);
    ctrlc::set_handler(move || {
        if INTERRUPTED.swap(true, std::sync::atomic::Ordering::SeqCst) {
            eprintln!("argus client: interrupted again, exiting now");
            client::engine_process::kill_all();
            std::process::exit(130);
        }
        eprintln!("argus client: interrupted: stopping the engine and leaving (again to quit now)");
        stop.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .fire(client::StopReason::Interrupted);
        let _ = std::thread::Builder::new()
            .name("argus-client-watchdog".into())
            .spawn(|| {
                std::thread::sleep(CLIENT_STOP_LIMIT);
                eprintln!("argus client: not stopped after {CLIENT_STOP_LIMIT:?}, exiting now");
                client::engine_process::kill_all();
                std::process::exit(130);
            });
    })
    .context("cannot install the interrupt handler")
}

/// A report of the client's as its line on standard output (docs/protocol.md,
/// "What argus client prints"); `games` counts the games ended so far.
pub(crate) fn report_line(report: &client::Report, games: u32) -> String {
    match report {
        client::Report::SignedOn { address, name } => {
            format!("argus client: signed on to {address} as {name}")
        }
        client::Report::GameOver {
            names,
            colour,
            result,
            reason,
        } => {
            let name = |n: &Option<String>| n.clone().unwrap_or_else(|| "?".into());
            let who = match colour {
                Some(c) => {
                    let (side, opponent) = match c {
                        shakmaty::Color::White => ("White", &names[1]),
                        shakmaty::Color::Black => ("Black", &names[0]),
                    };
                    format!("{side} against {}", name(opponent))
                }
                None => format!("{} vs {}", name(&names[0]), name(&names[1])),
            };
            let won = match (colour, result.as_str()) {
                (_, "*") => Some("unfinished"),
                (_, "1/2-1/2") => Some("drawn"),
                (Some(shakmaty::Color::White), "1-0") | (Some(shakmaty::Color::Black), "0-1") => {
                    Some("won")
                }
                (Some(_), _) => Some("lost"),
                (None, _) => None,
            };
            let why = match (reason, result.as_str()) {
                (_, "*") => String::new(),
                (Some(reason), _) => format!(" ({reason})"),
                (None, _) => " (the referee does not say why: time, an infraction, a resignation or adjudication)".into(),
            };
            let outcome = won.map(|w| format!(", {w}")).unwrap_or_default();
            format!("argus client: game {games}: {who}: {result}{outcome}{why}")
        }
        client::Report::EngineRestart { error } => {
            format!("argus client: the engine failed ({error}); restarting it and signing on again")
        }
    }
}

pub(crate) fn client_cmd(args: ClientArgs) -> Result<ExitCode> {
    use std::sync::atomic::Ordering;
    // Before the engine starts: it runs in a process group of its own, which a Ctrl-C
    // at the terminal does not reach, so the client must end it. Each session (a new
    // connection) has a stop of its own; Ctrl-C fires the current one.
    let current = Arc::new(Mutex::new(client::Stop::new()));
    client_controls(&current)?;
    let mut engine = make_engine(&args)?;
    // `--connect A,B`: the referee's address, then its observer's (docs/standby.md).
    let addresses: Vec<&str> = args
        .connect
        .as_deref()
        .map(|a| {
            a.split(',')
                .map(str::trim)
                .filter(|a| !a.is_empty())
                .collect()
        })
        .unwrap_or_default();
    if args.connect.is_some() && addresses.is_empty() {
        bail!("--connect: give HOST:PORT, or several comma-separated");
    }
    // The address connected to, or to be tried next.
    let mut at = 0;
    let open = |at: usize| -> Result<(Duplex, String)> {
        match (&args.port, &args.connect) {
            (_, Some(_)) => {
                let addr = addresses[at % addresses.len()];
                Ok((
                    tcp::connect(addr).with_context(|| format!("cannot connect to {addr}"))?,
                    addr.to_string(),
                ))
            }
            (Some(port), None) => Ok((
                serial::open_fresh(port, &args.line.settings())
                    .with_context(|| format!("cannot open port {port}"))?,
                port.clone(),
            )),
            (None, None) => bail!("give a port or --connect HOST:PORT"),
        }
    };
    // One address: a referee that does not answer is an error at once. Several: the
    // referee may be down and its observer not yet in charge, so they are tried in turn
    // (the backoff below) until one answers.
    let (mut duplex, address) = loop {
        match open(at) {
            Ok(opened) => break opened,
            Err(e) if addresses.len() > 1 => {
                log::warn!("{e:#}; trying the next address");
                at += 1;
                let wait = if at.is_multiple_of(addresses.len()) {
                    Duration::from_secs(1)
                } else {
                    Duration::from_millis(100)
                };
                let deadline = std::time::Instant::now() + wait;
                while std::time::Instant::now() < deadline {
                    if INTERRUPTED.load(Ordering::SeqCst) {
                        return Ok(ExitCode::from(130));
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
            Err(e) => {
                println!("argus client: giving up: {e:#}");
                return Err(e);
            }
        }
    };
    let opts = ClientOptions {
        name: args.name.clone(),
        address,
        eol: args.line.eol,
        // TCP loses nothing: the checksum extension is for noisy serial lines.
        checksum: !args.no_checksum && args.connect.is_none(),
        // --token shows in `ps`; ARGUS_TOKEN does not.
        token: args.token.clone().or_else(|| {
            args.connect.as_ref()?;
            std::env::var(client::TOKEN_ENV)
                .ok()
                .filter(|t| !t.is_empty())
        }),
        restarts: None,
    };
    // Refusals to wait out in a row (a name whose old connection is still open): the
    // wait grows with them.
    let mut refused = 0u32;
    let games = std::cell::Cell::new(0u32);
    let report = |report: client::Report| {
        if matches!(report, client::Report::GameOver { .. }) {
            games.set(games.get() + 1);
        }
        println!("{}", report_line(&report, games.get()));
    };
    let summary = loop {
        let stop = current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        match client::run_reporting(duplex, engine.as_mut(), &opts, &stop, Some(&report)) {
            Ok(summary) => break summary,
            Err(client::ClientError::Interrupted) => {
                eprintln!("argus client: interrupted; the engine is stopped");
                return Ok(ExitCode::from(130));
            }
            // Over TCP a lost connection is a lost line: the client connects again, with
            // backoff, and the referee resynchronises it. A refusal that says to try
            // again (the player's old connection is still open on the referee's side,
            // too many connections waiting) is waited out the same way.
            Err(
                e @ (client::ClientError::HungUp { .. }
                | client::ClientError::Io { .. }
                | client::ClientError::Refused { .. }),
            ) if args.connect.is_some()
                && match &e {
                    client::ClientError::Refused { reason, .. } => {
                        reason.contains(client::TRY_AGAIN)
                    }
                    _ => true,
                } =>
            {
                let first_wait = if matches!(e, client::ClientError::Refused { .. }) {
                    refused += 1;
                    (Duration::from_secs(1) * 2u32.pow(refused.min(4) - 1))
                        .min(Duration::from_secs(10))
                } else {
                    refused = 0;
                    Duration::from_millis(250)
                };
                println!(
                    "argus client: {e}; connecting again in {:.1} s",
                    first_wait.as_secs_f64()
                );
                let fresh = client::Stop::new();
                *current
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = fresh.clone();
                engine.watch(&fresh);
                // Several addresses: the next in turn, each tried at least every second
                // (an observer that takes over listens within seconds).
                let many = addresses.len() > 1;
                let most = if many {
                    Duration::from_secs(1)
                } else {
                    Duration::from_secs(10)
                };
                let mut tried = 0;
                let mut wait = first_wait;
                duplex = loop {
                    at = (at + usize::from(many)) % addresses.len();
                    let deadline = std::time::Instant::now() + wait;
                    while std::time::Instant::now() < deadline {
                        if INTERRUPTED.load(Ordering::SeqCst) {
                            return Ok(ExitCode::from(130));
                        }
                        std::thread::sleep(Duration::from_millis(50));
                    }
                    match open(at) {
                        Ok((duplex, addr)) => {
                            println!("argus client: connected again to {addr}");
                            break duplex;
                        }
                        Err(e) => {
                            tried += 1;
                            if tried % addresses.len() == 0 {
                                wait = (wait * 2).min(most);
                            }
                            log::warn!("{e:#}; again in {:.1} s", wait.as_secs_f64());
                        }
                    }
                };
                if let Err(e) = engine.restart() {
                    println!("argus client: giving up: the engine does not start again: {e}");
                    bail!("the engine does not start again: {e}");
                }
            }
            Err(e) => {
                println!("argus client: giving up: {e}");
                return Err(e.into());
            }
        }
    };
    println!(
        "argus client: the referee said disconnect after {} game(s) on this connection ({} move(s), {} engine fault(s), {} record(s) lost to noise)",
        summary.games, summary.moves, summary.faults, summary.noise
    );
    Ok(ExitCode::SUCCESS)
}
