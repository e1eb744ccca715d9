use super::*;
use proptest::prelude::*;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

fn check_text(text: &str) -> Summary {
    check(text.as_bytes(), usize::MAX).unwrap()
}

/// The errors of a one-record input, as sentences.
fn errors_of(record: &str) -> Vec<String> {
    let summary = check_text(record);
    assert!(summary.errors.iter().all(|e| e.line == 1));
    summary.errors.into_iter().map(|e| e.error).collect()
}

fn one_error(record: &str) -> String {
    let errors = errors_of(record);
    assert_eq!(errors.len(), 1, "{record}: {errors:?}");
    errors.into_iter().next().unwrap()
}

fn normalized(text: &str) -> (String, Summary) {
    let mut out = Vec::new();
    let summary = normalize(text.as_bytes(), &mut out, false).unwrap();
    (String::from_utf8(out).unwrap(), summary)
}

fn normalize_one(record: &str) -> String {
    let (out, summary) = normalized(record);
    assert!(summary.is_clean(), "{record}: {summary:?}");
    out.trim_end_matches('\n').to_owned()
}

#[test]
fn valid_records_pass() {
    let text = format!(
        "{START} bm e4 d4; am a3; ce 25; acn 1000; acs 0; dm 3; fmvn 1; hmvc 0; hmv 0; rc 1; id \"x\"; c0 \"hi\"; c1; eco \"C20\"; pv e4 e5 Nf3; pm e4; sm e2e4; sv e4 e5; noop 1 x \"y\"; cc 000:00:01:00 000:00:02:00; ts 2024.05.01 12:00:00; ptp Event \"Club\" Round \"1\"; refcom respond; tcsi \"a@b\" \"me\";\n\
             # a comment\n\
             \n\
             \t \n\
             4k3/8/8/8/8/8/8/4K3 b - - ce -32768;\r\n\
             4k3/8/8/8/8/8/8/4K3 w - -"
    );
    let summary = check_text(&text);
    assert_eq!(summary.errors, vec![]);
    assert_eq!(summary.records, 3);
    assert_eq!(summary.skipped, 3);
    assert_eq!(summary.written, 0);
    assert!(summary.is_clean());
}

#[test]
fn parse_errors_with_line_numbers() {
    let text = format!(
        "{START}\n{START} sm e4\n\nrnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq -\n{START} c0 \"caf\u{e9}\";\n"
    );
    let summary = check_text(&text);
    let lines: Vec<String> = summary.errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "line 2: operation sm is not closed by ';'",
            "line 4: invalid position: invalid turn part in fen",
            "line 5: byte 0xc3 at offset 60 is not allowed",
        ]
    );
    assert_eq!(summary.records, 4);
    assert_eq!(summary.invalid, 3);
    assert_eq!(summary.skipped, 1);
}

#[test]
fn illegal_positions() {
    assert_eq!(
        one_error("4k3/8/8/8/8/8/8/3KK3 w - -"),
        "invalid position: too many kings"
    );
    assert_eq!(
        one_error("8/8/8/8/8/8/8/4K3 w - -"),
        "invalid position: missing king"
    );
    assert_eq!(
        one_error("4k3/8/8/8/8/8/8/R3K3 w K -"),
        "invalid position: invalid castling rights"
    );
    assert_eq!(
        one_error("4k3/8/8/8/8/8/8/4K3 w - e6"),
        "invalid position: invalid ep square"
    );
    assert_eq!(
        one_error("4k3/8/8/8/8/8/4Q3/4K3 w - -"),
        "invalid position: opposite check"
    );
    assert_eq!(
        one_error("P3k3/8/8/8/8/8/8/4K3 w - -"),
        "invalid position: pawns on backrank"
    );
    // An en passant square without a pawn that could capture is legal.
    assert!(check_text("4k3/8/8/8/3P4/8/8/4K3 b - d3").is_clean());
}

