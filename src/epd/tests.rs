//! Tests of reading and writing whole records, including property tests that
//! check that reading never panics and that writing round-trips.

use super::*;

use proptest::prelude::*;
use shakmaty::{CastlingMode, Chess, Color, Position, Square};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
const RESPOND: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 cc 000:00:00:01 000:00:00:00; fmvn 1; hmvc 0; refcom respond; sm e4;";

fn read(line: &str) -> Result<Record, EpdError> {
    Record::from_ascii(line.as_bytes())
}

fn ok(line: &str) -> Record {
    match read(line) {
        Ok(r) => r,
        Err(e) => panic!("{line:?} should read: {e}"),
    }
}

fn id(s: &str) -> Operand {
    Operand::Identifier(s.into())
}

fn string(s: &str) -> Operand {
    Operand::Str(s.into())
}

fn with_ops(ops: &str) -> String {
    format!("{START} {ops}")
}

#[test]
fn respond_example() {
    let r = ok(RESPOND);
    assert_eq!(
        r.position.to_string(),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3"
    );
    assert_eq!(r.refcom(), Some("respond"));
    assert_eq!(r.refreq(), None);
    assert_eq!(
        r.operands("cc"),
        Some(
            &[
                Operand::Clock(Clock::from_secs(1).unwrap()),
                Operand::Clock(Clock::ZERO)
            ][..]
        )
    );
    assert_eq!(r.operands("fmvn"), Some(&[Operand::Integer(1)][..]));
    assert_eq!(r.operands("hmvc"), Some(&[Operand::Integer(0)][..]));
    assert_eq!(r.operands("sm").unwrap()[0].as_move_text(), Some("e4"));
    let opcodes: Vec<&str> = r.operations.iter().map(|op| op.opcode.as_str()).collect();
    assert_eq!(opcodes, ["cc", "fmvn", "hmvc", "refcom", "sm"]);
    // The example is canonical already.
    assert_eq!(r.to_string(), RESPOND);
    let setup = r.setup();
    assert_eq!(setup.turn, Color::Black);
    assert_eq!(setup.ep_square, Some(Square::E3));
}

#[test]
fn sign_on_example() {
    let line = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - refreq sign_on; tcsi \"me@example.org\" \"Random Mover\";";
    let r = ok(line);
    assert_eq!(r.refreq(), Some("sign_on"));
    assert_eq!(
        r.operands("tcsi"),
        Some(&[string("me@example.org"), string("Random Mover")][..])
    );
    assert_eq!(r.to_string(), line);
}

#[test]
fn timestamp_example() {
    let r = ok(&with_ops("ts 1995.10.31 12:34:56;"));
    assert_eq!(
        r.operands("ts"),
        Some(
            &[
                Operand::Date(Date::new(1995, 10, 31).unwrap()),
                Operand::Time(TimeOfDay::new(12, 34, 56).unwrap())
            ][..]
        )
    );
    assert_eq!(r.to_string(), with_ops("ts 1995.10.31 12:34:56;"));
}

#[test]
fn tag_pair_example() {
    let r = ok(&with_ops("ptp Event \"Club match\" Site \"Hall\";"));
    assert_eq!(
        r.operands("ptp"),
        Some(
            &[
                id("Event"),
                string("Club match"),
                id("Site"),
                string("Hall")
            ][..]
        )
    );
    assert_eq!(
        r.to_string(),
        with_ops("ptp Event \"Club match\" Site \"Hall\";")
    );
}

#[test]
fn records_without_operations() {
    let r = ok(START);
    assert!(r.operations.is_empty());
    assert_eq!(r.to_string(), START);
    assert_eq!(r, Record::new(Epd::default()));
    assert_eq!(r.setup(), Setup::default());
}

#[test]
fn operations_without_operands() {
    let r = ok(&with_ops("draw_offer; resign;sm e4;"));
    assert_eq!(r.operands("draw_offer"), Some(&[][..]));
    assert!(r.has("resign"));
    assert_eq!(r.to_string(), with_ops("draw_offer; resign; sm e4;"));
}

