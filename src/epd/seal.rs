//! The checksum extension (`xchk`): how argus's referee and argus's clients notice a
//! record that line noise changed, and which records were lost.
//!
//! A sealed line is a record followed by one more operation, always its last:
//!
//! ```text
//! <record> xchk <sequence> "<crc>";
//! ```
//!
//! `<crc>` is the CRC-32 (IEEE 802.3, as zlib computes it) of every byte of the line
//! before its opening quote (the record, `xchk`, the sequence number and the blanks
//! between them), as eight lowercase hexadecimal digits;
//! `<sequence>` numbers the records one side sends, from 1. The opcode sorts after every
//! other opcode of the profile, so a sealed record still has its operations in ASCII
//! order, and programs that do not know it ignore it (EPD spec 5.3). docs/protocol.md
//! describes the whole extension: the offer at sign-on, the resend path, the clocks.

/// The extension's opcode.
pub const OPCODE: &str = "xchk";

/// The opcode with which a client asks the referee to send its records again, from a
/// sequence number on (an operation of a `fault` record).
pub const AGAIN: &str = "xagain";

/// A referee that takes over from a dead one (a resume) numbers its records from the
/// next multiple of this: a player may hold records that the dead referee sent and its
/// journal lost (a power cut loses what the disk had not written), and must never take
/// a new record for one of those. A client takes a record from a later multiple than it
/// expects as a fresh start.
pub const EPOCH: u64 = 1_000_000;

/// What a line's seal says.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Seal {
    /// The line carries no seal.
    None,
    /// The seal matches: the record is the line's first `body` bytes.
    Valid {
        /// The sender's sequence number.
        seq: u64,
        /// The length of the record before the seal (without the blank before it).
        body: usize,
    },
    /// The line ends in a seal that does not match: noise changed it.
    Broken,
}

/// The CRC-32 of `bytes`, as the seal writes it.
fn crc(bytes: &[u8]) -> String {
    format!("{:08x}", crc32fast::hash(bytes))
}

/// Seals `record` (a record as written, without terminator) as the `seq`th.
pub fn seal(record: &str, seq: u64) -> String {
    let signed = format!("{record} {OPCODE} {seq} ");
    let crc = crc(signed.as_bytes());
    format!("{signed}\"{crc}\";")
}

/// Reads the seal of `line` (without its terminator). Trailing blanks are allowed; a
/// seal not in exactly the form [`seal`] writes, at the end of the line, does not match.
pub fn open(line: &[u8]) -> Seal {
    let line = line.trim_ascii_end();
    let marker = b" xchk ";
    // Every line the referee and the clients read is looked at here: memchr's search,
    // not a comparison of the marker at every offset, with its searcher built once.
    static MARKER: std::sync::LazyLock<memchr::memmem::FinderRev<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::FinderRev::new(b" xchk "));
    let Some(at) = MARKER.rfind(line) else {
        return if looks_sealed(line) {
            Seal::Broken
        } else {
            Seal::None
        };
    };
    let valid = (|| {
        // `"hhhhhhhh";` at the end, and the bytes it signs before it.
        let (signed, quoted) = line.split_at_checked(line.len().checked_sub(11)?)?;
        let hex = quoted.strip_prefix(b"\"")?.strip_suffix(b"\";")?;
        if hex != crc(signed).as_bytes() {
            return None;
        }
        let seq = std::str::from_utf8(signed.get(at + marker.len()..)?.strip_suffix(b" ")?).ok()?;
        let seq: u64 = seq.parse().ok()?;
        Some(Seal::Valid { seq, body: at })
    })();
    valid.unwrap_or(Seal::Broken)
}

/// Whether `line` ends in what has the shape of a seal that noise changed: a last
/// operation with a digit and no string before eight characters in quotes. Such a line
/// was sealed; taking it for an unsealed record would take a damaged `sign_on` for one
/// that declines the extension.
fn looks_sealed(line: &[u8]) -> bool {
    // Most lines end otherwise: answered before the line is checked as UTF-8.
    if !line.ends_with(b"\";") {
        return false;
    }
    let Ok(text) = std::str::from_utf8(line) else {
        return false;
    };
    let Some(rest) = text.strip_suffix("\";") else {
        return false;
    };
    let Some((rest, crc)) = rest.rsplit_once('"') else {
        return false;
    };
    let last = rest.rsplit_once(';').map_or(rest, |(_, op)| op);
    crc.len() == 8
        && crc.bytes().all(|b| b.is_ascii_graphic())
        && (4..=30).contains(&last.len())
        && !last.contains('"')
        && last.bytes().any(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    const REC: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 cc 000:00:00:01 000:00:00:00; refcom respond; sm e4;";

    #[test]
    fn a_sealed_record_opens_to_itself() {
        let line = seal(REC, 7);
        assert!(line.ends_with(";"));
        assert_eq!(
            open(line.as_bytes()),
            Seal::Valid {
                seq: 7,
                body: REC.len()
            }
        );
        assert_eq!(open(format!("{line}  ").as_bytes()), open(line.as_bytes()));
    }

    #[test]
    fn any_flipped_bit_breaks_the_seal_or_removes_it() {
        let sign_on = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - refreq sign_on; tcsi \"/dev/ttyUSB0\" \"Fairy-Max 5.0b\";";
        for line in [seal(REC, 12), seal(sign_on, 1)] {
            flips_break(line.into_bytes());
        }
    }

    fn flips_break(line: Vec<u8>) {
        for i in 0..line.len() {
            for bit in 0..7 {
                let mut bad = line.clone();
                bad[i] ^= 1 << bit;
                let seal = open(&bad);
                assert!(
                    seal == Seal::Broken || crate::epd::Record::from_ascii(&bad).is_err(),
                    "byte {i} bit {bit}: {:?}",
                    String::from_utf8_lossy(&bad)
                );
            }
        }
    }

    #[test]
    fn a_seal_whose_opcode_noise_changed_is_broken_not_absent() {
        let line = seal(REC, 5).replace(" xchk ", " xcik ");
        assert_eq!(open(line.as_bytes()), Seal::Broken);
        // An unsealed record that ends in a string is not taken for a sealed one.
        let sign_on = "8/8/8/8/8/8/8/8 w - - refreq sign_on; tcsi \"/dev/ttyS0\" \"Crafty18\";";
        assert_eq!(open(sign_on.as_bytes()), Seal::None);
    }

    #[test]
    fn a_line_cut_short_or_unsealed_is_not_valid() {
        let line = seal(REC, 3);
        assert_eq!(open(REC.as_bytes()), Seal::None);
        assert_eq!(open(&line.as_bytes()[..line.len() - 3]), Seal::Broken);
    }
}
