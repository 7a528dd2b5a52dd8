//! The journal an apply keeps while it changes the tree, and how the next writer uses one
//! that a killed run left behind.
//!
//! An apply stages every new entry beside its destination, swaps them in, and only then
//! removes what it parked. A failure rolls all of that back, but a process that is killed
//! (SIGKILL, a power cut of the terminal, an OOM kill) runs no rollback: staged copies,
//! parked previous entries and half the destinations in their new state stay where they
//! are. The journal is what makes that state recoverable: before staging, the apply writes
//! `.agentic-skill-vendor/journal-<run>` naming every destination it will change and the
//! identity (device and inode) of what stands there now; it appends the directories it
//! makes, then the identity of every entry it staged, then a commit mark once every
//! destination holds its new state, and removes the journal when it is done.
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
//!
//! Records are NUL-separated (a path can hold any byte but NUL). A write cut short by the
//! kill leaves a partial last record, which is ignored: the apply does nothing that a record
//! must describe until the write that holds the record has returned.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read, Write};

use super::Applier;
use super::names::{is_residue_of_run, is_run_id, staged_name};
use crate::error::{EntryKind, Error, JournalProblem, Result};
use crate::platform;
use crate::root::{Root, join, kind_of, parent_of};

/// The directory of the tool's machine-local state, where journals live.
pub const STATE_DIR: &str = ".agentic-skill-vendor";
/// The name every journal in [`STATE_DIR`] starts with; the rest is the run id.
const PREFIX: &str = "journal-";
/// Where an earlier version kept its journals: at the root, named `.asv-journal-<12 hex>`.
const LEGACY_PREFIX: &str = ".asv-journal-";
/// The first line of a journal; a later format changes the number.
const HEADER: &[u8] = b"asv-journal 2\n";
/// The name `tempfile` gives [`Root::write_file`]'s temporary siblings starts with this.
const TEMP_PREFIX: &str = ".asv-tmp-";
/// The largest journal a recovery reads. A plan whose journal would be larger is refused
/// before anything is made (about a million destinations).
pub const JOURNAL_LIMIT: u64 = 64 << 20;
/// The longest field a recovery reads: a path is at most a few KiB, a command line rarely
/// more.
const FIELD_LIMIT: usize = 256 << 10;

/// Whether `name` is a journal's name in [`STATE_DIR`]: `journal-` then 12 lowercase hex
/// digits, the run id.
///
/// # Example
/// ```
/// assert!(asv_fs::apply::is_journal_name("journal-0123456789ab"));
/// assert!(!asv_fs::apply::is_journal_name("journal-x"));
/// ```
pub fn is_journal_name(name: &str) -> bool {
    name.strip_prefix(PREFIX).is_some_and(is_run_id)
}

/// Whether `path` (relative to the root) is where a journal stands: in [`STATE_DIR`], or at
/// the root as an earlier version kept it.
///
/// # Example
/// ```
/// assert!(asv_fs::apply::is_journal_path(".agentic-skill-vendor/journal-0123456789ab"));
/// assert!(asv_fs::apply::is_journal_path(".asv-journal-0123456789ab"));
/// assert!(!asv_fs::apply::is_journal_path("skills/journal-0123456789ab"));
/// ```
pub fn is_journal_path(path: &str) -> bool {
    match path.split_once('/') {
        Some((dir, name)) => dir == STATE_DIR && is_journal_name(name),
        None => is_legacy_name(path),
    }
}

fn is_legacy_name(name: &str) -> bool {
    name.strip_prefix(LEGACY_PREFIX).is_some_and(is_run_id)
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

    fn field(&self) -> String {
        format!("{}:{}", self.dev, self.ino)
    }

    fn parse(field: &[u8]) -> Option<Self> {
        let (dev, ino) = std::str::from_utf8(field).ok()?.split_once(':')?;
        Some(Identity {
            dev: dev.parse().ok()?,
            ino: ino.parse().ok()?,
        })
    }
}

