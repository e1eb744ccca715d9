//! The crash window: a referee killed after it journaled an input and before it wrote
//! what that input produced (the lines sent, `game_over`, the PGN append). A resumed
//! referee must finish everything the dead one owed: every game the journal's inputs
//! produce reaches the PGN exactly once, the lines owed to the players are covered by
//! the resynchronisation, and the replay of the resumed journal reproduces the PGN.
//!
//! One real session (the binary over pty pairs, scripted players) ends its games in
//! every way an input can end one: mate, resignation, an illegal move, a flag fall (a
//! timer), a draw by agreement. Every input of its journal is then taken as the moment
//! of the crash.

#![cfg(unix)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use argus::core::{Input, Output, Port};
use argus::epd::Record;
use argus::mediator::journal::{self, Event, Journal};
use argus::mediator::{self, Records, Watcher};
use common::*;

struct Quiet;
impl Watcher for Quiet {
    fn notice(&mut self, _: &argus::core::Notice) {}
}

/// The peer that plays White in game `n`.
fn white(m: &mut Match, n: u32) -> &mut Peer {
    if n % 2 == 1 { &mut m.a } else { &mut m.b }
}

fn black(m: &mut Match, n: u32) -> &mut Peer {
    if n % 2 == 1 { &mut m.b } else { &mut m.a }
}

/// Reads the end of a game on both sides: inform with `result`, then conclude.
fn end_of_game(m: &mut Match, result: &str) {
    for peer in [&mut m.a, &mut m.b] {
        let inform = peer.expect_any(&["inform"]);
        assert_eq!(result_of(&inform).as_deref(), Some(result), "{inform}");
        peer.expect("conclude");
    }
}

/// Plays `moves` from `respond` (sent to the side to move of game `n`, White when
/// `white_to_move`); returns the last respond.
fn play(m: &mut Match, n: u32, respond: Record, white_to_move: bool, moves: &[&str]) -> Record {
    let mut respond = respond;
    let mut w = white_to_move;
    for mv in moves {
        let line = reply(&respond, &format!("sm {mv};"));
        if w {
            white(m, n).send(&line);
        } else {
            black(m, n).send(&line);
        }
        w = !w;
        respond = if w {
            white(m, n).expect("respond")
        } else {
            black(m, n).expect("respond")
        };
    }
    respond
}

/// Starts game `n` (reset and inform on both) and returns White's first respond.
fn begin(m: &mut Match, n: u32) -> Record {
    m.begin_game();
    white(m, n).expect("respond")
}

/// A five-game session whose games end by mate, resignation, an illegal move, a flag
/// fall and a draw by agreement. Returns the match (its players still connected), the
/// journal and the PGN file.
fn session() -> (Match, PathBuf, PathBuf) {
    let (mut m, respond) = Match::start(&["--games", "5", "--tc", "3"]);
    // Game 1 (A White): fool's mate, ended by Black's reply.
    let respond = play(&mut m, 1, respond, true, &["f3", "e5", "g4"]);
    m.b.send(&reply(&respond, "sm Qh4#;"));
    end_of_game(&mut m, "0-1");
    // Game 2 (B White): White plays, Black resigns.
    let respond = begin(&mut m, 2);
    let respond = play(&mut m, 2, respond, true, &["e4"]);
    m.a.send(&reply(&respond, "resign;"));
    end_of_game(&mut m, "1-0");
    // Game 3 (A White): Black plays an illegal move.
    let respond = begin(&mut m, 3);
    let respond = play(&mut m, 3, respond, true, &["e4"]);
    m.b.send(&reply(&respond, "sm Ke3;"));
    end_of_game(&mut m, "1-0");
    // Game 4 (B White): Black never answers and its flag falls (a timer).
    let respond = begin(&mut m, 4);
    play(&mut m, 4, respond, true, &["d4"]);
    end_of_game(&mut m, "1-0");
    // Game 5 (A White): White offers a draw with its move, Black accepts.
    let respond = begin(&mut m, 5);
    m.a.send(&reply(&respond, "sm e4; draw_offer;"));
    let respond = m.b.expect("respond");
    m.b.send(&reply(&respond, "draw_accept;"));
    end_of_game(&mut m, "1/2-1/2");
    m.a.expect("disconnect");
    m.b.expect("disconnect");
    assert_eq!(m.referee.wait(Duration::from_secs(10)), 0);
    let journal = m.referee.journal.clone();
    let pgn = m.referee.pgn.clone();
    (m, journal, pgn)
}

