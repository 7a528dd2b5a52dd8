//! `asv-bench git`: the skill commands over git beside git itself (issue 30 §2–3).
//!
//! An upstream of 150 skills (a `SKILL.md`, two references and an executable script each) is
//! committed once and served two ways: as a repository on this machine (the `file://` row;
//! `skill add` is given its path, and reads its objects in place) and by `git http-backend` behind TLS on 127.0.0.1 (a small
//! Python server, `https_git.py`, with a certificate `openssl` makes for the run; git is
//! pointed at it with `GIT_SSL_CAINFO`). Its `main` is moved between three commits: the
//! first, one that changes only a file outside every skill, and one that changes one file of
//! one skill. Each row is timed beside its peer:
//!
//! - `skill add --all … --ref main` beside `git clone --depth 1` (which checks the same paths
//!   out);
//! - `skill outdated` with nothing changed, and with a commit elsewhere in the source, beside
//!   `git ls-remote` plus a shallow fetch of `main` into a new repository;
//! - `skill pull` after a one-file change beside the same peer (the goal allows it twice that
//!   plus the merge of the one skill).
//!
//! Each of our rows is run once more with a `git` on `PATH` that logs every invocation (git's
//! own children included: the lazy fetch, `upload-pack` of a local repository), and the count
//! is reported beside the time.

use std::fmt::Write as _;
use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use anyhow::{Context, Result, bail};

use crate::measure::{Stats, bench, clear, git, ratio, secs, succeed};

/// Skills in the upstream.
const SKILLS: usize = 150;
/// The server script.
const SERVER: &str = include_str!("https_git.py");

/// The HTTPS server, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Writes the upstream work tree: `SKILLS` skills under `skills/` and a README.
fn write_upstream(dir: &Path) -> Result<()> {
    for i in 0..SKILLS {
        let skill = dir.join(format!("skills/s{i:03}"));
        std::fs::create_dir_all(skill.join("references"))?;
        std::fs::create_dir_all(skill.join("scripts"))?;
        std::fs::write(
            skill.join("SKILL.md"),
            format!(
                "---\nname: s{i:03}\ndescription: Skill number {i} of the bench.\n---\n# S{i}\n\nDo thing {i}.\n"
            ),
        )?;
        let mut reference = String::new();
        for line in 0..40 {
            writeln!(reference, "Reference {i}, line {line}: some words to read.")?;
        }
        std::fs::write(skill.join("references/ref.md"), reference)?;
        std::fs::write(
            skill.join("references/data.txt"),
            format!("{i}\n").repeat(500),
        )?;
        let script = skill.join("scripts/run.sh");
        std::fs::write(&script, format!("#!/bin/sh\necho {i}\n"))?;
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))?;
    }
    std::fs::write(dir.join("README.md"), "skills\n")?;
    Ok(())
}

/// Commits everything in `dir` and returns the commit id.
fn commit(dir: &Path, message: &str) -> Result<String> {
    succeed(git(dir).args(["add", "-A"]))?;
    succeed(git(dir).args(["commit", "-qm", message]))?;
    let out = git(dir).args(["rev-parse", "HEAD"]).output()?;
    Ok(String::from_utf8(out.stdout)?.trim().to_owned())
}

/// Starts the HTTPS server over `root` with a certificate made in `work`; its port and the CA
/// bundle git trusts.
fn serve(work: &Path, root: &Path) -> Result<(Server, u16, PathBuf)> {
    let cert = work.join("cert.pem");
    let key = work.join("key.pem");
    succeed(
        Command::new("openssl")
            .args([
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            ])
            .args([
                "-subj",
                "/CN=127.0.0.1",
                "-addext",
                "subjectAltName=IP:127.0.0.1",
            ])
            .arg("-keyout")
            .arg(&key)
            .arg("-out")
            .arg(&cert)
            .stderr(Stdio::null()),
    )?;
    let script = work.join("https_git.py");
    std::fs::write(&script, SERVER)?;
    let mut child = Command::new("python3")
        .arg(&script)
        .arg(&cert)
        .arg(&key)
        .arg(root)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("starting python3 https_git.py")?;
    let mut line = String::new();
    if let Some(out) = child.stdout.take() {
        std::io::BufReader::new(out).read_line(&mut line)?;
    }
    let server = Server(child);
    let port: u16 = line.trim().parse().context("the server's port")?;
    Ok((server, port, cert))
}

