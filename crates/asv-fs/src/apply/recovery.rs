//! How the next writer uses a journal that a killed run left behind: every journal judged,
//! then each change it describes undone or finished.
//!
//! A journal is a file in the repository, and a repository travels: a journal can be
//! committed, pushed, checked out or written by hand, and a recovery that trusted one would
//! move and delete whatever it names. So a recovery acts only on a journal it can prove this
//! machine's run wrote in this very tree — the journal records its own device and inode and
//! those of the root (a copy, a checkout or a hand-made file has others), and git must not
//! track it — and only on what that run made: every path is a plain path below the root
//! reached through real directories (no link followed, never `.git`), a staged or parked
//! entry carries the run's id in its name, and an entry at a destination is moved aside only
//! when its identity is one the run recorded (or it is a file in a directory the run made).
//! Anything else refuses the journal, naming it, before anything is moved or removed.
//!
//! The next command that writes takes the writer lock and then reads any journal it finds.
//! No other run can be changing the tree while that lock is held, so a proven journal's run
//! is over. Without a commit mark the interrupted change is rolled back: the previous entry
//! (found by its identity among the run's parked entries) goes back to its destination and
//! everything else the run made is removed. With one, the change is finished: what was
//! parked is removed. Either way the tree is one an uninterrupted run could have left, and
//! the command then does its own work on it, so rerunning the interrupted command completes
//! it.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::{self, Read};

use super::Applier;
use super::journal::{
    Identity, JOURNAL_LIMIT, PREFIX, Record, STATE_DIR, TEMP_PREFIX, is_journal_name,
    is_legacy_name, parse,
};
use super::names::{is_residue_of_run, staged_name};
use crate::error::{EntryKind, Error, JournalProblem, Result};
use crate::platform;
use crate::root::{Root, join, parent_of};

/// A run of this tool that was interrupted while it changed the tree, as the journal it left
/// says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interrupted {
    /// The journal, relative to the root.
    pub journal: String,
    /// The interrupted command, as it was typed (`agentic-skill-vendor gen …`).
    pub command: String,
    /// Whether it had reached its commit point: the next writer finishes the change rather
    /// than undoing it.
    pub committed: bool,
    /// Why the journal is not one a writer will act on (`None`: it is): a reader reports it
    /// as a file to delete rather than as an interrupted run.
    pub refused: Option<JournalProblem>,
}

/// A journal found in the tree, read and judged.
struct Found {
    rel: String,
    record: Result<Record, JournalProblem>,
}

