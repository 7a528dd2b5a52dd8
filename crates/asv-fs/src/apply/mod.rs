//! Applying a [`Plan`]: stage, park, swap, then clean up — or roll back.
//!
//! The order is what makes a change all-or-nothing. Every new entry is built first, beside
//! its destination (so the final move is a rename within one directory, never a copy across
//! file systems) — or, for a new file in a directory this apply made, at its destination,
//! where nothing else can be; only then is any other destination touched, each by renames
//! alone, and nothing
//! that stood there is deleted until every destination holds its new state. Up to that commit
//! point each step is undone by the reverse rename, so a failure anywhere — a full disk, a
//! permission, a busy mount — leaves the tree as it was. After it, what is left to do is only
//! clean-up, and a failure there is a warning, not a half-made change.
//!
//! Every file system call an apply makes goes through one counter, so a test can fail
//! exactly the Nth of them with a chosen errno (`FaultPlan`, reached only through the hidden
//! `Plan::with_faults`) and show that the tree is left as it was.

use std::collections::HashSet;
use std::fmt;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;

use crate::error::{EntryKind, Error, Result, StrandedEntry};
use crate::plan::{
    Action, Body, Entry, FileContents, Fill, Operation, Ownership, Plan, SourceEntry, TreeFile,
    walk_source,
};
use crate::platform;
use crate::root::{Root, join, kind_of, parent_of};

mod journal;
mod names;

use crate::faults::Calls;
pub use crate::faults::FaultPlan;
use journal::{Identity, Journal};
pub use journal::{
    Interrupted, JOURNAL_LIMIT, STATE_DIR, fuzz_journal, is_journal_name, is_journal_path,
    this_command_line,
};
pub use names::{is_parked_tree_entry, is_tree_change_residue};
use names::{parked_name, staged_name};

/// Something worth telling the user about a change that did complete.
#[derive(Debug)]
#[non_exhaustive]
pub enum Warning {
    /// A parked previous entry could not be removed after the commit point; the destination
    /// holds its new state, the old entry is left beside it.
    CleanupIncomplete {
        /// The destination, relative to the root.
        dest: String,
        /// Where the previous entry still is, relative to the root.
        parked: String,
        /// Why it could not be removed.
        error: Error,
    },
}

impl Warning {
    /// The warning's stable code (`cleanup-incomplete`).
    pub fn code(&self) -> &'static str {
        match self {
            Warning::CleanupIncomplete { .. } => "cleanup-incomplete",
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::CleanupIncomplete {
                dest,
                parked,
                error,
            } => write!(
                f,
                "{}: the previous {} could not be removed after the change ({error}); the next command that writes removes it",
                crate::quote::DisplayPath(parked),
                crate::quote::DisplayPath(dest)
            ),
        }
    }
}

/// What a completed apply reports.
#[derive(Debug)]
pub struct Applied {
    warnings: Vec<Warning>,
    calls: usize,
    commit: usize,
}

impl Applied {
    /// Warnings about the completed change (a parked entry left behind).
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// How many file system calls the apply made (for fault-injection tests).
    #[doc(hidden)]
    pub fn fs_calls(&self) -> usize {
        self.calls
    }

    /// The index of the first call after the commit point (for fault-injection tests).
    #[doc(hidden)]
    pub fn commit_call(&self) -> usize {
        self.commit
    }
}

fn is_exists(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::AlreadyExists
}

/// Where one destination's previous and new entries are at this moment.
#[derive(Debug)]
struct Track {
    dest: String,
    /// Where the previous entry is (`None`: there was none).
    old_at: Option<String>,
    /// Where the new entry is (`None`: none was made, or it is a remove).
    new_at: Option<String>,
}

struct Applier<'a, 'f> {
    tree: &'a Root,
    /// This apply's run id: in its journal and in every name it stages or parks, so a
    /// recovery acts on this run's entries alone.
    run: String,
    calls: Calls<'f>,
    no_exchange: bool,
    /// Directories already seen or made on the way to a destination in this apply, so a plan
    /// of many files in few directories inspects each directory once.
    known_dirs: std::sync::Mutex<HashSet<String>>,
    /// The trees outside this one that copies come from ([`Body::CopyFrom`]), each opened
    /// once: a guarded root checks each directory on the way to a file once, so a skill of
    /// many files copied from one place is not checked again per file.
    sources: std::sync::Mutex<std::collections::HashMap<std::path::PathBuf, Arc<Root>>>,
}

impl<'a> Applier<'a, '_> {
    /// An applier with no faults to inject and nothing known yet, acting for the run `run`
    /// (for a recovery: what it moves aside carries the interrupted run's id).
    fn for_run(tree: &'a Root, run: &str) -> Self {
        Applier {
            tree,
            run: run.to_owned(),
            calls: Calls::none(),
            no_exchange: false,
            known_dirs: Default::default(),
            sources: Default::default(),
        }
    }
}

impl Applier<'_, '_> {
    /// Runs one call through the counter, naming `rel` and `op` in its failure.
    fn op<T>(&self, rel: &str, op: &'static str, f: impl FnOnce() -> io::Result<T>) -> Result<T> {
        self.calls
            .step()
            .and_then(|()| f())
            .map_err(|e| Error::io(rel, op, e))
    }

