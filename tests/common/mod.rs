//! Helpers for the integration tests: a pty pair per player, scripted protocol clients
//! that talk through the masters, and the real `argus` binary on the slaves.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use argus::epd::Record;
use argus::transport::lines::{LineSplitter, Piece};
use serialport::{SerialPort, TTYPort};
use shakmaty::fen::Epd;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

/// The standard start position as EPD data fields.
pub const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

/// One scripted player: the master end of a pty pair whose slave the referee opened.
pub struct Peer {
    pub master: TTYPort,
    /// Held open so that the master never sees a hang-up before the referee opens it.
    pub slave: Option<TTYPort>,
    pub path: String,
    splitter: LineSplitter,
    queue: std::collections::VecDeque<(Instant, String)>,
    /// Every line received, in order.
    pub log: Vec<String>,
    pub eol: &'static str,
}

impl Peer {
    pub fn new() -> Peer {
        let (mut master, slave) = TTYPort::pair().expect("a pty pair");
        master.set_timeout(Duration::from_millis(20)).unwrap();
        let path = slave.name().expect("the slave has a path");
        Peer {
            master,
            slave: Some(slave),
            path,
            splitter: LineSplitter::new(),
            queue: Default::default(),
            log: Vec::new(),
            eol: "\n",
        }
    }

    /// A player on the device at `device` (one end of a socat null modem, say) whose
    /// other end, `referee_path`, the referee opens.
    pub fn on_device(device: &Path, referee_path: &Path) -> Peer {
        let mut port = serialport::new(device.to_string_lossy(), 9600)
            .open_native()
            .unwrap_or_else(|e| panic!("open {}: {e}", device.display()));
        port.set_timeout(Duration::from_millis(20)).unwrap();
        Peer {
            master: port,
            slave: None,
            path: referee_path.to_string_lossy().into_owned(),
            splitter: LineSplitter::new(),
            queue: Default::default(),
            log: Vec::new(),
            eol: "\n",
        }
    }

