//! The journal an apply keeps at the root while it changes the tree, and how the next writer
//! uses one that a killed run left behind.
//!
//! An apply stages every new entry beside its destination, swaps them in, and only then
//! removes what it parked. A failure rolls all of that back, but a process that is killed
//! (SIGKILL, a power cut of the terminal, an OOM kill) runs no rollback: staged copies,
//! parked previous entries and half the destinations in their new state stay where they
//! are. The journal is what makes that state recoverable: before staging, the apply writes
//! `.asv-journal-<random>` at the root naming every destination it will change and the
//! identity (device and inode) of what stands there now; it appends the directories it
//! makes, then a commit mark once every destination holds its new state, and removes the
//! journal when it is done.
//!
//! The next command that writes takes the writer lock and then reads any journal it finds.
//! No other run can be changing the tree while that lock is held, so every staged or parked
//! sibling of a journaled destination is provably this tool's own. Without a commit mark the
//! interrupted change is rolled back: the previous entry (found by its identity, whatever
//! name it was parked under) goes back to its destination and everything else the run made
//! is removed. With one, the change is finished: what was parked is removed. Either way the
//! tree is one an uninterrupted run could have left, and the command then does its own work
//! on it, so rerunning the interrupted command completes it.
//!
//! Records are NUL-separated (a path can hold any byte but NUL). A write cut short by the
//! kill leaves a partial last record, which is ignored: the apply does nothing that a record
//! must describe until the write that holds the record has returned.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File};
use std::io::{self, Write};

use super::Applier;
use super::names::{random_suffix, staged_name};
use crate::error::{Error, Result};
use crate::platform;
use crate::tree::{Root, join, parent_of};

/// The name every journal starts with; the rest is 12 lowercase hex digits.
const PREFIX: &str = ".asv-journal-";
/// The first line of a journal; a later format changes the number.
const HEADER: &[u8] = b"asv-journal 1\n";
/// The name `tempfile` gives [`Root::write_file`]'s temporary siblings starts with this.
const TEMP_PREFIX: &str = ".asv-tmp-";