impl Root {
    /// Every journal in the tree, each read (in bounded memory) and judged: whether this
    /// machine's run wrote it in this tree, and whether every path in it is one a recovery
    /// may act on. A [`STATE_DIR`] that is not a real directory holds none.
    fn journals(&self) -> Result<Vec<Found>> {
        let mut found = Vec::new();
        for name in self.root_names()? {
            if is_legacy_name(&name) {
                found.push(Found {
                    rel: name,
                    record: Err(JournalProblem::AtRoot),
                });
            }
        }
        let state = match fs::symlink_metadata(self.abs(STATE_DIR)) {
            Ok(meta) if meta.file_type().is_dir() => true,
            Ok(_) => false,
            Err(e) if e.kind() == io::ErrorKind::NotFound => false,
            Err(e) => return Err(Error::io(STATE_DIR, "inspect", e)),
        };
        if !state {
            return Ok(found);
        }
        let mut names: Vec<String> = fs::read_dir(self.abs(STATE_DIR))
            .map_err(|e| Error::io(STATE_DIR, "list", e))?
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|name| is_journal_name(name))
            .collect();
        names.sort();
        if names.is_empty() {
            return Ok(found);
        }
        let root_id = fs::metadata(self.root())
            .map(|m| Identity::of(&m))
            .map_err(|e| Error::io("", "inspect", e))?;
        for name in names {
            let rel = join(STATE_DIR, &name);
            let record = self.judge_journal(&rel, &name, root_id)?;
            found.push(Found { rel, record });
        }
        Ok(found)
    }

    /// Reads the journal at `rel` and judges it (see [`Root::journals`]).
    fn judge_journal(
        &self,
        rel: &str,
        name: &str,
        root_id: Identity,
    ) -> Result<Result<Record, JournalProblem>> {
        let file = match self.open_file(rel) {
            Ok(Some(file)) => file,
            Ok(None) => return Ok(Err(JournalProblem::NotAJournal)),
            Err(Error::Symlink { .. }) => {
                return Ok(Err(JournalProblem::NotAFile {
                    found: EntryKind::Symlink,
                }));
            }
            Err(Error::WrongKind { found, .. }) => {
                return Ok(Err(JournalProblem::NotAFile { found }));
            }
            Err(e) => return Err(e),
        };
        let meta = file.metadata().map_err(|e| Error::io(rel, "inspect", e))?;
        if meta.len() > JOURNAL_LIMIT {
            return Ok(Err(JournalProblem::TooLarge {
                size: meta.len(),
                limit: JOURNAL_LIMIT,
            }));
        }
        let record = match parse(file.take(JOURNAL_LIMIT)) {
            Ok(record) => record,
            Err(problem) => return Ok(Err(problem)),
        };
        if record.run.is_empty() {
            // Cut short before it named its run: the run had made nothing yet. Still judged
            // by where it stands, below.
        } else if name.strip_prefix(PREFIX) != Some(record.run.as_str()) {
            return Ok(Err(JournalProblem::OtherRun));
        }
        if record.own.is_some_and(|own| own != Identity::of(&meta)) {
            return Ok(Err(JournalProblem::NotItself));
        }
        if record.root.is_some_and(|root| root != root_id) {
            return Ok(Err(JournalProblem::OtherTree));
        }
        // A journal cut short before it named itself names nothing the run did either
        // (`parse` keeps no record past an opening cut short): removing it touches nothing.
        if crate::git_index::tracks(self.root(), rel) {
            return Ok(Err(JournalProblem::Tracked));
        }
        // Every path, on the way to it, through real directories only.
        let paths = record
            .dests
            .iter()
            .map(|(p, _)| p)
            .chain(record.made.iter().map(|(p, _)| p))
            .chain(record.staged.keys());
        for path in paths {
            match self.check_ancestors(path) {
                Ok(_) => {}
                Err(Error::Symlink { path: link }) => {
                    return Ok(Err(JournalProblem::LinkOnTheWay { path: link }));
                }
                Err(Error::WrongKind { .. }) => {
                    // A file where a directory was: nothing below it can be the run's.
                }
                Err(e) => return Err(e),
            }
        }
        Ok(Ok(record))
    }

    /// The runs of this tool that were killed while they changed this tree and that no later
    /// writer has recovered from yet, and the journals no writer will act on
    /// ([`Interrupted::refused`]): readers call it to report such a tree rather than judge
    /// it.
    ///
    /// # Errors
    /// The root or a journal cannot be read.
    pub fn interrupted_runs(&self) -> Result<Vec<Interrupted>> {
        let found = self.journals()?;
        self.forget_checked_all(&[STATE_DIR]);
        Ok(found
            .into_iter()
            .map(|Found { rel, record }| match record {
                Ok(record) => Interrupted {
                    journal: rel,
                    command: record.command,
                    committed: record.committed,
                    refused: None,
                },
                Err(problem) => Interrupted {
                    journal: rel,
                    command: String::new(),
                    committed: false,
                    refused: Some(problem),
                },
            })
            .collect())
    }

    /// Puts the tree back in order after runs of this tool that were killed while they
    /// changed it: each change that had not reached its commit point is undone (every
    /// previous entry back at its destination, everything the run made removed), each that
    /// had is finished (what it parked removed), and the temporary files of
    /// [`Root::write_file`] left at the root are removed. Returns the runs recovered from.
    ///
    /// Call it only while holding [`Root::lock_for_writing`]: every staged or parked entry
    /// is then provably left by a run that is over, and nothing else is touched.
    ///
    /// # Errors
    /// [`Error::JournalRefused`] naming a journal this machine's run did not write here, or
    /// one naming a path outside the tree, through a link or in `.git`, or one whose
    /// destination changed since the run: nothing is moved or removed for any journal.
    /// [`Error::Recovery`] naming the journal, with the entry that could not be listed, moved
    /// or removed; the journal stays, so the next writer tries again. [`Error::Io`] when the
    /// root cannot be listed.
    pub fn recover_interrupted(&self) -> Result<Vec<Interrupted>> {
        let found = self.journals()?;
        // Every journal judged before any is acted on: one refused stops them all.
        let mut records = Vec::with_capacity(found.len());
        for Found { rel, record } in found {
            match record {
                Ok(record) => records.push((rel, record)),
                Err(problem) => {
                    self.forget_checked_all(&[STATE_DIR]);
                    return Err(Error::JournalRefused {
                        journal: rel,
                        problem,
                    });
                }
            }
        }
        for name in self.root_names()? {
            if name.starts_with(TEMP_PREFIX) {
                // An atomic write's temporary sibling: its target never saw these bytes.
                if matches!(self.kind(&name)?, Some(crate::EntryKind::File)) {
                    fs::remove_file(self.abs(&name)).map_err(|e| Error::io(&name, "remove", e))?;
                }
            }
        }
        let mut recovered = Vec::new();
        for (rel, record) in records {
            let applier = Applier::for_run(self, &record.run);
            let paths: Vec<&str> = record
                .dests
                .iter()
                .map(|(d, _)| d.as_str())
                .chain(record.made.iter().map(|(d, _)| d.as_str()))
                .collect();
            let outcome = recover(&applier, &record).and_then(|()| {
                applier.op(&rel, "remove the journal", || {
                    fs::remove_file(self.abs(&rel))
                })
            });
            self.forget_checked_all(&paths);
            match outcome {
                Ok(()) => {}
                Err(Error::JournalRefused { problem, .. }) => {
                    return Err(Error::JournalRefused {
                        journal: rel,
                        problem,
                    });
                }
                Err(source) => {
                    return Err(Error::Recovery {
                        journal: rel.clone(),
                        command: record.command.clone(),
                        cause: Box::new(source),
                    });
                }
            }
            recovered.push(Interrupted {
                journal: rel,
                command: record.command,
                committed: record.committed,
                refused: None,
            });
        }
        // A run killed between making the state directory and creating its journal in it
        // leaves the directory empty: nothing in it to keep, and a tree an uninterrupted run
        // would not leave.
        let _ = fs::remove_dir(self.abs(STATE_DIR));
        self.forget_checked_all(&[STATE_DIR]);
        Ok(recovered)
    }

    fn root_names(&self) -> Result<Vec<String>> {
        let mut names: Vec<String> = fs::read_dir(self.abs(""))
            .map_err(|e| Error::io("", "list", e))?
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        names.sort();
        Ok(names)
    }
}

