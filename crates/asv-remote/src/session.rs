//! A git process kept for several exchanges (issue 30 §2, fourth step).
//!
//! A `git cat-file --batch` answers one object per line of its input, in order, for as long as
//! its input stays open. Kept running, one such process answers what a read of a commit needs
//! in turn: the commit, the trees under it, the files. Each process git starts costs several
//! milliseconds before it answers anything, so one process where there were three matters.
//!
//! A [`Session`] is that process and three threads: a writer that feeds git's standard input
//! (so a request is never written by the thread that waits for its answers: with both pipes
//! full, git and this process would wait on each other), a reader that owns git's standard
//! output and runs each exchange's reading job over it, and one that keeps git's standard
//! error. An exchange ([`Session::ask`]) is watched as a process run once is (`process`): the
//! time left to the source, the size of the temporary repository, and the group killed at a
//! limit. A job that did not read exactly the answers it asked for leaves the stream out of
//! step; such a session is ended, never asked again.

use std::io::{BufReader, Read as _, Write as _};
use std::path::Path;
use std::process::{Child, ChildStdout};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::platform;
use crate::process::{Cut, Finished, GRACE, NAP, Outcome, SIZE_EVERY, collect_stderr, dir_size};

/// git's standard output as a job reads it.
pub(crate) type Stdout = BufReader<ChildStdout>;

/// One exchange's reading: given git's output and where to hand each item (`false` back when
/// nobody listens any more), it reads the answers to what was asked and says whether it read
/// exactly those (the stream is still in step for the next exchange).
pub(crate) type Job<T> = Box<dyn FnOnce(&mut Stdout, &mut dyn FnMut(T) -> bool) -> bool + Send>;

/// What the reader thread tells the session.
enum Event<T> {
    /// One item a job made.
    Item(T),
    /// The job is done; whether the stream is still in step.
    Done(bool),
    /// No job is left: whether git wrote nothing more before its output ended.
    Quiet(bool),
}

/// How one exchange ended.
pub(crate) enum Exchange {
    /// The job read its answers; the session can be asked again.
    Done,
    /// The job read its answers, or stopped, and the stream is out of step (an answer git
    /// cut short, an odd one, a refusal from a header): the session must be ended.
    OutOfStep,
    /// The caller's `on_item` asked to stop: the session must be ended.
    Stopped,
    /// A limit was reached: the session must be ended.
    Cut(Cut),
}

/// A running `git cat-file --batch` kept for several exchanges.
pub(crate) struct Session<T> {
    child: Child,
    /// Requests for the writer thread; dropped to close git's standard input.
    input: Option<mpsc::Sender<Vec<u8>>>,
    /// Jobs for the reader thread; dropped to end it.
    jobs: Option<mpsc::Sender<Job<T>>>,
    events: mpsc::Receiver<Event<T>>,
    stderr: mpsc::Receiver<Vec<u8>>,
    /// Whether the session was ended (its group killed and reaped).
    ended: bool,
}

