//! File stamps: what `lstat` says of a regular file that moves whenever its content can
//! change, so a file read once can be known unchanged later without reading it again, as
//! `git status` knows a file from its index entry.

use std::fs::Metadata;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A regular file's device, inode, size, mode, and modification and change times (seconds
/// and nanoseconds since the epoch).
///
/// Every write to a file sets its change time to the file system's clock, and nothing can set
/// it back, so two equal stamps of one path show no write between them — provided the file
/// was last changed clearly before the first stamp was taken: a write within the same tick
/// of a coarse clock could leave every field as it was ([`FileStamp::settled_before`]; git
/// calls such an entry "racily clean").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStamp {
    device: u64,
    inode: u64,
    size: u64,
    mode: u32,
    modified: (i64, i64),
    changed: (i64, i64),
}

/// How far a file system's clock may lag the process's when its time stamps carry
/// sub-millisecond detail, where that clock cannot be read itself
/// ([`FileStamp::clock`]): the kernel stamps files from a clock advanced once a tick (1 to 10
/// ms), so this is two of the longest ticks.
const FINE_LAG: Duration = Duration::from_millis(20);

/// The same for time stamps that stop at whole milliseconds, which is what a file system
/// storing them coarsely shows (whole seconds, or FAT's two seconds): a write up to that
/// much later can carry the same stamp.
const COARSE_LAG: Duration = Duration::from_secs(3);

impl FileStamp {
    /// The stamp of a regular file from its metadata; `None` for another kind of entry, and
    /// on a platform whose standard library does not give every field.
    pub fn of(meta: &Metadata) -> Option<FileStamp> {
        if !meta.file_type().is_file() {
            return None;
        }
        stamp_of(meta)
    }

    /// The stamp of a directory from its metadata; `None` for another kind of entry (and
    /// where [`FileStamp::of`] gives none). A directory's own modification and change times
    /// move whenever an entry is added to, removed from or renamed in it (not in its
    /// subdirectories, which have stamps of their own), so an equal, settled stamp shows the
    /// same names as when it was taken.
    pub fn of_dir(meta: &Metadata) -> Option<FileStamp> {
        if !meta.file_type().is_dir() {
            return None;
        }
        stamp_of(meta)
    }

    /// A stamp from what a platform call other than std's `lstat` found (whatever its kind:
    /// the caller decides which kinds have one).
    #[cfg(unix)]
    pub(crate) fn of_lstat(found: &crate::platform::Lstat) -> FileStamp {
        FileStamp {
            device: found.device,
            inode: found.inode,
            size: found.size,
            mode: found.mode,
            modified: found.modified,
            changed: found.changed,
        }
    }

    /// The file's size in bytes.
    pub fn len(&self) -> u64 {
        self.size
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// Whether the owner's executable bit is set.
    pub fn is_executable(&self) -> bool {
        self.mode & 0o100 != 0
    }

    /// The stamp as one line of eight decimal fields (device, inode, size, mode, modification
    /// seconds and nanoseconds, change seconds and nanoseconds), for a cache kept between
    /// runs; [`FileStamp::parse`] reads it back.
    pub fn to_text(&self) -> String {
        format!(
            "{} {} {} {} {} {} {} {}",
            self.device,
            self.inode,
            self.size,
            self.mode,
            self.modified.0,
            self.modified.1,
            self.changed.0,
            self.changed.1
        )
    }

    /// A stamp written by [`FileStamp::to_text`]; `None` for anything else (a field missing,
    /// extra, out of range or not plain decimal): a cache is trusted only as written.
    ///
    /// One pass over the bytes, no split: a large cache holds a stamp per file, and a run with
    /// nothing to change parses every one of them.
    pub fn parse(text: &str) -> Option<FileStamp> {
        let mut fields = Fields(text.as_bytes());
        let stamp = fields.stamp()?;
        fields.0.is_empty().then_some(stamp)
    }

    /// A stamp as [`FileStamp::parse`] reads it at the start of `text`, then one space and
    /// the rest of the text, which must not be empty: a cache line's stamp and what follows
    /// it, in one pass.
    pub fn parse_leading(text: &str) -> Option<(FileStamp, &str)> {
        let mut fields = Fields(text.as_bytes());
        let stamp = fields.stamp()?;
        // `Fields` moved past the space that ended the last field only when more followed.
        let rest = text.get(text.len() - fields.0.len()..)?;
        (!rest.is_empty()).then_some((stamp, rest))
    }
}

impl Fields<'_> {
    /// The eight fields of a stamp.
    fn stamp(&mut self) -> Option<FileStamp> {
        let fields = self;
        Some(FileStamp {
            device: fields.unsigned()?,
            inode: fields.unsigned()?,
            size: fields.unsigned()?,
            mode: u32::try_from(fields.unsigned()?).ok()?,
            modified: (fields.signed()?, fields.nanos()?),
            changed: (fields.signed()?, fields.nanos()?),
        })
    }
}

