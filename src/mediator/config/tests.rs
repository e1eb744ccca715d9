use super::*;

const EXAMPLE: &str = include_str!("../../../docs/example-event.toml");

/// The smallest valid file: the two ports.
const PORTS: &str = "[player.a]\nport = \"/dev/a\"\n[player.b]\nport = \"/dev/b\"\n";

fn parse(text: &str) -> Result<EventConfig, ConfigFileError> {
    EventConfig::parse(text, Path::new("/srv/club"))
}

fn err(text: &str) -> ConfigFileError {
    parse(text).expect_err("the file should be rejected")
}

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

#[test]
fn the_example_parses() {
    let config = EventConfig::parse(EXAMPLE, Path::new("/etc/argus")).unwrap();
    assert_eq!(config.event, "Club championship");
    assert_eq!(config.games, 4);
    assert_eq!(config.time_control, "40/7200:1800".parse().unwrap());
    assert_eq!(config.ports[0].port, "/dev/argus-a");
    assert_eq!(config.ports[1].port, "/dev/argus-b");
    assert_eq!(config.ports[0].name.as_deref(), Some("Stockfish"));
    assert_eq!(config.ports[1].name.as_deref(), Some("Ann Smith"));
    assert_eq!(
        config.journal,
        Some(PathBuf::from("/var/lib/argus/club.jsonl"))
    );
    assert!(!config.unattended && !config.no_wire_compensation);
    assert_eq!(
        config.openings,
        Some(PathBuf::from("/etc/argus/openings.epd"))
    );
    assert_eq!(config.pgn, PathBuf::from("/var/lib/argus/club.pgn"));
}

/// Whether `key` is a [line] key set again in a player's table.
fn for_one_port(key: &str) -> bool {
    ["player.a.", "player.b."]
        .iter()
        .filter_map(|table| key.strip_prefix(table))
        .any(|name| keys().contains(&format!("line.{name}")))
}

#[test]
fn every_table_has_keys() {
    let keys = keys();
    for table in field_names::<RawFile>() {
        assert!(
            keys.iter().any(|k| k.starts_with(&format!("{table}."))),
            "[{table}]: list its keys in keys()"
        );
    }
    assert!(keys.contains(&"player.b.port".to_string()), "{keys:?}");
}

/// The example is complete: it gives every key (a [line] key set again for one
/// player's port is shown in a comment), each with a comment that says what it does,
/// on its line or the next.
#[test]
fn the_example_gives_every_key_with_a_comment() {
    fn leaves(prefix: &str, table: &toml::Table, out: &mut Vec<String>) {
        for (key, value) in table {
            let path = format!("{prefix}{key}");
            match value {
                toml::Value::Table(inner) => leaves(&format!("{path}."), inner, out),
                _ => out.push(path),
            }
        }
    }
    let mut given = Vec::new();
    leaves("", &EXAMPLE.parse::<toml::Table>().unwrap(), &mut given);
    given.sort();
    let mut every: Vec<String> = keys().into_iter().filter(|k| !for_one_port(k)).collect();
    every.sort();
    assert_eq!(
        given, every,
        "docs/example-event.toml lacks a key, or has one too many"
    );
    let lines: Vec<&str> = EXAMPLE.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let code = line.split('#').next().unwrap_or("").trim();
        if !code.contains('=') {
            continue;
        }
        let next = lines.get(i + 1).map_or("", |l| l.trim_start());
        assert!(
            line.contains('#') || next.starts_with('#'),
            "docs/example-event.toml, line {}: say what `{code}` does",
            i + 1
        );
    }
}

#[test]
fn the_example_loads_from_its_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("match.toml");
    fs::write(&path, EXAMPLE).unwrap();
    let config = EventConfig::load(&path).unwrap();
    assert_eq!(config.openings, Some(dir.path().join("openings.epd")));
}