impl<T: Send + 'static> Session<T> {
    /// Takes over `child` (started in a process group of its own, its three standard streams
    /// piped).
    pub(crate) fn new(mut child: Child) -> Session<T> {
        let (input, requests) = mpsc::channel::<Vec<u8>>();
        if let Some(mut stdin) = child.stdin.take() {
            std::thread::spawn(move || {
                for request in requests {
                    // A write to a git that ended fails; the reader then sees its output end.
                    if stdin.write_all(&request).is_err() {
                        break;
                    }
                }
            });
        }
        let (jobs, queued) = mpsc::channel::<Job<T>>();
        // A few items in flight: git waits on a full pipe while the caller handles them.
        let (tx, events) = mpsc::sync_channel::<Event<T>>(4);
        if let Some(stdout) = child.stdout.take() {
            std::thread::spawn(move || {
                let mut out = BufReader::with_capacity(64 * 1024, stdout);
                for job in queued {
                    let mut send = |item: T| tx.send(Event::Item(item)).is_ok();
                    let in_step = job(&mut out, &mut send);
                    if tx.send(Event::Done(in_step)).is_err() {
                        return;
                    }
                }
                // Nothing may follow the last answer asked for.
                let mut more = [0u8; 1];
                let quiet = !matches!(out.read(&mut more), Ok(n) if n > 0);
                let _ = tx.send(Event::Quiet(quiet));
            });
        }
        let (err_tx, stderr) = mpsc::channel();
        if let Some(err) = child.stderr.take() {
            collect_stderr(err, err_tx);
        }
        Session {
            child,
            input: Some(input),
            jobs: Some(jobs),
            events,
            stderr,
            ended: false,
        }
    }

    /// The process group's id (git's pid).
    pub(crate) fn group(&self) -> u32 {
        self.child.id()
    }

    /// One exchange: `request` written to git, `job` reading the answers, each item handed to
    /// `on_item` on this thread in order (`false` back to stop). Watched against `remaining`
    /// (git's time only: what `on_item` takes is not counted) and, when `watch`, the size of
    /// `dir` against `repository_limit`. Returns how it ended, git's time and the time
    /// `on_item` took.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn ask(
        &mut self,
        request: Vec<u8>,
        job: Job<T>,
        dir: &Path,
        remaining: Duration,
        watch: bool,
        repository_limit: u64,
        on_item: &mut dyn FnMut(T) -> bool,
    ) -> (Exchange, Duration, Duration) {
        let started = Instant::now();
        let queued = self
            .jobs
            .as_ref()
            .is_some_and(|jobs| jobs.send(job).is_ok());
        let written = self
            .input
            .as_ref()
            .is_some_and(|input| input.send(request).is_ok());
        if !queued || !written {
            return (Exchange::OutOfStep, started.elapsed(), Duration::ZERO);
        }
        let mut busy = Duration::ZERO;
        let mut measured = Instant::now();
        let exchange = loop {
            let elapsed = started.elapsed().saturating_sub(busy);
            if elapsed >= remaining {
                break Exchange::Cut(Cut::Time);
            }
            if watch && measured.elapsed() >= SIZE_EVERY {
                measured = Instant::now();
                if dir_size(dir) > repository_limit {
                    break Exchange::Cut(Cut::Repository);
                }
            }
            let mut nap = NAP.min(remaining - elapsed);
            if watch {
                nap = nap.min(SIZE_EVERY.saturating_sub(measured.elapsed()));
            }
            match self.events.recv_timeout(nap.max(Duration::from_millis(1))) {
                Ok(Event::Item(item)) => {
                    let at = Instant::now();
                    let go_on = on_item(item);
                    busy += at.elapsed();
                    if !go_on {
                        break Exchange::Stopped;
                    }
                }
                Ok(Event::Done(true)) => break Exchange::Done,
                Ok(Event::Done(false) | Event::Quiet(_))
                | Err(mpsc::RecvTimeoutError::Disconnected) => break Exchange::OutOfStep,
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
        };
        let spent = started.elapsed().saturating_sub(busy);
        (exchange, spent, busy)
    }

    /// Ends the session when its last exchange is done: git's input closed, git given up to
    /// `remaining` to end by itself, then its group killed and reaped. Returns how git ended
    /// (an output past the last answer is [`Cut::Output`]), whether the group was confirmed
    /// gone, and the time taken.
    pub(crate) fn finish(mut self, remaining: Duration) -> (Option<Outcome>, bool, Duration) {
        let started = Instant::now();
        self.input = None;
        self.jobs = None;
        let mut quiet = None;
        let mut cut = None;
        loop {
            let elapsed = started.elapsed();
            if elapsed >= remaining {
                cut = Some(Cut::Time);
                break;
            }
            match self.events.recv_timeout(NAP.min(remaining - elapsed)) {
                Ok(Event::Quiet(q)) => {
                    quiet = Some(q);
                    break;
                }
                Ok(_) | Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        // Git's output ended: git is ending, or has.
        let pid = self.child.id();
        let (ended_tx, ended_rx) = mpsc::channel::<()>();
        std::thread::spawn(move || {
            platform::wait_ended(pid);
            let _ = ended_tx.send(());
        });
        if cut.is_none() && !matches!(platform::has_ended(&mut self.child), Ok(true)) {
            let left = remaining.saturating_sub(started.elapsed());
            if ended_rx.recv_timeout(left).is_err()
                && !matches!(platform::has_ended(&mut self.child), Ok(true))
            {
                cut = Some(Cut::Time);
            }
        }
        let (outcome, confirmed) = self.reap(cut);
        let outcome = match (outcome, quiet) {
            (Some(Outcome::Ended(finished)), Some(false)) if finished.status.success() => {
                Some(Outcome::Cut(Cut::Output))
            }
            (outcome, _) => outcome,
        };
        (outcome, confirmed, started.elapsed())
    }

    /// Ends the session at once (a limit, a refusal, a caller that stopped): its group killed
    /// and reaped. Returns how git ended (`cut` when a limit is why) and whether the group
    /// was confirmed gone.
    pub(crate) fn kill(mut self, cut: Option<Cut>) -> (Option<Outcome>, bool) {
        self.reap(cut)
    }

    /// Kills the group, reaps git and collects its standard error.
    fn reap(&mut self, cut: Option<Cut>) -> (Option<Outcome>, bool) {
        self.input = None;
        self.jobs = None;
        platform::kill_group(&mut self.child);
        self.ended = true;
        let deadline = Instant::now() + GRACE;
        let status = crate::process::reap_by(&mut self.child, deadline);
        let mut confirmed = status.is_some() && platform::group_gone(&self.child, deadline);
        // Nobody listens any more: a reader blocked on a full channel ends. Its end is seen
        // by the sender side going away.
        let (_, dead) = mpsc::sync_channel::<Event<T>>(0);
        let events = std::mem::replace(&mut self.events, dead);
        drop(events);
        let stderr = self
            .stderr
            .recv_timeout(deadline.saturating_duration_since(Instant::now()));
        if stderr.is_err() {
            confirmed = false;
        }
        if let Some(cut) = cut {
            return (Some(Outcome::Cut(cut)), confirmed);
        }
        match status {
            Some(status) => (
                Some(Outcome::Ended(Finished {
                    status,
                    stdout: Vec::new(),
                    stderr: stderr.unwrap_or_default(),
                })),
                confirmed,
            ),
            None => (None, confirmed),
        }
    }
}

impl<T> Drop for Session<T> {
    /// A session nobody ended (its source dropped, or stopped) is killed and reaped, best
    /// effort: nothing is left to report to.
    fn drop(&mut self) {
        if self.ended {
            return;
        }
        self.input = None;
        self.jobs = None;
        platform::kill_group(&mut self.child);
        let _ = crate::process::reap_by(&mut self.child, Instant::now() + GRACE);
    }
}