/// The names in each directory, listed once and kept up to date as entries move.
struct Listings<'r> {
    root: &'r Root,
    dirs: HashMap<String, HashSet<String>>,
}

impl Listings<'_> {
    fn names(&mut self, dir: &str) -> Result<&mut HashSet<String>> {
        if !self.dirs.contains_key(dir) {
            let names = match fs::read_dir(self.root.abs(dir)) {
                Ok(iter) => iter
                    .filter_map(|e| e.ok())
                    .filter_map(|e| e.file_name().into_string().ok())
                    .collect(),
                Err(e) if e.kind() == io::ErrorKind::NotFound => HashSet::new(),
                Err(e) if platform::is_not_a_directory(&e) => HashSet::new(),
                Err(e) => return Err(Error::io(dir, "list", e)),
            };
            self.dirs.insert(dir.to_owned(), names);
        }
        Ok(self.dirs.entry(dir.to_owned()).or_default())
    }

    /// The staged and parked siblings the run `run` made for `dest`, by path.
    fn residue_of(&mut self, dest: &str, run: &str) -> Result<Vec<String>> {
        let dir = parent_of(dest);
        let base = &dest[dest.rfind('/').map_or(0, |i| i + 1)..];
        let mut found: Vec<String> = self
            .names(dir)?
            .iter()
            .filter(|name| is_residue_of_run(base, name, run))
            .map(|name| join(dir, name))
            .collect();
        found.sort();
        Ok(found)
    }

    fn moved(&mut self, from: &str, to: &str) {
        if let Some(names) = self.dirs.get_mut(parent_of(from)) {
            names.remove(&from[from.rfind('/').map_or(0, |i| i + 1)..]);
        }
        if let Some(names) = self.dirs.get_mut(parent_of(to)) {
            names.insert(to[to.rfind('/').map_or(0, |i| i + 1)..].to_owned());
        }
    }

    fn removed(&mut self, path: &str) {
        if let Some(names) = self.dirs.get_mut(parent_of(path)) {
            names.remove(&path[path.rfind('/').map_or(0, |i| i + 1)..]);
        }
    }
}

