//! What `argus serve` prints as its event goes: a line when a player takes a seat, a
//! game starts or ends, the SPRT or the ratings move, and the console's answers.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use argus::core::Notice;
use argus::mediator::is_warning;
use argus::openings::Order;
use argus::server::{Progress, ServeConfig, TakenBy};

/// The lines of an event's progress, with what they need to remember: the players'
/// names (a seat's changes once its player signs on) and how many games are shown as
/// scheduled (a knockout's tie-breaks come on top of its schedule).
pub(super) struct ProgressLines {
    names: Vec<String>,
    two: bool,
    shown: usize,
    scheduled: usize,
    /// Each game's warnings logged in its current minute: when it began, how many.
    warned: HashMap<u32, (Instant, u32)>,
}

/// The warnings a game may log in a minute (noise, a respond sent again): a player
/// that provokes one with every line it sends fills no disk with the log. The journal
/// has them all, within its own allowance (docs/journal.md).
const WARNINGS_A_MINUTE: u32 = 60;

/// Counts game `number`'s warning: which it is in its minute, and, once the last
/// minute is over, how many of that minute's were not logged.
fn count_warning(warned: &mut HashMap<u32, (Instant, u32)>, number: u32) -> (u32, u32) {
    let now = Instant::now();
    if warned.len() > 1024 {
        warned.retain(|_, (since, _)| now.duration_since(*since) < 2 * MINUTE);
    }
    let (since, count) = warned.entry(number).or_insert((now, 0));
    let mut untold = 0;
    if now.duration_since(*since) >= MINUTE {
        untold = count.saturating_sub(WARNINGS_A_MINUTE + 1);
        *since = now;
        *count = 0;
    }
    *count += 1;
    (*count, untold)
}

const MINUTE: Duration = Duration::from_secs(60);

impl ProgressLines {
    /// The lines of the event `cfg`, of `scheduled` games.
    pub(super) fn new(cfg: &ServeConfig, scheduled: usize) -> ProgressLines {
        ProgressLines {
            names: cfg.players.iter().map(|p| p.name().to_string()).collect(),
            two: cfg.players.len() == 2,
            shown: scheduled,
            scheduled,
            warned: HashMap::new(),
        }
    }

    /// Prints what `p` says (warnings and details through the log).
    pub(super) fn show(&mut self, p: Progress<'_>) {
        let ProgressLines {
            names,
            two,
            shown,
            scheduled,
            warned,
        } = self;
        match p {
            Progress::Seated(i, seat) => {
                println!(
                    "argus serve: {} takes seat {} ({})",
                    seat.name,
                    seat.number,
                    match seat.taken {
                        Some(TakenBy::Address) => "no name in its sign_on: named by its address",
                        _ => "by its name",
                    }
                );
                names[i].clone_from(&seat.name);
            }
            Progress::Started(g) => {
                // A knockout's tie-breaks come on top of its schedule.
                *shown = (*shown).max(g.number as usize);
                println!(
                    "game {}/{shown} (round {}): {} vs {}",
                    g.number, g.round, names[g.white], names[g.black]
                );
            }
            Progress::Finished(g, report, standings) => {
                println!(
                    "game {}/{shown}: {} vs {}: {} ({})",
                    g.number, report.white, report.black, report.result, report.reason
                );
                if *two {
                    println!(
                        "score: {} {} - {} {}",
                        names[0],
                        f64::from(standings.half_points(0)) / 2.0,
                        f64::from(standings.half_points(1)) / 2.0,
                        names[1]
                    );
                }
            }
            Progress::Failed(g, why) => eprintln!("error: game {}: {why}", g.number),
            Progress::Sprt(sprt) => println!("{}", sprt.line()),
            Progress::Ratings(games, ratings) => {
                print!("ratings after {games} game(s):\n{}", ratings.text());
            }
            Progress::Knockout(m) => println!("knockout round {}: {}", m.round, m.describe(names)),
            Progress::Status(status) => {
                for game in &status.games {
                    let g = &game.spec;
                    println!(
                        "status: game {}/{scheduled} (round {}): {} vs {}: {game}",
                        g.number, g.round, names[g.white], names[g.black]
                    );
                }
                println!(
                    "status: {} of {} game(s) done, {} under way{}",
                    status.done,
                    status.scheduled,
                    status.games.len(),
                    if status.draining {
                        "; no new game starts"
                    } else {
                        ""
                    }
                );
            }
            Progress::Draining(0) => {
                println!("argus serve: no new game starts; no game is under way");
            }
            Progress::Draining(n) => {
                println!("argus serve: no new game starts; {n} game(s) under way finish first");
            }
            Progress::Console(text) => println!("argus serve: {text}"),
            // The answers to the supervisor's commands for a game.
            Progress::Notice(
                g,
                notice @ (Notice::Supervisor { .. }
                | Notice::ClockChanged { .. }
                | Notice::Paused { .. }
                | Notice::Unpaused),
            ) => println!("game {}: {notice}", g.number),
            Progress::Notice(g, notice) if is_warning(notice) => {
                let (nth, untold) = count_warning(warned, g.number);
                if untold > 0 {
                    log::warn!(
                        "game {}: {untold} more warning(s) of the last minute not logged",
                        g.number
                    );
                }
                if nth <= WARNINGS_A_MINUTE {
                    log::warn!("game {}: {notice}", g.number);
                } else if nth == WARNINGS_A_MINUTE + 1 {
                    log::warn!(
                        "game {}: more than {WARNINGS_A_MINUTE} warnings in a minute: the rest \
                         of the minute's are not logged (the game's journal has them)",
                        g.number
                    );
                }
            }
            Progress::Notice(g, notice) => log::debug!("game {}: {notice}", g.number),
        }
    }
}

/// What an event's openings are, in a line: how many, from where, in which order (the
/// seed that repeats a random one).
pub(super) fn openings_line(cfg: &ServeConfig) -> Option<String> {
    let spec = cfg.openings_from.as_ref()?;
    let mut line = format!(
        "argus serve: openings: {} from {}",
        cfg.openings.len(),
        spec.file.display()
    );
    if let Some(plies) = spec.plies {
        line.push_str(&format!(" (at most {plies} plies of each game)"));
    }
    if spec.start != 1 {
        line.push_str(&format!(", from its opening {}", spec.start));
    }
    if spec.order == Order::Random {
        line.push_str(&format!(
            ", in random order (--srand {})",
            cfg.srand.unwrap_or(0)
        ));
    }
    line.push_str(&format!(", {} game(s) each", cfg.repeat));
    Some(line)
}
