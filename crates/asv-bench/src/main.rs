//! `asv-bench`: generate synthetic repositories and time the release binary on them.
//!
//! `asv-bench run` measures, for each size, `gen` on a fresh tree, `gen` with nothing to
//! change, `verify` clean and `verify` with 1% of the copies broken, each the median of
//! `--runs` whole-process runs with a warm page cache; beside them the I/O + hash floor
//! (`openssl dgst -sha256` and `sha256sum` over exactly the files `verify` reads), peak memory
//! and CPU use from `/usr/bin/time -v`, and a check (by `strace`, when present, and by mtimes)
//! that `gen` with nothing to change writes nothing. It prints a markdown report.
//!
//! `asv-bench skill` times `skill pack` beside `zip -r` (levels 6 and 9) and `skill install`
//! beside `unzip` on one generated skill of about 28 MiB (see the `skill` module).
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::disallowed_methods)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use asv_bench::{Spec, break_copies, files_verify_reads, generate};
use clap::{Parser, Subcommand};

mod skill;

#[derive(Parser)]
#[command(about = "Synthetic repositories and whole-process benchmarks for agentic-skill-vendor")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Write a synthetic repository (canonical texts and skills; run gen for the rest)
    Generate {
        /// Number of skills
        #[arg(long, default_value_t = 200)]
        skills: usize,
        /// Number of document contracts (each skill declares all)
        #[arg(long, default_value_t = 10)]
        contracts: usize,
        /// Seed of the text generator
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also run gen with --bin and then break this many copies
        #[arg(long)]
        r#break: Option<usize>,
        /// The release binary, used with --break
        #[arg(long, default_value = "target/release/agentic-skill-vendor")]
        bin: PathBuf,
        /// Where to write (must not exist)
        dir: PathBuf,
    },
    /// Run the benchmark matrix and print a markdown report
    Run {
        /// Sizes in skills, comma-separated
        #[arg(long, default_value = "200,2000,10000", value_delimiter = ',')]
        sizes: Vec<usize>,
        /// Contracts per skill
        #[arg(long, default_value_t = 10)]
        contracts: usize,
        /// Runs per measurement (the median is reported)
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// The release binary
        #[arg(long, default_value = "target/release/agentic-skill-vendor")]
        bin: PathBuf,
        /// Scratch directory (emptied per size)
        #[arg(long, default_value = "target/asv-bench")]
        work: PathBuf,
    },
    /// Time `skill pack` and `skill install` on one generated 28 MiB skill beside zip and unzip
    Skill {
        /// Runs per measurement (the median is reported)
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// Seed of the generator
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The release binary
        #[arg(long, default_value = "target/release/agentic-skill-vendor")]
        bin: PathBuf,
        /// Scratch directory (emptied first; put it on tmpfs)
        #[arg(long, default_value = "/dev/shm/asv-bench-skill")]
        work: PathBuf,
    },
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Cmd::Generate {
            skills,
            contracts,
            seed,
            r#break,
            bin,
            dir,
        } => {
            if dir.exists() {
                bail!("{} exists; give a new directory", dir.display());
            }
            std::fs::create_dir_all(&dir)?;
            let spec = Spec {
                skills,
                contracts,
                seed,
            };
            generate(&spec, &dir)?;
            if let Some(k) = r#break {
                run_tool(&bin, &["gen"], &dir)?;
                let broken = break_copies(&spec, &dir, k)?;
                eprintln!("broke {} copies", broken.len());
            }
            Ok(())
        }
        Cmd::Run {
            sizes,
            contracts,
            runs,
            bin,
            work,
        } => run_matrix(&sizes, contracts, runs, &bin, &work),
        Cmd::Skill {
            runs,
            seed,
            bin,
            work,
        } => skill::run(runs, seed, &bin, &work),
    }
}

fn run_tool(bin: &Path, args: &[&str], root: &Path) -> Result<i32> {
    let status = Command::new(bin)
        .args(args)
        .arg("--root")
        .arg(root)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .with_context(|| format!("running {}", bin.display()))?;
    Ok(status.code().unwrap_or(-1))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time_runs(runs: usize, mut f: impl FnMut() -> Result<()>) -> Result<Duration> {
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        f()?;
        times.push(start.elapsed());
    }
    Ok(median(times))
}

fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    if to.exists() {
        std::fs::remove_dir_all(to)?;
    }
    let ok = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()?
        .success();
    if !ok {
        bail!("cp -a {} {} failed", from.display(), to.display());
    }
    Ok(())
}

/// Peak RSS (MiB) and CPU percentage of one run, from `/usr/bin/time -v`.
fn resources(bin: &Path, args: &[&str], root: &Path) -> Result<(f64, String)> {
    let root = root.to_string_lossy();
    let mut all = args.to_vec();
    all.extend(["--root", &root]);
    usage(bin, &all, None)
}

