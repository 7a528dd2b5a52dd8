//! The stamp cache: what a write run of `skill sync` learnt of the skill directories it read
//! (each file's `lstat` stamp and digest, the tree hash), kept between runs on this machine
//! only, so a later run can tell an unchanged directory without reading its files again.
//!
//! The rules, and why:
//!
//! - **Outside the repository.** One file per repository root, under `$ASV_CACHE_DIR`, else
//!   `$XDG_CACHE_HOME/agentic-skill-vendor`, else `$HOME/.cache/agentic-skill-vendor` (the
//!   same rule on every platform), in `stamps/`, named by the SHA-256 of the root's canonical
//!   path. What it says of a tree is only true of this machine's files (inodes, devices, change
//!   times), so it must never travel with the repository or through a pull request. No such
//!   directory (no variable set): no cache, every directory read whole.
//! - **Its root checked.** The file records the root's device and inode; a file copied from
//!   another root's cache (or left by a root since replaced) does not match and is ignored.
//! - **Trust, git's racily-clean rule.** A directory is taken as unchanged only when it is
//!   found with exactly the recorded directories and paths (see below), and every file's stamp (device, inode, size, mode, modification and change times to
//!   the nanosecond) equals the recorded one *and* the file had last changed before the read
//!   that recorded it began ([`FileStamp::settled_before`], as `skill pull` judges its local
//!   copy). Nothing can set a change time back, so `touch -d` restoring a modification time
//!   still shows. A file changed within the same clock tick as that read may carry an unchanged
//!   stamp: it is read again.
//! - **A directory by its own stamp.** A directory's own modification and change times move
//!   whenever an entry is added to, removed from or renamed in *it* (not in its
//!   subdirectories), so every directory of the tree is stamped as it is listed, the tree's own
//!   and each subdirectory's, empty ones included ([`FileStamp::of_dir`]). A later run that
//!   finds every directory's stamp equal and settled (the same rule as a file's) knows the
//!   names in each are the recorded ones without listing them: one `lstat` per directory
//!   instead of an open, two `getdents` and a close, and that `lstat` is also the guarded
//!   tree's check that it is a real directory. A file added anywhere, even in an empty
//!   subdirectory, moves that directory's stamp; a file edited in place moves its own.
//! - **Stamps never justify a write**, only skipping a re-read: everything a run then writes is
//!   checked afresh where it is written (a copy replaced must still hold its recorded hash,
//!   read whole; bytes copied from a skill are checked against their digest as they are
//!   copied). `skill verify` and a dry run never look at the cache: they prove.
//! - **Written only when something was read afresh**, atomically (a temporary file renamed
//!   over), at most [`MAX_BYTES`]: a run that found everything as stamped writes nothing,
//!   anywhere.
//! - **Any problem is no cache.** The file is read only if it is a regular file (never
//!   through a link), under the cap, parsed strictly line by line, ending with its count; a
//!   link, a torn or hostile file, a write that fails: ignored without a word.

use std::collections::HashMap;
use std::fs;
use std::io::Read as _;
#[cfg(feature = "test-hooks")]
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use asv_fs::{FileStamp, Root, join};
use sha2::{Digest, Sha256};

use crate::data::FileData;
use crate::{Error, FileNode, SKILL_MANIFEST, SkillTree};

/// The largest cache file read or written: about half a million files' stamps. Past it the
/// cache is not written (and a larger file found is ignored), so a huge tree costs reads,
/// never unbounded memory.
pub const MAX_BYTES: u64 = 96 * 1024 * 1024;

/// The first line of a cache file: its format and version.
const HEADER: &str = "asv-stamps 2";

/// The variable naming the cache directory itself (tests point it at a temporary one).
pub const CACHE_DIR_VAR: &str = "ASV_CACHE_DIR";

/// A file of a directory as recorded.
#[derive(Debug, Clone)]
struct FileRecord {
    path: String,
    stamp: FileStamp,
    sha256: [u8; 32],
}