/// The journal's lines, each with its event.
fn lines_of(path: &Path) -> Vec<(String, Event)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| (l.to_string(), serde_json::from_str(l).unwrap()))
        .collect()
}

/// The game records in `lines`, in order, with the index of the input that produced
/// each (the last input before its `game_over` line).
fn games_of(lines: &[(String, Event)]) -> Vec<(usize, String)> {
    let mut last_input = 0;
    let mut games = Vec::new();
    for (i, (_, ev)) in lines.iter().enumerate() {
        if ev.input().is_some() {
            last_input = i;
        }
        if let Event::GameOver { pgn, .. } = ev {
            games.push((last_input, pgn.clone()));
        }
    }
    games
}

fn refcom(line: &str) -> String {
    Record::from_ascii(line.as_bytes())
        .unwrap()
        .refcom()
        .unwrap()
        .to_string()
}

fn write_lines(path: &Path, lines: &[(String, Event)]) {
    let text: String = lines.iter().map(|(l, _)| format!("{l}\n")).collect();
    std::fs::write(path, text).unwrap();
}

/// Takes over the journal at `journal` as `argus serial --resume` does, up to the
/// moment it would open the ports: rebuilds the match, finishes what the dead referee
/// owed, and feeds the resume to the referee. Returns what the referee sends then.
fn take_over(journal: &Path, pgn: &Path) -> Vec<(Port, String)> {
    let rebuilt = journal::rebuild(journal).unwrap();
    let mut records = Records {
        journal: Journal::append(journal).unwrap(),
        pgn: Some(pgn.to_path_buf()),
    };
    mediator::settle(&rebuilt.takeover, &mut records, &mut Quiet).unwrap();
    let mut referee = rebuilt.referee;
    referee.handle(Input::Resume {
        at: rebuilt.takeover.at,
    });
    let mut sent = Vec::new();
    while let Some(out) = referee.poll_output() {
        if let Output::Send { port, line, .. } = out {
            sent.push((port, line));
        }
    }
    sent
}

/// Checks the PGN file against the journal: the replay of the journal reproduces it
/// byte for byte, and it holds `expected`, each game once.
fn check_records(journal: &Path, pgn: &Path, expected: &[String], what: &str) {
    let text = std::fs::read_to_string(pgn).unwrap_or_default();
    assert_eq!(text, expected.concat(), "{what}: the PGN file");
    let replay = journal::replay(journal).unwrap();
    assert_eq!(replay.divergence, None, "{what}");
    assert_eq!(replay.pgn, text, "{what}: the replay's PGN");
    let recorded = lines_of(journal)
        .iter()
        .filter(|(_, e)| matches!(e, Event::GameOver { .. }))
        .count();
    assert_eq!(recorded, expected.len(), "{what}: game_over lines");
}

/// Takes every input of the session's journal as the moment of a crash and checks the
/// resume; returns how many windows were checked.
fn check_every_window(journal: &Path, pgn: &Path, games_played: usize) -> usize {
    let lines = lines_of(journal);
    let games = games_of(&lines);
    assert_eq!(games.len(), games_played);
    assert_eq!(
        std::fs::read_to_string(pgn).unwrap(),
        games.iter().map(|(_, g)| g.as_str()).collect::<String>()
    );
    let dir = tempfile::tempdir().unwrap();
    let mut windows = 0;
    for (k, (_, event)) in lines.iter().enumerate() {
        if event.input().is_none() {
            continue;
        }
        // Killed right after journaling input k: nothing it produced was written.
        let cut = dir.path().join(format!("cut-{k}.jsonl"));
        let cut_pgn = dir.path().join(format!("cut-{k}.pgn"));
        write_lines(&cut, &lines[..=k]);
        let written: String = games
            .iter()
            .filter(|(i, _)| *i < k)
            .map(|(_, g)| g.as_str())
            .collect();
        std::fs::write(&cut_pgn, written).unwrap();
        let sent = take_over(&cut, &cut_pgn);
        let expected: Vec<String> = games
            .iter()
            .filter(|(i, _)| *i <= k)
            .map(|(_, g)| g.clone())
            .collect();
        let what = format!("crash after journal line {} ({:?})", k + 1, lines[k].0);
        check_records(&cut, &cut_pgn, &expected, &what);
        // The lines input k made the dead referee owe: each kind of record reaches its
        // player again in the resynchronisation.
        for (_, ev) in lines[k + 1..]
            .iter()
            .take_while(|(_, e)| e.input().is_none())
        {
            if let Event::Tx { port, text } = ev {
                let kind = refcom(text);
                assert!(
                    sent.iter().any(|(p, l)| p == port && refcom(l) == kind),
                    "{what}: the {kind} owed to port {port} is not sent again; the resume sends {sent:?}"
                );
            }
        }
        windows += 1;
    }
    windows
}

