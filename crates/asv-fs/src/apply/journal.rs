//! The journal an apply keeps while it changes the tree: its format, how an apply writes it
//! and how it is read back (what the next writer does with one is `recovery`).
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
//! The journal also records the command that made the change, so the next writer can say what
//! it put right and a command run again can tell that it is the one interrupted. A library
//! reads no environment: the command is what the writer named when it took the lock
//! ([`crate::WriterLock::with_command`]; the binary names its own command line), and `-`
//! ([`NO_COMMAND`]) when it named none. The reader takes any text there.
//!
//! Records are NUL-separated (a path can hold any byte but NUL). A write cut short by the
//! kill leaves a partial last record, which is ignored: the apply does nothing that a record
//! must describe until the write that holds the record has returned.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read, Write};

use super::Applier;
use super::names::is_run_id;
use crate::error::{EntryKind, Error, JournalProblem, Result};
use crate::platform;
use crate::root::{join, kind_of};

/// The directory of the tool's machine-local state, where journals live.
pub const STATE_DIR: &str = ".agentic-skill-vendor";
/// The name every journal in [`STATE_DIR`] starts with; the rest is the run id.
pub(super) const PREFIX: &str = "journal-";
/// Where an earlier version kept its journals: at the root, named `.asv-journal-<12 hex>`.
const LEGACY_PREFIX: &str = ".asv-journal-";
/// The first line of a journal; a later format changes the number.
const HEADER: &[u8] = b"asv-journal 2\n";
/// The name `tempfile` gives [`crate::Root::write_file`]'s temporary siblings starts with this.
pub(super) const TEMP_PREFIX: &str = ".asv-tmp-";
/// The largest journal a recovery reads. A plan whose journal would be larger is refused
/// before anything is made (about a million destinations).
pub const JOURNAL_LIMIT: u64 = 64 << 20;
/// What a journal records as its `command` when the writer named none
/// ([`crate::WriterLock::with_command`]): no command line is `-`, so a later run never takes
/// it for itself, and it is what the format writes elsewhere for "none".
pub(super) const NO_COMMAND: &str = "-";
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

pub(super) fn is_legacy_name(name: &str) -> bool {
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
    /// Creates the journal naming every destination and what stands there now, and the
    /// command the writer runs ([`NO_COMMAND`] when it named none).
    pub(super) fn open_journal(
        &self,
        dests: &[(&str, Option<Identity>)],
        command: Option<&str>,
    ) -> Result<Journal> {
        let root_id = self.op("", "inspect", || fs::metadata(self.root.root()))?;
        let made_state_dir = match self.lstat(STATE_DIR)?.map(|m| kind_of(m.file_type())) {
            Some(EntryKind::Directory) => false,
            None => {
                self.op(STATE_DIR, "create directory", || {
                    fs::create_dir(self.root.abs(STATE_DIR))
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
                platform::create_private_appending(&self.root.abs(&rel))
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
                    let _ = fs::remove_file(self.root.abs(&rel));
                }
                if made_state_dir {
                    let _ = fs::remove_dir(self.root.abs(STATE_DIR));
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
        push_field(&mut bytes, command.unwrap_or(NO_COMMAND));
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
            let _ = fs::remove_file(self.root.abs(&rel));
            if made_state_dir {
                let _ = fs::remove_dir(self.root.abs(STATE_DIR));
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
            fs::remove_file(self.root.abs(&rel))
        })?;
        if made_state_dir {
            // Only if empty: the change itself may have put something there.
            let _ = fs::remove_dir(self.root.abs(STATE_DIR));
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

/// What a journal says about the run that wrote it.
#[derive(Debug, Default)]
pub(super) struct Record {
    pub(super) run: String,
    pub(super) root: Option<Identity>,
    pub(super) own: Option<Identity>,
    pub(super) command: String,
    pub(super) dests: Vec<(String, Option<Identity>)>,
    pub(super) made: Vec<(String, Identity)>,
    pub(super) staged: HashMap<String, Identity>,
    pub(super) committed: bool,
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
pub(super) fn parse(input: impl Read) -> Result<Record, JournalProblem> {
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
    fn the_journal_records_the_command_the_writer_named_or_a_dash() {
        for (named, recorded) in [
            (
                Some("agentic-skill-vendor gen --root 'a b'"),
                "agentic-skill-vendor gen --root 'a b'",
            ),
            (None, NO_COMMAND),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let root = crate::Root::open(dir.path()).unwrap();
            let applier = Applier::for_run(&root, "0123456789ab");
            let journal = applier.open_journal(&[("a", None)], named).unwrap();
            let bytes = fs::read(root.abs(&journal.rel)).unwrap();
            let want = format!("\0command\0{recorded}\0P\0a\0-\0");
            assert!(
                bytes.windows(want.len()).any(|w| w == want.as_bytes()),
                "{}",
                String::from_utf8_lossy(&bytes)
            );
            assert_eq!(parse(&bytes[..]).unwrap().command, recorded);
            applier.close_journal(journal).unwrap();
        }
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