#[test]
fn blanks_are_trimmed_and_collapsed() {
    let messy = "  \trnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR \t w   KQkq\t-   refreq\t sign_on ;tcsi  \"a  b\"\t\"c\" ;  \t ";
    let r = ok(messy);
    assert_eq!(
        r.to_string(),
        with_ops("refreq sign_on; tcsi \"a  b\" \"c\";")
    );
    assert_eq!(r.operands("tcsi").unwrap()[0], string("a  b"));
}

#[test]
fn line_terminators_are_tolerated() {
    for end in ["\n", "\r", "\r\n"] {
        let r = ok(&format!("{RESPOND}{end}"));
        assert_eq!(r.to_string(), RESPOND);
    }
    let line = format!("{RESPOND}\n\n");
    assert_eq!(
        read(&line),
        Err(EpdError::BadByte {
            offset: RESPOND.len(),
            byte: b'\n'
        })
    );
}

#[test]
fn strings_hold_spaces_and_semicolons() {
    let r = ok(&with_ops("c0 \"a; b;; \";c1 \"\"; id \";\";"));
    assert_eq!(r.operands("c0"), Some(&[string("a; b;; ")][..]));
    assert_eq!(r.operands("c1"), Some(&[string("")][..]));
    assert_eq!(r.operands("id"), Some(&[string(";")][..]));
    assert_eq!(
        r.to_string(),
        with_ops("c0 \"a; b;; \"; c1 \"\"; id \";\";")
    );
}

#[test]
fn string_limits() {
    let max = "x".repeat(MAX_STRING_LEN);
    let r = ok(&with_ops(&format!("c0 \"{max}\";")));
    assert_eq!(r.operands("c0"), Some(&[string(&max)][..]));
    let over = "x".repeat(MAX_STRING_LEN + 1);
    let line = with_ops(&format!("c0 \"{over}\";"));
    assert_eq!(
        read(&line),
        Err(EpdError::StringTooLong {
            offset: START.len() + 4,
            len: 256
        })
    );
    assert_eq!(
        read(&with_ops("c0 \"abc;")),
        Err(EpdError::UnterminatedString {
            offset: START.len() + 4
        })
    );
    // A TAB inside a string reads as a space.
    assert_eq!(
        read(&with_ops("c0 \"a\tb\";")).map(|r| r.operands("c0").map(<[Operand]>::to_vec)),
        Ok(Some(vec![Operand::Str("a b".into())]))
    );
    assert_eq!(
        read(&with_ops("c0 \"a\"b;")),
        Err(EpdError::BadOperand {
            opcode: "c0".into(),
            token: "\"a\"b".into()
        })
    );
    assert_eq!(
        read(&with_ops("c0 a\"b\";")),
        Err(EpdError::BadOperand {
            opcode: "c0".into(),
            token: "a\"b\"".into()
        })
    );
}

#[test]
fn every_basetype_in_one_record() {
    let line = with_ops(
        "acn 123456789012; cc 999:23:59:59 000:00:00:00; ce -32767; noop +7 2.5 -0.50 O-O-O e8=Q; pv e4 Nf3+ exd6e.p.; ts 0001.01.01 00:00:00;",
    );
    let r = ok(&line);
    assert_eq!(
        r.operands("noop"),
        Some(
            &[
                Operand::Integer(7),
                Operand::Float(2.5),
                Operand::Float(-0.5),
                Operand::Move("O-O-O".into()),
                Operand::Move("e8=Q".into())
            ][..]
        )
    );
    assert_eq!(
        r.operands("pv"),
        Some(
            &[
                id("e4"),
                Operand::Move("Nf3+".into()),
                Operand::Move("exd6e.p.".into())
            ][..]
        )
    );
    assert_eq!(
        r.to_string(),
        with_ops(
            "acn 123456789012; cc 999:23:59:59 000:00:00:00; ce -32767; noop 7 2.5 -0.5 O-O-O e8=Q; pv e4 Nf3+ exd6e.p.; ts 0001.01.01 00:00:00;"
        )
    );
}

