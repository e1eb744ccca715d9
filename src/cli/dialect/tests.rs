//! The reading of fastchess's and cutechess-cli's command lines.

use super::fastchess::parse;
use super::*;

fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(String::from).collect()
}

fn read(line: &str) -> Result<MatchArgs, String> {
    match parse(&words(line))? {
        Run::Match(args) => Ok(*args),
        other => panic!("{other:?}"),
    }
}

const TWO: &str = "-engine cmd=a name=A tc=1+0.01 -engine cmd=b name=B tc=1+0.01";

#[test]
fn each_comes_after_every_engine_and_wins() {
    let args = read(
        "-each tc=2+0.02 option.Hash=8 -engine cmd=a name=A option.Hash=16 tc=1 -engine cmd=b name=B",
    )
    .unwrap();
    for engine in &args.engines {
        assert_eq!(engine.tc.as_deref(), Some("2+0.02"));
        assert_eq!(engine.options, [("Hash".to_string(), "8".to_string())]);
    }
}

#[test]
fn negative_numbers_are_values_and_dashes_start_options() {
    let args = read(&format!("{TWO} -concurrency -1 -rounds 3")).unwrap();
    assert_eq!((args.concurrency, args.rounds), (-1, 3));
    assert_eq!(
        parse(&words(&format!("{TWO} -rounds"))).unwrap_err(),
        "Error while reading option \"-rounds\" with value \"<none>\"\nReason: Option \"-rounds\" expects exactly one value."
    );
}

#[test]
fn unknown_options_and_keys_are_refused_as_fastchess_words_it() {
    assert_eq!(
        parse(&words(&format!("{TWO} -foo 3"))).unwrap_err(),
        "Unrecognized option: -foo parsing failed."
    );
    let e = parse(&words("-engine cmd=a name=A colour=red")).unwrap_err();
    assert!(
        e.ends_with("Reason: Unrecognized engine option \"colour\" with value \"red\"."),
        "{e}"
    );
    assert!(
        parse(&words("-engine cmd=a name=A proto=xboard"))
            .unwrap_err()
            .ends_with("Unsupported protocol.")
    );
    assert!(
        parse(&words(&format!("{TWO} -debug")))
            .unwrap_err()
            .contains("does not exist in fastchess")
    );
}

#[test]
fn games_over_two_are_read_as_rounds_and_penta_needs_pairs() {
    let args = read(&format!("{TWO} -games 10 -rounds 1")).unwrap();
    assert_eq!((args.games, args.rounds), (1, 10));
    assert!(!args.report_penta);
    assert!(read(&format!("{TWO} -games 10 -rounds 5")).is_err());
    let args = read(&format!("{TWO} -rounds 5 -repeat")).unwrap();
    assert_eq!((args.games, args.rounds), (2, 5));
    assert!(args.report_penta);
    assert!(
        !read(&format!("{TWO} -output format=cutechess"))
            .unwrap()
            .report_penta
    );
}

#[test]
fn engines_need_names_limits_and_their_own_names() {
    assert_eq!(
        parse(&words("-engine cmd=a tc=1 -engine cmd=b name=B tc=1")).unwrap_err(),
        "Error; please specify a name for each engine!"
    );
    assert_eq!(
        parse(&words("-engine cmd=a name=A -engine cmd=b name=B tc=1")).unwrap_err(),
        "Error; no TimeControl specified!"
    );
    assert_eq!(
        parse(&words(
            "-engine cmd=a name=A tc=1 -engine cmd=b name=A tc=1"
        ))
        .unwrap_err(),
        "Error: Engine with the same name are not allowed!: A"
    );
    assert!(read("-engine cmd=a name=A tc=inf nodes=1000 -engine cmd=b name=B depth=3").is_ok());
    assert_eq!(
        parse(&words(
            "-engine cmd=a name=A tc=1 st=1 -engine cmd=b name=B tc=1"
        ))
        .unwrap_err(),
        "Error; cannot use tc and st together!"
    );
}

#[test]
fn time_controls_read_as_fastchess_reads_them() {
    let pgn = |tc: &str| tc_limits(tc).unwrap().pgn();
    assert_eq!(pgn("40/60+0.6").as_deref(), Some("40/60+0.6"));
    assert_eq!(pgn("10.420+0.104").as_deref(), Some("10.42+0.104"));
    assert_eq!(pgn("2.000+0.020").as_deref(), Some("2+0.02"));
    assert_eq!(pgn("40/1:30+1").as_deref(), Some("40/90+1"));
    assert_eq!(pgn("0:05").as_deref(), Some("5"));
    assert_eq!(pgn("inf"), None);
    // As fastchess reads them, cut to the millisecond below.
    assert_eq!(tc_limits("1.001").unwrap().time_ms, 1000);
    assert_eq!(tc_limits("2.002+0.020").unwrap().time_ms, 2001);
    assert_eq!(pgn("inf/10").as_deref(), Some("10"));
    assert!(tc_limits("hg5").is_err());
    assert!(tc_limits("fast").is_err());
}

