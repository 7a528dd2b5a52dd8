//! `asv-bench validate`: `skill validate` of many valid skills beside the Agent Skills
//! reference validator (`skills_ref.validate`, PyPI `skills-ref`) over the same directories,
//! called once per skill in one Python process so the peer pays no process start per skill.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use anyhow::Result;

use crate::measure::{Stats, available, bench, clear, ratio, secs};

/// The peer: every skill directory through `skills_ref.validate`; exit 1 if any has problems.
const PEER: &str = "import pathlib, sys
from skills_ref import validate
bad = 0
for d in sorted(pathlib.Path(sys.argv[1]).iterdir()):
    if validate(d):
        bad += 1
sys.exit(1 if bad else 0)
";

/// Writes `count` valid skills under `root/skills` (a SKILL.md with a license and metadata,
/// and a reference it links to).
fn generate(root: &Path, count: usize) -> Result<()> {
    for i in 0..count {
        let dir = root.join(format!("skills/skill-{i:05}"));
        std::fs::create_dir_all(dir.join("references"))?;
        std::fs::write(
            dir.join("SKILL.md"),
            format!(
                "---\nname: skill-{i:05}\ndescription: Generated skill {i} for the validate benchmark. Use it when asked.\nlicense: MIT\nmetadata:\n  author: bench\n---\n# Skill {i}\n\nSee [the guide](references/guide.md).\n"
            ),
        )?;
        std::fs::write(dir.join("references/guide.md"), "Steps.\n".repeat(20))?;
    }
    Ok(())
}

/// Generates the skills, times both and returns the markdown report. `peer_runs` may be
/// smaller than `runs`: the reference validator takes minutes on 10,000 skills.
pub(crate) fn run(
    skills: usize,
    runs: usize,
    peer_runs: usize,
    python: &str,
    bin: &Path,
    work: &Path,
) -> Result<String> {
    clear(work)?;
    std::fs::create_dir_all(work)?;
    generate(work, skills)?;
    let ours = bench(
        runs,
        Some(0),
        || Ok(()),
        || {
            let mut cmd = Command::new(bin);
            cmd.args(["skill", "validate", "--root"]).arg(work);
            cmd
        },
    )?;
    let peer: Option<Stats> = if available(python, &["-c", "import skills_ref"]) {
        let script = work.join("peer.py");
        std::fs::write(&script, PEER)?;
        eprintln!("skills_ref.validate over {skills} skills ({peer_runs} runs)");
        Some(bench(
            peer_runs,
            Some(0),
            || Ok(()),
            || {
                let mut cmd = Command::new(python);
                cmd.arg(&script).arg(work.join("skills"));
                cmd
            },
        )?)
    } else {
        None
    };
    let mut out = String::new();
    writeln!(
        out,
        "{skills} generated valid skills. Median of {runs} runs (ours) and {peer_runs} (peer) after one warm-up each.\n"
    )?;
    writeln!(
        out,
        "| command | median (s) | CPU (s) | peak MiB | ours / peer |"
    )?;
    writeln!(out, "|---|---:|---:|---:|---:|")?;
    let peer_wall = peer.map(|p| p.wall).unwrap_or_default();
    writeln!(
        out,
        "| `skill validate` | {} | {} | {:.1} | {} |",
        secs(ours.wall),
        secs(ours.cpu),
        ours.rss_mib,
        ratio(ours.wall, peer_wall)
    )?;
    match peer {
        Some(p) => writeln!(
            out,
            "| `skills_ref.validate` per skill, one `{python}` process | {} | {} | {:.1} | 1.00 |",
            secs(p.wall),
            secs(p.cpu),
            p.rss_mib
        )?,
        None => writeln!(
            out,
            "| `skills_ref.validate` | skipped: `{python} -c 'import skills_ref'` failed (pip install skills-ref; pass --python) | | | |"
        )?,
    }
    Ok(out)
}