#[test]
fn operands_out_of_range_or_of_no_basetype() {
    let cases = [
        ("ts 1995.13.01;", "1995.13.01"),
        ("ts 1995.01.32;", "1995.01.32"),
        ("ts 0000.01.01;", "0000.01.01"),
        ("ts 24:00:00;", "24:00:00"),
        ("cc 000:00:60:00;", "000:00:60:00"),
        ("acn 9223372036854775808;", "9223372036854775808"),
    ];
    for (ops, token) in cases {
        let opcode = ops.split(' ').next().unwrap().to_owned();
        assert_eq!(
            read(&with_ops(ops)),
            Err(EpdError::OutOfRange {
                opcode,
                token: token.into()
            }),
            "{ops}"
        );
    }
    for (ops, token) in [
        ("c0 a-b;", "a-b"),
        ("c0 abcdefghijklmnop;", "abcdefghijklmnop"),
        ("c0 1.5e3;", "1.5e3"),
        ("c0 -;", "-"),
        ("c0 1995.1.1;", "1995.1.1"),
    ] {
        // Tokens of no basetype are kept as they are: the record stays well formed.
        assert_eq!(
            read(&with_ops(ops)).map(|r| r.operands("c0").map(<[Operand]>::to_vec)),
            Ok(Some(vec![Operand::Token(token.into())])),
            "{ops}"
        );
    }
}

#[test]
fn opcodes() {
    let long = "a".repeat(MAX_OPCODE_LEN);
    assert!(ok(&with_ops(&format!("{long};"))).has(&long));
    assert!(ok(&with_ops("A_1;")).has("A_1"));
    let at = START.len() + 1;
    for ops in [
        format!("{long}a;"),
        "1ab;".into(),
        "_ab;".into(),
        "a-b;".into(),
        ";".into(),
        "\"c0\";".into(),
        "sm e4; ;".into(),
    ] {
        let offset = if ops.starts_with("sm") { at + 7 } else { at };
        assert_eq!(
            read(&with_ops(&ops)),
            Err(EpdError::BadOpcode { offset }),
            "{ops}"
        );
    }
    assert!(is_opcode("refcom"));
    assert!(!is_opcode("re-com"));
    assert!(!is_opcode(""));
}

#[test]
fn operations_must_be_closed() {
    assert_eq!(
        read(&with_ops("refreq sign_on")),
        Err(EpdError::Unterminated {
            opcode: "refreq".into()
        })
    );
    assert_eq!(
        read(&with_ops("sm e4; resign")),
        Err(EpdError::Unterminated {
            opcode: "resign".into()
        })
    );
    assert_eq!(
        read(&with_ops("c0 \"x\"")),
        Err(EpdError::Unterminated {
            opcode: "c0".into()
        })
    );
}

#[test]
fn duplicate_opcodes_are_errors() {
    assert_eq!(
        read(&with_ops("sm e4; c0 \"x\"; sm d4;")),
        Err(EpdError::DuplicateOpcode {
            opcode: "sm".into()
        })
    );
    // Opcodes are case-sensitive: a private `Sm` is another opcode.
    assert!(read(&with_ops("sm e4; Sm d4;")).is_ok());
}

#[test]
fn writing_sorts_opcodes_in_ascii_order() {
    let r = ok(&with_ops("sm e4; refcom respond; Zz; c0 \"x\"; a_b; a; A;"));
    assert_eq!(
        r.to_string(),
        with_ops("A; Zz; a; a_b; c0 \"x\"; refcom respond; sm e4;")
    );
    // Reading keeps the order of the line.
    assert_eq!(r.operations[0].opcode, "sm");
    let mut built = Record::new(Epd::default());
    built.set("sm", vec![id("e4")]);
    built.set("refcom", vec![id("respond")]);
    built.set("cc", vec![Operand::Clock(Clock::ZERO); 2]);
    assert_eq!(
        built.to_string(),
        with_ops("cc 000:00:00:00 000:00:00:00; refcom respond; sm e4;")
    );
}

