//! The refusal-test harness of `refusals` and `raw_refusals`: what a command must do on a broken
//! tree ([`Expect`], [`Says`]), a run of the binary bounded in time ([`bounded`]), the check
//! that it did it and wrote nothing ([`check_commands`]), and [`Table`], which runs every row of
//! a table and then fails once, listing every row that missed with what it expected and got.

use std::any::Any;
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Repo, Run};

// ---------------------------------------------------------------------------------------------
// Tables: every row runs, then one failure lists them all
// ---------------------------------------------------------------------------------------------

/// The rows of one table run so far, and the ones that missed.
///
/// A row is a closure returning `Err(what went wrong)`; a row that panics (a fixture edit whose
/// premise no longer holds, say) counts as failed too, and the next rows still run.
/// [`Table::finish`] then fails once, naming every failed row.
#[derive(Default)]
#[must_use = "a table checks nothing until `finish` is called"]
pub struct Table {
    rows: usize,
    failures: Vec<String>,
}

impl Table {
    /// Runs one row labelled `label`, keeping its failure for [`Table::finish`].
    pub fn row(&mut self, label: impl fmt::Display, run: impl FnOnce() -> Result<(), String>) {
        self.rows += 1;
        let outcome = panic::catch_unwind(AssertUnwindSafe(run))
            .unwrap_or_else(|payload| Err(format!("panicked: {}", panic_message(&*payload))));
        if let Err(problem) = outcome {
            self.failures.push(format!(
                "[{label}]\n    {}",
                problem.replace('\n', "\n    ")
            ));
        }
    }

    /// Fails, listing every row that missed, if any did; a table without rows fails too.
    pub fn finish(self) {
        assert!(self.rows > 0, "a table without rows checks nothing");
        assert!(
            self.failures.is_empty(),
            "{} of {} rows failed:\n{}",
            self.failures.len(),
            self.rows,
            self.failures.join("\n")
        );
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a panic without a message)".to_owned()
    }
}

/// `Ok` when `got == want`; else says `what` differed, with both values.
pub fn same<T: PartialEq + fmt::Debug>(what: &str, got: T, want: T) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}\n  want: {want:?}\n  got:  {got:?}"))
    }
}

/// `Ok` when `holds`; else `Err(what)`.
pub fn ensure(holds: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if holds { Ok(()) } else { Err(what()) }
}

// ---------------------------------------------------------------------------------------------
// What a command must do
// ---------------------------------------------------------------------------------------------

/// What the single stderr line of a refusal must say after `error: `.
#[derive(Clone, Debug)]
pub enum Says {
    /// The whole message, exactly.
    Exactly(String),
    /// A message whose middle is a parser's own wording (not ours to pin): it opens with
    /// `starts`, holds `contains` and closes with `ends`.
    Shaped {
        starts: String,
        contains: &'static str,
        ends: &'static str,
    },
    /// Only that it names the path (for refusals the binary does not make yet, whose wording
    /// is not ours to invent).
    AnyWording,
}

pub fn exactly(message: impl Into<String>) -> Says {
    Says::Exactly(message.into())
}

pub fn shaped(starts: impl Into<String>, contains: &'static str, ends: &'static str) -> Says {
    Says::Shaped {
        starts: starts.into(),
        contains,
        ends,
    }
}

/// What one command must do on a broken tree.
#[derive(Clone, Debug)]
pub enum Expect {
    /// The refusal contract of FORMATS.md: exit 2, nothing on stdout, exactly one stderr line
    /// `error: <message>` whose message names `path` and says `says`.
    Refuses { path: String, says: Says },
    /// Not a refusal: exit 1, empty stderr, and this line among the violations on stdout.
    Reports { line: String },
}

impl Expect {
    pub fn refuses(path: &str, says: Says) -> Expect {
        Expect::Refuses {
            path: path.to_owned(),
            says,
        }
    }

    pub fn reports(line: impl Into<String>) -> Expect {
        Expect::Reports { line: line.into() }
    }
}

impl fmt::Display for Expect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expect::Refuses { path, says } => {
                write!(
                    f,
                    "exit 2, no stdout, one line `error: <message>` naming {path:?}"
                )?;
                match says {
                    Says::Exactly(message) => write!(f, ", the message {message:?}"),
                    Says::Shaped {
                        starts,
                        contains,
                        ends,
                    } => write!(
                        f,
                        ", the message opening {starts:?}, holding {contains:?}, closing {ends:?}"
                    ),
                    Says::AnyWording => write!(f, " in any wording"),
                }
            }
            Expect::Reports { line } => {
                write!(
                    f,
                    "exit 1, nothing but hints on stderr, the stdout line {line:?}"
                )
            }
        }
    }
}

