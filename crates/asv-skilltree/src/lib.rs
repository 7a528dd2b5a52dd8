//! The skill content model: what a skill directory holds, read without following links, and
//! its tree hash.
//!
//! A skill is a set of regular files, each with its bytes and its owner-execute bit; nothing
//! else (no directories, no links, no other kinds). Reading skips only `.git`, `.DS_Store` and
//! `Thumbs.db` and refuses every other kind of entry by name, so what is hashed is exactly what
//! would be copied. The tree hash frames each file as three length-prefixed chunks (path,
//! executable flag, data), so no two different trees hash alike by shifting bytes between
//! fields.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let root = asv_fs::Root::open(dir.path())?;
//! root.write_file("skills/a/ab", b"c")?;
//! let tree = asv_skilltree::SkillTree::read(&root, "skills/a")?;
//! assert_eq!(
//!     tree.hash(),
//!     "sha256:e62a88afc01888d3def7147fa03bdf1c89322e88b5441c1e5794b68089efc83b"
//! );
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

pub mod cache;
mod data;
mod digests;
pub mod error;
#[doc(hidden)]
pub mod fuzz;
pub mod merge;
mod path;

pub use cache::StampCache;
pub use data::{FileData, Place, Receiver, Stored};
pub use digests::DIGESTS_VERSION;
pub use error::Error;
pub use path::{PathProblem, validate_relative_path, validate_stored_path};

use asv_fs::{EntryKind, FileStamp, Root, join};
use sha2::{Digest, Sha256};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

/// Names skipped wherever they appear.
pub const SKIPPED_NAMES: &[&str] = &[".git", ".DS_Store", "Thumbs.db"];

pub use asv_model::layout::SKILL_MANIFEST;

/// Whether `name` is one of the three entries every read skips ([`SKIPPED_NAMES`]).
pub fn is_ignored_name(name: &str) -> bool {
    SKIPPED_NAMES.contains(&name)
}

/// A name as compared across configuration, imports and directories: Unicode NFKC, then
/// surrounding whitespace trimmed.
///
/// ```
/// assert_eq!(asv_skilltree::normalize_name(" ｐｄｆ "), "pdf");
/// ```
pub fn normalize_name(name: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    name.nfkc().collect::<String>().trim().to_owned()
}

/// One file of a skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileNode {
    /// Path relative to the skill directory, `/`-separated.
    pub path: String,
    /// The exact bytes, in memory or left where they were read ([`FileData`]).
    pub data: FileData,
    /// Whether the owner-execute bit is set.
    pub executable: bool,
}

/// A skill's files, sorted bytewise by path, and their tree hash.
#[derive(Debug, Clone)]
pub struct SkillTree {
    files: Vec<FileNode>,
    /// The tree hash. A read works it out as it goes, so no file is read twice for it; a
    /// merge leaves it to the first [`SkillTree::hash`], since working it out means reading
    /// again every merged file left on disk and a pull never asks (it compares files).
    hash: OnceLock<String>,
}

/// Two trees are equal when their files are (by content, wherever the bytes are). Hashes
/// already known answer a difference without looking at the files.
impl PartialEq for SkillTree {
    fn eq(&self, other: &Self) -> bool {
        if let (Some(a), Some(b)) = (self.hash.get(), other.hash.get())
            && a != b
        {
            return false;
        }
        self.files == other.files
    }
}

impl Eq for SkillTree {}

/// The empty tree.
impl Default for SkillTree {
    fn default() -> Self {
        SkillTree {
            files: Vec::new(),
            hash: OnceLock::from(TreeHasher::default().finish()),
        }
    }
}

impl SkillTree {
    /// Builds a tree from files in any order (sorted here) and works out its hash, reading
    /// again the files a read left on disk.
    ///
    /// # Errors
    /// As [`Stored::for_each_chunk`], for a file left on disk that changed since it was read.
    pub fn from_files(files: Vec<FileNode>) -> Result<Self, Error> {
        let tree = SkillTree::from_files_unhashed(files);
        let mut h = TreeHasher::default();
        for f in &tree.files {
            h.head(&f.path, f.executable, f.data.len());
            f.data.for_each_chunk(&mut |chunk| h.data(chunk))?;
        }
        let _ = tree.hash.set(h.finish());
        Ok(tree)
    }

    /// A tree whose hash is already known from a record of these very files (files in tree
    /// order): only the stamp cache makes one, after checking every file's stamp.
    pub(crate) fn with_known_hash(files: Vec<FileNode>, hash: String) -> Self {
        SkillTree {
            files,
            hash: OnceLock::from(hash),
        }
    }

    /// Builds a tree from files in any order (sorted here), its hash left to the first
    /// [`SkillTree::hash`].
    pub(crate) fn from_files_unhashed(mut files: Vec<FileNode>) -> Self {
        files.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
        SkillTree {
            files,
            hash: OnceLock::new(),
        }
    }

    /// Reads the directory `dir` of `root`; a missing directory is an empty tree.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a link, FIFO, socket or device anywhere below `dir`; a
    /// guarded-read refusal.
    pub fn read(root: &Root, dir: &str) -> Result<Self, Error> {
        read_tree(root, dir, false, Budget::unlimited())
    }

