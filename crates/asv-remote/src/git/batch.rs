//! Reading many files of one commit in one batched conversation (issue 30 §2).
//!
//! One file read alone costs a `git cat-file blob` and, in the blob-less temporary repository,
//! the lazy fetch git starts for its blob: two processes and a round trip to the server per
//! file. A batch reads every file through one `git cat-file --batch` — the one the source keeps
//! for the commit and its trees (`conversation`), so the files cost no process of their own —
//! its output taken as it comes: each answer's header gives the file's size before any byte of
//! it is read, so a file over its cap is refused there and git stopped, and at most a few
//! files are held at a time. A file the commit's listing holds with its id is asked for by
//! that id; any other by its path at the commit.
//!
//! The blobs a batch reads may be in the repository already: a server that ignores
//! `--filter=blob:none` (the default of `git upload-pack`) sends them with the commit. So the
//! read comes first, with git's lazy fetch off (`GIT_NO_LAZY_FETCH`): a blob that is not there
//! is answered `missing`, the rest of the batch is surveyed for others missing, and exactly
//! those are asked for in one `git fetch --stdin` (what git's own lazy fetch asks for one)
//! before the read goes on from the first of them. Once a commit's fetch was seen to leave the
//! blobs out ([`Git::note_filter`]), the blobs are fetched before the read instead, which
//! spares the read that would only find them missing.
//!
//! Every file is judged as [`Transport::read`] judges one, in the same order: a file over the
//! per-file limit, or past the total, is refused before any byte of it is read, and each
//! file's bytes must hash to the blob id its listing gives. What a batch cannot judge as a read
//! would (a path that names something else than the listed blob, a blob still missing after
//! its fetch, a fetch the server refuses) is read alone, so it is refused or read exactly as
//! before.

use std::io::Read as _;

use super::conversation::{self, Heard, Reply};
use super::*;
use crate::EntryMode;
use crate::session::Stdout;

/// What the reader of a `git cat-file --batch` made of one answer.
pub(super) enum Answer {
    /// The listed blob of entry `.0`, whole and within its cap.
    Blob(usize, Vec<u8>),
    /// Entry `.0` is not in the repository (lazy fetch off). The reader goes on to survey the
    /// entries after it, answering only `Missing` for them.
    Missing(usize),
    /// Entry `.0` names something else than the listed blob: it is read alone. The reader
    /// stops.
    Other(usize),
    /// Entry `.0` is over its cap `.1`. The reader stops.
    OverCap(usize, u64),
    /// Git's answer ended or went wrong before entry `.0`'s (`.1`: the line, if any). The
    /// reader stops.
    Broken(usize, String),
}

/// The most bytes of files the reader holds before it hands them over.
const HELD: usize = 1024 * 1024;

/// The answers a reader holds until it hands them over together.
struct Handing<'h> {
    pending: Vec<Answer>,
    held: usize,
    hand: &'h mut dyn FnMut(Vec<Answer>) -> bool,
}

impl Handing<'_> {
    /// Keeps `answer`; hands what is kept over unless git has more written (`buffered`) and
    /// less than [`HELD`] is held, or `answer` ends the reading. `false` when nobody listens
    /// any more.
    fn push(&mut self, answer: Answer, buffered: bool) -> bool {
        if let Answer::Blob(_, bytes) = &answer {
            self.held += bytes.len();
        }
        let last = !matches!(answer, Answer::Blob(..) | Answer::Missing(_));
        self.pending.push(answer);
        if last || !buffered || self.held >= HELD {
            return self.flush();
        }
        true
    }

    /// Hands over what is kept, if anything.
    fn flush(&mut self) -> bool {
        self.held = 0;
        if self.pending.is_empty() {
            return true;
        }
        (self.hand)(std::mem::take(&mut self.pending))
    }
}

/// How one `git cat-file --batch` over entries `from..` ended.
enum Streamed {
    /// Every entry was handed over.
    All,
    /// `each` asked to stop.
    Stopped,
    /// Entry `.0` is to be read alone; those before it were handed over.
    Alone(usize),
    /// Entry `.0` and those of `.1` (`.0` first) are missing; those before `.0` were handed
    /// over.
    Missing(usize, Vec<usize>),
}