/// Checks one run; `Err` says the first way it missed.
pub fn check(expect: &Expect, run: &Run) -> Result<(), String> {
    match expect {
        Expect::Reports { line } => {
            if run.code != 1 {
                return Err(format!("exit {} (want 1)", run.code));
            }
            if run.stderr.lines().any(|l| !l.starts_with("hint: ")) {
                return Err("stderr must hold hints only".to_owned());
            }
            if !run.stdout.lines().any(|l| l == line) {
                return Err(format!("stdout lacks the line {line:?}"));
            }
            Ok(())
        }
        Expect::Refuses { path, says } => {
            if run.code != 2 {
                return Err(format!("exit {} (want 2)", run.code));
            }
            if !run.stdout.is_empty() {
                return Err("stdout must be empty".to_owned());
            }
            let Some(line) = run.stderr.strip_suffix('\n') else {
                return Err("stderr must be one line ending in LF".to_owned());
            };
            if line.contains('\n') {
                return Err("stderr must be exactly one line".to_owned());
            }
            let Some(message) = line.strip_prefix("error: ") else {
                return Err("stderr must open with `error: `".to_owned());
            };
            if !message.contains(path.as_str()) {
                return Err(format!("the message must name {path:?}"));
            }
            match says {
                Says::Exactly(want) if message != want => {
                    Err(format!("message\n  got:  {message}\n  want: {want}"))
                }
                Says::Shaped { starts, .. } if !message.starts_with(starts.as_str()) => {
                    Err(format!("the message must open with {starts:?}"))
                }
                Says::Shaped { contains, .. } if !message.contains(contains) => {
                    Err(format!("the message must hold {contains:?}"))
                }
                Says::Shaped { ends, .. } if !message.ends_with(ends) => {
                    Err(format!("the message must close with {ends:?}"))
                }
                _ => Ok(()),
            }
        }
    }
}

/// How a table runs the binary on a repository; `Err` when the run hung.
pub type Runner = fn(&Repo, &[&str]) -> Result<Run, String>;

/// The common helper: the real binary with `--root <repo>` appended, run from the repository.
pub fn plain(repo: &Repo, args: &[&str]) -> Result<Run, String> {
    Ok(repo.run(args))
}

/// Runs `commands` one after the other on `repo` with `runner`, each held to its [`Expect`]
/// and to writing nothing (the tree's snapshot is the same before and after); `Err` lists every
/// command that missed, with what it expected and what it got.
pub fn check_commands(
    repo: &Repo,
    runner: Runner,
    commands: &[(&str, &Expect)],
) -> Result<(), String> {
    let mut problems = Vec::new();
    for (command, expect) in commands {
        let before = repo.snapshot();
        match runner(repo, &[command]) {
            Ok(run) => {
                if let Err(e) = check(expect, &run) {
                    problems.push(format!("{command}: {e}\n  want: {expect}\n  got:  {run:?}"));
                }
            }
            Err(hung) => problems.push(format!("{command}: {hung}\n  want: {expect}")),
        }
        let after = repo.snapshot();
        if after != before {
            let changed: Vec<&String> = before
                .keys()
                .chain(after.keys())
                .filter(|k| before.get(*k) != after.get(*k))
                .collect();
            problems.push(format!("{command} wrote to the tree: {changed:?}"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// Runs `gen` and then `verify` on `repo`: both must refuse naming `path` and saying `says`,
/// and write nothing.
pub fn both_refuse(repo: &Repo, path: &str, says: &Says, runner: Runner) -> Result<(), String> {
    let expect = Expect::refuses(path, says.clone());
    check_commands(repo, runner, &[("gen", &expect), ("verify", &expect)])
}

// ---------------------------------------------------------------------------------------------
// Running the binary without hanging
// ---------------------------------------------------------------------------------------------

/// How long a run may take before it counts as hung. Generous for a loaded debug build; a
/// refusal takes milliseconds.
pub const HANG_LIMIT: Duration = Duration::from_secs(10);

/// Runs the binary like `Repo::run` (`--root <repo>` appended), but kills it (by its own pid)
/// if it outlives [`HANG_LIMIT`]: a named pipe opened for reading blocks until a writer comes,
/// so a test of a FIFO must not be able to hang the suite.
pub fn bounded(repo: &Repo, args: &[&str]) -> Result<Run, String> {
    let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    all.push("--root".into());
    all.push(repo.path().display().to_string());
    run_bounded(&all, None)
}

/// Runs the binary with exactly `args` (environment cleared, PATH kept, as `run_bin` does),
/// optionally feeding `stdin`, and kills it if it outlives [`HANG_LIMIT`] (`Err` then).
///
/// Unlike `common::run_bin`, a stdin the binary closed before reading is not a failure: a
/// command that refuses `--token-stdin` exits without reading, and writing to it then races
/// with its exit (EPIPE).
pub fn run_bounded(args: &[String], stdin: Option<&str>) -> Result<Run, String> {
    use std::io::Write;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentic-skill-vendor"));
    cmd.args(args).env_clear();
    if let Ok(path) = std::env::var("PATH") {
        cmd.env("PATH", path);
    }
    let mut child = cmd
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
        match pipe.write_all(input.as_bytes()) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
            Err(e) => panic!("writing stdin: {e}"),
        }
        // Dropping the pipe closes it, so a reader sees end of input.
    }
    let started = Instant::now();
    while child.try_wait().expect("try_wait").is_none() {
        if started.elapsed() > HANG_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "{args:?} still running after {HANG_LIMIT:?}: it blocked (on a named pipe?)"
            ));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let output = child.wait_with_output().expect("output");
    Ok(Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    })
}
