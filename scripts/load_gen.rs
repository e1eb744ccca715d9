//! A load generator for `argus serve` (`scripts/serve-load.sh`): many players in one
//! process, on one poll loop (mio), so that the load itself is not the bottleneck (a
//! process or a Python client per player was, from 500 players up). Each player signs
//! on as `PREFIXi` and answers every `respond` at once with a legal move chosen by a
//! seeded generator, playing the protocol of docs/protocol.md; it leaves at the
//! event's `disconnect`. A connection refused or closed before that is tried again a
//! second later.
//!
//! ```text
//! cargo run --release --example load-gen -- 127.0.0.1:5150 1000 [PREFIX]
//! ```
//!
//! At the end it prints one line: players, replies sent, connections made, and those
//! that never got their `disconnect`.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use mio::net::TcpStream;
use mio::{Events, Interest, Poll, Token};
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
/// How long a player whose connection was refused or lost waits to connect again.
const AGAIN: Duration = Duration::from_secs(1);
/// How long the generator runs at most.
const LIMIT: Duration = Duration::from_secs(3600);

struct Player {
    name: String,
    stream: Option<TcpStream>,
    inbox: Vec<u8>,
    outbox: Vec<u8>,
    /// When to connect again, while not connected.
    again: Option<Instant>,
    done: bool,
    rng: u64,
}

impl Player {
    fn random(&mut self, n: usize) -> usize {
        // xorshift64*
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        (self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

/// The reply to a `respond` record: the position with the opponent's `sm` applied, and
/// a legal move from it. None when the record cannot be read or no move is legal.
fn reply(record: &str, player: &mut Player) -> Option<String> {
    let mut fields = record.splitn(5, ' ');
    let fen: Vec<&str> = fields.by_ref().take(4).collect();
    let ops = fields.next().unwrap_or("");
    let fen = format!("{} 0 1", fen.join(" "));
    let mut pos: Chess = Fen::from_ascii(fen.as_bytes())
        .ok()?
        .into_position(CastlingMode::Standard)
        .ok()?;
    let sm = ops
        .split(';')
        .map(str::trim)
        .find_map(|op| op.strip_prefix("sm "));
    if let Some(sm) = sm {
        let m = San::from_ascii(sm.trim().as_bytes())
            .ok()?
            .to_move(&pos)
            .ok()?;
        pos.play_unchecked(m);
    }
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return None;
    }
    let m = moves[player.random(moves.len())];
    let san = San::from_move(&pos, m);
    let epd = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
    let epd: Vec<&str> = epd.split(' ').take(4).collect();
    Some(format!("{} refreq reply; sm {san};\n", epd.join(" ")))
}

fn connect(poll: &Poll, addr: SocketAddr, i: usize, p: &mut Player) -> io::Result<()> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_nodelay(true)?;
    poll.registry().register(
        &mut stream,
        Token(i),
        Interest::READABLE | Interest::WRITABLE,
    )?;
    p.stream = Some(stream);
    p.inbox.clear();
    p.outbox = format!(
        "{START} refreq sign_on; tcsi \"load-gen\" \"{}\";\n",
        p.name
    )
    .into_bytes();
    p.again = None;
    Ok(())
}

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: load-gen ADDR PLAYERS [PREFIX]");
        std::process::exit(2);
    }
    let addr: SocketAddr = args[1].parse().expect("ADDR: host:port");
    let n: usize = args[2].parse().expect("PLAYERS: a number");
    let prefix = args.get(3).map_or("P", String::as_str);
    let mut poll = Poll::new()?;
    let mut events = Events::with_capacity(1024);
    let start = Instant::now();
    let mut players: Vec<Player> = (1..=n)
        .map(|i| Player {
            name: format!("{prefix}{i}"),
            stream: None,
            inbox: Vec::new(),
            outbox: Vec::new(),
            again: Some(start),
            done: false,
            rng: 0x9E37_79B9_7F4A_7C15 ^ (i as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9),
        })
        .collect();
    let (mut replies, mut connections) = (0u64, 0u64);
    let mut lost: HashMap<usize, Instant> = HashMap::new();
    while players.iter().any(|p| !p.done) && start.elapsed() < LIMIT {
        let now = Instant::now();
        for (i, p) in players.iter_mut().enumerate() {
            if !p.done && p.stream.is_none() && p.again.is_some_and(|t| t <= now) {
                match connect(&poll, addr, i, p) {
                    Ok(()) => connections += 1,
                    Err(_) => p.again = Some(now + AGAIN),
                }
            }
        }
        poll.poll(&mut events, Some(Duration::from_millis(100)))?;
        for event in &events {
            let i = event.token().0;
            let p = &mut players[i];
            let Some(stream) = p.stream.as_mut() else {
                continue;
            };
            let mut closed = false;
            if event.is_readable() {
                let mut buf = [0u8; 16384];
                loop {
                    match stream.read(&mut buf) {
                        Ok(0) => {
                            closed = true;
                            break;
                        }
                        Ok(k) => p.inbox.extend_from_slice(&buf[..k]),
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(_) => {
                            closed = true;
                            break;
                        }
                    }
                }
                while let Some(end) = p.inbox.iter().position(|&b| b == b'\n') {
                    let line: Vec<u8> = p.inbox.drain(..=end).collect();
                    let line = String::from_utf8_lossy(&line).trim_end().to_string();
                    if line.contains("refcom respond") {
                        if let Some(text) = reply(&line, p) {
                            p.outbox.extend_from_slice(text.as_bytes());
                            replies += 1;
                        }
                    } else if line.contains("refcom disconnect") {
                        p.done = true;
                        closed = true;
                    }
                }
            }
            let stream = p.stream.as_mut().expect("connected");
            while !p.outbox.is_empty() && !closed {
                match stream.write(&p.outbox) {
                    Ok(k) => {
                        p.outbox.drain(..k);
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => closed = true,
                }
            }
            if closed {
                if let Some(mut s) = p.stream.take() {
                    let _ = poll.registry().deregister(&mut s);
                }
                if !p.done {
                    p.again = Some(Instant::now() + AGAIN);
                    lost.insert(i, Instant::now());
                }
            }
        }
    }
    let unfinished = players.iter().filter(|p| !p.done).count();
    println!(
        "load-gen: {n} players, {replies} replies, {connections} connections ({} lost and made again), {unfinished} without their disconnect, {:.1} s",
        lost.len(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
