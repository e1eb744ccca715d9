//! The `argus` command line: one function per subcommand. Errors are reported here, in
//! one line that names the culprit, and become the exit code.

use std::fs;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::{CommandFactory, FromArgMatches};

use argus::cli::{
    CableTestArgs, Cli, ClientArgs, Command, DemoArgs, EpdCommand, ReplayArgs, RoleArg, SerialArgs,
    ServeArgs, WireArgs,
};
use argus::client::uci::UciEngine;
use argus::client::xboard::XboardEngine;
use argus::client::{self, ClientOptions, Engine, human::HumanEngine, random::RandomEngine};
use argus::core::supervisor;
use argus::core::{DrawRule, IllegalRule, MatchConfig, Referee, WireTiming};
use argus::mediator::config::EventConfig;
use argus::mediator::journal::{self, Event, Journal};
use argus::mediator::{self, Control, Eol, Line, PrintWatcher, Records};
use argus::openings::read_openings;
use argus::transport::serial::{self, SerialSettings};
use argus::transport::{Duplex, tcp};
use argus::watch::live::Live;

mod commands;
mod resume_args;

use commands::{client::client_cmd, demo::demo_cmd, serve::serve_cmd};

/// Reports a command-line error in one line that names the culprit (help and version
/// are printed as they are).
fn usage_error(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion)
        || matches!(
            e.kind(),
            ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
        )
    {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    // For a missing argument clap puts the culprit on the second line; join them.
    let text = e.render().to_string();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("error: bad arguments");
    if e.kind() == ErrorKind::MissingRequiredArgument {
        let missing: Vec<&str> = lines
            .take_while(|l| l.starts_with('<') || l.starts_with("--"))
            .collect();
        eprintln!("{first} {}", missing.join(" "));
    } else if let Some(hint) = argus::cli::config_hint(e) {
        // With several culprits clap ends the line with a colon and lists them below:
        // name them on the line.
        let culprits: Vec<&str> = lines
            .take_while(|l| l.starts_with('<') || l.starts_with('[') || l.starts_with("--"))
            .collect();
        if let Some(head) = first.strip_suffix(':') {
            eprintln!("{head} {}: {hint}", culprits.join(" and "));
        } else {
            eprintln!("{first}: {hint}");
        }
    } else {
        eprintln!("{first}");
    }
    ExitCode::from(2)
}

/// glibc gives threads malloc arenas of their own, up to eight per core: `argus serve`
/// runs three threads a game, and each arena holds memory of its own (about 2 MB more
/// peak RSS at 8 games at once). As many arenas as cores keep the threads from waiting
/// for each other's, since no more of them run at once. Before any thread starts; the
/// environment's `MALLOC_ARENA_MAX` wins.
fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let arenas = libc::c_int::try_from(cores).unwrap_or(libc::c_int::MAX);
        // SAFETY: mallopt only sets a tunable of the allocator; no thread has started.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, arenas);
        }
    }
}

fn main() -> ExitCode {
    limit_malloc_arenas();
    // Log lines read as argus's other lines do: `warning: ...`, one line each.
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .format(|buf, record| {
            use std::io::Write as _;
            let level = match record.level() {
                log::Level::Error => "error",
                log::Level::Warn => "warning",
                log::Level::Info => "info",
                log::Level::Debug => "debug",
                log::Level::Trace => "trace",
            };
            writeln!(buf, "{level}: {}", record.args())
        })
        .init();
    // Parsed in two steps to keep the matches: `--resume` needs to know which options
    // were typed, not defaulted.
    let matches = match Cli::command().try_get_matches() {
        Ok(matches) => matches,
        Err(e) => return usage_error(&e),
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => return usage_error(&e.format(&mut Cli::command())),
    };
    let result = match cli.command {
        Command::Serial(args) => serial_cmd(
            *args,
            &resume_args::Given::from_matches(matches.subcommand_matches("serial")),
        ),
        Command::Serve(args) => serve_cmd(*args, matches.subcommand_matches("serve")),
        Command::Client(args) => client_cmd(args),
        Command::Observe(args) => commands::observe::observe_cmd(args),
        Command::Demo(args) => demo_cmd(args),
        Command::Replay(args) => commands::replay::replay_cmd(args),
        Command::Epd(command) => epd_cmd(command),
        Command::Wire(args) => wire_cmd(args),
        Command::CableTest(args) => cable_test_cmd(args),
        Command::Ports => ports_cmd(),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", one_line(&e));
            ExitCode::FAILURE
        }
    }
}

