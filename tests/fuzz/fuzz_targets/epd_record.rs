//! Fuzz target `epd_record`: any byte string is read as an EPD record without a panic,
//! and a record that reads writes back to a line that reads as an equal record and
//! writes the same line again.
//!
//! Equality is the one the proptests in `src/epd/tests.rs` use: `Record`'s own
//! `PartialEq` (same position, same operations in any order), plus the written line
//! being a fixed point. As in their `generated_records_round_trip`, a canonical line
//! longer than `MAX_RECORD_LEN` is not read back (a float written with one more digit
//! than it was read with can make the line grow past the limit).

#![no_main]

use argus::epd::{MAX_RECORD_LEN, Record};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(record) = Record::from_ascii(data) else {
        return;
    };
    let written = record.to_string();
    if written.len() > MAX_RECORD_LEN {
        return;
    }
    let back = Record::from_ascii(written.as_bytes())
        .unwrap_or_else(|e| panic!("{written:?} does not read back: {e}"));
    assert_eq!(back, record, "{written:?} reads back as another record");
    assert_eq!(
        back.to_string(),
        written,
        "writing {written:?} is not idempotent"
    );
});