/// Peak RSS (MiB) and CPU percentage of one run of `program args` (in `cwd` when given), as
/// `/usr/bin/time -v` reports them.
pub(crate) fn usage(program: &Path, args: &[&str], cwd: Option<&Path>) -> Result<(f64, String)> {
    let mut command = Command::new("/usr/bin/time");
    command
        .arg("-v")
        .arg(program)
        .args(args)
        .stdout(Stdio::null());
    if let Some(cwd) = cwd {
        command.current_dir(cwd);
    }
    let out = command.output()?;
    let text = String::from_utf8_lossy(&out.stderr);
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.trim().strip_prefix(name).map(|v| v.trim().to_owned()))
            .unwrap_or_default()
    };
    let rss_kib: f64 = field("Maximum resident set size (kbytes):")
        .parse()
        .unwrap_or(0.0);
    Ok((rss_kib / 1024.0, field("Percent of CPU this job got:")))
}

/// Hashes `files` (relative to `root`) with `tool`, in as few processes as the argument
/// limit allows; returns the number of processes.
fn hash_floor(tool: &[&str], files: &[String], root: &Path) -> Result<usize> {
    let mut processes = 0;
    let mut start = 0;
    while start < files.len() {
        let mut bytes = 0;
        let mut end = start;
        while end < files.len() && bytes + files[end].len() + 1 < 1_500_000 {
            bytes += files[end].len() + 1;
            end += 1;
        }
        let ok = Command::new(tool[0])
            .args(&tool[1..])
            .args(&files[start..end])
            .current_dir(root)
            .stdout(Stdio::null())
            .status()?
            .success();
        if !ok {
            bail!("{} failed", tool.join(" "));
        }
        processes += 1;
        start = end;
    }
    Ok(processes)
}

/// Writes observed by strace during one run: opens for writing, renames, unlinks, mkdirs.
fn strace_writes(bin: &Path, args: &[&str], root: &Path) -> Option<usize> {
    let log = std::env::temp_dir().join(format!("asv-bench-strace-{}.log", std::process::id()));
    let status = Command::new("strace")
        .args([
            "-f",
            "-qq",
            "-e",
            "trace=openat,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat",
            "-o",
        ])
        .arg(&log)
        .arg(bin)
        .args(args)
        .arg("--root")
        .arg(root)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok()?;
    if !status.success() {
        return None;
    }
    let text = std::fs::read_to_string(&log).ok()?;
    let _ = std::fs::remove_file(&log);
    Some(
        text.lines()
            .filter(|l| {
                l.contains("O_WRONLY")
                    || l.contains("O_RDWR")
                    || l.contains("O_CREAT")
                    || l.contains("rename")
                    || l.contains("unlink")
                    || l.contains("mkdir")
            })
            .count(),
    )
}

