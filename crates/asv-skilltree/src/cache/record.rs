//! The stamp cache's text: how a directory's record is written, and the file as loaded — kept
//! as one text with an index of where each directory's record lies, each record parsed only
//! when its directory is asked for.
//!
//! A large repository's cache holds hundreds of thousands of lines, and a run with nothing to
//! change needs of most records only the stamps, compared once. Parsing the whole file into
//! owned records up front (a string per path, a hash map of directories) cost more than the
//! comparisons themselves; so loading checks the file's frame (header, root, each record's
//! line counts and kinds, directories in strictly increasing order, the closing count) and
//! nothing else, and a record's fields are checked, as strictly as before, when it is read. A
//! record whose fields do not parse is simply not trusted: its directory is read whole and
//! recorded afresh. A record that was trusted is written back as it was read, byte for byte.
//!
//! The format (one cache file):
//!
//! ```text
//! asv-stamps 2
//! root <device> <inode>
//! dir <taken secs> <taken nanos> <tree hash> <files> <subdirectories> <directory>
//! sub <stamp> .
//! sub <stamp> <subdirectory>            (one per subdirectory, parents first)
//! file <stamp> <sha-256 hex> <path>     (one per file, in tree order; `-` for the digest of a
//!                                       directory whose hash alone is recorded)
//! …
//! end <records>
//! ```
//!
//! where `<stamp>` is [`FileStamp::to_text`]'s eight fields.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use asv_fs::{FileStamp, is_plain_relative};

/// The first line of a cache file: its format and version.
pub(super) const HEADER: &str = "asv-stamps 2";

/// A file of a directory as read afresh; its digest `None` when only the directory's hash is
/// to be vouched for (written `-`, which no reader takes for a digest).
#[derive(Debug, Clone)]
pub(super) struct FileRecord {
    pub(super) path: String,
    pub(super) stamp: FileStamp,
    pub(super) sha256: Option<[u8; 32]>,
}

/// A directory as read afresh: when its read began, its tree hash, the stamp of it and of each
/// of its subdirectories (parents first, `.` for itself), its files in tree order.
#[derive(Debug, Clone)]
pub(super) struct DirRecord {
    pub(super) taken: SystemTime,
    pub(super) hash: String,
    pub(super) dirs: Vec<(String, FileStamp)>,
    pub(super) files: Vec<FileRecord>,
}

/// A path as recorded: non-empty, on one line, with no NUL (every path a tree can hold).
pub(super) fn plain_path(path: &str) -> bool {
    !path.is_empty() && !path.contains(['\n', '\r', '\0'])
}

pub(super) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    out
}

/// The value of one lowercase hexadecimal digit (the only case [`hex`] writes).
fn nibble(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    }
}

/// A digest as [`hex`] writes it: 64 lowercase hexadecimal digits, nothing else.
pub(super) fn unhex(text: &str) -> Option<[u8; 32]> {
    let bytes = text.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (byte, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        *byte = (nibble(pair[0])? << 4) | nibble(pair[1])?;
    }
    Some(out)
}

/// A plain decimal number (no sign, no spaces).
fn digits<T: std::str::FromStr>(field: &str) -> Option<T> {
    if field.is_empty() || field.len() > 20 || !field.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    field.parse().ok()
}

/// Eight stamp fields, then the rest of the line (a path, which may hold spaces).
fn stamp_then_rest(line: &str) -> Option<(FileStamp, &str)> {
    let (stamp, rest) = FileStamp::parse_leading(line)?;
    plain_path(rest).then_some((stamp, rest))
}

/// The text of one directory's record, as [`Loaded::index`] reads it back.
pub(super) fn render(dir: &str, rec: &DirRecord) -> Option<String> {
    use std::fmt::Write as _;
    let since = rec.taken.duration_since(UNIX_EPOCH).ok()?;
    let mut out = String::with_capacity(64 + 160 * (rec.dirs.len() + rec.files.len()));
    // Writing to a String cannot fail.
    let _ = writeln!(
        out,
        "dir {} {} {} {} {} {dir}",
        since.as_secs(),
        since.subsec_nanos(),
        rec.hash,
        rec.files.len(),
        rec.dirs.len()
    );
    for (sub, stamp) in &rec.dirs {
        let _ = writeln!(out, "sub {} {sub}", stamp.to_text());
    }
    for f in &rec.files {
        let digest = f.sha256.as_ref().map_or_else(|| "-".to_owned(), |d| hex(d));
        let _ = writeln!(out, "file {} {digest} {}", f.stamp.to_text(), f.path);
    }
    Some(out)
}