/// A directory as recorded: when its read began, its tree hash, the stamp of it and of each
/// of its subdirectories (parents first, `.` for itself), its files in tree order.
#[derive(Debug, Clone)]
struct DirRecord {
    taken: SystemTime,
    hash: String,
    dirs: Vec<(String, FileStamp)>,
    files: Vec<FileRecord>,
}

/// The stamp cache of one repository root for one run (see the module's rules). Shared by
/// reference across threads; [`StampCache::save`] writes what the run learnt.
#[derive(Debug, Default)]
pub struct StampCache {
    /// Where the cache file goes and the root's identity; `None`: disabled.
    place: Option<Place>,
    /// What the file said when the run began.
    loaded: HashMap<String, DirRecord>,
    /// Directories found as recorded, and directories read afresh, this run.
    seen: Mutex<Seen>,
}

#[derive(Debug, Default)]
struct Seen {
    trusted: Vec<String>,
    fresh: Vec<(String, DirRecord)>,
}

#[derive(Debug, Clone)]
struct Place {
    file: PathBuf,
    /// The root's device and inode.
    root_id: (u64, u64),
}

/// The cache directory the environment names ([`CACHE_DIR_VAR`], then `XDG_CACHE_HOME`, then
/// `HOME`); a relative or empty value is not one (the XDG rule), and none at all is no cache.
fn cache_dir() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    if let Some(dir) = var(CACHE_DIR_VAR) {
        return Some(dir);
    }
    if let Some(dir) = var("XDG_CACHE_HOME") {
        return Some(dir.join("agentic-skill-vendor"));
    }
    var("HOME").map(|home| home.join(".cache").join("agentic-skill-vendor"))
}

#[cfg(unix)]
fn dev_ino(meta: &fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    Some((meta.dev(), meta.ino()))
}

/// No stable device and inode here: no cache.
#[cfg(not(unix))]
fn dev_ino(_meta: &fs::Metadata) -> Option<(u64, u64)> {
    None
}

fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push_str(&format!("{b:02x}"));
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