#[test]
fn record_length_limit() {
    let base = with_ops("c0 \"\";");
    let pad = |n: usize| {
        let mut line = base.clone();
        // Grow the record with comment operations until it is exactly n bytes.
        let mut k = 1;
        while line.len() + 30 < n {
            line.push_str(&format!(" c{k} \"{}\";", "y".repeat(20)));
            k += 1;
        }
        line.push_str(&format!(" zz \"{}\";", "z".repeat(n - line.len() - 7)));
        assert_eq!(line.len(), n);
        line
    };
    let at_limit = pad(MAX_RECORD_LEN);
    assert!(read(&at_limit).is_ok());
    assert!(read(&format!("{at_limit}\r\n")).is_ok());
    let over = pad(MAX_RECORD_LEN + 1);
    assert_eq!(read(&over), Err(EpdError::TooLong { len: 4096 }));
    let huge = vec![b'x'; 100_000];
    assert_eq!(
        Record::from_ascii(&huge),
        Err(EpdError::TooLong { len: 100_000 })
    );
}

#[test]
fn bytes_outside_printable_ascii() {
    let mut line = RESPOND.as_bytes().to_vec();
    line[10] = 0;
    assert_eq!(
        Record::from_ascii(&line),
        Err(EpdError::BadByte {
            offset: 10,
            byte: 0
        })
    );
    line[10] = 0x80;
    assert_eq!(
        Record::from_ascii(&line),
        Err(EpdError::BadByte {
            offset: 10,
            byte: 0x80
        })
    );
    let mut line = with_ops("c0 \"caf\u{e9}\";").into_bytes();
    let offset = line.len() - 4;
    assert_eq!(line[offset], 0xc3);
    assert_eq!(
        Record::from_ascii(&line),
        Err(EpdError::BadByte { offset, byte: 0xc3 })
    );
    line.truncate(3);
    line.push(0x7f);
    assert_eq!(
        Record::from_ascii(&line),
        Err(EpdError::BadByte {
            offset: 3,
            byte: 0x7f
        })
    );
    // TAB is a blank, and a CR inside the line is not.
    assert!(read(&format!("{START}\trefreq\tsign_on;")).is_ok());
    assert_eq!(
        read(&format!("{START}\r refreq sign_on;")),
        Err(EpdError::BadByte {
            offset: START.len(),
            byte: b'\r'
        })
    );
}

#[test]
fn empty_lines() {
    assert_eq!(read(""), Err(EpdError::Empty));
    assert_eq!(read(" \t  "), Err(EpdError::Empty));
    assert_eq!(read("\r\n"), Err(EpdError::Empty));
}

#[test]
fn missing_fields() {
    assert_eq!(
        read("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"),
        Err(EpdError::MissingFields { found: 1 })
    );
    assert_eq!(
        read("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq  "),
        Err(EpdError::MissingFields { found: 3 })
    );
}

#[test]
fn bad_data_fields() {
    use ParseFenError::*;
    let cases = [
        // Placement: a rank too short, too long, nine ranks, a bad letter,
        // Crazyhouse pockets and promoted markers.
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPP/RNBQKBNR w KQkq -",
            InvalidBoard,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPPP/RNBQKBNR w KQkq -",
            InvalidBoard,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/8 w KQkq -",
            InvalidBoard,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq -",
            InvalidBoard,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq -",
            InvalidBoard,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN~R w KQkq -",
            InvalidBoard,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR_w KQkq - -",
            InvalidBoard,
        ),
        (
            "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
            InvalidBoard,
        ),
        // Side to move.
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR W KQkq -",
            InvalidTurn,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR white KQkq -",
            InvalidTurn,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR - KQkq -",
            InvalidTurn,
        ),
        // Castling.
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx -",
            InvalidCastling,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w -- -",
            InvalidCastling,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq_ -",
            InvalidCastling,
        ),
        // En passant.
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e4",
            InvalidEpSquare,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e",
            InvalidEpSquare,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -;",
            InvalidEpSquare,
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq i6",
            InvalidEpSquare,
        ),
        // Operations where the fields should be.
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w refreq sign_on;",
            InvalidCastling,
        ),
    ];
    for (line, error) in cases {
        assert_eq!(read(line), Err(EpdError::Position(error.clone())), "{line}");
    }
    assert_eq!(
        EpdError::Position(InvalidTurn).to_string(),
        "invalid position: invalid turn part in fen"
    );
}

