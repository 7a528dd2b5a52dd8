//! `asv-bench skill`: `skill pack` and `skill install` on one large skill, beside the tools a
//! user would otherwise reach for (issue 16).
//!
//! The skill is [`SkillSpec::ISSUE_16`] (1,485 files, about 28 MiB, text and random binary
//! files). In one run this times, each as the median of `runs` whole-process runs after one
//! untimed warm-up run: our `skill pack` beside Info-ZIP's `zip -qr -X` at its default level 6
//! and at `-9` over the same folder, and our `skill install` of our ZIP beside `unzip -q` of
//! the same ZIP. Every timed run starts from a missing output (a leftover ZIP would make `zip`
//! update rather than create); removing it is not timed. It also reports the archive sizes,
//! the SHA-256 of our ZIP (to compare builds: the bytes must not change), whether every run
//! wrote the same bytes, whether the install reproduces the source tree, and the peak memory
//! and CPU use of one `skill pack` from `/usr/bin/time -v`. Beside each median wall time it
//! gives the median CPU time (user plus system, every thread): on a machine shared with other
//! work a parallel command gets fewer cores than it asks for, and the CPU time says what it
//! would cost with them.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use asv_bench::{SKILL_NAME, SkillSpec, generate_skill};

/// Runs `cmd` with its output discarded and fails unless it exits 0.
fn succeed(cmd: &mut Command) -> Result<()> {
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

/// Removes `path` (a file or a tree) if it exists.
fn clear(path: &Path) -> Result<()> {
    if path.is_dir() {
        std::fs::remove_dir_all(path)?;
    } else if path.exists() {
        std::fs::remove_file(path)?;
    }
    Ok(())
}

/// The user plus system CPU time of this process's waited-for children so far, from
/// `/proc/self/stat` (in clock ticks, `ticks` a second).
fn children_cpu(ticks: u64) -> Result<Duration> {
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
        (field(14) + field(15)) * 1000 / ticks,
    ))
}

/// A command's medians over the timed runs: wall time and CPU time (user plus system, all its
/// threads).
#[derive(Clone, Copy)]
struct Timing {
    wall: Duration,
    cpu: Duration,
}

/// The medians of `runs` timed calls of `run`, each after an untimed `prepare`, after one
/// untimed warm-up (prepare and run).
fn time_prepared(
    runs: usize,
    ticks: u64,
    mut prepare: impl FnMut() -> Result<()>,
    mut run: impl FnMut() -> Result<()>,
) -> Result<Timing> {
    prepare()?;
    run()?;
    let mut walls = Vec::with_capacity(runs);
    let mut cpus = Vec::with_capacity(runs);
    for _ in 0..runs {
        prepare()?;
        let cpu = children_cpu(ticks)?;
        let start = Instant::now();
        run()?;
        walls.push(start.elapsed());
        cpus.push(children_cpu(ticks)?.saturating_sub(cpu));
    }
    Ok(Timing {
        wall: crate::median(walls),
        cpu: crate::median(cpus),
    })
}

fn size(path: &Path) -> Result<u64> {
    Ok(std::fs::metadata(path)
        .with_context(|| format!("reading the size of {}", path.display()))?
        .len())
}

fn sha256(path: &Path) -> Result<String> {
    let out = Command::new("sha256sum").arg(path).output()?;
    if !out.status.success() {
        bail!("sha256sum {} failed", path.display());
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_owned())
}

