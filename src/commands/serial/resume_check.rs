//! `argus serial --resume JOURNAL` given more than the journal: the organiser presses
//! up-arrow and adds `--resume JOURNAL` to the command that was running, or resumes the
//! match of an event file (`--config EVENT.toml --resume JOURNAL`).
//!
//! The journal's session line fixes the match. Every option given that agrees with it is
//! accepted; one that contradicts it is refused in one line that names the option, the
//! value given and the journal's. Only options typed on the command line count, not
//! clap's defaults; an event file is the whole event, so every value it sets counts.
//! What may differ: the ports (USB adapters may come up with other names after a reboot;
//! the ports given are used), whether a console is read in this run when the journal's
//! match ran unattended, where the audience's page is served (`--http`), and what the
//! journal does not hold (the date).

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Result, anyhow};

use argus::core::{DrawRule, IllegalRule, MatchConfig};
use argus::mediator::config::EventConfig;
use argus::mediator::journal::Rebuilt;
use argus::transport::serial::{ParityName, SerialSettings};

use argus::cli::{DrawRuleArg, IllegalArg, SerialArgs, Typed};
use argus::openings::read_openings;

/// Where a value compared with the journal was given.
#[derive(Clone, Copy)]
enum Source<'a> {
    /// On the command line: the option's flag (`games` for `--games`).
    Flag(&'a str),
    /// In an event file: the file, the table and the key.
    File(&'a Path, &'a str, &'a str),
}

impl Source<'_> {
    /// The option and its value as the user wrote it: `--games 10`,
    /// `event.toml: games = 10 in [match]`; `None` for a key the file leaves out.
    fn show(self, value: Option<&str>) -> String {
        match (self, value) {
            (Source::Flag(flag), Some(value)) => format!("--{flag} {value}"),
            (Source::Flag(flag), None) => format!("--{flag}"),
            (Source::File(file, table, key), Some(value)) => {
                format!("{}: {key} = {value} in [{table}]", file.display())
            }
            (Source::File(file, table, key), None) => {
                format!("{}: no {key} in [{table}]", file.display())
            }
        }
    }
}

/// The comparison of what was given with one journal.
struct Check<'a> {
    journal: &'a Path,
    rebuilt: &'a Rebuilt,
    config: &'a MatchConfig,
}

impl Check<'_> {
    /// The error for `source` = `given` against the journal's `has`.
    fn contradiction(&self, source: Source<'_>, given: Option<&str>, has: &str) -> anyhow::Error {
        anyhow!(
            "{} contradicts the journal {}, which has {has}",
            source.show(given),
            self.journal.display()
        )
    }

    /// Refuses `given` unless it equals the journal's `has`; `show` writes both.
    fn same<T: PartialEq + ?Sized>(
        &self,
        source: Source<'_>,
        given: &T,
        has: &T,
        show: impl Fn(&T) -> String,
    ) -> Result<()> {
        if given == has {
            return Ok(());
        }
        Err(self.contradiction(source, Some(&show(given)), &show(has)))
    }

    /// Refuses one line setting, written as `field` writes it, unless the ports `ports`
    /// have it in the journal (when the journal holds line settings; an old one may not).
    fn line(
        &self,
        source: Source<'_>,
        given: &SerialSettings,
        ports: &[usize],
        field: Field,
    ) -> Result<()> {
        let Some(lines) = &self.rebuilt.lines else {
            return Ok(());
        };
        let given = field(given);
        let has = [field(&lines[0]), field(&lines[1])];
        if ports.iter().all(|&i| has[i] == given) {
            return Ok(());
        }
        let text = if has[0] == has[1] {
            has[0].clone()
        } else {
            format!("{} for port A and {} for port B", has[0], has[1])
        };
        Err(self.contradiction(source, Some(&given), &text))
    }

    /// Refuses an end of line other than the journal's, when the journal has one;
    /// `show` writes both.
    fn eol(&self, source: Source<'_>, given: &str, show: impl Fn(&str) -> String) -> Result<()> {
        match self.rebuilt.eol.as_deref() {
            Some(has) if has != given => {
                Err(self.contradiction(source, Some(&show(given)), &show(has)))
            }
            _ => Ok(()),
        }
    }

    /// Refuses a PGN file other than the journal's, when the journal names one.
    fn pgn(&self, source: Source<'_>, given: &Path) -> Result<()> {
        match &self.rebuilt.pgn {
            Some(has) if !same_file(given, has) => {
                Err(self.contradiction(source, Some(&quote_path(given)), &quote_path(has)))
            }
            _ => Ok(()),
        }
    }

    /// Refuses a journal other than the one resumed: the match goes on writing it.
    fn journal(&self, source: Source<'_>, given: &Path) -> Result<()> {
        if same_file(given, self.journal) {
            return Ok(());
        }
        Err(anyhow!(
            "{} contradicts --resume {}: a resumed match goes on writing the journal it resumes",
            source.show(Some(&quote_path(given))),
            self.journal.display()
        ))
    }

    /// Refuses start positions other than the journal's; `file` is where they come
    /// from (none: the standard start position).
    fn openings(&self, source: Source<'_>, file: Option<&Path>) -> Result<()> {
        let has = &self.config.openings;
        let Some(file) = file else {
            if has.is_empty() {
                return Ok(());
            }
            return Err(self.contradiction(source, None, &positions(has.len())));
        };
        // The positions count: the names a newer reader gives them do not.
        let given: Vec<String> = read_openings(file)?.into_iter().map(|o| o.fen).collect();
        let has: Vec<&String> = has.iter().map(|o| &o.fen).collect();
        if given.iter().eq(has.iter().copied()) {
            return Ok(());
        }
        let text = if has.is_empty() {
            "none (the standard start position)".to_string()
        } else if has.len() != given.len() {
            format!(
                "{} where the file has {}",
                positions(has.len()),
                given.len()
            )
        } else {
            let i = (0..has.len()).find(|&i| *has[i] != given[i]).unwrap_or(0);
            format!(
                "position {} as {:?} where the file has {:?}",
                i + 1,
                has[i],
                given[i]
            )
        };
        Err(self.contradiction(source, Some(&quote_path(file)), &text))
    }
}