    /// Reads `dir` as [`SkillTree::read`] does, leaving out every entry `keep` declines:
    /// `keep(path under dir, is_directory)` is asked of each entry as the walk meets it, and
    /// a directory declined is never walked into (so what another rule excludes, such as a
    /// local source's `.gitignore`, cannot refuse the read with a link inside it). An entry
    /// kept is judged as a plain read judges it.
    ///
    /// # Errors
    /// As [`SkillTree::read`].
    pub fn read_filtered(
        root: &Root,
        dir: &str,
        keep: &mut dyn FnMut(&str, bool) -> bool,
    ) -> Result<Self, Error> {
        let mut listing = Vec::new();
        list_into(root, dir, "", false, &mut listing, keep, None)?;
        listing.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let mut reading = Reading::new(root, Budget::unlimited(), u64::MAX);
        for (rel, full) in listing {
            reading.file(&full, rel)?;
        }
        Ok(reading.finish())
    }

    /// [`SkillTree::read`], with the stamp of every file as it was opened: what
    /// [`Stamps::still_hold`] needs to tell later, mostly without reading, that `dir` still
    /// holds the tree. The tree's hash is left to the first [`SkillTree::hash`] (which reads
    /// again the files left on disk), and each file's SHA-256 is worked out as it is read: a
    /// pull compares its local copy by files.
    ///
    /// # Errors
    /// As [`SkillTree::read`].
    pub fn read_stamped(root: &Root, dir: &str) -> Result<(Self, Stamps), Error> {
        let taken = FileStamp::clock();
        // Each directory is stamped as it is listed (before its entries are read), so a
        // later stamp equal to it shows the same names in it.
        let mut dirs = Vec::new();
        let mut listing = Vec::new();
        list_into(
            root,
            dir,
            "",
            false,
            &mut listing,
            &mut |_, _| true,
            Some(&mut dirs),
        )?;
        listing.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let mut reading = Reading::new(root, Budget::unlimited(), u64::MAX);
        reading.stamps = Some(Vec::with_capacity(listing.len()));
        reading.hasher = None;
        reading.digests = true;
        for (rel, full) in listing {
            reading.file(&full, rel)?;
        }
        let files = reading.stamps.take().unwrap_or_default();
        Ok((reading.finish(), Stamps { taken, files, dirs }))
    }

    /// The tree hash of `dir` as [`SkillTree::read`] would give it, worked out in one pass
    /// that keeps no file: for checking that a directory still holds a tree already known.
    ///
    /// # Errors
    /// As [`SkillTree::read`].
    pub fn read_hash(root: &Root, dir: &str) -> Result<String, Error> {
        let listing = sorted_files(root, dir, false)?;
        let mut h = TreeHasher::default();
        for (rel, full) in listing {
            let Some(reader) = root.open_reader(&full)? else {
                return Err(Error::NotADirectory {
                    path: full,
                    found: None,
                });
            };
            h.head(&rel, reader.is_executable(), reader.len());
            reader.for_each_chunk(&mut |chunk| h.data(chunk))?;
        }
        Ok(h.finish())
    }

    /// Reads `dir` as [`SkillTree::read`] does, refusing it once its files hold more than
    /// `limit` bytes together. Each file's size is judged before it is read and the read
    /// itself stops past the limit, so the refusal costs no more than `limit` bytes of memory
    /// however large a file is. `what` words the refusal (see [`Error::TooLarge`]).
    ///
    /// # Errors
    /// [`Error::TooLarge`] past `limit`; as [`SkillTree::read`].
    ///
    /// # Example
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let dir = tempfile::tempdir()?;
    /// let root = asv_fs::Root::open(dir.path())?;
    /// root.write_file("pdf/SKILL.md", b"---\nname: pdf\n---\n")?;
    /// root.write_file("pdf/data.bin", &[0u8; 100])?;
    /// assert!(asv_skilltree::SkillTree::read_capped(&root, "pdf", 200, "a test takes").is_ok());
    /// let refused = asv_skilltree::SkillTree::read_capped(&root, "pdf", 100, "a test takes");
    /// assert!(matches!(refused, Err(asv_skilltree::Error::TooLarge { .. })));
    /// # Ok(())
    /// # }
    /// ```
    pub fn read_capped(
        root: &Root,
        dir: &str,
        limit: u64,
        what: &'static str,
    ) -> Result<Self, Error> {
        let budget = Budget {
            dir: dir.to_owned(),
            used: 0,
            limit,
            what,
        };
        read_tree(root, dir, false, budget)
    }

    /// Reads `dir` as [`SkillTree::read`] does, but requires a real directory at `dir` and
    /// refuses the entries a plain read skips: for hashing exactly what will be copied, so no
    /// content can hide from the hash by being left behind.
    ///
    /// # Errors
    /// [`Error::NotADirectory`] for a missing root or one of another kind;
    /// [`Error::IgnoredMetadata`] for a `.git`, `.DS_Store` or `Thumbs.db` entry; as
    /// [`SkillTree::read`].
    pub fn read_strict(root: &Root, dir: &str) -> Result<Self, Error> {
        require_directory(root, dir)?;
        read_tree(root, dir, true, Budget::unlimited())
    }