#[test]
fn castling_letters_of_x_fen_read_back() {
    // A castling right without its rook in the corner is written with the
    // rook's file, X-FEN style, and must read back.
    let r = ok("4k3/8/8/8/8/8/8/4K3 w K - sm Kd1;");
    assert_eq!(r.to_string(), "4k3/8/8/8/8/8/8/4K3 w H - sm Kd1;");
    assert_eq!(ok(&r.to_string()), r);
    let r = ok("r3k2r/8/8/8/8/8/8/R3K2R b HAha -");
    assert_eq!(r.to_string(), "r3k2r/8/8/8/8/8/8/R3K2R b KQkq -");
}

#[test]
fn setup_takes_move_counters_from_operations() {
    let r = ok(&with_ops("fmvn 12; hmvc 7;"));
    let setup = r.setup();
    assert_eq!(setup.halfmoves, 7);
    assert_eq!(setup.fullmoves.get(), 12);
    assert_eq!(ok(&with_ops("hmv 5;")).setup().halfmoves, 5);
    assert_eq!(ok(&with_ops("hmvn 4;")).setup().halfmoves, 4);
    assert_eq!(ok(&with_ops("hmvc 3; hmv 5;")).setup().halfmoves, 3);
    // Invalid counters are ignored.
    let r = ok(&with_ops("fmvn 0; hmvc -1; hmv x;"));
    assert_eq!(r.setup(), Setup::default());
    let r = ok(&with_ops("fmvn 1 2; hmvc 4294967296;"));
    assert_eq!(r.setup(), Setup::default());
    let r = ok(&with_ops("fmvn 4294967295;"));
    assert_eq!(r.setup().fullmoves.get(), u32::MAX);
    let pos: Chess = ok(RESPOND)
        .setup()
        .position(CastlingMode::Standard)
        .unwrap();
    assert_eq!(pos.turn(), Color::Black);
}

#[test]
fn refcom_and_refreq_need_one_identifier() {
    assert_eq!(ok(&with_ops("refcom reset;")).refcom(), Some("reset"));
    assert_eq!(ok(&with_ops("refcom \"reset\";")).refcom(), None);
    assert_eq!(ok(&with_ops("refcom reset now;")).refcom(), None);
    assert_eq!(ok(&with_ops("refcom;")).refcom(), None);
    assert_eq!(ok(&with_ops("refreq reply;")).refreq(), Some("reply"));
}

#[test]
fn set_and_remove() {
    let mut r = ok(RESPOND);
    r.set("sm", vec![Operand::Move("O-O".into())]);
    assert_eq!(r.operands("sm"), Some(&[Operand::Move("O-O".into())][..]));
    assert_eq!(r.operations.len(), 5);
    r.set("draw_offer", vec![]);
    assert_eq!(r.operations.len(), 6);
    let removed = r.remove("cc").unwrap();
    assert_eq!(removed.opcode, "cc");
    assert_eq!(r.remove("cc"), None);
    assert!(!r.has("cc"));
    assert_eq!(
        r.to_string(),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 draw_offer; fmvn 1; hmvc 0; refcom respond; sm O-O;"
    );
}

#[test]
fn moves_spelled_as_identifiers_round_trip() {
    let mut r = Record::new(Epd::default());
    r.set("sm", vec![Operand::Move("e4".into())]);
    r.set(
        "pv",
        vec![Operand::Move("Nf3".into()), Operand::Move("O-O".into())],
    );
    let back = ok(&r.to_string());
    assert_eq!(back, r);
    assert_eq!(back.operands("sm"), Some(&[id("e4")][..]));
}