/// An error and its causes on one line, each cause once: errors that already name their
/// cause in their own message are not followed by it again.
fn one_line(error: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if !line.contains(&text) {
            if !line.is_empty() {
                line.push_str(": ");
            }
            line.push_str(&text);
        }
    }
    line
}

fn today() -> (String, String) {
    let now = time::OffsetDateTime::now_utc();
    let date = format!(
        "{:04}.{:02}.{:02}",
        now.year(),
        u8::from(now.month()),
        now.day()
    );
    let stamp = format!(
        "{:04}{:02}{:02}-{:02}{:02}{:02}",
        now.year(),
        u8::from(now.month()),
        now.day(),
        now.hour(),
        now.minute(),
        now.second()
    );
    (date, stamp)
}

/// Everything a serial session needs, from the command line, a config file or the
/// journal of a referee that died.
struct Plan {
    ports: [String; 2],
    lines: [SerialSettings; 2],
    eol: Eol,
    pgn: PathBuf,
    journal: PathBuf,
    start: Start,
    /// Whether the supervisor's console reads standard input.
    attended: bool,
    /// Whether the settings came from an event file (`--config`).
    from_config: bool,
    /// Where the audience's page is served (`--http`), when it is.
    http: Option<String>,
    /// Plain lines, never the terminal view (`--plain`).
    plain: bool,
    /// The standby stream (`--standby-listen`, `--standby-sync`).
    standby: argus::cli::StandbyArgs,
    /// The views, made already (by an observer that takes over).
    live: Option<Arc<Live>>,
}

enum Start {
    /// A new match.
    New(Box<MatchConfig>),
    /// A match taken over from a journal.
    Resume(Box<journal::Rebuilt>),
}

fn serial_cmd(args: SerialArgs, given: &resume_args::Given) -> Result<ExitCode> {
    if args.continue_match && args.resume.is_none() {
        let named = match &args.config {
            Some(file) => EventConfig::load(file)?.journal,
            None => args.journal.clone(),
        };
        let Some(journal) = named else {
            bail!(
                "--continue needs the journal's name, to know whether the match has begun: give --journal (or `journal` in the event file)"
            );
        };
        if journal.exists() {
            println!(
                "argus: {} exists: going on with its match",
                journal.display()
            );
            let plan = plan_resume(&args, given, &journal, args.config.as_deref())?;
            return run_plan(plan);
        }
    }
    let plan = match (&args.resume, &args.config) {
        (Some(journal), config) => plan_resume(&args, given, journal, config.as_deref())?,
        (None, Some(file)) => plan_config(file, args.unattended, args.plain)?,
        (None, None) => plan_new(args)?,
    };
    run_plan(plan)
}

fn plan_new(args: SerialArgs) -> Result<Plan> {
    let (Some(port_a), Some(port_b)) = (args.port_a.clone(), args.port_b.clone()) else {
        bail!("give two ports (or --resume JOURNAL)");
    };
    let openings = match &args.openings {
        Some(path) => read_openings(path)?,
        None => Vec::new(),
    };
    let (date, stamp) = today();
    let config = MatchConfig {
        event: args.event,
        site: args.site,
        date,
        round: args.round,
        names: [args.name_a, args.name_b],
        port_labels: [port_a.clone(), port_b.clone()],
        time_control: args.tc,
        games: args.games,
        openings,
        reset_delay: args.reset_delay,
        conclude_delay: args.conclude_delay,
        draw_rule: args.draw_rule.into(),
        illegal: args.illegal.into(),
        attended: !args.unattended,
        hosted: false,
        time_margin: Default::default(),
        time_odds: Default::default(),
        wire: wire_timing(
            [&port_a, &port_b],
            &args.line.settings(),
            args.line.baud.is_some(),
            !args.no_wire_compensation,
            args.line.eol,
        ),
    };
    let settings = args.line.settings();
    Ok(Plan {
        ports: [port_a, port_b],
        lines: [settings.clone(), settings],
        eol: args.line.eol,
        pgn: args.pgn,
        journal: args
            .journal
            .unwrap_or_else(|| PathBuf::from(format!("argus-{stamp}.jsonl"))),
        start: Start::New(Box::new(config)),
        attended: !args.unattended,
        from_config: false,
        http: args.http,
        plain: args.plain,
        standby: args.standby,
        live: None,
    })
}