#[test]
fn missing_keys_take_the_defaults_of_argus_serial() {
    let config = parse(PORTS).unwrap();
    let line = SerialSettings::default();
    assert_eq!(
        config,
        EventConfig {
            ports: [
                PlayerConfig {
                    port: "/dev/a".into(),
                    name: None,
                    line: line.clone(),
                    baud_given: false,
                },
                PlayerConfig {
                    port: "/dev/b".into(),
                    name: None,
                    line,
                    baud_given: false,
                },
            ],
            event: "?".into(),
            site: "?".into(),
            round: None,
            games: 1,
            time_control: "300+5".parse().unwrap(),
            openings: None,
            variant: crate::core::Variant::Standard,
            tb: None,
            tb_pieces: None,
            tb_ignore_50: false,
            tb_adjudicate: None,
            draw_rule: DrawRule::Auto,
            illegal: IllegalRule::Loss,
            reset_delay: secs(5),
            conclude_delay: secs(5),
            pgn: PathBuf::from("/srv/club/argus.pgn"),
            journal: None,
            eol: Eol::Lf,
            unattended: false,
            no_wire_compensation: false,
            http: None,
            standby_listen: None,
            standby_sync: false,
            standby_key: None,
        }
    );
    assert_eq!(config.ports[0].line.to_string(), "9600 8N1 flow none");
}

#[test]
fn every_key_is_read() {
    let text = r#"
            [match]
            event = "Open"
            site = "Hall"
            round = 7
            games = 2
            tc = "60+1"
            draw_rule = "claim"
            illegal = "fault"
            reset_delay = 0.5
            conclude_delay = 0
            unattended = true
            [files]
            pgn = "out/games.pgn"
            journal = "/var/log/argus.jsonl"
            [line]
            baud = 19200
            data_bits = 7
            parity = "even"
            stop_bits = 2
            flow = "hardware"
            eol = "crlf"
            no_wire_compensation = true
            [player.a]
            port = "COM3"
            [player.b]
            port = "COM4"
            name = "Human"
        "#;
    let config = parse(text).unwrap();
    assert_eq!(config.round.as_deref(), Some("7"));
    assert_eq!(config.games, 2);
    assert_eq!(config.draw_rule, DrawRule::Claim);
    assert_eq!(config.illegal, IllegalRule::Fault);
    assert_eq!(config.reset_delay, Duration::from_millis(500));
    assert_eq!(config.conclude_delay, Duration::ZERO);
    assert!(config.unattended);
    assert_eq!(config.pgn, PathBuf::from("/srv/club/out/games.pgn"));
    assert_eq!(config.journal, Some(PathBuf::from("/var/log/argus.jsonl")));
    assert_eq!(config.eol, Eol::Crlf);
    assert!(config.no_wire_compensation);
    assert!(config.ports.iter().all(|p| p.baud_given));
    let line = SerialSettings {
        baud: 19200,
        data_bits: 7,
        parity: ParityName::Even,
        stop_bits: 2,
        flow: FlowName::Hardware,
    };
    assert_eq!(config.ports[0].line, line);
    assert_eq!(config.ports[1].line, line);
    assert_eq!(config.ports[1].name.as_deref(), Some("Human"));
    assert_eq!(config.ports[0].name, None);
}

#[test]
fn a_player_overrides_the_line_defaults_for_its_port_only() {
    let text = r#"
            [line]
            baud = 4800
            parity = "odd"
            [player.a]
            port = "/dev/a"
            baud = 19200
            flow = "software"
            [player.b]
            port = "/dev/b"
            stop_bits = 2
        "#;
    let config = parse(text).unwrap();
    let a = &config.ports[0].line;
    let b = &config.ports[1].line;
    assert_eq!(
        (a.baud, a.parity, a.stop_bits, a.flow),
        (19200, ParityName::Odd, 1, FlowName::Software)
    );
    assert_eq!(
        (b.baud, b.parity, b.stop_bits, b.flow),
        (4800, ParityName::Odd, 2, FlowName::None)
    );
}

