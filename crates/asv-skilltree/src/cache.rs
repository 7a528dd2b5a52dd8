//! The stamp cache: what a write run of `skill sync` learnt of the skill directories it read
//! (each file's `lstat` stamp and digest, the tree hash; for a directory whose hash alone was
//! asked for, a mirrored copy, no digests), kept between runs on this machine only, so a later
//! run can tell an unchanged directory without reading its files again.
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
//!   through a link), under the cap, framed exactly as written (header, root, each record's
//!   line counts and kinds, directories in order, the closing count); a link, a torn or
//!   hostile file, a write that fails: ignored without a word. A record's fields are parsed,
//!   as strictly, when its directory is asked for (the `record` module): one that does not parse
//!   is not trusted, and its directory is read whole.
//! - **Stamped from open directories.** The directory holding recorded ones (an agent's
//!   skills directory) is opened once per run and each recorded directory in it stamped
//!   from that descriptor ([`asv_fs::OpenDir`]), links refused at every step as by path: a
//!   no-change run costs one `lstat` per entry and no open per directory.

use std::collections::HashMap;
use std::fs;
use std::io::Read as _;
#[cfg(feature = "test-hooks")]
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};

use asv_fs::{FileStamp, OpenDir, Root, StampDir, join};
use sha2::{Digest, Sha256};

use crate::data::FileData;
use crate::{Error, FileNode, SKILL_MANIFEST, SkillTree};

mod record;

use record::{DirRecord, FileRecord, Loaded, Record, hex, plain_path, unhex};

/// The largest cache file read or written: about half a million files' stamps. Past it the
/// cache is not written (and a larger file found is ignored), so a huge tree costs reads,
/// never unbounded memory.
pub const MAX_BYTES: u64 = 96 * 1024 * 1024;

/// The variable naming the cache directory itself (tests point it at a temporary one).
pub const CACHE_DIR_VAR: &str = "ASV_CACHE_DIR";

/// The stamp cache of one repository root for one run (see the module's rules). Shared by
/// reference across threads; [`StampCache::save`] writes what the run learnt.
#[derive(Debug, Default)]
pub struct StampCache {
    /// Where the cache file goes and the root's identity; `None`: disabled.
    place: Option<Place>,
    /// What the file said when the run began.
    loaded: Loaded,
    /// How many times a directory was taken from the cache this run.
    trusted: AtomicUsize,
    /// Directories read afresh this run, and their records' text.
    fresh: Mutex<Vec<(String, String)>>,
    /// The root the files of trusted trees are left in, opened once for all of them.
    shared: OnceLock<Arc<Root>>,
    /// The directories holding recorded ones (an agent's skills directory, `skills/`), each
    /// opened once: every directory in them is stamped from there (`None`: not one to open;
    /// each directory in it is then opened by its own path).
    parents: RwLock<HashMap<String, Option<Arc<OpenDir>>>>,
}