/// What the referee knows of its lines' rates: a real serial port's from its settings,
/// a pty's only when the rate was given explicitly.
fn wire_timing(
    ports: [&str; 2],
    settings: &SerialSettings,
    explicit: bool,
    compensate: bool,
    eol: Eol,
) -> WireTiming {
    WireTiming {
        byte_time: ports.map(|p| {
            compensate
                .then(|| serial::known_byte_time(p, settings, explicit))
                .flatten()
        }),
        eol_bytes: eol.bytes().len() as u8,
    }
}

/// The match of the event file `file`; `unattended` from the command line, or from the
/// file, runs it without a supervisor; `plain` (the command line's) never shows the
/// terminal view.
fn plan_config(file: &Path, unattended: bool, plain: bool) -> Result<Plan> {
    let event = EventConfig::load(file)?;
    let unattended = unattended || event.unattended;
    let openings = match &event.openings {
        Some(path) => read_openings(path)?,
        None => Vec::new(),
    };
    let (date, stamp) = today();
    let [a, b] = &event.ports;
    let config = MatchConfig {
        event: event.event.clone(),
        site: event.site.clone(),
        date,
        round: event.round.clone(),
        names: [a.name.clone(), b.name.clone()],
        port_labels: [a.port.clone(), b.port.clone()],
        time_control: event.time_control.clone(),
        games: event.games,
        openings,
        reset_delay: event.reset_delay,
        conclude_delay: event.conclude_delay,
        draw_rule: event.draw_rule,
        illegal: event.illegal,
        attended: !unattended,
        hosted: false,
        time_margin: Default::default(),
        time_odds: Default::default(),
        wire: event.wire_timing(),
    };
    Ok(Plan {
        ports: [a.port.clone(), b.port.clone()],
        lines: [a.line.clone(), b.line.clone()],
        eol: event.eol,
        journal: event.journal_path(&stamp),
        pgn: event.pgn.clone(),
        start: Start::New(Box::new(config)),
        attended: !unattended,
        from_config: true,
        http: event.http.clone(),
        plain,
        standby: argus::cli::StandbyArgs {
            standby_listen: event.standby_listen,
            standby_sync: event.standby_sync,
            standby_key: event.standby_key.clone(),
        },
        live: None,
    })
}

/// The match of the journal at `journal_path`, taken over. The options given too (on
/// the command line, or in the event file `config`) must agree with the journal, but
/// for the ports: those given replace the journal's.
fn plan_resume(
    args: &SerialArgs,
    given: &resume_args::Given,
    journal_path: &Path,
    config: Option<&Path>,
) -> Result<Plan> {
    let event = config.map(EventConfig::load).transpose()?;
    let rebuilt = journal::rebuild(journal_path)?;
    resume_args::check(
        args,
        given,
        config.zip(event.as_ref()),
        &rebuilt,
        journal_path,
    )?;
    let port = |i: usize| {
        let given = if i == 0 { &args.port_a } else { &args.port_b };
        given
            .clone()
            .or_else(|| event.as_ref().map(|e| e.ports[i].port.clone()))
            .unwrap_or_else(|| rebuilt.ports[i].clone())
    };
    let ports = [port(0), port(1)];
    let lines = rebuilt.lines.clone().unwrap_or_else(|| match &event {
        Some(e) => [e.ports[0].line.clone(), e.ports[1].line.clone()],
        None => {
            let settings = args.line.settings();
            [settings.clone(), settings]
        }
    });
    let eol = match rebuilt.eol.as_deref() {
        Some("crlf") => Eol::Crlf,
        Some(_) => Eol::Lf,
        None => event.as_ref().map_or(args.line.eol, |e| e.eol),
    };
    let pgn = rebuilt
        .pgn
        .clone()
        .or_else(|| event.as_ref().map(|e| e.pgn.clone()))
        .unwrap_or_else(|| args.pgn.clone());
    Ok(Plan {
        ports,
        lines,
        eol,
        pgn,
        journal: journal_path.to_path_buf(),
        start: Start::Resume(Box::new(rebuilt)),
        attended: !(args.unattended || event.as_ref().is_some_and(|e| e.unattended)),
        from_config: config.is_some(),
        http: args
            .http
            .clone()
            .or_else(|| event.as_ref().and_then(|e| e.http.clone())),
        plain: args.plain,
        standby: match (&args.standby.standby_listen, &event) {
            (None, Some(e)) => argus::cli::StandbyArgs {
                standby_listen: e.standby_listen,
                standby_sync: e.standby_sync,
                standby_key: e.standby_key.clone(),
            },
            _ => args.standby.clone(),
        },
        live: None,
    })
}