    /// [`SkillTree::read_strict`] that gives up, answering `None`, once `stop` is set: for a
    /// read made ahead of knowing whether it is wanted, beside the reads that will say. The
    /// flag is looked at before each file.
    ///
    /// # Errors
    /// As [`SkillTree::read_strict`].
    pub fn read_strict_unless(
        root: &Root,
        dir: &str,
        stop: &AtomicBool,
    ) -> Result<Option<Self>, Error> {
        require_directory(root, dir)?;
        read_stopping(root, dir, true, Budget::unlimited(), u64::MAX, stop)
    }

    /// One regular file as a one-file tree whose only path is `name`.
    ///
    /// # Errors
    /// [`Error::UnsafePath`] for a `name` that is not a safe relative path;
    /// [`Error::NotADirectory`] with `found: None` when nothing stands at `path` (the error
    /// `read` shares, worded for a directory); [`Error::Fs`] for a link at `path` or on the
    /// way ([`asv_fs::Error::Symlink`]), another kind of entry there
    /// ([`asv_fs::Error::WrongKind`]) or a read that fails.
    pub fn read_file_node(root: &Root, path: &str, name: &str) -> Result<Self, Error> {
        validate_relative_path(name).map_err(|problem| Error::UnsafePath {
            path: name.to_owned(),
            problem,
        })?;
        let mut reading = Reading::new(root, Budget::unlimited(), u64::MAX);
        reading.file(path, name.to_owned())?;
        Ok(reading.finish())
    }

    /// Whether the tree has a `SKILL.md` at its root.
    pub fn has_manifest(&self) -> bool {
        self.get(SKILL_MANIFEST).is_some()
    }

    /// The file at `path`, if the tree holds one.
    pub fn get(&self, path: &str) -> Option<&FileNode> {
        self.files
            .binary_search_by(|f| f.path.as_bytes().cmp(path.as_bytes()))
            .ok()
            .map(|i| &self.files[i])
    }

    /// Whether the tree holds no file.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Checks every path: safe ([`validate_relative_path`]), none of the skipped names, and
    /// no file standing where another needs a directory.
    ///
    /// # Errors
    /// [`Error::UnsafePath`] or [`Error::FileDirectory`] for the first path that fails.
    pub fn check_paths(&self) -> Result<(), Error> {
        let mut dirs = std::collections::HashSet::new();
        for f in &self.files {
            validate_relative_path(&f.path).map_err(|problem| Error::UnsafePath {
                path: f.path.clone(),
                problem,
            })?;
            if f.path.split('/').any(is_ignored_name) {
                return Err(Error::UnsafePath {
                    path: f.path.clone(),
                    problem: PathProblem::Skipped,
                });
            }
            let mut p = f.path.as_str();
            while let Some(cut) = p.rfind('/') {
                p = &p[..cut];
                if !dirs.insert(p) {
                    break;
                }
            }
        }
        match self.files.iter().find(|f| dirs.contains(f.path.as_str())) {
            Some(f) => Err(Error::FileDirectory {
                path: f.path.clone(),
            }),
            None => Ok(()),
        }
    }

    /// Writes the tree into `dir` of `root`, which must already exist and be empty. Every path is
    /// checked first ([`SkillTree::check_paths`]), so a refused tree writes nothing, and every
    /// write goes through `root`'s guarded access, so nothing lands outside `dir`. Files get
    /// `0666` or, when executable, `0777`, narrowed by the umask.
    ///
    /// # Errors
    /// As [`SkillTree::check_paths`]; [`Error::NotADirectory`] or [`Error::NotEmpty`] for
    /// `dir`; a guarded-write failure (after which `dir` holds part of the tree and belongs
    /// to the caller to remove).
    pub fn materialize(&self, root: &Root, dir: &str) -> Result<(), Error> {
        self.check_paths()?;
        require_directory(root, dir)?;
        if !root.read_dir(dir)?.unwrap_or_default().is_empty() {
            return Err(Error::NotEmpty {
                path: dir.to_owned(),
            });
        }
        for f in &self.files {
            // One file's bytes at a time, however large the tree.
            root.write_file_mode(&join(dir, &f.path), &f.data.read()?, f.executable)?;
        }
        Ok(())
    }

    /// The files, sorted by path.
    pub fn files(&self) -> &[FileNode] {
        &self.files
    }

    /// The files, sorted by path, taken out of the tree: a caller done with the tree keeps the
    /// bytes without copying them (`skill pack` hands them to the ZIP writer).
    ///
    /// # Example
    /// ```
    /// use asv_skilltree::{FileNode, SkillTree};
    /// let node = |path: &str| FileNode { path: path.into(), data: "x".into(), executable: false };
    /// let tree = SkillTree::from_files(vec![node("b"), node("a")])?;
    /// let paths: Vec<String> = tree.into_files().into_iter().map(|f| f.path).collect();
    /// assert_eq!(paths, ["a", "b"]);
    /// # Ok::<(), asv_skilltree::Error>(())
    /// ```
    pub fn into_files(self) -> Vec<FileNode> {
        self.files
    }