/// Generates the skill under `work`, measures, and prints a markdown report.
pub(crate) fn run(runs: usize, seed: u64, bin: &Path, work: &Path) -> Result<()> {
    if !bin.exists() {
        bail!(
            "{} not found; build it with cargo build --release -p agentic-skill-vendor",
            bin.display()
        );
    }
    for tool in ["zip", "unzip"] {
        if Command::new(tool).arg("-h").output().is_err() {
            bail!("{tool} not found; install it (apt-get install -y zip unzip)");
        }
    }
    let bin = bin.canonicalize()?;
    let ticks: u64 = Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .unwrap_or(100);
    clear(work)?;
    std::fs::create_dir_all(work)?;
    let work = work.canonicalize()?;
    let src = work.join("src");
    let skill = src.join(SKILL_NAME);
    std::fs::create_dir_all(&skill)?;
    let spec = SkillSpec {
        seed,
        ..SkillSpec::ISSUE_16
    };
    let (files, bytes) = generate_skill(&spec, &skill)?;
    eprintln!(
        "generated {files} files, {bytes} bytes in {}",
        skill.display()
    );

    let ours = work.join("ours.zip");
    let skill_arg = skill.to_string_lossy().into_owned();
    let ours_arg = ours.to_string_lossy().into_owned();
    let pack_args = ["skill", "pack", skill_arg.as_str(), "-o", ours_arg.as_str()];
    eprintln!("skill pack");
    let mut digests = Vec::new();
    // Each run's ZIP is hashed before the next run removes it, outside the timing.
    let pack = time_prepared(
        runs,
        ticks,
        || {
            if ours.exists() {
                digests.push(sha256(&ours)?);
            }
            clear(&ours)
        },
        || succeed(Command::new(&bin).args(pack_args).current_dir(&work)),
    )?;
    digests.push(sha256(&ours)?);
    let reproducible = digests.windows(2).all(|w| w[0] == w[1]);
    let ours_size = size(&ours)?;
    let (pack_rss, pack_cpu) = crate::usage(&bin, &pack_args, Some(&work))?;

    let mut peers = Vec::new();
    for (label, level) in [
        ("`zip -qr -X` (level 6)", None),
        ("`zip -qr -X -9`", Some("-9")),
    ] {
        eprintln!("{label}");
        let out = work.join(format!("zip{}.zip", level.unwrap_or("-6")));
        let time = time_prepared(
            runs,
            ticks,
            || clear(&out),
            || {
                succeed(
                    Command::new("zip")
                        .arg("-qr")
                        .arg("-X")
                        .args(level)
                        .arg(&out)
                        .arg(SKILL_NAME)
                        .current_dir(&src),
                )
            },
        )?;
        peers.push((label, time, size(&out)?));
    }

    eprintln!("skill install and unzip");
    let installed = work.join("installed");
    let install = time_prepared(
        runs,
        ticks,
        || clear(&installed),
        || {
            succeed(
                Command::new(&bin)
                    .args(["skill", "install"])
                    .arg(&ours)
                    .arg("--into")
                    .arg(&installed)
                    .current_dir(&work),
            )
        },
    )?;
    let same_tree = Command::new("diff")
        .arg("-r")
        .arg(&skill)
        .arg(installed.join(SKILL_NAME))
        .stdout(Stdio::null())
        .status()?
        .success();
    let unzipped = work.join("unzipped");
    let unzip = time_prepared(
        runs,
        ticks,
        || clear(&unzipped),
        || {
            succeed(
                Command::new("unzip")
                    .arg("-q")
                    .arg(&ours)
                    .arg("-d")
                    .arg(&unzipped),
            )
        },
    )?;

    let (cpu, cores) = crate::machine();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let secs = |d: Duration| format!("{:.3}", d.as_secs_f64());
    println!(
        "Machine: {cpu}, {cores} cores, load average {}. Skill: {files} files, {bytes} bytes (seed {seed}). Median of {runs} runs after one warm-up, in {}. CPU is user plus system time of all threads, from /proc (10 ms ticks).\n",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" "),
        work.display()
    );
    let z9 = peers.last().map_or(1, |p| p.2);
    let z6 = peers.first().map_or(Duration::ZERO, |p| p.1.wall);
    println!(
        "| command | median (s) | CPU (s) | ZIP (bytes) | vs zip -9 size | time / zip level 6 |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    let row = |label: &str, time: Timing, bytes: u64| {
        println!(
            "| {label} | {} | {} | {bytes} | {:+.3}% | {:.2} |",
            secs(time.wall),
            secs(time.cpu),
            (bytes as f64 - z9 as f64) * 100.0 / z9 as f64,
            time.wall.as_secs_f64() / z6.as_secs_f64()
        );
    };
    row("`skill pack`", pack, ours_size);
    for (label, time, bytes) in &peers {
        row(label, *time, *bytes);
    }
    println!("\n| command | median (s) | CPU (s) | time / unzip |");
    println!("|---|---:|---:|---:|");
    println!(
        "| `skill install` of our ZIP | {} | {} | {:.2} |",
        secs(install.wall),
        secs(install.cpu),
        install.wall.as_secs_f64() / unzip.wall.as_secs_f64()
    );
    println!(
        "| `unzip -q` of our ZIP | {} | {} | 1.00 |",
        secs(unzip.wall),
        secs(unzip.cpu)
    );
    println!(
        "\n- our ZIP: SHA-256 {}; the same bytes in all {} runs: {}",
        digests.first().map_or("", String::as_str),
        digests.len(),
        if reproducible { "yes" } else { "NO" }
    );
    println!("- `skill pack`: peak memory {pack_rss:.1} MiB, CPU {pack_cpu}");
    println!(
        "- `skill install` reproduces the skill's files (`diff -r`): {}",
        if same_tree { "yes" } else { "NO" }
    );
    if !reproducible || !same_tree {
        bail!("a check failed (see above)");
    }
    Ok(())
}
