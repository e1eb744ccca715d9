//! Event configuration files: every option of `argus serial` in one TOML file.
//!
//! A referee that runs unattended under a service manager cannot be given a long command
//! line by hand each time, and a club organiser should be able to read and change the
//! settings of an event in one place. `argus serial --config EVENT.toml` reads the ports
//! and their line settings, the players' names, the time control, the openings, the number
//! of games, the files and the rules from such a file (`docs/example-event.toml` is a
//! complete example, and `docs/background.md` says how to run it under systemd).
//!
//! The file and the command line are one: every option of `argus serial` is a key of the
//! same name, its long name with `_` for `-` (`--reset-delay` is `reset_delay`), and every
//! key is an option. Each key has one table: `[match]` for the match, `[files]` for the
//! files argus writes, `[line]` for the line settings of both ports. An option of one
//! player, whose name ends in `-a` or `-b` (the ports, `--name-a`, `--name-b`), is the
//! rest of its name in that player's table, `[player.a]` or `[player.b]`; a player's table
//! may also set a `[line]` key (but `eol` and `no_wire_compensation`, which are the same
//! for both ports) again for that player's port alone. Only `--config`, `--resume` and
//! `--continue`, which say how a run finds its match rather than what the match is, have
//! no key. The tests of `crate::cli` check all this against the command line.
//!
//! The file is checked as strictly as the command line: an unknown key is an error, so a
//! typo never passes silently, and every error names the file, the line and column and
//! the key at fault. Missing keys take the defaults of `argus serial`. Relative paths are
//! relative to the folder of the configuration file, not to the working directory, so a
//! file means the same wherever the referee is started from.

use std::fmt;
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use toml::Spanned;
use toml::de::DeTable;

use crate::core::clock::TimeControl;
use crate::core::{DrawRule, IllegalRule, WireTiming};
use crate::mediator::Eol;
use crate::transport::serial::{self, FlowName, ParityName, SerialSettings};

mod errors;
use errors::serde_error;
pub use errors::{ConfigFileError, Position, Problem};
pub(crate) use errors::{invalid, position, serde_error_renamed, syntax_error};

/// The longest reset or conclude delay accepted, in seconds (a day), as on the command
/// line.
pub const MAX_DELAY_SECS: f64 = 86_400.0;

/// The time control used when the file gives none, as on the command line.
pub const DEFAULT_TIME_CONTROL: &str = "300+5";

/// The PGN file used when the file gives none, relative to the file's folder.
pub const DEFAULT_PGN: &str = "argus.pgn";

/// The reset and conclude delay used when the file gives none, in seconds.
const DEFAULT_DELAY_SECS: u64 = 5;

/// A whole event, as read from a configuration file: what `argus serial` would otherwise
/// take from its command line.
#[derive(Debug, Clone, PartialEq)]
pub struct EventConfig {
    /// The two players' ports, A then B. Port A plays White in odd-numbered games.
    pub ports: [PlayerConfig; 2],
    /// The PGN Event tag (`?` when not given).
    pub event: String,
    /// The PGN Site tag (`?` when not given).
    pub site: String,
    /// The PGN Round tag; when not given, the game number.
    pub round: Option<String>,
    /// How many games are played (at least one).
    pub games: u32,
    /// The time control.
    pub time_control: TimeControl,
    /// A file of start positions (EPD or FEN lines, or PGN games), each played twice
    /// with colours swapped.
    pub openings: Option<PathBuf>,
    /// The variant (`variant = "chess960"`).
    pub variant: crate::core::Variant,
    /// The folders of the Syzygy tables that adjudicate (`tb`, joined by `:`; a relative
    /// one from the file's folder), and `tb_pieces`, `tb_ignore_50`, `tb_adjudicate`.
    pub tb: Option<String>,
    /// `tb_pieces`.
    pub tb_pieces: Option<usize>,
    /// `tb_ignore_50`.
    pub tb_ignore_50: bool,
    /// `tb_adjudicate`.
    pub tb_adjudicate: Option<String>,
    /// Whether repetition and fifty-move draws are automatic or must be claimed.
    pub draw_rule: DrawRule,
    /// What an illegal move costs.
    pub illegal: IllegalRule,
    /// How long to wait after `reset`.
    pub reset_delay: Duration,
    /// How long to wait after `conclude`.
    pub conclude_delay: Duration,
    /// The PGN file the games are appended to.
    pub pgn: PathBuf,
    /// The journal; when not given, a dated file next to the PGN file (see
    /// [`EventConfig::journal_path`]).
    pub journal: Option<PathBuf>,
    /// The end of line sent on both ports.
    pub eol: Eol,
    /// Whether the match runs without a supervisor at the console.
    pub unattended: bool,
    /// Whether the players are charged the time their records spend on the line too;
    /// by default that time is deducted where the line's rate is known (see
    /// [`EventConfig::wire_timing`]).
    pub no_wire_compensation: bool,
    /// Where the audience's page is served, when it is (`--http`).
    pub http: Option<String>,
    /// Where observers follow the journal, when they may (`--standby-listen`).
    pub standby_listen: Option<std::net::SocketAddr>,
    /// Whether a line is relayed only once the observers hold it (`--standby-sync`).
    pub standby_sync: bool,
    /// The file of the key observers must prove they hold (`--standby-key`).
    pub standby_key: Option<PathBuf>,
}