    fn lstat(&self, rel: &str) -> Result<Option<fs::Metadata>> {
        self.op(rel, "inspect", || {
            match fs::symlink_metadata(self.tree.abs(rel)) {
                Ok(meta) => Ok(Some(meta)),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(e),
            }
        })
    }

    fn knows(&self, dir: &str) -> bool {
        self.known_dirs
            .lock()
            .is_ok_and(|known| known.contains(dir))
    }

    fn know(&self, dir: &str) {
        if let Ok(mut known) = self.known_dirs.lock() {
            known.insert(dir.to_owned());
        }
    }

    /// Opens the directory `rel` of the tree, to make and move entries in it by name.
    fn open_dir(&self, rel: &str) -> Result<platform::Dir> {
        self.op(rel, "open the directory", || {
            platform::Dir::open(&self.tree.abs(rel))
        })
    }

    /// Makes the directories on the way to `dir` that are missing, recording each made.
    fn make_dirs(&self, dir: &str, made: &mut Vec<String>) -> Result<()> {
        if dir.is_empty() {
            return Ok(());
        }
        if self.knows(dir) {
            return Ok(());
        }
        let mut path = String::new();
        // Below a directory this run has just made nothing stands (another writer would need
        // the writer lock this run holds), so the rest of the way is made without looking
        // first; `mkdir` never goes over or through an entry, so were something there after
        // all, the run would stop and roll back, never write through it.
        let mut below_made = false;
        for seg in dir.split('/') {
            path = join(&path, seg);
            if self.knows(&path) {
                continue;
            }
            if below_made {
                self.op(&path, "create directory", || {
                    fs::create_dir(self.tree.abs(&path))
                })?;
                made.push(path.clone());
                self.know(&path);
                continue;
            }
            match self.lstat(&path)?.map(|m| kind_of(m.file_type())) {
                Some(EntryKind::Directory) => {
                    self.know(&path);
                }
                None => {
                    self.op(&path, "create directory", || {
                        fs::create_dir(self.tree.abs(&path))
                    })?;
                    made.push(path.clone());
                    self.know(&path);
                    below_made = true;
                }
                Some(EntryKind::Symlink) => return Err(Error::Symlink { path }),
                Some(found) => {
                    return Err(Error::WrongKind {
                        path,
                        expected: EntryKind::Directory,
                        found,
                    });
                }
            }
        }
        Ok(())
    }

    /// Gives the tree's file `source` the new name `staged` as a hard link, when it is still a
    /// regular file of `len` bytes with the wanted executable bit and a link can be made
    /// here. `false` (nothing made) tells the caller to write the link's fallback instead.
    fn link_into(&self, source: &str, len: u64, executable: bool, staged: &str) -> Result<bool> {
        self.calls
            .step()
            .map_err(|e| Error::io(source, "read", e))?;
        // Only real directories on the way, as for a guarded read; the entry itself is judged
        // once linked, where it is the very inode: no open is needed to vet it first.
        if !self.tree.check_ancestors(source)? {
            return Ok(false);
        }
        let to = self.tree.abs(staged);
        if platform::hard_link(&self.tree.abs(source), &to).is_err() {
            return Ok(false);
        }
        // A link at the source is linked as itself (never followed), and refused here with
        // anything but a regular file of the planned length and executable bit.
        let fits = fs::symlink_metadata(&to).is_ok_and(|meta| {
            meta.file_type().is_file()
                && meta.len() == len
                && platform::is_executable(&meta) == executable
        });
        if !fits {
            self.op(staged, "remove", || fs::remove_file(&to))?;
        }
        Ok(fits)
    }

    /// The guarded root of the tree at `from`, opened once per apply.
    fn source_root(&self, from: &Path) -> Result<Arc<Root>> {
        let mut sources = self
            .sources
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(root) = sources.get(from) {
            return Ok(Arc::clone(root));
        }
        let root = Arc::new(Root::open(from)?);
        sources.insert(from.to_owned(), Arc::clone(&root));
        Ok(root)
    }

    /// Writes `body` into `out`, the staged file `rel`; a link not made writes its fallback.
    fn write_body(&self, body: &Body, rel: &str, out: &mut File) -> Result<()> {
        match body {
            Body::Bytes(bytes) => self.op(rel, "write", || out.write_all(bytes)),
            Body::Shared(bytes) => self.op(rel, "write", || out.write_all((**bytes).as_ref())),
            Body::Copy(source) => self.copy_into(None, source, rel, out),
            Body::CopyFrom { root, file, .. } => self.copy_into(Some(root), file, rel, out),
            Body::Link { fallback, .. } => self.write_body(fallback, rel, out),
        }
    }

