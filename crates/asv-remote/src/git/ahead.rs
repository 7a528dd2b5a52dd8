//! A branch fetched while its name is looked up.
//!
//! Resolving a name costs a `git ls-remote`, then a `git fetch` of the commit it names: two
//! conversations with the server, one after the other, where `git clone` holds one. Over
//! HTTPS each is a TLS handshake and a capability request before any work, and the second
//! was a third of a `skill add --all` (issue 30 §2). So the first lookup of a source that has
//! no repository yet starts, beside its `git ls-remote`, a fetch of `refs/heads/<name>` into a
//! new SHA-1 repository: most names given are branches. Asked for its default branch first,
//! the source fetches what `HEAD` names instead, from then until the branch's lookup ends.
//! Anything else that needs the repository while such a fetch runs stops it first. The lookup alone decides what the name
//! means, exactly as before; the fetch only saves the wait when it brought that very commit.
//!
//! The fetch is a git process like any other: in its own process group, watched on a thread
//! of its own against the time left and the repository limit while the lookup runs. Its time
//! counts in the source's as the fetch's when it is used; when it is not, only the wait for it
//! after the lookup counts, so the fetch that follows has the time it would have had. It is used only when it succeeded, the repository is SHA-1, the
//! lookup named a commit, `FETCH_HEAD` names that same commit, and no other object is to be
//! fetched beside it (a tag's object for a signature check). In every other case — a tag, a
//! short id, a name that is no ref, a branch that moved in between, a SHA-256 repository, a
//! limit reached, a failed lookup — it is stopped if it still runs (once the lookup shows the
//! branch is not the answer, it is not waited for), its repository is removed whole, and the
//! source goes on exactly as it would have without it: the fetch that follows finds what it always found,
//! and hits the same limits with the same words. A group that cannot be confirmed stopped
//! keeps the directory, as for any git process.

use std::path::PathBuf;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use asv_model::source::ObjectFormat;

use super::{Git, REPOSITORY, SMALL_LIMIT, State, shallow_fetch, write_repository};
use crate::Result;
use crate::error::{GitProblem, Step};
use crate::ids::is_hex_id;
use crate::interrupt;
use crate::process::{Outcome, become_subreaper, supervise};

/// What the watching thread hands back once the process is reaped: how it ended, whether its
/// group is confirmed gone, and how long it ran.
type Watched = (Option<Outcome>, bool, Duration);

/// A fetch started ahead of the lookup of its branch.
pub(super) struct Ahead {
    /// The branch's name.
    branch: String,
    /// The process group (the process's own id).
    group: u32,
    /// The thread watching it.
    watch: JoinHandle<Watched>,
}

impl std::fmt::Debug for Ahead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ahead")
            .field("branch", &self.branch)
            .field("group", &self.group)
            .finish_non_exhaustive()
    }
}

impl Git {
    /// Starts fetching `refs/heads/<reference>` beside its lookup, when this source has no
    /// repository yet, reads over a network (a repository read in place needs no fetch), and
    /// was told of no other commit to fetch with it. Nothing happens otherwise, nor when the
    /// process cannot be started: the lookup and its fetch go on as before.
    pub(super) fn start_ahead(&mut self, reference: &str) {
        // A name the tag list already showed to be a tag (a version range's pick) is no
        // branch worth a guess.
        if matches!(self.tag_refs.get(reference), Some(Some(_))) {
            return;
        }
        self.start_ahead_of(&format!("refs/heads/{reference}"), reference);
    }

    /// As [`Git::start_ahead`], for the branch `HEAD` names, while that name is asked for
    /// ([`Transport::default_branch`](crate::Transport::default_branch), which a lookup of the
    /// branch always follows).
    pub(super) fn start_ahead_of_head(&mut self) {
        self.start_ahead_of("HEAD", "HEAD");
    }

    /// Starts fetching `refspec` (the ref `label` names) ahead, as [`Git::start_ahead`] says.
    fn start_ahead_of(&mut self, refspec: &str, label: &str) {
        if self.ahead.is_some()
            || self.borrow.is_some()
            || !self.hinted.is_empty()
            || !matches!(self.state, State::Ready { format: None, .. })
        {
            return;
        }
        // Made here rather than by `repository`, and started here rather than by `spawn`:
        // both stop the source on a failure, and a failure here must change nothing — the
        // lookup and the fetch meet it again and say it in their own words.
        let Ok(dir) = self.dir() else {
            return;
        };
        let remaining = self.limits.time.saturating_sub(self.spent);
        if remaining.is_zero() {
            return;
        }
        let repository = dir.join(REPOSITORY);
        if write_repository(&repository, ObjectFormat::Sha1, &self.url).is_err() {
            self.forget_repository();
            return;
        }
        if let State::Ready { format, .. } = &mut self.state {
            *format = Some(ObjectFormat::Sha1);
        }
        let args = shallow_fetch(refspec);
        let mut command = self.command(&dir, true);
        command.args(args);
        become_subreaper();
        let Ok(mut child) = interrupt::spawn(&mut command) else {
            self.forget_repository();
            return;
        };
        self.last_group = Some(child.id());
        let (cap, limit) = (SMALL_LIMIT, self.limits.repository);
        let group = child.id();
        let watch = std::thread::spawn(move || {
            let started = Instant::now();
            let (outcome, confirmed) = supervise(&mut child, &dir, remaining, cap, true, limit);
            (outcome, confirmed, started.elapsed())
        });
        self.ahead = Some(Ahead {
            branch: label.to_owned(),
            group,
            watch,
        });
    }