/// Checks the options given with `--resume` against the journal `rebuilt` was rebuilt
/// from (at `journal`): the command line's (`args`, of which only those in `typed`
/// count) and, with `--config`, every value of the event file.
///
/// # Errors
///
/// The first option that contradicts the journal, in one line; an event file or an
/// openings file that cannot be read.
pub(crate) fn check(
    args: &SerialArgs,
    typed: &Typed,
    event: Option<(&Path, &EventConfig)>,
    rebuilt: &Rebuilt,
    journal: &Path,
) -> Result<()> {
    let config = rebuilt.referee.config();
    let check = Check {
        journal,
        rebuilt,
        config,
    };
    if let Some((file, event)) = event {
        check_event(&check, file, event)?;
    }
    let flag = Source::Flag;
    let line = &args.line;
    let settings = line.settings();
    for (id, option, field) in line_fields(false) {
        if typed.has(id) {
            check.line(flag(option), &settings, &[0, 1], field)?;
        }
    }
    if typed.has("eol") {
        check.eol(flag("eol"), line.eol.name(), str::to_string)?;
    }
    if typed.has("tc") {
        check.same(flag("tc"), &args.tc, &config.time_control, |tc| {
            tc.to_string()
        })?;
    }
    if typed.has("games") {
        check.same(flag("games"), &args.games, &config.games, u32::to_string)?;
    }
    if typed.has("openings") {
        check.openings(flag("openings"), args.openings.as_deref())?;
    }
    if typed.has("variant") {
        check.same(flag("variant"), &args.variant, &config.variant, |v| {
            v.to_string()
        })?;
    }
    if typed.has("event") {
        check.same(flag("event"), args.event.as_str(), &config.event, quote)?;
    }
    if typed.has("site") {
        check.same(flag("site"), args.site.as_str(), &config.site, quote)?;
    }
    if typed.has("round") {
        check.same(flag("round"), &args.round, &config.round, |r| {
            optional(r, "none (the game number)")
        })?;
    }
    let names = [
        ("name_a", "name-a", &args.name_a),
        ("name_b", "name-b", &args.name_b),
    ];
    for (i, (id, option, name)) in names.into_iter().enumerate() {
        if typed.has(id) {
            check.same(flag(option), name, &config.names[i], |n| {
                optional(n, "none (the name its player signs on with)")
            })?;
        }
    }
    if typed.has("pgn") {
        check.pgn(flag("pgn"), &args.pgn)?;
    }
    if typed.has("journal")
        && let Some(path) = &args.journal
    {
        check.journal(flag("journal"), path)?;
    }
    if typed.has("reset_delay") {
        check.same(
            flag("reset-delay"),
            &args.reset_delay,
            &config.reset_delay,
            secs,
        )?;
    }
    if typed.has("conclude_delay") {
        check.same(
            flag("conclude-delay"),
            &args.conclude_delay,
            &config.conclude_delay,
            secs,
        )?;
    }
    if typed.has("draw_rule") {
        let rule = match args.draw_rule {
            DrawRuleArg::Auto => DrawRule::Auto,
            DrawRuleArg::Claim => DrawRule::Claim,
        };
        check.same(flag("draw-rule"), &rule, &config.draw_rule, draw_name)?;
    }
    if typed.has("illegal") {
        let rule = match args.illegal {
            IllegalArg::Loss => IllegalRule::Loss,
            IllegalArg::Fault => IllegalRule::Fault,
        };
        check.same(flag("illegal"), &rule, &config.illegal, illegal_name)?;
    }
    // A supervisor decides what a sign_off (and, under --illegal fault, an illegal
    // move) costs: the game pauses for a decision. That rule is the journal's and cannot
    // change, and without a console nobody could decide.
    if typed.has("unattended") && args.unattended && config.attended {
        return Err(check.contradiction(
            flag("unattended"),
            None,
            &format!("{SUPERVISOR}; resume without --unattended"),
        ));
    }
    if typed.has("no_wire_compensation")
        && args.no_wire_compensation
        && config.wire.byte_time.iter().any(Option::is_some)
    {
        return Err(check.contradiction(
            flag("no-wire-compensation"),
            None,
            "wire compensation (the time records spend on the line is charged to nobody)",
        ));
    }
    Ok(())
}

