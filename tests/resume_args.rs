//! `argus serial --resume JOURNAL` with the options of the command that was running (the
//! organiser's up-arrow line) or with its event file: options that agree with the journal
//! are accepted, one that contradicts it is refused in one line naming the option, the
//! journal's value and the value given.

#![cfg(unix)]

mod common;

use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::*;

/// The command line `Referee::start` ran with `extra`: what the organiser's up-arrow
/// brings back.
fn original_line(m: &Match, extra: &[&str]) -> Vec<OsString> {
    let mut line: Vec<OsString> = vec![
        "serial".into(),
        (&m.a.path).into(),
        (&m.b.path).into(),
        "--reset-delay".into(),
        "0".into(),
        "--conclude-delay".into(),
        "0".into(),
        "--pgn".into(),
        m.referee.pgn.clone().into(),
        "--journal".into(),
        m.referee.journal.clone().into(),
    ];
    line.extend(extra.iter().map(OsString::from));
    line.push("--unattended".into());
    line
}

/// Kills the referee as a crash would.
fn crash(referee: &mut Referee) {
    referee.child.kill().unwrap();
    referee.child.wait().unwrap();
}

/// Starts `argus` with `args` as the referee that takes over.
fn take_over(referee: &mut Referee, args: &[OsString]) {
    referee.child = Command::new(env!("CARGO_BIN_EXE_argus"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("argus runs");
}

/// Runs `argus` with `args`, which must be refused at once; returns its standard error.
fn refused(args: &[OsString]) -> String {
    let child = Command::new(env!("CARGO_BIN_EXE_argus"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("argus runs");
    let mut child = Killer(child);
    let status = child.wait_within(
        Duration::from_secs(10),
        &format!("argus did not refuse {args:?}"),
    );
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.0.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(1), "{args:?}: {err}");
    err
}

fn with(mut line: Vec<OsString>, more: &[&str]) -> Vec<OsString> {
    line.extend(more.iter().map(OsString::from));
    line
}

fn resume_args(journal: &Path, more: &[&str]) -> Vec<OsString> {
    with(
        vec!["serial".into(), "--resume".into(), journal.into()],
        more,
    )
}

/// Black is to move after 1. e4 when the referee comes back: reads the resync and
/// returns Black's respond.
fn resynced_after_e4(m: &mut Match) -> argus::epd::Record {
    m.a.expect("reset");
    m.a.expect("inform");
    m.a.expect("execute");
    m.b.expect("reset");
    m.b.expect("inform");
    m.b.expect("respond")
}

#[test]
fn the_up_arrow_line_with_journal_and_resume_takes_the_match_over() {
    let extra = [
        "--tc", "60", "--games", "1", "--event", "Club", "--site", "Hall",
    ];
    let (mut m, respond) = Match::start(&extra);
    m.play(respond, true, &["e4"]).unwrap();
    crash(&mut m.referee);
    let mut line = original_line(&m, &extra);
    line.push("--resume".into());
    line.push(m.referee.journal.clone().into());
    take_over(&mut m.referee, &line);
    let respond = resynced_after_e4(&mut m);
    assert_eq!(
        respond.operands("sm").unwrap()[0].as_move_text(),
        Some("e4")
    );
    let respond = m.play(respond, false, &["e5"]).unwrap();
    m.a.send(&reply(&respond, "resign;"));
    let pgn = m.finish("0-1");
    assert!(pgn.contains("1. e4") && pgn.contains("e5"), "{pgn}");
    assert_eq!(tag(&pgn, "Event").as_deref(), Some("Club"), "{pgn}");
    // The same journal went on: it replays to the same PGN.
    let status = Command::new(env!("CARGO_BIN_EXE_argus"))
        .arg("replay")
        .arg(&m.referee.journal)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn a_games_count_that_contradicts_the_journal_is_refused_in_one_line() {
    let (mut m, respond) = Match::start(&["--tc", "60", "--games", "2"]);
    m.play(respond, true, &["e4"]).unwrap();
    crash(&mut m.referee);
    let journal = m.referee.journal.clone();
    let before = std::fs::read(&journal).unwrap();
    let err = refused(&resume_args(&journal, &["--games", "3", "--unattended"]));
    assert_eq!(
        err,
        format!(
            "error: --games 3 contradicts the journal {}, which has 2\n",
            journal.display()
        )
    );
    // The up-arrow line with a changed --games is refused the same way.
    let line = with(
        original_line(&m, &["--tc", "60", "--games", "20"]),
        &["--resume", journal.to_str().unwrap()],
    );
    let err = refused(&line);
    assert!(
        err.starts_with("error: --games 20 contradicts the journal"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(&journal).unwrap(),
        before,
        "the journal changed"
    );
    // Nothing was sent; the match can still be taken over.
    take_over(
        &mut m.referee,
        &resume_args(&journal, &["--games", "2", "--unattended"]),
    );
    let respond = resynced_after_e4(&mut m);
    m.b.send(&reply(&respond, "resign;"));
    m.a.expect_any(&["inform"]);
    m.b.expect_any(&["inform"]);
}

#[test]
fn a_time_control_that_agrees_is_accepted_and_one_that_does_not_is_refused() {
    let (mut m, respond) = Match::start(&["--tc", "40/60:30"]);
    m.play(respond, true, &["e4"]).unwrap();
    crash(&mut m.referee);
    let journal = m.referee.journal.clone();
    let err = refused(&resume_args(&journal, &["--tc", "300+5", "--unattended"]));
    assert_eq!(
        err,
        format!(
            "error: --tc 300+5 contradicts the journal {}, which has 40/60:30\n",
            journal.display()
        )
    );
    take_over(
        &mut m.referee,
        &resume_args(&journal, &["--tc", "40/60:30", "--unattended"]),
    );
    let respond = resynced_after_e4(&mut m);
    m.b.send(&reply(&respond, "resign;"));
    let pgn = m.finish("1-0");
    assert_eq!(tag(&pgn, "TimeControl").as_deref(), Some("40/60:30"));
}

#[test]
fn another_journal_or_unattended_over_a_supervisor_is_refused() {
    let mut a = Peer::new();
    let mut b = Peer::new();
    let referee = Referee::start_attended(&a, &b, &["--tc", "60"]);
    a.sign_on("Alpha");
    b.sign_on("Beta");
    let mut m = Match { a, b, referee };
    m.begin_game();
    let respond = m.a.expect("respond");
    m.play(respond, true, &["e4"]).unwrap();
    crash(&mut m.referee);
    let journal = m.referee.journal.clone();
    let other = m.referee.dir.path().join("other.jsonl");
    let err = refused(&resume_args(
        &journal,
        &["--journal", other.to_str().unwrap()],
    ));
    assert!(
        err.starts_with(&format!(
            "error: --journal {:?} contradicts --resume {}",
            other.display().to_string(),
            journal.display()
        )),
        "{err}"
    );
    assert!(!other.exists());
    let err = refused(&resume_args(&journal, &["--unattended"]));
    assert!(
        err.starts_with(&format!(
            "error: --unattended contradicts the journal {}, which has a supervisor",
            journal.display()
        )),
        "{err}"
    );
    // The journal named another way (through `..`) is the same journal.
    let roundabout = m
        .referee
        .dir
        .path()
        .join("..")
        .join(m.referee.dir.path().file_name().unwrap())
        .join("session.jsonl");
    take_over(
        &mut m.referee,
        &resume_args(&journal, &["--journal", roundabout.to_str().unwrap()]),
    );
    let respond = resynced_after_e4(&mut m);
    m.b.send(&reply(&respond, "resign;"));
    m.finish("1-0");
}

/// An event file for the two peers, with `games` games.
fn event_file(dir: &Path, a: &Peer, b: &Peer, games: u32) -> std::path::PathBuf {
    event_file_with(dir, a, b, games, "")
}

/// An event file for the two peers, with `games` games and `more`: keys of [match], then
/// any other table.
fn event_file_with(dir: &Path, a: &Peer, b: &Peer, games: u32, more: &str) -> std::path::PathBuf {
    let path = dir.join("event.toml");
    std::fs::write(
        &path,
        format!(
            "[match]\nevent = \"Club\"\ngames = {games}\ntc = \"60\"\n\
             reset_delay = 0\nconclude_delay = 0\n{more}\n\
             [files]\npgn = \"games.pgn\"\njournal = \"session.jsonl\"\n\
             [player.a]\nport = \"{}\"\n[player.b]\nport = \"{}\"\n",
            a.path, b.path
        ),
    )
    .unwrap();
    path
}

/// Starts `argus serial --config config` with `extra`, writing in `dir`.
fn start_with_config(config: &Path, extra: &[&str], dir: tempfile::TempDir) -> Referee {
    let child = Command::new(env!("CARGO_BIN_EXE_argus"))
        .arg("serial")
        .arg("--config")
        .arg(config)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("argus runs");
    let pgn = dir.path().join("games.pgn");
    let journal = dir.path().join("session.jsonl");
    Referee::adopt(child, dir, pgn, journal)
}

/// The match of the journal at `path`, as its session line has it.
fn journal_match(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    let session: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    session["config"].clone()
}

/// The wire timing of the match in the journal at `path`.
fn journal_wire(path: &Path) -> serde_json::Value {
    journal_match(path)["wire"]["byte_time"].clone()
}

/// `unattended = true` in an event file runs the match without a supervisor, as
/// --unattended does; a file that resumes a match with a supervisor cannot say it.
#[test]
fn unattended_in_an_event_file_is_the_option_and_must_agree_when_it_resumes() {
    let a = Peer::new();
    let b = Peer::new();
    let dir = tempfile::tempdir().unwrap();
    let config = event_file_with(dir.path(), &a, &b, 1, "unattended = true");
    let mut referee = start_with_config(&config, &[], dir);
    assert_eq!(journal_match(&referee.journal)["attended"], false);
    crash(&mut referee);

    let dir = tempfile::tempdir().unwrap();
    let config = event_file_with(dir.path(), &a, &b, 1, "unattended = false");
    let mut referee = start_with_config(&config, &[], dir);
    assert_eq!(journal_match(&referee.journal)["attended"], true);
    crash(&mut referee);
    event_file_with(referee.dir.path(), &a, &b, 1, "unattended = true");
    let err = refused(&resume_args(
        &referee.journal,
        &["--config", config.to_str().unwrap()],
    ));
    assert_eq!(
        err,
        format!(
            "error: {}: unattended = true in [match] contradicts the journal {}, which has a supervisor at the console (a player's sign_off pauses the game for a decision); resume with unattended = false\n",
            config.display(),
            referee.journal.display()
        )
    );
}

/// A pty with `baud` in the event file has wire compensation, as with `--baud` on the
/// command line; a file that resumes the match must agree with the journal on it.
#[test]
fn an_event_file_with_baud_compensates_a_pty_and_must_agree_when_it_resumes() {
    let a = Peer::new();
    let b = Peer::new();
    let dir = tempfile::tempdir().unwrap();
    let config = event_file_with(dir.path(), &a, &b, 1, "[line]\nbaud = 9600");
    let mut referee = start_with_config(&config, &["--unattended"], dir);
    // Ten bits a byte (start, eight data bits, stop) at 9600 baud.
    let at_9600 = serde_json::json!({"secs": 0, "nanos": 1_041_666});
    assert_eq!(
        journal_wire(&referee.journal),
        serde_json::json!([at_9600, at_9600])
    );
    crash(&mut referee);
    let journal = referee.journal.clone();
    let dir = referee.dir.path();
    let up_arrow = resume_args(
        &journal,
        &["--config", config.to_str().unwrap(), "--unattended"],
    );
    event_file_with(
        dir,
        &a,
        &b,
        1,
        "[line]\nbaud = 9600\nno_wire_compensation = true",
    );
    let err = refused(&up_arrow);
    assert_eq!(
        err,
        format!(
            "error: {}: no_wire_compensation = true in [line] contradicts the journal {}, which has wire compensation (the time records spend on the line is charged to nobody)\n",
            config.display(),
            journal.display()
        )
    );
    // No baud is 9600 too, but then argus cannot know a pty's rate.
    event_file_with(dir, &a, &b, 1, "");
    let err = refused(&up_arrow);
    assert!(
        err.starts_with(&format!(
            "error: {}: no baud for port A, a pty, contradicts the journal {}, which has wire compensation there",
            config.display(),
            journal.display()
        )),
        "{err}"
    );
    event_file_with(dir, &a, &b, 1, "[line]\nbaud = 9600");
    take_over(&mut referee, &up_arrow);
    referee.wait_for("argus: refereeing", Duration::from_secs(10));

    // The other way: a match without compensation, resumed by a file with it.
    let a = Peer::new();
    let b = Peer::new();
    let dir = tempfile::tempdir().unwrap();
    let config = event_file_with(
        dir.path(),
        &a,
        &b,
        1,
        "[line]\nbaud = 4800\nno_wire_compensation = true",
    );
    let mut referee = start_with_config(&config, &["--unattended"], dir);
    assert_eq!(
        journal_wire(&referee.journal),
        serde_json::json!([null, null])
    );
    crash(&mut referee);
    event_file_with(referee.dir.path(), &a, &b, 1, "[line]\nbaud = 4800");
    let err = refused(&resume_args(
        &referee.journal,
        &["--config", config.to_str().unwrap(), "--unattended"],
    ));
    assert!(
        err.starts_with(&format!(
            "error: {}: wire compensation on port A contradicts the journal {}, which has none there",
            config.display(),
            referee.journal.display()
        )),
        "{err}"
    );
}

#[test]
fn an_event_file_that_agrees_resumes_and_one_that_does_not_is_refused() {
    let mut a = Peer::new();
    let mut b = Peer::new();
    let dir = tempfile::tempdir().unwrap();
    let config = event_file(dir.path(), &a, &b, 1);
    let referee = start_with_config(&config, &["--unattended"], dir);
    a.sign_on("Alpha");
    b.sign_on("Beta");
    let mut m = Match { a, b, referee };
    m.begin_game();
    let respond = m.a.expect("respond");
    m.play(respond, true, &["e4"]).unwrap();
    crash(&mut m.referee);
    let journal = m.referee.journal.clone();
    let up_arrow = |config: &Path| {
        let config = config.to_str().unwrap();
        resume_args(&journal, &["--config", config, "--unattended"])
    };
    event_file(m.referee.dir.path(), &m.a, &m.b, 3);
    let err = refused(&up_arrow(&config));
    assert_eq!(
        err,
        format!(
            "error: {}: games = 3 in [match] contradicts the journal {}, which has 1\n",
            config.display(),
            journal.display()
        )
    );
    event_file(m.referee.dir.path(), &m.a, &m.b, 1);
    take_over(&mut m.referee, &up_arrow(&config));
    let respond = resynced_after_e4(&mut m);
    m.b.send(&reply(&respond, "resign;"));
    let pgn = m.finish("1-0");
    assert_eq!(tag(&pgn, "Event").as_deref(), Some("Club"));
}