/// The first line of a cache for the root of this device and inode.
pub(super) fn preamble(root_id: (u64, u64)) -> String {
    format!("{HEADER}\nroot {} {}\n", root_id.0, root_id.1)
}

/// The last line of a cache of `records` directories.
pub(super) fn closing(records: usize) -> String {
    format!("end {records}\n")
}

/// One directory's record in the loaded text.
#[derive(Debug)]
struct Entry {
    /// The directory's path.
    dir: Range<usize>,
    /// The whole record, from its `dir` line to the end of its last line.
    whole: Range<usize>,
    /// Its `sub` lines, then its `file` lines, each range ending after a newline.
    subs: Range<usize>,
    files: Range<usize>,
    taken: SystemTime,
    hash: Range<usize>,
    /// Taken as recorded by this run (so written back as it was).
    kept: AtomicBool,
}

/// The cache file as loaded: its text and where each directory's record lies in it.
#[derive(Debug, Default)]
pub(super) struct Loaded {
    text: String,
    /// Sorted by directory, bytewise (as written), each directory once.
    entries: Vec<Entry>,
    /// Each directory's [`fnv1a`] and its entry, sorted: a lookup compares small integers
    /// in one compact array rather than paths scattered through the text.
    by_hash: Vec<(u64, u32)>,
}

/// FNV-1a, 64 bits: a quick hash of a short path for [`Loaded::find`] (a match is always
/// confirmed by comparing the paths).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A directory's record, looked up: its fields are parsed as they are walked.
#[derive(Debug, Clone, Copy)]
pub(super) struct Record<'a> {
    /// When the read that recorded it began.
    pub(super) taken: SystemTime,
    /// Its tree hash, as recorded.
    pub(super) hash: &'a str,
    subs: &'a str,
    files: &'a str,
}

/// One `file` line of a record.
#[derive(Debug, Clone, Copy)]
pub(super) struct FileLine<'a> {
    pub(super) stamp: FileStamp,
    /// The digest as written; [`unhex`] checks and decodes it when it is needed.
    pub(super) digest: &'a str,
    pub(super) path: &'a str,
}

/// Lines of `text` after their kind's prefix (`prefix` checked on each; the index already did).
fn lines<'a>(text: &'a str, prefix: &'static str) -> impl Iterator<Item = Option<&'a str>> + 'a {
    text.split_terminator('\n')
        .map(move |line| line.strip_prefix(prefix))
}

impl<'a> Record<'a> {
    /// The directory's own stamp (`.`), then each subdirectory's, parents first; `None` in
    /// place of a line that does not parse.
    pub(super) fn subs(&self) -> impl Iterator<Item = Option<(FileStamp, &'a str)>> + 'a {
        lines(self.subs, "sub ").map(|line| {
            let (stamp, sub) = stamp_then_rest(line?)?;
            // `.` names the directory itself; anything else lies below it.
            (sub == "." || is_plain_relative(sub)).then_some((stamp, sub))
        })
    }

    /// Each file's line; `None` in place of one that does not parse.
    pub(super) fn files(&self) -> impl Iterator<Item = Option<FileLine<'a>>> + 'a {
        lines(self.files, "file ").map(|line| {
            let (stamp, rest) = stamp_then_rest(line?)?;
            let (digest, path) = rest.split_once(' ')?;
            (plain_path(path) && is_plain_relative(path)).then_some(FileLine {
                stamp,
                digest,
                path,
            })
        })
    }

    /// How many files it records.
    pub(super) fn file_count(&self) -> usize {
        self.files.split_terminator('\n').count()
    }
}

/// The next line of `text` from `*at` (without its newline), moving `*at` past it; `None` at
/// the end or for a last line with no newline.
fn next_line<'t>(text: &'t str, at: &mut usize) -> Option<&'t str> {
    let rest = text.get(*at..)?;
    let len = rest.find('\n')?;
    let line = &rest[..len];
    *at += len + 1;
    Some(line)
}

