//! Splitting a byte stream into lines, as profile section 1 says: LF, CR and CR LF all
//! end a line; a line longer than the record limit is dropped whole, up to its
//! terminator; empty lines are ignored.
//!
//! The splitter keeps partial text across reads (a read that times out in the middle
//! of a line loses nothing) and knows nothing of chess or of EPD beyond the length limit.

use crate::epd::MAX_RECORD_LEN;

/// What the splitter found in the bytes it was fed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// A complete line, without its terminator; never empty.
    Line(Vec<u8>),
    /// A line over the limit was dropped; `len` is how long it was.
    Overlong {
        /// Its length in bytes, without the terminator.
        len: usize,
    },
}

/// An incremental line splitter.
#[derive(Debug, Default)]
pub struct LineSplitter {
    buf: Vec<u8>,
    overlong: Option<usize>,
    after_cr: bool,
}

impl LineSplitter {
    /// A splitter with nothing buffered.
    pub fn new() -> LineSplitter {
        LineSplitter::default()
    }

    /// Feeds `bytes`, calling `emit` for each line or overlong line they complete.
    pub fn feed(&mut self, mut bytes: &[u8], mut emit: impl FnMut(Piece)) {
        while let Some(&first) = bytes.first() {
            if self.after_cr {
                self.after_cr = false;
                if first == b'\n' {
                    bytes = &bytes[1..];
                    continue;
                }
            }
            // The bytes up to the next terminator go on the line at once.
            let end = bytes
                .iter()
                .position(|&b| b == b'\n' || b == b'\r')
                .unwrap_or(bytes.len());
            self.extend(&bytes[..end]);
            let Some(&b) = bytes.get(end) else {
                return;
            };
            bytes = &bytes[end + 1..];
            self.after_cr = b == b'\r';
            if let Some(len) = self.overlong.take() {
                emit(Piece::Overlong { len });
            } else if !self.buf.is_empty() {
                emit(Piece::Line(std::mem::take(&mut self.buf)));
            }
        }
    }

    /// Adds `run` (no terminator in it) to the line waiting: past the limit the line
    /// is only counted.
    fn extend(&mut self, run: &[u8]) {
        if let Some(len) = &mut self.overlong {
            *len += run.len();
        } else if self.buf.len() + run.len() > MAX_RECORD_LEN {
            self.overlong = Some(self.buf.len() + run.len());
            self.buf.clear();
        } else {
            self.buf.extend_from_slice(run);
        }
    }

    /// Whether part of a line is waiting for its terminator.
    pub fn has_partial(&self) -> bool {
        !self.buf.is_empty() || self.overlong.is_some()
    }

    /// Ends the line waiting for its terminator as though the terminator had come: a
    /// line whose terminator noise changed would otherwise wait for the next line and
    /// spoil it too. Returns what was waiting, if anything.
    pub fn take_partial(&mut self) -> Option<Piece> {
        self.after_cr = false;
        if let Some(len) = self.overlong.take() {
            return Some(Piece::Overlong { len });
        }
        (!self.buf.is_empty()).then(|| Piece::Line(std::mem::take(&mut self.buf)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]]) -> Vec<Piece> {
        let mut s = LineSplitter::new();
        let mut out = Vec::new();
        for c in chunks {
            s.feed(c, |p| out.push(p));
        }
        out
    }

    #[test]
    fn all_terminators_end_lines() {
        let out = split(&[b"a\nb\rc\r\nd\n\n\r\n"]);
        let lines: Vec<Piece> = ["a", "b", "c", "d"]
            .iter()
            .map(|s| Piece::Line(s.as_bytes().to_vec()))
            .collect();
        assert_eq!(out, lines);
    }

    #[test]
    fn cr_lf_split_across_reads_is_one_terminator() {
        let out = split(&[b"abc\r", b"\ndef\n"]);
        assert_eq!(
            out,
            vec![Piece::Line(b"abc".to_vec()), Piece::Line(b"def".to_vec())]
        );
    }

    #[test]
    fn partial_lines_survive_across_reads() {
        let out = split(&[b"ab", b"c", b"d\n"]);
        assert_eq!(out, vec![Piece::Line(b"abcd".to_vec())]);
    }

    #[test]
    fn limit_is_4095_bytes() {
        let ok = vec![b'x'; MAX_RECORD_LEN];
        let long = vec![b'y'; 5000];
        let out = split(&[&ok, b"\n", &long, b"\nz\n"]);
        assert_eq!(out[0], Piece::Line(ok));
        assert_eq!(out[1], Piece::Overlong { len: 5000 });
        assert_eq!(out[2], Piece::Line(b"z".to_vec()));
        let out = split(&[&vec![b'x'; MAX_RECORD_LEN + 1], b"\n"]);
        assert_eq!(out, vec![Piece::Overlong { len: 4096 }]);
    }

    /// The splitter as it was, a byte at a time: the reference for the one above.
    fn split_bytewise(chunks: &[Vec<u8>], limit: usize) -> Vec<Piece> {
        let (mut buf, mut overlong, mut after_cr) = (Vec::new(), None::<usize>, false);
        let mut out = Vec::new();
        for &b in chunks.iter().flatten() {
            if after_cr {
                after_cr = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\n' | b'\r' => {
                    after_cr = b == b'\r';
                    if let Some(len) = overlong.take() {
                        out.push(Piece::Overlong { len });
                    } else if !buf.is_empty() {
                        out.push(Piece::Line(std::mem::take(&mut buf)));
                    }
                }
                _ => {
                    if let Some(len) = &mut overlong {
                        *len += 1;
                    } else if buf.len() == limit {
                        overlong = Some(buf.len() + 1);
                        buf.clear();
                    } else {
                        buf.push(b);
                    }
                }
            }
        }
        out
    }

    use proptest::strategy::Strategy;

    proptest::proptest! {
        #[test]
        fn runs_split_as_bytes_one_at_a_time(
            chunks in proptest::collection::vec(
                proptest::collection::vec(
                    proptest::prop_oneof![
                        // Runs long enough to pass the limit, now and then.
                        1 => (0usize..2500).prop_map(|n| vec![b'x'; n]),
                        1 => proptest::strategy::Just(vec![b'\n']),
                        1 => proptest::strategy::Just(vec![b'\r']),
                        1 => proptest::num::u8::ANY.prop_map(|b| vec![b]),
                    ],
                    0..12,
                )
                .prop_map(|parts| parts.concat()),
                0..6,
            ),
        ) {
            let refs: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
            proptest::prop_assert_eq!(split(&refs), split_bytewise(&chunks, MAX_RECORD_LEN));
        }
    }
}