/// The journal of the apply in progress.
pub(super) struct Journal {
    rel: String,
    file: File,
    /// Whether this apply made [`STATE_DIR`] for its journal: it then removes it again, so a
    /// run leaves exactly the files it was asked to write.
    made_state_dir: bool,
    /// How many of the run's made directories the journal names so far.
    made_recorded: usize,
}

impl Applier<'_, '_> {
    /// Creates the journal naming every destination and what stands there now.
    pub(super) fn open_journal(&self, dests: &[(&str, Option<Identity>)]) -> Result<Journal> {
        let root_id = self.op("", "inspect", || fs::metadata(self.tree.root()))?;
        let made_state_dir = match self.lstat(STATE_DIR)?.map(|m| kind_of(m.file_type())) {
            Some(EntryKind::Directory) => false,
            None => {
                self.op(STATE_DIR, "create directory", || {
                    fs::create_dir(self.tree.abs(STATE_DIR))
                })?;
                true
            }
            Some(EntryKind::Symlink) => {
                return Err(Error::Symlink {
                    path: STATE_DIR.to_owned(),
                });
            }
            Some(found) => {
                return Err(Error::WrongKind {
                    path: STATE_DIR.to_owned(),
                    expected: EntryKind::Directory,
                    found,
                });
            }
        };
        let rel = join(STATE_DIR, &format!("{PREFIX}{}", self.run));
        let mut created = false;
        let opened = self
            .op(&rel, "create the journal", || {
                platform::create_private_appending(&self.tree.abs(&rel))
            })
            .and_then(|file| {
                created = true;
                let own = self.op(&rel, "inspect", || file.metadata())?;
                Ok((file, own))
            });
        let (file, own) = match opened {
            Ok(opened) => opened,
            Err(e) => {
                // Nothing was made yet: neither the journal nor its directory has anything
                // to tell.
                if created {
                    let _ = fs::remove_file(self.tree.abs(&rel));
                }
                if made_state_dir {
                    let _ = fs::remove_dir(self.tree.abs(STATE_DIR));
                }
                return Err(e);
            }
        };
        let mut journal = Journal {
            rel,
            file,
            made_state_dir,
            made_recorded: 0,
        };
        let mut bytes = HEADER.to_vec();
        push_field(&mut bytes, "run");
        push_field(&mut bytes, &self.run);
        push_field(&mut bytes, "root");
        push_field(&mut bytes, &Identity::of(&root_id).field());
        push_field(&mut bytes, "self");
        push_field(&mut bytes, &Identity::of(&own).field());
        push_field(&mut bytes, "command");
        push_field(&mut bytes, &this_command_line());
        for (dest, identity) in dests {
            push_field(&mut bytes, "P");
            push_field(&mut bytes, dest);
            match identity {
                Some(id) => push_field(&mut bytes, &id.field()),
                None => push_field(&mut bytes, "-"),
            }
        }
        // Room for the made directories and staged entries, as long again at most.
        if bytes.len() as u64 > JOURNAL_LIMIT / 2 {
            let size = bytes.len() as u64;
            let _ = self.remove_journal(journal);
            return Err(Error::TooLarge {
                path: STATE_DIR.to_owned(),
                size,
                limit: JOURNAL_LIMIT / 2,
                what: "journal of one change",
            });
        }
        if let Err(e) = self.append(&mut journal, &bytes) {
            // Nothing was made yet: the journal would only describe nothing. Removed without
            // the counter, which may be failing every call by now.
            let Journal { rel, file, .. } = journal;
            drop(file);
            let _ = fs::remove_file(self.tree.abs(&rel));
            if made_state_dir {
                let _ = fs::remove_dir(self.tree.abs(STATE_DIR));
            }
            return Err(e);
        }
        Ok(journal)
    }

    /// Records the directories this run made that the journal does not name yet, each with
    /// its identity, so a rollback after a kill removes them (and nothing made since).
    pub(super) fn journal_made(&self, journal: &mut Journal, made: &[String]) -> Result<()> {
        let new = made.get(journal.made_recorded..).unwrap_or_default();
        if new.is_empty() {
            return Ok(());
        }
        let mut bytes = Vec::new();
        for dir in new {
            let Some(meta) = self.lstat(dir)? else {
                continue;
            };
            push_field(&mut bytes, "M");
            push_field(&mut bytes, dir);
            push_field(&mut bytes, &Identity::of(&meta).field());
        }
        self.append(journal, &bytes)?;
        journal.made_recorded = made.len();
        Ok(())
    }