/// The wire timing of `text`'s [line] and [player.*] keys, with port A on `a` and
/// port B on `b`.
#[cfg(unix)]
fn wire(a: &str, b: &str, keys: &str) -> [Option<Duration>; 2] {
    let (line, players) = keys.split_once("|").unwrap_or((keys, ""));
    let (extra_a, extra_b) = players.split_once("|").unwrap_or((players, ""));
    let text = format!(
        "[line]\n{line}\n[player.a]\nport = {a:?}\n{extra_a}\n[player.b]\nport = {b:?}\n{extra_b}\n"
    );
    parse(&text).unwrap().wire_timing().byte_time
}

/// As on the command line: a real serial port's rate is known from its settings, a
/// pty's only when `baud` is given for it, and `no_wire_compensation` turns it off.
#[cfg(unix)]
#[test]
fn a_pty_gets_wire_compensation_only_when_baud_is_given() {
    let (_master, slave) = crate::transport::pty::pair().unwrap();
    let pty = slave.path.clone().unwrap();
    let (_master2, slave2) = crate::transport::pty::pair().unwrap();
    let pty2 = slave2.path.clone().unwrap();
    let at = |baud: u32| {
        let settings = SerialSettings {
            baud,
            ..SerialSettings::default()
        };
        Some(settings.byte_time())
    };
    // A serial port (one that is not a pty) is paced by its settings.
    assert_eq!(wire("/dev/ttyS7", "/dev/ttyS8", ""), [at(9600), at(9600)]);
    assert_eq!(wire(&pty, &pty2, ""), [None, None]);
    assert_eq!(wire(&pty, &pty2, "baud = 9600"), [at(9600), at(9600)]);
    assert_eq!(wire(&pty, &pty2, "baud = 4800"), [at(4800), at(4800)]);
    assert_eq!(wire(&pty, &pty2, "|baud = 19200|"), [at(19200), None]);
    assert_eq!(
        wire(&pty, "/dev/ttyS8", "|baud = 19200|"),
        [at(19200), at(9600)]
    );
    assert_eq!(
        wire(
            &pty,
            "/dev/ttyS8",
            "baud = 9600\nno_wire_compensation = true"
        ),
        [None, None]
    );
    assert_eq!(
        wire(&pty, "/dev/ttyS8", "no_wire_compensation = false"),
        [None, at(9600)]
    );
}

#[test]
fn wire_compensation_is_set_for_both_ports_at_once() {
    let text = "[player.a]\nport = \"/dev/a\"\nno_wire_compensation = true\n[player.b]\nport = \"/dev/b\"\n";
    rejected(
        text,
        "player.a.no_wire_compensation",
        3,
        "`no_wire_compensation` in [player.a]: wire compensation is the same for both ports: set it in [line]",
    );
}

#[test]
fn relative_paths_are_relative_to_the_folder_of_the_file() {
    let text = format!(
        "[match]\nopenings = \"book/two.epd\"\n[files]\npgn = \"club.pgn\"\njournal = \"../logs/club.jsonl\"\n{PORTS}"
    );
    let config = parse(&text).unwrap();
    assert_eq!(
        config.openings,
        Some(PathBuf::from("/srv/club/book/two.epd"))
    );
    assert_eq!(config.pgn, PathBuf::from("/srv/club/club.pgn"));
    assert_eq!(
        config.journal,
        Some(PathBuf::from("/srv/club/../logs/club.jsonl"))
    );

    let text = format!("[files]\npgn = \"/data/club.pgn\"\n{PORTS}");
    assert_eq!(parse(&text).unwrap().pgn, PathBuf::from("/data/club.pgn"));

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("match.toml");
    fs::write(&path, format!("[files]\npgn = \"club.pgn\"\n{PORTS}")).unwrap();
    assert_eq!(
        EventConfig::load(&path).unwrap().pgn,
        dir.path().join("club.pgn")
    );
}

