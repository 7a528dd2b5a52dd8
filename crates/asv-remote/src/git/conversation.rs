//! The one `git cat-file --batch` a source keeps for reading a commit (issue 30 §2, fourth
//! step): the commit's type and bytes (`objects`), its trees (`trees`) and its files
//! (`batch`) are asked of the same process in turn, so reading N skills of one commit costs
//! one process beside the fetch, not three.
//!
//! The process runs with git's lazy fetch off (`GIT_NO_LAZY_FETCH`): an object that is not in
//! the repository is answered `missing`, and each caller decides what to fetch (exactly the
//! blobs missing) or how else to read it. The session is started by the first exchange that
//! needs it and ended when a read of files is done ([`Git::end_conversation`]), when an
//! exchange leaves it out of step (a refusal read from a header, an odd answer, a limit), when
//! the source stops, and when the source is dropped.

use std::io::{BufRead as _, Read as _};

use super::*;
use crate::session::{Exchange, Job, Session, Stdout};

/// What the reader of the kept process hands over.
pub(super) enum Reply {
    /// Answers of a batched read of files, a few at a time (`batch`).
    Files(Vec<batch::Answer>),
    /// Answers of an exchange of objects, each with the index of the object asked for, a few
    /// at a time.
    Objects(Vec<(usize, Found)>),
}

/// One object's answer in an exchange of objects.
pub(super) enum Found {
    /// The object, its header naming the id asked for.
    Object {
        /// Its type, as git names it.
        kind: String,
        /// Its bytes, exactly as stored.
        bytes: Vec<u8>,
    },
    /// Not in the repository (lazy fetch is off).
    Missing,
    /// A one-line answer other than an object (`ambiguous`, …): no bytes follow.
    Other(String),
    /// An object over the cap of the exchange, refused from its header.
    /// Nothing is read after it.
    TooLarge,
    /// An answer cut short or not in git's form (`.0`: the line). Nothing is read after it.
    Broken(String),
}

/// The most bytes of one answer's header: the name asked for and a word, or an id, a type and
/// a size.
pub(super) const HEADER_MOST: u64 = 4096 + 64;

/// Reads one header line from `out`, its line feed taken off; `Err` with what was read when
/// the line does not end (git's output ended, or the line is too long).
pub(super) fn header(out: &mut Stdout) -> std::result::Result<String, String> {
    let mut line = Vec::new();
    match (&mut *out).take(HEADER_MOST).read_until(b'\n', &mut line) {
        Ok(_) if line.last() == Some(&b'\n') => {
            line.pop();
            Ok(String::from_utf8_lossy(&line).into_owned())
        }
        _ => Err(String::from_utf8_lossy(&line).into_owned()),
    }
}

/// The job reading the answers for `names` (full object ids), up to `cap` bytes of objects in
/// all, handed over together once read: git writes each object on its own, and the calling
/// thread is woken once per exchange, not once per tree.
pub(super) fn objects_job(names: Vec<String>, cap: u64) -> Job<Reply> {
    Box::new(
        move |out: &mut Stdout, send: &mut dyn FnMut(Reply) -> bool| {
            let mut answers: Vec<(usize, Found)> = Vec::with_capacity(names.len());
            let mut used = 0u64;
            for (i, name) in names.iter().enumerate() {
                let (found, last) = object_answer(out, name, cap.saturating_sub(used));
                if let Found::Object { bytes, .. } = &found {
                    used += bytes.len() as u64;
                }
                answers.push((i, found));
                if last {
                    send(Reply::Objects(answers));
                    return false;
                }
            }
            send(Reply::Objects(answers))
        },
    )
}

/// The answer for `name` read from `out`, and whether it is the last that can be read (the
/// stream is out of step after it).
fn object_answer(out: &mut Stdout, name: &str, cap: u64) -> (Found, bool) {
    let head = match header(out) {
        Ok(head) => head,
        Err(line) => return (Found::Broken(line), true),
    };
    let fields: Vec<&str> = head.split(' ').collect();
    let [id, kind, size] = fields.as_slice() else {
        if head == format!("{name} missing") {
            return (Found::Missing, false);
        }
        return (Found::Other(head.clone()), false);
    };
    let Ok(size) = size.parse::<u64>() else {
        return (Found::Broken(head.clone()), true);
    };
    if id != &name {
        return (Found::Broken(head.clone()), true);
    }
    if size > cap {
        return (Found::TooLarge, true);
    }
    let Ok(len) = usize::try_from(size) else {
        return (Found::TooLarge, true);
    };
    let mut bytes = vec![0u8; len + 1];
    if out.read_exact(&mut bytes).is_err() || bytes.pop() != Some(b'\n') {
        return (Found::Broken(head.clone()), true);
    }
    let kind = (*kind).to_owned();
    (Found::Object { kind, bytes }, false)
}