    /// The tree hash: SHA-256 over, per file, the path, one byte `1`/`0` for executable, and
    /// the data, each prefixed by its length as a big-endian u64; printed `sha256:<hex>`.
    ///
    /// Known from the start for a tree read or made by [`SkillTree::from_files`]. A merge's
    /// tree ([`merge::merge`]) works it out here the first time, reading again the files it
    /// left on disk. Should one of them no longer hold what was read (or not read at all), the
    /// hash is that of a stream opening with a path length no tree has, then that file's
    /// path: it matches no tree that can be read.
    pub fn hash(&self) -> String {
        self.hash
            .get_or_init(|| {
                let mut h = TreeHasher::default();
                for f in &self.files {
                    h.head(&f.path, f.executable, f.data.len());
                    if f.data.for_each_chunk(&mut |chunk| h.data(chunk)).is_err() {
                        let mut unreadable = TreeHasher::default();
                        unreadable.data(&u64::MAX.to_be_bytes());
                        unreadable.data(f.path.as_bytes());
                        return unreadable.finish();
                    }
                }
                h.finish()
            })
            .clone()
    }
}

/// The stamps of a tree's files as [`SkillTree::read_stamped`] opened them, and when that
/// read began.
#[derive(Debug, Clone)]
pub struct Stamps {
    taken: SystemTime,
    /// One per file of the tree, in its order.
    files: Vec<Option<FileStamp>>,
    /// Every directory of the tree (`.` for the tree's own, else its path under it), parents
    /// first, each with its stamp as it was listed.
    dirs: Vec<(String, Option<FileStamp>)>,
}