#[test]
fn equality_ignores_the_order_of_operations() {
    let a = ok(&with_ops("sm e4; refcom respond;"));
    let b = ok(&with_ops("refcom respond; sm e4;"));
    assert_eq!(a, b);
    assert_ne!(a, ok(&with_ops("refcom respond; sm d4;")));
    assert_ne!(a, ok(&with_ops("refcom respond;")));
    assert_ne!(a, ok("8/8/8/8/8/8/8/8 w - - refcom respond; sm e4;"));
}

#[test]
fn from_str_and_errors_display() {
    let r: Record = RESPOND.parse().unwrap();
    assert_eq!(r.refcom(), Some("respond"));
    assert_eq!(
        "".parse::<Record>().unwrap_err().to_string(),
        "empty record"
    );
    assert_eq!(
        EpdError::TooLong { len: 4096 }.to_string(),
        "record is 4096 bytes long, more than 4095"
    );
    assert_eq!(
        EpdError::BadByte { offset: 3, byte: 0 }.to_string(),
        "byte 0x00 at offset 3 is not allowed"
    );
    assert_eq!(
        EpdError::OutOfRange {
            opcode: "ts".into(),
            token: "1995.13.01".into()
        }
        .to_string(),
        "operand \"1995.13.01\" of ts is out of range"
    );
}

// Property tests.

fn position() -> impl Strategy<Value = Epd> {
    prop::sample::select(vec![
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3",
        "r3k2r/8/8/8/8/8/8/R3K2R w Kq -",
        "4k3/8/8/8/8/8/8/4K3 w K -",
        "8/8/8/8/8/8/8/8 b - -",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6",
    ])
    .prop_map(|s| s.parse::<Epd>().unwrap())
}

fn opcode() -> impl Strategy<Value = String> {
    "[A-Za-z][A-Za-z0-9_]{0,14}"
}

fn operand() -> impl Strategy<Value = Operand> {
    prop_oneof![
        "[A-Za-z0-9_]{0,7}[A-Za-z_][A-Za-z0-9_]{0,7}".prop_map(|s| Operand::Identifier(s.into())),
        prop_oneof![
            "[NBRQK][a-h]?[1-8]?x?[a-h][1-8][+#!?]{1,2}",
            "[a-h]x[a-h][1-8](e\\.p\\.|ep)?[+#]?",
            "[a-h][18]=?[NBRQnbrq][+#]",
            "[a-h][1-8][a-h][1-8][NBRQ]",
            "(O-O|O-O-O|0-0|0-0-0)[+#!?]{0,2}",
            // Moves that are identifiers as well, such as `e4` and `Nf3`.
            "[NBRQK]?[a-h][1-8]",
        ]
        .prop_filter("a move", |s| is_move_syntax(s))
        .prop_map(|s| Operand::Move(s.into())),
        any::<i64>().prop_map(Operand::Integer),
        prop_oneof![
            (-1e12..1e12f64),
            (-1000i32..1000).prop_map(f64::from),
            (-1.0..1.0f64),
        ]
        .prop_map(Operand::Float),
        "[ !#-~]{0,40}".prop_map(|s| Operand::Str(s.into())),
        (1u16..=9999, 1u8..=12, 1u8..=31)
            .prop_map(|(y, m, d)| Operand::Date(Date::new(y, m, d).unwrap())),
        (0u8..24, 0u8..60, 0u8..60)
            .prop_map(|(h, m, s)| Operand::Time(TimeOfDay::new(h, m, s).unwrap())),
        (0..=Clock::MAX.as_secs()).prop_map(|s| Operand::Clock(Clock::from_secs(s).unwrap())),
    ]
}

fn record() -> impl Strategy<Value = Record> {
    let operations =
        prop::collection::btree_map(opcode(), prop::collection::vec(operand(), 0..5), 0..8)
            .prop_map(|ops| {
                ops.into_iter()
                    .map(|(opcode, operands)| Operation {
                        opcode: opcode.into(),
                        operands: operands.into(),
                    })
                    .collect::<Vec<_>>()
            })
            .prop_shuffle();
    (position(), operations).prop_map(|(position, operations)| Record {
        position,
        operations,
    })
}