    /// Sends raw bytes.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.master.write_all(bytes).expect("write to the pty");
        self.master.flush().unwrap();
    }

    /// Sends one line with this peer's end of line.
    pub fn send(&mut self, line: &str) {
        let eol = self.eol;
        self.send_raw(format!("{line}{eol}").as_bytes());
    }

    fn fill(&mut self, deadline: Instant) -> bool {
        let mut buf = [0u8; 4096];
        while self.queue.is_empty() {
            if Instant::now() > deadline {
                return false;
            }
            match self.master.read(&mut buf) {
                Ok(n) => {
                    let at = Instant::now();
                    let queue = &mut self.queue;
                    self.splitter.feed(&buf[..n], |p| {
                        if let Piece::Line(l) = p {
                            queue.push_back((at, String::from_utf8(l).expect("ascii from argus")));
                        }
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => panic!("reading {}: {e}", self.path),
            }
        }
        true
    }

    /// The next line from the referee, with the instant it arrived.
    pub fn next_line(&mut self, timeout: Duration) -> Option<(Instant, String)> {
        if !self.fill(Instant::now() + timeout) {
            return None;
        }
        let (at, line) = self.queue.pop_front()?;
        self.log.push(line.clone());
        Some((at, line))
    }

    /// Puts `rec` back, to be read again next.
    pub fn unread(&mut self, rec: &Record) {
        self.log.pop();
        self.queue.push_front((Instant::now(), rec.to_string()));
    }

    /// The next record, parsed.
    pub fn next(&mut self, timeout: Duration) -> Option<Record> {
        let (_, line) = self.next_line(timeout)?;
        Some(
            Record::from_ascii(line.as_bytes())
                .unwrap_or_else(|e| panic!("argus sent {line:?}: {e}")),
        )
    }

    /// The next record, which must carry `refcom`.
    pub fn expect(&mut self, refcom: &str) -> Record {
        let rec = self.next(Duration::from_secs(10)).unwrap_or_else(|| {
            panic!("{}: no {refcom} within 10 s; got {:?}", self.path, self.log)
        });
        assert_eq!(
            rec.refcom(),
            Some(refcom),
            "{}: expected {refcom}, got {rec}",
            self.path
        );
        rec
    }

    /// Like [`Peer::expect`], also returning when the line arrived.
    pub fn expect_at(&mut self, refcom: &str) -> (Instant, Record) {
        let (at, line) = self
            .next_line(Duration::from_secs(10))
            .unwrap_or_else(|| panic!("{}: no {refcom} within 10 s", self.path));
        let rec = Record::from_ascii(line.as_bytes()).unwrap();
        assert_eq!(rec.refcom(), Some(refcom), "expected {refcom}, got {rec}");
        (at, rec)
    }

    /// Asserts that nothing arrives for `wait`.
    pub fn expect_silence(&mut self, wait: Duration) {
        if let Some((_, line)) = self.next_line(wait) {
            panic!("{}: expected silence, got {line}", self.path);
        }
    }

    pub fn sign_on(&mut self, name: &str) {
        self.send(&format!(
            "{START} refreq sign_on; tcsi \"{}\" \"{name}\";",
            self.path
        ));
    }
}

/// The position a `respond` asks to be played from: its position with its `sm` applied.
pub fn position_after(respond: &Record) -> Chess {
    let mut pos: Chess = respond
        .setup()
        .position(CastlingMode::Standard)
        .expect("a legal position from argus");
    if let Some(sm) = respond.operands("sm").and_then(|o| o.first()) {
        let m = argus::epd::resolve_move(&pos, sm.as_move_text().unwrap()).unwrap();
        pos.play_unchecked(m);
    }
    pos
}

/// The EPD data fields of `pos`.
pub fn epd(pos: &Chess) -> String {
    Epd::from_position(pos, EnPassantMode::Legal).to_string()
}

/// A reply to `respond` with `ops` (e.g. `"sm e4;"`).
pub fn reply(respond: &Record, ops: &str) -> String {
    format!("{} refreq reply; {ops}", epd(&position_after(respond)))
}

/// The referee under test.
pub struct Referee {
    pub child: Child,
    pub dir: tempfile::TempDir,
    pub pgn: PathBuf,
    pub journal: PathBuf,
    /// The lines of the child's standard output, read as they come (by a thread), once
    /// a test has waited for one; with the child's id they were read from.
    tap: Option<(u32, std::sync::mpsc::Receiver<String>)>,
    /// What was read from the tap so far.
    seen: String,
}

impl Referee {
    /// Starts `argus serial` on the two peers' slaves with `extra` arguments, and zero
    /// delays unless `extra` sets them.
    pub fn start(a: &Peer, b: &Peer, extra: &[&str]) -> Referee {
        Referee::spawn(a, b, extra, false)
    }

    /// Like [`Referee::start`], with a supervisor: no `--unattended`, and standard input
    /// piped for console commands ([`Referee::type_command`]).
    pub fn start_attended(a: &Peer, b: &Peer, extra: &[&str]) -> Referee {
        Referee::spawn(a, b, extra, true)
    }

    /// Types a command at the referee's console.
    pub fn type_command(&mut self, command: &str) {
        let stdin = self.child.stdin.as_mut().expect("an attended referee");
        writeln!(stdin, "{command}").unwrap();
        stdin.flush().unwrap();
    }

    fn spawn(a: &Peer, b: &Peer, extra: &[&str], attended: bool) -> Referee {
        let dir = tempfile::tempdir().unwrap();
        let pgn = dir.path().join("games.pgn");
        let journal = dir.path().join("session.jsonl");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_argus"));
        cmd.arg("serial")
            .arg(&a.path)
            .arg(&b.path)
            .args(
                ["--reset-delay", "--conclude-delay"]
                    .into_iter()
                    .filter(|flag| !extra.contains(flag))
                    .flat_map(|flag| [flag, "0"]),
            )
            .arg("--pgn")
            .arg(&pgn)
            .arg("--journal")
            .arg(&journal)
            .args(extra);
        if attended {
            cmd.stdin(Stdio::piped());
        } else {
            cmd.arg("--unattended").stdin(Stdio::null());
        }
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        // The referee clears what waits in its ports when it opens them: the players
        // sign on once it has.
        Referee::adopt(cmd.spawn().expect("argus runs"), dir, pgn, journal)
    }

    /// A referee started some other way (from an event file, say), writing in `dir`;
    /// returns once it has opened its ports.
    pub fn adopt(child: Child, dir: tempfile::TempDir, pgn: PathBuf, journal: PathBuf) -> Referee {
        let mut referee = Referee {
            child,
            dir,
            pgn,
            journal,
            tap: None,
            seen: String::new(),
        };
        referee.wait_for("argus: refereeing", Duration::from_secs(10));
        referee
    }

    /// Reads the referee's standard output until a line containing `needle`, and
    /// returns that line.
    pub fn wait_for(&mut self, needle: &str, timeout: Duration) -> String {
        let id = self.child.id();
        if self.tap.as_ref().is_none_or(|(tapped, _)| *tapped != id) {
            let out = self.child.stdout.take().expect("the referee's output");
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                use std::io::BufRead;
                for line in std::io::BufReader::new(out).lines() {
                    let Ok(line) = line else { return };
                    if tx.send(line).is_err() {
                        return;
                    }
                }
            });
            self.tap = Some((id, rx));
            self.seen.clear();
        }
        let rx = &self.tap.as_ref().expect("just set").1;
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push_str(&line);
                    self.seen.push('\n');
                    if line.contains(needle) {
                        return line;
                    }
                }
                Err(_) => {
                    let _ = self.child.kill();
                    let mut err = String::new();
                    let _ = self.child.stderr.take().unwrap().read_to_string(&mut err);
                    panic!(
                        "argus did not print {needle:?} within {timeout:?}; it printed {:?}; stderr: {err}",
                        self.seen
                    );
                }
            }
        }
    }

    /// Kills this referee with SIGKILL, as a crash would, and starts a new one that
    /// takes over from its journal (`argus serial --resume`).
    pub fn crash_and_resume(&mut self, outage: Duration) {
        self.crash(outage);
        self.resume();
    }

    /// Kills the referee and waits `outage`.
    pub fn crash(&mut self, outage: Duration) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        std::thread::sleep(outage);
    }

    /// Starts a new referee that goes on from this one's journal (`argus serial
    /// --resume`), once this one has exited.
    pub fn resume(&mut self) {
        self.child = Command::new(env!("CARGO_BIN_EXE_argus"))
            .arg("serial")
            .arg("--resume")
            .arg(&self.journal)
            .arg("--unattended")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("argus runs");
    }

    /// Waits for the referee to exit and returns its status code.
    pub fn wait(&mut self, timeout: Duration) -> i32 {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code().unwrap_or(-1);
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let mut err = String::new();
                let _ = self.child.stderr.take().unwrap().read_to_string(&mut err);
                panic!("argus did not exit within {timeout:?}; stderr: {err}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The PGN file's text.
    pub fn pgn_text(&self) -> String {
        std::fs::read_to_string(&self.pgn).unwrap_or_default()
    }

    /// Everything the referee printed on its standard output, once it has closed it.
    pub fn stdout(&mut self) -> String {
        let id = self.child.id();
        if let Some((tapped, rx)) = self.tap.take()
            && tapped == id
        {
            let mut out = std::mem::take(&mut self.seen);
            for line in rx {
                out.push_str(&line);
                out.push('\n');
            }
            return out;
        }
        let mut out = String::new();
        let _ = self.child.stdout.take().unwrap().read_to_string(&mut out);
        out
    }
}

impl Drop for Referee {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits until `argus serial` (spawned with its standard output piped) has opened its
/// ports, which clears what waits in them: scripted players sign on after that. The
/// rest of its output is read and dropped.
pub fn await_refereeing(child: &mut Child) {
    use std::io::BufRead;
    let out = child.stdout.take().expect("the referee's output piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut said = false;
        for line in std::io::BufReader::new(out).lines() {
            let Ok(line) = line else { return };
            if !said && line.contains("argus: refereeing") {
                said = true;
                let _ = tx.send(());
            }
        }
    });
    rx.recv_timeout(Duration::from_secs(10))
        .expect("argus serial opened its ports");
}

/// A PGN tag's value.
pub fn tag(pgn: &str, name: &str) -> Option<String> {
    let prefix = format!("[{name} \"");
    pgn.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .map(|rest| rest.trim_end_matches("\"]").to_string())
}

/// A match of two scripted peers through a running referee.
pub struct Match {
    pub a: Peer,
    pub b: Peer,
    pub referee: Referee,
}

impl Match {
    /// Starts the referee, signs both peers on, and consumes reset and inform on both.
    /// Returns the match with White's first respond.
    pub fn start(extra: &[&str]) -> (Match, Record) {
        Match::start_on(extra, true)
    }

    /// Like [`Match::start`]; the first respond goes to White (A) when `white_first`,
    /// else to Black (B).
    pub fn start_on(extra: &[&str], white_first: bool) -> (Match, Record) {
        let mut a = Peer::new();
        let mut b = Peer::new();
        let referee = Referee::start(&a, &b, extra);
        a.sign_on("Alpha");
        b.sign_on("Beta");
        let mut m = Match { a, b, referee };
        m.begin_game();
        let respond = m.side(white_first).expect("respond");
        (m, respond)
    }

    /// Reads `reset` and `inform` on both sides; returns A's inform.
    pub fn begin_game(&mut self) -> Record {
        self.a.expect("reset");
        self.b.expect("reset");
        let inform = self.a.expect("inform");
        self.b.expect("inform");
        inform
    }

    /// The peer of a colour in game 1 (A is White).
    pub fn side(&mut self, white: bool) -> &mut Peer {
        if white { &mut self.a } else { &mut self.b }
    }

    /// Plays `moves` (SAN) alternately from `respond`, White first when `respond` went to
    /// A. Returns the last respond received (to the side to move after the moves), or
    /// `None` if the game ended.
    pub fn play(&mut self, mut respond: Record, mut white: bool, moves: &[&str]) -> Option<Record> {
        for (i, mv) in moves.iter().enumerate() {
            let line = reply(&respond, &format!("sm {mv};"));
            self.side(white).send(&line);
            white = !white;
            let next = self
                .side(white)
                .next(Duration::from_secs(10))
                .expect("an answer");
            if next.refcom() != Some("respond") {
                assert_eq!(i + 1, moves.len(), "the game ended early with {next}");
                self.side(white).unread(&next);
                return None;
            }
            respond = next;
        }
        Some(respond)
    }

    /// Reads the end of game on both sides (inform with Result, conclude), then the
    /// disconnect, waits for exit, and returns the PGN.
    pub fn finish(&mut self, expect_result: &str) -> String {
        for peer in [&mut self.a, &mut self.b] {
            let mut rec = peer.expect_any(&["inform", "fault"]);
            while rec.refcom() == Some("fault") {
                rec = peer.expect_any(&["inform"]);
            }
            let result = result_of(&rec);
            assert_eq!(result.as_deref(), Some(expect_result), "inform: {rec}");
            peer.expect("conclude");
            peer.expect("disconnect");
        }
        assert_eq!(self.referee.wait(Duration::from_secs(10)), 0);
        self.referee.pgn_text()
    }
}

impl Peer {
    /// The next record, whose refcom must be one of `refcoms`; responds left over from
    /// the game are skipped.
    pub fn expect_any(&mut self, refcoms: &[&str]) -> Record {
        loop {
            let rec = self.next(Duration::from_secs(10)).unwrap_or_else(|| {
                panic!("{}: nothing within 10 s; got {:?}", self.path, self.log)
            });
            let refcom = rec.refcom().unwrap_or_default().to_string();
            if refcoms.contains(&refcom.as_str()) {
                return rec;
            }
            assert_eq!(refcom, "respond", "unexpected {rec}");
        }
    }
}

/// The Result tag carried by an inform's `ptp`.
pub fn result_of(inform: &Record) -> Option<String> {
    let ops = inform.operands("ptp")?;
    ops.chunks(2).find_map(|pair| {
        (pair[0].as_identifier() == Some("Result")).then(|| pair[1].as_str().unwrap().to_string())
    })
}

/// Writes an openings file with `lines` in a temporary directory.
pub fn openings(dir: &Path, lines: &[&str]) -> PathBuf {
    let path = dir.join("openings.epd");
    std::fs::write(&path, lines.join("\n")).unwrap();
    path
}

/// Reads `pgn` with pgn-reader (an outside PGN reader) and replays every game's moves
/// with shakmaty from its FEN or the standard start: every move must be legal and each
/// game must carry a result. Checks there are `games` games.
pub fn check_pgn_with_pgn_reader(pgn: &str, games: usize) {
    use pgn_reader::{RawTag, Reader, SanPlus, Skip, Visitor};
    use std::ops::ControlFlow;

    struct Check {
        games: usize,
    }
    impl Visitor for Check {
        type Tags = Option<Chess>;
        type Movetext = Chess;
        type Output = ();
        fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
            ControlFlow::Continue(None)
        }
        fn tag(
            &mut self,
            tags: &mut Self::Tags,
            name: &[u8],
            value: RawTag<'_>,
        ) -> ControlFlow<Self::Output> {
            if name == b"FEN" {
                let fen: shakmaty::fen::Fen = value.decode_utf8().unwrap().parse().unwrap();
                *tags = Some(fen.into_position(CastlingMode::Standard).unwrap());
            }
            ControlFlow::Continue(())
        }
        fn begin_movetext(
            &mut self,
            tags: Self::Tags,
        ) -> ControlFlow<Self::Output, Self::Movetext> {
            ControlFlow::Continue(tags.unwrap_or_default())
        }
        fn san(&mut self, pos: &mut Self::Movetext, san: SanPlus) -> ControlFlow<Self::Output> {
            let m = san.san.to_move(pos).expect("a legal move in the PGN");
            pos.play_unchecked(m);
            ControlFlow::Continue(())
        }
        fn begin_variation(&mut self, _: &mut Self::Movetext) -> ControlFlow<Self::Output, Skip> {
            ControlFlow::Continue(Skip(true))
        }
        fn end_game(&mut self, _: Self::Movetext) -> Self::Output {
            self.games += 1;
        }
    }
    let mut reader = Reader::new(std::io::Cursor::new(pgn.as_bytes()));
    let mut check = Check { games: 0 };
    while reader
        .read_game(&mut check)
        .expect("readable PGN")
        .is_some()
    {}
    assert_eq!(check.games, games);
}