impl Stamps {
    /// Whether `dir` of `root` still holds `tree` (the tree read with these stamps): the same
    /// paths, and each file the same bytes and executable bit. A file whose stamp is as it
    /// was and was settled when the read began ([`FileStamp::settled_before`]) is taken as
    /// unchanged without being read; any other is read and compared. The answer is the one
    /// comparing [`SkillTree::read_hash`] with the tree's hash would give, at the cost of a
    /// listing and an `lstat` per file.
    ///
    /// # Errors
    /// As [`SkillTree::read`]: an entry that cannot be in a tree, or a read failure.
    pub fn still_hold(&self, root: &Root, dir: &str, tree: &SkillTree) -> Result<bool, Error> {
        let listing = sorted_files(root, dir, false)?;
        if listing.len() != tree.files.len() || self.files.len() != tree.files.len() {
            return Ok(false);
        }
        for ((rel, full), (file, then)) in listing.iter().zip(tree.files.iter().zip(&self.files)) {
            if *rel != file.path {
                return Ok(false);
            }
            if let Some(then) = then
                && then.settled_before(self.taken)
                && root.stamp(full)? == Some(*then)
            {
                continue;
            }
            let Some(reader) = root.open_reader(full)? else {
                return Ok(false);
            };
            if reader.is_executable() != file.executable || reader.len() != file.data.len() {
                return Ok(false);
            }
            let mut now = Sha256::new();
            reader.for_each_chunk(&mut |chunk| now.update(chunk))?;
            if <[u8; 32]>::from(now.finalize()) != file.data.sha256() {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// The tree hash worked out as files go by, in path order.
#[derive(Default)]
struct TreeHasher(Sha256);

impl TreeHasher {
    /// Frames a file's path, its executable byte and its data length; its data follows.
    fn head(&mut self, path: &str, executable: bool, len: u64) {
        for chunk in [path.as_bytes(), &[u8::from(executable)][..]] {
            self.0.update((chunk.len() as u64).to_be_bytes());
            self.0.update(chunk);
        }
        self.0.update(len.to_be_bytes());
    }

    fn data(&mut self, chunk: &[u8]) {
        self.0.update(chunk);
    }

    fn finish(self) -> String {
        let digest = self.0.finalize();
        let mut out = String::with_capacity(7 + 64);
        out.push_str("sha256:");
        for b in digest {
            out.push_str(&format!("{b:02x}"));
        }
        out
    }
}

/// A real directory at `dir`, else [`Error::NotADirectory`] saying what stands there.
fn require_directory(root: &Root, dir: &str) -> Result<(), Error> {
    match root.kind(dir)? {
        Some(EntryKind::Directory) => Ok(()),
        found => Err(Error::NotADirectory {
            path: dir.to_owned(),
            found,
        }),
    }
}

/// How many bytes of files a read may still take.
struct Budget {
    /// The directory read, for the refusal.
    dir: String,
    /// Bytes read so far.
    used: u64,
    /// The most it may read.
    limit: u64,
    /// What the limit is for.
    what: &'static str,
}

impl Budget {
    fn unlimited() -> Budget {
        Budget {
            dir: String::new(),
            used: 0,
            limit: u64::MAX,
            what: "",
        }
    }

    /// The bytes a file may hold before the read passes the limit.
    fn left(&self) -> u64 {
        self.limit - self.used
    }

    fn refuse(&self, more: u64) -> Error {
        Error::TooLarge {
            path: self.dir.clone(),
            size: self.used.saturating_add(more),
            limit: self.limit,
            what: self.what,
        }
    }
}

/// How many bytes of files the reads of one process keep in memory at once, across every
/// tree it holds; files past it are left on disk with their digest ([`FileData`]) and read
/// again when wanted (every `SKILL.md` is kept besides). Small skills are held whole (one
/// read each); a pull of a large one, or a sync of many, holds this much however large they
/// are (issue 15 §3). Bytes are given back as the trees holding them are dropped.
pub const HELD_BYTES: u64 = 32 * 1024 * 1024;

/// Reads the files under `top` in path order (so the tree hash is worked out as they are
/// read, each file once).
fn read_tree(root: &Root, top: &str, strict: bool, budget: Budget) -> Result<SkillTree, Error> {
    read_holding(root, top, strict, budget, u64::MAX)
}

/// [`read_tree`] keeping at most `held` bytes of this tree in memory (and no more than the
/// process's allowance, [`HELD_BYTES`], has left; every `SKILL.md` besides).
fn read_holding(
    root: &Root,
    top: &str,
    strict: bool,
    budget: Budget,
    held: u64,
) -> Result<SkillTree, Error> {
    let never = AtomicBool::new(false);
    // Never stopped, so never `None`.
    Ok(read_stopping(root, top, strict, budget, held, &never)?.unwrap_or_default())
}

/// [`read_holding`] that answers `None` once `stop` is set (looked at before each file).
fn read_stopping(
    root: &Root,
    top: &str,
    strict: bool,
    budget: Budget,
    held: u64,
    stop: &AtomicBool,
) -> Result<Option<SkillTree>, Error> {
    let listing = sorted_files(root, top, strict)?;
    let mut reading = Reading::new(root, budget, held);
    for (rel, full) in listing {
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        reading.file(&full, rel)?;
    }
    Ok(Some(reading.finish()))
}

/// The regular files under `top` as (path under `top`, path under the root), in tree order
/// (bytewise by path).
fn sorted_files(root: &Root, top: &str, strict: bool) -> Result<Vec<(String, String)>, Error> {
    let mut listing = Vec::new();
    list_into(root, top, "", strict, &mut listing, &mut |_, _| true, None)?;
    listing.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    Ok(listing)
}

/// Lists the regular files under `top/sub` as (path under `top`, path under the root); with
/// `dirs`, each directory's stamp is taken just before it is listed and added there (`.` for
/// `top` itself).
fn list_into(
    root: &Root,
    top: &str,
    sub: &str,
    strict: bool,
    files: &mut Vec<(String, String)>,
    keep: &mut dyn FnMut(&str, bool) -> bool,
    mut dirs: Option<&mut Vec<(String, Option<FileStamp>)>>,
) -> Result<(), Error> {
    // `top` itself rather than `top/`: the guarded root has already checked `top` by that
    // name, and a trailing slash would have it checked again.
    let here = if sub.is_empty() {
        top.to_owned()
    } else {
        join(top, sub)
    };
    if let Some(dirs) = dirs.as_deref_mut() {
        let name = if sub.is_empty() { "." } else { sub };
        dirs.push((name.to_owned(), root.dir_stamp(&here)?));
    }
    let Some(entries) = root.read_dir(&here)? else {
        return Ok(());
    };
    for entry in entries {
        let rel = join(sub, &entry.name);
        let full = join(top, &rel);
        if is_ignored_name(&entry.name) {
            if strict {
                return Err(Error::IgnoredMetadata { path: full });
            }
            continue;
        }
        if !keep(&rel, entry.kind == EntryKind::Directory) {
            continue;
        }
        match entry.kind {
            EntryKind::Directory => {
                list_into(root, top, &rel, strict, files, keep, dirs.as_deref_mut())?;
            }
            EntryKind::File => files.push((rel, full)),
            kind => return Err(Error::Unsupported { path: full, kind }),
        }
    }
    Ok(())
}

/// A tree being read: its files so far, its hash so far, and what it may still hold.
struct Reading<'r> {
    root: &'r Root,
    budget: Budget,
    held_left: u64,
    /// The tree hash so far; `None` leaves it to the first [`SkillTree::hash`].
    hasher: Option<TreeHasher>,
    files: Vec<FileNode>,
    /// Each file's stamp as it was opened, when asked for ([`SkillTree::read_stamped`]).
    stamps: Option<Vec<Option<FileStamp>>>,
    /// Whether each file's SHA-256 is worked out as it is read (a file left on disk always
    /// has it; one held has it on first ask otherwise).
    digests: bool,
    /// The guarded root the files left on disk share, opened at the first of them.
    shared: Option<std::sync::Arc<Root>>,
}

impl<'r> Reading<'r> {
    fn new(root: &'r Root, budget: Budget, held: u64) -> Self {
        Reading {
            root,
            budget,
            held_left: held,
            hasher: Some(TreeHasher::default()),
            files: Vec::new(),
            stamps: None,
            digests: false,
            shared: None,
        }
    }

    /// Reads the regular file at `full` as the node `rel` (files must come in path order),
    /// judged on the handle it is read from.
    fn file(&mut self, full: &str, rel: String) -> Result<(), Error> {
        let Some(reader) = self.root.open_reader(full)? else {
            return Err(Error::NotADirectory {
                path: full.to_owned(),
                found: None,
            });
        };
        let len = reader.len();
        if let Some(stamps) = &mut self.stamps {
            stamps.push(reader.stamp());
        }
        // Judged before a byte is read; the read refuses a file that grows meanwhile.
        if len > self.budget.left() {
            return Err(self.budget.refuse(len));
        }
        let executable = reader.is_executable();
        if let Some(hasher) = &mut self.hasher {
            hasher.head(&rel, executable, len);
        }
        let mut hasher = self.hasher.as_mut();
        // Every SKILL.md is kept whatever its size: each command parses it, and it is capped
        // where it is judged.
        let manifest = rel.rsplit('/').next() == Some(SKILL_MANIFEST);
        let keep = manifest || (len <= self.held_left && data::take_allowance(len));
        let data = if keep {
            let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
            let read = reader.for_each_chunk(&mut |chunk| {
                if let Some(hasher) = hasher.as_mut() {
                    hasher.data(chunk);
                }
                bytes.extend_from_slice(chunk);
            });
            if let Err(e) = read {
                if !manifest {
                    data::give_back_allowance(len);
                }
                return Err(e.into());
            }
            if manifest {
                FileData::from(bytes)
            } else {
                self.held_left -= len;
                FileData::kept(bytes)
            }
        } else {
            let mut own = Sha256::new();
            reader.for_each_chunk(&mut |chunk| {
                if let Some(hasher) = hasher.as_mut() {
                    hasher.data(chunk);
                }
                own.update(chunk);
            })?;
            let shared = match &self.shared {
                Some(shared) => shared,
                None => self
                    .shared
                    .insert(std::sync::Arc::new(Root::open(self.root.root())?)),
            };
            FileData::stored(shared, full.to_owned(), len, own.finalize().into())
        };
        if self.digests {
            // Worked out here, on the reading thread, while the bytes are still in cache.
            data.sha256();
        }
        self.budget.used += len;
        self.files.push(FileNode {
            path: rel,
            data,
            executable,
        });
        Ok(())
    }

    fn finish(self) -> SkillTree {
        SkillTree {
            files: self.files,
            hash: self
                .hasher
                .map(|h| OnceLock::from(h.finish()))
                .unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree with text, binary, an executable and nested paths that sort differently as
    /// paths than as a walk (`a.md` before `a/`).
    fn mixed(root: &Root) {
        root.write_file("s/SKILL.md", b"---\nname: s\n---\n")
            .unwrap();
        root.write_file("s/a.md", b"one\ntwo\n").unwrap();
        root.write_file("s/a/b.bin", &[0, 1, 2, 255]).unwrap();
        root.write_file_mode("s/run.sh", b"#!/bin/sh\n", true)
            .unwrap();
        root.write_file("s/z/deep/x.txt", b"").unwrap();
    }

    #[test]
    fn files_left_on_disk_hash_and_compare_as_held_ones() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        mixed(&root);
        let held = read_holding(&root, "s", false, Budget::unlimited(), u64::MAX).unwrap();
        let left = read_holding(&root, "s", false, Budget::unlimited(), 0).unwrap();
        assert!(held.files().iter().all(|f| f.data.held().is_some()));
        let on_disk: Vec<&str> = left
            .files()
            .iter()
            .filter(|f| f.data.stored_at().is_some())
            .map(|f| f.path.as_str())
            .collect();
        // Everything but SKILL.md and the empty file (nothing to leave) stays on disk.
        assert_eq!(on_disk, ["a.md", "a/b.bin", "run.sh"]);
        assert_eq!(left.hash(), held.hash());
        assert_eq!(SkillTree::read_hash(&root, "s").unwrap(), held.hash());
        assert_eq!(left, held);
        // Made again from its files, the tree reads them back for the same hash.
        let again = SkillTree::from_files(left.files().to_vec()).unwrap();
        assert_eq!(again.hash(), held.hash());
        // Written out, it is the same tree.
        root.create_dir_all("out").unwrap();
        left.materialize(&root, "out").unwrap();
        assert_eq!(SkillTree::read(&root, "out").unwrap().hash(), held.hash());
    }

    #[test]
    fn a_file_left_on_disk_that_changes_is_refused_not_mixed_in() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        mixed(&root);
        let left = read_holding(&root, "s", false, Budget::unlimited(), 0).unwrap();
        let hash = left.hash();
        root.write_file("s/a.md", b"ONE\ntwo\n").unwrap();
        // The hash worked out while reading stands; anything that reads the file again fails.
        assert_eq!(left.hash(), hash);
        let refused = SkillTree::from_files(left.files().to_vec()).unwrap_err();
        assert!(
            matches!(&refused, Error::Fs(asv_fs::Error::ChangedWhileRead { path }) if path == "s/a.md"),
            "{refused:?}"
        );
        root.create_dir_all("out").unwrap();
        assert!(left.materialize(&root, "out").is_err());
    }

    #[test]
    fn stamps_tell_a_directory_that_still_holds_the_tree_from_one_edited_since() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        mixed(&root);
        let (tree, stamps) = SkillTree::read_stamped(&root, "s").unwrap();
        assert_eq!(tree, SkillTree::read(&root, "s").unwrap());
        assert_eq!(tree.hash(), SkillTree::read(&root, "s").unwrap().hash());
        let holds = || stamps.still_hold(&root, "s", &tree).unwrap();
        assert!(holds());
        // Same size: seen by the stamp, or (written within the tick the read began in) by
        // reading the file again.
        root.write_file("s/a.md", b"ONE\ntwo\n").unwrap();
        assert!(!holds());
        // The same bytes again: stamps moved, content did not.
        root.write_file("s/a.md", b"one\ntwo\n").unwrap();
        assert!(holds());
        root.write_file_mode("s/a.md", b"one\ntwo\n", true).unwrap();
        assert!(!holds());
        root.write_file_mode("s/a.md", b"one\ntwo\n", false)
            .unwrap();
        assert!(holds());
        root.write_file("s/a/new.md", b"new").unwrap();
        assert!(!holds());
        root.remove_file("s/a/new.md").unwrap();
        assert!(holds());
        root.remove_file("s/z/deep/x.txt").unwrap();
        assert!(!holds());
        root.write_file("s/z/deep/x.txt", b"").unwrap();
        assert!(holds());
        root.remove_all("s").unwrap();
        assert!(!holds());
    }

    #[cfg(unix)]
    #[test]
    fn a_settled_file_is_trusted_by_its_stamp_and_a_later_edit_still_shows() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        mixed(&root);
        std::thread::sleep(std::time::Duration::from_millis(200));
        let (tree, stamps) = SkillTree::read_stamped(&root, "s").unwrap();
        let now = |path: &str| root.stamp(&join("s", path)).unwrap();
        // Each stamp is as read (on a file system with fine time stamps, such as tmpfs or
        // ext4, every file is settled by now and is not read again).
        for (file, stamp) in tree.files().iter().zip(&stamps.files) {
            assert_eq!(
                now(&file.path),
                Some(stamp.expect("a Unix file has a stamp"))
            );
        }
        assert!(stamps.still_hold(&root, "s", &tree).unwrap());
        // An edit well after the read moves the change time, so the stamp shows it.
        std::thread::sleep(std::time::Duration::from_millis(100));
        root.write_file("s/a.md", b"ONE\ntwo\n").unwrap();
        assert_ne!(now("a.md"), stamps.files[1]);
        assert!(!stamps.still_hold(&root, "s", &tree).unwrap());
    }

    #[test]
    fn a_merge_on_every_core_reports_the_first_failure_in_path_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        for (side, word) in [("b", "base"), ("l", "local"), ("r", "remote")] {
            for name in ["a.md", "m.md", "z.md"] {
                let text = format!("top\n{word}\nbottom\n");
                let text = if side == "b" || name == "z.md" || side == "r" {
                    text
                } else {
                    text.replace("bottom", "BOTTOM")
                };
                root.write_file(&format!("{side}/{name}"), text.as_bytes())
                    .unwrap();
            }
        }
        let read = |side| read_holding(&root, side, false, Budget::unlimited(), 0).unwrap();
        let (base, local, remote) = (read("b"), read("l"), read("r"));
        // Both sides changed every file, so each is read again to be merged; two of the local
        // ones are gone from under the tree.
        root.write_file("l/m.md", b"changed").unwrap();
        root.write_file("l/z.md", b"changed").unwrap();
        for _ in 0..20 {
            let refused = merge::merge(&base, &local, &remote, &|b, l, r, out| {
                merge::merge_text_into(b, l, r, ["l", "b", "r"], out)
            })
            .unwrap_err();
            assert!(
                matches!(&refused, Error::Fs(asv_fs::Error::ChangedWhileRead { path }) if path == "l/m.md"),
                "{refused:?}"
            );
        }
    }

