//! The players that connect to `argus serve` over TCP (profile section 9): who may sign
//! on, under which name and token, and each name's one live connection.
//!
//! Every connection (a [`Router`]) is read by one poll loop for the whole event
//! (`readers.rs`), so that threads grow with the games under way, not the players: it
//! stamps each line as it takes its bytes off the socket, and while its player is in a
//! game it hands the line straight to that game's mediator (a
//! `stamped` line (`transport/stamped.rs`): no second thread stamps it later, so
//! the referee's own queueing is never charged to the player); between games the
//! registry reads them itself (a repeated `sign_on` is ignored, a `sign_off` takes the
//! player out of the schedule until it signs on again).
//! When the connection closes during a game, the game sees its line lost, and a new
//! connection under the same name is handed to it, its `sign_on` first, so that the
//! game's referee resynchronises the player as after a restarted client.
//!
//! A player whose old connection is still open (a network that died without a word, a
//! proxy that keeps the referee's side open) is not locked out by it: a `sign_on` with
//! the place's token, or, for a place without a token, one from the same host (IP
//! address) as the old connection, replaces it. The old connection gets a `fault`
//! ([`crate::client::REPLACED`]) and is closed, and the game under way takes the new
//! one as above. A place without a token whose connection is live is not given to a
//! connection from another host: that one is refused (its client tries again) until
//! the old connection ends, which TCP keepalive makes sure of within about 20 s when
//! its other end is gone ([`crate::transport::tcp::keep_alive`]).
//!
//! Besides its listed players, an open event may have seats (`--seats N`): places for
//! players not named in advance. A `sign_on` whose `tcsi` name is nobody's takes the
//! first free seat under that name; one without `tcsi` takes, after the listed places
//! without a token, a seat named by its connection's address (`127.0.0.1:50312`). A
//! seat keeps the name it took for the whole event (its player gets it back when it
//! connects again), and its player is paired only once the event's journal holds that
//! name ([`Registry::seats_to_record`]), so that a resumed event knows it.

use std::io::{self, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use shakmaty::Chess;

use crate::core::referee::{REFCOM, command_record};
use crate::transport::stamped::{self, Feed, Stamped};
use crate::transport::{LinkEvent, Wire};

mod readers;

/// More lines than this in one second from a connection, beyond the lines argus sent it
/// in that second, is a flood: the connection is closed. A player answers what it is
/// sent (a reply to each `respond`, and a few records besides), so a fast game of
/// instant movers, a reply a millisecond, is no flood; a line it was not asked for is.
pub const FLOOD_LINES: usize = 100;

/// How long a write to a player may wait for it to read: a client that stops reading
/// does not hold up the event's last word for long, and its game's writer only its game.
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a taken seat's player may be gone (no connection) before its games are
/// given up: from then on each game it is paired in is lost by forfeit, until it
/// connects again (docs/supervisor.md). A listed player is waited for as long as it
/// takes, as a free seat is.
pub const SEAT_GIVEN_UP: Duration = Duration::from_secs(60);

/// Why a place's games are lost by forfeit before they begin: its player has been gone
/// this long, the limit for its kind of place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GivenUp {
    /// The limit crossed: [`SEAT_GIVEN_UP`] for a seat, `--absent-after` for a listed
    /// player.
    pub after: Duration,
    /// Whether the place is a listed player's (else a seat's).
    pub listed: bool,
}

/// A player of the event who connects by itself: `--player NAME[:TOKEN]`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RemotePlayer {
    /// Its name.
    pub name: String,
    /// Its secret, in a closed event: as a hash, the token itself never kept (the
    /// event's journal holds this).
    pub token: Option<crate::secret::TokenHash>,
}

impl RemotePlayer {
    /// Reads `NAME` or `NAME:TOKEN`.
    ///
    /// # Errors
    ///
    /// When the name is empty.
    pub fn parse(text: &str) -> Result<RemotePlayer, String> {
        let (name, token) = match text.split_once(':') {
            Some((name, token)) => (name, Some(token.to_string())),
            None => (text, None),
        };
        if name.trim().is_empty() {
            return Err(format!("--player {text:?}: give a name"));
        }
        Ok(RemotePlayer {
            name: name.trim().to_string(),
            token: token
                .filter(|t| !t.is_empty())
                .map(|t| crate::secret::TokenHash::of(&t)),
        })
    }
}

