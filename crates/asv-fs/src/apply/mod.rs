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
//!
//! This module holds the entry point ([`Plan::apply`]: check the destinations, open the
//! journal, make the directories, commit or roll back, clean up) and the `Applier` every
//! step makes its calls through. The steps are its submodules, each using only this module and
//! those below it: `stage` makes the new entries beside their destinations, `swap` swaps them
//! in (parking what stood there) and undoes that on a rollback, `journal` writes and reads
//! the journal an apply keeps, `recovery` acts on one a killed run left, and `names` holds
//! the staged and parked names they all recognise.

use std::collections::HashSet;
use std::fs::{self, File};
use std::io;
use std::path::Path;
use std::sync::Arc;

use crate::error::{EntryKind, Error, Result};
use crate::plan::{Action, Entry, Ownership, Plan};
use crate::platform;
use crate::root::{Root, join, kind_of, parent_of};

mod journal;
mod names;
mod recovery;
mod stage;
mod swap;

use crate::faults::Calls;
pub use crate::faults::FaultPlan;
use journal::{Identity, Journal};
pub use journal::{JOURNAL_LIMIT, STATE_DIR, fuzz_journal, is_journal_name, is_journal_path};
pub use names::{is_parked_tree_entry, is_tree_change_residue};
pub use recovery::Interrupted;

/// Something worth telling the user about a change that did complete, as data: the binary
/// words it (issue 28 §2). Every kind is matched by the caller that words it, so a new one is
/// not silently dropped.
#[derive(Debug)]
pub enum ApplyWarning {
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

impl ApplyWarning {
    /// The warning's stable code (`cleanup-incomplete`).
    pub fn code(&self) -> &'static str {
        match self {
            ApplyWarning::CleanupIncomplete { .. } => "cleanup-incomplete",
        }
    }
}

/// What a completed apply reports.
#[derive(Debug)]
pub struct Applied {
    warnings: Vec<ApplyWarning>,
    calls: usize,
    commit: usize,
}

impl Applied {
    /// Warnings about the completed change (a parked entry left behind).
    pub fn warnings(&self) -> &[ApplyWarning] {
        &self.warnings
    }

    /// Takes the warnings out, leaving none.
    pub(crate) fn take_warnings(&mut self) -> Vec<ApplyWarning> {
        std::mem::take(&mut self.warnings)
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
    root: &'a Root,
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
    copy_sources: std::sync::Mutex<std::collections::HashMap<std::path::PathBuf, Arc<Root>>>,
}

impl<'a> Applier<'a, '_> {
    /// An applier with no faults to inject and nothing known yet, acting for the run `run`
    /// (for a recovery: what it moves aside carries the interrupted run's id).
    fn for_run(root: &'a Root, run: &str) -> Self {
        Applier {
            root,
            run: run.to_owned(),
            calls: Calls::none(),
            no_exchange: false,
            known_dirs: Default::default(),
            copy_sources: Default::default(),
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
            match fs::symlink_metadata(self.root.abs(rel)) {
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
            platform::Dir::open(&self.root.abs(rel))
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
                    fs::create_dir(self.root.abs(&path))
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
                        fs::create_dir(self.root.abs(&path))
                    })
                    .map_err(|e| e.in_directory(parent_of(&path)))?;
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

    /// Renames `from` to `to`, never over an entry standing at `to`.
    fn rename_noreplace(&self, from: &str, to: &str, op: &'static str) -> Result<()> {
        let (from_abs, to_abs) = (self.root.abs(from), self.root.abs(to));
        self.op(to, op, || platform::rename_noreplace(&from_abs, &to_abs))
    }

    /// Removes whatever stands at `rel`, never following a link, making each directory
    /// owner-writable first so a read-only tree can go.
    fn remove_tree(&self, rel: &str) -> Result<()> {
        self.remove_tree_at(&self.root.abs(rel), rel)
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
    /// commit point, a parked entry that cannot be removed is a [`ApplyWarning`] in
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
        apply(self, lock.command())
    }
}

fn apply(plan: Plan<'_>, command: Option<&str>) -> Result<Applied> {
    let Plan {
        root,
        mut entries,
        faults,
    } = plan;
    let applier = Applier {
        root,
        run: names::new_run_id(),
        calls: Calls::new(faults.as_ref()),
        no_exchange: faults.as_ref().is_some_and(|f| f.no_exchange),
        known_dirs: Default::default(),
        copy_sources: Default::default(),
    };
    entries.retain(|entry| entry.planned.action().is_active());
    let mut tracks: Vec<Track> = Vec::new();
    let mut made: Vec<String> = Vec::new();
    let mut journal = None;
    let outcome = forward(
        &applier,
        &mut entries,
        &mut tracks,
        &mut made,
        &mut journal,
        command,
    );
    let forget = |tracks: &[Track], made: &[String]| {
        let dirs: Vec<&str> = tracks
            .iter()
            .map(|t| t.dest.as_str())
            .chain(made.iter().map(String::as_str))
            .collect();
        root.forget_checked_all(&dirs);
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
                .op(dir, "remove directory", || fs::remove_dir(root.abs(dir)))
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
            warnings.push(ApplyWarning::CleanupIncomplete {
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
    command: Option<&str>,
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
                Ok(fs::read_dir(applier.root.abs(dest))?.next().is_none())
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
    let journal = journal.insert(applier.open_journal(&dests, command)?);
    // The directories every create needs, in order (each made one is recorded for rollback).
    for entry in entries.iter() {
        if matches!(entry.planned.action(), Action::Create | Action::Replace) {
            applier.make_dirs(parent_of(entry.planned.dest()), made)?;
        }
    }
    applier.journal_made(journal, made)?;
    // Stage every new entry (see `stage`), then record what was staged, by identity, before
    // anything is swapped: after a kill, only an entry the journal names so may be moved off
    // its destination. A file made in place needs no record (it stands in a directory the
    // journal names as made).
    stage::stage_all(applier, entries, modes, made, tracks)?;
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
    swap::swap_all(applier, entries, tracks)?;
    applier.journal_commit(journal)
}