/// A digest as [`hex`] writes it: 64 lowercase hexadecimal digits, nothing else. Byte by byte
/// (every file line of a cache holds one, and a large cache has hundreds of thousands).
fn unhex(text: &str) -> Option<[u8; 32]> {
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

/// A path as recorded: non-empty, on one line, with no NUL (every path a tree can hold).
fn plain_path(path: &str) -> bool {
    !path.is_empty() && !path.contains(['\n', '\r', '\0'])
}

impl StampCache {
    /// No cache: every directory read whole (a dry run, `skill verify`).
    pub fn disabled() -> StampCache {
        StampCache::default()
    }

    /// The cache of `root` as the environment places it, loaded; disabled when there is no
    /// cache directory or the root cannot be identified, empty when the file is missing or
    /// not one to trust. Never fails: it is a cache.
    pub fn open(root: &Root) -> StampCache {
        let Some(dir) = cache_dir() else {
            return StampCache::disabled();
        };
        StampCache::open_in(root, &dir)
    }

    fn open_in(root: &Root, dir: &Path) -> StampCache {
        let Ok(canonical) = fs::canonicalize(root.root()) else {
            return StampCache::disabled();
        };
        let Some(root_id) = fs::metadata(&canonical).ok().and_then(|m| dev_ino(&m)) else {
            return StampCache::disabled();
        };
        let key = hex(&Sha256::digest(canonical.as_os_str().as_encoded_bytes()));
        let place = Place {
            file: dir.join("stamps").join(key),
            root_id,
        };
        let loaded = load(&place).unwrap_or_default();
        StampCache {
            place: Some(place),
            loaded,
            seen: Mutex::default(),
        }
    }

    /// Whether a cache is in use at all.
    pub fn is_enabled(&self) -> bool {
        self.place.is_some()
    }

    /// `dir` of `root` read as [`SkillTree::read`] reads it: from the cache when every file
    /// is as recorded (each `SKILL.md` still read, since commands parse it; the other files
    /// left on disk by their recorded digest, checked against it if ever read), else read
    /// whole and recorded.
    ///
    /// # Errors
    /// As [`SkillTree::read`].
    pub fn read(&self, root: &Root, dir: &str) -> Result<SkillTree, Error> {
        if let Some(tree) = self
            .trusted(root, dir)
            .and_then(|rec| from_record(root, dir, rec))
        {
            self.note_trusted(dir);
            return Ok(tree);
        }
        self.read_fresh(root, dir)
    }

    /// The tree hash of `dir`, as [`SkillTree::read_hash`] gives it: the recorded one when
    /// every file is as recorded, else worked out by reading the directory whole (and
    /// recorded).
    ///
    /// # Errors
    /// As [`SkillTree::read_hash`].
    pub fn read_hash(&self, root: &Root, dir: &str) -> Result<String, Error> {
        if let Some(rec) = self.trusted(root, dir) {
            self.note_trusted(dir);
            return Ok(rec.hash.clone());
        }
        if !self.is_enabled() {
            return SkillTree::read_hash(root, dir);
        }
        Ok(self.read_fresh(root, dir)?.hash())
    }

    /// The recorded tree hash of `dir` when it is found exactly as recorded (as
    /// [`StampCache::read_hash`] would take it), else `None` without reading anything.
    ///
    /// A directory trusted this way is a real directory: its own stamp is checked with an
    /// `lstat` that gives a stamp only for a directory, reached through real directories only.
    /// So a caller that would ask what kind of entry stands at `dir` and then read its hash
    /// can ask this first and spare the kind's `lstat` (the same path, looked up twice) when
    /// the answer is yes. `None` says nothing: the entry may be missing, of another kind,
    /// changed, or behind a link; the caller asks as it did without a cache, and hears any
    /// error then.
    pub fn trusted_hash(&self, root: &Root, dir: &str) -> Option<String> {
        let rec = self.trusted(root, dir)?;
        self.note_trusted(dir);
        Some(rec.hash.clone())
    }

    /// How many directories this run took from the cache and how many it read afresh.
    pub fn counts(&self) -> (usize, usize) {
        let seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        (seen.trusted.len(), seen.fresh.len())
    }

    /// Writes what this run learnt, when it read anything afresh: the directories it took
    /// from the cache and those it read, nothing else (a directory no longer visited is
    /// forgotten). Nothing read afresh writes nothing. Any failure leaves the cache as it
    /// was (or gone), unsaid: the next run reads more, nothing else.
    pub fn save(&self) {
        #[cfg(feature = "test-hooks")]
        self.report_counts();
        let Some(place) = &self.place else {
            return;
        };
        let seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        if seen.fresh.is_empty() {
            return;
        }
        let mut records: Vec<(&str, &DirRecord)> = seen
            .trusted
            .iter()
            .filter_map(|d| self.loaded.get(d).map(|r| (d.as_str(), r)))
            .chain(seen.fresh.iter().map(|(d, r)| (d.as_str(), r)))
            .collect();
        records.sort_by(|a, b| a.0.cmp(b.0));
        records.dedup_by(|a, b| a.0 == b.0);
        let Some(text) = render(place.root_id, &records) else {
            return;
        };
        let _ = write_atomically(&place.file, text.as_bytes());
    }

    /// Tests only: appends `trusted fresh` (directories taken from the cache, directories read
    /// whole) to the file `ASV_TEST_STAMP_COUNTS` names, so a test through the binary can see
    /// that a run with nothing changed read nothing again. A shipped binary has no such
    /// switch.
    #[cfg(feature = "test-hooks")]
    fn report_counts(&self) {
        if let Some(path) = std::env::var_os("ASV_TEST_STAMP_COUNTS") {
            let (trusted, fresh) = self.counts();
            let line = format!("{trusted} {fresh}\n");
            let _ = fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .and_then(|mut f| f.write_all(line.as_bytes()));
        }
    }

    fn note_trusted(&self, dir: &str) {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .trusted
            .push(dir.to_owned());
    }

    /// The record of `dir` when the directory is exactly as recorded and every file settled
    /// before the recording read began; `None` for anything else (an error included: the
    /// read whole that follows says it).
    fn trusted(&self, root: &Root, dir: &str) -> Option<&DirRecord> {
        let rec = self.loaded.get(dir)?;
        // Every directory as recorded, so every name in each is the recorded one: no listing.
        // A record without its own directory's stamp is not one to trust (the parser refuses
        // it; this keeps the rule local).
        if rec.dirs.first().map(|(sub, _)| sub.as_str()) != Some(".") {
            return None;
        }
        for (sub, stamp) in &rec.dirs {
            let path = if sub == "." {
                dir.to_owned()
            } else {
                join(dir, sub)
            };
            if !stamp.settled_before(rec.taken) || root.dir_stamp(&path).ok()?? != *stamp {
                return None;
            }
        }
        for file in &rec.files {
            if !file.stamp.settled_before(rec.taken) {
                return None;
            }
            if root.stamp(&join(dir, &file.path)).ok()?? != file.stamp {
                return None;
            }
        }
        Some(rec)
    }

    /// Reads `dir` whole, recording it when a cache is in use and every file had a stamp.
    fn read_fresh(&self, root: &Root, dir: &str) -> Result<SkillTree, Error> {
        if !self.is_enabled() {
            return SkillTree::read(root, dir);
        }
        let (tree, stamps) = SkillTree::read_stamped(root, dir)?;
        let taken = stamps.taken;
        let files: Option<Vec<FileRecord>> = tree
            .files()
            .iter()
            .zip(&stamps.files)
            .map(|(f, stamp)| {
                Some(FileRecord {
                    path: f.path.clone(),
                    stamp: (*stamp)?,
                    sha256: f.data.sha256(),
                })
            })
            .collect();
        let dirs: Option<Vec<(String, FileStamp)>> = stamps
            .dirs
            .iter()
            .map(|(sub, stamp)| Some((sub.clone(), (*stamp)?)))
            .collect();
        if let Some(files) = files
            && let Some(dirs) = dirs
            && plain_path(dir)
            && files.iter().all(|f| plain_path(&f.path))
            && dirs.iter().all(|(sub, _)| plain_path(sub))
        {
            let rec = DirRecord {
                taken,
                hash: tree.hash(),
                dirs,
                files,
            };
            self.seen
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .fresh
                .push((dir.to_owned(), rec));
        }
        Ok(tree)
    }
}

/// The tree a trusted record stands for: each `SKILL.md` read (and checked against its
/// digest and stamp once more), every other file left on disk by its digest. `None` when a
/// `SKILL.md` no longer matches: the caller reads the directory whole.
fn from_record(root: &Root, dir: &str, rec: &DirRecord) -> Option<SkillTree> {
    let shared = Arc::new(Root::open(root.root()).ok()?);
    let mut files = Vec::with_capacity(rec.files.len());
    for f in &rec.files {
        let full = join(dir, &f.path);
        let data = if f.path.rsplit('/').next() == Some(SKILL_MANIFEST) {
            let reader = root.open_reader(&full).ok()??;
            if reader.stamp() != Some(f.stamp) {
                return None;
            }
            let mut bytes = Vec::new();
            reader
                .for_each_chunk(&mut |chunk| bytes.extend_from_slice(chunk))
                .ok()?;
            if <[u8; 32]>::from(Sha256::digest(&bytes)) != f.sha256 {
                return None;
            }
            FileData::from(bytes)
        } else {
            FileData::stored(&shared, full, f.stamp.len(), f.sha256)
        };
        files.push(FileNode {
            path: f.path.clone(),
            data,
            executable: f.stamp.is_executable(),
        });
    }
    Some(SkillTree::with_known_hash(files, rec.hash.clone()))
}

fn render(root_id: (u64, u64), records: &[(&str, &DirRecord)]) -> Option<String> {
    let mut out = format!("{HEADER}\nroot {} {}\n", root_id.0, root_id.1);
    for (dir, rec) in records {
        let since = rec.taken.duration_since(UNIX_EPOCH).ok()?;
        out.push_str(&format!(
            "dir {} {} {} {} {} {dir}\n",
            since.as_secs(),
            since.subsec_nanos(),
            rec.hash,
            rec.files.len(),
            rec.dirs.len()
        ));
        for (sub, stamp) in &rec.dirs {
            out.push_str(&format!("sub {} {sub}\n", stamp.to_text()));
        }
        for f in &rec.files {
            out.push_str(&format!(
                "file {} {} {}\n",
                f.stamp.to_text(),
                hex(&f.sha256),
                f.path
            ));
        }
        if out.len() as u64 > MAX_BYTES {
            return None;
        }
    }
    out.push_str(&format!("end {}\n", records.len()));
    (out.len() as u64 <= MAX_BYTES).then_some(out)
}

/// The cache file of `place` when it is a regular file reached through no link, within the
/// cap, for this root, and well formed throughout; `None` for anything else.
fn load(place: &Place) -> Option<HashMap<String, DirRecord>> {
    let parent = place.file.parent()?;
    if !fs::symlink_metadata(parent).ok()?.file_type().is_dir() {
        return None;
    }
    let before = fs::symlink_metadata(&place.file).ok()?;
    if !before.file_type().is_file() || before.len() > MAX_BYTES {
        return None;
    }
    let file = fs::File::open(&place.file).ok()?;
    // The file opened must be the one looked at: a link swapped in between is not followed.
    let opened = file.metadata().ok()?;
    if dev_ino(&opened)? != dev_ino(&before)? {
        return None;
    }
    let mut text = String::new();
    file.take(MAX_BYTES + 1).read_to_string(&mut text).ok()?;
    if text.len() as u64 > MAX_BYTES {
        return None;
    }
    parse(&text, place.root_id)
}

fn parse(text: &str, root_id: (u64, u64)) -> Option<HashMap<String, DirRecord>> {
    let mut lines = text.strip_suffix('\n')?.split('\n');
    if lines.next()? != HEADER {
        return None;
    }
    if lines.next()? != format!("root {} {}", root_id.0, root_id.1) {
        return None;
    }
    let mut out = HashMap::new();
    loop {
        let line = lines.next()?;
        if let Some(count) = line.strip_prefix("end ") {
            let ok = lines.next().is_none() && count.parse::<usize>().ok()? == out.len();
            return ok.then_some(out);
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
        let mut dirs = Vec::with_capacity(subs.min(4096));
        for i in 0..subs {
            let rest = lines.next()?.strip_prefix("sub ")?;
            let (stamp, sub) = stamp_then_path(rest)?;
            // The directory's own stamp first, then only paths under it.
            if (i == 0) != (sub == ".") {
                return None;
            }
            dirs.push((sub.to_owned(), stamp));
        }
        let mut files = Vec::with_capacity(count.min(4096));
        for _ in 0..count {
            let rest = lines.next()?.strip_prefix("file ")?;
            // Eight stamp fields, the digest, then the path (which may hold spaces).
            let (stamp, rest) = stamp_then_path(rest)?;
            let (digest, path) = rest.split_once(' ')?;
            let sha256 = unhex(digest)?;
            if !plain_path(path) {
                return None;
            }
            files.push(FileRecord {
                path: path.to_owned(),
                stamp,
                sha256,
            });
        }
        let rec = DirRecord {
            taken: UNIX_EPOCH + Duration::new(secs, nanos),
            hash: hash.to_owned(),
            dirs,
            files,
        };
        if out.insert(dir.to_owned(), rec).is_some() {
            return None;
        }
    }
}

/// Eight stamp fields, then the rest of the line (a path, which may hold spaces).
fn stamp_then_path(line: &str) -> Option<(FileStamp, &str)> {
    // The eighth space ends the stamp: the stamp is parsed where it stands, not copied out.
    let end = line.match_indices(' ').nth(7)?.0;
    let rest = line.get(end + 1..)?;
    if !plain_path(rest) {
        return None;
    }
    Some((FileStamp::parse(line.get(..end)?)?, rest))
}

/// A plain decimal number (no sign, no spaces).
fn digits<T: std::str::FromStr>(field: &str) -> Option<T> {
    if field.is_empty() || field.len() > 20 || !field.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    field.parse().ok()
}

/// `bytes` written to `file` (in `stamps/` of the cache directory) through the guarded tree of
/// the cache directory: a temporary sibling renamed over it ([`Root::write_file`]), a link on
/// the way or at the file refused, never written through.
fn write_atomically(file: &Path, bytes: &[u8]) -> Option<()> {
    let name = file.file_name()?.to_str()?;
    let dir = file.parent()?.parent()?;
    // The cache directory itself (and its parents, `~/.cache` say) may not exist yet; it is
    // outside any repository, so there is no guarded root to make it through. Everything
    // under it is made and written through one.
    #[allow(clippy::disallowed_methods)]
    fs::create_dir_all(dir).ok()?;
    let cache = Root::open(dir).ok()?;
    cache.create_dir_all("stamps").ok()?;
    cache.write_file(&join("stamps", name), bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::disallowed_methods)]
    fn a_written_cache_parses_back_and_a_changed_byte_does_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        root.write_file("s/SKILL.md", b"---\nname: s\n---\n")
            .unwrap();
        root.write_file("s/a b.md", b"spaced").unwrap();
        let cache_dir = tempfile::tempdir().unwrap();
        let cache = StampCache::open_in(&root, cache_dir.path());
        let tree = cache.read(&root, "s").unwrap();
        assert_eq!(cache.counts(), (0, 1));
        cache.save();
        let place = cache.place.clone().unwrap();
        let text = fs::read_to_string(&place.file).unwrap();
        let parsed = parse(&text, place.root_id).unwrap();
        assert_eq!(parsed["s"].hash, tree.hash());
        assert_eq!(parsed["s"].files[0].path, "SKILL.md");
        assert_eq!(parsed["s"].files[1].path, "a b.md");
        // Another root's identity, a cut file, a stray line: nothing.
        assert!(parse(&text, (place.root_id.0, place.root_id.1 + 1)).is_none());
        assert!(parse(&text[..text.len() - 3], place.root_id).is_none());
        assert!(parse(&format!("{text}x\n"), place.root_id).is_none());
        assert!(parse(&text.replace("end 1", "end 2"), place.root_id).is_none());
        // The directory's own stamp comes first, and there is one.
        assert_eq!(parsed["s"].dirs.len(), 1);
        assert_eq!(parsed["s"].dirs[0].0, ".");
        assert!(parse(&text.replace(" 2 1 s\n", " 2 0 s\n"), place.root_id).is_none());
    }

    /// Long enough for a change to be settled before the next read begins
    /// ([`FileStamp::settled_before`] on a file system with fine time stamps).
    fn settle() {
        std::thread::sleep(Duration::from_millis(50));
    }

    /// A run that reads `s` through a cache in `cache_dir` and saves it: (directories taken
    /// from the cache, directories read whole), and the paths of the tree it gave.
    fn run(root: &Root, cache_dir: &Path) -> ((usize, usize), Vec<String>) {
        let cache = StampCache::open_in(root, cache_dir);
        let tree = cache.read(root, "s").unwrap();
        cache.save();
        let paths = tree.files().iter().map(|f| f.path.clone()).collect();
        (cache.counts(), paths)
    }

    /// [`StampCache::trusted_hash`] stands for the kind check of its caller, so only a real
    /// directory as recorded, reached through real directories, gives a hash: the directory
    /// moved away and a link to it put in its place, a file in its place, or its parent made
    /// a link to a moved copy give none (the caller then asks and refuses as without a cache).
    #[test]
    #[allow(clippy::disallowed_methods)]
    fn only_a_real_directory_as_recorded_gives_its_hash_without_a_kind_check() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        root.write_file("p/s/SKILL.md", b"---\nname: s\n---\n")
            .unwrap();
        root.write_file("p/s/sub/a.md", b"a").unwrap();
        let cache_dir = tempfile::tempdir().unwrap();
        settle();
        let first = StampCache::open_in(&root, cache_dir.path());
        let hash = first.read_hash(&root, "p/s").unwrap();
        first.save();
        settle();
        // A fresh root each time: a guarded root remembers the directories it checked.
        let trusted = || {
            let root = Root::open(dir.path()).unwrap();
            StampCache::open_in(&root, cache_dir.path()).trusted_hash(&root, "p/s")
        };
        assert_eq!(trusted(), Some(hash.clone()), "as recorded");
        let path = dir.path().join("p/s");
        let moved = dir.path().join("moved");
        fs::rename(&path, &moved).unwrap();
        std::os::unix::fs::symlink(&moved, &path).unwrap();
        assert_eq!(trusted(), None, "a link to it");
        fs::remove_file(&path).unwrap();
        fs::write(&path, b"a file").unwrap();
        assert_eq!(trusted(), None, "a file");
        fs::remove_file(&path).unwrap();
        fs::rename(&moved, &path).unwrap();
        let parent = dir.path().join("p");
        let elsewhere = dir.path().join("elsewhere");
        fs::rename(&parent, &elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &parent).unwrap();
        assert_eq!(trusted(), None, "its parent a link");
    }

    /// No directory is listed when its stamp is as recorded, so a file added anywhere must
    /// move a stamp that is checked: in the tree's own directory, in a subdirectory, in one
    /// that was empty, in one nested deeper; a file removed, and one renamed, likewise.
    #[test]
    #[allow(clippy::disallowed_methods)]
    fn a_file_added_removed_or_renamed_in_any_directory_is_seen_without_a_listing() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        root.write_file("s/SKILL.md", b"---\nname: s\n---\n")
            .unwrap();
        root.write_file("s/sub/deep/a.md", b"a").unwrap();
        root.create_dir_all("s/empty").unwrap();
        let cache_dir = tempfile::tempdir().unwrap();
        settle();
        assert_eq!(run(&root, cache_dir.path()).0, (0, 1));
        assert_eq!(run(&root, cache_dir.path()).0, (1, 0), "unchanged: trusted");
        let changes: [(&str, &dyn Fn()); 6] = [
            ("top", &|| root.write_file("s/top.md", b"t").unwrap()),
            ("empty", &|| {
                root.write_file("s/empty/new.md", b"n").unwrap()
            }),
            ("sub", &|| root.write_file("s/sub/b.md", b"b").unwrap()),
            ("deep", &|| {
                root.write_file("s/sub/deep/c.md", b"c").unwrap()
            }),
            ("removed", &|| {
                fs::remove_file(dir.path().join("s/sub/deep/c.md")).unwrap();
            }),
            ("renamed", &|| {
                fs::rename(
                    dir.path().join("s/sub/deep/a.md"),
                    dir.path().join("s/sub/deep/z.md"),
                )
                .unwrap();
            }),
        ];
        for (what, change) in changes {
            change();
            settle();
            let (counts, paths) = run(&root, cache_dir.path());
            assert_eq!(counts, (0, 1), "{what}: read again");
            let fresh = SkillTree::read(&root, "s").unwrap();
            let want: Vec<String> = fresh.files().iter().map(|f| f.path.clone()).collect();
            assert_eq!(paths, want, "{what}");
            assert_eq!(
                run(&root, cache_dir.path()).0,
                (1, 0),
                "{what}: then trusted"
            );
        }
    }
}
