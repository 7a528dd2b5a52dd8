//! Timing whole processes: medians of wall and CPU time and the peak memory of each run, the
//! helpers every scenario shares.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

/// What the timed runs of one command measured.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stats {
    /// Median wall time.
    pub wall: Duration,
    /// Median CPU time (user plus system, every thread), 10 ms resolution.
    pub cpu: Duration,
    /// Largest peak resident memory of any run, in MiB.
    pub rss_mib: f64,
    /// Exit code of the last run.
    pub code: i32,
}

/// The median of `v` (the upper one of an even count); zero for none.
pub(crate) fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// Runs `cmd` under `/usr/bin/time` (output discarded) and returns its wall time, CPU time,
/// peak memory and exit code. The wall time is taken around `/usr/bin/time` itself, whose
/// own cost (a fork and an exec) is a millisecond or two; use [`startup`] for commands that
/// short.
pub(crate) fn sample(cmd: &Command) -> Result<Stats> {
    let log = std::env::temp_dir().join(format!("asv-bench-time-{}.txt", std::process::id()));
    let mut timed = Command::new("/usr/bin/time");
    timed
        .arg("-o")
        .arg(&log)
        .args(["-f", "%U %S %M"])
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(dir) = cmd.get_current_dir() {
        timed.current_dir(dir);
    }
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => timed.env(k, v),
            None => timed.env_remove(k),
        };
    }
    let start = Instant::now();
    let status = timed
        .status()
        .with_context(|| format!("running /usr/bin/time {cmd:?} (is GNU time installed?)"))?;
    let wall = start.elapsed();
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    // The last line holds the format; a killed command adds a line before it.
    let fields: Vec<f64> = text
        .lines()
        .last()
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|v| v.parse().ok())
        .collect();
    let [user, system, rss_kib] = fields[..] else {
        bail!("/usr/bin/time printed no usage for {cmd:?}: {text}");
    };
    Ok(Stats {
        wall,
        cpu: Duration::from_secs_f64(user + system),
        rss_mib: rss_kib / 1024.0,
        code: status.code().unwrap_or(-1),
    })
}

/// One untimed warm-up run, then `runs` timed runs of the command `make` builds, each after an
/// untimed `prepare`: medians of wall and CPU time, the largest peak memory, the last exit
/// code. Fails when a run exits other than `expect` (when given).
pub(crate) fn bench(
    runs: usize,
    expect: Option<i32>,
    mut prepare: impl FnMut() -> Result<()>,
    make: impl Fn() -> Command,
) -> Result<Stats> {
    let mut walls = Vec::with_capacity(runs);
    let mut cpus = Vec::with_capacity(runs);
    let mut rss: f64 = 0.0;
    let mut code = 0;
    for k in 0..=runs {
        prepare()?;
        let s = sample(&make())?;
        if let Some(e) = expect
            && s.code != e
        {
            bail!("{:?} exited {} (expected {e})", make(), s.code);
        }
        code = s.code;
        if k > 0 {
            walls.push(s.wall);
            cpus.push(s.cpu);
            rss = rss.max(s.rss_mib);
        }
    }
    Ok(Stats {
        wall: median(walls),
        cpu: median(cpus),
        rss_mib: rss,
        code,
    })
}

/// Clock ticks a second, for the CPU times in `/proc`.
pub(crate) fn ticks() -> u64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .unwrap_or(100)
}

/// The user plus system CPU time of this process's waited-for children so far, from
/// `/proc/self/stat` (in clock ticks, `ticks` a second).
pub(crate) fn children_cpu(ticks: u64) -> Result<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    // The fields after the command name (which may hold spaces) in parentheses; cutime and
    // cstime are fields 16 and 17 of the line, 14 and 15 of this remainder.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let field = |n: usize| -> u64 {
        rest.split_whitespace()
            .nth(n - 1)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    Ok(Duration::from_millis(
        (field(14) + field(15)) * 1000 / ticks.max(1),
    ))
}

/// Runs `cmd` with its output discarded and fails unless it exits 0.
pub(crate) fn succeed(cmd: &mut Command) -> Result<()> {
    let status = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .with_context(|| format!("running {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} exited {status}");
    }
    Ok(())
}

/// Whether `program args` can be started and exits 0 (a peer's presence check).
pub(crate) fn available(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Removes `path` (a file or a tree) if it exists.
pub(crate) fn clear(path: &Path) -> Result<()> {
    if path.is_dir() {
        std::fs::remove_dir_all(path).with_context(|| format!("removing {}", path.display()))?;
    } else if path.exists() {
        std::fs::remove_file(path).with_context(|| format!("removing {}", path.display()))?;
    }
    Ok(())
}

/// `cp -a from to`, after removing `to`.
pub(crate) fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    clear(to)?;
    succeed(Command::new("cp").arg("-a").arg(from).arg(to))
}

/// Hashes `files` (relative to `root`) with `tool`, in as few processes as the argument
/// limit allows; returns the number of processes.
pub(crate) fn hash_floor(tool: &[&str], files: &[String], root: &Path) -> Result<usize> {
    let mut processes = 0;
    let mut start = 0;
    while start < files.len() {
        let mut bytes = 0;
        let mut end = start;
        while end < files.len() && bytes + files[end].len() + 1 < 1_500_000 {
            bytes += files[end].len() + 1;
            end += 1;
        }
        succeed(
            Command::new(tool[0])
                .args(&tool[1..])
                .args(&files[start..end])
                .current_dir(root),
        )
        .with_context(|| format!("{} over {} files", tool.join(" "), end - start))?;
        processes += 1;
        start = end;
    }
    Ok(processes)
}

