//! What `argus serial` runs, resolved from what was typed: a new match from the command
//! line or an event file, or a match taken over from the journal of a referee that
//! died (checked against what was typed by `resume_check`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Result, bail};
use argus::cli::{SerialArgs, StandbyArgs, Typed};
use argus::core::{MatchConfig, Opening, Variant, WireTiming};
use argus::mediator::Eol;
use argus::mediator::config::EventConfig;
use argus::mediator::journal;
use argus::openings::read_openings;
use argus::transport::serial::{self, SerialSettings};
use argus::watch::live::Live;

use super::resume_check;
use crate::commands::today;

/// Everything a serial session needs, from the command line, a config file or the
/// journal of a referee that died.
pub(crate) struct Plan {
    /// The two ports, A then B.
    pub(crate) ports: [String; 2],
    /// Each port's line settings.
    pub(crate) lines: [SerialSettings; 2],
    /// The end of line argus sends.
    pub(crate) eol: Eol,
    /// The PGN file the games are appended to.
    pub(crate) pgn: PathBuf,
    /// The journal: made for a new match, appended to for one taken over.
    pub(crate) journal: PathBuf,
    /// How the match begins.
    pub(crate) start: Start,
    /// Whether the supervisor's console reads standard input.
    pub(crate) attended: bool,
    /// Whether the settings came from an event file (`--config`).
    pub(crate) from_config: bool,
    /// Where the audience's page is served (`--http`), when it is.
    pub(crate) http: Option<String>,
    /// Plain lines, never the terminal view (`--plain`).
    pub(crate) plain: bool,
    /// The standby stream (`--standby-listen`, `--standby-sync`).
    pub(crate) standby: StandbyArgs,
    /// The views, made already (by an observer that takes over).
    pub(crate) live: Option<Arc<Live>>,
    /// Adjudication by endgame tables (`--tb`).
    pub(crate) tb: Option<argus::tablebase::TbConfig>,
}

/// How a match begins: new, or where a journal leaves it.
pub(crate) enum Start {
    /// A new match.
    New(Box<MatchConfig>),
    /// A match taken over from a journal.
    Resume(Box<journal::Rebuilt>),
}

/// The match `args` describes (of which `typed` were typed): taken over from its
/// journal with `--resume` (or `--continue` when the journal exists), from an event file
/// with `--config`, or from the command line alone.
pub(crate) fn resolve(args: SerialArgs, typed: &Typed) -> Result<Plan> {
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
            return resume(&args, typed, &journal, args.config.as_deref());
        }
    }
    match (&args.resume, &args.config) {
        (Some(journal), config) => resume(&args, typed, journal, config.as_deref()),
        (None, Some(file)) => from_config(file, args.unattended, args.plain),
        (None, None) => new(args),
    }
}

/// A Chess960 match without a book: a start position drawn now for each pair of its
/// `games` (the journal keeps them); none for standard chess.
fn chess960_starts(variant: Variant, games: u32) -> Vec<Opening> {
    if variant.is_standard() {
        return Vec::new();
    }
    let (openings, seed) =
        crate::commands::serve::settings::chess960_openings(None, games.div_ceil(2) as usize);
    log::info!("Chess960 start positions drawn with seed {seed}");
    openings
}

fn new(args: SerialArgs) -> Result<Plan> {
    let (Some(port_a), Some(port_b)) = (args.port_a.clone(), args.port_b.clone()) else {
        bail!("give two ports (or --resume JOURNAL)");
    };
    let openings = match &args.openings {
        Some(path) => read_openings(path)?,
        None => chess960_starts(args.variant, args.games),
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
        keep_info: false,
        variant: args.variant,
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
        tb: args.tablebase.config().map_err(anyhow::Error::msg)?,
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
fn from_config(file: &Path, unattended: bool, plain: bool) -> Result<Plan> {
    let event = EventConfig::load(file)?;
    let unattended = unattended || event.unattended;
    let openings = match &event.openings {
        Some(path) => read_openings(path)?,
        None => chess960_starts(event.variant, event.games),
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
        keep_info: false,
        variant: event.variant,
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
        standby: standby_of(&event),
        live: None,
        tb: tablebase_of(&event)?,
    })
}

/// The match of the journal at `journal_path`, taken over. The options given too (on
/// the command line, or in the event file `config`) must agree with the journal, but
/// for the ports: those given replace the journal's.
pub(crate) fn resume(
    args: &SerialArgs,
    typed: &Typed,
    journal_path: &Path,
    config: Option<&Path>,
) -> Result<Plan> {
    let event = config.map(EventConfig::load).transpose()?;
    let rebuilt = journal::rebuild(journal_path)?;
    resume_check::check(
        args,
        typed,
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
            (None, Some(e)) => standby_of(e),
            _ => args.standby.clone(),
        },
        live: None,
        tb: match &event {
            Some(e) => tablebase_of(e)?,
            None => args.tablebase.config().map_err(anyhow::Error::msg)?,
        },
    })
}

/// The tables an event file adjudicates by (`tb`, `tb_pieces`, `tb_ignore_50`,
/// `tb_adjudicate`): none without `tb`, whatever the other keys say.
fn tablebase_of(event: &EventConfig) -> Result<Option<argus::tablebase::TbConfig>> {
    match event.tb.as_deref() {
        Some(tb) => argus::tablebase::TbConfig::from_options(
            Some(tb),
            event.tb_pieces,
            event.tb_ignore_50,
            event.tb_adjudicate.as_deref(),
        )
        .map_err(anyhow::Error::msg),
        None => Ok(None),
    }
}

/// The standby stream an event file asks for (`standby_listen`, `standby_sync`,
/// `standby_key`), as the command line's options would.
fn standby_of(event: &EventConfig) -> StandbyArgs {
    StandbyArgs {
        standby_listen: event.standby_listen,
        standby_sync: event.standby_sync,
        standby_key: event.standby_key.clone(),
    }
}