#[test]
fn a_crash_after_any_input_loses_no_game_and_owes_no_line() {
    let (_m, journal, pgn) = session();
    let windows = check_every_window(&journal, &pgn, 5);
    eprintln!("{windows} crash windows checked");
    assert!(windows > 40, "only {windows} crash windows");
}

/// The supervisor's inputs: a game adjudicated, one aborted, and `quit` in the third.
#[test]
fn a_crash_after_a_supervisor_command_loses_no_game_and_owes_no_line() {
    let mut a = Peer::new();
    let mut b = Peer::new();
    let referee = common::Referee::start_attended(&a, &b, &["--games", "4", "--tc", "60"]);
    a.sign_on("Alpha");
    b.sign_on("Beta");
    let mut m = Match { a, b, referee };
    let respond = begin(&mut m, 1);
    play(&mut m, 1, respond, true, &["e4"]);
    m.referee
        .type_command("adjudicate 1-0 Black's program hangs");
    end_of_game(&mut m, "1-0");
    let respond = begin(&mut m, 2);
    play(&mut m, 2, respond, true, &["d4"]);
    m.referee.type_command("abort");
    end_of_game(&mut m, "*");
    let respond = begin(&mut m, 3);
    play(&mut m, 3, respond, true, &["c4"]);
    m.referee.type_command("quit");
    end_of_game(&mut m, "*");
    m.a.expect_any(&["disconnect"]);
    m.b.expect_any(&["disconnect"]);
    assert_eq!(m.referee.wait(Duration::from_secs(10)), 0);
    let kinds = lines_of(&m.referee.journal)
        .iter()
        .filter(|(_, e)| matches!(e, Event::Supervisor { .. }))
        .count();
    assert_eq!(kinds, 3);
    let windows = check_every_window(&m.referee.journal, &m.referee.pgn, 3);
    eprintln!("{windows} crash windows checked");
    assert!(windows > 20, "only {windows} crash windows");
}

#[test]
fn a_pgn_append_cut_off_half_way_is_finished_once() {
    let (_m, journal, _) = session();
    let lines = lines_of(&journal);
    let games = games_of(&lines);
    let dir = tempfile::tempdir().unwrap();
    let mut n = 0;
    for (k, (_, event)) in lines.iter().enumerate() {
        let Event::GameOver {
            game, pgn: text, ..
        } = event
        else {
            continue;
        };
        let before: String = games
            .iter()
            .take(*game as usize - 1)
            .map(|(_, g)| g.as_str())
            .collect();
        for written in [0, 1, text.len() / 2, text.len() - 1, text.len()] {
            // Killed after journaling game_over, with `written` bytes of it appended.
            let cut = dir.path().join(format!("cut-{n}.jsonl"));
            let cut_pgn = dir.path().join(format!("cut-{n}.pgn"));
            n += 1;
            write_lines(&cut, &lines[..=k]);
            std::fs::write(&cut_pgn, format!("{before}{}", &text[..written])).unwrap();
            take_over(&cut, &cut_pgn);
            let expected: Vec<String> = games
                .iter()
                .take(*game as usize)
                .map(|(_, g)| g.clone())
                .collect();
            let what = format!(
                "game {game} with {written} of {} bytes appended",
                text.len()
            );
            check_records(&cut, &cut_pgn, &expected, &what);
        }
        // Killed half-way through writing the game_over line itself.
        let cut = dir.path().join(format!("cut-{n}.jsonl"));
        let cut_pgn = dir.path().join(format!("cut-{n}.pgn"));
        n += 1;
        write_lines(&cut, &lines[..k]);
        let mut file = std::fs::OpenOptions::new().append(true).open(&cut).unwrap();
        std::io::Write::write_all(&mut file, &lines[k].0.as_bytes()[..40]).unwrap();
        std::fs::write(&cut_pgn, &before).unwrap();
        take_over(&cut, &cut_pgn);
        let expected: Vec<String> = games
            .iter()
            .take(*game as usize)
            .map(|(_, g)| g.clone())
            .collect();
        check_records(&cut, &cut_pgn, &expected, "a game_over line cut short");
    }
    assert_eq!(n, 30);
}