#[test]
fn fishtests_line_reads_whole() {
    let line = "-testEnv -recover -repeat -games 2 -rounds 4 -ratinginterval 1 -scoreinterval 1 -autosaveinterval 0 -report penta=true -pgnout file=games.pgn append=false -crc32 pgn=true -site https://tests.example.org/tests/view/abc -event Batch_7 -srand 12345 -resign movecount=3 score=600 -draw movenumber=34 movecount=8 score=20 -variant standard -concurrency 2 -check-mate-pvs -engine name=New-1a2b3c4d5e tc=2.000+0.020 cmd=stockfish dir=engines option.Hash=16 -engine name=Base-0f9e8d7c6b tc=2.000+0.020 cmd=stockfish dir=engines option.Hash=8 -each proto=uci option.Threads=1";
    let args = read(line).unwrap();
    assert!(args.test_env && args.recover && args.crc32_pgn && args.check_mate_pvs);
    assert_eq!((args.games, args.rounds, args.ratinginterval), (2, 4, 1));
    assert_eq!(args.autosaveinterval, 0);
    let pgn = args.pgnout.as_ref().unwrap();
    assert!(!pgn.append);
    assert_eq!(args.engines[1].options.len(), 2);
    assert_eq!(args.engines[0].dir, Some(PathBuf::from("engines")));
    assert_eq!(args.srand, Some(12345));
}

#[test]
fn version_and_help() {
    assert!(matches!(parse(&words("-version")).unwrap(), Run::Version));
    assert!(matches!(parse(&words("--version")).unwrap(), Run::Version));
    assert!(matches!(parse(&[]).unwrap(), Run::Help));
}

fn cutechess(line: &str) -> Result<MatchArgs, String> {
    match super::cutechess::parse(&words(line))? {
        Run::Match(args) => Ok(*args),
        other => panic!("{other:?}"),
    }
}

#[test]
fn cutechess_cli_reads_its_own_line() {
    let args = cutechess(
        "-engine cmd=./a proto=xboard initstr=memory\\n1 arg=--fast -engine cmd=/x/b.exe proto=uci -each tc=40/1:30+1 timemargin=50 -games 4 -rounds 3 -repeat -concurrency 3 -openings file=b.epd format=epd order=random -pgnout out.pgn fi -tournament knockout",
    )
    .unwrap();
    assert_eq!(args.dialect, Dialect::Cutechess);
    assert_eq!((args.games, args.rounds, args.repeat), (4, 3, Some(2)));
    assert_eq!(args.engines[0].proto, "xboard");
    assert_eq!(args.engines[0].init, ["memory\n1"]);
    assert_eq!(args.engines[0].args.as_deref(), Some("--fast"));
    // Named by its program when not by name=.
    assert_eq!(
        (args.engines[0].name.as_str(), args.engines[1].name.as_str()),
        ("a", "b")
    );
    assert_eq!(args.engines[1].tc.as_deref(), Some("40/1:30+1"));
    assert_eq!(args.engines[1].timemargin, Some(50));
    assert_eq!(args.tournament, Tournament::Knockout);
    assert!(args.force_concurrency && !args.report_penta);
    let openings = args.openings.unwrap();
    assert!(openings.words.contains(&"format=epd".to_string()));
    assert!(args.pgnout.is_some_and(|p| p.append && !p.min));
}

#[test]
fn cutechess_cli_reads_a_book_as_pgn_unless_told_and_refuses_what_argus_cannot_do() {
    let two = "-engine cmd=a proto=uci tc=1 -engine cmd=b proto=uci tc=1";
    let args = cutechess(&format!("{two} -openings file=book.pgn")).unwrap();
    assert!(
        args.openings
            .unwrap()
            .words
            .contains(&"format=pgn".to_string())
    );
    assert_eq!(
        cutechess(&format!("{two} -rounds 2 -rounds 3")).unwrap_err(),
        "Multiple instances of option \"-rounds\""
    );
    assert_eq!(
        cutechess("-engine cmd=a proto=uci -engine cmd=b proto=uci tc=1").unwrap_err(),
        "Invalid or missing time control"
    );
    for (extra, refused) in [
        ("-each ponder", "ponder: "),
        ("-each conf=SF", "conf=SF: "),
        (
            "-openings file=b.pgn policy=round",
            "-openings policy=round: ",
        ),
        ("-pgnout x.pgn min -resultformat wide", "-resultformat: "),
        ("-bookmode ram", "-bookmode: "),
        ("-debug", "-debug: "),
    ] {
        let e = cutechess(&format!("{two} {extra}")).unwrap_err();
        assert!(e.starts_with(refused), "{extra}: {e}");
    }
}

#[test]
fn quick_is_fastchesss_shortcut() {
    let args = read("-quick cmd=sf cmd=sf book=b.epd").unwrap();
    let names: Vec<&str> = args.engines.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["sf1", "sf2"]);
    assert_eq!((args.games, args.rounds), (2, 25_000));
    assert!(args.recover && args.draw.is_some());
    assert_eq!(args.output, OutputFormat::Cutechess);
    assert!(!args.report_penta);
    assert_eq!(args.engines[1].tc.as_deref(), Some("10+0.1"));
    assert!(parse(&words("-quick cmd=a book=b.epd")).is_err());
    assert!(parse(&words("-quick cmd=a cmd=b book=b.txt")).is_err());
}
