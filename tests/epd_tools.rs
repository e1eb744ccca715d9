//! The EPD file tools on real files: `argus epd check` must name every bad
//! record of an openings file by its line number, and `normalize` and `purge`
//! must stream one file into another.

use std::fs::{self, File};
use std::io::{BufReader, BufWriter, Write};
use std::path::Path;

use argus::epd::tools::{LineError, check, normalize, purge};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

/// Writes the fixture: an openings file with five bad records among good ones,
/// comments, a blank line and a CR LF line end.
fn write_fixture(path: &Path) {
    let mut bytes = Vec::new();
    let mut line = |text: &[u8]| {
        bytes.extend_from_slice(text);
        bytes.push(b'\n');
    };
    line(b"# Openings for the club event");
    line(format!("{START} id \"start\"; bm e4 d4;").as_bytes());
    // 3: a bad piece placement field (nine squares on the first rank).
    line(b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w KQkq - id \"bad field\";");
    line(b"");
    // 5: two white kings.
    line(b"4k3/8/8/8/8/8/8/3KK3 w - - id \"two kings\";");
    line(b"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 id \"open game\"; bm Nf3;\r");
    // 7: a best move that is not legal.
    line(format!("{START} id \"illegal bm\"; bm Nf6;").as_bytes());
    // 8: an evaluation out of range.
    line(format!("{START} id \"bad ce\"; ce 40000;").as_bytes());
    line(b"# the next record has a Latin-1 byte in its comment");
    // 10: a byte that is not ASCII.
    let mut latin1 = format!("{START} c0 \"Caf").into_bytes();
    latin1.extend_from_slice(b"\xe9\";");
    line(&latin1);
    line(b"rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 id \"sicilian\"; sm g1f3;");
    fs::write(path, bytes).unwrap();
}

#[test]
fn check_reports_each_error_with_its_line_number() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("openings.epd");
    write_fixture(&path);

    let summary = check(BufReader::new(File::open(&path).unwrap()), 100).unwrap();
    let errors: Vec<String> = summary.errors.iter().map(LineError::to_string).collect();
    assert_eq!(
        errors,
        [
            "line 3: invalid position: invalid board part in fen",
            "line 5: invalid position: too many kings",
            "line 7: bm: illegal move \"Nf6\"",
            "line 8: ce takes one integer from -32768 to 32766, found 40000",
            "line 10: byte 0xe9 at offset 60 is not allowed",
        ]
    );
    assert_eq!(summary.records, 8);
    assert_eq!(summary.invalid, 5);
    assert_eq!(summary.skipped, 3);
    assert!(!summary.is_clean());

    // The limit on reported errors keeps the first ones.
    let capped = check(BufReader::new(File::open(&path).unwrap()), 2).unwrap();
    assert_eq!(capped.errors, summary.errors[..2]);
    assert_eq!(capped.invalid, 5);
}

#[test]
fn normalize_and_purge_stream_file_to_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("openings.epd");
    let normal = dir.path().join("normal.epd");
    let purged = dir.path().join("purged.epd");
    write_fixture(&input);

    let mut out = BufWriter::new(File::create(&normal).unwrap());
    let summary = normalize(BufReader::new(File::open(&input).unwrap()), &mut out, false).unwrap();
    out.flush().unwrap();
    drop(out);
    assert_eq!(
        (summary.records, summary.written, summary.invalid),
        (8, 3, 5)
    );
    let lines: Vec<usize> = summary.errors.iter().map(|e| e.line).collect();
    assert_eq!(lines, [3, 5, 7, 8, 10]);
    assert_eq!(
        fs::read_to_string(&normal).unwrap(),
        format!(
            "# Openings for the club event\n\
             {START} bm d4 e4; id \"start\";\n\
             rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 bm Nf3; id \"open game\";\n\
             # the next record has a Latin-1 byte in its comment\n\
             rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 id \"sicilian\"; sm Nf3;\n"
        )
    );
    let again = check(BufReader::new(File::open(&normal).unwrap()), 100).unwrap();
    assert!(again.is_clean(), "{again:?}");

    let summary = purge(
        BufReader::new(File::open(&normal).unwrap()),
        File::create(&purged).unwrap(),
        "id",
    )
    .unwrap();
    assert_eq!(
        (summary.records, summary.written, summary.skipped),
        (3, 3, 2)
    );
    let text = fs::read_to_string(&purged).unwrap();
    assert!(!text.contains("id "), "{text}");
    assert!(text.contains(&format!("{START} bm d4 e4;\n")), "{text}");
}

#[test]
fn argus_epd_check_names_each_bad_line_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("openings.epd");
    std::fs::write(
        &file,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4;\n\
         # a comment\n\
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e5;\n\
         not an epd record\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_argus"))
        .args(["epd", "check"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 3: bm: illegal move \"e5\""), "{err}");
    assert!(err.contains("line 4: "), "{err}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_argus"))
        .args(["epd", "normalize", "--keep-invalid"])
        .arg(&file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm e4;\n"),
        "{text}"
    );
}