/// `argus serial --resume JOURNAL --unattended`.
fn resume(journal: &Path) -> Killer {
    Killer(
        Command::new(env!("CARGO_BIN_EXE_argus"))
            .args(["serial", "--unattended", "--resume"])
            .arg(journal)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    )
}

/// Waits for `referee` to exit with success; returns what it printed.
fn finished(referee: &mut Killer, what: &str) -> String {
    let status = referee.wait_within(Duration::from_secs(10), what);
    assert!(status.success(), "{what}: {status}");
    let mut out = String::new();
    std::io::Read::read_to_string(&mut referee.0.stdout.take().unwrap(), &mut out).unwrap();
    out
}

/// The soak's case, through the binary: the journal cut just after the input that ended
/// the last game, the PGN as it was before that game. The resumed referee records the
/// game, sends the players the end of the game again, and ends the match.
#[test]
fn a_resumed_referee_records_the_game_the_dead_one_finished() {
    let (mut m, journal, pgn) = session();
    let lines = lines_of(&journal);
    let games = games_of(&lines);
    let (k, _) = games[4];
    write_lines(&journal, &lines[..=k]);
    let before: String = games[..4].iter().map(|(_, g)| g.as_str()).collect();
    std::fs::write(&pgn, &before).unwrap();
    let mut referee = resume(&journal);
    for peer in [&mut m.a, &mut m.b] {
        let inform = peer.expect_any(&["inform", "reset"]);
        let inform = if inform.refcom() == Some("reset") {
            peer.expect_any(&["inform"])
        } else {
            inform
        };
        assert_eq!(result_of(&inform).as_deref(), Some("1/2-1/2"), "{inform}");
        peer.expect_any(&["conclude"]);
        peer.expect_any(&["disconnect"]);
    }
    let out = finished(&mut referee, "the resumed referee");
    assert!(out.contains("match over: 5 of 5 game(s) played"), "{out}");
    let text = std::fs::read_to_string(&pgn).unwrap();
    let all: String = games.iter().map(|(_, g)| g.as_str()).collect();
    assert_eq!(text, all, "every game once");
    check_pgn_with_pgn_reader(&text, 5);
    let replay = journal::replay(&journal).unwrap();
    assert_eq!(replay.divergence, None);
    assert_eq!(replay.pgn, text);
}

/// A journal whose match is over (the referee died after `disconnect` drained, or the
/// organiser resumed a finished match): the resume says so in one line and exits.
#[test]
fn resuming_a_finished_match_says_so_and_exits() {
    let (_m, journal, pgn) = session();
    let before = std::fs::read_to_string(&pgn).unwrap();
    for cut_end in [false, true] {
        if cut_end {
            // Killed after the match was over, before the journal's last line.
            let lines = lines_of(&journal);
            let n = lines.len() - 1;
            assert!(matches!(lines[n].1, Event::End { .. }));
            write_lines(&journal, &lines[..n]);
        }
        let out = finished(&mut resume(&journal), "a finished match resumed");
        assert!(out.contains("is over: 5 of 5 game(s) played"), "{out}");
        assert_eq!(std::fs::read_to_string(&pgn).unwrap(), before);
    }
}