    #[test]
    fn the_memory_allowance_is_taken_in_path_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        mixed(&root);
        // 8 bytes: a.md (8) fits, a/b.bin (4) no longer does; SKILL.md is kept regardless.
        let tree = read_holding(&root, "s", false, Budget::unlimited(), 8).unwrap();
        let held: Vec<&str> = tree
            .files()
            .iter()
            .filter(|f| f.data.held().is_some())
            .map(|f| f.path.as_str())
            .collect();
        assert_eq!(held, ["SKILL.md", "a.md", "z/deep/x.txt"]);
    }

    #[test]
    fn spec_tree_vectors() {
        let all: serde_json::Value =
            serde_json::from_str(include_str!("../../asv-contracts/tests/vectors.json"))
                .expect("vectors");
        for t in all["trees"].as_array().expect("trees") {
            let files = t["files"]
                .as_object()
                .expect("files")
                .iter()
                .map(|(path, f)| FileNode {
                    path: path.clone(),
                    data: f["data"].as_str().expect("data").into(),
                    executable: f["executable"].as_bool().expect("exec"),
                })
                .collect();
            assert_eq!(
                SkillTree::from_files(files).unwrap().hash(),
                t["hash"].as_str().expect("hash"),
                "{}",
                t["name"]
            );
        }
    }

    #[test]
    fn reads_exec_bits_skips_metadata_and_refuses_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        root.write_file("s/run.sh", b"#!/bin/sh\n").unwrap();
        root.write_file("s/.DS_Store", b"junk").unwrap();
        root.write_file("s/.git/HEAD", b"ref").unwrap();
        std::fs::set_permissions(
            dir.path().join("s/run.sh"),
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        let tree = SkillTree::read(&root, "s").unwrap();
        assert_eq!(tree.files().len(), 1);
        assert!(tree.files()[0].executable);
        assert_eq!(
            tree.hash(),
            "sha256:7c6c667390678e9d67e1b08a9d3e53818cd9bfec97589bee2b8e45dc624c2b16"
        );
        std::os::unix::fs::symlink("run.sh", dir.path().join("s/link")).unwrap();
        assert!(matches!(
            SkillTree::read(&root, "s"),
            Err(Error::Unsupported {
                kind: EntryKind::Symlink,
                ..
            })
        ));
        assert_eq!(
            SkillTree::read(&root, "missing").unwrap(),
            SkillTree::default()
        );
    }

    #[test]
    fn strict_read_wants_a_real_root_and_no_skipped_entries() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        assert!(matches!(
            SkillTree::read_strict(&root, "s"),
            Err(Error::NotADirectory { found: None, .. })
        ));
        root.write_file("f", b"x").unwrap();
        assert!(matches!(
            SkillTree::read_strict(&root, "f"),
            Err(Error::NotADirectory {
                found: Some(EntryKind::File),
                ..
            })
        ));
        root.write_file("s/SKILL.md", b"x").unwrap();
        assert_eq!(SkillTree::read_strict(&root, "s").unwrap().files().len(), 1);
        for skipped in SKIPPED_NAMES {
            root.write_file(&format!("s/sub/{skipped}"), b"junk")
                .unwrap();
            assert_eq!(SkillTree::read(&root, "s").unwrap().files().len(), 1);
            let err = SkillTree::read_strict(&root, "s").unwrap_err();
            assert!(
                matches!(&err, Error::IgnoredMetadata { path } if path == &format!("s/sub/{skipped}")),
                "{err}"
            );
            root.remove_file(&format!("s/sub/{skipped}")).unwrap();
        }
    }

    #[test]
    fn one_file_node() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        root.write_file_mode("bin/tool", b"#!/bin/sh\n", true)
            .unwrap();
        let tree = SkillTree::read_file_node(&root, "bin/tool", "scripts/tool.sh").unwrap();
        assert_eq!(tree.files().len(), 1);
        assert_eq!(tree.files()[0].path, "scripts/tool.sh");
        assert!(tree.files()[0].executable);
        // Each refusal is the one its `# Errors` names.
        assert!(matches!(
            SkillTree::read_file_node(&root, "bin/tool", "../x"),
            Err(Error::UnsafePath { .. })
        ));
        assert!(matches!(
            SkillTree::read_file_node(&root, "bin/none", "x"),
            Err(Error::NotADirectory { found: None, .. })
        ));
        std::os::unix::fs::symlink("tool", dir.path().join("bin/link")).unwrap();
        assert!(matches!(
            SkillTree::read_file_node(&root, "bin/link", "x"),
            Err(Error::Fs(asv_fs::Error::Symlink { .. }))
        ));
        assert!(matches!(
            SkillTree::read_file_node(&root, "bin", "x"),
            Err(Error::Fs(asv_fs::Error::WrongKind { .. }))
        ));
    }

    #[test]
    fn materialize_round_trips_and_refuses_before_writing() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        let node = |path: &str, data: &str, executable| FileNode {
            path: path.to_owned(),
            data: data.as_bytes().to_vec().into(),
            executable,
        };
        let tree = SkillTree::from_files(vec![
            node("SKILL.md", "---\nname: s\n---\n", false),
            node("scripts/run.sh", "#!/bin/sh\n", true),
            node(".hidden", "", false),
        ])
        .unwrap();
        root.create_dir_all("out").unwrap();
        tree.materialize(&root, "out").unwrap();
        assert_eq!(SkillTree::read_strict(&root, "out").unwrap(), tree);
        // not empty now
        assert!(matches!(
            tree.materialize(&root, "out"),
            Err(Error::NotEmpty { .. })
        ));
        // missing directory
        assert!(matches!(
            tree.materialize(&root, "nowhere"),
            Err(Error::NotADirectory { .. })
        ));
        // hostile paths: nothing written
        for bad in [
            "../escape",
            "/abs",
            "a//b",
            "a/./b",
            "x\\y",
            ".git/hooks/pre-commit",
        ] {
            root.create_dir_all("bad").unwrap();
            let hostile =
                SkillTree::from_files(vec![node("ok.md", "fine", false), node(bad, "evil", false)])
                    .unwrap();
            assert!(
                matches!(
                    hostile.materialize(&root, "bad"),
                    Err(Error::UnsafePath { .. })
                ),
                "{bad}"
            );
            assert!(root.read_dir("bad").unwrap().unwrap().is_empty(), "{bad}");
        }
        let clash =
            SkillTree::from_files(vec![node("x", "", false), node("x/y", "", false)]).unwrap();
        assert!(matches!(
            clash.materialize(&root, "bad"),
            Err(Error::FileDirectory { .. })
        ));
        assert!(
            dir.path()
                .parent()
                .unwrap()
                .join("escape")
                .metadata()
                .is_err()
        );
    }
}