/// `git` that logs each invocation to `log`, on a `PATH` of its own in `work/bin`; the `PATH`.
fn counting_path(work: &Path, log: &Path) -> Result<String> {
    let real = Command::new("sh").args(["-c", "command -v git"]).output()?;
    let real = String::from_utf8(real.stdout)?.trim().to_owned();
    let bin = work.join("bin");
    std::fs::create_dir_all(&bin)?;
    let wrapper = bin.join("git");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\necho \"$1 $2\" >> '{}'\nexec '{real}' \"$@\"\n",
            log.display()
        ),
    )?;
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755))?;
    Ok(format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    ))
}

/// What each row needs: the tool, the source as given, the CA bundle (HTTPS only).
struct Row<'a> {
    bin: &'a Path,
    source: String,
    peer_url: String,
    ca: Option<&'a Path>,
    /// Where our temporary repositories go (`TMPDIR`): beside the peer's clone, on the same
    /// file system, so neither side's writes land on a slower disk than the other's.
    tmp: &'a Path,
}

impl Row<'_> {
    fn tool(&self, dir: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(self.bin);
        cmd.current_dir(dir).args(args).env("TMPDIR", self.tmp);
        if let Some(ca) = self.ca {
            cmd.env("GIT_SSL_CAINFO", ca);
        }
        cmd
    }

    fn peer(&self, dir: &Path, script: &str) -> Command {
        let mut cmd = Command::new("sh");
        cmd.current_dir(dir)
            .args(["-c", script, "peer", &self.peer_url]);
        if let Some(ca) = self.ca {
            cmd.env("GIT_SSL_CAINFO", ca);
        }
        cmd
    }
}

/// Git processes one run of `cmd` starts, counted through the logging `git` on `path`.
fn count(mut cmd: Command, path: &str, log: &Path) -> Result<usize> {
    std::fs::write(log, "")?;
    cmd.env("PATH", path)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd.status()?;
    Ok(std::fs::read_to_string(log)?.lines().count())
}

/// A fresh repository to add into.
fn fresh(me: &Path) -> Result<()> {
    clear(me)?;
    std::fs::create_dir_all(me.join("skills"))?;
    succeed(git(me).args(["init", "-q"]))
}

/// Copies the tree `from` to `to` (emptied first).
fn restore(from: &Path, to: &Path) -> Result<()> {
    clear(to)?;
    succeed(Command::new("cp").arg("-a").arg(from).arg(to))
}

