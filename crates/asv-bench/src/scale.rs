//! `asv-bench scale`: every read-only command at growing sizes (goal: from 10,000 to 100,000
//! skills × 10 contracts each command takes ≤ 11 × the time, peak memory ≤ 300 MiB).
//!
//! For each size the repository is generated and `gen` run once (timed, not a read-only
//! command); then `verify` on the clean tree, `lint-selfcontain`, `skill validate` and
//! `skill verify`, and `verify` with 1% of the copies broken, each the median of `runs` runs
//! after one warm-up, with its CPU time and peak memory. The tree is removed before the next
//! size, so only one is on tmpfs at a time. Contract bodies default to 1–3 KiB rather than
//! `run`'s 2–20 KiB: at 100,000 × 10 the larger bodies need about 13 GiB of copies.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use asv_bench::{Spec, break_copies, generate};

use crate::matrix::tool;
use crate::measure::{Stats, bench, clear, mtimes, ratio, sample, secs};

/// The read-only commands, by label and arguments.
const COMMANDS: [(&str, &[&str]); 4] = [
    ("`verify`, clean", &["verify"]),
    ("`lint-selfcontain`", &["lint-selfcontain"]),
    ("`skill validate`", &["skill", "validate"]),
    ("`skill verify`", &["skill", "verify"]),
];

struct Size {
    skills: usize,
    files: usize,
    mib: f64,
    fresh_gen: Stats,
    /// One per command of [`COMMANDS`], then `verify` with drift.
    read: Vec<Stats>,
}

/// Measures every size and returns the markdown report.
pub(crate) fn run(
    sizes: &[usize],
    contracts: usize,
    body: (usize, usize),
    runs: usize,
    bin: &Path,
    work: &Path,
) -> Result<String> {
    let mut done = Vec::new();
    for &skills in sizes {
        let spec = Spec {
            body,
            ..Spec::new(skills, contracts)
        };
        let root = work.join(format!("{skills}x{contracts}"));
        clear(&root)?;
        std::fs::create_dir_all(&root)?;
        eprintln!("{skills} x {contracts}: generating");
        generate(&spec, &root)?;
        eprintln!("{skills} x {contracts}: gen");
        let fresh_gen = sample(&tool(bin, &["gen"], &root))?;
        let entries = mtimes(&root)?;
        let files = entries.len();
        let mib = entries.iter().map(|e| e.2).sum::<u64>() as f64 / (1024.0 * 1024.0);
        drop(entries);
        let mut read = Vec::new();
        for (label, args) in COMMANDS {
            eprintln!("{skills} x {contracts}: {label}");
            let expect = (args == ["verify"]).then_some(0);
            read.push(bench(runs, expect, || Ok(()), || tool(bin, args, &root))?);
        }
        break_copies(&spec, &root, (skills * contracts).div_ceil(100))?;
        eprintln!("{skills} x {contracts}: verify with 1% drift");
        read.push(bench(
            runs,
            Some(1),
            || Ok(()),
            || tool(bin, &["verify"], &root),
        )?);
        clear(&root)?;
        done.push(Size {
            skills,
            files,
            mib,
            fresh_gen,
            read,
        });
    }
    report(&done, contracts, body, runs)
}

fn report(sizes: &[Size], contracts: usize, body: (usize, usize), runs: usize) -> Result<String> {
    let mut out = String::new();
    writeln!(
        out,
        "{contracts} contracts per skill, bodies of {}–{} bytes. Median wall and CPU time (user plus system) of {runs} runs after one warm-up; peak memory the largest of the runs.\n",
        body.0, body.1
    )?;
    for s in sizes {
        writeln!(
            out,
            "- {} skills: {} entries, {:.1} MiB after `gen`; `gen` (fresh, one run) {} s wall, {} s CPU, {:.1} MiB peak, exit {}",
            s.skills,
            s.files,
            s.mib,
            secs(s.fresh_gen.wall),
            secs(s.fresh_gen.cpu),
            s.fresh_gen.rss_mib,
            s.fresh_gen.code
        )?;
    }
    writeln!(out)?;
    let mut head = "| command |".to_owned();
    let mut rule = "|---|".to_owned();
    for s in sizes {
        head.push_str(&format!(
            " {0} wall (s) | {0} CPU (s) | {0} MiB | {0} exit |",
            s.skills
        ));
        rule.push_str("---:|---:|---:|---:|");
    }
    let (first, last) = (sizes.first(), sizes.last());
    let growth = match (first, last) {
        (Some(a), Some(b)) if sizes.len() > 1 => Some((a, b)),
        _ => None,
    };
    if let Some((a, b)) = growth {
        head.push_str(&format!(
            " wall {}→{} | CPU {}→{} | linear (≤ {:.1}×) | ≤ 300 MiB |",
            a.skills,
            b.skills,
            a.skills,
            b.skills,
            1.1 * b.skills as f64 / a.skills as f64
        ));
        rule.push_str("---:|---:|---|---|");
    }
    writeln!(out, "{head}\n{rule}")?;
    let labels = COMMANDS
        .iter()
        .map(|c| c.0)
        .chain(["`verify`, 1% of the copies broken"]);
    for (i, label) in labels.enumerate() {
        let mut line = format!("| {label} |");
        for s in sizes {
            let r = s.read[i];
            line.push_str(&format!(
                " {} | {} | {:.1} | {} |",
                secs(r.wall),
                secs(r.cpu),
                r.rss_mib,
                r.code
            ));
        }
        if let Some((a, b)) = growth {
            let (x, y) = (a.read[i], b.read[i]);
            let limit = 1.1 * b.skills as f64 / a.skills as f64;
            let linear = |p: f64, q: f64| q <= limit * p;
            let verdict = match (
                linear(x.wall.as_secs_f64(), y.wall.as_secs_f64()),
                linear(x.cpu.as_secs_f64(), y.cpu.as_secs_f64()),
            ) {
                (true, true) => "yes",
                (false, false) => "**no**",
                (true, false) => "wall yes, CPU **no**",
                (false, true) => "CPU yes, wall **no**",
            };
            line.push_str(&format!(
                " {} | {} | {verdict} | {} |",
                ratio(y.wall, x.wall),
                ratio(y.cpu, x.cpu),
                if y.rss_mib <= 300.0 { "yes" } else { "**no**" }
            ));
        }
        writeln!(out, "{line}")?;
    }
    Ok(out)
}