/// One player's connection.
#[derive(Debug, Clone, PartialEq)]
pub struct PlayerConfig {
    /// The serial port's path (`/dev/ttyUSB0`, `/dev/argus-a`, `COM3`).
    pub port: String,
    /// The player's name; when not given, its `sign_on` name, else the port.
    pub name: Option<String>,
    /// The port's line settings: `[line]` with this player's own overrides.
    pub line: SerialSettings,
    /// Whether `baud` was given for this port (in `[line]` or the player's own table):
    /// the rate of a pty is known only then.
    pub baud_given: bool,
}

impl EventConfig {
    /// Reads and checks the configuration file at `path`; relative paths in it are made
    /// relative to its folder.
    ///
    /// # Errors
    ///
    /// Returns [`ConfigFileError::Read`] when the file cannot be read (or is not UTF-8),
    /// and [`ConfigFileError::Invalid`], naming the file, when it is not a valid event
    /// configuration.
    pub fn load(path: &Path) -> Result<EventConfig, ConfigFileError> {
        let text = fs::read_to_string(path).map_err(|source| ConfigFileError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let base = path.parent().unwrap_or_else(|| Path::new(""));
        EventConfig::parse(&text, base).map_err(|mut e| {
            if let ConfigFileError::Invalid { file, .. } = &mut e {
                *file = Some(path.to_path_buf());
            }
            e
        })
    }

    /// Parses and checks the text of a configuration file; relative paths in it are made
    /// relative to `base`, the folder the file is in.
    ///
    /// # Errors
    ///
    /// Returns [`ConfigFileError::Invalid`] when the text is not TOML, has a key that is
    /// not known, a value of the wrong type or out of range, or lacks a player's port.
    pub fn parse(text: &str, base: &Path) -> Result<EventConfig, ConfigFileError> {
        let doc = DeTable::parse(text).map_err(|e| syntax_error(text, &e))?;
        let raw: RawFile =
            toml::from_str(text).map_err(|e| serde_error(text, doc.get_ref(), &e))?;
        Builder { text, base }.build(raw)
    }

    /// What the referee knows of the lines' rates, as on the command line: a real serial
    /// port's from its settings, a pty's only when `baud` is given for it; nothing with
    /// `no_wire_compensation`.
    pub fn wire_timing(&self) -> WireTiming {
        WireTiming {
            byte_time: self.ports.each_ref().map(|p| {
                if self.no_wire_compensation {
                    return None;
                }
                serial::known_byte_time(&p.port, &p.line, p.baud_given)
            }),
            eol_bytes: self.eol.bytes().len() as u8,
        }
    }

    /// The journal to write: the one the file names, else `STEM-STAMP.jsonl` in the
    /// folder of the PGN file, where `STEM` is the PGN file's name without its extension
    /// and `stamp` is the caller's timestamp (such as `20261122-143000`).
    pub fn journal_path(&self, stamp: &str) -> PathBuf {
        if let Some(journal) = &self.journal {
            return journal.clone();
        }
        let stem = self
            .pgn
            .file_stem()
            .map_or_else(|| "argus".into(), |s| s.to_string_lossy().into_owned());
        self.pgn.with_file_name(format!("{stem}-{stamp}.jsonl"))
    }
}

// The file as written. Values that are checked after deserializing keep their place in
// the file, so that the error can point at it.

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default, rename = "match")]
    match_: RawMatch,
    #[serde(default)]
    files: RawFiles,
    #[serde(default)]
    line: RawLine,
    #[serde(default)]
    player: RawPlayers,
    #[serde(default)]
    network: RawNetwork,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawNetwork {
    http: Option<String>,
    standby_listen: Option<Spanned<String>>,
    standby_sync: Option<bool>,
    standby_key: Option<Spanned<PathBuf>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawMatch {
    event: Option<String>,
    site: Option<String>,
    round: Option<Round>,
    games: Option<Spanned<i64>>,
    tc: Option<Spanned<String>>,
    openings: Option<Spanned<PathBuf>>,
    variant: Option<Spanned<String>>,
    tb: Option<Spanned<String>>,
    tb_pieces: Option<Spanned<i64>>,
    tb_ignore_50: Option<bool>,
    tb_adjudicate: Option<Spanned<String>>,
    draw_rule: Option<DrawRule>,
    illegal: Option<IllegalRule>,
    reset_delay: Option<Spanned<f64>>,
    conclude_delay: Option<Spanned<f64>>,
    unattended: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawFiles {
    pgn: Option<Spanned<PathBuf>>,
    journal: Option<Spanned<PathBuf>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawLine {
    baud: Option<Spanned<i64>>,
    data_bits: Option<Spanned<i64>>,
    parity: Option<ParityName>,
    stop_bits: Option<Spanned<i64>>,
    flow: Option<FlowName>,
    eol: Option<Spanned<String>>,
    no_wire_compensation: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawPlayers {
    a: Option<Spanned<RawPlayer>>,
    b: Option<Spanned<RawPlayer>>,
}

/// A player's table: its port and name, and any `[line]` key for its port alone; those in
/// [`FOR_BOTH_PORTS`] are read only to be refused with a word on where they go. (serde
/// cannot flatten [`RawLine`] into a struct that denies unknown fields, hence the
/// repetition.)
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawPlayer {
    port: Option<Spanned<String>>,
    name: Option<String>,
    baud: Option<Spanned<i64>>,
    data_bits: Option<Spanned<i64>>,
    parity: Option<ParityName>,
    stop_bits: Option<Spanned<i64>>,
    flow: Option<FlowName>,
    eol: Option<Spanned<String>>,
    no_wire_compensation: Option<Spanned<bool>>,
}

impl RawPlayer {
    fn line(&self) -> RawLine {
        RawLine {
            baud: self.baud.clone(),
            data_bits: self.data_bits.clone(),
            parity: self.parity,
            stop_bits: self.stop_bits.clone(),
            flow: self.flow,
            eol: self.eol.clone(),
            no_wire_compensation: None,
        }
    }
}

/// The [line] keys that are the same for both ports: a player's table reads them only to
/// say so.
const FOR_BOTH_PORTS: [&str; 2] = ["eol", "no_wire_compensation"];

/// Every key an event file may hold, as dotted paths (`match.games`, `player.a.port`), in
/// the order of the file: the tables' keys are the field names of the structure the file
/// is read into, which denies any other.
pub fn keys() -> Vec<String> {
    let mut keys = Vec::new();
    for table in field_names::<RawFile>() {
        let leaves = match *table {
            "match" => field_names::<RawMatch>(),
            "files" => field_names::<RawFiles>(),
            "network" => field_names::<RawNetwork>(),
            "line" => field_names::<RawLine>(),
            "player" => {
                for player in field_names::<RawPlayers>() {
                    let leaves = field_names::<RawPlayer>()
                        .iter()
                        .filter(|k| !FOR_BOTH_PORTS.contains(k));
                    keys.extend(leaves.map(|k| format!("player.{player}.{k}")));
                }
                continue;
            }
            // Every table of RawFile is above (a test checks it).
            _ => &[],
        };
        keys.extend(leaves.iter().map(|k| format!("{table}.{k}")));
    }
    keys
}

/// The key of an event file that gives the option `name` of `argus serial` (its long
/// name, or a positional argument's id: `reset-delay`, `name-a`, `port_a`), by the rule of
/// this module: `match.reset_delay`, `player.a.name`, `player.a.port`. `None` for an
/// option without a key (`config`, `resume`, `continue`).
pub fn key_of_option(name: &str) -> Option<String> {
    let name = name.replace('-', "_");
    let keys = keys();
    for (suffix, table) in [("_a", "player.a"), ("_b", "player.b")] {
        if let Some(stem) = name.strip_suffix(suffix) {
            let key = format!("{table}.{stem}");
            return keys.contains(&key).then_some(key);
        }
    }
    keys.into_iter()
        .filter(|k| !k.starts_with("player."))
        .find(|k| k.rsplit_once('.').is_some_and(|(_, leaf)| leaf == name))
}

/// The names of the fields of the struct `T` as serde reads them: a deserializer that
/// stops at the struct, keeping the names it is asked for.
pub(crate) fn field_names<T: de::DeserializeOwned>() -> &'static [&'static str] {
    use std::cell::Cell;

    #[derive(Debug)]
    struct Stop;
    impl fmt::Display for Stop {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("stopped at the struct")
        }
    }
    impl std::error::Error for Stop {}
    impl de::Error for Stop {
        fn custom<M: fmt::Display>(_: M) -> Stop {
            Stop
        }
    }
    struct Fields<'a>(&'a Cell<&'static [&'static str]>);
    impl<'de> Deserializer<'de> for Fields<'_> {
        type Error = Stop;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
            Err(Stop)
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Stop> {
            self.0.set(fields);
            Err(Stop)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
    let names = Cell::new(&[][..]);
    let _ = T::deserialize(Fields(&names));
    names.get()
}

/// A PGN round: a string (`"3"`, `"2.1"`) or, for convenience, a whole number.
struct Round(String);

impl<'de> Deserialize<'de> for Round {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Round, D::Error> {
        struct RoundVisitor;
        impl Visitor<'_> for RoundVisitor {
            type Value = Round;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or a whole number")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Round, E> {
                Ok(Round(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Round, E> {
                Ok(Round(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Round, E> {
                Ok(Round(v.to_string()))
            }
        }
        deserializer.deserialize_any(RoundVisitor)
    }
}

/// Checks the raw file and turns it into an [`EventConfig`].
struct Builder<'a> {
    text: &'a str,
    base: &'a Path,
}

impl Builder<'_> {
    fn bad<T>(
        &self,
        key: &str,
        span: Range<usize>,
        message: impl Into<String>,
    ) -> Result<T, ConfigFileError> {
        Err(invalid(
            self.text,
            Some(span),
            Problem::BadValue {
                key: key.to_string(),
                message: message.into(),
            },
        ))
    }

    fn build(&self, raw: RawFile) -> Result<EventConfig, ConfigFileError> {
        let RawFile {
            match_: event,
            files,
            line,
            player,
            network,
        } = raw;
        let games = match event.games {
            None => 1,
            Some(games) => match u32::try_from(*games.get_ref()) {
                Ok(n) if n >= 1 => n,
                _ => {
                    return self.bad(
                        "match.games",
                        games.span(),
                        format!("must be a whole number from 1 to {}", u32::MAX),
                    );
                }
            },
        };
        let time_control = match event.tc {
            None => DEFAULT_TIME_CONTROL
                .parse()
                .expect("the default time control is valid"),
            Some(tc) => match tc.get_ref().parse::<TimeControl>() {
                Ok(tc) => tc,
                Err(e) => return self.bad("match.tc", tc.span(), e.to_string()),
            },
        };
        let openings = event
            .openings
            .map(|p| self.path("match.openings", p))
            .transpose()?;
        let variant = match &event.variant {
            None => crate::core::Variant::Standard,
            Some(v) => match v.get_ref().parse() {
                Ok(variant) => variant,
                Err(e) => return self.bad("match.variant", v.span(), e),
            },
        };
        let pgn = match files.pgn {
            None => self.base.join(DEFAULT_PGN),
            Some(p) => self.path("files.pgn", p)?,
        };
        let journal = files
            .journal
            .map(|p| self.path("files.journal", p))
            .transpose()?;

        let mut settings = SerialSettings::default();
        self.apply_line(&mut settings, &line, "line")?;
        let eol = match &line.eol {
            None => Eol::Lf,
            Some(eol) => match eol.get_ref().as_str() {
                "lf" => Eol::Lf,
                "crlf" => Eol::Crlf,
                _ => return self.bad("line.eol", eol.span(), "must be \"lf\" or \"crlf\""),
            },
        };
        let standby_listen = match network.standby_listen {
            Some(addr) => match addr.get_ref().parse::<std::net::SocketAddr>() {
                Ok(parsed) => Some(parsed),
                Err(e) => return self.bad("network.standby_listen", addr.span(), e.to_string()),
            },
            None => None,
        };
        let baud_given = line.baud.is_some();
        let a = self.player("a", player.a, &settings, baud_given)?;
        let b = self.player("b", player.b, &settings, baud_given)?;
        if a.port.0 == b.port.0 {
            return Err(invalid(
                self.text,
                Some(b.port.1),
                Problem::SamePort { port: b.port.0 },
            ));
        }
        Ok(EventConfig {
            ports: [a.config(), b.config()],
            event: event.event.unwrap_or_else(|| "?".into()),
            site: event.site.unwrap_or_else(|| "?".into()),
            round: event.round.map(|r| r.0),
            games,
            time_control,
            openings,
            variant,
            tb: event
                .tb
                .as_ref()
                .filter(|tb| !tb.get_ref().is_empty())
                .map(|tb| {
                    crate::tablebase::TbConfig::split_paths(tb.get_ref())
                        .iter()
                        .map(|p| self.base.join(p).display().to_string())
                        .collect::<Vec<_>>()
                        .join(if cfg!(windows) { ";" } else { ":" })
                }),
            tb_pieces: match &event.tb_pieces {
                None => None,
                Some(n) => match usize::try_from(*n.get_ref()) {
                    Ok(n) if n > 0 => Some(n),
                    _ => return self.bad("match.tb_pieces", n.span(), "a number of pieces"),
                },
            },
            tb_ignore_50: event.tb_ignore_50.unwrap_or(false),
            tb_adjudicate: event.tb_adjudicate.as_ref().map(|k| k.get_ref().clone()),
            draw_rule: event.draw_rule.unwrap_or(DrawRule::Auto),
            illegal: event.illegal.unwrap_or(IllegalRule::Loss),
            reset_delay: self.delay("match.reset_delay", event.reset_delay)?,
            conclude_delay: self.delay("match.conclude_delay", event.conclude_delay)?,
            pgn,
            journal,
            eol,
            unattended: event.unattended.unwrap_or(false),
            no_wire_compensation: line.no_wire_compensation.unwrap_or(false),
            http: network.http,
            standby_listen,
            standby_sync: network.standby_sync.unwrap_or(false),
            standby_key: network
                .standby_key
                .map(|p| self.path("network.standby_key", p))
                .transpose()?,
        })
    }

    /// A path from the file, made relative to the file's folder.
    fn path(&self, key: &str, path: Spanned<PathBuf>) -> Result<PathBuf, ConfigFileError> {
        if path.get_ref().as_os_str().is_empty() {
            return self.bad(key, path.span(), "must not be empty");
        }
        Ok(self.base.join(path.into_inner()))
    }

    fn delay(&self, key: &str, secs: Option<Spanned<f64>>) -> Result<Duration, ConfigFileError> {
        let Some(secs) = secs else {
            return Ok(Duration::from_secs(DEFAULT_DELAY_SECS));
        };
        let value = *secs.get_ref();
        if !(0.0..=MAX_DELAY_SECS).contains(&value) {
            return self.bad(
                key,
                secs.span(),
                format!("must be a number of seconds from 0 to {MAX_DELAY_SECS}"),
            );
        }
        match Duration::try_from_secs_f64(value) {
            Ok(d) => Ok(d),
            Err(e) => self.bad(key, secs.span(), e.to_string()),
        }
    }

    /// Applies the keys of a `[line]` or player table to `settings`. The end of line is
    /// checked by the caller: it may be given in `[line]` only.
    fn apply_line(
        &self,
        settings: &mut SerialSettings,
        line: &RawLine,
        table: &str,
    ) -> Result<(), ConfigFileError> {
        if let Some(baud) = &line.baud {
            match u32::try_from(*baud.get_ref()) {
                Ok(n) if n >= 1 => settings.baud = n,
                _ => {
                    return self.bad(
                        &format!("{table}.baud"),
                        baud.span(),
                        format!("must be a whole number from 1 to {}", u32::MAX),
                    );
                }
            }
        }
        if let Some(bits) = &line.data_bits {
            match *bits.get_ref() {
                n @ 5..=8 => settings.data_bits = u8::try_from(n).expect("5 to 8"),
                _ => {
                    return self.bad(
                        &format!("{table}.data_bits"),
                        bits.span(),
                        "must be 5, 6, 7 or 8",
                    );
                }
            }
        }
        if let Some(bits) = &line.stop_bits {
            match *bits.get_ref() {
                n @ 1..=2 => settings.stop_bits = u8::try_from(n).expect("1 or 2"),
                _ => return self.bad(&format!("{table}.stop_bits"), bits.span(), "must be 1 or 2"),
            }
        }
        if let Some(parity) = line.parity {
            settings.parity = parity;
        }
        if let Some(flow) = line.flow {
            settings.flow = flow;
        }
        Ok(())
    }

    fn player(
        &self,
        which: &str,
        raw: Option<Spanned<RawPlayer>>,
        defaults: &SerialSettings,
        baud_given: bool,
    ) -> Result<Player, ConfigFileError> {
        let table = format!("player.{which}");
        let key = format!("{table}.port");
        let Some(raw) = raw else {
            return Err(invalid(self.text, None, Problem::MissingKey { key }));
        };
        let header = raw.span();
        let raw = raw.into_inner();
        if let Some(eol) = &raw.eol {
            return self.bad(
                &format!("{table}.eol"),
                eol.span(),
                "the end of line is the same for both ports: set it in [line]",
            );
        }
        if let Some(off) = &raw.no_wire_compensation {
            return self.bad(
                &format!("{table}.no_wire_compensation"),
                off.span(),
                "wire compensation is the same for both ports: set it in [line]",
            );
        }
        let mut line = defaults.clone();
        self.apply_line(&mut line, &raw.line(), &table)?;
        let Some(port) = raw.port else {
            return Err(invalid(
                self.text,
                Some(header),
                Problem::MissingKey { key },
            ));
        };
        let span = port.span();
        let port = port.into_inner();
        if port.trim().is_empty() {
            return self.bad(&key, span, "must not be empty");
        }
        Ok(Player {
            port: (port, span),
            name: raw.name,
            line,
            baud_given: baud_given || raw.baud.is_some(),
        })
    }
}

/// A checked player, its port still with its place in the file.
struct Player {
    port: (String, Range<usize>),
    name: Option<String>,
    line: SerialSettings,
    baud_given: bool,
}

impl Player {
    fn config(&self) -> PlayerConfig {
        PlayerConfig {
            port: self.port.0.clone(),
            name: self.name.clone(),
            line: self.line.clone(),
            baud_given: self.baud_given,
        }
    }
}

#[cfg(test)]
mod tests;