/// A place for a player not named in advance (`--seats N`): it takes the name of the
/// first player that signs on to it, and keeps it for the event.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Seat {
    /// Its number, from 1.
    pub number: u32,
    /// `seat N` while it is free; then the name it took.
    pub name: String,
    /// How it was taken; None while it is free.
    #[serde(default)]
    pub taken: Option<TakenBy>,
}

impl Seat {
    /// Seat `number`, free.
    pub fn free(number: u32) -> Seat {
        Seat {
            number,
            name: format!("seat {number}"),
            taken: None,
        }
    }
}

/// How a seat got its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TakenBy {
    /// The name its player's `sign_on` gave in `tcsi`.
    Name,
    /// Its player's `sign_on` had no `tcsi`: the connection's remote address and port.
    Address,
}

/// A place of the registry: a listed player, or a seat.
#[derive(Clone, Debug)]
pub enum Place {
    /// `--player NAME[:TOKEN]`.
    Listed(RemotePlayer),
    /// One of `--seats N`.
    Seat(Seat),
}

/// One live connection and its reader thread.
pub struct Router {
    stream: TcpStream,
    peer: SocketAddr,
    /// Where its lines go while its player is in a game.
    target: Mutex<Option<Feed>>,
    alive: AtomicBool,
    /// Lines argus wrote to the connection, for the flood rule.
    sent: Arc<AtomicUsize>,
}

impl Router {
    /// Takes the stamp of what was just read and hands the events `lines` makes of it
    /// to the player's game, behind its mediator's gate
    /// ([`Gate`](crate::transport::Gate)); those back that no game took.
    fn stamp(&self, lines: impl FnOnce(Instant) -> Vec<LinkEvent>) -> Vec<LinkEvent> {
        match lock(&self.target).as_ref() {
            Some(feed) => feed.stamp(lines),
            None => lines(Instant::now()),
        }
    }

    /// Sends a line to the player between games (its `disconnect` at the end).
    pub fn send(&self, line: &str) {
        let mut w = &self.stream;
        self.sent.fetch_add(1, Ordering::Relaxed);
        let _ = w.write_all(format!("{line}\n").as_bytes());
    }

    /// Whether the connection is open.
    pub fn is_alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst)
    }

    /// Closes the connection.
    pub fn close(&self) {
        let _ = self.stream.shutdown(Shutdown::Both);
    }

    /// Tells the connection why it is closed, if it can take the line at once (one
    /// whose other end is gone does not hold anything up), and closes it.
    fn replace(&self, why: &str) {
        let _ = self.stream.set_nonblocking(true);
        self.send(&command_record(&Chess::default(), REFCOM, "fault", Some(why)).to_string());
        self.close();
    }
}

/// A player's place in the event.
struct Slot {
    player: RemotePlayer,
    router: Option<Arc<Router>>,
    /// In a game now.
    busy: bool,
    /// Signed off between games: out of the schedule until it signs on again.
    out: bool,
    /// A connection that came while the player was in a game and its line was down,
    /// with its `sign_on` line: for the game to take.
    handoff: Option<(Arc<Router>, Vec<u8>)>,
    /// When the place is a seat: its number and how it was taken.
    seat: Option<(u32, Option<TakenBy>)>,
    /// Whether the event's journal holds the place's name (a seat taken just now does
    /// not yet): only then is its player paired.
    recorded: bool,
    /// Since when the place has had no connection (its last one closed; for a seat
    /// taken before a resume, since the registry began).
    gone_since: Option<Instant>,
}

impl Slot {
    /// A place that answers to `name`: a listed player's, or a seat's it took.
    fn is_named(&self, name: &str) -> bool {
        self.player.name == name && !self.is_free_seat()
    }

    fn is_free_seat(&self) -> bool {
        matches!(self.seat, Some((_, None)))
    }

    fn is_live(&self) -> bool {
        self.router.as_ref().is_some_and(|r| r.is_alive())
    }

    /// A seat whose player has been gone [`SEAT_GIVEN_UP`] or longer, or a listed
    /// player absent past `absent` (`--absent-after`; None: waited for): it loses the
    /// games it is paired in by forfeit until its player comes back.
    fn given_up(&self, absent: Option<Duration>) -> Option<GivenUp> {
        let (after, listed) = match self.seat {
            Some((_, Some(_))) => (SEAT_GIVEN_UP, false),
            Some((_, None)) => return None,
            None => (absent?, true),
        };
        (self.live_connection().is_none()
            && self.gone_since.is_some_and(|at| at.elapsed() >= after))
        .then_some(GivenUp { after, listed })
    }