/// Whether a directory's record keeps its files' digests: needed to hand its files out
/// unread ([`StampCache::read`]), not to vouch for its hash alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Digests {
    Kept,
    Dropped,
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
            ..StampCache::default()
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
        if let Some(at) = self.trusted(root, dir)
            && let Some(tree) = self
                .loaded
                .record(at)
                .and_then(|rec| self.tree_of_record(root, dir, rec))
        {
            self.note_trusted(at);
            return Ok(tree);
        }
        self.read_fresh(root, dir, Digests::Kept)
    }

    /// The tree hash of `dir`, as [`SkillTree::read_hash`] gives it: the recorded one when
    /// every file is as recorded, else worked out by reading the directory whole (and
    /// recorded).
    ///
    /// # Errors
    /// As [`SkillTree::read_hash`].
    pub fn read_hash(&self, root: &Root, dir: &str) -> Result<String, Error> {
        if let Some(hash) = self.trusted_hash(root, dir) {
            return Ok(hash);
        }
        if !self.is_enabled() {
            return SkillTree::read_hash(root, dir);
        }
        // Only the hash of such a directory is ever asked for (a mirrored copy, judged by it):
        // its files' digests are not recorded (65 bytes a file less to write, read and keep). Should
        // the directory later be read as a tree, that record is not enough and it is read
        // whole.
        Ok(self.read_fresh(root, dir, Digests::Dropped)?.hash())
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
        let at = self.trusted(root, dir)?;
        let hash = self.loaded.record(at)?.hash.to_owned();
        self.note_trusted(at);
        Some(hash)
    }

    /// How many directories this run took from the cache and how many it read afresh.
    pub fn counts(&self) -> (usize, usize) {
        let fresh = self.fresh.lock().unwrap_or_else(PoisonError::into_inner);
        (self.trusted.load(Ordering::Relaxed), fresh.len())
    }

    /// Writes what this run learnt, when it read anything afresh: the directories it took
    /// from the cache (their records as they were) and those it read, nothing else (a
    /// directory no longer visited is forgotten). Nothing read afresh writes nothing. Any
    /// failure leaves the cache as it was (or gone), unsaid: the next run reads more, nothing
    /// else.
    pub fn save(&self) {
        #[cfg(feature = "test-hooks")]
        self.report_counts();
        let Some(place) = &self.place else {
            return;
        };
        let mut fresh = self.fresh.lock().unwrap_or_else(PoisonError::into_inner);
        if fresh.is_empty() {
            return;
        }
        fresh.sort_by(|a, b| a.0.cmp(&b.0));
        fresh.dedup_by(|a, b| a.0 == b.0);
        let Some(text) = record::assemble(place.root_id, self.loaded.kept(), &fresh, MAX_BYTES)
        else {
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

    fn note_trusted(&self, at: usize) {
        self.trusted.fetch_add(1, Ordering::Relaxed);
        self.loaded.keep(at);
    }

    /// Where the record of `dir` is, when the directory is exactly as recorded and every file
    /// settled before the recording read began; `None` for anything else (a record that does
    /// not parse, or an error: the read whole that follows says it).
    fn trusted(&self, root: &Root, dir: &str) -> Option<usize> {
        let at = self.loaded.find(dir)?;
        let rec = self.loaded.record(at)?;
        // Every directory as recorded, so every name in each is the recorded one: no listing.
        // A record without its own directory's stamp first is not one to trust (the index
        // refuses a record with no subdirectory line; this keeps the rule local). The
        // directory is opened once and everything in it stamped from there.
        let (parent, name) = dir.rsplit_once('/').unwrap_or(("", dir));
        let parent = self.parent(root, parent);
        let mut opened: Option<StampDir> = None;
        for (i, sub) in rec.subs().enumerate() {
            let (stamp, sub) = sub?;
            if (i == 0) != (sub == ".") || !stamp.settled_before(rec.taken) {
                return None;
            }
            let now = match opened.as_mut() {
                None => {
                    let at = match &parent {
                        Some(parent) => parent.stamp_dir(name).ok()??,
                        None => root.stamp_dir(dir).ok()??,
                    };
                    let own = at.stamp();
                    opened = Some(at);
                    own
                }
                Some(at) => at.dir_stamp(sub).ok()?,
            };
            if now != Some(stamp) {
                return None;
            }
        }
        let at_dir = opened.as_mut()?;
        for file in rec.files() {
            let file = file?;
            if !file.stamp.settled_before(rec.taken)
                || at_dir.file_stamp(file.path).ok()?? != file.stamp
            {
                return None;
            }
        }
        Some(at)
    }

    /// The directory `parent` opened to stamp the directories in it, once per run; `None`
    /// when it is not a real directory reached through real directories (or cannot be
    /// opened): the caller then opens each directory by its own path, which says why.
    fn parent(&self, root: &Root, parent: &str) -> Option<Arc<OpenDir>> {
        let known = self.parents.read().unwrap_or_else(PoisonError::into_inner);
        if let Some(opened) = known.get(parent) {
            return opened.clone();
        }
        drop(known);
        let opened = root.open_dir(parent).ok().flatten().map(Arc::new);
        self.parents
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(parent.to_owned())
            .or_insert(opened)
            .clone()
    }

    /// Reads `dir` whole, recording it (its files' digests as `digests` says) when a cache is
    /// in use and every file had a stamp.
    fn read_fresh(&self, root: &Root, dir: &str, digests: Digests) -> Result<SkillTree, Error> {
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
                    sha256: (digests == Digests::Kept).then(|| f.data.sha256()),
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
            if let Some(text) = record::render(dir, &rec) {
                self.fresh
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push((dir.to_owned(), text));
            }
        }
        Ok(tree)
    }
}

