//! Secrets: the players' tokens and the standby stream's key, and the files that hold
//! anything secret.
//!
//! A token is never written down: what an event keeps (its `event.jsonl`, which the
//! standby stream sends) is a [`TokenHash`], an HMAC-SHA256 of the token under a random
//! salt of its own, against which a token given at a sign-on is checked in constant
//! time. A sign-on's token in a journal is replaced by [`TOKEN_MARK`]
//! ([`redact_sign_on`]). The standby stream's two ends prove they share a key
//! ([`Key`]) by HMACs over nonces from both sides ([`mac`], [`verify`], [`nonce`]).
//! Files that hold anything secret are created readable by their owner alone
//! ([`private`]).

use std::fmt;
use std::fs::OpenOptions;
use std::path::Path;

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

/// The HMAC-SHA256 of `parts` (each prefixed by its length, so that no two lists of
/// parts sign the same bytes) under `key`.
pub fn mac(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    signer(key, parts).finalize().into_bytes().into()
}

/// Whether `tag` is the HMAC of `parts` under `key`, compared in constant time.
pub fn verify(key: &[u8], parts: &[&[u8]], tag: &[u8]) -> bool {
    signer(key, parts).verify_slice(tag).is_ok()
}

fn signer(key: &[u8], parts: &[&[u8]]) -> HmacSha256 {
    // HMAC takes a key of any length.
    let mut m = <HmacSha256 as KeyInit>::new_from_slice(key).expect("HMAC takes any key");
    for part in parts {
        m.update(&(part.len() as u64).to_be_bytes());
        m.update(part);
    }
    m
}

/// 32 random bytes from the operating system.
///
/// # Panics
///
/// When the operating system has no randomness to give (it always has).
pub fn nonce() -> [u8; 32] {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the operating system's random numbers");
    bytes
}

/// `bytes` in lower-case hexadecimal.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The bytes of hexadecimal `text`, if it is.
pub fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Makes `options` create its file readable and writable by its owner alone (0600,
/// on Unix; elsewhere the folder's permissions).
pub fn private(options: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}

/// The shortest key `--standby-key` takes.
pub const MIN_KEY_LEN: usize = 16;

/// The secret the standby stream's two ends share (`--standby-key FILE`).
#[derive(Clone)]
pub struct Key(Vec<u8>);

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Key(..)")
    }
}

impl Key {
    /// A key of these bytes (tests).
    pub fn new(bytes: &[u8]) -> Key {
        Key(bytes.to_vec())
    }

    /// Reads the key in the file at `path`: its bytes, less the blanks and line ends
    /// around them, at least [`MIN_KEY_LEN`] of them. A file others may read is said
    /// (on Unix).
    ///
    /// # Errors
    ///
    /// Why the file gives no key, in a sentence.
    pub fn read(path: &Path) -> Result<Key, String> {
        let bytes =
            std::fs::read(path).map_err(|e| format!("--standby-key {}: {e}", path.display()))?;
        let key = bytes.trim_ascii();
        if key.len() < MIN_KEY_LEN {
            return Err(format!(
                "--standby-key {}: the key is {} byte(s); give at least {MIN_KEY_LEN} random ones (head -c 32 /dev/urandom | base64 > {})",
                path.display(),
                key.len(),
                path.display()
            ));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            if let Ok(meta) = std::fs::metadata(path)
                && meta.permissions().mode() & 0o077 != 0
            {
                log::warn!(
                    "--standby-key {}: others than its owner may read it (chmod 600 {})",
                    path.display(),
                    path.display()
                );
            }
        }
        Ok(Key(key.to_vec()))
    }

    /// The key's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

/// What a sign-on's token is replaced with in a journal.
pub const TOKEN_MARK: &str = "*";

/// A token as an event keeps it: an HMAC-SHA256 of the token under a random salt,
/// written `hmac-sha256:SALT:MAC` (hexadecimal). A token given at a sign-on is checked
/// against it in constant time ([`TokenHash::matches`]).
#[derive(Clone, PartialEq, Eq)]
pub struct TokenHash {
    salt: [u8; 16],
    mac: [u8; 32],
}

impl fmt::Debug for TokenHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_string())
    }
}

const TOKEN_LABEL: &[u8] = b"argus token";

impl TokenHash {
    /// The hash of `token` under a new random salt.
    pub fn of(token: &str) -> TokenHash {
        let mut salt = [0u8; 16];
        salt.copy_from_slice(&nonce()[..16]);
        TokenHash {
            salt,
            mac: mac(&salt, &[TOKEN_LABEL, token.as_bytes()]),
        }
    }

    /// Whether `token` is the token hashed, compared in constant time.
    pub fn matches(&self, token: &str) -> bool {
        verify(&self.salt, &[TOKEN_LABEL, token.as_bytes()], &self.mac)
    }

    /// Reads `hmac-sha256:SALT:MAC`.
    pub fn parse(text: &str) -> Option<TokenHash> {
        let rest = text.strip_prefix("hmac-sha256:")?;
        let (salt, mac) = rest.split_once(':')?;
        Some(TokenHash {
            salt: from_hex(salt)?.try_into().ok()?,
            mac: from_hex(mac)?.try_into().ok()?,
        })
    }
}

