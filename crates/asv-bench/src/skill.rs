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

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use asv_bench::{SKILL_NAME, SkillSpec, generate_skill};

use crate::measure::{available, children_cpu, clear, median, succeed};

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
        wall: median(walls),
        cpu: median(cpus),
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

/// Generates the skill under `work`, measures, and returns a markdown report. A missing `zip`
/// or `unzip` is reported as a skipped peer.
pub(crate) fn run(runs: usize, seed: u64, bin: &Path, work: &Path) -> Result<String> {
    let has_zip = available("zip", &["-v"]);
    let has_unzip = available("unzip", &["-v"]);
    let ticks = crate::measure::ticks();
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
        || succeed(Command::new(bin).args(pack_args).current_dir(&work)),
    )?;
    digests.push(sha256(&ours)?);
    let reproducible = digests.windows(2).all(|w| w[0] == w[1]);
    let ours_size = size(&ours)?;
    let mut pack_cmd = Command::new(bin);
    pack_cmd.args(pack_args).current_dir(&work);
    clear(&ours)?;
    let pack_usage = crate::measure::sample(&pack_cmd)?;

    let mut peers = Vec::new();
    let levels: &[(&str, Option<&str>)] = if has_zip {
        &[
            ("`zip -qr -X` (level 6)", None),
            ("`zip -qr -X -9`", Some("-9")),
        ]
    } else {
        &[]
    };
    for &(label, level) in levels {
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
                Command::new(bin)
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
    let unzip = if !has_unzip {
        None
    } else {
        Some(time_prepared(
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
        )?)
    };

    let secs = |d: Duration| format!("{:.3}", d.as_secs_f64());
    let mut out = String::new();
    writeln!(
        out,
        "Skill: {files} files, {bytes} bytes (seed {seed}). Median of {runs} runs after one warm-up, in {}. CPU is user plus system time of all threads, from /proc (10 ms ticks).\n",
        work.display()
    )?;
    let z9 = peers.last().map_or(0, |p| p.2);
    let z6 = peers.first().map_or(Duration::ZERO, |p| p.1.wall);
    writeln!(
        out,
        "| command | median (s) | CPU (s) | ZIP (bytes) | vs zip -9 size | time / zip level 6 |"
    )?;
    writeln!(out, "|---|---:|---:|---:|---:|---:|")?;
    let mut row = |label: &str, time: Timing, bytes: u64| {
        let size = if z9 == 0 {
            "—".to_owned()
        } else {
            format!("{:+.3}%", (bytes as f64 - z9 as f64) * 100.0 / z9 as f64)
        };
        writeln!(
            out,
            "| {label} | {} | {} | {bytes} | {size} | {} |",
            secs(time.wall),
            secs(time.cpu),
            crate::measure::ratio(time.wall, z6)
        )
    };
    row("`skill pack`", pack, ours_size)?;
    for (label, time, bytes) in &peers {
        row(label, *time, *bytes)?;
    }
    if !has_zip {
        writeln!(out, "| `zip` | skipped: not installed | | | | |")?;
    }
    writeln!(out, "\n| command | median (s) | CPU (s) | time / unzip |")?;
    writeln!(out, "|---|---:|---:|---:|")?;
    let unzip_wall = unzip.map_or(Duration::ZERO, |u| u.wall);
    writeln!(
        out,
        "| `skill install` of our ZIP | {} | {} | {} |",
        secs(install.wall),
        secs(install.cpu),
        crate::measure::ratio(install.wall, unzip_wall)
    )?;
    match unzip {
        Some(u) => writeln!(
            out,
            "| `unzip -q` of our ZIP | {} | {} | 1.00 |",
            secs(u.wall),
            secs(u.cpu)
        )?,
        None => writeln!(out, "| `unzip -q` | skipped: not installed | | |")?,
    }
    writeln!(
        out,
        "\n- our ZIP: SHA-256 {}; the same bytes in all {} runs: {}",
        digests.first().map_or("", String::as_str),
        digests.len(),
        if reproducible { "yes" } else { "NO" }
    )?;
    writeln!(
        out,
        "- `skill pack`: peak memory {:.1} MiB",
        pack_usage.rss_mib
    )?;
    writeln!(
        out,
        "- `skill install` reproduces the skill's files (`diff -r`): {}",
        if same_tree { "yes" } else { "NO" }
    )?;
    if !reproducible || !same_tree {
        eprint!("{out}");
        bail!("a check of `asv-bench skill` failed (see the report above)");
    }
    Ok(out)
}