/// How long a kept process going away with its source is given to end by itself.
const DROP_WAIT: Duration = Duration::from_secs(1);

/// How an exchange with the kept process ended, as its caller sees it.
pub(super) enum Heard {
    /// Every answer was read; the process is kept for the next exchange.
    Done,
    /// The caller's `on_item` stopped it; the process was ended.
    Stopped,
    /// The process was ended out of step or at a limit: how git ended.
    Ended(Outcome),
}

impl Git {
    /// One exchange with the source's kept `git cat-file --batch`, started first when there
    /// is none: `request` (one object name a line) written, `job` reading the answers, each
    /// reply handed to `on_item` in order. An exchange that does not leave the process in step
    /// ends it, and its outcome is settled as any git process's is (an unconfirmed group keeps
    /// the temporary repository and stops the source).
    pub(super) fn exchange(
        &mut self,
        request: Vec<u8>,
        job: Job<Reply>,
        what: &Step,
        on_item: &mut dyn FnMut(Reply) -> bool,
    ) -> Result<Heard> {
        let dir = self.dir()?;
        let remaining = self.limits.time.saturating_sub(self.spent);
        if remaining.is_zero() {
            return Err(self.limit_error(Cut::Time, what));
        }
        if self.conversation.is_none() {
            let (child, _, _) = self.spawn(
                &["cat-file", "--batch"],
                true,
                true,
                &[("GIT_NO_LAZY_FETCH", "1")],
                what,
            )?;
            self.conversation = Some(Session::new(child));
        }
        let Some(session) = self.conversation.as_mut() else {
            return Err(self.stop(GitProblem::Unwatched { step: what.clone() }));
        };
        let (exchange, spent, _busy) = session.ask(
            request,
            job,
            &dir,
            remaining,
            true,
            self.limits.repository,
            on_item,
        );
        let cut = match exchange {
            Exchange::Done => {
                self.spent += spent;
                return Ok(Heard::Done);
            }
            Exchange::Cut(cut) => Some(cut),
            Exchange::OutOfStep | Exchange::Stopped => None,
        };
        let Some(session) = self.conversation.take() else {
            return Err(self.stop(GitProblem::Unwatched { step: what.clone() }));
        };
        let group = session.group();
        let (outcome, confirmed) = session.kill(cut);
        let outcome = self.settle(group, &dir, outcome, confirmed, true, spent, what)?;
        if matches!(exchange, Exchange::Stopped) {
            return Ok(Heard::Stopped);
        }
        Ok(Heard::Ended(outcome))
    }

    /// Ends the kept process, if any, once a read is done: git's input closed and git waited
    /// for. A git that fails, or writes more than was asked of it, stops the source.
    pub(super) fn end_conversation(&mut self, what: &Step) -> Result<()> {
        let Some(session) = self.conversation.take() else {
            return Ok(());
        };
        let dir = self.dir()?;
        let remaining = self.limits.time.saturating_sub(self.spent);
        let group = session.group();
        let (outcome, confirmed, spent) = session.finish(remaining);
        match self.settle(group, &dir, outcome, confirmed, true, spent, what)? {
            Outcome::Ended(finished) if finished.status.success() => Ok(()),
            Outcome::Ended(finished) => Err(self.stop(GitProblem::Failed {
                step: what.clone(),
                failure: GitFailure::from_stderr(&finished.stderr, finished.status),
            })),
            Outcome::Cut(Cut::Output) => Err(self.malformed(what, "more than was asked for")),
            Outcome::Cut(cut) => Err(self.limit_error(cut, what)),
        }
    }

    /// Ends the kept process, if any, with nothing to report: the source is stopping or
    /// going away. A kept process is always between two exchanges, so closing its input ends
    /// it at once; killed only should it not end within [`DROP_WAIT`].
    pub(super) fn drop_conversation(&mut self) {
        if let Some(session) = self.conversation.take() {
            let group = session.group();
            drop(session.finish(DROP_WAIT));
            interrupt::forget_group(group);
        }
    }
}
