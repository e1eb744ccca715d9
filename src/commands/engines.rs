//! The players an `--engine` word names, for `argus client` and `argus replay --as
//! referee --engine`: the random mover, a person at the terminal, a UCI or CECP engine.

use std::io;
use std::time::Duration;

use anyhow::{Result, bail};
use argus::client::human::HumanEngine;
use argus::client::random::RandomEngine;
use argus::client::uci::UciEngine;
use argus::client::xboard::XboardEngine;
use argus::client::{self, Engine};

/// The player an `--engine` word names (`random`, `human`, `uci:COMMAND`,
/// `xboard:COMMAND`), with its options and limit; `random` is the random mover of
/// `(seed, think_ms)`, `human` the person called `name`.
pub(crate) fn engine_of(
    spec: &str,
    options: &[(String, String)],
    limit: Option<client::Limit>,
    (seed, think_ms): (u64, u64),
    name: Option<&str>,
) -> Result<Box<dyn Engine>> {
    let (kind, command) = spec.split_once(':').unwrap_or((spec, ""));
    let command = command.trim();
    if matches!(kind, "uci" | "xboard") && command.is_empty() {
        bail!("--engine {spec}: give the engine's command line after the colon");
    }
    Ok(match kind {
        "random" => Box::new(RandomEngine::new(seed, Duration::from_millis(think_ms))),
        "human" => Box::new(HumanEngine::new(
            name.unwrap_or("Human"),
            Box::new(io::BufReader::new(io::stdin())),
            Box::new(io::stdout()),
        )),
        "uci" => Box::new(UciEngine::start(command, options, limit)?),
        "xboard" => Box::new(XboardEngine::start(command, options, limit)?),
        other => {
            bail!("--engine {other:?}: not an engine (random, human, uci:COMMAND, xboard:COMMAND)")
        }
    })
}