    /// Records the identity of every staged entry, before the first swap: what a recovery
    /// finds at a destination is this run's to move aside only when it is one of these.
    pub(super) fn journal_staged(
        &self,
        journal: &mut Journal,
        staged: &[(&str, &str)],
    ) -> Result<()> {
        let mut bytes = Vec::new();
        for (dest, at) in staged {
            let Some(meta) = self.lstat(at)? else {
                continue;
            };
            push_field(&mut bytes, "S");
            push_field(&mut bytes, dest);
            push_field(&mut bytes, &Identity::of(&meta).field());
        }
        if bytes.is_empty() {
            return Ok(());
        }
        self.append(journal, &bytes)
    }

    /// Records the commit point: every destination holds its new state.
    pub(super) fn journal_commit(&self, journal: &mut Journal) -> Result<()> {
        let mut bytes = Vec::new();
        push_field(&mut bytes, "C");
        self.append(journal, &bytes)
    }

    /// Removes the journal of a change that is complete (or completely undone).
    pub(super) fn close_journal(&self, journal: Journal) -> Result<()> {
        self.remove_journal(journal)
    }

    fn remove_journal(&self, journal: Journal) -> Result<()> {
        let Journal {
            rel,
            file,
            made_state_dir,
            ..
        } = journal;
        drop(file);
        self.op(&rel, "remove the journal", || {
            fs::remove_file(self.tree.abs(&rel))
        })?;
        if made_state_dir {
            // Only if empty: the change itself may have put something there.
            let _ = fs::remove_dir(self.tree.abs(STATE_DIR));
        }
        Ok(())
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
    run: String,
    root: Option<Identity>,
    own: Option<Identity>,
    command: String,
    dests: Vec<(String, Option<Identity>)>,
    made: Vec<(String, Identity)>,
    staged: HashMap<String, Identity>,
    committed: bool,
}

/// Reads NUL-terminated fields, each at most [`FIELD_LIMIT`] bytes, from a journal.
struct Fields<R> {
    input: R,
    buf: Vec<u8>,
}

impl<R: BufRead> Fields<R> {
    /// The next whole field; `None` at the end or at a last field the kill cut short.
    fn next(&mut self) -> io::Result<Option<&[u8]>> {
        self.buf.clear();
        let n = (&mut self.input)
            .take(FIELD_LIMIT as u64 + 1)
            .read_until(0, &mut self.buf)?;
        if n == 0 || self.buf.last() != Some(&0) {
            return Ok(None);
        }
        self.buf.pop();
        Ok(Some(&self.buf))
    }
}

/// Whether a path a journal names is one a recovery may act on: plain, relative, below the
/// root, and never in git's own directory.
fn is_acceptable_path(path: &str) -> bool {
    crate::plan::is_plain_relative(path)
        && !path.split('/').any(|seg| seg.eq_ignore_ascii_case(".git"))
}

/// Parses a journal from `input`, refusing anything but what this version writes.
fn parse(input: impl Read) -> Result<Record, JournalProblem> {
    let mut reader = BufReader::new(input);
    let mut header = Vec::with_capacity(HEADER.len());
    (&mut reader)
        .take(HEADER.len() as u64)
        .read_to_end(&mut header)
        .map_err(|_| JournalProblem::NotAJournal)?;
    if header.len() < HEADER.len() && HEADER.starts_with(&header) {
        // Killed while it wrote its first bytes: it names nothing yet.
        return Ok(Record::default());
    }
    if header != HEADER {
        // `asv-journal <n>\n` with another number: a format of another version.
        return Err(
            if header.starts_with(b"asv-journal ") && header.ends_with(b"\n") {
                JournalProblem::OtherFormat
            } else {
                JournalProblem::NotAJournal
            },
        );
    }
    let mut fields = Fields {
        input: reader,
        buf: Vec::new(),
    };
    let mut record = Record::default();
    let unreadable = |_| JournalProblem::NotAJournal;
    // The fields every journal opens with, in this order: a journal cut short inside them
    // names nothing the run did yet.
    for key in ["run", "root", "self", "command"] {
        let Some(got) = fields.next().map_err(unreadable)? else {
            return Ok(record);
        };
        if got != key.as_bytes() {
            return Err(JournalProblem::NotAJournal);
        }
        let Some(value) = fields.next().map_err(unreadable)? else {
            return Ok(record);
        };
        let text = String::from_utf8_lossy(value).into_owned();
        match key {
            "run" if is_run_id(&text) => record.run = text,
            "root" | "self" => {
                let id = Identity::parse(value).ok_or(JournalProblem::NotAJournal)?;
                if key == "root" {
                    record.root = Some(id);
                } else {
                    record.own = Some(id);
                }
            }
            "command" => record.command = text,
            _ => return Err(JournalProblem::NotAJournal),
        }
    }
    let path_field = |value: &[u8]| -> Result<String, JournalProblem> {
        match std::str::from_utf8(value) {
            Ok(path) if is_acceptable_path(path) => Ok(path.to_owned()),
            _ => Err(JournalProblem::OutsidePath {
                path: String::from_utf8_lossy(value).into_owned(),
            }),
        }
    };
    while let Some(kind) = fields.next().map_err(unreadable)? {
        let kind = kind.to_vec();
        if kind == b"C" {
            record.committed = true;
            continue;
        }
        if !matches!(kind.as_slice(), b"P" | b"M" | b"S") {
            return Err(JournalProblem::NotAJournal);
        }
        let Some(path) = fields.next().map_err(unreadable)? else {
            break;
        };
        let path = path_field(path)?;
        let Some(id) = fields.next().map_err(unreadable)? else {
            break;
        };
        let id = if kind == b"P" && id == b"-" {
            None
        } else {
            Some(Identity::parse(id).ok_or(JournalProblem::NotAJournal)?)
        };
        match (kind.as_slice(), id) {
            (b"P", id) => record.dests.push((path, id)),
            (b"M", Some(id)) => record.made.push((path, id)),
            (b"S", Some(id)) => {
                record.staged.insert(path, id);
            }
            _ => return Err(JournalProblem::NotAJournal),
        }
    }
    Ok(record)
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
                        source: Box::new(source),
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
        root: applier.tree,
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
        // (such a file is written in place, not staged; see `forward`).
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
                    Err(Error::Io { source, .. })
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
        if made_here.contains(dir.as_str()) && fs::remove_dir(applier.tree.abs(dir)).is_ok() {
            listings.removed(dir);
        }
    }
    Ok(())
}