    /// Ends the fetch started ahead, if any, once the lookup is done: `revision` the commit the
    /// lookup named (`None` when it named none, or failed). Keeps what it fetched only when
    /// that is `revision` and nothing else is to be fetched with it (see the module); else
    /// removes its repository, so the source stands as if it had never started.
    ///
    /// # Errors
    /// A process group that cannot be confirmed stopped (the source keeps its directory, as
    /// for any git process); a repository that cannot be removed.
    pub(super) fn finish_ahead(&mut self, revision: Option<&str>) -> Result<()> {
        let Some(ahead) = self.ahead.take() else {
            return Ok(());
        };
        // Not needed once the lookup named no commit: stopped rather than waited for. (Only
        // while its watch still runs: once that has reaped it, the id is no longer its.)
        if revision.is_none() && !ahead.watch.is_finished() {
            crate::platform::kill_group_id(ahead.group);
        }
        let branch = ahead.branch.clone();
        let waiting = Instant::now();
        let (outcome, confirmed, ran) = match ahead.watch.join() {
            Ok(watched) => watched,
            Err(_) => (None, false, Duration::ZERO),
        };
        // Its time counts as a fetch's when it is the fetch; when it is not, only the wait for
        // it here, after the lookup (the rest ran beside the lookup, whose time is counted), so
        // the fetch that follows has the time it had before.
        let waited = waiting.elapsed();
        if !confirmed {
            self.spent += ran;
            return Err(self.retain(ahead.group, &Step::FetchAhead { branch }, None));
        }
        interrupt::forget_group(ahead.group);
        if let (Some(revision), Some(Outcome::Ended(finished))) = (revision, &outcome)
            && finished.status.success()
            && is_hex_id(revision, ObjectFormat::Sha1.hex_len())
            && self.hinted.is_empty()
            && self.fetched_head().as_deref() == Some(revision)
        {
            self.spent += ran;
            self.note_filter(&finished.stderr);
            self.present.push(revision.to_owned());
            return Ok(());
        }
        self.spent += waited;
        self.discard_repository()
    }

    /// Ends the fetch started ahead because the source stops or goes: its group killed and
    /// waited for. When it could not be confirmed gone (the directory must then be kept): its
    /// group, and the step to name.
    pub(super) fn drop_ahead(&mut self) -> Option<(u32, Step)> {
        let ahead = self.ahead.take()?;
        if !ahead.watch.is_finished() {
            crate::platform::kill_group_id(ahead.group);
        }
        let waiting = Instant::now();
        let confirmed = matches!(ahead.watch.join(), Ok((_, true, _)));
        self.spent += waiting.elapsed();
        if confirmed {
            interrupt::forget_group(ahead.group);
            None
        } else {
            let step = Step::FetchAhead {
                branch: ahead.branch,
            };
            Some((ahead.group, step))
        }
    }

    /// The commit `FETCH_HEAD` names first, if it names one.
    // The source's own temporary repository, written by the fetch just ended.
    #[allow(clippy::disallowed_methods)]
    fn fetched_head(&self) -> Option<String> {
        let repository = self.dir().ok()?.join(REPOSITORY);
        let text = std::fs::read_to_string(repository.join("FETCH_HEAD")).ok()?;
        let id = text.lines().next()?.split('\t').next()?;
        is_hex_id(id, ObjectFormat::Sha1.hex_len()).then(|| id.to_owned())
    }

    /// Removes what [`Git::start_ahead`] made of a repository it could not start a fetch in,
    /// as far as it can, and takes it for never made: nothing here stops the source (the next
    /// fetch writes the repository again, over anything left).
    // The source's own temporary repository, nothing of a user's.
    #[allow(clippy::disallowed_methods)]
    fn forget_repository(&mut self) {
        if let Ok(dir) = self.dir() {
            let _ = std::fs::remove_dir_all(dir.join(REPOSITORY));
        }
        if let State::Ready { format, .. } = &mut self.state {
            *format = None;
        }
    }

    /// Removes the repository the fetch ahead made, so the next fetch creates it anew in the
    /// format the lookup found.
    // The source's own temporary repository, nothing of a user's.
    #[allow(clippy::disallowed_methods)]
    fn discard_repository(&mut self) -> Result<()> {
        let dir: PathBuf = self.dir()?;
        let repository = dir.join(REPOSITORY);
        let removed = match std::fs::remove_dir_all(&repository) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            other => other,
        };
        if let Err(error) = removed {
            return Err(self.stop(GitProblem::Repository {
                dir,
                error: error.kind(),
            }));
        }
        if let State::Ready { format, .. } = &mut self.state {
            *format = None;
        }
        Ok(())
    }
}