    /// The player's newest connection, if it is open: the one handed to its game, or
    /// else the one it plays on.
    fn live_connection(&self) -> Option<&Arc<Router>> {
        match &self.handoff {
            Some((router, _)) if router.is_alive() => Some(router),
            _ => self.router.as_ref().filter(|r| r.is_alive()),
        }
    }

    /// Takes a free seat under `name`.
    fn take(&mut self, name: &str, by: TakenBy) {
        if let Some((number, taken @ None)) = &mut self.seat {
            *taken = Some(by);
            self.player.name = name.to_string();
            self.recorded = false;
            log::info!("argus serve: {name} takes seat {number}");
        }
    }
}

/// The event's remote players.
pub struct Registry {
    slots: Mutex<Vec<Slot>>,
    /// The poll loop that reads every connection, started with the first.
    readers: Mutex<Option<Arc<readers::Readers>>>,
    changed: Condvar,
    /// The names of the event's local engines, which nobody over TCP may take.
    engines: Vec<String>,
    /// How long a listed player may be absent before its games are lost by forfeit
    /// (None: waited for as long as it takes).
    absent: Option<Duration>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Why a connection is refused; said to it in a `fault`'s `c0`.
#[derive(Debug, PartialEq, Eq)]
pub struct Refusal(pub String);

/// The one refusal for a name that is nobody's and for a wrong or missing token: a
/// stranger does not learn which names the event has.
fn not_admitted(name: &str) -> Refusal {
    Refusal(format!("{name}: unknown player or wrong token"))
}

impl Registry {
    /// A registry of `places` (listed players and seats, a seat taken before a resume
    /// under its name), none connected; `engines` are the names of the event's local
    /// engines, which a seat cannot take; a listed player absent past `absent` loses
    /// its games by forfeit until it connects.
    pub fn new(
        places: Vec<Place>,
        engines: Vec<String>,
        absent: Option<Duration>,
    ) -> Arc<Registry> {
        Arc::new(Registry {
            readers: Mutex::new(None),
            slots: Mutex::new(
                places
                    .into_iter()
                    .map(|place| {
                        let (player, seat) = match place {
                            Place::Listed(player) => (player, None),
                            Place::Seat(seat) => (
                                RemotePlayer {
                                    name: seat.name,
                                    token: None,
                                },
                                Some((seat.number, seat.taken)),
                            ),
                        };
                        Slot {
                            player,
                            router: None,
                            busy: false,
                            out: false,
                            handoff: None,
                            seat,
                            recorded: true,
                            gone_since: Some(Instant::now()),
                        }
                    })
                    .collect(),
            ),
            changed: Condvar::new(),
            engines,
            absent,
        })
    }

    /// The name of place `i`: a free seat's is `seat N`.
    pub fn name(&self, i: usize) -> String {
        lock(&self.slots)[i].player.name.clone()
    }

    /// The seats taken since the last call whose names the event's journal does not
    /// hold yet, by place: once the journal has one, [`Registry::recorded`] lets its
    /// player be paired.
    pub fn seats_to_record(&self) -> Vec<(usize, Seat)> {
        lock(&self.slots)
            .iter()
            .enumerate()
            .filter(|(_, s)| !s.recorded)
            .filter_map(|(i, s)| {
                let (number, taken) = s.seat?;
                Some((
                    i,
                    Seat {
                        number,
                        name: s.player.name.clone(),
                        taken,
                    },
                ))
            })
            .collect()
    }

    /// The event's journal holds the name of place `i`: its player may be paired.
    pub fn recorded(&self, i: usize) {
        lock(&self.slots)[i].recorded = true;
        self.changed.notify_all();
    }

    /// Waits until something changes (a player connects, leaves or ends a game), or
    /// `wait` passes.
    pub fn wait(&self, wait: Duration) {
        let slots = lock(&self.slots);
        let _ = self
            .changed
            .wait_timeout(slots, wait)
            .unwrap_or_else(PoisonError::into_inner);
    }

    /// Wakes whoever waits for a change (new games to begin).
    pub fn wake(&self) {
        self.changed.notify_all();
    }