impl StampCache {
    /// The tree a trusted record stands for: each `SKILL.md` read (and checked against its
    /// digest and stamp once more), every other file left on disk by its digest. `None` when
    /// a `SKILL.md` no longer matches, or a line does not parse: the caller reads the
    /// directory whole.
    fn tree_of_record(&self, root: &Root, dir: &str, rec: Record<'_>) -> Option<SkillTree> {
        let shared = match self.shared.get() {
            Some(shared) if shared.root() == root.root() => Arc::clone(shared),
            _ => {
                let opened = Arc::new(Root::open(root.root()).ok()?);
                // The first root asked for is kept; another (never, in one run) is opened anew.
                let _ = self.shared.set(Arc::clone(&opened));
                opened
            }
        };
        let mut files = Vec::with_capacity(rec.file_count());
        for f in rec.files() {
            let f = f?;
            let sha256 = unhex(f.digest)?;
            let full = join(dir, f.path);
            let data = if f.path.rsplit('/').next() == Some(SKILL_MANIFEST) {
                let reader = root.open_reader(&full).ok()??;
                if reader.stamp() != Some(f.stamp) {
                    return None;
                }
                let mut bytes = Vec::new();
                reader
                    .for_each_chunk(&mut |chunk| bytes.extend_from_slice(chunk))
                    .ok()?;
                if <[u8; 32]>::from(Sha256::digest(&bytes)) != sha256 {
                    return None;
                }
                FileData::from(bytes)
            } else {
                FileData::stored(&shared, full, f.stamp.len(), sha256)
            };
            files.push(FileNode {
                path: f.path.to_owned(),
                data,
                executable: f.stamp.is_executable(),
            });
        }
        Some(SkillTree::with_known_hash(files, rec.hash.to_owned()))
    }
}