#[test]
fn the_default_journal_is_dated_and_next_to_the_pgn_file() {
    let text = format!("[files]\npgn = \"games/club.pgn\"\n{PORTS}");
    let config = parse(&text).unwrap();
    assert_eq!(
        config.journal_path("20261122-143000"),
        PathBuf::from("/srv/club/games/club-20261122-143000.jsonl")
    );
    let text = format!("[files]\njournal = \"j.jsonl\"\n{PORTS}");
    assert_eq!(
        parse(&text).unwrap().journal_path("x"),
        PathBuf::from("/srv/club/j.jsonl")
    );
}

/// Checks that `text` is rejected with a message naming `key` and `line`.
fn rejected(text: &str, key: &str, line: usize, words: &str) {
    let e = err(text);
    let message = e.to_string();
    assert_eq!(e.problem().and_then(Problem::key), Some(key), "{message}");
    assert_eq!(e.position().map(|p| p.line), Some(line), "{message}");
    assert!(
        message.contains(words),
        "{message:?} does not say {words:?}"
    );
    assert!(
        message.starts_with(&format!("config: line {line}, column ")),
        "{message}"
    );
}

#[test]
fn each_value_out_of_range_is_reported_at_its_key() {
    let cases = [
        (
            "[match]\ngames = 0\n",
            "match.games",
            "`games` in [match]: must be a whole number from 1",
        ),
        (
            "[match]\ngames = -3\n",
            "match.games",
            "from 1 to 4294967295",
        ),
        (
            "[match]\ngames = 5000000000\n",
            "match.games",
            "from 1 to 4294967295",
        ),
        (
            "[match]\nreset_delay = -1\n",
            "match.reset_delay",
            "`reset_delay` in [match]: must be a number of seconds from 0 to 86400",
        ),
        (
            "[match]\nconclude_delay = 86400.5\n",
            "match.conclude_delay",
            "from 0 to 86400",
        ),
        (
            "[match]\nconclude_delay = nan\n",
            "match.conclude_delay",
            "from 0 to 86400",
        ),
        (
            "[match]\nreset_delay = inf\n",
            "match.reset_delay",
            "from 0 to 86400",
        ),
        (
            "[match]\ntc = \"40/\"\n",
            "match.tc",
            "invalid time control \"40/\"",
        ),
        (
            "[line]\ndata_bits = 9\n",
            "line.data_bits",
            "`data_bits` in [line]: must be 5, 6, 7 or 8",
        ),
        (
            "[line]\ndata_bits = 4\n",
            "line.data_bits",
            "must be 5, 6, 7 or 8",
        ),
        (
            "[line]\nstop_bits = 3\n",
            "line.stop_bits",
            "`stop_bits` in [line]: must be 1 or 2",
        ),
        (
            "[line]\nstop_bits = 0\n",
            "line.stop_bits",
            "must be 1 or 2",
        ),
        (
            "[line]\nbaud = 0\n",
            "line.baud",
            "must be a whole number from 1",
        ),
        (
            "[line]\neol = \"cr\"\n",
            "line.eol",
            "must be \"lf\" or \"crlf\"",
        ),
        (
            "[files]\npgn = \"\"\n",
            "files.pgn",
            "`pgn` in [files]: must not be empty",
        ),
    ];
    for (head, key, words) in cases {
        rejected(&format!("{head}{PORTS}"), key, 2, words);
    }
    // In a player's table, the key is the player's.
    let text = "[player.a]\nport = \"/dev/a\"\ndata_bits = 9\n[player.b]\nport = \"/dev/b\"\n";
    rejected(
        text,
        "player.a.data_bits",
        3,
        "`data_bits` in [player.a]: must be 5, 6, 7 or 8",
    );
    let text = "[player.a]\nport = \"/dev/a\"\n[player.b]\nport = \"/dev/b\"\nstop_bits = 3\n";
    rejected(
        text,
        "player.b.stop_bits",
        5,
        "`stop_bits` in [player.b]: must be 1 or 2",
    );
    let text = "[player.a]\nport = \"/dev/a\"\neol = \"crlf\"\n[player.b]\nport = \"/dev/b\"\n";
    rejected(text, "player.a.eol", 3, "set it in [line]");
}