/// The medians of wall and CPU time of `runs` runs of [`hash_floor`], after one warm-up.
pub(crate) fn bench_floor(
    runs: usize,
    tool: &[&str],
    files: &[String],
    root: &Path,
) -> Result<(Stats, usize)> {
    let ticks = ticks();
    let mut walls = Vec::new();
    let mut cpus = Vec::new();
    let mut procs = 0;
    for k in 0..=runs {
        let cpu = children_cpu(ticks)?;
        let start = Instant::now();
        procs = hash_floor(tool, files, root)?;
        if k > 0 {
            walls.push(start.elapsed());
            cpus.push(children_cpu(ticks)?.saturating_sub(cpu));
        }
    }
    let stats = Stats {
        wall: median(walls),
        cpu: median(cpus),
        rss_mib: 0.0,
        code: 0,
    };
    Ok((stats, procs))
}

/// The stamp cache every run of the tool on `root` is given (`ASV_CACHE_DIR`): beside the
/// root, never in it (a tree compared before and after stays as it was) and never the user's
/// own `~/.cache`; cleared with the tool's state where a bench starts afresh.
pub(crate) fn cache_dir(root: &Path) -> PathBuf {
    let mut name = root.file_name().unwrap_or_default().to_owned();
    name.push(".asv-cache");
    root.with_file_name(name)
}

/// Writes observed by strace during one run of `bin args`: opens for writing, renames,
/// unlinks, mkdirs. `None` when strace is missing or fails.
pub(crate) fn strace_writes(bin: &Path, args: &[&str], root: &Path) -> Option<usize> {
    let log = std::env::temp_dir().join(format!("asv-bench-strace-{}.log", std::process::id()));
    let status = Command::new("strace")
        .args([
            "-f",
            "-qq",
            "-e",
            "trace=openat,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,link,linkat,symlink,symlinkat,truncate,ftruncate,chmod,fchmod,fchmodat,utimensat",
            "-o",
        ])
        .arg(&log)
        .arg(bin)
        .args(args)
        .arg("--root")
        .arg(root)
        .env("ASV_CACHE_DIR", cache_dir(root))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok()?;
    let text = std::fs::read_to_string(&log).ok()?;
    let _ = std::fs::remove_file(&log);
    // Killed by a signal: the log may be cut short.
    status.code()?;
    Some(
        text.lines()
            .filter(|l| {
                if l.contains("resumed>") || l.contains("+++") || l.contains("---") {
                    return false;
                }
                if l.contains("openat(") {
                    // Writes to /dev (a null device opened read-write) change no file.
                    !l.contains("\"/dev/")
                        && (l.contains("O_WRONLY") || l.contains("O_RDWR") || l.contains("O_CREAT"))
                } else {
                    // Any other traced call changes the tree (a failed one still counts: it
                    // was an attempt to write).
                    true
                }
            })
            .count(),
    )
}

/// Every entry under `root` with its mtime and size, sorted by path.
pub(crate) fn mtimes(root: &Path) -> Result<Vec<(PathBuf, std::time::SystemTime, u64)>> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).with_context(|| format!("listing {}", dir.display()))? {
            let e = e?;
            let m = e.metadata()?;
            if m.is_dir() {
                stack.push(e.path());
            }
            out.push((e.path(), m.modified()?, m.len()));
        }
    }
    out.sort();
    Ok(out)
}

/// How many entries differ between two [`mtimes`] listings (changed, added or removed).
pub(crate) fn changed(
    before: &[(PathBuf, std::time::SystemTime, u64)],
    after: &[(PathBuf, std::time::SystemTime, u64)],
) -> usize {
    let same = before
        .iter()
        .filter(|e| after.binary_search(e).is_ok())
        .count();
    (before.len() - same) + (after.len() - same)
}

/// Every regular file under `dir`, relative to `root`, sorted.
pub(crate) fn files_under(root: &Path, dir: &str) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut stack = vec![root.join(dir)];
    while let Some(d) = stack.pop() {
        if !d.is_dir() {
            continue;
        }
        for e in std::fs::read_dir(&d)? {
            let e = e?;
            let t = e.file_type()?;
            if t.is_dir() {
                stack.push(e.path());
            } else if t.is_file() {
                let path = e.path();
                let rel = path.strip_prefix(root).unwrap_or(&path);
                out.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Seconds with three decimals.
pub(crate) fn secs(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

/// `a / b` with two decimals, or a dash when `b` is zero.
pub(crate) fn ratio(a: Duration, b: Duration) -> String {
    if b.is_zero() {
        "—".to_owned()
    } else {
        format!("{:.2}", a.as_secs_f64() / b.as_secs_f64())
    }
}

/// `git` with a fixed identity and no signing, in `dir`.
pub(crate) fn git(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .env("GIT_AUTHOR_NAME", "bench")
        .env("GIT_AUTHOR_EMAIL", "bench@example.com")
        .env("GIT_COMMITTER_NAME", "bench")
        .env("GIT_COMMITTER_EMAIL", "bench@example.com");
    cmd
}
