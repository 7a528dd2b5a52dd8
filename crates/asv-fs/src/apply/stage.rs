//! Staging: every new entry made beside its destination before any destination is touched.

use std::collections::HashSet;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;

use super::names::staged_name;
use super::{Applier, Track, base_name, create_new, is_exists};
use crate::error::{Error, Result};
use crate::plan::{
    Action, Body, CopyEntry, Entry, FileContents, Fill, Operation, TreeFile, walk_copy_source,
};
use crate::platform;
use crate::root::{Root, join, parent_of};

impl Applier<'_, '_> {
    /// Gives the tree's file `source` the new name `staged` as a hard link, when it is still a
    /// regular file of `len` bytes with the wanted executable bit and a link can be made
    /// here. `false` (nothing made) tells the caller to write the link's fallback instead.
    fn link_into(&self, source: &str, len: u64, executable: bool, staged: &str) -> Result<bool> {
        self.calls
            .step()
            .map_err(|e| Error::io(source, "read", e))?;
        // Only real directories on the way, as for a guarded read; the entry itself is judged
        // once linked, where it is the very inode: no open is needed to vet it first.
        if !self.root.check_ancestors(source)? {
            return Ok(false);
        }
        let to = self.root.abs(staged);
        if platform::hard_link(&self.root.abs(source), &to).is_err() {
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
    fn copy_source_root(&self, from: &Path) -> Result<Arc<Root>> {
        let mut copy_sources = self
            .copy_sources
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(root) = copy_sources.get(from) {
            return Ok(Arc::clone(root));
        }
        let root = Arc::new(Root::open(from)?);
        copy_sources.insert(from.to_owned(), Arc::clone(&root));
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
            None => self.root.open_reader(&source.path)?,
            Some(from) => self.copy_source_root(from)?.open_reader(&source.path)?,
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
            let made = self
                .op(&staged, "create directory", || {
                    match fs::create_dir(self.root.abs(&staged)) {
                        Ok(()) => Ok(true),
                        Err(e) if is_exists(&e) => Ok(false),
                        Err(e) => Err(e),
                    }
                })
                .map_err(|e| e.in_directory(parent_of(dest)))?;
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
            let made = self
                .op(&staged, "create", || {
                    let created = match dir {
                        Some(dir) => dir.create_new(base_name(&staged), mode),
                        None => create_new(&self.root.abs(&staged), mode),
                    };
                    match created {
                        Ok(file) => Ok(Some(file)),
                        Err(e) if is_exists(&e) => Ok(None),
                        Err(e) => Err(e),
                    }
                })
                .map_err(|e| e.in_directory(parent_of(dest)))?;
            if let Some(file) = made {
                return Ok((staged, file));
            }
        }
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
                let staged_tree = Root::open(self.root.abs(&staged))?;
                write(&staged_tree)?;
            }
            return Ok(());
        }
        match &mut entry.change.operation {
            Operation::ReplaceFile(contents) => {
                let (staged, mut file) = if in_place {
                    // Straight at the destination, in a directory this run made (see
                    // `stage_all`): `O_EXCL` still refuses anything standing there.
                    let file = self.op(&dest, "create", || match dir {
                        Some(dir) => dir.create_new(base_name(&dest), 0o666),
                        None => create_new(&self.root.abs(&dest), 0o666),
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
                        write(self.root, &mut sink)?;
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
                    let abs = self.root.abs(&staged);
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
                // Filled through a handle on the directory just made: each directory and file
                // in it is then one path resolved below it (all of them made by this run), not
                // a path walked from `/` again for every entry.
                // (Not one of the calls a test may fail: opening what was just made adds no
                // step, so each injected fault still lands where it did.)
                let at = platform::Dir::open(&self.root.abs(&staged))
                    .map_err(|e| Error::io(&staged, "open", e))?;
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
                                self.op(&rel, "create directory", || at.create_dir(&path))?;
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
                    let mut out = self.op(&rel, "create", || at.create_new(&file.path, mode))?;
                    self.write_body(&file.body, &rel, &mut out)?;
                }
            }
            Operation::Replace(Fill::Copy(source)) => {
                let shown = source.display().to_string();
                let staged = if entry.copy_source_is_dir {
                    let staged = self.staged_dir(&dest)?;
                    track(&staged);
                    (staged, None)
                } else {
                    let (staged, file) = self.staged_file(&dest, 0o600, None)?;
                    track(&staged);
                    (staged, Some(file))
                };
                let (staged, mut staged_file) = staged;
                walk_copy_source(source, &shown, &self.calls, &mut |item| match item {
                    CopyEntry::Dir { rel, mode } => {
                        let target = join(&staged, rel);
                        if !rel.is_empty() {
                            self.op(&target, "create directory", || {
                                platform::create_private_dir(&self.root.abs(&target))
                            })?;
                        }
                        self.op(&target, "set permissions", || {
                            platform::set_path_mode(&self.root.abs(&target), (mode & 0o777) | 0o700)
                        })
                    }
                    CopyEntry::File {
                        rel,
                        mut file,
                        mode,
                    } => {
                        let target = join(&staged, rel);
                        let mut out = match staged_file.take() {
                            Some(out) if rel.is_empty() => out,
                            _ => self.op(&target, "create", || {
                                create_new(&self.root.abs(&target), 0o600)
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
}

/// Stages the new entry of every active entry of a plan, in destination order, tracking
/// each before it is filled so that a rollback removes it; `modes` holds the mode of each
/// regular file a destination holds now (kept by its replacement), `made` the directories
/// this run made.
pub(super) fn stage_all(
    applier: &Applier<'_, '_>,
    entries: &mut [Entry],
    modes: Vec<Option<u32>>,
    made: &[String],
    tracks: &mut Vec<Track>,
) -> Result<()> {
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
    Ok(())
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
