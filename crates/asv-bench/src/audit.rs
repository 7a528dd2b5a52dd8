//! `asv-bench audit`: `skill audit` of many skills of ten files each, beside `skill verify`
//! of the same tree (the issue-32 goal: the audit in at most 1.5× verify) and `openssl dgst`
//! over the same files (one pass over the bytes, one process).

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use anyhow::Result;

use crate::measure::{bench, bench_floor, clear, files_under, ratio, secs};

/// Writes `count` skills of ten files under `root/skills`, shaped as real ones: a `SKILL.md`
/// with scoped `allowed-tools`, references with URLs and `curl` examples, scripts with
/// their executable bit, a JSON schema and a template. The skills are clean: no error finding.
fn generate(root: &Path, count: usize) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let para = "Read the input, check each field against the schema, and report what differs. \
                Keep the output short; quote file names exactly as they appear.\n";
    for i in 0..count {
        let dir = root.join(format!("skills/skill-{i:05}"));
        for sub in ["references", "scripts", "assets"] {
            std::fs::create_dir_all(dir.join(sub))?;
        }
        std::fs::write(
            dir.join("SKILL.md"),
            format!(
                "---\nname: skill-{i:05}\ndescription: Generated skill {i} for the audit benchmark. Use it when asked to check reports.\nallowed-tools: Bash(python scripts/check.py:*), Read, Grep\n---\n# Skill {i}\n\n{}\nSee [the API guide](references/api.md) and run `python scripts/check.py`.\n",
                para.repeat(8)
            ),
        )?;
        std::fs::write(
            dir.join("references/api.md"),
            format!(
                "# API\n\n```sh\ncurl -H \"Authorization: Bearer $API_TOKEN\" https://api.example.dev/v1/items/{i}\n```\n\n{}",
                para.repeat(40)
            ),
        )?;
        for (n, name) in ["guide.md", "faq.md", "errors.md", "style.md"]
            .iter()
            .enumerate()
        {
            std::fs::write(
                dir.join("references").join(name),
                format!(
                    "# {name}\n\nhttps://docs.example.dev/{i}/{n}\n\n{}",
                    para.repeat(20 + 5 * n)
                ),
            )?;
        }
        let script = format!(
            "#!/usr/bin/env python3\n\"\"\"Checks report {i}.\"\"\"\nimport json, sys\n\n{}",
            "def check(path):\n    with open(path) as f:\n        data = json.load(f)\n    return [k for k in data if not k.islower()]\n\n".repeat(12)
        );
        for name in ["check.py", "fix.py"] {
            let path = dir.join("scripts").join(name);
            std::fs::write(&path, &script)?;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
        }
        std::fs::write(
            dir.join("assets/template.md"),
            format!(
                "# Report {i}\n\n| field | value |\n|---|---|\n{}",
                "| name | |\n".repeat(30)
            ),
        )?;
        std::fs::write(
            dir.join("assets/schema.json"),
            format!(
                "{{\"$id\": \"https://schemas.example.dev/{i}\", \"type\": \"object\", \"properties\": {{{}}}}}\n",
                (0..40)
                    .map(|k| format!("\"field{k}\": {{\"type\": \"string\"}}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )?;
    }
    Ok(())
}

/// Generates the skills, times audit, verify and the hash floor; returns the markdown report.
pub(crate) fn run(skills: usize, runs: usize, bin: &Path, work: &Path) -> Result<String> {
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
    let time = |args: &'static [&'static str]| {
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
    let audit = time(&["skill", "audit"])?;
    let verify = time(&["skill", "verify"])?;
    let (openssl, _) = bench_floor(runs, &["openssl", "dgst", "-sha256"], &files, work)?;
    let mut out = String::new();
    writeln!(
        out,
        "{skills} generated skills, {} files, {:.1} MiB. Median of {runs} runs after one warm-up.\n",
        files.len(),
        bytes as f64 / 1_048_576.0
    )?;
    writeln!(
        out,
        "| command | median (s) | CPU (s) | peak MiB | / verify |"
    )?;
    writeln!(out, "|---|---:|---:|---:|---:|")?;
    for (name, s) in [("`skill audit`", &audit), ("`skill verify`", &verify)] {
        writeln!(
            out,
            "| {name} | {} | {} | {:.1} | {} |",
            secs(s.wall),
            secs(s.cpu),
            s.rss_mib,
            ratio(s.wall, verify.wall)
        )?;
    }
    writeln!(
        out,
        "| `openssl dgst -sha256` over the same files | {} | {} | | {} |",
        secs(openssl.wall),
        secs(openssl.cpu),
        ratio(openssl.wall, verify.wall)
    )?;
    Ok(out)
}
