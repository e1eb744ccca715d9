//! The journal's most frequent lines (`rx`, `tx`, `drained`) written by hand, byte for
//! byte as `serde_json` writes them (the property tests below compare the two); every
//! other event goes through `serde_json`.

use super::event::Event;
use crate::core::Port;

/// Appends `event` as one JSON object (no line end) to `buf`, exactly as
/// `serde_json::to_writer` would.
pub(super) fn encode(event: &Event, buf: &mut Vec<u8>) -> serde_json::Result<()> {
    match event {
        Event::Rx { t, port, text, hex } => {
            buf.extend_from_slice(b"{\"ev\":\"rx\",\"t\":");
            push_u64(buf, *t);
            push_port(buf, *port);
            if let Some(text) = text {
                buf.extend_from_slice(b",\"text\":");
                push_str(buf, text);
            }
            if let Some(hex) = hex {
                buf.extend_from_slice(b",\"hex\":");
                push_str(buf, hex);
            }
            buf.push(b'}');
        }
        Event::Tx { port, text } => {
            buf.extend_from_slice(b"{\"ev\":\"tx\"");
            push_port(buf, *port);
            buf.extend_from_slice(b",\"text\":");
            push_str(buf, text);
            buf.push(b'}');
        }
        Event::Drained { t, port } => {
            buf.extend_from_slice(b"{\"ev\":\"drained\",\"t\":");
            push_u64(buf, *t);
            push_port(buf, *port);
            buf.push(b'}');
        }
        _ => serde_json::to_writer(&mut *buf, event)?,
    }
    Ok(())
}

fn push_port(buf: &mut Vec<u8>, port: Port) {
    buf.extend_from_slice(match port {
        Port::A => b",\"port\":\"a\"",
        Port::B => b",\"port\":\"b\"",
    });
}

fn push_u64(buf: &mut Vec<u8>, n: u64) {
    buf.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

/// Whether any of the 8 bytes of `x` is below 0x20, a `"` or a `\`.
fn any_special(x: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let zero_in = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS != 0;
    x.wrapping_sub(ONES * 0x20) & !x & HIGHS != 0
        || zero_in(x ^ (ONES * u64::from(b'"')))
        || zero_in(x ^ (ONES * u64::from(b'\\')))
}

/// `s` as a JSON string, escaped as `serde_json` escapes it: `"` and `\`, the short
/// forms `\b \t \n \f \r`, every other byte below 0x20 as `\u00xx` (lower-case hex),
/// and nothing else.
fn push_str(buf: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    buf.reserve(bytes.len() + 2);
    buf.push(b'"');
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        if let Some(chunk) = bytes.get(i..i + 8) {
            let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
            if !any_special(word) {
                i += 8;
                continue;
            }
        }
        let b = bytes[i];
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            0x08 => b"\\b",
            b'\t' => b"\\t",
            b'\n' => b"\\n",
            0x0c => b"\\f",
            b'\r' => b"\\r",
            0..=0x1f => &[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 15)],
            ],
            _ => {
                i += 1;
                continue;
            }
        };
        buf.extend_from_slice(&bytes[start..i]);
        buf.extend_from_slice(escape);
        i += 1;
        start = i;
    }
    buf.extend_from_slice(&bytes[start..]);
    buf.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn same_as_serde(event: &Event) {
        let mut ours = Vec::new();
        encode(event, &mut ours).unwrap();
        let theirs = serde_json::to_vec(event).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&ours),
            String::from_utf8_lossy(&theirs)
        );
        assert_eq!(ours, theirs);
    }

    fn port() -> impl Strategy<Value = Port> {
        prop_oneof![Just(Port::A), Just(Port::B)]
    }

    /// Strings rich in what JSON escapes: every control byte, quotes, backslashes,
    /// DEL, multi-byte characters, and runs long enough for the 8-byte scan.
    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            proptest::collection::vec(
                prop_oneof![
                    (0u32..0x80).prop_map(|c| char::from_u32(c).unwrap()),
                    Just('"'),
                    Just('\\'),
                    Just('é'),
                    Just('\u{2028}'),
                    Just('\u{1F600}'),
                    Just('\u{7f}'),
                    Just('a'),
                ],
                0..40
            )
            .prop_map(|cs| cs.into_iter().collect()),
        ]
    }

    /// A line that is not UTF-8, as the journal writes it: its bytes in hex.
    fn hex() -> impl Strategy<Value = String> {
        proptest::collection::vec(any::<u8>(), 0..40)
            .prop_map(|bytes| bytes.iter().map(|b| format!("{b:02x}")).collect())
    }

    proptest! {
        #[test]
        fn rx_is_written_as_serde_json_writes_it(
            t in any::<u64>(),
            port in port(),
            text in proptest::option::of(text()),
            hex in proptest::option::of(hex()),
        ) {
            same_as_serde(&Event::Rx { t, port, text, hex });
        }

        #[test]
        fn tx_is_written_as_serde_json_writes_it(port in port(), text in text()) {
            same_as_serde(&Event::Tx { port, text });
        }

        #[test]
        fn drained_is_written_as_serde_json_writes_it(t in any::<u64>(), port in port()) {
            same_as_serde(&Event::Drained { t, port });
        }
    }

    #[test]
    fn every_byte_alone_and_in_a_long_run() {
        for c in (0u32..0x800).filter_map(char::from_u32) {
            for text in [c.to_string(), format!("abcdefgh{c}ijklmnopq{c}{c}rstuvwx")] {
                same_as_serde(&Event::Tx {
                    port: Port::A,
                    text: text.clone(),
                });
                same_as_serde(&Event::Rx {
                    t: 0,
                    port: Port::B,
                    text: Some(text),
                    hex: None,
                });
            }
        }
        for t in [0, 9, 10, 99, 100, u64::MAX] {
            same_as_serde(&Event::Drained { t, port: Port::A });
        }
    }
}