    /// Takes players `indices` for a game if every one is available; returns whether it
    /// did.
    pub fn claim(&self, indices: &[usize]) -> bool {
        let mut slots = lock(&self.slots);
        let free = |s: &Slot| {
            !s.busy && (!s.out && s.recorded && s.is_live() || s.given_up(self.absent).is_some())
        };
        if !indices.iter().all(|&i| free(&slots[i])) {
            return false;
        }
        for &i in indices {
            slots[i].busy = true;
        }
        true
    }

    /// Whether place `i`'s player has been gone too long (a seat's for
    /// [`SEAT_GIVEN_UP`], a listed player's past `--absent-after`): a game it is
    /// claimed for is lost by forfeit.
    pub fn given_up(&self, i: usize) -> Option<GivenUp> {
        lock(&self.slots)[i].given_up(self.absent)
    }

    /// Gives player `i` back after its game.
    pub fn release(&self, i: usize) {
        let mut slots = lock(&self.slots);
        let slot = &mut slots[i];
        slot.busy = false;
        if let Some(router) = &slot.router {
            lock(&router.target).take();
        }
        // A connection handed over too late for the game is the player's now.
        if let Some((router, _)) = slot.handoff.take() {
            slot.router = Some(router);
        }
        self.changed.notify_all();
    }

    /// The line of player `i` for a game: its connection's lines as its router
    /// stamped them, and writes straight to its socket. None when it is not connected.
    ///
    /// # Errors
    ///
    /// The system's error when the connection's writer cannot be had (no descriptor
    /// left).
    pub fn line(&self, i: usize) -> io::Result<Option<Wire>> {
        let slots = lock(&self.slots);
        let Some(router) = slots[i].router.clone() else {
            return Ok(None);
        };
        drop(slots);
        game_wire(&router, None).map(Some)
    }

    /// For a game whose line to player `i` was lost: the player's new connection, once
    /// there is one, its `sign_on` first.
    ///
    /// # Errors
    ///
    /// `NotConnected` while there is none.
    pub fn reconnect(&self, i: usize) -> io::Result<Wire> {
        let mut slots = lock(&self.slots);
        let slot = &mut slots[i];
        let Some((router, sign_on)) = slot.handoff.take() else {
            return Err(io::Error::new(
                io::ErrorKind::NotConnected,
                format!("{} has not connected again", slot.player.name),
            ));
        };
        slot.router = Some(router.clone());
        drop(slots);
        game_wire(&router, Some(sign_on))
    }

    /// Every live connection, for the event's last word.
    pub fn routers(&self) -> Vec<Arc<Router>> {
        lock(&self.slots)
            .iter()
            .filter_map(|s| s.router.clone())
            .filter(|r| r.is_alive())
            .collect()
    }