/// What a stream's reader is told: for each entry its blob id and the name git is asked for,
/// the per-file limit and what is left of the total.
struct Asked {
    oids: Vec<String>,
    file: u64,
    left: u64,
}

impl Asked {
    /// Reads git's answers from `out`, handing them to `hand` in order (see [`Answer`]), a
    /// few at a time: those read from what git had already written go together (up to
    /// [`HELD`] bytes), so the calling thread is woken once per pipe's worth, not per file.
    /// Whether every answer asked for was read (the kept process is still in step).
    fn read(self, out: &mut Stdout, hand: &mut dyn FnMut(Vec<Answer>) -> bool) -> bool {
        let mut handing = Handing {
            pending: Vec::new(),
            held: 0,
            hand,
        };
        let in_step = self.walk(out, &mut handing);
        handing.flush() && in_step
    }

    /// [`Asked::read`]'s walk through the answers, each kept in `send`; whether it read them
    /// all.
    fn walk(&self, out: &mut Stdout, send: &mut Handing<'_>) -> bool {
        let mut used = 0u64;
        // Once an entry is missing, the rest are only surveyed: which others are missing.
        let mut surveying = false;
        for (i, oid) in self.oids.iter().enumerate() {
            let head = match conversation::header(out) {
                Ok(head) => head,
                Err(line) => {
                    if !surveying {
                        send.push(Answer::Broken(i, line), false);
                    }
                    return false;
                }
            };
            if head.ends_with(" missing") {
                if !send.push(Answer::Missing(i), !out.buffer().is_empty()) {
                    return false;
                }
                surveying = true;
                continue;
            }
            let mut fields = head.split(' ');
            let (Some(name), Some(kind), Some(size), None) =
                (fields.next(), fields.next(), fields.next(), fields.next())
            else {
                if !surveying {
                    send.push(Answer::Other(i), false);
                }
                return false;
            };
            let Ok(size) = size.parse::<u64>() else {
                if !surveying {
                    send.push(Answer::Broken(i, head), false);
                }
                return false;
            };
            if name != oid || kind != "blob" {
                if !surveying {
                    send.push(Answer::Other(i), false);
                }
                return false;
            }
            if surveying {
                // The bytes of a blob that is there are passed over; one past the file limit
                // ends the survey (the read refuses it in its turn, or reads on before it).
                if size > self.file {
                    return false;
                }
                let skipped = std::io::copy(&mut (&mut *out).take(size + 1), &mut std::io::sink());
                if !matches!(skipped, Ok(n) if n == size + 1) {
                    return false;
                }
                continue;
            }
            // The cap a single read reads this file with: the per-file limit, or what is left
            // of the total once the files before it are read.
            let cap = self.file.min(self.left.saturating_sub(used));
            if size > cap {
                send.push(Answer::OverCap(i, cap), false);
                return false;
            }
            let Ok(len) = usize::try_from(size) else {
                send.push(Answer::OverCap(i, cap), false);
                return false;
            };
            let mut bytes = vec![0u8; len + 1];
            if out.read_exact(&mut bytes).is_err() || bytes.pop() != Some(b'\n') {
                send.push(Answer::Broken(i, head), false);
                return false;
            }
            used += size;
            if !send.push(Answer::Blob(i, bytes), !out.buffer().is_empty()) {
                return false;
            }
        }
        true
    }
}

impl Git {
    /// Reads `entries` (each an ordinary file at a path inside the repository, with a blob id
    /// of the commit's format, at a path with no line break), handing each to `each` in order.
    /// `false` back from `each` when it stopped early.
    pub(super) fn read_batch(
        &mut self,
        commit: &Commit,
        revision: &str,
        entries: &[TreeEntry],
        each: &mut dyn FnMut(usize, Vec<u8>) -> bool,
    ) -> Result<bool> {
        self.fetch(revision, commit.format)?;
        let what = Step::Files {
            revision: revision.to_owned(),
            count: entries.len(),
        };
        if self.filtered {
            let all: Vec<usize> = (0..entries.len()).collect();
            if !self.fetch_blobs(entries, &all, &what)? {
                return self.read_alone(commit, entries, 0, each);
            }
        }
        let mut from = 0;
        while from < entries.len() {
            match self.stream(commit, revision, entries, from, each, &what)? {
                Streamed::All => return Ok(true),
                Streamed::Stopped => return Ok(false),
                Streamed::Alone(i) => {
                    if !each(i, self.read(commit, &entries[i])?) {
                        return Ok(false);
                    }
                    from = i + 1;
                }
                Streamed::Missing(first, missing) => {
                    // Fetched once already and still not there: read alone, as before.
                    if self.blobs.contains(&entries[first].oid) {
                        if !each(first, self.read(commit, &entries[first])?) {
                            return Ok(false);
                        }
                        from = first + 1;
                        continue;
                    }
                    if !self.fetch_blobs(entries, &missing, &what)? {
                        return self.read_alone(commit, entries, first, each);
                    }
                    from = first;
                }
            }
        }
        Ok(true)
    }

