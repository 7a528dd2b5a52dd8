//! `asv-bench run`: `gen` and `verify` at several sizes beside the I/O + hash floor.
//!
//! For each size: `gen` on a fresh tree, `gen` with nothing to change, `verify` clean and
//! `verify` with 1% of the copies broken, each the median of `runs` whole-process runs with a
//! warm page cache; beside them `openssl dgst -sha256` and `sha256sum` over exactly the files
//! `verify` reads, peak memory and CPU use, and a check (by `strace`, when present, and by
//! mtimes) that `gen` with nothing to change writes nothing.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use asv_bench::{Spec, break_copies, files_verify_reads, generate};

use crate::measure::{
    Stats, bench, bench_floor, changed, copy_tree, median, mtimes, ratio, secs, strace_writes,
};

struct Row {
    skills: usize,
    files: usize,
    mib: f64,
    gen_fresh: Duration,
    gen_noop: Stats,
    verify: Stats,
    verify_drift: Stats,
    openssl: Stats,
    openssl_procs: usize,
    sha256sum: Stats,
    rss_fresh: f64,
    noop_writes: Option<usize>,
    noop_changed: usize,
}

/// A command of the tool on `root`, output discarded by the caller.
pub(crate) fn tool(bin: &Path, args: &[&str], root: &Path) -> Command {
    let mut cmd = Command::new(bin);
    cmd.args(args)
        .arg("--root")
        .arg(root)
        .env("ASV_CACHE_DIR", crate::measure::cache_dir(root));
    cmd
}

/// Runs the matrix and returns its markdown report.
pub(crate) fn run(
    sizes: &[usize],
    contracts: usize,
    runs: usize,
    bin: &Path,
    work: &Path,
) -> Result<String> {
    std::fs::create_dir_all(work)?;
    let mut rows = Vec::new();
    for &skills in sizes {
        let spec = Spec::new(skills, contracts);
        let base = work.join(format!("{skills}x{contracts}"));
        crate::measure::clear(&base)?;
        let pristine = base.join("pristine");
        std::fs::create_dir_all(&pristine)?;
        generate(&spec, &pristine)?;
        let tree = base.join("tree");
        eprintln!("{skills} x {contracts}: gen on a fresh tree");
        let mut fresh = Vec::new();
        let mut rss_fresh: f64 = 0.0;
        for _ in 0..runs {
            copy_tree(&pristine, &tree)?;
            let _ = Command::new("sync").status();
            let start = Instant::now();
            let s = crate::measure::sample(&tool(bin, &["gen"], &tree))?;
            fresh.push(start.elapsed());
            rss_fresh = rss_fresh.max(s.rss_mib);
            if s.code != 0 {
                bail!("gen exited {}", s.code);
            }
        }
        let gen_fresh = median(fresh);
        let files = files_verify_reads(&spec, &tree);
        let bytes: u64 = files
            .iter()
            .filter_map(|f| std::fs::metadata(tree.join(f)).ok())
            .map(|m| m.len())
            .sum();
        eprintln!("{skills} x {contracts}: verify, gen with nothing to change, floor");
        let verify = bench(runs, Some(0), || Ok(()), || tool(bin, &["verify"], &tree))?;
        let before = mtimes(&tree)?;
        let gen_noop = bench(runs, Some(0), || Ok(()), || tool(bin, &["gen"], &tree))?;
        let noop_changed = changed(&before, &mtimes(&tree)?);
        let noop_writes = strace_writes(bin, &["gen"], &tree);
        let (openssl, openssl_procs) =
            bench_floor(runs, &["openssl", "dgst", "-sha256"], &files, &tree)?;
        let (sha256sum, _) = bench_floor(runs, &["sha256sum"], &files, &tree)?;
        let drift_tree = base.join("drift");
        copy_tree(&tree, &drift_tree)?;
        break_copies(&spec, &drift_tree, (skills * contracts).div_ceil(100))?;
        let verify_drift = bench(
            runs,
            Some(1),
            || Ok(()),
            || tool(bin, &["verify"], &drift_tree),
        )?;
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
            rss_fresh,
            noop_writes,
            noop_changed,
        });
        std::fs::remove_dir_all(&base)?;
    }
    report(&rows, contracts, runs)
}

fn report(rows: &[Row], contracts: usize, runs: usize) -> Result<String> {
    let mut out = String::new();
    writeln!(
        out,
        "Median of {runs} runs after one warm-up (fresh `gen`: {runs} runs, each on a new copy of the generated tree, no warm-up), warm page cache, {contracts} contracts per skill (bodies of 2–20 KiB). CPU is user plus system time of every thread.\n"
    )?;
    writeln!(
        out,
        "| skills | files verify reads | MiB | gen fresh (s) | gen no change (s) | verify clean (s) | verify 1% drift (s) | openssl floor (s) | sha256sum (s) | verify / openssl | no-change gen / verify | verify CPU (s) | openssl CPU (s) |"
    )?;
    writeln!(
        out,
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    )?;
    for r in rows {
        writeln!(
            out,
            "| {} | {} | {:.1} | {} | {} | {} | {} | {} ({} proc) | {} | {} | {} | {} | {} |",
            r.skills,
            r.files,
            r.mib,
            secs(r.gen_fresh),
            secs(r.gen_noop.wall),
            secs(r.verify.wall),
            secs(r.verify_drift.wall),
            secs(r.openssl.wall),
            r.openssl_procs,
            secs(r.sha256sum.wall),
            ratio(r.verify.wall, r.openssl.wall),
            ratio(r.gen_noop.wall, r.verify.wall),
            secs(r.verify.cpu),
            secs(r.openssl.cpu),
        )?;
    }
    writeln!(out, "\nPeak resident memory (MiB):\n")?;
    writeln!(
        out,
        "| skills | gen fresh | gen no change | verify clean | verify 1% drift |"
    )?;
    writeln!(out, "|---:|---:|---:|---:|---:|")?;
    for r in rows {
        writeln!(
            out,
            "| {} | {:.1} | {:.1} | {:.1} | {:.1} |",
            r.skills, r.rss_fresh, r.gen_noop.rss_mib, r.verify.rss_mib, r.verify_drift.rss_mib
        )?;
    }
    writeln!(out, "\nWrites by `gen` with nothing to change:\n")?;
    for r in rows {
        writeln!(
            out,
            "- {} skills: {} entries with a changed mtime or size; {} write-like system calls under strace",
            r.skills,
            r.noop_changed,
            r.noop_writes
                .map_or("(strace unavailable: skipped)".to_owned(), |n| n
                    .to_string())
        )?;
    }
    Ok(out)
}