/// The cache file of `place` when it is a regular file reached through no link, within the
/// cap, for this root, and framed as written; `None` for anything else.
fn load(place: &Place) -> Option<Loaded> {
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
    let mut text = String::with_capacity(usize::try_from(opened.len()).unwrap_or(0));
    file.take(MAX_BYTES + 1).read_to_string(&mut text).ok()?;
    if text.len() as u64 > MAX_BYTES {
        return None;
    }
    Loaded::index(text, place.root_id)
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
    use std::time::Duration;

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
        let index = |text: &str, id| Loaded::index(text.to_owned(), id);
        let loaded = index(&text, place.root_id).unwrap();
        let rec = loaded.record(loaded.find("s").unwrap()).unwrap();
        assert_eq!(rec.hash, tree.hash());
        let paths: Vec<&str> = rec.files().map(|f| f.unwrap().path).collect();
        assert_eq!(paths, ["SKILL.md", "a b.md"]);
        // Another root's identity, a cut file, a stray line, a wrong count: nothing.
        assert!(index(&text, (place.root_id.0, place.root_id.1 + 1)).is_none());
        assert!(index(&text[..text.len() - 3], place.root_id).is_none());
        assert!(index(&format!("{text}x\n"), place.root_id).is_none());
        assert!(index(&text.replace("end 1", "end 2"), place.root_id).is_none());
        // The directory's own stamp comes first, and there is one.
        let subs: Vec<&str> = rec.subs().map(|s| s.unwrap().1).collect();
        assert_eq!(subs, ["."]);
        assert!(index(&text.replace(" 2 1 s\n", " 2 0 s\n"), place.root_id).is_none());
        // A field that does not parse is found when the record is read: not trusted, and
        // read whole again.
        let bad_digest = text.replacen(&hex(&Sha256::digest(b"spaced")), &"g".repeat(64), 1);
        assert_ne!(bad_digest, text);
        let loaded = index(&bad_digest, place.root_id).unwrap();
        let rec = loaded.record(loaded.find("s").unwrap()).unwrap();
        assert!(rec.files().any(|f| unhex(f.unwrap().digest).is_none()));
        // A path that leaves the directory, or a subdirectory that does: not a record to trust
        // (nothing outside the directory is ever stamped or read for it).
        let outside = text.replacen(" a b.md\n", " ../a b.md\n", 1);
        assert_ne!(outside, text);
        let loaded = index(&outside, place.root_id).unwrap();
        let rec = loaded.record(loaded.find("s").unwrap()).unwrap();
        assert!(rec.files().any(|f| f.is_none()));
        let up = text.replacen(" .\n", " ..\n", 1);
        assert_ne!(up, text);
        let loaded = index(&up, place.root_id).unwrap();
        let rec = loaded.record(loaded.find("s").unwrap()).unwrap();
        assert!(rec.subs().any(|s| s.is_none()));
        let bad_stamp = text.replacen("file ", "file x", 1);
        let loaded = index(&bad_stamp, place.root_id).unwrap();
        let rec = loaded.record(loaded.find("s").unwrap()).unwrap();
        assert!(rec.files().any(|f| f.is_none()));
    }

    /// Records must come sorted by directory, each once: the lookup is a binary search.
    #[test]
    fn records_out_of_order_or_twice_refuse_the_file() {
        let stamp = "1 2 3 16877 1000 1 1000 1";
        let record = |dir: &str| {
            format!(
                "dir 2000 0 sha256:{} 0 1 {dir}\nsub {stamp} .\n",
                "0".repeat(64)
            )
        };
        let file = |dirs: &[&str]| {
            let mut text = record::preamble((7, 8));
            for d in dirs {
                text.push_str(&record(d));
            }
            text + &record::closing(dirs.len())
        };
        let loaded = Loaded::index(file(&["a", "a/b", "b"]), (7, 8)).unwrap();
        assert_eq!(loaded.find("a/b"), Some(1));
        assert_eq!(loaded.find("c"), None);
        assert!(Loaded::index(file(&["b", "a"]), (7, 8)).is_none());
        assert!(Loaded::index(file(&["a", "a"]), (7, 8)).is_none());
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

    /// A directory whose hash alone was asked for is recorded without its files' digests:
    /// its hash is vouched for again next run, but a read of it as a tree, which hands out
    /// files unread by their digests, does not take that record: it reads the directory whole
    /// (the files as they are on disk), and records the digests from then on.
    #[test]
    #[allow(clippy::disallowed_methods)]
    fn a_record_of_a_hash_alone_vouches_for_the_hash_and_never_for_the_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        root.write_file("c/s/SKILL.md", b"---\nname: s\n---\n")
            .unwrap();
        root.write_file("c/s/a.md", b"a").unwrap();
        let cache_dir = tempfile::tempdir().unwrap();
        settle();
        let first = StampCache::open_in(&root, cache_dir.path());
        let hash = first.read_hash(&root, "c/s").unwrap();
        first.save();
        let file = first.place.clone().unwrap().file;
        let text = fs::read_to_string(&file).unwrap();
        let files: Vec<&str> = text.lines().filter(|l| l.starts_with("file ")).collect();
        assert_eq!(files.len(), 2, "{text}");
        assert!(
            files.iter().all(|l| l.split(' ').nth(9) == Some("-")),
            "no digest for a hash alone: {text}"
        );
        settle();
        let root = Root::open(dir.path()).unwrap();
        let second = StampCache::open_in(&root, cache_dir.path());
        assert_eq!(second.trusted_hash(&root, "c/s"), Some(hash.clone()));
        let tree = second.read(&root, "c/s").unwrap();
        assert_eq!(tree.hash(), hash);
        assert_eq!(
            second.counts(),
            (1, 1),
            "the tree read whole, not from the record"
        );
        assert_eq!(&*tree.get("a.md").unwrap().data.read().unwrap(), b"a");
        second.save();
        let text = fs::read_to_string(&file).unwrap();
        assert!(
            text.lines()
                .filter(|l| l.starts_with("file "))
                .all(|l| l.split(' ').nth(9).is_some_and(|d| d.len() == 64)),
            "read as a tree, recorded with its digests: {text}"
        );
        settle();
        let root = Root::open(dir.path()).unwrap();
        let third = StampCache::open_in(&root, cache_dir.path());
        assert_eq!(third.read(&root, "c/s").unwrap().hash(), hash);
        assert_eq!(third.counts(), (1, 0), "now taken from its record");
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