/// Whether `name` is a journal an apply keeps at the root while it runs.
///
/// # Example
/// ```
/// assert!(asv_fs::apply::is_journal_name(".asv-journal-0123456789ab"));
/// assert!(!asv_fs::apply::is_journal_name(".asv-journal-x"));
/// ```
pub fn is_journal_name(name: &str) -> bool {
    name.strip_prefix(PREFIX).is_some_and(|hex| {
        hex.len() == 12
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// Where an entry lives on disk: it travels with the entry through every rename.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Identity {
    dev: u64,
    ino: u64,
}

impl Identity {
    pub(super) fn of(meta: &fs::Metadata) -> Self {
        let (dev, ino) = platform::identity_of(meta);
        Identity { dev, ino }
    }
}

/// The journal of the apply in progress.
pub(super) struct Journal {
    rel: String,
    file: File,
    /// How many of the run's made directories the journal names so far.
    made_recorded: usize,
}

impl Applier<'_, '_> {
    /// Creates the journal naming every destination and what stands there now.
    pub(super) fn open_journal(&self, dests: &[(&str, Option<Identity>)]) -> Result<Journal> {
        let mut bytes = HEADER.to_vec();
        push_field(&mut bytes, "command");
        push_field(&mut bytes, &this_command_line());
        for (dest, identity) in dests {
            push_field(&mut bytes, "P");
            push_field(&mut bytes, dest);
            match identity {
                Some(id) => push_field(&mut bytes, &format!("{}:{}", id.dev, id.ino)),
                None => push_field(&mut bytes, "-"),
            }
        }
        loop {
            let rel = format!("{PREFIX}{}", random_suffix());
            let created =
                self.op(
                    &rel,
                    "create the journal",
                    || match platform::create_private_appending(&self.tree.abs(&rel)) {
                        Ok(file) => Ok(Some(file)),
                        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(None),
                        Err(e) => Err(e),
                    },
                )?;
            if let Some(file) = created {
                let mut journal = Journal {
                    rel,
                    file,
                    made_recorded: 0,
                };
                if let Err(e) = self.append(&mut journal, &bytes) {
                    // Nothing was made yet: the journal would only describe nothing.
                    let _ = fs::remove_file(self.tree.abs(&journal.rel));
                    return Err(e);
                }
                return Ok(journal);
            }
        }
    }

    /// Records the directories this run made that the journal does not name yet, so a
    /// rollback after a kill removes them.
    pub(super) fn journal_made(&self, journal: &mut Journal, made: &[String]) -> Result<()> {
        let new = made.get(journal.made_recorded..).unwrap_or_default();
        if new.is_empty() {
            return Ok(());
        }
        let mut bytes = Vec::new();
        for dir in new {
            push_field(&mut bytes, "M");
            push_field(&mut bytes, dir);
        }
        self.append(journal, &bytes)?;
        journal.made_recorded = made.len();
        Ok(())
    }

    /// Records the commit point: every destination holds its new state.
    pub(super) fn journal_commit(&self, journal: &mut Journal) -> Result<()> {
        let mut bytes = Vec::new();
        push_field(&mut bytes, "C");
        self.append(journal, &bytes)
    }

    /// Removes the journal of a change that is complete (or completely undone).
    pub(super) fn close_journal(&self, journal: Journal) -> Result<()> {
        let Journal { rel, file, .. } = journal;
        drop(file);
        self.op(&rel, "remove the journal", || {
            fs::remove_file(self.tree.abs(&rel))
        })
    }

    fn append(&self, journal: &mut Journal, bytes: &[u8]) -> Result<()> {
        let Journal { rel, file, .. } = journal;
        self.op(rel, "write the journal", || file.write_all(bytes))
    }
}

fn push_field(bytes: &mut Vec<u8>, field: &str) {
    bytes.extend_from_slice(field.as_bytes());
    bytes.push(0);
}

/// The command that is running, as a person would type it again: what a journal records, so
/// a later run can tell whether it is the interrupted command run again.
pub fn this_command_line() -> String {
    let mut words = vec!["agentic-skill-vendor".to_owned()];
    words.extend(std::env::args().skip(1).map(|a| {
        if !a.is_empty()
            && a.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_./=,:@+".contains(&b))
        {
            a
        } else {
            format!("'{}'", a.replace('\'', r"'\''"))
        }
    }));
    words.join(" ")
}

/// What a journal says about the run that wrote it.
#[derive(Debug, Default)]
struct Record {
    command: String,
    dests: Vec<(String, Option<Identity>)>,
    made: Vec<String>,
    committed: bool,
}

fn parse(bytes: &[u8]) -> Record {
    let mut record = Record::default();
    let Some(body) = bytes.strip_prefix(HEADER) else {
        return record;
    };
    let mut fields: Vec<&[u8]> = body.split(|b| *b == 0).collect();
    // The last piece follows the last NUL: empty, or a field the kill cut short.
    fields.pop();
    let text = |f: &[u8]| String::from_utf8_lossy(f).into_owned();
    let mut i = 0;
    while i < fields.len() {
        match (fields[i], fields.get(i + 1), fields.get(i + 2)) {
            (b"command", Some(cmd), _) => {
                record.command = text(cmd);
                i += 2;
            }
            (b"P", Some(dest), Some(id)) => {
                let identity = std::str::from_utf8(id).ok().and_then(|id| {
                    let (dev, ino) = id.split_once(':')?;
                    Some(Identity {
                        dev: dev.parse().ok()?,
                        ino: ino.parse().ok()?,
                    })
                });
                record.dests.push((text(dest), identity));
                i += 3;
            }
            (b"M", Some(dir), _) => {
                record.made.push(text(dir));
                i += 2;
            }
            (b"C", _, _) => {
                record.committed = true;
                i += 1;
            }
            _ => break,
        }
    }
    record
}

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
}

impl Root {
    /// The runs of this tool that were killed while they changed this tree and that no later
    /// writer has recovered from yet (one directory listing of the root: readers call it to
    /// report such a tree rather than judge it).
    ///
    /// # Errors
    /// The root or a journal cannot be read.
    pub fn interrupted_runs(&self) -> Result<Vec<Interrupted>> {
        let mut out = Vec::new();
        for name in self.root_names()? {
            if !is_journal_name(&name) {
                continue;
            }
            let Some(bytes) = self.read_file(&name)? else {
                continue;
            };
            let record = parse(&bytes);
            out.push(Interrupted {
                journal: name,
                command: record.command,
                committed: record.committed,
            });
        }
        Ok(out)
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
    /// [`Error::Recovery`] naming the journal, with the entry that could not be listed, moved
    /// or removed; the journal stays, so the next writer tries again. [`Error::Io`] when the
    /// root cannot be listed.
    pub fn recover_interrupted(&self) -> Result<Vec<Interrupted>> {
        let mut recovered = Vec::new();
        for name in self.root_names()? {
            if name.starts_with(TEMP_PREFIX) {
                // An atomic write's temporary sibling: its target never saw these bytes.
                if matches!(self.kind(&name)?, Some(crate::EntryKind::File)) {
                    fs::remove_file(self.abs(&name)).map_err(|e| Error::io(&name, "remove", e))?;
                }
                continue;
            }
            if !is_journal_name(&name) {
                continue;
            }
            let Some(bytes) = self.read_file(&name)? else {
                continue;
            };
            let record = parse(&bytes);
            let applier = Applier::plain(self);
            recover(&applier, &record)
                .and_then(|()| {
                    applier.op(&name, "remove the journal", || {
                        fs::remove_file(self.abs(&name))
                    })
                })
                .map_err(|source| Error::Recovery {
                    journal: name.clone(),
                    command: record.command.clone(),
                    source: Box::new(source),
                })?;
            self.forget_checked_all(
                &record
                    .dests
                    .iter()
                    .map(|(d, _)| d.as_str())
                    .chain(record.made.iter().map(String::as_str))
                    .collect::<Vec<_>>(),
            );
            recovered.push(Interrupted {
                journal: name,
                command: record.command,
                committed: record.committed,
            });
        }
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
                Err(e) => return Err(Error::io(dir, "list", e)),
            };
            self.dirs.insert(dir.to_owned(), names);
        }
        Ok(self.dirs.entry(dir.to_owned()).or_default())
    }

    /// The staged and parked siblings this tool makes for `dest`, by path.
    fn residue_of(&mut self, dest: &str) -> Result<Vec<String>> {
        let dir = parent_of(dest);
        let base = &dest[dest.rfind('/').map_or(0, |i| i + 1)..];
        let mut found: Vec<String> = self
            .names(dir)?
            .iter()
            .filter(|name| super::names::is_residue_of(base, name))
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

/// Undoes (no commit mark) or finishes (commit mark) the change a journal describes.
fn recover(applier: &Applier<'_, '_>, record: &Record) -> Result<()> {
    let mut listings = Listings {
        root: applier.tree,
        dirs: HashMap::new(),
    };
    let identity = |rel: &str| -> Result<Option<Identity>> {
        Ok(applier.lstat(rel)?.map(|m| Identity::of(&m)))
    };
    if record.committed {
        // Every destination holds its new state; what is beside it is what it replaced.
        for (dest, _) in &record.dests {
            for residue in listings.residue_of(dest)? {
                applier.remove_tree(&residue)?;
                listings.removed(&residue);
            }
        }
        return Ok(());
    }
    // Entries that are some destination's previous state: never removed, whatever name they
    // were parked under.
    let previous: HashSet<Identity> = record.dests.iter().filter_map(|(_, id)| *id).collect();
    for (dest, old) in record.dests.iter().rev() {
        let now = identity(dest)?;
        if let Some(old) = old
            && now != Some(*old)
        {
            let mut parked = None;
            for residue in listings.residue_of(dest)? {
                if identity(&residue)? == Some(*old) {
                    parked = Some(residue);
                    break;
                }
            }
            if let Some(parked) = parked {
                if now.is_some() {
                    // The new entry is in place: move it aside to be removed with the rest.
                    let aside = staged_name(dest);
                    applier.rename_noreplace(dest, &aside, "move aside")?;
                    listings.moved(dest, &aside);
                }
                applier.rename_noreplace(&parked, dest, "move back")?;
                listings.moved(&parked, dest);
            }
        } else if old.is_none() && now.is_some() {
            // A destination this run created: move it aside to be removed with the rest.
            let aside = staged_name(dest);
            applier.rename_noreplace(dest, &aside, "move aside")?;
            listings.moved(dest, &aside);
        }
        for residue in listings.residue_of(dest)? {
            if identity(&residue)?.is_some_and(|id| !previous.contains(&id)) {
                applier.remove_tree(&residue)?;
                listings.removed(&residue);
            }
        }
    }
    for dir in record.made.iter().rev() {
        // Only an empty directory: one that holds anything now is not only this run's.
        if fs::remove_dir(applier.tree.abs(dir)).is_ok() {
            listings.removed(dir);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_cut_short_keeps_what_is_whole() {
        let mut bytes = HEADER.to_vec();
        for f in [
            "command",
            "agentic-skill-vendor gen",
            "P",
            "a/b",
            "1:2",
            "P",
            "c",
            "-",
        ] {
            push_field(&mut bytes, f);
        }
        push_field(&mut bytes, "M");
        push_field(&mut bytes, "a");
        let whole = parse(&bytes);
        assert_eq!(whole.command, "agentic-skill-vendor gen");
        assert_eq!(
            whole.dests,
            vec![
                ("a/b".to_owned(), Some(Identity { dev: 1, ino: 2 })),
                ("c".to_owned(), None)
            ]
        );
        assert_eq!(whole.made, vec!["a".to_owned()]);
        assert!(!whole.committed);
        // Cut inside the second destination's record: only the first is kept.
        let cut = parse(&bytes[..bytes.len() - 8]);
        assert_eq!(cut.dests.len(), 1);
        assert!(cut.made.is_empty());
        // Not a journal at all.
        assert!(parse(b"something else").dests.is_empty());
    }

    #[test]
    fn journal_names() {
        assert!(is_journal_name(".asv-journal-00aa11bb22cc"));
        assert!(!is_journal_name(".asv-journal-00aa11bb22c"));
        assert!(!is_journal_name(".asv-journal-00AA11BB22CC"));
        assert!(!is_journal_name("asv-journal-00aa11bb22cc"));
    }
}