/// The body of the `journal` fuzz target (`fuzz/` at the repository root): arbitrary bytes
/// as a journal, read as a recovery reads one. Not part of the crate's interface.
///
/// # Panics
/// When a journal that parses names a path a recovery may not act on, or a run id of
/// another shape.
#[doc(hidden)]
pub fn fuzz_journal(data: &[u8]) {
    let Ok(record) = parse(data) else {
        return;
    };
    assert!(record.run.is_empty() || is_run_id(&record.run));
    for path in record
        .dests
        .iter()
        .map(|(p, _)| p)
        .chain(record.made.iter().map(|(p, _)| p))
        .chain(record.staged.keys())
    {
        assert!(is_acceptable_path(path), "{path:?}");
        assert!(path.len() <= FIELD_LIMIT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed corpus of the `journal` fuzz target, replayed on stable.
    #[test]
    fn the_fuzz_corpus_replays() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/journal");
        let mut files: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert!(!files.is_empty());
        for file in files {
            let bytes = fs::read(&file).unwrap();
            let outcome = std::panic::catch_unwind(|| fuzz_journal(&bytes));
            assert!(outcome.is_ok(), "{}", file.display());
        }
    }

    fn fields(list: &[&str]) -> Vec<u8> {
        let mut bytes = HEADER.to_vec();
        for f in list {
            push_field(&mut bytes, f);
        }
        bytes
    }

    const OPENING: [&str; 8] = [
        "run",
        "0123456789ab",
        "root",
        "1:2",
        "self",
        "3:4",
        "command",
        "agentic-skill-vendor gen",
    ];

    #[test]
    fn a_record_cut_short_keeps_what_is_whole() {
        let mut list = OPENING.to_vec();
        list.extend(["P", "a/b", "1:2", "P", "c", "-", "M", "a", "5:6"]);
        let bytes = fields(&list);
        let whole = parse(&bytes[..]).unwrap();
        assert_eq!(whole.command, "agentic-skill-vendor gen");
        assert_eq!(whole.run, "0123456789ab");
        assert_eq!(whole.own, Some(Identity { dev: 3, ino: 4 }));
        assert_eq!(
            whole.dests,
            vec![
                ("a/b".to_owned(), Some(Identity { dev: 1, ino: 2 })),
                ("c".to_owned(), None)
            ]
        );
        assert_eq!(
            whole.made,
            vec![("a".to_owned(), Identity { dev: 5, ino: 6 })]
        );
        assert!(!whole.committed);
        // Cut inside the made directory's record: it is not kept.
        let cut = parse(&bytes[..bytes.len() - 3]).unwrap();
        assert_eq!(cut.dests.len(), 2);
        assert!(cut.made.is_empty());
        // Cut inside its first line, or before it: nothing named.
        assert!(parse(&HEADER[..5]).unwrap().dests.is_empty());
        assert!(parse(&b""[..]).unwrap().dests.is_empty());
        // Not a journal at all, or one of another format.
        assert_eq!(
            parse(&b"something else"[..]).unwrap_err(),
            JournalProblem::NotAJournal
        );
        assert_eq!(
            parse(&b"asv-journal 1\ncommand\0x\0"[..]).unwrap_err(),
            JournalProblem::OtherFormat
        );
        // The shape of a header, garbled: not a format at all.
        assert_eq!(
            parse(&b"asv-journal 2\0run\0"[..]).unwrap_err(),
            JournalProblem::NotAJournal
        );
    }

    #[test]
    fn paths_outside_the_tree_or_in_git_refuse_the_journal() {
        for bad in [
            "../victim",
            "/etc",
            "a/../../b",
            "",
            ".",
            "a//b",
            ".git/objects",
            "x/.GIT",
        ] {
            let mut list = OPENING.to_vec();
            list.extend(["P", bad, "-"]);
            assert_eq!(
                parse(&fields(&list)[..]).unwrap_err(),
                JournalProblem::OutsidePath {
                    path: bad.to_owned()
                },
                "{bad:?}"
            );
        }
        // An unknown record, or a made directory without its identity.
        let mut list = OPENING.to_vec();
        list.extend(["X", "a", "-"]);
        assert_eq!(
            parse(&fields(&list)[..]).unwrap_err(),
            JournalProblem::NotAJournal
        );
        let mut list = OPENING.to_vec();
        list.extend(["M", "a", "-"]);
        assert_eq!(
            parse(&fields(&list)[..]).unwrap_err(),
            JournalProblem::NotAJournal
        );
    }

    #[test]
    fn a_field_past_the_limit_is_not_read_whole() {
        let mut list = OPENING.to_vec();
        let long = "a".repeat(FIELD_LIMIT + 10);
        list.extend(["P", &long, "-"]);
        // The long field is cut at the limit and has no NUL there: read as the end.
        let record = parse(&fields(&list)[..]).unwrap();
        assert!(record.dests.is_empty());
    }

    #[test]
    fn journal_names() {
        assert!(is_journal_name("journal-00aa11bb22cc"));
        assert!(!is_journal_name("journal-00aa11bb22c"));
        assert!(!is_journal_name("journal-00AA11BB22CC"));
        assert!(!is_journal_name(".asv-journal-00aa11bb22cc"));
        assert!(is_journal_path(".asv-journal-00aa11bb22cc"));
        assert!(is_journal_path(
            ".agentic-skill-vendor/journal-00aa11bb22cc"
        ));
        assert!(!is_journal_path("x/journal-00aa11bb22cc"));
    }
}