    /// Waits, `limit` at most, until no connection is live (the poll loop has seen
    /// each closed).
    pub fn wait_closed(&self, limit: Duration) {
        let until = Instant::now() + limit;
        let mut slots = lock(&self.slots);
        while slots.iter().any(Slot::is_live) {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            slots = self
                .changed
                .wait_timeout(slots, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Admits a connection whose first line was a `sign_on` with these `name` (from
    /// `tcsi`) and `token`: finds its place (profile section 9) and starts its router.
    /// A listed player with its token, or a place without a token from the host of its
    /// old connection, replaces a connection that is still open (see the module's
    /// words). Beyond `max_clients` connections of players only a listed player with
    /// its token, or one replacing its own connection, is admitted.
    ///
    /// # Errors
    ///
    /// A [`Refusal`] naming why: an unknown name or a wrong token (the same words), a
    /// name connected already from another host, no free place, too many connections.
    pub fn admit(
        self: &Arc<Registry>,
        stream: TcpStream,
        peer: SocketAddr,
        (name, token): (Option<&str>, Option<&str>),
        sign_on: Vec<u8>,
        max_clients: usize,
    ) -> Result<String, Refusal> {
        let mut slots = lock(&self.slots);
        let full = slots
            .iter()
            .filter(|s| s.live_connection().is_some())
            .count()
            >= max_clients;
        let too_many = || {
            Refusal(format!(
                "argus serve takes {max_clients} connections at most"
            ))
        };
        let free_seat = |slots: &[Slot]| slots.iter().position(Slot::is_free_seat);
        let index = match name {
            Some(name) => match slots.iter().position(|s| s.is_named(name)) {
                Some(index) => index,
                // A name that is nobody's takes a free seat, if there is one.
                None => {
                    if self.engines.iter().any(|e| e == name) {
                        return Err(Refusal(format!(
                            "{name} is the name of an engine of this event: sign on with another"
                        )));
                    }
                    let Some(index) = free_seat(&slots) else {
                        return Err(if slots.iter().any(|s| s.seat.is_some()) {
                            Refusal(format!(
                                "{name} is not a player of this event, and no seat is free"
                            ))
                        } else {
                            not_admitted(name)
                        });
                    };
                    if full {
                        return Err(too_many());
                    }
                    slots[index].take(name, TakenBy::Name);
                    index
                }
            },
            // No tcsi: the first listed place with no token and no live connection;
            // then a seat taken by an unnamed player whose connection is gone (such a
            // player, coming back, gets its seat and game again); then a free seat,
            // named by the connection's address.
            None => {
                let listed = slots
                    .iter()
                    .position(|s| s.seat.is_none() && s.player.token.is_none() && !s.is_live());
                let unnamed = || {
                    slots.iter().position(|s| {
                        matches!(s.seat, Some((_, Some(TakenBy::Address)))) && !s.is_live()
                    })
                };
                match listed.or_else(unnamed).or_else(|| free_seat(&slots)) {
                    Some(_) if full => return Err(too_many()),
                    Some(index) => {
                        slots[index].take(&peer.to_string(), TakenBy::Address);
                        index
                    }
                    None => {
                        return Err(Refusal(
                            "no free place for a player without a name (tcsi)".into(),
                        ));
                    }
                }
            }
        };
        let slot = &mut slots[index];
        let verified = match &slot.player.token {
            Some(expected) if token.is_some_and(|t| expected.matches(t)) => true,
            Some(_) => return Err(not_admitted(&slot.player.name)),
            None => false,
        };
        // The connection this one replaces: the player's own, still open.
        let old = match slot.live_connection() {
            Some(old) if verified || (name.is_some() && old.peer.ip() == peer.ip()) => {
                Some(Arc::clone(old))
            }
            Some(old) => {
                return Err(Refusal(format!(
                    "{} is connected already, from another host ({}): {}",
                    slot.player.name,
                    old.peer.ip(),
                    crate::client::TRY_AGAIN
                )));
            }
            None if full && !verified => return Err(too_many()),
            None => None,
        };
        let readers = self
            .readers()
            .map_err(|e| Refusal(format!("cannot wait for the connection's lines: {e}")))?;
        let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
        let router = Arc::new(Router {
            stream,
            peer,
            target: Mutex::new(None),
            alive: AtomicBool::new(true),
            sent: Arc::default(),
        });
        let name = slot.player.name.clone();
        slot.out = false;
        slot.gone_since = None;
        if let Some(old) = &old {
            log::warn!(
                "argus serve: {name} signed on again from {peer}: its connection from {} is closed",
                old.peer
            );
            old.replace(&format!(
                "{name} {} ({peer}): this one is closed",
                crate::client::REPLACED
            ));
        }
        if slot.busy {
            // Its game lost the line (or loses it now, its connection replaced): the
            // game takes the new connection. One handed over before and not yet taken
            // is superseded.
            if let Some((earlier, _)) = slot.handoff.replace((router.clone(), sign_on)) {
                earlier.close();
            }
        } else {
            slot.router = Some(router.clone());
        }
        drop(slots);
        readers.add(readers::Conn::new(router, index));
        self.changed.notify_all();
        Ok(name)
    }

    /// The poll loop that reads the connections, started at the first call.
    fn readers(self: &Arc<Self>) -> io::Result<Arc<readers::Readers>> {
        let mut readers = lock(&self.readers);
        if let Some(readers) = readers.as_ref() {
            return Ok(Arc::clone(readers));
        }
        let started = Arc::new(readers::Readers::start(Arc::downgrade(self))?);
        *readers = Some(Arc::clone(&started));
        Ok(started)
    }

    /// The end of a connection that the poll loop read (`why`): its game's line reads
    /// its end, and its place is free for the next.
    fn closed(&self, router: &Router, index: usize, why: &str) {
        // Under the places' lock, so that whoever waits for the connections to close
        // ([`Registry::wait_closed`]) sees this one closed only once it is said.
        let mut slots = lock(&self.slots);
        router.alive.store(false, Ordering::SeqCst);
        // The game's line reads its end, and why.
        if let Some(feed) = lock(&router.target).take() {
            feed.end(format!("the connection closed: {why}"));
        }
        slots[index].gone_since = Some(Instant::now());
        // Said on standard output, as the sign-on was (a connection replaced by its
        // player's new one is not the player leaving).
        let name = &slots[index].player.name;
        if slots[index].live_connection().is_some() {
            println!(
                "argus serve: {name}: its old connection from {} closed: {why}",
                router.peer
            );
        } else {
            println!(
                "argus serve: {name} left: its connection from {} closed: {why}",
                router.peer
            );
        }
        drop(slots);
        self.changed.notify_all();
    }

    /// A line from a player between its games.
    fn between_games(&self, index: usize, line: &[u8]) {
        let text = String::from_utf8_lossy(line);
        let mut slots = lock(&self.slots);
        let slot = &mut slots[index];
        if text.contains("refreq sign_off") {
            slot.out = true;
            println!(
                "argus serve: {} signed off: out of the schedule until it signs on again",
                slot.player.name
            );
        } else if text.contains("refreq sign_on") {
            if slot.out {
                println!("argus serve: {} signed on again", slot.player.name);
            }
            slot.out = false;
        } else {
            log::debug!("{} between games: {text}", slot.player.name);
        }
        self.changed.notify_all();
    }
}

/// A game's line over `router`'s connection: the lines its router stamps (after
/// `first`, a line to read before anything else, stamped now), and writes to the
/// socket.
fn game_wire(router: &Arc<Router>, first: Option<Vec<u8>>) -> io::Result<Wire> {
    let (feed, lines) = stamped::channel();
    if let Some(bytes) = first {
        let _ = feed.deliver(LinkEvent::Line {
            at: Instant::now(),
            bytes,
        });
    }
    // A closed connection drops the feed: the game finds its line lost at once.
    if router.is_alive() {
        *lock(&router.target) = Some(feed);
    }
    let writer = Counting {
        router: Arc::clone(router),
    };
    // A flag waits a moment for bytes the poll loop, busy with other connections, has
    // not read yet (docs/protocol.md).
    let unread = {
        let router = Arc::clone(router);
        Arc::new(move || crate::transport::tcp::has_unread(&router.stream))
    };
    Ok(Wire::Stamped(Stamped {
        lines: lines.with_unread(unread),
        writer: Box::new(writer),
    }))
}

/// A game's writer to a connection, which counts the lines it writes (the flood rule
/// allows a player as many lines as it is sent). It writes to the router's own socket,
/// so that a connection costs one descriptor, not one more for each game.
struct Counting {
    router: Arc<Router>,
}

impl io::Write for Counting {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = (&self.router.stream).write(buf).map_err(|e| {
            if cfg!(unix) && e.kind() == io::ErrorKind::TimedOut {
                // The connection's end, not a write's timeout (which the writer would
                // try again): say what it means.
                io::Error::new(io::ErrorKind::ConnectionAborted, readers::failure(&e))
            } else {
                e
            }
        })?;
        let lines = buf[..n].iter().filter(|&&b| b == b'\n').count();
        self.router.sent.fetch_add(lines, Ordering::Relaxed);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        (&self.router.stream).flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_player_is_a_name_and_maybe_a_token() {
        let ann = RemotePlayer::parse("Ann:s3cret").unwrap();
        assert_eq!(ann.name, "Ann");
        assert!(ann.token.as_ref().is_some_and(|t| t.matches("s3cret")));
        assert!(!ann.token.as_ref().is_some_and(|t| t.matches("s3cre")));
        // What the event's journal holds of it: no token.
        let json = serde_json::to_string(&ann).unwrap();
        assert!(!json.contains("s3cret"), "{json}");
        let back: RemotePlayer = serde_json::from_str(&json).unwrap();
        assert_eq!(back, ann);
        assert_eq!(RemotePlayer::parse("Bob").unwrap().token, None);
        assert!(RemotePlayer::parse(":x").is_err());
    }

    #[test]
    fn tokens_match_only_whole_and_refusals_do_not_tell_names_from_tokens() {
        let hash = crate::secret::TokenHash::of("s3cret");
        assert!(hash.matches("s3cret"));
        for given in ["", "s3cre", "s3cret!", "S3cret"] {
            assert!(!hash.matches(given), "{given:?}");
        }
        assert_eq!(not_admitted("Eve").0, "Eve: unknown player or wrong token");
    }
}
