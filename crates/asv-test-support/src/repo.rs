//! Repositories the tests build: fixture trees copied to a temporary directory, the real
//! binary run on them, and snapshots of a tree to prove nothing was written.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A temporary repository the binary runs on.
pub struct Repo {
    dir: tempfile::TempDir,
}

/// What one run of the binary printed and returned.
#[derive(Debug, PartialEq, Eq)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Repo {
    /// An empty repository.
    pub fn empty() -> Self {
        Repo {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    /// A copy of `tests/fixtures/<name>`.
    pub fn fixture(name: &str) -> Self {
        let repo = Repo::empty();
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../agentic-skill-vendor/tests/fixtures")
            .join(name);
        copy_dir(&src, repo.path());
        repo
    }

    /// A copy of the demo repository in `examples/demo`.
    pub fn demo() -> Self {
        let repo = Repo::empty();
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/demo");
        copy_dir(&src, repo.path());
        repo
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn join(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes a file, creating its parents.
    pub fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) {
        let p = self.join(rel);
        fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        fs::write(p, bytes).expect("write");
    }

    pub fn read(&self, rel: &str) -> Vec<u8> {
        fs::read(self.join(rel)).expect("read")
    }

    pub fn read_string(&self, rel: &str) -> String {
        String::from_utf8(self.read(rel)).expect("utf-8")
    }

    pub fn exists(&self, rel: &str) -> bool {
        fs::symlink_metadata(self.join(rel)).is_ok()
    }

    pub fn remove(&self, rel: &str) {
        let p = self.join(rel);
        if fs::symlink_metadata(&p)
            .map(|m| m.is_dir())
            .unwrap_or(false)
        {
            fs::remove_dir_all(p).expect("rm -r");
        } else {
            fs::remove_file(p).expect("rm");
        }
    }

    /// Creates a symlink at `rel` pointing at `target` (as written).
    pub fn symlink(&self, target: &str, rel: &str) {
        let p = self.join(rel);
        fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::os::unix::fs::symlink(target, p).expect("symlink");
    }

    /// Creates a named pipe at `rel`.
    pub fn fifo(&self, rel: &str) {
        let p = self.join(rel);
        fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        let status = Command::new("mkfifo").arg(&p).status().expect("mkfifo");
        assert!(status.success());
    }

    /// Runs the binary with `args` and `--root <this repo>`, from the repository's root (as a
    /// user in the repository does: paths typed in `args` are read from there).
    pub fn run(&self, args: &[&str]) -> Run {
        self.run_from("", args)
    }

    /// Runs the binary with `args` and `--root <this repo>` from the directory `rel` of the
    /// repository (`""` for its root).
    pub fn run_from(&self, rel: &str, args: &[&str]) -> Run {
        let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        all.push("--root".into());
        all.push(self.path().display().to_string());
        run_bin_in(&all, None, Some(&self.join(rel)))
    }

    /// Waits until a tree change has begun in this repository (its journal stands in the
    /// tool's state directory), for at most `limit`; panics naming `what` past it.
    pub fn wait_for_journal(&self, limit: std::time::Duration, what: &str) {
        let started = std::time::Instant::now();
        while !fs::read_dir(self.join(asv_fs::STATE_DIR)).is_ok_and(|mut dir| {
            dir.any(|e| e.is_ok_and(|e| asv_fs::is_journal_name(&e.file_name().to_string_lossy())))
        }) {
            assert!(started.elapsed() < limit, "{what} never began its change");
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
    }

    /// Every file (and link, and empty directory) below the root with its bytes or target.
    pub fn snapshot(&self) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        snap(self.path(), "", &mut out);
        out
    }
}

fn snap(dir: &Path, rel: &str, out: &mut BTreeMap<String, String>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| e.expect("entry"))
        .collect();
    entries.sort_by_key(|e| e.file_name());
    if entries.is_empty() && !rel.is_empty() {
        out.insert(format!("{rel}/"), "(empty dir)".into());
    }
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let r = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        let ft = e.file_type().expect("type");
        if ft.is_symlink() {
            out.insert(
                r,
                format!("-> {}", fs::read_link(e.path()).expect("link").display()),
            );
        } else if ft.is_dir() {
            snap(&e.path(), &r, out);
        } else if ft.is_file() {
            out.insert(
                r,
                String::from_utf8_lossy(&fs::read(e.path()).expect("read")).into_owned(),
            );
        } else {
            out.insert(r, "(special)".into());
        }
    }
}