#[test]
fn move_operands() {
    assert_eq!(
        one_error(&format!("{START} bm e5;")),
        "bm: illegal move \"e5\""
    );
    assert_eq!(
        one_error(&format!("{START} am Nf6;")),
        "am: illegal move \"Nf6\""
    );
    assert_eq!(
        errors_of(&format!("{START} bm e5 d4 Ke2;")),
        ["bm: illegal move \"e5\"", "bm: illegal move \"Ke2\""]
    );
    assert_eq!(
        one_error(&format!("{START} sm e2-e4;")),
        "sm: unreadable move \"e2-e4\""
    );
    assert_eq!(one_error(&format!("{START} pm 5;")), "pm: 5 is not a move");
    assert_eq!(
        one_error(&format!("{START} bm \"e4\";")),
        "bm: \"e4\" is not a move"
    );
    assert_eq!(
        one_error(&format!("{START} sm e4 d4;")),
        "sm takes one move, found e4 d4"
    );
    assert_eq!(
        one_error(&format!("{START} pm;")),
        "pm takes one move, found nothing"
    );
    assert_eq!(
        one_error(&format!("{START} pv e4 e5 Nf6 Nc6;")),
        "pv move 3: illegal move \"Nf6\""
    );
    assert_eq!(
        one_error(&format!("{START} sv e5;")),
        "sv move 1: illegal move \"e5\""
    );
    assert_eq!(
        one_error(&format!("{START} sm e4; sv d4 d5;")),
        "sm e4 is not the first move of sv, d4"
    );
    // The same move in two notations agrees.
    assert!(check_text(&format!("{START} pm Nf3; pv g1f3 d5; sm e2e4; sv e4;")).is_clean());
    // Moves are not checked in an illegal position.
    assert_eq!(
        one_error("4k3/8/8/8/8/8/8/3KK3 w - - bm e4;"),
        "invalid position: too many kings"
    );
}

#[test]
fn integer_operands() {
    let cases = [
        (
            "ce 32767;",
            "ce takes one integer from -32768 to 32766, found 32767",
        ),
        (
            "ce -32769;",
            "ce takes one integer from -32768 to 32766, found -32769",
        ),
        (
            "ce 1.5;",
            "ce takes one integer from -32768 to 32766, found 1.5",
        ),
        (
            "ce;",
            "ce takes one integer from -32768 to 32766, found nothing",
        ),
        ("dm 0;", "dm takes one positive integer, found 0"),
        ("fmvn 0;", "fmvn takes one positive integer, found 0"),
        ("rc -1;", "rc takes one positive integer, found -1"),
        ("tcgs x;", "tcgs takes one positive integer, found x"),
        ("hmvc -1;", "hmvc takes one non-negative integer, found -1"),
        ("hmv 1 2;", "hmv takes one non-negative integer, found 1 2"),
        ("acn 1e5;", "acn takes one non-negative integer, found 1e5"),
        (
            "acs \"3\";",
            "acs takes one non-negative integer, found \"3\"",
        ),
        ("acd -2;", "acd takes one non-negative integer, found -2"),
    ];
    for (ops, expected) in cases {
        assert_eq!(one_error(&format!("{START} {ops}")), expected, "{ops}");
    }
    for ops in [
        "ce -32768;",
        "ce 32766;",
        "ce +5;",
        "dm 1;",
        "hmvc 0;",
        "acn 99999999999;",
    ] {
        assert!(check_text(&format!("{START} {ops}")).is_clean(), "{ops}");
    }
}

#[test]
fn other_operand_shapes() {
    let cases = [
        ("id BK.01;", "id takes one string, found BK.01"),
        ("id;", "id takes one string, found nothing"),
        ("c0 hello;", "c0 takes one string or nothing, found hello"),
        (
            "v3 \"a\" \"b\";",
            "v3 takes one string or nothing, found \"a\" \"b\"",
        ),
        ("eco C20;", "eco takes one string or nothing, found C20"),
        (
            "cc 000:00:01:00;",
            "cc takes two clocks, found 000:00:01:00",
        ),
        (
            "ts 12:00:00 2024.01.01;",
            "ts takes a date and a time of day, found 12:00:00 2024.01.01",
        ),
        ("tcri \"a\";", "tcri takes two strings, found \"a\""),
        (
            "ptp Event;",
            "ptp takes pairs of a tag name and a string, found Event",
        ),
        (
            "ptp \"Event\" \"x\";",
            "ptp takes pairs of a tag name and a string, found \"Event\" \"x\"",
        ),
        ("resign now;", "resign takes no operands, found now"),
        ("draw_offer 1;", "draw_offer takes no operands, found 1"),
        (
            "refcom \"respond\";",
            "refcom takes one identifier, found \"respond\"",
        ),
    ];
    for (ops, expected) in cases {
        assert_eq!(one_error(&format!("{START} {ops}")), expected, "{ops}");
    }
    // Unknown and private opcodes are not checked.
    assert!(check_text(&format!("{START} Xfoo 1 \"a\" b; zz;")).is_clean());
    // A long list of operands is shortened in the message.
    let error = one_error(&format!("{START} id {};", "\"abcdefghij\" ".repeat(10)));
    assert!(error.ends_with("..."), "{error}");
    assert!(error.len() < 100, "{error}");
}

