//! The engines `argus serve` starts itself: `--engine name=NAME cmd=CMD proto=uci|xboard
//! [option.X=V ...] [nodes=N|depth=N|movetime=MS]`, as cutechess-cli writes them.

use std::time::Duration;

use crate::client::random::RandomEngine;
use crate::client::uci::UciEngine;
use crate::client::xboard::XboardEngine;
use crate::client::{Engine, EngineError, Limit};

/// How argus speaks to an engine.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Proto {
    /// UCI.
    Uci,
    /// CECP (xboard, WinBoard).
    Xboard,
    /// argus's own random mover (no command): for trying an event out; `movetime=MS`
    /// is how long it thinks.
    Random,
}

/// How long a UCI engine is waited for outside its searches (fastchess's `-startup-ms`,
/// `-ucinewgame-ms`, `-ping-ms`), in milliseconds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Waits {
    /// For `uciok` and the first `readyok` as it starts.
    pub startup_ms: u64,
    /// For `readyok` after `ucinewgame`.
    pub new_game_ms: u64,
    /// For `readyok` after any other `isready`.
    pub ping_ms: u64,
}

/// One engine of the event.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EngineSpec {
    /// Its name in the games and the standings.
    pub name: String,
    /// Its command line (empty for the random mover).
    pub command: String,
    /// Its protocol.
    pub proto: Proto,
    /// Engine options (UCI `setoption`, CECP `option`).
    pub options: Vec<(String, String)>,
    /// A fixed search limit instead of the clock.
    pub limit: Option<Limit>,
    /// How many times in a game the engine is restarted after a failure (a crash, a
    /// stall, nonsense), the game going on, before a failure loses it the game
    /// (`restarts=N`; none unless asked, as in cutechess-cli and fastchess).
    #[serde(default)]
    pub restarts: u32,
    /// How far past its time the engine may answer and not lose on time
    /// (`timemargin=MS`, cutechess-cli's): an overshoot up to it is forgiven, the
    /// clock standing at zero before the increment.
    #[serde(default)]
    pub time_margin: Duration,
    /// A time control of its own (`tc=`, time odds), instead of the event's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_control: Option<crate::core::clock::TimeControl>,
    /// The folder it works in, where a relative `cmd` is found (`dir=`); argus's own
    /// when not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<std::path::PathBuf>,
    /// Started afresh for every game rather than kept from one to the next
    /// (`restart=on`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub restart_each_game: bool,
    /// Lines sent to it as it starts, before its protocol's first (cutechess-cli's
    /// `initstr=`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub init: Vec<String>,
    /// Its waits outside its searches, when not argus's (a UCI engine's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waits: Option<Waits>,
    /// Its PVs checked as fastchess checks them (a UCI engine under `argus fastchess`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pv_check: Option<crate::client::uci::pv_check::PvCheck>,
    /// What its replies report besides the usual analysis (a UCI engine whose
    /// games go to fastchess's PGN under `argus fastchess`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<crate::client::uci::detail::Detail>,
}

impl EngineSpec {
    /// An engine called `name` that runs `command` with `proto`, and nothing else set.
    pub fn new(name: &str, command: &str, proto: Proto) -> EngineSpec {
        EngineSpec {
            name: name.to_string(),
            command: command.to_string(),
            proto,
            options: Vec::new(),
            limit: None,
            restarts: 0,
            time_margin: Duration::ZERO,
            time_control: None,
            dir: None,
            restart_each_game: false,
            init: Vec::new(),
            waits: None,
            pv_check: None,
            detail: None,
        }
    }