impl FileStamp {
    /// Now, as the file system stamps changes: no later than the change time of a write made
    /// from now on. On Linux that is the kernel's coarse clock, read directly; elsewhere the
    /// process's clock less the longest lag a tick can give.
    pub fn clock() -> SystemTime {
        crate::platform::stamp_clock().unwrap_or_else(|| {
            let now = SystemTime::now();
            now.checked_sub(FINE_LAG).unwrap_or(now)
        })
    }

    /// Whether the file was last changed far enough before `taken` (what
    /// [`FileStamp::clock`] said when a read of it began) that a later write must show in its
    /// stamp: strictly before it, for time stamps with sub-millisecond detail. An unsettled
    /// file may have been written again within the same clock tick; whoever trusts the stamp
    /// must read it again.
    pub fn settled_before(&self, taken: SystemTime) -> bool {
        let (secs, nanos) = self.changed;
        let (Ok(secs), Ok(nanos)) = (u64::try_from(secs), u32::try_from(nanos)) else {
            return false;
        };
        // A file system keeping whole seconds (or milliseconds) truncates the time of a
        // later write, which can then fall before `taken`.
        let lag = if nanos % 1_000_000 == 0 {
            COARSE_LAG
        } else {
            Duration::ZERO
        };
        let changed = UNIX_EPOCH + Duration::new(secs, nanos);
        changed
            .checked_add(lag)
            .is_some_and(|settled| settled < taken)
    }
}

/// The space-separated decimal fields of a stamp's text, read one at a time.
struct Fields<'a>(&'a [u8]);

impl Fields<'_> {
    /// The next field: an optional leading minus, then 1 to 20 digits (nothing else: no `+`,
    /// no spaces), ended by one space or the end of the text; its sign and magnitude.
    fn next(&mut self) -> Option<(bool, u64)> {
        let (negative, rest) = match self.0.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, self.0),
        };
        let mut len = 0;
        let mut value: u64 = 0;
        // Nineteen digits always fit in a u64; only a twentieth needs the checked step.
        for &b in rest.iter().take(19) {
            if !b.is_ascii_digit() {
                break;
            }
            value = value * 10 + u64::from(b - b'0');
            len += 1;
        }
        if len == 19
            && let Some(&b) = rest.get(19)
            && b.is_ascii_digit()
        {
            value = value.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
            len += 1;
        }
        if len == 0 || rest.get(len).is_some_and(u8::is_ascii_digit) {
            return None;
        }
        self.0 = match rest.get(len) {
            None => &[],
            // One space, then another field: a trailing space is a missing field.
            Some(b' ') if rest.len() > len + 1 => &rest[len + 1..],
            Some(_) => return None,
        };
        Some((negative, value))
    }

    /// A field with no sign.
    fn unsigned(&mut self) -> Option<u64> {
        match self.next()? {
            (false, value) => Some(value),
            (true, _) => None,
        }
    }

    /// A field that may be negative (a time before the epoch).
    fn signed(&mut self) -> Option<i64> {
        let (negative, value) = self.next()?;
        if negative {
            0i64.checked_sub_unsigned(value)
        } else {
            i64::try_from(value).ok()
        }
    }

    /// A nanoseconds field: below one second.
    fn nanos(&mut self) -> Option<i64> {
        self.signed().filter(|n| (0..1_000_000_000).contains(n))
    }
}

#[cfg(unix)]
fn stamp_of(meta: &Metadata) -> Option<FileStamp> {
    use std::os::unix::fs::MetadataExt;
    Some(FileStamp {
        device: meta.dev(),
        inode: meta.ino(),
        size: meta.size(),
        mode: meta.mode(),
        modified: (meta.mtime(), meta.mtime_nsec()),
        changed: (meta.ctime(), meta.ctime_nsec()),
    })
}

