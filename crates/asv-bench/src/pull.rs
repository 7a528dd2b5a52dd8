//! `asv-bench pull`: `skill pull` of a large imported skill with edits on both sides beside
//! `git merge` of the same three trees in one repository, and a pull with nothing changed.
//!
//! The skill is [`SkillSpec::ISSUE_16`] (1,485 files, about 28 MiB, text and random binary),
//! imported with `skill add` from a local git repository. 300 text files (of at least 8 lines)
//! are edited on each side, 150 of them on both, on lines far apart (ours the first line,
//! upstream the last), so the merge is clean. The same base, ours and theirs are three commits
//! of one git repository; `git merge` is timed from a `git reset --hard` to ours.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use anyhow::{Result, bail};
use asv_bench::{SKILL_NAME, SkillSpec, generate_skill};

use crate::measure::{bench, clear, copy_tree, files_under, git, ratio, secs, succeed};

/// Text files of the skill with at least 8 lines, sorted by path.
fn editable(skill: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for f in files_under(skill, ".")? {
        let f = f.trim_start_matches("./").to_owned();
        if !f.ends_with(".md") || f == "SKILL.md" {
            continue;
        }
        let text = std::fs::read_to_string(skill.join(&f))?;
        if text.lines().count() >= 8 {
            out.push(f);
        }
    }
    Ok(out)
}

/// Edits `files` in `skill`: the first line (`first`) or the last one.
fn edit(skill: &Path, files: &[String], first: bool) -> Result<()> {
    for f in files {
        let path = skill.join(f);
        let text = std::fs::read_to_string(&path)?;
        let mut lines: Vec<&str> = text.split('\n').collect();
        let at = if first {
            0
        } else {
            lines.iter().rposition(|l| !l.is_empty()).unwrap_or(0)
        };
        let edited = format!(
            "EDITED {} {}",
            if first { "ours" } else { "theirs" },
            lines[at]
        );
        lines[at] = &edited;
        std::fs::write(&path, lines.join("\n"))?;
    }
    Ok(())
}

fn replace_skill(from: &Path, repo: &Path) -> Result<()> {
    copy_tree(from, &repo.join("skills").join(SKILL_NAME))
}

