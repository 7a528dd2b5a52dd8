//! `asv-bench add`: `skill add <dir> skills --all` of many local skills into two agents'
//! directories, beside `npx skills add` of the same skills into the same agents (issue 30 §1).
//!
//! Each skill has a `SKILL.md` and nine one-line files. Our run adds them into a fresh
//! repository whose `vendor-skills.yaml` names `targets: [claude, codex]`, so it writes
//! `skills/`, the intent, the lock, the kept bases and the copies in `.claude/skills` and
//! `.agents/skills`. The peer is the `skills` package of the npm registry, run with
//! `skills add <dir> --skill '*' --agent claude-code codex -y --copy` into the same
//! directories (it needs Node 22, so it runs under bun: `--bun` and `--skills-cli`); without
//! them it is skipped and `cp -r` of the same trees into both directories stands beside us.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Result;

use crate::measure::{Stats, bench, clear, ratio, secs, succeed};

/// Where the peer comes from.
pub(crate) struct Peer {
    /// bun, which runs the `skills` CLI.
    pub bun: Option<PathBuf>,
    /// The `skills` package's `bin/cli.mjs`.
    pub cli: Option<PathBuf>,
}

pub(crate) fn generate(src: &Path, count: usize) -> Result<()> {
    for i in 0..count {
        let d = src.join(format!("skills/skill-{i:05}"));
        std::fs::create_dir_all(d.join("references"))?;
        std::fs::write(
            d.join("SKILL.md"),
            format!(
                "---\nname: skill-{i:05}\ndescription: Generated skill {i} for the add benchmark.\n---\n# Skill {i}\n\nSteps.\n"
            ),
        )?;
        for f in 0..9 {
            std::fs::write(
                d.join(format!("references/note-{f}.md")),
                format!("note {f} of skill {i}\n"),
            )?;
        }
    }
    Ok(())
}

/// A fresh destination: an empty git repository, with the intent naming two agents when
/// `ours`.
fn fresh(dest: &Path, ours: bool) -> Result<()> {
    clear(dest)?;
    std::fs::create_dir_all(dest)?;
    succeed(Command::new("git").arg("init").arg("-q").arg(dest))?;
    if ours {
        std::fs::write(
            dest.join("vendor-skills.yaml"),
            "targets: [claude, codex]\n",
        )?;
    }
    Ok(())
}

/// One size's timings: ours, the peer (or `cp -r`), and the peer's name.
struct Row {
    skills: usize,
    ours: Stats,
    peer: Stats,
    peer_name: &'static str,
}

/// Generates the sources, measures each size and returns the markdown report.
pub(crate) fn run(
    sizes: &[usize],
    runs: usize,
    bin: &Path,
    peer: &Peer,
    work: &Path,
) -> Result<String> {
    clear(work)?;
    std::fs::create_dir_all(work)?;
    let work = work.canonicalize()?;
    let npx = match (&peer.bun, &peer.cli) {
        (Some(bun), Some(cli)) if bun.is_file() && cli.is_file() => Some((bun, cli)),
        _ => None,
    };
    let mut rows = Vec::new();
    for &n in sizes {
        let src = work.join(format!("src-{n}"));
        generate(&src, n)?;
        let dest = work.join("dest");
        eprintln!("skill add --all of {n} skills");
        let ours = bench(
            runs,
            Some(0),
            || fresh(&dest, true),
            || {
                let mut cmd = Command::new(bin);
                cmd.arg("skill")
                    .arg("add")
                    .arg(&src)
                    .arg("skills")
                    .arg("--all")
                    .arg("--root")
                    .arg(&dest);
                cmd
            },
        )?;
        let (peer_stats, peer_name) = match npx {
            Some((bun, cli)) => {
                eprintln!("skills add of {n} skills (npm `skills` under bun)");
                let stats = bench(
                    runs,
                    Some(0),
                    || fresh(&dest, false),
                    || {
                        let mut cmd = Command::new(bun);
                        cmd.arg(cli)
                            .arg("add")
                            .arg(src.join("skills"))
                            .args(["--skill", "*", "--agent", "claude-code", "codex"])
                            .args(["-y", "--copy"])
                            .current_dir(&dest)
                            // No telemetry from a benchmark.
                            .env("DISABLE_TELEMETRY", "1")
                            .env("DO_NOT_TRACK", "1");
                        cmd
                    },
                )?;
                (stats, "`skills add` (npm, under bun)")
            }
            None => {
                eprintln!("cp -r of {n} skills into two directories (no bun/skills CLI given)");
                let stats = bench(
                    runs,
                    Some(0),
                    || {
                        fresh(&dest, false)?;
                        std::fs::create_dir_all(dest.join(".claude"))?;
                        std::fs::create_dir_all(dest.join(".agents"))?;
                        Ok(())
                    },
                    || {
                        let mut cmd = Command::new("sh");
                        cmd.arg("-c")
                            .arg("cp -r \"$0\" .claude/skills && cp -r \"$0\" .agents/skills")
                            .arg(src.join("skills"))
                            .current_dir(&dest);
                        cmd
                    },
                )?;
                (stats, "`cp -r` into both directories (peer not given)")
            }
        };
        rows.push(Row {
            skills: n,
            ours,
            peer: peer_stats,
            peer_name,
        });
        clear(&src)?;
    }
    clear(&work.join("dest"))?;

    let mut out = String::new();
    writeln!(
        out,
        "`skill add <dir> skills --all` of N local skills (10 files each) into a fresh repository with `targets: [claude, codex]`, beside the peer writing the same skills into `.claude/skills` and `.agents/skills`. Median of {runs} runs after one warm-up.\n"
    )?;
    writeln!(
        out,
        "| skills | ours (s) | ours CPU (s) | ours peak MiB | peer | peer (s) | peer CPU (s) | ours / peer |"
    )?;
    writeln!(out, "|---:|---:|---:|---:|---|---:|---:|---:|")?;
    for r in &rows {
        writeln!(
            out,
            "| {} | {} | {} | {:.1} | {} | {} | {} | {} |",
            r.skills,
            secs(r.ours.wall),
            secs(r.ours.cpu),
            r.ours.rss_mib,
            r.peer_name,
            secs(r.peer.wall),
            secs(r.peer.cpu),
            ratio(r.ours.wall, r.peer.wall)
        )?;
    }
    if let (Some(first), Some(last)) = (rows.first(), rows.last())
        && rows.len() > 1
    {
        writeln!(
            out,
            "\n- {} skills take {} the time of {} (goal ≤ 10× for 10× the skills); CPU {}",
            last.skills,
            ratio(last.ours.wall, first.ours.wall),
            first.skills,
            ratio(last.ours.cpu, first.ours.cpu)
        )?;
    }
    if let Some(last) = rows.last() {
        writeln!(
            out,
            "- at {} skills, ours / peer: {} (goal ≤ 0.5×)",
            last.skills,
            ratio(last.ours.wall, last.peer.wall)
        )?;
    }
    Ok(out)
}
