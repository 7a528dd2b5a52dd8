//! Digests: the `sha256:<hex>` values the lock records, and the framed digest of a set of files.

use std::cmp::Ordering;
use std::fmt;

use sha2::{Digest as _, Sha256};

/// A SHA-256 digest, printed `sha256:` + 64 lowercase hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest([u8; 32]);

impl Digest {
    /// The digest of `bytes`.
    ///
    /// # Example
    /// ```
    /// let d = asv_contracts::Digest::of(b"\n");
    /// assert_eq!(d.to_string(), "sha256:01ba4719c80b6fe911b091a7c05124b64eeece964e09c058ef8f9805daca546b");
    /// ```
    pub fn of(bytes: &[u8]) -> Self {
        Digest(Sha256::digest(bytes).into())
    }

    /// The 32 bytes of the digest.
    pub fn to_bytes(self) -> [u8; 32] {
        self.0
    }

    /// Wraps a finished hasher.
    pub fn from_hasher(h: Sha256) -> Self {
        Digest(h.finalize().into())
    }

    /// Parses `sha256:` + exactly 64 lowercase hex digits; anything else is `None`.
    pub fn parse(text: &str) -> Option<Self> {
        let hex = text.strip_prefix("sha256:")?;
        if hex.len() != 64 {
            return None;
        }
        let mut out = [0u8; 32];
        let bytes = hex.as_bytes();
        for (i, slot) in out.iter_mut().enumerate() {
            let hi = lower_hex_value(bytes[2 * i])?;
            let lo = lower_hex_value(bytes[2 * i + 1])?;
            *slot = (hi << 4) | lo;
        }
        Some(Digest(out))
    }
}

fn lower_hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("sha256:")?;
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Compares two strings in UTF-16 code unit order, the order JavaScript sorts strings in.
///
/// It equals byte order except that characters above U+FFFF (surrogate pairs, 0xD800–0xDFFF)
/// sort before U+E000–U+FFFF.
pub fn cmp_utf16(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// Builds a framed digest: files are added in any order and hashed in UTF-16 path order as
/// `<path> NUL <decimal length> NUL <bytes>`.
///
/// # Example
/// ```
/// let mut framed = asv_contracts::digest::Framed::default();
/// framed.add("b.txt".into(), b"B\n".to_vec());
/// framed.add("a/x.txt".into(), b"XY".to_vec());
/// assert_eq!(
///     framed.finish().unwrap().to_string(),
///     "sha256:7bfb47738b94157bbf9d0b7de2a62a9c775f5bd67891dadf284be77d2bddea2e"
/// );
/// ```
#[derive(Default, Debug)]
pub struct Framed {
    files: Vec<(String, Vec<u8>)>,
}

impl Framed {
    /// Adds one file by its relative path (forward slashes) and bytes.
    pub fn add(&mut self, path: String, bytes: Vec<u8>) {
        self.files.push((path, bytes));
    }

    /// The digest over every file added, or `None` when none was.
    pub fn finish(mut self) -> Option<Digest> {
        self.files.sort_by(|a, b| cmp_utf16(&a.0, &b.0));
        let mut stream = FramedStream::default();
        for (path, bytes) in &self.files {
            stream.begin(path, bytes.len() as u64);
            stream.update(bytes);
        }
        stream.finish()
    }
}

/// A framed digest ([`Framed`]) built while the files are read, so no file is held whole: the
/// caller hands over the files in UTF-16 path order, each as its path and length, then its
/// bytes in as many pieces as it likes.
///
/// # Example
/// ```
/// use asv_contracts::digest::{Framed, FramedStream};
/// let mut stream = FramedStream::default();
/// stream.begin("a/x.txt", 2);
/// stream.update(b"X");
/// stream.update(b"Y");
/// stream.begin("b.txt", 2);
/// stream.update(b"B\n");
/// let mut framed = Framed::default();
/// framed.add("b.txt".into(), b"B\n".to_vec());
/// framed.add("a/x.txt".into(), b"XY".to_vec());
/// assert_eq!(stream.finish(), framed.finish());
/// ```
#[derive(Default, Debug, Clone)]
pub struct FramedStream {
    hasher: Sha256,
    files: usize,
}

impl FramedStream {
    /// Starts the next file: its path (forward slashes) and how many bytes follow.
    pub fn begin(&mut self, path: &str, len: u64) {
        self.files += 1;
        self.hasher.update(path.as_bytes());
        self.hasher.update([0u8]);
        self.hasher.update(len.to_string().as_bytes());
        self.hasher.update([0u8]);
    }

    /// The next bytes of the current file.
    pub fn update(&mut self, bytes: &[u8]) {
        self.hasher.update(bytes);
    }

    /// The digest over every file begun, or `None` when none was.
    pub fn finish(self) -> Option<Digest> {
        (self.files > 0).then(|| Digest::from_hasher(self.hasher))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_round_trips_and_refuses_bad_shapes() {
        let good = format!("sha256:{}", "ab".repeat(32));
        assert_eq!(Digest::parse(&good).unwrap().to_string(), good);
        for bad in [
            "",
            "sha256:",
            "sha1:00",
            &format!("sha256:{}", "AB".repeat(32)),
            &format!("sha256:{}", "a".repeat(63)),
            &format!("sha256:{}", "a".repeat(65)),
            &format!("SHA256:{}", "a".repeat(64)),
        ] {
            assert_eq!(Digest::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn utf16_order_puts_astral_before_fullwidth() {
        assert_eq!(cmp_utf16("😀.md", "Ａ.md"), Ordering::Less);
        assert_eq!("😀.md".cmp("Ａ.md"), Ordering::Greater);
        assert_eq!(cmp_utf16("a", "b"), Ordering::Less);
    }

    #[test]
    fn no_files_no_digest() {
        assert_eq!(Framed::default().finish(), None);
    }
}
