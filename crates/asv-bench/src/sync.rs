//! `asv-bench sync`: `skill sync` of many skills into three agents' directories (goals: with
//! nothing to change it writes nothing, takes ≤ 1.3 × reading and hashing the same files, and
//! ≤ 0.3 × the first sync, issue 30 §5).
//!
//! Each skill has a `SKILL.md`, a 4 KiB reference and an executable script; the targets are
//! `claude`, `codex` and `copilot`, three distinct directories (`.claude/skills`,
//! `.agents/skills`, `.github/skills`). Timed: the first sync (every copy placed; the median of
//! `runs`, each on the tree with every copy, the lock and the tool's state removed), a sync with
//! nothing to change (checked to write nothing by mtimes and, when present, strace), and a
//! sync after one skill changed; beside the no-change sync, `openssl dgst -sha256` and
//! `sha256sum` over exactly the skills' files, their three copies and the two configuration
//! files.

use std::fmt::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use anyhow::Result;

use crate::matrix::tool;
use crate::measure::{
    bench, bench_floor, cache_dir, changed, clear, files_under, mtimes, ratio, secs, strace_writes,
};

/// The directories `skill sync` mirrors `skills/` into for the three targets.
const TARGET_DIRS: [&str; 3] = [".claude/skills", ".agents/skills", ".github/skills"];

fn generate(root: &Path, count: usize) -> Result<()> {
    for i in 0..count {
        let d = root.join(format!("skills/skill-{i}"));
        std::fs::create_dir_all(d.join("references"))?;
        std::fs::create_dir_all(d.join("scripts"))?;
        std::fs::write(
            d.join("SKILL.md"),
            format!(
                "---\nname: skill-{i}\ndescription: Generated skill {i} for the sync benchmark.\n---\n# Skill {i}\n\nSteps.\n"
            ),
        )?;
        std::fs::write(d.join("references/guide.md"), "a".repeat(4096))?;
        let script = d.join("scripts/run.sh");
        std::fs::write(&script, format!("#!/bin/sh\necho {i}\n"))?;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))?;
    }
    std::fs::write(
        root.join("vendor-skills.yaml"),
        "targets: [claude, codex, copilot]\n",
    )?;
    Ok(())
}

/// Generates the tree, measures and returns the markdown report.
pub(crate) fn run(skills: usize, runs: usize, bin: &Path, work: &Path) -> Result<String> {
    clear(work)?;
    std::fs::create_dir_all(work)?;
    let work = work.canonicalize()?;
    generate(&work, skills)?;
    // The first sync, again and again: every copy, the lock and the tool's state removed first.
    let fresh = || -> Result<()> {
        for dir in [".claude", ".agents", ".github", ".agentic-skill-vendor"] {
            clear(&work.join(dir))?;
        }
        // The stamp cache too: a first sync has none.
        clear(&cache_dir(&work))?;
        clear(&work.join("vendor-skills-lock.json"))
    };
    let first = bench(runs, Some(0), fresh, || {
        tool(bin, &["skill", "sync"], &work)
    })?;
    let mut files = files_under(&work, "skills")?;
    let mut copies = 0;
    for dir in TARGET_DIRS {
        let placed = files_under(&work, dir)?;
        copies += placed.len();
        files.extend(placed);
    }
    for config in ["vendor-skills.yaml", "vendor-skills-lock.json"] {
        if work.join(config).is_file() {
            files.push(config.to_owned());
        }
    }
    let bytes: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(work.join(f)).ok())
        .map(|m| m.len())
        .sum();
    eprintln!("skill sync with nothing to change, beside the hash floor");
    let before = mtimes(&work)?;
    let noop = bench(
        runs,
        Some(0),
        || Ok(()),
        || tool(bin, &["skill", "sync"], &work),
    )?;
    let noop_changed = changed(&before, &mtimes(&work)?);
    // Every write counts, under the root or anywhere else (the stamp cache included): a sync
    // with nothing to change writes nothing at all.
    let writes = strace_writes(bin, &["skill", "sync"], &work);
    let (openssl, procs) = bench_floor(runs, &["openssl", "dgst", "-sha256"], &files, &work)?;
    let (sha256sum, _) = bench_floor(runs, &["sha256sum"], &files, &work)?;
    let mut n = 0;
    let one = bench(
        runs,
        Some(0),
        || {
            n += 1;
            let md = work.join("skills/skill-7/SKILL.md");
            let mut text = std::fs::read_to_string(&md)?;
            text.push_str(&format!("edit {n}\n"));
            std::fs::write(&md, text)?;
            Ok(())
        },
        || tool(bin, &["skill", "sync"], &work),
    )?;

    let mut out = String::new();
    writeln!(
        out,
        "{skills} skills (3 files each) into 3 targets: {copies} copies placed; the floor hashes {} files, {:.1} MiB (sources, copies, vendor-skills.yaml and its lock). Median of {runs} runs after one warm-up.\n",
        files.len(),
        bytes as f64 / (1024.0 * 1024.0)
    )?;
    writeln!(
        out,
        "| command | median (s) | CPU (s) | peak MiB | / openssl | / first sync |"
    )?;
    writeln!(out, "|---|---:|---:|---:|---:|---:|")?;
    let mut row = |label: &str, wall, cpu, rss: f64| {
        writeln!(
            out,
            "| {label} | {} | {} | {} | {} | {} |",
            secs(wall),
            secs(cpu),
            if rss > 0.0 {
                format!("{rss:.1}")
            } else {
                "—".to_owned()
            },
            ratio(wall, openssl.wall),
            ratio(wall, first.wall)
        )
    };
    row("`skill sync`, first", first.wall, first.cpu, first.rss_mib)?;
    row(
        "`skill sync`, nothing to change",
        noop.wall,
        noop.cpu,
        noop.rss_mib,
    )?;
    row(
        "`skill sync`, one skill changed",
        one.wall,
        one.cpu,
        one.rss_mib,
    )?;
    row(
        &format!("`openssl dgst -sha256` over the same files ({procs} proc)"),
        openssl.wall,
        openssl.cpu,
        0.0,
    )?;
    row(
        "`sha256sum` over the same files",
        sha256sum.wall,
        sha256sum.cpu,
        0.0,
    )?;
    writeln!(
        out,
        "\n- `skill sync` with nothing to change: {noop_changed} entries with a changed mtime or size over {} runs; {} write-like system calls under strace",
        runs + 1,
        writes.map_or("(strace unavailable: skipped)".to_owned(), |n| n
            .to_string())
    )?;
    writeln!(
        out,
        "- goal: nothing written, and ≤ 1.30 × the openssl floor: {}",
        ratio(noop.wall, openssl.wall)
    )?;
    writeln!(
        out,
        "- goal (issue 30 §5): nothing to change in ≤ 0.30 × the first sync: {} (CPU {})",
        ratio(noop.wall, first.wall),
        ratio(noop.cpu, first.cpu)
    )?;
    Ok(out)
}