impl Loaded {
    /// The index of a cache file's text for the root `root_id`; `None` when its frame is not
    /// as [`render`] and the saver write it (another root, a cut or extended file, a line of
    /// the wrong kind or count, directories out of order or twice).
    pub(super) fn index(text: String, root_id: (u64, u64)) -> Option<Loaded> {
        let mut at = 0;
        let preamble = preamble(root_id);
        if !text.starts_with(&preamble) {
            return None;
        }
        at += preamble.len();
        let mut entries: Vec<Entry> = Vec::new();
        loop {
            let start = at;
            let line = next_line(&text, &mut at)?;
            if let Some(count) = line.strip_prefix("end ") {
                let ok = at == text.len() && digits::<usize>(count)? == entries.len();
                let mut by_hash = entries
                    .iter()
                    .enumerate()
                    .map(|(i, e)| {
                        Some((
                            fnv1a(text[e.dir.clone()].as_bytes()),
                            u32::try_from(i).ok()?,
                        ))
                    })
                    .collect::<Option<Vec<_>>>()?;
                by_hash.sort_unstable();
                return ok.then_some(Loaded {
                    text,
                    entries,
                    by_hash,
                });
            }
            let mut f = line.strip_prefix("dir ")?.splitn(6, ' ');
            let secs: u64 = digits(f.next()?)?;
            let nanos: u32 = digits(f.next()?).filter(|n| *n < 1_000_000_000)?;
            let hash = f.next()?;
            unhex(hash.strip_prefix("sha256:")?)?;
            let count: usize = digits(f.next()?)?;
            let subs: usize = digits(f.next()?)?;
            let dir = f.next()?;
            if !plain_path(dir) || subs == 0 {
                return None;
            }
            // Offsets of the fields within the text (they are slices of it).
            let offset = |part: &str| part.as_ptr() as usize - text.as_ptr() as usize;
            let dir_range = offset(dir)..offset(dir) + dir.len();
            let hash_range = offset(hash)..offset(hash) + hash.len();
            if let Some(last) = entries.last()
                && text[last.dir.clone()] >= *dir
            {
                return None;
            }
            let subs_start = at;
            for _ in 0..subs {
                next_line(&text, &mut at)?.strip_prefix("sub ")?;
            }
            let files_start = at;
            for _ in 0..count {
                next_line(&text, &mut at)?.strip_prefix("file ")?;
            }
            entries.push(Entry {
                dir: dir_range,
                whole: start..at,
                subs: subs_start..files_start,
                files: files_start..at,
                taken: UNIX_EPOCH + Duration::new(secs, nanos),
                hash: hash_range,
                kept: AtomicBool::new(false),
            });
        }
    }

    /// Where `dir`'s record is, if there is one.
    pub(super) fn find(&self, dir: &str) -> Option<usize> {
        let hash = fnv1a(dir.as_bytes());
        let first = self.by_hash.partition_point(|(h, _)| *h < hash);
        self.by_hash[first..]
            .iter()
            .take_while(|(h, _)| *h == hash)
            .map(|(_, at)| *at as usize)
            .find(|at| {
                self.entries
                    .get(*at)
                    .is_some_and(|e| &self.text[e.dir.clone()] == dir)
            })
    }

    /// The record at `at` (from [`Loaded::find`]).
    pub(super) fn record(&self, at: usize) -> Option<Record<'_>> {
        let e = self.entries.get(at)?;
        Some(Record {
            taken: e.taken,
            hash: &self.text[e.hash.clone()],
            subs: &self.text[e.subs.clone()],
            files: &self.text[e.files.clone()],
        })
    }

    /// Marks the record at `at` as taken by this run, to be written back as it is.
    pub(super) fn keep(&self, at: usize) {
        if let Some(e) = self.entries.get(at) {
            e.kept.store(true, Ordering::Relaxed);
        }
    }

    /// The directories and texts of the records kept this run, in order.
    pub(super) fn kept(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries
            .iter()
            .filter(|e| e.kept.load(Ordering::Relaxed))
            .map(|e| (&self.text[e.dir.clone()], &self.text[e.whole.clone()]))
    }
}

/// The cache text of `kept` (records taken as they were, sorted by directory) and `fresh`
/// (records read afresh, sorted by directory) together, a directory read afresh replacing its
/// old record; `None` past `max` bytes.
pub(super) fn assemble<'a>(
    root_id: (u64, u64),
    kept: impl Iterator<Item = (&'a str, &'a str)>,
    fresh: &[(String, String)],
    max: u64,
) -> Option<String> {
    let mut out = preamble(root_id);
    let mut count = 0usize;
    let mut kept = kept.peekable();
    let mut fresh = fresh.iter().peekable();
    loop {
        let next = match (kept.peek(), fresh.peek()) {
            (None, None) => break,
            (Some(&(k, _)), Some((f, _))) if k == f.as_str() => {
                // Read afresh after it was taken: the newer knowledge wins.
                kept.next();
                continue;
            }
            (Some(&(k, _)), Some((f, _))) if k < f.as_str() => kept.next().map(|(_, t)| t),
            (Some(_), None) => kept.next().map(|(_, t)| t),
            _ => fresh.next().map(|(_, t)| t.as_str()),
        };
        let Some(text) = next else { break };
        out.push_str(text);
        count += 1;
        if out.len() as u64 > max {
            return None;
        }
    }
    out.push_str(&closing(count));
    (out.len() as u64 <= max).then_some(out)
}