#[test]
fn values_of_the_wrong_type_are_reported_at_their_key() {
    let cases = [
        (
            "[match]\ngames = \"4\"\n",
            "match.games",
            "`games` in [match]: invalid type: string \"4\", expected a whole number",
        ),
        (
            "[match]\nreset_delay = \"5\"\n",
            "match.reset_delay",
            "expected a number",
        ),
        (
            "[match]\ndraw_rule = \"maybe\"\n",
            "match.draw_rule",
            "unknown variant `maybe`, expected `auto` or `claim`",
        ),
        (
            "[match]\nillegal = \"warn\"\n",
            "match.illegal",
            "expected `loss` or `fault`",
        ),
        (
            "[line]\nparity = \"mark\"\n",
            "line.parity",
            "`parity` in [line]: unknown variant `mark`",
        ),
        (
            "[line]\nflow = true\n",
            "line.flow",
            "`flow` in [line]: expected a string",
        ),
        (
            "[match]\nround = 2.5\n",
            "match.round",
            "expected a string or a whole number",
        ),
    ];
    for (head, key, words) in cases {
        rejected(&format!("{head}{PORTS}"), key, 2, words);
    }
    rejected(
        "match = 3\n",
        "match",
        1,
        "`match` at the top level: invalid type: integer `3`, expected a table",
    );
}

#[test]
fn an_unknown_key_is_reported_with_its_line() {
    let text = format!("[match]\nevent = \"x\"\n\n# a comment\nsite = \"y\"\n\nbad = 1\n{PORTS}");
    let e = err(&text);
    assert_eq!(
            e.problem(),
            Some(&Problem::UnknownKey {
                key: "match.bad".into(),
                expected: "one of `event`, `site`, `round`, `games`, `tc`, `openings`, `variant`, `tb`, `tb_pieces`, `tb_ignore_50`, `tb_adjudicate`, `draw_rule`, `illegal`, `reset_delay`, `conclude_delay`, `unattended`".into(),
            })
        );
    assert_eq!(e.position(), Some(Position { line: 7, column: 1 }));
    assert!(
        e.to_string().starts_with(
            "config: line 7, column 1: unknown key `bad` in [match], expected one of `event`"
        ),
        "{e}"
    );
    rejected(
        &format!("{PORTS}bud = 9600\n"),
        "player.b.bud",
        5,
        "unknown key `bud` in [player.b]",
    );
    rejected(
        &format!("[evnt]\ngames = 2\n{PORTS}"),
        "evnt",
        1,
        "unknown key `evnt` at the top level",
    );
    rejected(
        &format!("{PORTS}[player.c]\nport = \"/dev/c\"\n"),
        "player.c",
        5,
        "unknown key `c` in [player], expected `a` or `b`",
    );
    rejected(
        &format!("[line]\n  speed = 1\n{PORTS}"),
        "line.speed",
        2,
        "unknown key `speed` in [line]",
    );
}

/// A file written for an earlier version, whose keys were not yet all named as the
/// options, is told what each is called now.
#[test]
fn a_renamed_key_is_reported_with_its_name_now() {
    rejected(
        &format!("[event]\nname = \"Open\"\n{PORTS}"),
        "event",
        1,
        "[event] is now [match]",
    );
    let e = err(&format!("[match]\ngames = 2\nname = \"Open\"\n{PORTS}"));
    assert_eq!(
        e.problem(),
        Some(&Problem::Renamed {
            key: "match.name".into(),
            now: "event".into()
        })
    );
    assert_eq!(
        e.to_string(),
        "config: line 3, column 1: `name` in [match] is now `event`, as the option --event"
    );
    rejected(
        &format!("[match]\ntime_control = \"60\"\n{PORTS}"),
        "match.time_control",
        2,
        "`time_control` in [match] is now `tc`, as the option --tc",
    );
}