fn copy_dir(src: &Path, dst: &Path) {
    fs::create_dir_all(dst).expect("mkdir");
    for e in fs::read_dir(src).expect("read fixture") {
        let e = e.expect("entry");
        let to = dst.join(e.file_name());
        if e.file_type().expect("type").is_dir() {
            copy_dir(&e.path(), &to);
        } else {
            fs::copy(e.path(), &to).expect("copy");
        }
    }
}

/// The binary under test: `agentic-skill-vendor` beside the test executable's `deps/`
/// directory, where cargo builds it for a crate's integration tests (as `assert_cmd` finds
/// it; `CARGO_BIN_EXE_*` is only set for the binary crate's own tests).
pub fn bin() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable");
    let mut dir = exe.parent().expect("its directory").to_path_buf();
    if dir.ends_with("deps") {
        dir.pop();
    }
    dir.join(format!(
        "agentic-skill-vendor{}",
        std::env::consts::EXE_SUFFIX
    ))
}

/// The stamp cache directory every run of the binary is given (`ASV_CACHE_DIR`): one per test
/// process (nextest runs each test in its own), under the system's temporary directory, so
/// never inside a test's repository (whole-tree snapshots stay as they were) and never the
/// user's own `~/.cache`. Left behind by a process, so each new one first removes those of
/// processes no longer running (where `/proc` tells). A test may name another in `env`.
pub fn test_cache_dir() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let parent = std::env::temp_dir().join("asv-test-cache");
        if Path::new("/proc/self").exists()
            && let Ok(entries) = fs::read_dir(&parent)
        {
            for e in entries.flatten() {
                let name = e.file_name();
                let pid = name.to_str().and_then(|n| n.parse::<u32>().ok());
                if let Some(pid) = pid
                    && !Path::new(&format!("/proc/{pid}")).exists()
                {
                    let _ = fs::remove_dir_all(e.path());
                }
            }
        }
        let dir = parent.join(std::process::id().to_string());
        fs::create_dir_all(&dir).expect("test cache directory");
        dir
    })
    .clone()
}

/// Runs the binary with exactly `args`, a cleared environment (PATH kept) and optional stdin.
pub fn run_bin(args: &[String], stdin: Option<&str>) -> Run {
    run_bin_in(args, stdin, None)
}

/// [`run_bin`] from the directory `cwd` (the test's own when `None`).
pub fn run_bin_in(args: &[String], stdin: Option<&str>, cwd: Option<&Path>) -> Run {
    run_bin_env(args, stdin, cwd, &[])
}