    /// Reads the `KEY=VALUE` words of one `--engine`.
    ///
    /// # Errors
    ///
    /// A sentence naming the word that is wrong or the key that is missing.
    ///
    /// # Examples
    ///
    /// ```
    /// use argus::server::{EngineSpec, Proto};
    /// let words = ["name=SF", "cmd=stockfish", "proto=uci", "option.Hash=16", "nodes=1000"];
    /// let spec = EngineSpec::parse(&words.map(String::from)).unwrap();
    /// assert_eq!(spec.proto, Proto::Uci);
    /// assert_eq!(spec.options, [("Hash".to_string(), "16".to_string())]);
    /// ```
    pub fn parse(words: &[String]) -> Result<EngineSpec, String> {
        let mut name = None;
        let mut command = None;
        let mut proto = None;
        let mut options = Vec::new();
        let mut limit = None;
        let mut restarts = 0;
        let mut time_margin = Duration::ZERO;
        let mut time_control = None;
        for word in words {
            let Some((key, value)) = word.split_once('=') else {
                return Err(format!(
                    "--engine {word:?}: expected KEY=VALUE (name=, cmd=, proto=, option.X=, nodes=, depth=, movetime=, tc=, restarts=, timemargin=)"
                ));
            };
            match key {
                "name" => name = Some(value.to_string()),
                "cmd" => command = Some(value.to_string()),
                "proto" => {
                    proto = Some(match value {
                        "uci" => Proto::Uci,
                        "xboard" | "cecp" => Proto::Xboard,
                        "random" => Proto::Random,
                        other => {
                            return Err(format!(
                                "--engine proto={other}: expected uci, xboard or random"
                            ));
                        }
                    });
                }
                "tc" => {
                    time_control =
                        Some(value.parse().map_err(|e| format!("--engine {word}: {e}"))?);
                }
                "restarts" => {
                    restarts = value.parse().map_err(|_| {
                        format!("--engine {word}: expected restarts=N, a whole number")
                    })?;
                }
                "timemargin" => {
                    let ms: u64 = value.parse().map_err(|_| {
                        format!("--engine {word}: expected timemargin=MS, in milliseconds")
                    })?;
                    time_margin = Duration::from_millis(ms);
                }
                "nodes" | "depth" | "movetime" => {
                    if limit.is_some() {
                        return Err(format!(
                            "--engine {word}: give one of nodes=, depth=, movetime="
                        ));
                    }
                    limit = Some(word.parse::<Limit>().map_err(|e| format!("--engine {e}"))?);
                }
                _ => match key.strip_prefix("option.") {
                    Some(option) if !option.is_empty() => {
                        options.push((option.to_string(), value.to_string()));
                    }
                    _ => {
                        return Err(format!(
                            "--engine {word}: unknown key {key:?} (name, cmd, proto, option.X, nodes, depth, movetime, tc, restarts, timemargin)"
                        ));
                    }
                },
            }
        }
        let proto = proto.unwrap_or(if command.is_some() {
            Proto::Uci
        } else {
            Proto::Random
        });
        let command = command.unwrap_or_default();
        if proto != Proto::Random && command.is_empty() {
            return Err(format!(
                "--engine {}: give the engine's command line with cmd=",
                words.join(" ")
            ));
        }
        let name = match name {
            Some(n) if !n.trim().is_empty() => n,
            _ => return Err(format!("--engine {}: give it a name=", words.join(" "))),
        };
        Ok(EngineSpec {
            name,
            command,
            proto,
            options,
            limit,
            restarts,
            time_margin,
            time_control,
            dir: None,
            restart_each_game: false,
            init: Vec::new(),
            waits: None,
            pv_check: None,
            detail: None,
        })
    }

    /// Whether the engine is kept running from one game to the next (a UCI or CECP
    /// engine), rather than started for each: the random mover is started with each
    /// game's seed.
    pub fn reusable(&self) -> bool {
        self.proto != Proto::Random && !self.restart_each_game
    }