/// Builds the upstream, serves it, times every row of both transports; the markdown report.
pub(crate) fn run(runs: usize, bin: &Path, work: &Path) -> Result<String> {
    for (program, args) in [("python3", ["--version"]), ("openssl", ["version"])] {
        if !crate::measure::available(program, &args) {
            bail!("{program} is needed to serve git over HTTPS");
        }
    }
    clear(work)?;
    std::fs::create_dir_all(work)?;
    let work = work.canonicalize()?;
    let up = work.join("up");
    std::fs::create_dir_all(&up)?;
    succeed(git(&up).args(["init", "-q"]))?;
    write_upstream(&up)?;
    let first = commit(&up, "first")?;
    std::fs::write(up.join("README.md"), "skills, second edition\n")?;
    let elsewhere = commit(&up, "elsewhere")?;
    succeed(git(&up).args(["checkout", "-q", &first]))?;
    let edited = up.join("skills/s007/references/ref.md");
    let mut text = std::fs::read_to_string(&edited)?;
    text.push_str("One more line upstream.\n");
    std::fs::write(&edited, text)?;
    let one_change = commit(&up, "one file of one skill")?;
    let served = work.join("served");
    std::fs::create_dir_all(&served)?;
    succeed(
        git(&served)
            .args(["clone", "-q", "--bare", "--no-local"])
            .arg(&up)
            .arg("up.git"),
    )?;
    let bare = served.join("up.git");
    for (name, id) in [
        ("first", &first),
        ("elsewhere", &elsewhere),
        ("one", &one_change),
    ] {
        succeed(git(&bare).args(["update-ref", &format!("refs/heads/{name}"), id]))?;
    }
    let move_main = |to: &str| succeed(git(&bare).args(["update-ref", "refs/heads/main", to]));
    let (_server, port, ca) = serve(&work, &served)?;
    let log = work.join("git.log");
    let path = counting_path(&work, &log)?;
    let tmp = work.join("tmp");
    std::fs::create_dir_all(&tmp)?;

    let rows = [
        (
            "`file://`",
            Row {
                bin,
                source: bare.display().to_string(),
                peer_url: format!("file://{}", bare.display()),
                ca: None,
                tmp: &tmp,
            },
        ),
        (
            "HTTPS (`git http-backend`)",
            Row {
                bin,
                source: format!("https://127.0.0.1:{port}/up.git"),
                peer_url: format!("https://127.0.0.1:{port}/up.git"),
                ca: Some(ca.as_path()),
                tmp: &tmp,
            },
        ),
    ];
    let me = work.join("me");
    let pristine = work.join("pristine");
    let peer_dir = work.join("peer");
    let clone = "git clone -q --depth 1 --branch main \"$1\" peer/clone";
    let look = "git ls-remote \"$1\" refs/heads/main >/dev/null && git init -q --bare peer/fetch && git -C peer/fetch fetch -q --depth 1 \"$1\" main";
    let mut out = String::new();
    writeln!(
        out,
        "{SKILLS} skills of 4 files each; medians of {runs} runs after a warm-up; git processes counted in one more run; our temporary repositories in `TMPDIR={}`, beside the peer's clone.\n",
        tmp.display()
    )?;
    writeln!(
        out,
        "| transport | row | ours (s) | git processes | peer | peer (s) | ratio | goal |"
    )?;
    writeln!(out, "|---|---|---|---|---|---|---|---|")?;
    for (label, row) in &rows {
        move_main(&first)?;
        let add_args = [
            "skill",
            "add",
            "--all",
            &row.source,
            "skills",
            "--ref",
            "main",
        ];
        let add = bench(runs, Some(0), || fresh(&me), || row.tool(&me, &add_args))?;
        fresh(&me)?;
        let add_count = count(row.tool(&me, &add_args), &path, &log)?;
        let clean_peer = || {
            clear(&peer_dir)?;
            std::fs::create_dir_all(&peer_dir)?;
            Ok(())
        };
        let cloned = bench(runs, Some(0), clean_peer, || row.peer(&work, clone))?;
        line(
            &mut out,
            label,
            "`skill add --all --ref main`",
            &add,
            add_count,
            "`git clone --depth 1`",
            &cloned,
            "≤ 1.5",
        )?;

        // The repository with every skill taken at the first commit.
        fresh(&me)?;
        succeed(&mut row.tool(&me, &add_args))?;
        restore(&me, &pristine)?;
        let looked = bench(runs, Some(0), clean_peer, || row.peer(&work, look))?;
        for (what, at, code) in [
            ("`skill outdated`, nothing changed", &first, 0),
            ("`skill outdated`, a commit elsewhere", &elsewhere, 0),
            ("`skill outdated`, one skill changed", &one_change, 1),
        ] {
            move_main(at)?;
            let stats = bench(
                runs,
                Some(code),
                || Ok(()),
                || row.tool(&me, &["skill", "outdated"]),
            )?;
            let n = count(row.tool(&me, &["skill", "outdated"]), &path, &log)?;
            line(
                &mut out,
                label,
                what,
                &stats,
                n,
                "`git ls-remote` + `git fetch --depth 1`",
                &looked,
                "≤ 2",
            )?;
        }
        move_main(&one_change)?;
        let pulled = bench(
            runs,
            Some(0),
            || restore(&pristine, &me),
            || row.tool(&me, &["skill", "pull"]),
        )?;
        restore(&pristine, &me)?;
        let n = count(row.tool(&me, &["skill", "pull"]), &path, &log)?;
        line(
            &mut out,
            label,
            "`skill pull`, one file of one skill changed",
            &pulled,
            n,
            "`git ls-remote` + `git fetch --depth 1`",
            &looked,
            "≤ 2 + one merge",
        )?;
    }
    clear(&me)?;
    clear(&pristine)?;
    clear(&peer_dir)?;
    Ok(out)
}

/// One row of the report.
#[allow(clippy::too_many_arguments)]
fn line(
    out: &mut String,
    transport: &str,
    row: &str,
    ours: &Stats,
    processes: usize,
    peer: &str,
    theirs: &Stats,
    goal: &str,
) -> Result<()> {
    writeln!(
        out,
        "| {transport} | {row} | {} | {processes} | {peer} | {} | {} | {goal} |",
        secs(ours.wall),
        secs(theirs.wall),
        ratio(ours.wall, theirs.wall)
    )?;
    Ok(())
}