fn mtimes(root: &Path) -> Result<Vec<(PathBuf, std::time::SystemTime, u64)>> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir)? {
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

fn total_bytes(root: &Path, files: &[String]) -> u64 {
    files
        .iter()
        .filter_map(|f| std::fs::metadata(root.join(f)).ok())
        .map(|m| m.len())
        .sum()
}

fn secs(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

struct Row {
    skills: usize,
    files: usize,
    mib: f64,
    gen_fresh: Duration,
    gen_noop: Duration,
    verify: Duration,
    verify_drift: Duration,
    openssl: Duration,
    openssl_procs: usize,
    sha256sum: Duration,
    rss: [f64; 4],
    cpu_verify: String,
    noop_writes: Option<usize>,
    noop_changed: usize,
}

fn run_matrix(
    sizes: &[usize],
    contracts: usize,
    runs: usize,
    bin: &Path,
    work: &Path,
) -> Result<()> {
    if !bin.exists() {
        bail!(
            "{} not found; build it with cargo build --release",
            bin.display()
        );
    }
    let bin = bin.canonicalize()?;
    std::fs::create_dir_all(work)?;
    let mut rows = Vec::new();
    for &skills in sizes {
        let spec = Spec {
            skills,
            contracts,
            seed: 1,
        };
        let base = work.join(format!("{skills}x{contracts}"));
        if base.exists() {
            std::fs::remove_dir_all(&base)?;
        }
        let pristine = base.join("pristine");
        std::fs::create_dir_all(&pristine)?;
        generate(&spec, &pristine)?;
        let tree = base.join("tree");
        eprintln!("{skills} x {contracts}: gen on a fresh tree");
        let mut fresh = Vec::new();
        for _ in 0..runs {
            copy_tree(&pristine, &tree)?;
            let _ = Command::new("sync").status();
            let start = Instant::now();
            let code = run_tool(&bin, &["gen"], &tree)?;
            fresh.push(start.elapsed());
            if code != 0 {
                bail!("gen exited {code}");
            }
        }
        let gen_fresh = median(fresh);
        let files = files_verify_reads(&spec, &tree);
        let bytes = total_bytes(&tree, &files);
        // Warm the cache, then measure.
        run_tool(&bin, &["verify"], &tree)?;
        eprintln!("{skills} x {contracts}: verify, gen with nothing to change, floor");
        let verify = time_runs(runs, || {
            let code = run_tool(&bin, &["verify"], &tree)?;
            if code != 0 {
                bail!("verify on a clean tree exited {code}");
            }
            Ok(())
        })?;
        let before = mtimes(&tree)?;
        let gen_noop = time_runs(runs, || {
            run_tool(&bin, &["gen"], &tree)?;
            Ok(())
        })?;
        let noop_changed = before
            .iter()
            .zip(mtimes(&tree)?.iter())
            .filter(|(a, b)| a != b)
            .count();
        let noop_writes = strace_writes(&bin, &["gen"], &tree);
        let mut openssl_procs = 0;
        let openssl = time_runs(runs, || {
            openssl_procs = hash_floor(&["openssl", "dgst", "-sha256"], &files, &tree)?;
            Ok(())
        })?;
        let sha256sum = time_runs(runs, || {
            hash_floor(&["sha256sum"], &files, &tree)?;
            Ok(())
        })?;
        let (rss_verify, cpu_verify) = resources(&bin, &["verify"], &tree)?;
        let (rss_noop, _) = resources(&bin, &["gen"], &tree)?;
        let drift_tree = base.join("drift");
        copy_tree(&tree, &drift_tree)?;
        let broken = break_copies(&spec, &drift_tree, (skills * contracts).div_ceil(100))?;
        run_tool(&bin, &["verify"], &drift_tree)?;
        let verify_drift = time_runs(runs, || {
            let code = run_tool(&bin, &["verify"], &drift_tree)?;
            if code != 1 {
                bail!("verify with {} broken copies exited {code}", broken.len());
            }
            Ok(())
        })?;
        let (rss_drift, _) = resources(&bin, &["verify"], &drift_tree)?;
        copy_tree(&pristine, &tree)?;
        let (rss_fresh, _) = resources(&bin, &["gen"], &tree)?;
        rows.push(Row {
            skills,
            files: files.len(),
            mib: bytes as f64 / (1024.0 * 1024.0),
            gen_fresh,
            gen_noop,
            verify,
            verify_drift,
            openssl,
            openssl_procs,
            sha256sum,
            rss: [rss_fresh, rss_noop, rss_verify, rss_drift],
            cpu_verify,
            noop_writes,
            noop_changed,
        });
        std::fs::remove_dir_all(&base)?;
    }
    report(&rows, contracts, runs);
    Ok(())
}

/// The CPU's model name and how many cores this process may use, for a report's header.
pub(crate) fn machine() -> (String, usize) {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines().find_map(|l| {
                l.strip_prefix("model name")
                    .map(|v| v.trim_start_matches([' ', '\t', ':']).to_owned())
            })
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    (cpu, cores)
}

fn report(rows: &[Row], contracts: usize, runs: usize) {
    let (cpu, cores) = machine();
    println!(
        "Machine: {cpu}, {cores} cores. Median of {runs} runs, warm page cache, {contracts} contracts per skill.\n"
    );
    println!(
        "| skills | files verify reads | MiB | gen fresh (s) | gen no change (s) | verify clean (s) | verify 1% drift (s) | openssl floor (s) | sha256sum (s) | verify / openssl | no-change gen / verify | CPU (verify) |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        println!(
            "| {} | {} | {:.1} | {} | {} | {} | {} | {} ({} proc) | {} | {:.2} | {:.2} | {} |",
            r.skills,
            r.files,
            r.mib,
            secs(r.gen_fresh),
            secs(r.gen_noop),
            secs(r.verify),
            secs(r.verify_drift),
            secs(r.openssl),
            r.openssl_procs,
            secs(r.sha256sum),
            r.verify.as_secs_f64() / r.openssl.as_secs_f64(),
            r.gen_noop.as_secs_f64() / r.verify.as_secs_f64(),
            r.cpu_verify,
        );
    }
    println!("\nPeak resident memory (MiB):\n");
    println!("| skills | gen fresh | gen no change | verify clean | verify 1% drift |");
    println!("|---:|---:|---:|---:|---:|");
    for r in rows {
        println!(
            "| {} | {:.1} | {:.1} | {:.1} | {:.1} |",
            r.skills, r.rss[0], r.rss[1], r.rss[2], r.rss[3]
        );
    }
    println!("\nWrites by `gen` with nothing to change:\n");
    for r in rows {
        println!(
            "- {} skills: {} files with a changed mtime or size; {} write-like system calls under strace",
            r.skills,
            r.noop_changed,
            r.noop_writes
                .map_or("(strace unavailable)".to_owned(), |n| n.to_string())
        );
    }
    let find = |n: usize| rows.iter().find(|r| r.skills == n);
    if let (Some(a), Some(b)) = (find(2000), find(10000)) {
        let ratio = |x: Duration, y: Duration| y.as_secs_f64() / x.as_secs_f64();
        println!("\nScaling from 2,000 to 10,000 skills (5x the input):\n");
        println!("- gen fresh: {:.2}x", ratio(a.gen_fresh, b.gen_fresh));
        println!("- gen no change: {:.2}x", ratio(a.gen_noop, b.gen_noop));
        println!("- verify clean: {:.2}x", ratio(a.verify, b.verify));
        println!(
            "- verify 1% drift: {:.2}x",
            ratio(a.verify_drift, b.verify_drift)
        );
    }
}