/// Stable std gives no inode or change time here: no stamp, so every check reads the file.
#[cfg(not(unix))]
fn stamp_of(_meta: &Metadata) -> Option<FileStamp> {
    None
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn stamp(changed: (i64, i64)) -> FileStamp {
        FileStamp {
            device: 1,
            inode: 2,
            size: 3,
            mode: 0o100644,
            modified: changed,
            changed,
        }
    }

    #[test]
    fn a_file_changed_within_the_lag_of_a_read_is_not_settled() {
        let at = |secs: u64, nanos: u32| UNIX_EPOCH + Duration::new(secs, nanos);
        let fine = stamp((1_000, 123_456_789));
        assert!(fine.settled_before(at(1_000, 123_456_790)));
        assert!(!fine.settled_before(at(1_000, 123_456_789)));
        assert!(!fine.settled_before(at(999, 0)));
        // Whole seconds (or milliseconds): the file system may keep no more, so a write up
        // to seconds later can look the same.
        let coarse = stamp((1_000, 0));
        assert!(!coarse.settled_before(at(1_001, 0)));
        assert!(!coarse.settled_before(at(1_002, 999_000_000)));
        assert!(coarse.settled_before(at(1_003, 1)));
        // Before the epoch: never trusted.
        assert!(!stamp((-5, 0)).settled_before(at(1_000, 0)));
    }

    #[test]
    fn a_stamp_round_trips_as_text_and_nothing_else_parses() {
        let s = stamp((1_000, 123_456_789));
        assert_eq!(FileStamp::parse(&s.to_text()), Some(s));
        for bad in [
            "",
            "1 2 3 33188 1000 123456789 1000",
            "1 2 3 33188 1000 123456789 1000 123456789 9",
            "1 2 3 33188 1000 123456789 1000 1000000000",
            "+1 2 3 33188 1000 123456789 1000 123456789",
            "1  2 3 33188 1000 123456789 1000 123456789",
            "-1 2 3 33188 1000 123456789 1000 123456789",
        ] {
            assert_eq!(FileStamp::parse(bad), None, "{bad:?}");
        }
    }

    /// The parser as first written (split on spaces, `str::parse` on each field after a check
    /// that it is plain decimal): the one-pass parser must agree with it on every text.
    fn parse_by_split(text: &str) -> Option<FileStamp> {
        fn is_decimal(field: &str) -> bool {
            let digits = field.strip_prefix('-').unwrap_or(field);
            !digits.is_empty() && digits.len() <= 20 && digits.bytes().all(|b| b.is_ascii_digit())
        }
        let nanos = |field: &str| {
            field
                .parse::<i64>()
                .ok()
                .filter(|n| (0..1_000_000_000).contains(n))
        };
        let mut fields = text.split(' ');
        let mut next = || fields.next().filter(|f| is_decimal(f));
        let stamp = FileStamp {
            device: next()?.parse().ok()?,
            inode: next()?.parse().ok()?,
            size: next()?.parse().ok()?,
            mode: next()?.parse().ok()?,
            modified: (next()?.parse().ok()?, nanos(next()?)?),
            changed: (next()?.parse().ok()?, nanos(next()?)?),
        };
        fields.next().is_none().then_some(stamp)
    }

    #[test]
    fn the_one_pass_parser_agrees_with_a_split_on_every_text() {
        let base = [
            "1 2 3 33188 1000 123456789 1000 123456789",
            "18446744073709551615 0 0 4294967295 -9223372036854775808 0 9223372036854775807 999999999",
        ];
        let pieces = [
            "",
            " ",
            "-",
            "+",
            "0",
            "9",
            "-0",
            "00",
            "x",
            "18446744073709551616",
            "4294967296",
            "9223372036854775808",
            "-9223372036854775809",
            "1000000000",
            "123456789012345678901",
        ];
        // A small generator (no dependency): each text is a base with one or two spans
        // replaced by a piece, so most are near misses of a valid stamp.
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut rand = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let mut valid = 0;
        for _ in 0..20_000 {
            let mut text = base[rand(base.len())].to_owned();
            for _ in 0..1 + rand(2) {
                let at = rand(text.len() + 1);
                let end = (at + rand(4)).min(text.len());
                text.replace_range(at..end, pieces[rand(pieces.len())]);
            }
            let fast = FileStamp::parse(&text);
            assert_eq!(fast, parse_by_split(&text), "{text:?}");
            valid += usize::from(fast.is_some());
        }
        // Both kinds were tried: texts that parse and texts that do not.
        assert!(valid > 100 && valid < 19_000, "{valid}");
        for text in base {
            assert!(FileStamp::parse(text).is_some());
        }
        // With a rest: the same stamp, then what follows its space; no rest, no stamp.
        let stamp = FileStamp::parse(base[0]);
        let with = |rest: &str| {
            FileStamp::parse_leading(&format!("{}{rest}", base[0]))
                .map(|(stamp, rest)| (stamp, rest.to_owned()))
        };
        assert_eq!(with(" a b"), stamp.map(|s| (s, "a b".to_owned())));
        assert_eq!(with(" 9"), stamp.map(|s| (s, "9".to_owned())));
        assert_eq!(with(""), None);
        assert_eq!(with(" "), None);
        assert_eq!(with("x y"), None);
    }

    #[test]
    fn a_write_changes_the_stamp_and_a_directory_has_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let stamp_now = || FileStamp::of(&std::fs::symlink_metadata(&path).unwrap());
        std::fs::write(&path, b"one").unwrap();
        let first = stamp_now().unwrap();
        assert_eq!(stamp_now(), Some(first));
        std::fs::write(&path, b"three").unwrap();
        assert_ne!(stamp_now(), Some(first));
        assert_eq!(
            FileStamp::of(&std::fs::symlink_metadata(dir.path()).unwrap()),
            None
        );
    }
}