#[test]
fn every_error_of_every_line_is_reported_up_to_the_limit() {
    let text = format!("{START} ce x; dm 0; bm e5;\n{START} acn -1;\n{START} rc 0;\n");
    let summary = check_text(&text);
    let lines: Vec<String> = summary.errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "line 1: ce takes one integer from -32768 to 32766, found x",
            "line 1: dm takes one positive integer, found 0",
            "line 1: bm: illegal move \"e5\"",
            "line 2: acn takes one non-negative integer, found -1",
            "line 3: rc takes one positive integer, found 0",
        ]
    );
    let capped = check(text.as_bytes(), 2).unwrap();
    assert_eq!(capped.errors.len(), 2);
    assert_eq!(capped.invalid, 3);
    assert_eq!(capped.records, 3);
    assert!(!capped.is_clean());
}

#[test]
fn lines_end_with_lf_or_cr_lf_and_may_be_too_long() {
    let text = format!("{START}\r\n\r\n{START} ce 1;\r\n{START}");
    let summary = check_text(&text);
    assert_eq!((summary.records, summary.skipped), (3, 1));
    assert!(summary.is_clean());

    let long = format!("{START} c0 \"{}\";", "x".repeat(200)).repeat(30);
    let huge = "y".repeat(MAX_LINE_LEN + 10);
    let text = format!("{long}\n{huge}\r\n{START}\n");
    let summary = check_text(&text);
    let lines: Vec<String> = summary.errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            format!(
                "line 1: record is {} bytes long, more than 4095",
                long.len()
            ),
            format!(
                "line 2: record is {} bytes long, more than 4095",
                huge.len()
            ),
        ]
    );
    assert_eq!(summary.records, 3);

    // An overlong line cannot be copied unchanged.
    let mut out = Vec::new();
    let summary = normalize(text.as_bytes(), &mut out, true).unwrap();
    assert_eq!(summary.written, 2);
    assert_eq!(summary.errors.len(), 3);
    assert_eq!(
        summary.errors[2].to_string(),
        format!(
            "line 2: line is {} bytes long, more than {MAX_LINE_LEN}, and is left out",
            huge.len()
        )
    );
    assert_eq!(out, format!("{long}\n{START}\n").into_bytes());
}

#[test]
fn normalize_reduces_castling_to_what_is_possible() {
    assert_eq!(
        normalize_one("r3k2r/8/8/8/8/8/8/4K2R w KQkq -"),
        "r3k2r/8/8/8/8/8/8/4K2R w Kkq -"
    );
    assert_eq!(
        normalize_one("r3k2r/8/8/8/8/8/8/3K3R b KQkq -"),
        "r3k2r/8/8/8/8/8/8/3K3R b kq -"
    );
    assert_eq!(
        normalize_one("4k3/8/8/8/8/8/8/4K3 w KQkq -"),
        "4k3/8/8/8/8/8/8/4K3 w - -"
    );
    // X-FEN letters for a rook in the corner become K and Q.
    assert_eq!(normalize_one(&START.replace("KQkq", "HAha")), START);
}

#[test]
fn normalize_keeps_the_en_passant_square() {
    // Spec 4.4: the square is given after every double pawn push, also
    // when no pawn can capture.
    let record = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3";
    assert_eq!(normalize_one(record), record);
    let (out, summary) = normalized("4k3/8/8/8/8/8/8/4K3 w - e6\n");
    assert_eq!(out, "");
    assert_eq!(
        summary.errors,
        [LineError {
            line: 1,
            error: "invalid position: invalid ep square".into()
        }]
    );
}

#[test]
fn normalize_writes_moves_in_canonical_san() {
    assert_eq!(
        normalize_one(&format!("{START} sm e2e4;")),
        format!("{START} sm e4;")
    );
    assert_eq!(
        normalize_one(&format!("{START} pv e2e4 e7e5 g1f3 Nb8c6;")),
        format!("{START} pv e4 e5 Nf3 Nc6;")
    );
    // Check and mate marks are added.
    let after_e4_f5 = "rnbqkbnr/ppppp1pp/8/5p2/4P3/8/PPPP1PPP/RNBQKBNR w KQkq f6";
    assert_eq!(
        normalize_one(&format!("{after_e4_f5} pm d1h5;")),
        format!("{after_e4_f5} pm Qh5+;")
    );
    let fools_mate = "rnbqkbnr/pppp1ppp/8/4p3/6P1/5P2/PPPPP2P/RNBQKBNR b KQkq g3";
    assert_eq!(
        normalize_one(&format!("{fools_mate} bm d8h4;")),
        format!("{fools_mate} bm Qh4#;")
    );
    let castles = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq -";
    assert_eq!(
        normalize_one(&format!("{castles} bm 0-0 e1c1; sm e1h1;")),
        format!("{castles} bm O-O O-O-O; sm O-O;")
    );
    let promotion = "3r3k/4P3/8/8/8/8/8/K7 w - -";
    assert_eq!(
        normalize_one(&format!("{promotion} am e7e8q exd8N e8Q;")),
        format!("{promotion} am e8=Q+ exd8=N;")
    );
}