    /// Copies the file `source` (of the tree, or under `from`) into `out` (the staged file
    /// `staged`) one chunk at a time, hashing on the way: bytes other than those `source`
    /// records are refused before the staged entry could be swapped in, so the plan rolls
    /// back. A file under `from` is named by its full path in the refusal, since it is not
    /// the repository's.
    fn copy_into(
        &self,
        from: Option<&Path>,
        source: &TreeFile,
        staged: &str,
        out: &mut File,
    ) -> Result<()> {
        use sha2::Digest as _;
        let changed = || Error::ChangedWhileRead {
            path: match from {
                None => source.path.clone(),
                Some(from) => from.join(&source.path).display().to_string(),
            },
        };
        self.calls
            .step()
            .map_err(|e| Error::io(&source.path, "read", e))?;
        let reader = match from {
            None => self.tree.open_reader(&source.path)?,
            Some(from) => self.source_root(from)?.open_reader(&source.path)?,
        };
        let Some(reader) = reader else {
            return Err(changed());
        };
        if reader.len() != source.len {
            return Err(changed());
        }
        let mut hasher = sha2::Sha256::new();
        let mut failed = None;
        reader.for_each_chunk(&mut |chunk| {
            if failed.is_none() {
                hasher.update(chunk);
                failed = out.write_all(chunk).err();
            }
        })?;
        if let Some(e) = failed {
            return Err(Error::io(staged, "write", e));
        }
        if <[u8; 32]>::from(hasher.finalize()) != source.sha256 {
            return Err(changed());
        }
        Ok(())
    }

    /// Makes a fresh staged directory beside `dest`.
    fn staged_dir(&self, dest: &str) -> Result<String> {
        loop {
            let staged = staged_name(dest, &self.run);
            let made = self.op(&staged, "create directory", || {
                match fs::create_dir(self.tree.abs(&staged)) {
                    Ok(()) => Ok(true),
                    Err(e) if is_exists(&e) => Ok(false),
                    Err(e) => Err(e),
                }
            })?;
            if made {
                return Ok(staged);
            }
        }
    }

    /// Makes a fresh staged regular file beside `dest`, open for writing; in `dir` (the
    /// destination's directory, held open) when given.
    fn staged_file(
        &self,
        dest: &str,
        mode: u32,
        dir: Option<&platform::Dir>,
    ) -> Result<(String, File)> {
        loop {
            let staged = staged_name(dest, &self.run);
            let made = self.op(&staged, "create", || {
                let created = match dir {
                    Some(dir) => dir.create_new(base_name(&staged), mode),
                    None => create_new(&self.tree.abs(&staged), mode),
                };
                match created {
                    Ok(file) => Ok(Some(file)),
                    Err(e) if is_exists(&e) => Ok(None),
                    Err(e) => Err(e),
                }
            })?;
            if let Some(file) = made {
                return Ok((staged, file));
            }
        }
    }

    /// Renames `from` to `to`, never over an entry standing at `to`.
    fn rename_noreplace(&self, from: &str, to: &str, op: &'static str) -> Result<()> {
        let (from_abs, to_abs) = (self.tree.abs(from), self.tree.abs(to));
        self.op(to, op, || platform::rename_noreplace(&from_abs, &to_abs))
    }