/// Builds the inputs, times both and the no-change pull, and returns the markdown report.
pub(crate) fn run(runs: usize, bin: &Path, work: &Path) -> Result<String> {
    clear(work)?;
    std::fs::create_dir_all(work)?;
    let work = work.canonicalize()?;
    let base = work.join("base");
    std::fs::create_dir_all(&base)?;
    let (files, bytes) = generate_skill(&SkillSpec::ISSUE_16, &base)?;
    let up = work.join("up");
    std::fs::create_dir_all(up.join("skills"))?;
    replace_skill(&base, &up)?;
    succeed(git(&up).args(["init", "-q"]))?;
    succeed(git(&up).args(["add", "-A"]))?;
    succeed(git(&up).args(["commit", "-qm", "base"]))?;
    let me0 = work.join("me0");
    std::fs::create_dir_all(&me0)?;
    succeed(git(&me0).args(["init", "-q"]))?;
    succeed(
        Command::new(bin)
            .args(["skill", "add"])
            .arg(&up)
            .arg(format!("skills/{SKILL_NAME}"))
            .arg("--root")
            .arg(&me0),
    )?;
    let texts = editable(&base)?;
    if texts.len() < 450 {
        bail!(
            "the generated skill has only {} editable text files",
            texts.len()
        );
    }
    edit(&me0.join("skills").join(SKILL_NAME), &texts[..300], true)?;
    let theirs = up.join("skills").join(SKILL_NAME);
    edit(&theirs, &texts[150..450], false)?;
    succeed(git(&up).args(["commit", "-qam", "theirs"]))?;

    // The same three trees as commits of one repository.
    let g = work.join("git");
    std::fs::create_dir_all(g.join("skills"))?;
    succeed(git(&g).args(["init", "-q"]))?;
    replace_skill(&base, &g)?;
    succeed(git(&g).args(["add", "-A"]))?;
    succeed(git(&g).args(["commit", "-qm", "base"]))?;
    succeed(git(&g).args(["branch", "-q", "theirs"]))?;
    replace_skill(&me0.join("skills").join(SKILL_NAME), &g)?;
    succeed(git(&g).args(["add", "-A"]))?;
    succeed(git(&g).args(["commit", "-qm", "ours"]))?;
    succeed(git(&g).args(["checkout", "-q", "theirs"]))?;
    replace_skill(&theirs, &g)?;
    succeed(git(&g).args(["add", "-A"]))?;
    succeed(git(&g).args(["commit", "-qm", "theirs"]))?;
    succeed(git(&g).args(["checkout", "-q", "--detach", "main"]))?;
    let me = work.join("me");
    eprintln!("skill pull beside git merge");
    let pull = bench(
        runs,
        Some(0),
        || copy_tree(&me0, &me),
        || {
            let mut cmd = Command::new(bin);
            cmd.args(["skill", "pull", SKILL_NAME, "--root"]).arg(&me);
            cmd
        },
    )?;
    let merged = std::fs::read_to_string(me.join("skills").join(SKILL_NAME).join(&texts[200]))?;
    let both = merged.contains("EDITED ours") && merged.contains("EDITED theirs");
    let merge = bench(
        runs,
        Some(0),
        || succeed(git(&g).args(["reset", "-q", "--hard", "main"])),
        || {
            let mut cmd = git(&g);
            cmd.args(["merge", "-q", "--no-edit", "theirs"]);
            cmd
        },
    )?;

    // A 1,000-file skill with nothing changed upstream.
    let q = work.join("quiet");
    let k = q.join("up/skills/k");
    std::fs::create_dir_all(&k)?;
    std::fs::write(
        k.join("SKILL.md"),
        "---\nname: k\ndescription: A 1,000-file skill for the no-change pull.\n---\n# K\n",
    )?;
    for i in 0..999 {
        std::fs::write(k.join(format!("f{i}.md")), format!("file {i}\nsome text\n"))?;
    }
    let qup = q.join("up");
    succeed(git(&qup).args(["init", "-q"]))?;
    succeed(git(&qup).args(["add", "-A"]))?;
    succeed(git(&qup).args(["commit", "-qm", "base"]))?;
    let qme = q.join("me");
    std::fs::create_dir_all(&qme)?;
    succeed(git(&qme).args(["init", "-q"]))?;
    succeed(
        Command::new(bin)
            .args(["skill", "add"])
            .arg(&qup)
            .args(["skills/k", "--root"])
            .arg(&qme),
    )?;
    let quiet = bench(
        runs.max(10),
        Some(0),
        || Ok(()),
        || {
            let mut cmd = Command::new(bin);
            cmd.args(["skill", "pull", "k", "--root"]).arg(&qme);
            cmd
        },
    )?;

    let mib = bytes as f64 / (1024.0 * 1024.0);
    let mut out = String::new();
    writeln!(
        out,
        "Skill: {files} files, {mib:.1} MiB; 300 text files edited on each side (150 on both, first and last lines), a clean merge. Median of {runs} runs after one warm-up, each from a fresh copy of the importing repository (ours) or a `git reset --hard` (peer).\n"
    )?;
    writeln!(
        out,
        "| command | median (s) | CPU (s) | peak MiB | ours / peer | goal |"
    )?;
    writeln!(out, "|---|---:|---:|---:|---:|---|")?;
    writeln!(
        out,
        "| `skill pull` | {} | {} | {:.1} | {} | ≤ 1.00; memory ≤ 3 × {mib:.1} MiB |",
        secs(pull.wall),
        secs(pull.cpu),
        pull.rss_mib,
        ratio(pull.wall, merge.wall)
    )?;
    writeln!(
        out,
        "| `git merge` of the same three trees | {} | {} | {:.1} | 1.00 | |",
        secs(merge.wall),
        secs(merge.cpu),
        merge.rss_mib
    )?;
    writeln!(
        out,
        "| `skill pull`, 1,000 files, nothing changed upstream ({} runs) | {} | {} | {:.1} | — | ≤ 0.050 s |",
        runs.max(10),
        secs(quiet.wall),
        secs(quiet.cpu),
        quiet.rss_mib
    )?;
    writeln!(
        out,
        "\n- the pulled skill holds both sides' edits (checked on one file edited on both): {}",
        if both { "yes" } else { "NO" }
    )?;
    if !both {
        eprint!("{out}");
        bail!("`skill pull` did not merge both sides' edits");
    }
    Ok(out)
}