/// A child process killed when dropped.
pub struct Killer(pub std::process::Child);

impl Drop for Killer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Killer {
    /// Waits for the process to exit, failing the test with `what` after `timeout`.
    pub fn wait_within(&mut self, timeout: Duration, what: &str) -> std::process::ExitStatus {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.0.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "{what}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// The PGN `argus replay` makes of the journal at `journal` (written to `out`).
pub fn replayed_pgn(journal: &Path, out: &Path) -> String {
    let replay = Command::new(env!("CARGO_BIN_EXE_argus"))
        .arg("replay")
        .arg(journal)
        .arg("--pgn")
        .arg(out)
        .status()
        .unwrap();
    assert!(replay.success());
    std::fs::read_to_string(out).unwrap()
}

/// A socat null modem: two linked ptys at `one` and `two`, as the two ends of a cable.
pub fn null_modem(one: &Path, two: &Path) -> Killer {
    let child = Command::new("socat")
        .arg(format!("pty,raw,echo=0,link={}", one.display()))
        .arg(format!("pty,raw,echo=0,link={}", two.display()))
        .stderr(Stdio::null())
        .spawn()
        .expect("socat is installed");
    let deadline = Instant::now() + Duration::from_secs(5);
    while !(one.exists() && two.exists()) {
        assert!(Instant::now() < deadline, "socat made no ptys");
        std::thread::sleep(Duration::from_millis(20));
    }
    Killer(child)
}

/// A simulated line between `<dir>/<name>-ref` (the referee's end) and
/// `<dir>/<name>-player`: two socat null modems with `argus wire` pacing (and, with a
/// noise rate, corrupting) the bytes between them.
pub fn simulated_line(dir: &Path, name: &str, baud: &str, noise: &str, seed: &str) -> Vec<Killer> {
    let p = |suffix: &str| dir.join(format!("{name}-{suffix}"));
    let first = null_modem(&p("ref"), &p("wire-1"));
    let second = null_modem(&p("wire-2"), &p("player"));
    let wire = Killer(
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .arg("wire")
            .arg(p("wire-1"))
            .arg(p("wire-2"))
            .args(["--baud", baud, "--noise", noise, "--seed", seed])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    std::thread::sleep(Duration::from_millis(200));
    vec![first, second, wire]
}

/// A fake UCI engine (a shell script in `dir`) that writes every line it gets to
/// `<dir>/<name>.log`, answers the handshake, and on `go` runs `on_go` (a shell command:
/// `echo "bestmove e2e4"` to move at once, `:` to search until it is stopped). On
/// `stop` it runs `on_stop`, on `quit` `on_quit` (`exit 0`, or `sleep 600` for an engine
/// that never quits). Returns the command line for `--engine uci:...` and the log's path.
pub fn fake_uci(
    dir: &Path,
    name: &str,
    on_go: &str,
    on_stop: &str,
    on_quit: &str,
) -> (String, PathBuf) {
    let log = dir.join(format!("{name}.log"));
    let script = dir.join(format!("{name}.sh"));
    std::fs::write(
        &script,
        format!(
            "while IFS= read -r line; do\n\
             printf '%s\\n' \"$line\" >> '{log}'\n\
             case \"$line\" in\n\
             uci) echo 'id name Fake {name}'; echo uciok;;\n\
             isready) echo readyok;;\n\
             go*) {on_go};;\n\
             stop) {on_stop};;\n\
             quit) {on_quit};;\n\
             esac\n\
             done\n",
            log = log.display()
        ),
    )
    .unwrap();
    (format!("sh {}", script.display()), log)
}

/// The processes whose parent is `pid`, as (pid, command line).
#[cfg(target_os = "linux")]
pub fn children_of(pid: u32) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Some(stat) = proc_stat(child) else {
            continue;
        };
        if stat.ppid == pid {
            let cmdline = std::fs::read(format!("/proc/{child}/cmdline"))
                .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
                .unwrap_or_default();
            found.push((child, cmdline));
        }
    }
    found
}

/// What `/proc/PID/stat` says of a process.
#[cfg(target_os = "linux")]
pub struct ProcStat {
    pub state: char,
    pub ppid: u32,
    pub pgrp: u32,
}

/// The state, parent and process group of `pid`, when it exists.
#[cfg(target_os = "linux")]
pub fn proc_stat(pid: u32) -> Option<ProcStat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name is in parentheses and may hold blanks.
    let rest = &text[text.rfind(')')? + 2..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some(ProcStat { state, ppid, pgrp })
}

/// The live (not zombie) processes of the process group `pgrp`.
#[cfg(target_os = "linux")]
pub fn live_group(pgrp: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<u32>().ok())
        .filter(|&pid| proc_stat(pid).is_some_and(|s| s.pgrp == pgrp && s.state != 'Z'))
        .collect()
}

/// Process groups killed (SIGKILL) when dropped: engines a failing test would otherwise
/// leave running.
#[cfg(unix)]
pub struct GroupKiller(pub Vec<u32>);

#[cfg(unix)]
impl Drop for GroupKiller {
    fn drop(&mut self) {
        for &pgrp in &self.0 {
            if let Ok(pgrp) = libc::pid_t::try_from(pgrp) {
                // SAFETY: kill has no memory-safety preconditions.
                unsafe {
                    libc::kill(-pgrp, libc::SIGKILL);
                }
            }
        }
    }
}
