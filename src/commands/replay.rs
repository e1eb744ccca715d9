//! `argus replay`: a journal played back through the referee and checked, or one
//! recorded side played to a live program (`--as`): a referee or a client on a port,
//! or an engine that argus runs itself (`--as referee --engine`).

use std::fs;
use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use argus::cli::{ReplayArgs, RoleArg};
use argus::client;
use argus::core::Port;
use argus::mediator::journal;
use argus::mediator::live_replay::{self, LiveOptions, Pace, Role};
use argus::transport::memory;

use super::engines::engine_of;

/// How `args` asks to replay, as `role`.
fn live_options(args: &ReplayArgs, role: Role) -> LiveOptions {
    let mut options = LiveOptions::new(role);
    options.pace = if args.instant {
        Pace::Instant
    } else {
        Pace::Recorded { speed: args.speed }
    };
    options.eol = args.line.eol;
    options.keep_going = args.keep_going;
    options
}

/// `argus replay --as ROLE --port PORT`: the recorded side played to the live program on
/// the port.
fn replay_live(args: &ReplayArgs, role: RoleArg, port: &str) -> Result<ExitCode> {
    let port_of = |r: RoleArg| if r == RoleArg::B { Port::B } else { Port::A };
    let role = match role {
        RoleArg::Referee => Role::Referee {
            client: port_of(args.client),
        },
        player => Role::Player(port_of(player)),
    };
    let options = live_options(args, role);
    let report = live_replay::play_port(&args.journal, port, &args.line.settings(), &options)?;
    println!("{report}");
    Ok(if report.is_clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `argus replay --as referee --engine SPEC`: the recorded referee played to an engine
/// that argus runs itself, as an `argus client` session on an in-memory line that signs
/// on as the recorded player did (its `tcsi` address and name, sealed or not).
fn replay_to_engine(args: &ReplayArgs, engine: &str) -> Result<ExitCode> {
    let port = if args.client == RoleArg::B {
        Port::B
    } else {
        Port::A
    };
    let signed = live_replay::recorded_sign_on(&args.journal, port)?;
    let mut engine = engine_of(engine, &args.options, args.limit, (1, 0), None)?;
    let opts = client::ClientOptions {
        name: Some(signed.name),
        address: signed.address,
        eol: args.line.eol,
        checksum: signed.sealed,
        token: None,
        // A failure is what is being looked for: it ends the session, and is said.
        restarts: Some(0),
    };
    let options = live_options(args, Role::Referee { client: port });
    let (mut referee_end, client_end) = memory::pair();
    // The recorded `disconnect` is not passed on: it would stop the engine before it
    // could fail where it failed (the recording's disconnect followed its failure at
    // once); the client is stopped below, once it has had its time.
    referee_end.writer = Box::new(WithoutDisconnect(referee_end.writer));
    let stop = client::Stop::new();
    let ended = AtomicBool::new(false);
    let (report, failed) = std::thread::scope(|scope| {
        let client = scope.spawn(|| {
            let outcome = client::run_until(client_end, &mut *engine, &opts, &stop);
            ended.store(true, Ordering::SeqCst);
            outcome
        });
        let report = live_replay::play(&args.journal, referee_end, &options);
        // The engine's last turn may still be under way: a failure there is what is
        // looked for.
        let grace = Instant::now() + Duration::from_secs(3);
        while !ended.load(Ordering::SeqCst) && Instant::now() < grace {
            std::thread::sleep(Duration::from_millis(20));
        }
        stop.fire(client::StopReason::Disconnect);
        let failed = match client.join() {
            Ok(Err(client::ClientError::Engine(e))) => Some(e),
            _ => None,
        };
        (report, failed)
    });
    let report = report?;
    println!("{report}");
    if let Some(e) = &failed {
        println!("the engine failed: {e}");
    }
    Ok(if report.is_clean() && failed.is_none() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// A writer that lets every line through but the referee's `disconnect`.
struct WithoutDisconnect(Box<dyn Write + Send>);

impl Write for WithoutDisconnect {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.windows(17).any(|w| w == b"refcom disconnect") {
            return Ok(buf.len());
        }
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

/// `argus replay`: a journal replayed to PGN and checked, or one side of it played to a
/// live program (`--as`).
pub(crate) fn replay_cmd(args: ReplayArgs) -> Result<ExitCode> {
    if let (Some(role), Some(port)) = (args.role, &args.port) {
        return replay_live(&args, role, port);
    }
    match (args.role, &args.engine) {
        (Some(RoleArg::Referee), Some(engine)) => return replay_to_engine(&args, engine),
        (Some(_), Some(_)) => bail!("--engine goes with --as referee: the engine is a client"),
        (Some(_), None) => bail!("--as needs --port (or, with --as referee, --engine)"),
        (None, _) => {}
    }
    // The replayed PGN is written as each game ends: memory stays bounded.
    let replay = match &args.pgn {
        Some(path) => {
            let file =
                fs::File::create(path).with_context(|| format!("pgn file {}", path.display()))?;
            let mut out = io::BufWriter::new(file);
            let replay = journal::replay_to(&args.journal, &mut out)?;
            out.flush()
                .with_context(|| format!("pgn file {}", path.display()))?;
            replay
        }
        None => journal::replay_to(&args.journal, &mut io::stdout().lock())?,
    };
    if let Some(d) = replay.divergence {
        eprintln!(
            "error: journal {}, line {}: replay diverges: {}",
            args.journal.display(),
            d.line,
            d.what
        );
        return Ok(ExitCode::FAILURE);
    }
    if args.pgn.is_some() || !io::stdout().is_terminal() {
        eprintln!(
            "replay: {} inputs, {} lines sent checked, no divergence",
            replay.inputs, replay.lines_checked
        );
    }
    Ok(ExitCode::SUCCESS)
}