    /// Reads `entries[from..]` one at a time, as [`Transport::read`] does.
    fn read_alone(
        &mut self,
        commit: &Commit,
        entries: &[TreeEntry],
        from: usize,
        each: &mut dyn FnMut(usize, Vec<u8>) -> bool,
    ) -> Result<bool> {
        for (i, entry) in entries.iter().enumerate().skip(from) {
            if !each(i, self.read(commit, entry)?) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Fetches the blobs of `entries` at `which` the repository was not given yet, in one
    /// `git fetch`. `false` when the fetch failed (the files are then read alone, each refused
    /// as a read would be).
    fn fetch_blobs(&mut self, entries: &[TreeEntry], which: &[usize], what: &Step) -> Result<bool> {
        let wanted: std::collections::BTreeSet<&str> = which
            .iter()
            .map(|&i| entries[i].oid.as_str())
            .filter(|oid| !self.blobs.contains(*oid))
            .collect();
        if wanted.is_empty() {
            return Ok(true);
        }
        let mut input = Vec::new();
        for oid in &wanted {
            input.extend_from_slice(oid.as_bytes());
            input.push(b'\n');
        }
        let wanted: Vec<String> = wanted.into_iter().map(str::to_owned).collect();
        let progress = self.progress.clone();
        let _step = progress.step(
            &format!("{}: fetching {} files", self.url, wanted.len()),
            None,
        );
        // The fetch git's own lazy fetch makes for a missing blob, for all of them at once.
        let args = [
            "-c",
            "fetch.negotiationAlgorithm=noop",
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-recurse-submodules",
            "--filter=blob:none",
            "--stdin",
            REMOTE,
        ];
        match self.run_with(&args, Some(input), true, SMALL_LIMIT, true, what)? {
            Outcome::Ended(finished) if finished.status.success() => {
                self.blobs.extend(wanted);
                Ok(true)
            }
            Outcome::Ended(_) => Ok(false),
            Outcome::Cut(cut) => Err(self.limit_error(cut, what)),
        }
    }

    /// One exchange with the kept `git cat-file --batch` over `entries[from..]`, its answers
    /// taken as they come: each listed blob within its cap is checked against its id and
    /// handed to `each`. An entry the commit's own listing holds at its path with its id is
    /// asked for by that id (git need not walk the trees again for it); any other by
    /// `<rev>:<path>`, the object at the path, as `read` asks for it, so a listed id that is
    /// not what the path names is still found out.
    fn stream(
        &mut self,
        commit: &Commit,
        revision: &str,
        entries: &[TreeEntry],
        from: usize,
        each: &mut dyn FnMut(usize, Vec<u8>) -> bool,
        what: &Step,
    ) -> Result<Streamed> {
        let part = &entries[from..];
        // The commit's listing, or the parts of it listed below one path (issue 30 §3): each
        // read from the commit's own trees, so either says what the path names.
        let parts: Vec<&Vec<TreeEntry>> = match self.listings.get(revision) {
            Some(listing) => vec![listing],
            None => self
                .subtrees
                .range((revision.to_owned(), String::new())..)
                .take_while(|((listed, _), _)| listed == revision)
                .map(|(_, entries)| entries)
                .collect(),
        };
        let listed: std::collections::BTreeMap<&str, &str> = parts
            .into_iter()
            .flatten()
            .filter(|e| !matches!(e.mode, EntryMode::Tree | EntryMode::Submodule))
            .map(|e| (e.path.as_str(), e.oid.as_str()))
            .collect();
        let mut input = Vec::new();
        for e in part {
            if listed.get(e.path.as_str()) == Some(&e.oid.as_str()) {
                input.extend_from_slice(e.oid.as_bytes());
                input.push(b'\n');
            } else {
                input.extend_from_slice(format!("{revision}:{}\n", e.path).as_bytes());
            }
        }
        let asked = Asked {
            oids: part.iter().map(|e| e.oid.clone()).collect(),
            file: self.limits.file,
            left: self.limits.total.saturating_sub(self.read),
        };
        // What the answers said, kept here: `self` is not at hand while git answers.
        let mut read = 0u64;
        let mut refusal: Option<GitProblem> = None;
        let mut alone = None;
        let mut missing: Vec<usize> = Vec::new();
        let mut handed = 0usize;
        let format = commit.format;
        let file_at = |i: usize| FileAt {
            path: part[i].path.clone(),
            revision: revision.to_owned(),
        };
        let mut on_one = |answer: Answer| -> bool {
            match answer {
                Answer::Blob(i, bytes) => {
                    read += bytes.len() as u64;
                    let got = blob_id(format, &bytes);
                    if got != part[i].oid {
                        refusal = Some(GitProblem::BlobMismatch {
                            file: file_at(i),
                            listed: part[i].oid.clone(),
                            got,
                        });
                        return false;
                    }
                    handed = i + 1;
                    each(from + i, bytes)
                }
                Answer::Missing(i) => {
                    missing.push(from + i);
                    true
                }
                Answer::Other(i) if missing.is_empty() => {
                    alone = Some(from + i);
                    false
                }
                Answer::OverCap(i, cap) if missing.is_empty() => {
                    refusal = Some(GitProblem::FileTooLarge {
                        file: file_at(i),
                        limit: cap,
                    });
                    false
                }
                Answer::Broken(i, line) if missing.is_empty() => {
                    refusal = Some(GitProblem::Malformed {
                        step: what.clone(),
                        line: format!("{}: {line}", part.get(i).map_or("", |e| e.path.as_str())),
                    });
                    false
                }
                // Past a missing entry only the survey counts.
                Answer::Other(_) | Answer::OverCap(..) | Answer::Broken(..) => false,
            }
        };
        let job: crate::session::Job<Reply> =
            Box::new(move |out, send| asked.read(out, &mut |answers| send(Reply::Files(answers))));
        let heard = self.exchange(input, job, what, &mut |reply| match reply {
            Reply::Files(answers) => answers.into_iter().all(&mut on_one),
            Reply::Objects(..) => false,
        });
        self.read += read;
        let heard = heard?;
        match refusal {
            Some(GitProblem::BlobMismatch { file, listed, got }) => {
                return Err(self.error(GitProblem::BlobMismatch { file, listed, got }));
            }
            Some(GitProblem::FileTooLarge { file, limit }) => {
                let problem = self.over_cap(file, limit);
                return Err(self.stop(problem));
            }
            Some(GitProblem::Malformed { line, .. }) => {
                // A git that failed says why on its standard error; else its answer was odd.
                if let Heard::Ended(Outcome::Ended(finished)) = &heard
                    && !finished.status.success()
                {
                    let file = part
                        .get(handed)
                        .map_or_else(|| file_at(0), |_| file_at(handed));
                    return Err(self.stop(GitProblem::ReadFailed {
                        file,
                        failure: GitFailure::from_stderr(&finished.stderr, finished.status),
                    }));
                }
                return Err(self.malformed(what, &line));
            }
            Some(other) => return Err(self.stop(other)),
            None => {}
        }
        let ended = match heard {
            Heard::Ended(Outcome::Cut(cut)) => return Err(self.limit_error(cut, what)),
            Heard::Stopped => return Ok(Streamed::Stopped),
            Heard::Done => None,
            Heard::Ended(Outcome::Ended(finished)) => Some(finished),
        };
        if let Some(&first) = missing.first() {
            return Ok(Streamed::Missing(first, missing));
        }
        if let Some(i) = alone {
            return Ok(Streamed::Alone(i));
        }
        match ended {
            None if handed == part.len() => Ok(Streamed::All),
            None => Err(self.malformed(what, "fewer answers than were asked for")),
            Some(finished) => Err(self.stop(GitProblem::ReadFailed {
                file: file_at(handed.min(part.len() - 1)),
                failure: GitFailure::from_stderr(&finished.stderr, finished.status),
            })),
        }
    }
}