/// What a journal whose match had a supervisor has, for `unattended`.
const SUPERVISOR: &str =
    "a supervisor at the console (a player's sign_off pauses the game for a decision)";

/// Every value of the event file `file` against the journal, but the ports.
fn check_event(check: &Check<'_>, file: &Path, event: &EventConfig) -> Result<()> {
    let config = check.config;
    let at = |table, key| Source::File(file, table, key);
    check.same(
        at("match", "event"),
        event.event.as_str(),
        &config.event,
        quote,
    )?;
    check.same(
        at("match", "site"),
        event.site.as_str(),
        &config.site,
        quote,
    )?;
    if event.round != config.round {
        return Err(check.contradiction(
            at("match", "round"),
            event.round.as_deref().map(quote).as_deref(),
            &optional(&config.round, "none (the game number)"),
        ));
    }
    check.same(
        at("match", "games"),
        &event.games,
        &config.games,
        u32::to_string,
    )?;
    check.same(
        at("match", "tc"),
        &event.time_control,
        &config.time_control,
        |tc| quote(&tc.to_string()),
    )?;
    check.openings(at("match", "openings"), event.openings.as_deref())?;
    check.same(
        at("match", "variant"),
        &event.variant,
        &config.variant,
        |v| quote(&v.to_string()),
    )?;
    check.same(
        at("match", "draw_rule"),
        &event.draw_rule,
        &config.draw_rule,
        |r| quote(&draw_name(r)),
    )?;
    check.same(
        at("match", "illegal"),
        &event.illegal,
        &config.illegal,
        |r| quote(&illegal_name(r)),
    )?;
    check.same(
        at("match", "reset_delay"),
        &event.reset_delay,
        &config.reset_delay,
        secs,
    )?;
    check.same(
        at("match", "conclude_delay"),
        &event.conclude_delay,
        &config.conclude_delay,
        secs,
    )?;
    if event.unattended && config.attended {
        return Err(check.contradiction(
            at("match", "unattended"),
            Some("true"),
            &format!("{SUPERVISOR}; resume with unattended = false"),
        ));
    }
    check.pgn(at("files", "pgn"), &event.pgn)?;
    if let Some(journal) = &event.journal {
        check.journal(at("files", "journal"), journal)?;
    }
    // A line setting may come from [line] or the player's own table; name [line] when
    // both players have the same.
    let shared = event.ports[0].line == event.ports[1].line;
    for (i, (table, player)) in ["player.a", "player.b"]
        .into_iter()
        .zip(&event.ports)
        .enumerate()
    {
        for (key, _, field) in line_fields(true) {
            check.line(
                at(if shared { "line" } else { table }, key),
                &player.line,
                &[i],
                field,
            )?;
        }
        if player.name != config.names[i] {
            return Err(check.contradiction(
                at(table, "name"),
                player.name.as_deref().map(quote).as_deref(),
                &optional(&config.names[i], "none (the name its player signs on with)"),
            ));
        }
    }
    check.eol(at("line", "eol"), event.eol.name(), quote)?;
    check_wire(check, file, event)
}