#[test]
fn normalize_sorts_bm_and_am_and_nothing_else() {
    assert_eq!(
        normalize_one(&format!("{START} bm e4 Nf3 d2d4 e2e4; am h4 a3;")),
        format!("{START} am a3 h4; bm Nf3 d4 e4;")
    );
    assert_eq!(
        normalize_one(&format!("{START} noop b a; ptp White \"b\" Black \"a\";")),
        format!("{START} noop b a; ptp White \"b\" Black \"a\";")
    );
}

#[test]
fn normalize_reorders_operations_and_blanks() {
    let messy = format!(
        "  \t{}\t id \"x\";  ce +15 ;acn 5;   c0 \"a\tb\";\t\r\n",
        START.replace(' ', "  ")
    );
    let (out, summary) = normalized(&messy);
    assert_eq!(
        out,
        format!("{START} acn 5; c0 \"a b\"; ce 15; id \"x\";\n")
    );
    assert_eq!((summary.records, summary.written), (1, 1));
    let (again, _) = normalized(&out);
    assert_eq!(again, out);
}

#[test]
fn normalize_leaves_out_or_keeps_invalid_records() {
    let text =
        format!("# openings\n\n{START} bm e5;\n  # second  \r\n{START} sm e2e4;\nnot a record\n");
    let (out, summary) = normalized(&text);
    assert_eq!(out, format!("# openings\n# second\n{START} sm e4;\n"));
    assert_eq!(
        summary,
        Summary {
            records: 3,
            written: 1,
            skipped: 3,
            invalid: 2,
            errors: vec![
                LineError {
                    line: 3,
                    error: "bm: illegal move \"e5\"".into()
                },
                LineError {
                    line: 6,
                    error: "record has 3 of the 4 data fields".into()
                },
            ],
        }
    );
    let mut out = Vec::new();
    let summary = normalize(text.as_bytes(), &mut out, true).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        format!("# openings\n{START} bm e5;\n# second\n{START} sm e4;\nnot a record\n")
    );
    assert_eq!((summary.written, summary.invalid), (3, 2));
    // Non-ASCII input is an error for its line only.
    let mut bytes = format!("{START} c0 \"").into_bytes();
    bytes.extend_from_slice(b"\xff\xfe\";\n");
    bytes.extend_from_slice(format!("{START}\n").as_bytes());
    let mut out = Vec::new();
    let summary = normalize(bytes.as_slice(), &mut out, false).unwrap();
    assert_eq!(out, format!("{START}\n").into_bytes());
    assert_eq!(
        summary.errors[0].to_string(),
        "line 1: byte 0xff at offset 57 is not allowed"
    );
}

#[test]
fn purge_removes_one_opcode() {
    let text = format!(
        "{START}  id \"a\"; ce 5;acn 3;\n# keep me \n\n{START} ce 7;\n{START} ce;\nbroken record\n{START} id \"b\";\n"
    );
    let mut out = Vec::new();
    let summary = purge(text.as_bytes(), &mut out, "ce").unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        format!(
            "{START} acn 3; id \"a\";\n# keep me \n\n{START}\n{START}\nbroken record\n{START} id \"b\";\n"
        )
    );
    assert_eq!(
        summary,
        Summary {
            records: 5,
            written: 5,
            skipped: 2,
            invalid: 1,
            errors: vec![LineError {
                line: 6,
                error: "record has 2 of the 4 data fields".into()
            }],
        }
    );
    let err = purge(text.as_bytes(), Vec::new(), "1ce").unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    assert_eq!(err.to_string(), "\"1ce\" is not an opcode");
}

#[test]
fn read_errors_are_returned() {
    struct Failing;
    impl io::Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::other("disk on fire"))
        }
    }
    let input = io::BufReader::new(Failing);
    assert_eq!(check(input, 1).unwrap_err().to_string(), "disk on fire");
}