    /// Moves `from` to a fresh parked name beside `dest`; the name.
    fn park(&self, from: &str, dest: &str) -> Result<String> {
        loop {
            let parked = parked_name(dest, &self.run);
            match self.rename_noreplace(from, &parked, "park the previous entry") {
                Ok(()) => return Ok(parked),
                Err(Error::Io { source, .. }) if is_exists(&source) => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Exchanges `a` and `b` in one step; `false` (nothing done) where the file system
    /// cannot. Where the platform has no such call at all (`platform::HAS_EXCHANGE`), no call
    /// is made or counted.
    fn exchange(&self, a: &str, b: &str) -> Result<bool> {
        if self.no_exchange || !platform::HAS_EXCHANGE {
            return Ok(false);
        }
        let (a_abs, b_abs) = (self.tree.abs(a), self.tree.abs(b));
        self.op(b, "exchange into place", || {
            platform::exchange(&a_abs, &b_abs)
        })
    }

    /// Removes whatever stands at `rel`, never following a link, making each directory
    /// owner-writable first so a read-only tree can go.
    fn remove_tree(&self, rel: &str) -> Result<()> {
        self.remove_tree_at(&self.tree.abs(rel), rel)
    }

    fn remove_tree_at(&self, abs: &Path, rel: &str) -> Result<()> {
        let meta = self.op(rel, "inspect", || fs::symlink_metadata(abs))?;
        if !meta.file_type().is_dir() {
            return self.op(rel, "remove", || fs::remove_file(abs));
        }
        let mode = platform::mode_of(&meta);
        if mode & 0o700 != 0o700 {
            // The entry was just seen to be a directory by lstat; set_permissions follows a
            // link, so a directory swapped for a link in between would lend its target the
            // owner's rwx bits and nothing more.
            self.op(rel, "make writable", || {
                platform::set_path_mode(abs, mode | 0o700)
            })?;
        }
        // The listing's own entry types (no `lstat` each): only a directory needs looking at
        // before it goes, and unlinking never follows a link.
        let names = self.op(rel, "list", || {
            let mut names = Vec::new();
            for entry in fs::read_dir(abs)? {
                let entry = entry?;
                names.push((entry.file_name(), entry.file_type()?.is_dir()));
            }
            names.sort();
            Ok(names)
        })?;
        let remove = |(name, is_dir): &(std::ffi::OsString, bool)| {
            let child = abs.join(name);
            let child_rel = join(rel, &name.to_string_lossy());
            if *is_dir {
                self.remove_tree_at(&child, &child_rel)
            } else {
                self.op(&child_rel, "remove", || fs::remove_file(&child))
            }
        };
        if self.calls.faults.is_some() {
            // In order, as injected faults count calls.
            names.iter().try_for_each(remove)?;
        } else {
            // Entries go independently: on every core.
            use rayon::prelude::*;
            names.par_iter().try_for_each(remove)?;
        }
        self.op(rel, "remove", || fs::remove_dir(abs))
    }

    /// Fills a fresh staged entry for `entry`, recording it in a new track before filling
    /// so that a failure half-way is rolled back.
    fn stage(
        &self,
        entry: &mut Entry,
        mode_there: Option<u32>,
        slot: &mut Option<Track>,
        dir: Option<&platform::Dir>,
        in_place: bool,
    ) -> Result<()> {
        let dest = entry.planned.dest().to_owned();
        let old_at = entry.planned.existing().map(|_| dest.clone());
        let mut track = |new_at: &str| {
            *slot = Some(Track {
                dest: dest.clone(),
                old_at: old_at.clone(),
                new_at: Some(new_at.to_owned()),
            })
        };
        if matches!(entry.change.operation, Operation::Replace(Fill::With(_))) {
            let staged = self.staged_dir(&dest)?;
            track(&staged);
            if let Operation::Replace(Fill::With(write)) =
                std::mem::replace(&mut entry.change.operation, Operation::Remove(None))
            {
                let staged_tree = Root::open(self.tree.abs(&staged))?;
                write(&staged_tree)?;
            }
            return Ok(());
        }
        match &mut entry.change.operation {
            Operation::ReplaceFile(contents) => {
                let (staged, mut file) = if in_place {
                    // Straight at the destination, in a directory this run made (see
                    // `forward`): `O_EXCL` still refuses anything standing there.
                    let file = self.op(&dest, "create", || match dir {
                        Some(dir) => dir.create_new(base_name(&dest), 0o666),
                        None => create_new(&self.tree.abs(&dest), 0o666),
                    })?;
                    (dest.clone(), file)
                } else {
                    self.staged_file(&dest, 0o666, dir)?
                };
                track(&staged);
                match std::mem::replace(contents, FileContents::Bytes(Vec::new())) {
                    FileContents::Bytes(bytes) => {
                        self.op(&staged, "write", || file.write_all(&bytes))?;
                    }
                    FileContents::Later(make) => {
                        let bytes = make();
                        self.op(&staged, "write", || file.write_all(&bytes))?;
                    }
                    FileContents::Copy(source) => {
                        self.copy_into(None, &source, &staged, &mut file)?;
                    }
                    FileContents::Written(write) => {
                        self.calls
                            .step()
                            .map_err(|e| Error::io(&staged, "write", e))?;
                        let mut sink = crate::plan::FileSink {
                            out: &mut file,
                            failed: None,
                        };
                        write(self.tree, &mut sink)?;
                        if let Some(e) = sink.failed {
                            return Err(Error::io(&staged, "write", e));
                        }
                    }
                    // One operation, as for the other kinds: the parts are one file's bytes.
                    FileContents::Parts(parts) => {
                        self.op(&staged, "write", || write_parts(&mut file, &parts))?;
                    }
                }
                if let Some(mode) = mode_there {
                    self.op(&staged, "set permissions", || {
                        platform::set_file_mode(&file, mode)
                    })?;
                }
            }
            Operation::Replace(Fill::Link(target)) => {
                let staged = loop {
                    let staged = staged_name(&dest, &self.run);
                    let abs = self.tree.abs(&staged);
                    let made = self.op(&staged, "create link", || {
                        match platform::symlink(target, &abs) {
                            Ok(()) => Ok(true),
                            Err(e) if is_exists(&e) => Ok(false),
                            Err(e) => Err(e),
                        }
                    })?;
                    if made {
                        break staged;
                    }
                };
                track(&staged);
            }
            Operation::Replace(Fill::Files(files)) => {
                let staged = self.staged_dir(&dest)?;
                track(&staged);
                files.sort_by(|a, b| a.path.cmp(&b.path));
                let mut dirs: HashSet<String> = HashSet::new();
                for file in files.iter() {
                    let mut path = String::new();
                    let parent = parent_of(&file.path);
                    if !parent.is_empty() {
                        for seg in parent.split('/') {
                            path = join(&path, seg);
                            if dirs.insert(path.clone()) {
                                let rel = join(&staged, &path);
                                self.op(&rel, "create directory", || {
                                    fs::create_dir(self.tree.abs(&rel))
                                })?;
                            }
                        }
                    }
                    let rel = join(&staged, &file.path);
                    if let Body::Link { path, len, .. } = &file.body
                        && self.link_into(path, *len, file.executable, &rel)?
                    {
                        continue;
                    }
                    let mode = if file.executable { 0o777 } else { 0o666 };
                    let mut out =
                        self.op(&rel, "create", || create_new(&self.tree.abs(&rel), mode))?;
                    self.write_body(&file.body, &rel, &mut out)?;
                }
            }
            Operation::Replace(Fill::Copy(source)) => {
                let shown = source.display().to_string();
                let staged = if entry.source_is_dir {
                    let staged = self.staged_dir(&dest)?;
                    track(&staged);
                    (staged, None)
                } else {
                    let (staged, file) = self.staged_file(&dest, 0o600, None)?;
                    track(&staged);
                    (staged, Some(file))
                };
                let (staged, mut staged_file) = staged;
                walk_source(source, &shown, &self.calls, &mut |item| match item {
                    SourceEntry::Dir { rel, mode } => {
                        let target = join(&staged, rel);
                        if !rel.is_empty() {
                            self.op(&target, "create directory", || {
                                platform::create_private_dir(&self.tree.abs(&target))
                            })?;
                        }
                        self.op(&target, "set permissions", || {
                            platform::set_path_mode(&self.tree.abs(&target), (mode & 0o777) | 0o700)
                        })
                    }
                    SourceEntry::File {
                        rel,
                        mut file,
                        mode,
                    } => {
                        let target = join(&staged, rel);
                        let mut out = match staged_file.take() {
                            Some(out) if rel.is_empty() => out,
                            _ => self.op(&target, "create", || {
                                create_new(&self.tree.abs(&target), 0o600)
                            })?,
                        };
                        self.op(&target, "write", || io::copy(&mut file, &mut out))?;
                        self.op(&target, "set permissions", || {
                            platform::set_file_mode(&out, mode & 0o777)
                        })
                    }
                })?;
            }
            Operation::Replace(Fill::With(_)) | Operation::Remove(_) => {}
        }
        Ok(())
    }

    /// Puts the staged new entry of `track` in place and parks the previous one. `held` is
    /// the directory last held open, kept for the next track in the same directory.
    fn swap(&self, track: &mut Track, held: &mut Option<(String, platform::Dir)>) -> Result<()> {
        let dest = track.dest.clone();
        match (track.old_at.clone(), track.new_at.clone()) {
            (Some(_), Some(staged)) => {
                if self.exchange(&staged, &dest)? {
                    track.old_at = Some(staged.clone());
                    track.new_at = Some(dest.clone());
                    track.old_at = Some(self.park(&staged, &dest)?);
                } else {
                    track.old_at = Some(self.park(&dest, &dest)?);
                    self.rename_noreplace(&staged, &dest, "move into place")?;
                    track.new_at = Some(dest);
                }
            }
            // Made in place (a new file in a directory this run made): nothing to move.
            (None, Some(staged)) if staged == dest => {}
            (None, Some(staged)) => {
                let parent = parent_of(&dest);
                let dir = match held.take() {
                    Some((rel, dir)) if rel == parent => dir,
                    _ => self.open_dir(parent)?,
                };
                let dir = &held.insert((parent.to_owned(), dir)).1;
                self.op(&dest, "move into place", || {
                    dir.rename_noreplace(base_name(&staged), base_name(&dest))
                })?;
                track.new_at = Some(dest);
            }
            (Some(_), None) => {
                track.old_at = Some(self.park(&dest, &dest)?);
            }
            (None, None) => {}
        }
        Ok(())
    }

    /// Undoes one track as far as it can: the previous entry back at its destination, the
    /// new one removed. What it cannot undo is recorded.
    fn undo(&self, track: &Track, stranded: &mut Vec<StrandedEntry>, leftovers: &mut Vec<String>) {
        let dest = &track.dest;
        let mut new_at = track.new_at.clone();
        if let Some(old) = &track.old_at
            && old != dest
        {
            let restored = if new_at.as_deref() == Some(dest.as_str()) {
                // Both moved: swap them back in one step, or move the new one aside first.
                match self.exchange(old, dest) {
                    Ok(true) => {
                        new_at = Some(old.clone());
                        true
                    }
                    Ok(false) => {
                        let aside = staged_name(dest, &self.run);
                        match self.rename_noreplace(dest, &aside, "move aside") {
                            Ok(()) => {
                                new_at = Some(aside);
                                self.rename_noreplace(old, dest, "move back").is_ok()
                            }
                            Err(_) => false,
                        }
                    }
                    Err(_) => false,
                }
            } else {
                self.rename_noreplace(old, dest, "move back").is_ok()
            };
            if !restored {
                stranded.push(StrandedEntry {
                    dest: dest.clone(),
                    parked: old.clone(),
                });
                // The new entry stays where it is rather than risk the last copy of anything.
                if let Some(new) = new_at
                    && new != *dest
                {
                    leftovers.push(new);
                }
                return;
            }
        } else if track.old_at.is_none() && new_at.as_deref() == Some(dest.as_str()) {
            // A created entry: move it off the destination in one step, then remove it.
            let aside = staged_name(dest, &self.run);
            if self.rename_noreplace(dest, &aside, "move aside").is_err() {
                leftovers.push(dest.clone());
                return;
            }
            new_at = Some(aside);
        }
        if let Some(new) = new_at
            && self.remove_tree(&new).is_err()
        {
            leftovers.push(new);
        }
    }
}

/// Writes `parts` one after another, handing them to the system together (one `writev` for a
/// copy's header and shared body rather than a `write` each).
fn write_parts(out: &mut File, parts: &[crate::plan::SharedBytes]) -> io::Result<()> {
    let mut slices: Vec<io::IoSlice<'_>> = parts
        .iter()
        .map(|part| io::IoSlice::new((**part).as_ref()))
        .filter(|slice| !slice.is_empty())
        .collect();
    let mut left: &mut [io::IoSlice<'_>] = &mut slices;
    while !left.is_empty() {
        match out.write_vectored(left) {
            Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
            Ok(n) => io::IoSlice::advance_slices(&mut left, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The last name of a relative path.
fn base_name(rel: &str) -> &str {
    &rel[rel.rfind('/').map_or(0, |i| i + 1)..]
}

fn create_new(abs: &Path, mode: u32) -> io::Result<File> {
    platform::create_new_nofollow(abs, mode)
}

// The plan's way out lives here, beside the steps it runs, so the plan module never
// reaches into the apply module (plan is the lower layer).
impl Plan<'_> {
    /// Injects failures into [`Plan::apply`] (tests of interrupted runs only).
    #[doc(hidden)]
    #[must_use]
    pub fn with_faults(mut self, faults: FaultPlan) -> Self {
        self.faults = Some(faults);
        self
    }

    /// Carries the plan out, under `lock`, the writer lock of the plan's tree (taking it is
    /// what recovers from a killed run first): stages every new entry beside its destination (a sibling named
    /// `.<name>.asv-staged-<random>`), then at each destination parks the previous entry
    /// (`.<name>.asv-staged-<random>.previous`) and moves the staged one in (exchanged in one
    /// step where the file system can), and only when every destination holds its new state
    /// removes what it parked. Parent directories a `create` needs are made; a new regular file
    /// in a directory made so is written at its destination (with `O_EXCL`) instead of staged.
    ///
    /// A failure before that commit point is rolled back in reverse: staged entries are
    /// removed, parked entries moved back, made directories removed, so every destination
    /// holds again what it held. A parked entry is never deleted on a failure path. After the
    /// commit point, a parked entry that cannot be removed is a [`Warning`] in
    /// the result. A tree that is removed is made owner-writable first.
    ///
    /// # Errors
    /// [`Error::NotLocked`] when `lock` is held on another tree (nothing is done). The
    /// failure that stopped the change, unchanged, once rolled back: [`Error::Io`] for a
    /// failing call, [`Error::DestChanged`] when a destination changed since planning, the
    /// copy source's errors, a callback's own error. When the rollback cannot complete,
    /// [`Error::RollbackIncomplete`] naming every destination whose previous entry is still
    /// parked (and where), with the failure as its source.
    pub fn apply(self, lock: &crate::WriterLock<'_>) -> Result<Applied> {
        if !lock.holds(self.root) {
            return Err(Error::NotLocked {
                path: self.root.root().display().to_string(),
            });
        }
        apply(self)
    }
}

fn apply(plan: Plan<'_>) -> Result<Applied> {
    let Plan {
        root: tree,
        mut entries,
        faults,
    } = plan;
    let applier = Applier {
        tree,
        run: names::new_run_id(),
        calls: Calls::new(faults.as_ref()),
        no_exchange: faults.as_ref().is_some_and(|f| f.no_exchange),
        known_dirs: Default::default(),
        sources: Default::default(),
    };
    entries.retain(|entry| entry.planned.action().is_active());
    let mut tracks: Vec<Track> = Vec::new();
    let mut made: Vec<String> = Vec::new();
    let mut journal = None;
    let outcome = forward(&applier, &mut entries, &mut tracks, &mut made, &mut journal);
    let forget = |tracks: &[Track], made: &[String]| {
        let dirs: Vec<&str> = tracks
            .iter()
            .map(|t| t.dest.as_str())
            .chain(made.iter().map(String::as_str))
            .collect();
        tree.forget_checked_all(&dirs);
    };
    if let Err(cause) = outcome {
        // Directories made before the failure that the journal does not name yet: should the
        // rollback leave one, the next writer must know it is this run's. Best effort: the
        // rollback goes on either way.
        if let Some(journal) = journal.as_mut() {
            let _ = applier.journal_made(journal, &made);
        }
        let mut stranded = Vec::new();
        let mut leftovers = Vec::new();
        for track in tracks.iter().rev() {
            applier.undo(track, &mut stranded, &mut leftovers);
        }
        for dir in made.iter().rev() {
            if applier
                .op(dir, "remove directory", || fs::remove_dir(tree.abs(dir)))
                .is_err()
            {
                leftovers.push(dir.clone());
            }
        }
        forget(&tracks, &made);
        if stranded.is_empty() && leftovers.is_empty() {
            // Undone in full: the journal has nothing left to tell. Were it to stay, the next
            // writer would find every destination as it was and only remove it.
            if let Some(journal) = journal {
                let _ = applier.close_journal(journal);
            }
            return Err(cause);
        }
        // Otherwise the journal stays: the next writer finishes the rollback.
        return Err(Error::RollbackIncomplete {
            stranded,
            leftovers,
            cause: Box::new(cause),
        });
    }
    // The commit point: every destination holds its new state.
    let commit = applier.calls.count();
    let mut warnings = Vec::new();
    for track in &tracks {
        if let Some(parked) = &track.old_at
            && *parked != track.dest
            && let Err(error) = applier.remove_tree(parked)
        {
            warnings.push(Warning::CleanupIncomplete {
                dest: track.dest.clone(),
                parked: parked.clone(),
                error,
            });
        }
    }
    forget(&tracks, &made);
    // A parked entry left behind stays in the journal, for the next writer to remove.
    if warnings.is_empty()
        && let Some(journal) = journal
    {
        // The change is complete; a journal that cannot be removed only makes the next
        // writer look for residue and find none.
        let _ = applier.close_journal(journal);
    }
    Ok(Applied {
        warnings,
        calls: applier.calls.count(),
        commit,
    })
}

fn forward(
    applier: &Applier<'_, '_>,
    entries: &mut [Entry],
    tracks: &mut Vec<Track>,
    made: &mut Vec<String>,
    journal: &mut Option<Journal>,
) -> Result<()> {
    if entries.is_empty() {
        return Ok(());
    }
    // Each destination must still hold what the plan saw.
    let mut modes = Vec::with_capacity(entries.len());
    let mut identities = Vec::with_capacity(entries.len());
    // Directories that are missing now. A destination planned absent whose directory is
    // missing is still absent, and so are its siblings: one `lstat` of the directory answers
    // for all of them (nothing is made before this loop ends).
    let mut missing: HashSet<&str> = HashSet::new();
    let mut present: HashSet<&str> = HashSet::new();
    for entry in entries.iter() {
        let dest = entry.planned.dest();
        let dir = parent_of(dest);
        let absent_dir = entry.planned.existing().is_none()
            && !dir.is_empty()
            && !present.contains(dir)
            && (missing.contains(dir) || {
                let found = applier.lstat(dir)?.is_none();
                if found {
                    missing.insert(dir);
                } else {
                    present.insert(dir);
                }
                found
            });
        let meta = if absent_dir {
            None
        } else {
            applier.lstat(dest)?
        };
        let found = meta.as_ref().map(|m| kind_of(m.file_type()));
        if found != entry.planned.existing() {
            return Err(Error::DestChanged {
                dest: dest.to_owned(),
                expected: entry.planned.existing(),
                found,
            });
        }
        // An empty directory a `must-be-free` change may replace must still be empty.
        if found == Some(EntryKind::Directory)
            && matches!(entry.change.ownership, Ownership::MustBeFree)
            && !applier.op(dest, "list", || {
                Ok(fs::read_dir(applier.tree.abs(dest))?.next().is_none())
            })?
        {
            return Err(Error::DestOccupied {
                dest: dest.to_owned(),
                found: EntryKind::Directory,
            });
        }
        identities.push(meta.as_ref().map(Identity::of));
        modes.push(
            meta.filter(|m| m.file_type().is_file())
                .map(|m| platform::mode_of(&m)),
        );
    }
    // Before anything is made, the journal: a run killed from here on leaves a tree the next
    // writer can put back (see `journal`).
    let dests: Vec<(&str, Option<Identity>)> = entries
        .iter()
        .map(|e| e.planned.dest())
        .zip(identities)
        .collect();
    let journal = journal.insert(applier.open_journal(&dests)?);
    // The directories every create needs, in order (each made one is recorded for rollback).
    for entry in entries.iter() {
        if matches!(entry.planned.action(), Action::Create | Action::Replace) {
            applier.make_dirs(parent_of(entry.planned.dest()), made)?;
        }
    }
    applier.journal_made(journal, made)?;
    // Stage every new entry. Staging is independent per destination, so without injected
    // faults (whose call numbers must not depend on scheduling) it runs on every core. Each
    // entry fills its own slot, so the tracks stay in destination order, and every staged
    // entry is tracked before the first failure (in that order) is returned: a rollback
    // removes them all. Entries go in groups of neighbours in one directory, which each group
    // holds open once to create its staged files in.
    //
    // A new file whose directory this run made is written straight at its destination, not
    // staged beside it and renamed in. Nothing can stand there (the directory was empty when
    // made, and another writer would need the writer lock this run holds), and the journal
    // already names the directory: a run killed from here on leaves a tree every reader
    // reports as interrupted, and the next writer removes the file with the directory, as it
    // removes a staged file. A failure rolls it back as a created entry. What it gives up is
    // only that a reader racing this run (readers take no lock) may find such a file
    // half-written instead of absent — in a directory that did not exist before the run,
    // beside a lock that does not name it yet.
    let made_here: HashSet<&str> = made.iter().map(String::as_str).collect();
    const GROUP: usize = 64;
    type Staging<'e> = (usize, &'e mut Entry, Option<u32>, &'e mut Option<Track>);
    let mut slots: Vec<Option<Track>> = Vec::new();
    slots.resize_with(entries.len(), || None);
    let mut groups: Vec<Vec<Staging<'_>>> = Vec::new();
    for (i, ((entry, mode), slot)) in entries
        .iter_mut()
        .zip(modes)
        .zip(slots.iter_mut())
        .enumerate()
    {
        let same_dir = groups.last().and_then(|g| g.last()).is_some_and(|last| {
            parent_of(last.1.planned.dest()) == parent_of(entry.planned.dest())
        });
        match groups.last_mut() {
            Some(group) if same_dir && group.len() < GROUP => group.push((i, entry, mode, slot)),
            _ => groups.push(vec![(i, entry, mode, slot)]),
        }
    }
    let stage_group = |group: Vec<Staging<'_>>| -> Option<(usize, Error)> {
        let mut dir: Option<platform::Dir> = None;
        for (i, entry, mode, slot) in group {
            let result = match entry.planned.action() {
                Action::Create | Action::Replace => {
                    let wants_dir = matches!(entry.change.operation, Operation::ReplaceFile(_));
                    let opened = match (&dir, wants_dir) {
                        (None, true) => applier
                            .open_dir(parent_of(entry.planned.dest()))
                            .map(|d| dir = Some(d)),
                        _ => Ok(()),
                    };
                    let in_place = wants_dir
                        && entry.planned.existing().is_none()
                        && made_here.contains(parent_of(entry.planned.dest()));
                    opened.and_then(|()| {
                        applier.stage(
                            entry,
                            mode,
                            slot,
                            dir.as_ref().filter(|_| wants_dir),
                            in_place,
                        )
                    })
                }
                Action::Remove => {
                    *slot = Some(Track {
                        dest: entry.planned.dest().to_owned(),
                        old_at: Some(entry.planned.dest().to_owned()),
                        new_at: None,
                    });
                    Ok(())
                }
                Action::Keep | Action::Subsumed => Ok(()),
            };
            if let Err(e) = result {
                return Some((i, e));
            }
        }
        None
    };
    let failures: Vec<(usize, Error)> = if applier.calls.faults.is_some() {
        // In order, stopping at the first failure, as the call numbers assume.
        groups.into_iter().filter_map(stage_group).take(1).collect()
    } else {
        use rayon::prelude::*;
        groups.into_par_iter().filter_map(stage_group).collect()
    };
    tracks.extend(slots.into_iter().flatten());
    if let Some((_, e)) = failures.into_iter().min_by_key(|(i, _)| *i) {
        return Err(e);
    }
    // What was staged, by identity, before anything is swapped: after a kill, only an entry
    // the journal names so may be moved off its destination. A file made in place needs no
    // record (it stands in a directory the journal names as made).
    let staged: Vec<(&str, &str)> = tracks
        .iter()
        .filter_map(|t| {
            t.new_at
                .as_deref()
                .filter(|at| *at != t.dest)
                .map(|at| (t.dest.as_str(), at))
        })
        .collect();
    applier.journal_staged(journal, &staged)?;
    // What stood at each destination when the change was decided, to look at once more just
    // before its swap: an edit saved while staging ran refuses the change instead of being
    // parked and removed with what it edited.
    // A destination whose marks moved but whose recogniser still calls it the tool's (a file
    // touched, or edited and put back) goes on: the recogniser looks at the content, where the
    // marks only say that something happened.
    type Seen<'e> = (
        &'e crate::plan::seen::Seen,
        Option<&'e crate::plan::Recogniser>,
    );
    let seen: std::collections::HashMap<&str, Seen<'_>> = entries
        .iter()
        .filter_map(|e| {
            let recogniser = match &e.change.ownership {
                Ownership::ToolMade(recogniser) => Some(recogniser),
                _ => None,
            };
            e.seen
                .as_ref()
                .map(|seen| (e.planned.dest(), (seen, recogniser)))
        })
        .collect();
    applier.calls.pause_before_swap();
    // Swap each into place, parking what was there. Each swap is one write of the tree's
    // write budget, so a caller injecting faults with `Root::fail_writes_after` sees a plan
    // stop (and roll back) between destinations.
    let mut held = None;
    for track in tracks.iter_mut() {
        applier.tree.spend_write(&track.dest)?;
        if let Some((seen, recogniser)) = seen.get(track.dest.as_str()) {
            let now = applier
                .calls
                .step()
                .map_err(|e| Error::io(&track.dest, "inspect", e))
                .and_then(|()| crate::plan::seen::Seen::take(applier.tree, &track.dest))?;
            if let Some(path) = seen.first_change(&track.dest, now.as_ref()) {
                let still_ours = match (recogniser, now.as_ref().and_then(|n| n.kind())) {
                    (Some(recogniser), Some(kind)) => matches!(
                        (recogniser.0)(applier.tree, &track.dest, kind)?,
                        crate::plan::Verdict::Ours
                    ),
                    _ => false,
                };
                if !still_ours {
                    return Err(Error::ChangedDuringRun { path });
                }
            }
        }
        applier.swap(track, &mut held)?;
    }
    drop(held);
    applier.journal_commit(journal)
}