/// [`run_bin_in`] with the variables `env` set in the cleared environment.
pub fn run_bin_env(
    args: &[String],
    stdin: Option<&str>,
    cwd: Option<&Path>,
    env: &[(&str, &str)],
) -> Run {
    let mut cmd = Command::new(bin());
    cmd.args(args).env_clear();
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    if let Ok(path) = std::env::var("PATH") {
        cmd.env("PATH", path);
    }
    cmd.env("ASV_CACHE_DIR", test_cache_dir());
    cmd.envs(env.iter().copied());
    let output = match stdin {
        None => cmd
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run"),
        Some(input) => {
            use std::io::Write;
            cmd.stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            let mut child = cmd.spawn().expect("spawn");
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(input.as_bytes())
                .expect("stdin");
            child.wait_with_output().expect("wait")
        }
    };
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// A skill's SKILL.md declaring `ids`.
pub fn skill_md(name: &str, ids: &[&str]) -> String {
    if ids.is_empty() {
        return format!("---\nname: {name}\ndescription: test skill {name}\n---\n\nBody\n");
    }
    let mut s =
        format!("---\nname: {name}\ndescription: test skill {name}\nmetadata:\n  contracts:\n");
    for id in ids {
        s.push_str(&format!("    - {id}\n"));
    }
    s.push_str("---\n\nBody\n");
    s
}

/// The what-to-do lines a contract command prints on stderr (text mode) after violations of
/// `kinds`, in that order: exactly what a user reads.
pub fn hints(kinds: &[&str]) -> String {
    kinds
        .iter()
        .map(|kind| {
            let hint = match *kind {
                "closure" => "write each missing canonical text at the path named, or take the id out of metadata.contracts in the SKILL.md files named; then run gen",
                "drift" => "a copy was edited or is out of date; run gen to write it again from its canonical text (edit the canonical text, never the copy)",
                "extra" => "delete each file named, or declare its contract under metadata.contracts in that skill's SKILL.md and run gen",
                "lock" => "run gen to write vendor-lock.json from the declarations and canonical texts, then commit it with them",
                "conformance-mismatch" => "the contract's conformance tests changed; run gen to record their digest",
                other => panic!("no hint for {other}"),
            };
            format!("hint: {kind}: {hint}\n")
        })
        .collect()
}

/// A run of a contract command that exits 1 with the violation lines `stdout`, and on stderr
/// the hint of each kind among them that has one, once, in the order the kinds first appear.
pub fn violations(stdout: &str) -> Run {
    const HINTED: [&str; 5] = ["closure", "drift", "extra", "lock", "conformance-mismatch"];
    let mut kinds: Vec<&str> = Vec::new();
    for line in stdout.lines() {
        let kind = line.split(':').next().unwrap_or("");
        if HINTED.contains(&kind) && !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    Run {
        code: 1,
        stdout: stdout.to_owned(),
        stderr: hints(&kinds),
    }
}

/// A run that exits 0, prints `stdout` and nothing on stderr.
pub fn ok(stdout: &str) -> Run {
    Run {
        code: 0,
        stdout: stdout.to_owned(),
        stderr: String::new(),
    }
}

/// `text` quoted for `/bin/sh`.
pub fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// What a terminal showed while the binary ran with `args` under a pseudo-terminal (util-linux
/// `script`), through `/bin/sh` so that `redirect` (`> out.txt`, `2> err.txt`, or `""`) can send
/// a stream elsewhere: the exit code and the text, its CRLF line ends turned back into LF. The
/// environment is cleared but for PATH and `env`. `None` when `script` is not installed.
pub fn run_in_terminal(
    args: &[&str],
    redirect: &str,
    env: &[(&str, &str)],
) -> Option<(i32, String)> {
    let script = std::env::var("PATH")
        .unwrap_or_default()
        .split(':')
        .map(|dir| Path::new(dir).join("script"))
        .find(|p| p.is_file())?;
    let mut line = sh_quote(&bin().display().to_string());
    for arg in args {
        line.push(' ');
        line.push_str(&sh_quote(arg));
    }
    line.push(' ');
    line.push_str(redirect);
    let mut cmd = Command::new(script);
    cmd.args(["-qec", &line, "/dev/null"])
        .env_clear()
        .env("ASV_CACHE_DIR", test_cache_dir())
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null());
    if let Ok(path) = std::env::var("PATH") {
        cmd.env("PATH", path);
    }
    let out = cmd.output().expect("script runs");
    let text = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    Some((out.status.code().unwrap_or(-1), text))
}

/// `text` without its ANSI colour sequences (`ESC [ … m`).
pub fn strip_colour(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\u{1b}[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        match after.find('m') {
            Some(end) => rest = &after[end + 1..],
            None => {
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Every entry below `dir` (as `rel/...`) with its bytes; a link as its target, a directory
/// as an empty value, so a removed empty directory shows too: what a hostile state file must
/// leave exactly as it was.
pub fn tree_bytes(dir: &Path, rel: &str, out: &mut BTreeMap<String, Vec<u8>>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    out.insert(format!("{rel}/"), Vec::new());
    for e in entries {
        let e = e.expect("entry");
        let r = format!("{rel}/{}", e.file_name().to_string_lossy());
        let ft = e.file_type().expect("file type");
        if ft.is_symlink() {
            let target = fs::read_link(e.path()).expect("link");
            out.insert(r, format!("-> {}", target.display()).into_bytes());
        } else if ft.is_dir() {
            tree_bytes(&e.path(), &r, out);
        } else {
            out.insert(r, fs::read(e.path()).expect("read"));
        }
    }
}

/// What python3 runs to give the binary a pseudo-terminal for stderr alone (or, for the
/// comparison, a pipe): stdout always goes to a file, so the report and what a person sees
/// on the terminal are told apart. The terminal is 100 columns wide, and what the binary
/// draws on it is read as it comes, so a long drawing never blocks the binary.
const PTY_RUNNER: &str = r#"
import fcntl, os, pty, struct, subprocess, sys, termios
mode, out_path, args = sys.argv[1], sys.argv[2], sys.argv[3:]
out = open(out_path, "wb")
if mode == "pty":
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    p.wait()
else:
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.PIPE)
    seen = p.communicate()[1]
sys.stdout.buffer.write(seen)
sys.exit(p.returncode)
"#;

/// Runs the binary with `args` and the variables `env` (in an environment cleared but for
/// PATH) with its stderr on a pseudo-terminal when `terminal`, else on a pipe, through
/// python3's `pty` module; stdin is empty. The [`Run`]'s stderr is every byte the terminal
/// (or pipe) received, escape sequences and all, its stdout the report.
pub fn run_with_stderr_on(terminal: bool, args: &[&str], env: &[(&str, &str)]) -> Run {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out_path = dir.path().join("stdout");
    let mut cmd = Command::new("python3");
    cmd.arg("-c")
        .arg(PTY_RUNNER)
        .arg(if terminal { "pty" } else { "pipe" })
        .arg(&out_path)
        .arg(bin())
        .args(args)
        .env_clear()
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null());
    if let Ok(path) = std::env::var("PATH") {
        cmd.env("PATH", path);
    }
    let output = cmd.output().expect("python3 runs");
    assert!(
        output.status.code().is_some(),
        "python3 was killed: {output:?}"
    );
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&fs::read(&out_path).expect("stdout file")).into_owned(),
        stderr: String::from_utf8_lossy(&output.stdout).into_owned(),
    }
}

/// `text` as the skill commands' text output shows it: every whole commit id (40 or 64 hex
/// digits standing alone, or after `sha256:`) cut to its first twelve digits. An expectation
/// built from the whole ids a lock holds is passed through this to compare with a text line.
pub fn short_ids(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        if run.len() == 40 || run.len() == 64 {
            out.push_str(&run[..12]);
        } else {
            out.push_str(run);
        }
        run.clear();
    };
    let mut before_run = None;
    for c in text.chars() {
        if c.is_ascii_digit() || ('a'..='f').contains(&c) {
            if run.is_empty() {
                before_run = out.chars().last();
            }
            run.push(c);
            continue;
        }
        // A run glued to a letter or digit is part of a longer word, not an id.
        if c.is_ascii_alphanumeric() || before_run.is_some_and(|b: char| b.is_ascii_alphanumeric())
        {
            out.push_str(&run);
            run.clear();
        } else {
            flush(&mut run, &mut out);
        }
        out.push(c);
    }
    if before_run.is_some_and(|b: char| b.is_ascii_alphanumeric()) {
        out.push_str(&run);
    } else {
        flush(&mut run, &mut out);
    }
    out
}