/// Piece placement fields, mostly well-formed: usually eight ranks of eight
/// squares, written with runs of empty squares as digits, and sometimes a
/// rank of random parts or a wrong number of ranks.
fn placement() -> impl Strategy<Value = String> {
    let squares = prop::collection::vec(prop::option::weighted(0.4, "[PNBRQKpnbrqk]"), 8).prop_map(
        |squares| {
            let mut rank = String::new();
            let mut empty = 0;
            for square in squares {
                match square {
                    Some(piece) => {
                        if empty > 0 {
                            rank.push_str(&empty.to_string());
                            empty = 0;
                        }
                        rank.push_str(&piece);
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                rank.push_str(&empty.to_string());
            }
            rank
        },
    );
    let rank = prop_oneof![
        9 => squares,
        1 => prop::collection::vec("[PNBRQKpnbrqk1-8]", 1..9).prop_map(|parts| parts.concat()),
    ];
    let count = prop_oneof![9 => Just(8usize), 1 => 7..10usize];
    count
        .prop_flat_map(move |n| prop::collection::vec(rank.clone(), n))
        .prop_map(|ranks| ranks.join("/"))
}

/// Lines that look like EPD records, to reach deep into the reader: operations
/// built from tokens of every basetype, in and out of range, with some noise.
fn epd_like_line() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        "[a-z][a-z0-9_]{0,4}",
        "[+-]?[0-9]{1,4}",
        "[+-]?[0-9]{1,3}\\.[0-9]{1,3}",
        "[0-9]{4}\\.[0-9]{2}\\.[0-9]{2}",
        "[0-9]{2}:[0-9]{2}:[0-9]{2}",
        "[0-9]{3}:[0-9]{2}:[0-9]{2}:[0-9]{2}",
        "\"[ -!#-~]{0,8}\"",
        "[NBRQK]?[a-h]?x?[a-h][1-8](=?[QNqn])?(e\\.p\\.|ep)?[+#!?]{0,2}",
        "(O-O|O-O-O|0-0|0-0-0)[+#]?",
        "[ -~]{1,3}",
    ];
    let operation = (
        "[a-zA-Z][a-z0-9_]{0,3}|[ -~]{1,2}",
        prop::collection::vec(token, 0..4),
        "[ \t]{1,2}",
        prop_oneof![4 => Just(";"), 1 => Just(" ;"), 1 => Just("")],
    )
        .prop_map(|(opcode, operands, sep, end)| {
            let mut op = opcode;
            for operand in operands {
                op.push_str(&sep);
                op.push_str(&operand);
            }
            op.push_str(end);
            op
        });
    (
        position(),
        "[ \t]{1,2}",
        prop::collection::vec(operation, 0..6),
    )
        .prop_map(|(position, blank, ops)| format!("{position}{blank}{}", ops.join(" ")))
}