#[test]
fn the_file_is_named_in_every_message() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("club.toml");
    fs::write(&path, format!("[match]\n\nbad = 1\n{PORTS}")).unwrap();
    let e = EventConfig::load(&path).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "config {}: line 3, column 1: unknown key `bad` in [match], expected one of `event`, `site`, `round`, `games`, `tc`, `openings`, `variant`, `tb`, `tb_pieces`, `tb_ignore_50`, `tb_adjudicate`, `draw_rule`, `illegal`, `reset_delay`, `conclude_delay`, `unattended`",
            path.display()
        )
    );
    let missing = dir.path().join("none.toml");
    let e = EventConfig::load(&missing).unwrap_err();
    assert!(matches!(e, ConfigFileError::Read { .. }));
    assert!(
        e.to_string()
            .starts_with(&format!("config {}: ", missing.display())),
        "{e}"
    );
}

#[test]
fn both_ports_are_required_and_must_differ() {
    let e = err("[player.a]\nport = \"/dev/a\"\n");
    assert_eq!(
        e.problem(),
        Some(&Problem::MissingKey {
            key: "player.b.port".into()
        })
    );
    assert_eq!(e.to_string(), "config: missing key `port` in [player.b]");

    let e = err("[player.a]\nname = \"x\"\n[player.b]\nport = \"/dev/b\"\n");
    assert_eq!(
        e.problem(),
        Some(&Problem::MissingKey {
            key: "player.a.port".into()
        })
    );
    assert_eq!(
        e.to_string(),
        "config: line 1, column 1: missing key `port` in [player.a]"
    );

    assert_eq!(
        err("").problem(),
        Some(&Problem::MissingKey {
            key: "player.a.port".into()
        })
    );

    let e = err("[player.a]\nport = \"/dev/x\"\n[player.b]\nport = \"/dev/x\"\n");
    assert_eq!(
        e.problem(),
        Some(&Problem::SamePort {
            port: "/dev/x".into()
        })
    );
    assert_eq!(
        e.to_string(),
        "config: line 4, column 8: [player.a] and [player.b] have the same port /dev/x"
    );

    rejected(
        "[player.a]\nport = \"\"\n[player.b]\nport = \"/dev/b\"\n",
        "player.a.port",
        2,
        "must not be empty",
    );
}

#[test]
fn a_syntax_error_gives_its_line_and_column() {
    let e = err("[match]\nevent = \"x\"\ngames = = 2\n");
    assert!(matches!(e.problem(), Some(Problem::Syntax { .. })), "{e:?}");
    assert_eq!(e.position().map(|p| p.line), Some(3), "{e}");
    let e = err("[match]\nname = 1\nname = 2\n");
    assert_eq!(e.position().map(|p| p.line), Some(3), "{e}");
    assert!(e.to_string().ends_with("duplicate key `name`"), "{e}");
    let e = err("[match]\n[line]\n[match]\n");
    assert_eq!(e.position().map(|p| p.line), Some(3), "{e}");
    assert!(e.to_string().ends_with("duplicate key `match`"), "{e}");
}

#[test]
fn positions_count_characters_from_one() {
    assert_eq!(position("ab\ncd", 0), Position { line: 1, column: 1 });
    assert_eq!(position("ab\ncd", 4), Position { line: 2, column: 2 });
    assert_eq!(position("é = 1\nx", 3), Position { line: 1, column: 3 });
    assert_eq!(position("ab", 99), Position { line: 1, column: 3 });
}
