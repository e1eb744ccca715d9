use std::path::Path;

use super::*;

fn words(text: &str) -> Vec<Vec<String>> {
    parse(text, Path::new("/etc/argus"))
        .unwrap()
        .iter()
        .map(FileOption::args)
        .collect()
}

fn error(text: &str) -> String {
    parse(text, Path::new("")).unwrap_err().to_string()
}

#[test]
fn keys_become_the_words_of_their_options_and_players_keep_the_file_order() {
    let text = r#"
[tournament]
games = 4
tc = "60+0.5"
resign = "movecount=3 score=600"
reset_delay = 0.5
unattended = true
openings = "openings.epd"

[[player]]
name = "Ann"
token = "s3cret"

[[engine]]
name = "SF"
cmd = "/usr/games/stockfish"
proto = "uci"
option.Threads = 2
option.Hash = 16
nodes = 1000

[files]
out = "club"
"#;
    assert_eq!(
        words(text),
        [
            vec!["--games=4"],
            vec!["--openings=/etc/argus/openings.epd"],
            vec!["--tc=60+0.5"],
            vec!["--reset-delay=0.5"],
            vec!["--resign", "movecount=3", "score=600"],
            vec!["--unattended"],
            vec!["--out=/etc/argus/club"],
            vec!["--player", "Ann:s3cret"],
            vec![
                "--engine",
                "name=SF",
                "cmd=/usr/games/stockfish",
                "proto=uci",
                "nodes=1000",
                "option.Threads=2",
                "option.Hash=16"
            ],
        ]
    );
    assert_eq!(
        words("[tournament]\nunattended = false\n"),
        Vec::<Vec<String>>::new()
    );
}

/// `openings` takes `--openings`'s words in one string, a list or a table, its file
/// relative to the event file's folder.
#[test]
fn openings_take_the_options_words_in_a_string_a_list_or_a_table() {
    let one = |value: &str| {
        let text = format!("[tournament]\nopenings = {value}\nsrand = 42\nrepeat = 1\n");
        words(&text)
    };
    fn with(first: Vec<&str>) -> Vec<Vec<String>> {
        let mut all = vec![first];
        all.extend([vec!["--repeat=1"], vec!["--srand=42"]]);
        all.into_iter()
            .map(|w| w.into_iter().map(String::from).collect())
            .collect()
    }
    assert_eq!(
        one(r#""my book.epd""#),
        with(vec!["--openings=/etc/argus/my book.epd"])
    );
    assert_eq!(
        one(r#""file=book.pgn order=random plies=8""#),
        with(vec![
            "--openings",
            "file=/etc/argus/book.pgn",
            "order=random",
            "plies=8"
        ])
    );
    assert_eq!(
        one(r#"["file=/books/my book.pgn", "start=3"]"#),
        with(vec!["--openings", "file=/books/my book.pgn", "start=3"])
    );
    assert_eq!(
        one(r#"{ file = "book.pgn", plies = 8, order = "random" }"#),
        with(vec![
            "--openings",
            "file=/etc/argus/book.pgn",
            "order=random",
            "plies=8"
        ])
    );
}

#[test]
fn an_unknown_key_is_named_with_its_table_and_place() {
    assert_eq!(
        error("[tournament]\ngames = 2\nconcurency = 2\n"),
        "config: line 3, column 1: unknown key `concurency` in [tournament], expected one of `event`, `site`, `format`, `rounds`, `games`, `concurrency`, `openings`, `repeat`, `srand`, `variant`, `tb`, `tb_pieces`, `tb_ignore_50`, `tb_adjudicate`, `tc`, `draw_rule`, `illegal`, `reset_delay`, `conclude_delay`, `resign`, `draw`, `maxmoves`, `sprt`, `rating_interval`, `unattended`, `each`"
    );
    let e = error("[[engine]]\nname = \"A\"\ncommand = \"x\"\n");
    assert!(
        e.starts_with("config: line 3, column 1: unknown key `command` in [engine]"),
        "{e}"
    );
    // An argus serial file is not an argus serve file.
    let e = error("[match]\ngames = 2\n");
    assert!(e.contains("unknown key `match` at the top level"), "{e}");
}

#[test]
fn a_player_that_is_no_player_is_refused_where_it_stands() {
    let e = error("\n[[engine]]\nname = \"A\"\nproto = \"ucci\"\n");
    assert!(
        e.starts_with("config: line 2, column 1: `engine` at the top level: --engine proto=ucci"),
        "{e}"
    );
    let e = error("[[player]]\ntoken = \"x\"\n");
    assert!(e.contains("give it a name"), "{e}");
    let e = error("[tournament]\nunattended = \"yes\"\n");
    assert!(
        e.contains("`unattended` in [tournament]: expected true or false"),
        "{e}"
    );
}

#[test]
fn the_copies_of_the_games_are_files_beside_the_event_file() {
    let text = r#"
[tournament]
rating_interval = 10

[files]
out = "night"
pgnout = "all.pgn"
epdout = "/var/argus/all.epd"
"#;
    assert_eq!(
        words(text),
        [
            vec!["--rating-interval=10"],
            vec!["--out=/etc/argus/night"],
            vec!["--pgnout=/etc/argus/all.pgn"],
            vec!["--epdout=/var/argus/all.epd"],
        ]
    );
}