fn run_plan(plan: Plan) -> Result<ExitCode> {
    if matches!(plan.start, Start::New(_)) && plan.journal.exists() {
        // A journal is the record of a session: never overwritten, and found before
        // any port is opened.
        let path = plan.journal.display();
        bail!(
            "journal {path} already exists (the record of an earlier session): resume that match with `argus serial --resume {path}`, or {}",
            if plan.from_config {
                "name another `journal` in [files] of the event file"
            } else {
                "give another --journal"
            }
        );
    }
    if let Start::Resume(rebuilt) = &plan.start
        && rebuilt.referee.is_over()
    {
        // Nothing to go on with: record what the dead referee owed, and say so.
        let mut records = Records {
            journal: Journal::append(&plan.journal)?,
            pgn: plan.pgn.clone(),
        };
        mediator::settle(&rebuilt.takeover, &mut records, &mut PrintWatcher)?;
        let tally = rebuilt.takeover.tally;
        println!(
            "argus: the match of {} is over: {} of {} game(s) played; {tally}",
            plan.journal.display(),
            tally.finished,
            rebuilt.referee.config().games
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut lines = Vec::with_capacity(2);
    for (path, settings) in plan.ports.iter().zip(&plan.lines) {
        // What waits in the port is a previous session's (its records, a disconnect):
        // cleared, so that this session starts from what its players send now.
        let duplex = serial::open_fresh(path, settings)
            .with_context(|| format!("cannot open port {path}"))?;
        let (path2, settings2) = (path.clone(), settings.clone());
        lines.push(Line {
            label: path.clone(),
            wire: duplex.into(),
            reopen: Some(Box::new(move || {
                serial::open(&path2, &settings2).map(Into::into)
            })),
        });
    }
    let lines: [Line; 2] = lines.try_into().map_err(|_| anyhow::anyhow!("two ports"))?;
    // A PGN file that cannot be written is found now, not when the first game ends.
    mediator::append_pgn(&plan.pgn, "")?;
    let hub =
        commands::serve::standby_hub_for_journal("argus serial", &plan.standby, &plan.journal)?;
    let (referee, journal, resume) = match plan.start {
        Start::New(config) => {
            let referee = Referee::new(config.as_ref().clone())?;
            let mut journal = Journal::create(&plan.journal)?;
            if let Some(hub) = &hub {
                journal.set_tap(hub.tap());
            }
            journal.write(&Event::Session {
                version: journal::VERSION,
                argus: env!("CARGO_PKG_VERSION").to_string(),
                started: journal::now_rfc3339(),
                ports: plan.ports.clone(),
                lines: Some(plan.lines.clone()),
                eol: Some(eol_name(plan.eol).to_string()),
                pgn: Some(plan.pgn.clone()),
                config,
            })?;
            (referee, journal, None)
        }
        Start::Resume(rebuilt) => {
            println!(
                "argus: resuming from {} ({} events; its time goes on from {:.3} s)",
                plan.journal.display(),
                rebuilt.inputs,
                rebuilt.takeover.at.as_secs_f64()
            );
            let mut journal = Journal::append(&plan.journal)?;
            if let Some(hub) = &hub {
                journal.set_tap(hub.tap());
            }
            (rebuilt.referee, journal, Some(rebuilt.takeover))
        }
    };
    let mut records = Records {
        journal,
        pgn: plan.pgn.clone(),
    };
    // The supervisor's console: the terminal view's line, or standard input.
    let (control, controls) = crossbeam_channel::unbounded();
    let view = if plan.attended && argus::watch::tui::wanted(plan.plain) {
        let config = referee.config();
        let title = format!(
            "argus serial{}: {} vs {}, {} game(s) at {}",
            if config.event == "?" {
                String::new()
            } else {
                format!(" · {}", config.event)
            },
            plan.ports[0],
            plan.ports[1],
            config.games,
            config.time_control
        );
        let commands = supervisor::HELP.trim_start_matches("commands: ");
        start_view(&title, commands, console_line(control.clone()))
    } else {
        None
    };
    println!(
        "argus: refereeing {} vs {} at {}; PGN {}, journal {}",
        plan.ports[0],
        plan.ports[1],
        plan.lines[0],
        plan.pgn.display(),
        plan.journal.display()
    );
    let options = mediator::RunOptions {
        eol: plan.eol,
        resume,
    };
    let games = referee.config().games;
    let live = view
        .as_ref()
        .map(|(_, live)| Arc::clone(live))
        .or(plan.live)
        .or_else(|| plan.http.is_some().then(|| Arc::new(Live::new())));
    if let (Some(addr), Some(live)) = (&plan.http, &live) {
        let config = referee.config();
        commands::start_page(addr, &config.event, &config.site, Arc::clone(live))?;
    }
    // Beside the view, the moves are its move list's, not lines of the log.
    let print: Box<dyn mediator::Watcher> = if view.is_some() {
        Box::new(argus::watch::feed::ViewLines)
    } else {
        Box::new(PrintWatcher)
    };
    let mut watcher: Box<dyn mediator::Watcher> = match live {
        Some(live) => {
            let before = options.resume.as_ref().map(|t| t.tally).unwrap_or_default();
            let mut feed = argus::watch::feed::MatchFeed::new(print, live, before);
            if let Some(takeover) = &options.resume {
                feed.catch_up(&takeover.current);
            }
            Box::new(feed)
        }
        None => print,
    };
    interrupts(&control)?;
    if plan.attended {
        println!("argus: supervisor console; {}", supervisor::HELP);
        if view.is_none() {
            read_console(control)?;
        }
    }
    let outcome = mediator::run(
        referee,
        lines,
        options,
        &mut records,
        watcher.as_mut(),
        controls,
    )?;
    if let Some(hub) = &hub {
        hub.close(!outcome.over);
    }
    // The terminal is given back before the last lines.
    drop(view);
    let tally = outcome.tally;
    // A game `quit` ended has no result: it was not played.
    let finished = if outcome.quit {
        tally.finished - tally.unterminated
    } else {
        tally.finished
    };
    let played = format!("{finished} of {games} game(s) played; {tally}");
    if !outcome.over {
        // A stop is a pause: the match goes on from the journal.
        println!(
            "argus: stopped, {played}; the match is not over: go on with `argus serial --resume {}`",
            plan.journal.display()
        );
        return Ok(ExitCode::from(130));
    }
    if outcome.quit || tally.finished < games {
        println!("argus: match ended early by the supervisor: {played}");
    } else {
        println!("argus: match over: {played}");
    }
    Ok(ExitCode::SUCCESS)
}

fn eol_name(eol: Eol) -> &'static str {
    match eol {
        Eol::Lf => "lf",
        Eol::Crlf => "crlf",
    }
}

static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Ctrl-C, SIGTERM from a service manager or SIGHUP from a lost terminal asks the
/// referee to stop, to be resumed later (a second one exits at once: the journal is
/// already on disk, and the terminal is given back).
fn interrupts(control: &crossbeam_channel::Sender<Control>) -> Result<()> {
    let stop = control.clone();
    ctrlc::set_handler(move || {
        if INTERRUPTED.swap(true, std::sync::atomic::Ordering::SeqCst) {
            argus::watch::tui::restore();
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

/// A line typed on the supervisor's console, as a command to the referee.
fn console_command(control: &crossbeam_channel::Sender<Control>, line: &str) -> bool {
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
fn console_line(control: crossbeam_channel::Sender<Control>) -> argus::watch::tui::OnLine {
    // One game: the selected game is it.
    Box::new(move |line, _selected| {
        console_command(&control, line);
    })
}

/// Reads the supervisor's commands on standard input, a line each, without the view.
fn read_console(control: crossbeam_channel::Sender<Control>) -> Result<()> {
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

/// Starts the supervisor's terminal view on a model of its own, which the page shares
/// when there is one; None (and a warning, and plain lines) when the terminal will not
/// have it.
pub(crate) fn start_view(
    title: &str,
    commands: &str,
    on_line: argus::watch::tui::OnLine,
) -> Option<(argus::watch::tui::View, Arc<Live>)> {
    let live = Arc::new(Live::new());
    match argus::watch::tui::View::start(Arc::clone(&live), title, commands, on_line) {
        Ok(view) => Some((view, live)),
        Err(e) => {
            log::warn!("no terminal view ({e}): plain lines instead");
            None
        }
    }
}

fn wire_cmd(args: WireArgs) -> Result<ExitCode> {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let settings = args.line.settings();
    let open = |path: &str| {
        serial::open(path, &settings).with_context(|| format!("cannot open port {path}"))
    };
    let (a, b) = (open(&args.port_a)?, open(&args.port_b)?);
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst))
        .context("cannot install the interrupt handler")?;
    let options = argus::field::wire::WireOptions {
        settings: settings.clone(),
        noise: args.noise,
        seed: args.seed,
    };
    println!(
        "argus wire: {} <-> {} at {settings}, noise {}; Ctrl-C to stop",
        args.port_a, args.port_b, args.noise
    );
    let stats = argus::field::wire::run(a, b, &options, &stop)?;
    println!(
        "argus wire: {} bytes a->b ({} corrupted), {} bytes b->a ({} corrupted)",
        stats.bytes[0], stats.corrupted[0], stats.bytes[1], stats.corrupted[1]
    );
    Ok(ExitCode::SUCCESS)
}

fn cable_test_cmd(args: CableTestArgs) -> Result<ExitCode> {
    use argus::field::cable_test;
    let settings = args.line.settings();
    let bytes = args
        .bytes
        .unwrap_or_else(|| cable_test::default_bytes(&settings));
    let open = |path: &str| {
        serial::open(path, &settings).with_context(|| format!("cannot open port {path}"))
    };
    let report = match &args.port_b {
        Some(port_b) if !args.loopback => cable_test::test_pair(
            open(&args.port_a)?,
            open(port_b)?,
            [&args.port_a, port_b],
            &settings,
            bytes,
        )?,
        _ => cable_test::test_loopback(open(&args.port_a)?, &args.port_a, &settings, bytes)?,
    };
    println!("{report}");
    Ok(if report.is_clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn ports_cmd() -> Result<ExitCode> {
    let ports = argus::field::ports::list().context("cannot list the serial ports")?;
    if ports.is_empty() {
        println!(
            "no serial ports found on this machine (plug in a USB adapter, or check that the built-in port is enabled in the BIOS)"
        );
    }
    for port in ports {
        println!("{port}");
    }
    Ok(ExitCode::SUCCESS)
}

fn open_input(path: Option<&Path>) -> Result<Box<dyn io::BufRead>> {
    Ok(match path {
        None => Box::new(io::stdin().lock()),
        Some(p) if p.as_os_str() == "-" => Box::new(io::stdin().lock()),
        Some(p) => Box::new(io::BufReader::new(
            fs::File::open(p).with_context(|| format!("cannot read {}", p.display()))?,
        )),
    })
}

fn open_output(path: Option<&Path>) -> Result<Box<dyn io::Write>> {
    Ok(match path {
        None => Box::new(io::BufWriter::new(io::stdout().lock())),
        Some(p) => Box::new(io::BufWriter::new(
            fs::File::create(p).with_context(|| format!("cannot write {}", p.display()))?,
        )),
    })
}

fn epd_cmd(command: EpdCommand) -> Result<ExitCode> {
    use argus::epd::tools;
    let (summary, what) = match command {
        EpdCommand::Check { file } => {
            let summary = tools::check(open_input(file.as_deref())?, usize::MAX)?;
            (summary, "checked")
        }
        EpdCommand::Normalize {
            input,
            output,
            keep_invalid,
        } => {
            let mut out = open_output(output.as_deref())?;
            let summary = tools::normalize(open_input(input.as_deref())?, &mut out, keep_invalid)?;
            out.flush()?;
            (summary, "normalized")
        }
        EpdCommand::Purge {
            opcode,
            input,
            output,
        } => {
            let mut out = open_output(output.as_deref())?;
            let summary = tools::purge(open_input(input.as_deref())?, &mut out, &opcode)?;
            out.flush()?;
            (summary, "purged")
        }
    };
    for error in &summary.errors {
        eprintln!("{error}");
    }
    eprintln!(
        "argus epd: {} record(s) {what}, {} invalid, {} line(s) skipped",
        summary.records, summary.invalid, summary.skipped
    );
    Ok(if summary.is_clean() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
