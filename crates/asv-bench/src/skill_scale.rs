//! `asv-bench skill-scale`: the skill commands at growing numbers of imported skills (issue 30
//! §6: `skill verify`, `status`, `list` and `sync` at 10,000 skills linear from 1,000 and under
//! 300 MiB).
//!
//! For each size, N generated local skills (a `SKILL.md` and nine one-line files each) are
//! imported with `skill add <dir> skills --all` into a fresh git repository; then the intent
//! is given `targets: [claude, codex, copilot]` and timed: the first `skill sync` (every copy
//! placed, one run), `skill sync` with nothing to change, `skill verify`, `skill status` and
//! `skill list` (medians of `runs` after a warm-up). Each row gives wall and CPU time and the
//! peak resident memory; the last table the ratio of each figure between the largest and the
//! smallest size.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use anyhow::Result;

use crate::matrix::tool;
use crate::measure::{Stats, bench, clear, ratio, sample, secs, succeed};

/// The commands timed at each size, as labelled in the report, with their arguments.
const TIMED: [(&str, &[&str]); 5] = [
    ("`skill sync`, nothing to change", &["skill", "sync"]),
    ("`skill verify`", &["skill", "verify"]),
    ("`skill status`", &["skill", "status"]),
    ("`skill list`", &["skill", "list"]),
    ("`skill sync`, one skill changed", &["skill", "sync"]),
];

/// One size's figures: the add, the first sync, then each of [`TIMED`].
struct Size {
    skills: usize,
    add: Stats,
    first: Stats,
    timed: Vec<Stats>,
}

fn measure(skills: usize, runs: usize, bin: &Path, work: &Path) -> Result<Size> {
    let src = work.join(format!("src-{skills}"));
    let dest = work.join(format!("repo-{skills}"));
    clear(&src)?;
    clear(&dest)?;
    clear(&crate::measure::cache_dir(&dest))?;
    crate::add::generate(&src, skills)?;
    std::fs::create_dir_all(&dest)?;
    succeed(Command::new("git").arg("init").arg("-q").arg(&dest))?;
    eprintln!("{skills} skills: skill add --all");
    let src_arg = src.display().to_string();
    let add = sample(&tool(
        bin,
        &["skill", "add", &src_arg, "skills", "--all"],
        &dest,
    ))?;
    anyhow::ensure!(add.code == 0, "skill add --all exited {}", add.code);
    let intent = dest.join("vendor-skills.yaml");
    let text = std::fs::read_to_string(&intent)?;
    std::fs::write(
        &intent,
        format!("targets: [claude, codex, copilot]\n{text}"),
    )?;
    eprintln!("{skills} skills: first skill sync");
    let first = sample(&tool(bin, &["skill", "sync"], &dest))?;
    anyhow::ensure!(first.code == 0, "skill sync exited {}", first.code);
    let mut timed = Vec::new();
    for (label, args) in TIMED {
        eprintln!("{skills} skills: {label}");
        let mut n = 0;
        let stats = if label.ends_with("one skill changed") {
            bench(
                runs,
                Some(0),
                || {
                    n += 1;
                    let md = dest.join("skills/skill-00007/SKILL.md");
                    let mut text = std::fs::read_to_string(&md)?;
                    text.push_str(&format!("edit {n}\n"));
                    std::fs::write(&md, text)?;
                    Ok(())
                },
                || tool(bin, args, &dest),
            )?
        } else {
            bench(runs, None, || Ok(()), || tool(bin, args, &dest))?
        };
        timed.push(stats);
    }
    clear(&src)?;
    clear(&dest)?;
    Ok(Size {
        skills,
        add,
        first,
        timed,
    })
}

/// Measures every size and returns the markdown report.
pub(crate) fn run(sizes: &[usize], runs: usize, bin: &Path, work: &Path) -> Result<String> {
    clear(work)?;
    std::fs::create_dir_all(work)?;
    let work = work.canonicalize()?;
    let measured: Vec<Size> = sizes
        .iter()
        .map(|&n| measure(n, runs, bin, &work))
        .collect::<Result<_>>()?;
    let mut out = String::new();
    writeln!(
        out,
        "Local skills of 10 files each, imported with `skill add <dir> skills --all`, mirrored into 3 agents' directories. Median of {runs} runs after a warm-up (the add and the first sync: one run); peak MiB is the largest of the runs.\n"
    )?;
    writeln!(
        out,
        "| skills | command | wall (s) | CPU (s) | peak MiB | exit |"
    )?;
    writeln!(out, "|---:|---|---:|---:|---:|---:|")?;
    let rows = |s: &Size| -> Vec<(String, Stats)> {
        let mut rows = vec![
            ("`skill add --all` (one run)".to_owned(), s.add),
            ("`skill sync`, first (one run)".to_owned(), s.first),
        ];
        rows.extend(
            TIMED
                .iter()
                .zip(&s.timed)
                .map(|((label, _), stats)| ((*label).to_owned(), *stats)),
        );
        rows
    };
    for s in &measured {
        for (label, st) in rows(s) {
            writeln!(
                out,
                "| {} | {label} | {} | {} | {:.1} | {} |",
                s.skills,
                secs(st.wall),
                secs(st.cpu),
                st.rss_mib,
                st.code
            )?;
        }
    }
    if let (Some(small), Some(large)) = (measured.first(), measured.last())
        && measured.len() > 1
    {
        writeln!(
            out,
            "\n{} skills / {} skills (linear: {:.1}; goal ≤ about 11 and under 300 MiB):\n",
            large.skills,
            small.skills,
            large.skills as f64 / small.skills as f64
        )?;
        writeln!(
            out,
            "| command | wall | CPU | peak MiB at {} |",
            large.skills
        )?;
        writeln!(out, "|---|---:|---:|---:|")?;
        for ((label, a), (_, b)) in rows(small).into_iter().zip(rows(large)) {
            writeln!(
                out,
                "| {label} | {} | {} | {:.1} |",
                ratio(b.wall, a.wall),
                ratio(b.cpu, a.cpu),
                b.rss_mib
            )?;
        }
    }
    Ok(out)
}