/// What a recovery does at one destination of a change it undoes.
struct Undo {
    dest: String,
    /// The run's entry standing at the destination, to move aside.
    aside: bool,
    /// Where the previous entry is parked, to move back.
    back: Option<String>,
}

/// Undoes (no commit mark) or finishes (commit mark) the change a journal describes. Every
/// destination is judged before anything moves: one that holds an entry the run did not make,
/// while the previous one waits to go back, refuses the journal.
fn recover(applier: &Applier<'_, '_>, record: &Record) -> Result<()> {
    let run = record.run.as_str();
    let mut listings = Listings {
        root: applier.root,
        dirs: HashMap::new(),
    };
    let identity = |rel: &str| -> Result<Option<(Identity, fs::Metadata)>> {
        Ok(applier.lstat(rel)?.map(|m| (Identity::of(&m), m)))
    };
    if record.committed {
        // Every destination holds its new state; what is beside it, named for this run, is
        // what it replaced.
        for (dest, _) in &record.dests {
            for residue in listings.residue_of(dest, run)? {
                applier.remove_tree(&residue)?;
                listings.removed(&residue);
            }
        }
        return Ok(());
    }
    // The directories the run made that are still the ones it made.
    let mut made_here: HashSet<&str> = HashSet::new();
    for (dir, id) in &record.made {
        if identity(dir)?.is_some_and(|(now, _)| now == *id) {
            made_here.insert(dir);
        }
    }
    let mut undos = Vec::with_capacity(record.dests.len());
    for (dest, old) in record.dests.iter().rev() {
        let now = identity(dest)?;
        let now_id = now.as_ref().map(|(id, _)| *id);
        // The entry at the destination is this run's when its identity is one the run staged,
        // or, for a destination that was free, when it is a file in a directory the run made
        // (such a file is written in place, not staged; see `stage::stage_all`).
        let ours = now.as_ref().is_some_and(|(id, meta)| {
            record.staged.get(dest) == Some(id)
                || (old.is_none()
                    && meta.file_type().is_file()
                    && made_here.contains(parent_of(dest)))
        });
        let mut undo = Undo {
            dest: dest.clone(),
            aside: false,
            back: None,
        };
        match old {
            Some(old) if now_id != Some(*old) => {
                for residue in listings.residue_of(dest, run)? {
                    if identity(&residue)?.is_some_and(|(id, _)| id == *old) {
                        undo.back = Some(residue);
                        break;
                    }
                }
                if undo.back.is_some() && now.is_some() {
                    if !ours {
                        return Err(Error::JournalRefused {
                            journal: String::new(),
                            problem: JournalProblem::ChangedSince { path: dest.clone() },
                        });
                    }
                    undo.aside = true;
                }
            }
            Some(_) => {}
            None => undo.aside = ours,
        }
        undos.push(undo);
    }
    // Entries that are some destination's previous state: never removed.
    let previous: HashSet<Identity> = record.dests.iter().filter_map(|(_, id)| *id).collect();
    for undo in undos {
        let dest = &undo.dest;
        if undo.aside {
            // Named for the run, as its own staged entries are; the run used the first
            // sequence numbers already, so a name taken is passed over.
            let aside = loop {
                let aside = staged_name(dest, run);
                match applier.rename_noreplace(dest, &aside, "move aside") {
                    Ok(()) => break aside,
                    Err(Error::Io { error: source, .. })
                        if source.kind() == io::ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(e),
                }
            };
            listings.moved(dest, &aside);
        }
        if let Some(parked) = &undo.back {
            applier.rename_noreplace(parked, dest, "move back")?;
            listings.moved(parked, dest);
        }
        for residue in listings.residue_of(dest, run)? {
            if identity(&residue)?.is_some_and(|(id, _)| !previous.contains(&id)) {
                applier.remove_tree(&residue)?;
                listings.removed(&residue);
            }
        }
    }
    for (dir, _) in record.made.iter().rev() {
        // Only an empty directory the run made: one that holds anything now is not only
        // this run's.
        if made_here.contains(dir.as_str()) && fs::remove_dir(applier.root.abs(dir)).is_ok() {
            listings.removed(dir);
        }
    }
    Ok(())
}