#[test]
fn generated_records_are_valid() {
    let mut rng = fastrand::Rng::with_seed(7);
    for _ in 0..200 {
        let record = random_record(&mut rng, false);
        let summary = check_text(&record);
        assert!(summary.is_clean(), "{record}: {summary:?}");
    }
    let (check_rate, normalize_rate) = throughput(100);
    assert!(check_rate > 0.0 && normalize_rate > 0.0);
}

/// What a record means, for comparing a record with its normalized form:
/// the position with its possible castling rights, the moves as
/// coordinates (move sets sorted) and the other operands as written.
fn meaning(line: &str) -> (String, Vec<(String, Vec<String>)>) {
    let record = Record::from_ascii(line.as_bytes()).unwrap();
    let pos = Chess::from_setup(record.setup(), CastlingMode::Standard)
        .or_else(PositionError::ignore_invalid_castling_rights)
        .unwrap();
    let mut operations = Vec::new();
    for op in &record.operations {
        let mut current = pos.clone();
        let mut operands: Vec<String> = op
            .operands
            .iter()
            .map(|operand| match op.opcode.as_str() {
                "sm" | "pm" | "bm" | "am" | "pv" | "sv" => {
                    let m = resolve_move(&current, operand.as_move_text().unwrap()).unwrap();
                    if matches!(op.opcode.as_str(), "pv" | "sv") {
                        current.play_unchecked(m);
                    }
                    UciMove::from_standard(m).to_string()
                }
                _ => operand.to_string(),
            })
            .collect();
        if matches!(op.opcode.as_str(), "bm" | "am") {
            operands.sort();
            operands.dedup();
        }
        operations.push((op.opcode.to_string(), operands));
    }
    operations.sort();
    (
        Epd::from_position(&pos, EnPassantMode::Always).to_string(),
        operations,
    )
}

fn random_file(seed: u64, count: usize) -> String {
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..count)
        .map(|_| random_record(&mut rng, true) + "\n")
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Normalizing random valid records: it is idempotent, its output
    /// reads back as the same records, `check` accepts it, and each record
    /// keeps its meaning.
    #[test]
    fn normalize_round_trips(seed in any::<u64>(), count in 1usize..6) {
        let input = random_file(seed, count);
        let (once, summary) = normalized(&input);
        prop_assert!(summary.is_clean(), "{input}: {summary:?}");
        prop_assert_eq!(summary.written, count);

        let (twice, again) = normalized(&once);
        prop_assert_eq!(&twice, &once);
        prop_assert!(again.is_clean());

        for line in once.lines() {
            let record = Record::from_ascii(line.as_bytes()).unwrap();
            prop_assert_eq!(record.to_string(), line);
            prop_assert_eq!(Record::from_ascii(record.to_string().as_bytes()), Ok(record));
        }

        let checked = check(once.as_bytes(), usize::MAX).unwrap();
        prop_assert!(checked.is_clean(), "{once}: {checked:?}");
        prop_assert_eq!(checked.records, count);

        for (original, normal) in input.lines().zip(once.lines()) {
            prop_assert_eq!(meaning(original), meaning(normal));
        }
    }

    /// Damaged input never makes a tool panic, and normalizing it is
    /// still idempotent and gives records that `check` accepts.
    #[test]
    fn damaged_input_is_reported_not_fatal(
        seed in any::<u64>(),
        damage in prop::collection::vec((any::<usize>(), any::<u8>()), 0..6),
    ) {
        let mut input = random_file(seed, 4).into_bytes();
        for (at, byte) in damage {
            let len = input.len();
            input[at % len] = byte;
        }
        let checked = check(input.as_slice(), usize::MAX).unwrap();
        let mut once = Vec::new();
        let summary = normalize(input.as_slice(), &mut once, false).unwrap();
        prop_assert_eq!(summary.records, checked.records);
        let mut twice = Vec::new();
        normalize(once.as_slice(), &mut twice, false).unwrap();
        prop_assert_eq!(&twice, &once);
        prop_assert!(check(once.as_slice(), usize::MAX).unwrap().is_clean());
        let mut kept = Vec::new();
        let with_invalid = normalize(input.as_slice(), &mut kept, true).unwrap();
        prop_assert_eq!(with_invalid.written, with_invalid.records);
        let purged = purge(input.as_slice(), Vec::new(), "bm").unwrap();
        prop_assert_eq!(purged.records, checked.records);
    }
}