impl fmt::Display for TokenHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "hmac-sha256:{}:{}", hex(&self.salt), hex(&self.mac))
    }
}

impl serde::Serialize for TokenHash {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for TokenHash {
    /// `hmac-sha256:SALT:MAC`; any other string is a token as older versions wrote it,
    /// hashed now.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<TokenHash, D::Error> {
        let text = String::deserialize(d)?;
        Ok(TokenHash::parse(&text).unwrap_or_else(|| TokenHash::of(&text)))
    }
}

/// `line` with the token of a `sign_on` record (the operand of its `token` opcode)
/// replaced by [`TOKEN_MARK`]; a line sealed by the checksum extension is sealed again
/// with its own number, so that it reads as it did. Any other line is `line` itself.
pub fn redact_sign_on(line: Vec<u8>) -> Vec<u8> {
    let Some(span) = token_span(&line) else {
        return line;
    };
    let seal = crate::epd::seal::open(&line);
    let mut out = Vec::with_capacity(line.len());
    out.extend_from_slice(&line[..span.0]);
    out.extend_from_slice(b"\"");
    out.extend_from_slice(TOKEN_MARK.as_bytes());
    out.extend_from_slice(b"\"");
    out.extend_from_slice(&line[span.1..]);
    match seal {
        // The record before the seal (the token is in it), sealed again.
        crate::epd::seal::Seal::Valid { seq, body } if span.1 <= body => {
            let body = body - (span.1 - span.0) + TOKEN_MARK.len() + 2;
            match std::str::from_utf8(&out[..body]) {
                Ok(record) => crate::epd::seal::seal(record, seq).into_bytes(),
                Err(_) => out,
            }
        }
        _ => out,
    }
}

/// Where the operand of a `token` opcode is in a line that holds `refreq sign_on`: the
/// bytes from its opening quote (or first byte) to the end of the operand.
fn token_span(line: &[u8]) -> Option<(usize, usize)> {
    // memchr's searcher: every line a player sends passes here, and almost none is a
    // sign-on.
    let find = |hay: &[u8], needle: &[u8]| memchr::memmem::find(hay, needle);
    find(line, b"sign_on")?;
    let mut from = 0;
    loop {
        let at = from + find(&line[from..], b"token")?;
        from = at + 5;
        let before_ok = at == 0 || matches!(line[at - 1], b' ' | b'\t' | b';');
        let rest = &line[from..];
        let blanks = rest
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        if !before_ok || blanks == 0 {
            continue;
        }
        let start = from + blanks;
        let end = if line.get(start) == Some(&b'"') {
            start + 1 + line[start + 1..].iter().position(|&b| b == b'"')? + 1
        } else {
            start
                + line[start..]
                    .iter()
                    .position(|&b| matches!(b, b';' | b' ' | b'\t'))
                    .unwrap_or(line.len() - start)
        };
        if end > start {
            return Some((start, end));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_hash_checks_the_token_and_reads_back() {
        let hash = TokenHash::of("s3cret");
        assert!(hash.matches("s3cret"));
        assert!(!hash.matches("s3cre"));
        assert!(!hash.matches(""));
        let text = hash.to_string();
        assert!(!text.contains("s3cret"));
        assert_eq!(TokenHash::parse(&text), Some(hash.clone()));
        let json = serde_json::to_string(&hash).unwrap();
        let back: TokenHash = serde_json::from_str(&json).unwrap();
        assert_eq!(back, hash);
        // An older journal's token in the clear is hashed as it is read.
        let old: TokenHash = serde_json::from_str("\"tokA\"").unwrap();
        assert!(old.matches("tokA"));
    }

    #[test]
    fn a_sign_on_loses_its_token_and_stays_sealed() {
        let line = br#"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - refreq sign_on; tcsi "127.0.0.1" "Ann"; token "s3cret";"#;
        let out = redact_sign_on(line.to_vec());
        let text = String::from_utf8(out).unwrap();
        assert!(!text.contains("s3cret"), "{text}");
        assert!(text.ends_with(r#"token "*";"#), "{text}");
        let sealed = crate::epd::seal::seal(std::str::from_utf8(line).unwrap(), 1);
        let out = redact_sign_on(sealed.into_bytes());
        assert!(!String::from_utf8_lossy(&out).contains("s3cret"));
        assert!(matches!(
            crate::epd::seal::open(&out),
            crate::epd::seal::Seal::Valid { seq: 1, .. }
        ));
        // An unquoted token too; a line without sign_on is left alone.
        let out = redact_sign_on(b"x refreq sign_on; token abc; c0 \"x\";".to_vec());
        assert_eq!(out, b"x refreq sign_on; token \"*\"; c0 \"x\";");
        let other = b"x refreq move; c0 \"token abc\";".to_vec();
        assert_eq!(redact_sign_on(other.clone()), other);
    }
}