proptest! {
    // Regressions are not written to files: the crate's top-level layout is fixed.
    #![proptest_config(ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let _ = Record::from_ascii(&bytes);
    }

    #[test]
    fn random_ascii_never_panics(line in "[ -~\t]{0,300}") {
        let _ = Record::from_ascii(line.as_bytes());
        let _ = Operand::unquoted(&line);
        let _ = resolve_move(&Chess::default(), &line);
    }

    #[test]
    fn move_texts_never_panic(text in "[a-hA-Z0-9x=+#!?.pO-]{0,10}") {
        let start = Chess::default();
        let readable = resolve_move(&start, &text).map_or_else(
            |e| !matches!(e, MoveError::Unreadable(_)),
            |_| true,
        );
        prop_assert_eq!(readable, is_move_syntax(&text));
    }

    #[test]
    fn generated_records_round_trip(r in record()) {
        let written = r.to_string();
        prop_assume!(written.len() <= MAX_RECORD_LEN);
        let back = Record::from_ascii(written.as_bytes());
        prop_assert_eq!(back.as_ref(), Ok(&r), "{}", written);
        let back = back.unwrap();
        // Reading keeps the written order, which is sorted by opcode.
        prop_assert!(back.operations.is_sorted_by(|a, b| a.opcode < b.opcode));
    }

    #[test]
    fn a_line_is_what_display_writes(r in record()) {
        let mut shuffled = r.clone();
        shuffled.operations.reverse();
        prop_assert_eq!(r.to_line(), r.to_string());
        prop_assert_eq!(shuffled.to_line(), shuffled.to_string());
        // Operations pushed directly, opcodes repeated, in any order.
        let mut doubled = shuffled.clone();
        doubled.operations.extend(r.operations.iter().rev().cloned());
        let third = doubled.operations.len() / 3;
        doubled.operations.rotate_left(third);
        prop_assert_eq!(doubled.to_line(), doubled.to_string());
    }

    #[test]
    fn an_operand_that_reads_back_reads_back_as_it_is(
        kind in 0..6u8,
        text in "[ -~]{0,20}|[a-hKQRBNO][a-h1-8x=+#O-]{0,8}",
        number in any::<i64>(),
    ) {
        let operand = match kind {
            0 => Operand::Identifier(text.as_str().into()),
            1 => Operand::Move(text.as_str().into()),
            2 => Operand::Str(text.as_str().into()),
            3 => Operand::Integer(number),
            4 => Operand::Token(text.as_str().into()),
            _ => Operand::Clock(Clock::from_secs(number.unsigned_abs() % 86_400_000).unwrap_or(Clock::MAX)),
        };
        prop_assume!(operand.reads_back());
        let mut r = Record::new(Record::from_ascii(b"4k3/8/8/8/8/8/8/4K3 w - -").unwrap().position);
        r.set("c0", [operand.clone()]);
        let back = Record::from_ascii(r.to_line().as_bytes());
        prop_assert_eq!(back.map(|b| b.operations), Ok(r.operations), "{:?}", operand);
    }

    #[test]
    fn writing_is_idempotent(r in record()) {
        let written = r.to_string();
        prop_assume!(written.len() <= MAX_RECORD_LEN);
        let again = Record::from_ascii(written.as_bytes()).unwrap().to_string();
        prop_assert_eq!(again, written);
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2048,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn data_fields_read_as_shakmaty_reads_them(
        placement in placement(),
        turn in "[wb]",
        castling in "-|[KQkqA-Ha-h]{1,5}",
        ep in "-|[a-h][36]",
    ) {
        let fields = format!("{placement} {turn} {castling} {ep}");
        let ours = Record::from_ascii(fields.as_bytes()).map(|r| r.position);
        if placement.matches('/').count() > 7 {
            // shakmaty would read a ninth rank as Crazyhouse pockets.
            prop_assert_eq!(ours, Err(EpdError::Position(ParseFenError::InvalidBoard)));
        } else {
            let theirs = Epd::from_ascii(fields.as_bytes()).map_err(EpdError::Position);
            prop_assert_eq!(ours, theirs, "{}", fields);
        }
    }

    #[test]
    fn epd_like_lines_round_trip_when_they_read(line in epd_like_line()) {
        if let Ok(r) = Record::from_ascii(line.as_bytes()) {
            let written = r.to_string();
            let back = Record::from_ascii(written.as_bytes());
            prop_assert_eq!(back.as_ref(), Ok(&r), "{}", written);
            prop_assert_eq!(back.unwrap().to_string(), written);
        }
    }
}

proptest! {
    /// `play_san` gives what shakmaty's `SanPlus::from_move_and_play_unchecked` gives,
    /// marks included, and leaves the same position, over random games (mates and
    /// checks among them).
    #[test]
    fn play_san_is_shakmatys_san_plus(choices in proptest::collection::vec(any::<u16>(), 1..300)) {
        let mut ours = Chess::default();
        let mut theirs = Chess::default();
        for choice in choices {
            let moves = ours.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[usize::from(choice) % moves.len()];
            let expected = shakmaty::san::SanPlus::from_move_and_play_unchecked(&mut theirs, m);
            prop_assert_eq!(play_san(&mut ours, m), expected);
            prop_assert_eq!(&ours, &theirs);
        }
    }
}