    /// Starts the engine; `seed` makes a random mover play its own game.
    ///
    /// # Errors
    ///
    /// [`EngineError`] when the engine cannot be started or fails its handshake.
    pub fn start(&self, seed: u64) -> Result<Box<dyn Engine>, EngineError> {
        Ok(match self.proto {
            Proto::Uci => {
                let mut timeouts = crate::client::uci::UciTimeouts::default();
                if let Some(w) = &self.waits {
                    timeouts.handshake = Duration::from_millis(w.startup_ms);
                    timeouts.new_game = Duration::from_millis(w.new_game_ms);
                    timeouts.ping = Duration::from_millis(w.ping_ms);
                }
                let mut engine = UciEngine::start_in(
                    &self.command,
                    self.dir.as_deref(),
                    &self.init,
                    &self.options,
                    self.limit,
                    timeouts,
                    self.pv_check.clone(),
                )?;
                if let Some(detail) = &self.detail {
                    engine.report_detail(detail).map_err(EngineError::Failed)?;
                }
                Box::new(engine)
            }
            Proto::Xboard => Box::new(XboardEngine::start_in(
                &self.command,
                self.dir.as_deref(),
                &self.init,
                &self.options,
                self.limit,
                crate::client::xboard::Timing::default(),
            )?),
            // The random mover thinks as long as movetime= says, else a millisecond.
            Proto::Random => Box::new(RandomEngine::new(
                seed,
                match self.limit {
                    Some(Limit::MoveTime(think)) => think,
                    _ => Duration::from_millis(1),
                },
            )),
        })
    }
}

/// Starts each engine of `specs` once (all at the same time), completes its handshake
/// (UCI's `uci`/`uciok`, CECP's `xboard`/`protover 2`/`feature done=1`) and stops it:
/// an engine that cannot start is found before the first game, not game by game.
///
/// # Errors
///
/// One line per engine that failed: its name and what went wrong.
pub fn check_engines(
    specs: &[&EngineSpec],
    variant: crate::core::Variant,
) -> Result<(), Vec<String>> {
    let failures: Vec<String> = std::thread::scope(|scope| {
        let checks: Vec<_> = specs
            .iter()
            .filter(|spec| spec.proto != Proto::Random)
            .map(|spec| {
                // Started to be checked, not to play: its findings come when it plays.
                let spec = EngineSpec {
                    pv_check: None,
                    ..(*spec).clone()
                };
                scope.spawn(move || match spec.start(0) {
                    // An engine that cannot play the event's variant is found here too.
                    Ok(mut engine) => {
                        let playable = engine.set_variant(variant);
                        engine.quit();
                        playable
                            .err()
                            .map(|e| format!("--engine name={}: {e}", spec.name))
                    }
                    Err(e) => Some(format!("--engine name={}: {e}", spec.name)),
                })
            })
            .collect();
        checks
            .into_iter()
            .filter_map(|check| {
                check
                    .join()
                    .unwrap_or_else(|_| Some("an engine check panicked".into()))
            })
            .collect()
    });
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<EngineSpec, String> {
        let words: Vec<String> = text.split(' ').map(String::from).collect();
        EngineSpec::parse(&words)
    }

    #[test]
    fn reads_the_words_of_an_engine() {
        let spec = parse("name=FM cmd=/usr/games/fairymax proto=xboard depth=4").unwrap();
        assert_eq!(spec.name, "FM");
        assert_eq!(spec.command, "/usr/games/fairymax");
        assert_eq!(spec.proto, Proto::Xboard);
        assert_eq!(spec.limit, Some(Limit::Depth(4)));
        let random = parse("name=R").unwrap();
        assert_eq!(random.proto, Proto::Random);
    }

    #[test]
    fn an_engine_that_cannot_start_is_named_before_any_game() {
        let specs = [
            parse("name=Gone cmd=/nonexistent/engine proto=uci").unwrap(),
            parse("name=R").unwrap(),
            parse("name=Silent cmd=/bin/true proto=xboard").unwrap(),
        ];
        let failures =
            check_engines(&specs.iter().collect::<Vec<_>>(), Default::default()).unwrap_err();
        assert_eq!(failures.len(), 2, "{failures:?}");
        assert!(
            failures[0].starts_with("--engine name=Gone: "),
            "{failures:?}"
        );
        assert!(
            failures[1].starts_with("--engine name=Silent: "),
            "{failures:?}"
        );
        assert!(check_engines(&[&specs[1]], Default::default()).is_ok());
    }

    #[test]
    fn a_wrong_word_is_named() {
        for (text, says) in [
            ("name=X cmd=sf proto=uic", "proto=uic"),
            ("cmd=sf", "name="),
            ("name=X proto=uci", "cmd="),
            ("name=X cmd=sf colour=red", "\"colour\""),
            ("name=X cmd=sf nodes=5 depth=3", "one of"),
            ("name=X cmd", "KEY=VALUE"),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
