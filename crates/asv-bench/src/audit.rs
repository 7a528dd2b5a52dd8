//! `asv-bench audit`: `skill audit` of many skills of ten files each, beside `skill verify`
//! of the same tree (the issue-32 goal: the audit in at most 1.5× verify) and `openssl dgst`
//! over the same files (one pass over the bytes, one process).

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use anyhow::Result;

use crate::measure::{bench, bench_floor, clear, files_under, ratio, secs};

/// Writes `count` skills of ten files under `root/skills` ([`asv_bench::audit_skill`]).
fn generate(root: &Path, count: usize) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for i in 0..count {
        let dir = root.join(format!("skills/skill-{i:05}"));
        for file in asv_bench::audit_skill(i) {
            let path = dir.join(&file.path);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&path, &file.text)?;
            if file.executable {
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
            }
        }
    }
    Ok(())
}

/// Generates the skills, times audit, verify (and `baseline`'s verify, when given) and the
/// hash floor; returns the markdown report.
pub(crate) fn run(
    skills: usize,
    runs: usize,
    bin: &Path,
    baseline: Option<&Path>,
    work: &Path,
) -> Result<String> {
    clear(work)?;
    std::fs::create_dir_all(work)?;
    generate(work, skills)?;
    let files = files_under(work, "skills")?;
    let bytes: u64 = files
        .iter()
        .map(|f| {
            std::fs::metadata(work.join(f))
                .map(|m| m.len())
                .unwrap_or(0)
        })
        .sum();
    let time = |bin: &Path, args: &'static [&'static str]| {
        bench(
            runs,
            Some(0),
            || Ok(()),
            || {
                let mut cmd = Command::new(bin);
                cmd.args(args).arg("--root").arg(work);
                cmd
            },
        )
    };
    let audit = time(bin, &["skill", "audit"])?;
    let verify = time(bin, &["skill", "verify"])?;
    let structural = baseline
        .map(|b| time(b, &["skill", "verify"]))
        .transpose()?;
    let (openssl, _) = bench_floor(runs, &["openssl", "dgst", "-sha256"], &files, work)?;
    let mut out = String::new();
    writeln!(
        out,
        "{skills} generated skills, {} files, {:.1} MiB. Median of {runs} runs after one warm-up.\n",
        files.len(),
        bytes as f64 / 1_048_576.0
    )?;
    // `skill verify` audits too: the audit's goal is stated against the structural check a
    // binary from before that did, so the ratios are to it when it is given.
    let (yardstick, yardstick_name) = match &structural {
        Some(s) => (s.wall, "baseline verify"),
        None => (verify.wall, "verify"),
    };
    writeln!(
        out,
        "| command | median (s) | CPU (s) | peak MiB | / {yardstick_name} |"
    )?;
    writeln!(out, "|---|---:|---:|---:|---:|")?;
    let mut rows = vec![("`skill audit`", &audit), ("`skill verify`", &verify)];
    if let Some(s) = &structural {
        rows.push(("`skill verify` of the baseline binary", s));
    }
    for (name, s) in rows {
        writeln!(
            out,
            "| {name} | {} | {} | {:.1} | {} |",
            secs(s.wall),
            secs(s.cpu),
            s.rss_mib,
            ratio(s.wall, yardstick)
        )?;
    }
    writeln!(
        out,
        "| `openssl dgst -sha256` over the same files | {} | {} | | {} |",
        secs(openssl.wall),
        secs(openssl.cpu),
        ratio(openssl.wall, yardstick)
    )?;
    Ok(out)
}