/// Wire compensation as the event file gives it (with its ports) against the journal's,
/// port by port.
fn check_wire(check: &Check<'_>, file: &Path, event: &EventConfig) -> Result<()> {
    let given = event.wire_timing().byte_time;
    let has = &check.config.wire.byte_time;
    for (i, port) in ["port A", "port B"].into_iter().enumerate() {
        match (given[i].is_some(), has[i].is_some()) {
            (true, true) | (false, false) => {}
            (false, true) if event.no_wire_compensation => {
                return Err(check.contradiction(
                    Source::File(file, "line", "no_wire_compensation"),
                    Some("true"),
                    "wire compensation (the time records spend on the line is charged to nobody)",
                ));
            }
            (false, true) => {
                return Err(anyhow!(
                    "{}: no baud for {port}, a pty, contradicts the journal {}, which has wire compensation there (argus knows a pty's rate only when baud is given)",
                    file.display(),
                    check.journal.display()
                ));
            }
            (true, false) => {
                return Err(anyhow!(
                    "{}: wire compensation on {port} contradicts the journal {}, which has none there (no_wire_compensation = true in [line] agrees with it)",
                    file.display(),
                    check.journal.display()
                ));
            }
        }
    }
    Ok(())
}

/// A line setting written as the user gives it.
type Field = fn(&SerialSettings) -> String;

/// The line settings: their clap id (and event file key), option, and value as written
/// in an event file (`toml`: names quoted) or on the command line.
fn line_fields(toml: bool) -> [(&'static str, &'static str, Field); 5] {
    let parity: Field = if toml {
        |s| quote(parity_name(s.parity))
    } else {
        |s| parity_name(s.parity).to_string()
    };
    let flow: Field = if toml {
        |s| quote(&s.flow.to_string())
    } else {
        |s| s.flow.to_string()
    };
    [
        ("baud", "baud", |s| s.baud.to_string()),
        ("data_bits", "data-bits", |s| s.data_bits.to_string()),
        ("parity", "parity", parity),
        ("stop_bits", "stop-bits", |s| s.stop_bits.to_string()),
        ("flow", "flow", flow),
    ]
}

fn quote(text: &str) -> String {
    format!("{text:?}")
}

fn quote_path(path: &Path) -> String {
    quote(&path.display().to_string())
}

fn optional(value: &Option<String>, none: &str) -> String {
    value.as_deref().map_or_else(|| none.to_string(), quote)
}

fn positions(n: usize) -> String {
    if n == 1 {
        "1 start position".into()
    } else {
        format!("{n} start positions")
    }
}

/// Seconds as given: `5`, `0.3`.
fn secs(d: &Duration) -> String {
    let text = format!("{:.6}", d.as_secs_f64());
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn parity_name(parity: ParityName) -> &'static str {
    match parity {
        ParityName::None => "none",
        ParityName::Odd => "odd",
        ParityName::Even => "even",
    }
}

fn draw_name(rule: &DrawRule) -> String {
    match rule {
        DrawRule::Auto => "auto",
        DrawRule::Claim => "claim",
    }
    .into()
}

fn illegal_name(rule: &IllegalRule) -> String {
    match rule {
        IllegalRule::Loss => "loss",
        IllegalRule::Fault => "fault",
    }
    .into()
}

/// Whether two paths name the same file: the same file on disk when both exist, else
/// the same absolute path.
fn same_file(one: &Path, other: &Path) -> bool {
    match (std::fs::canonicalize(one), std::fs::canonicalize(other)) {
        (Ok(one), Ok(other)) => one == other,
        _ => absolute(one) == absolute(other),
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use argus::cli::Cli;

    /// Every option of `argus serial` is compared with the journal by `check`, or is
    /// one that may differ: a new option must be added there, and here.
    #[test]
    fn every_option_of_serial_is_known_to_the_check() {
        let known = [
            // May differ, or are not in the journal.
            "port_a",
            "port_b",
            "config",
            "resume",
            "continue_match",
            // Compared.
            "baud",
            "data_bits",
            "parity",
            "stop_bits",
            "flow",
            "eol",
            "tc",
            "games",
            "openings",
            "variant",
            "event",
            "site",
            "round",
            "name_a",
            "name_b",
            "pgn",
            "journal",
            "reset_delay",
            "conclude_delay",
            "draw_rule",
            "illegal",
            "unattended",
            "no_wire_compensation",
            // How the games are shown is not the match's: any page, or none, goes; and
            // the terminal view or plain lines.
            "http",
            "plain",
            // Observers may follow a resumed match, or not, and prove the key they share.
            "standby_listen",
            "standby_sync",
            "standby_key",
            // The tables' verdicts are in the journal as the supervisor's `adjudicate`:
            // a resumed match adjudicates by the tables it is given, or by none.
            "tb",
            "tb_pieces",
            "tb_ignore_50",
            "tb_adjudicate",
        ];
        let cli = Cli::command();
        let serial = cli.find_subcommand("serial").unwrap();
        for arg in serial.get_arguments() {
            let id = arg.get_id().as_str();
            assert!(
                id == "help" || known.contains(&id),
                "--{id}: compare it with the journal in resume_check::check"
            );
        }
    }
}
