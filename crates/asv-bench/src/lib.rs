//! Synthetic repositories for benchmarking agentic-skill-vendor.
//!
//! [`generate`] writes a repository of `skills` skills each declaring `contracts` document
//! contracts, with bodies of 2–20 KiB of prose-like text (another range on request) and conformance trees on every third
//! contract. The same [`Spec`] always produces the same bytes (a seeded SplitMix64 stream, no
//! dependence on the host), so figures taken on two machines describe the same input.
//! [`break_copies`] damages a chosen number of generated copies for the "violations" case.
//!
//! ```
//! # fn main() -> anyhow::Result<()> {
//! let dir = tempfile::tempdir()?;
//! let spec = asv_bench::Spec { skills: 3, contracts: 2, seed: 7, body: asv_bench::Spec::DEFAULT_BODY };
//! asv_bench::generate(&spec, dir.path())?;
//! let root = asv_fs::Root::open(dir.path())?;
//! let repo = asv_contracts::Repository::load(&root)?;
//! assert_eq!(repo.skills.len(), 3);
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

use std::path::Path;

use anyhow::Result;
use asv_fs::Root;

/// The shape of a synthetic repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    /// Number of skills.
    pub skills: usize,
    /// Number of document contracts; every skill declares all of them.
    pub contracts: usize,
    /// Seed of the text generator.
    pub seed: u64,
    /// Smallest and largest size of a contract's body, in bytes.
    pub body: (usize, usize),
}

impl Spec {
    /// The body sizes of every figure before issue 16's scale run: 2–20 KiB.
    pub const DEFAULT_BODY: (usize, usize) = (2 * 1024, 20 * 1024);

    /// `skills` × `contracts` with seed 1 and bodies of 2–20 KiB.
    pub fn new(skills: usize, contracts: usize) -> Self {
        Spec {
            skills,
            contracts,
            seed: 1,
            body: Self::DEFAULT_BODY,
        }
    }
}

/// A SplitMix64 stream: tiny, fast and the same everywhere.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A stream from `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next_u64() % ((hi - lo + 1) as u64)) as usize
    }
}

const WORDS: &[&str] = &[
    "the", "skill", "contract", "reads", "writes", "every", "entry", "review", "change", "user",
    "command", "file", "line", "version", "release", "note", "format", "verdict", "check", "copy",
    "lock", "digest", "source", "tree", "agent", "prompt", "example", "rule", "section", "table",
];

/// Prose-like markdown of about `size` bytes.
pub fn text(rng: &mut Rng, size: usize) -> String {
    let mut out = String::with_capacity(size + 80);
    let mut n = 0;
    while out.len() < size {
        if n % 12 == 0 {
            out.push_str(&format!("\n## Section {}\n\n", n / 12 + 1));
        }
        let mut line = String::new();
        while line.len() < 72 {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(WORDS[rng.range(0, WORDS.len() - 1)]);
        }
        out.push_str(&line);
        out.push('\n');
        n += 1;
    }
    out
}

/// The id of contract `i`.
pub fn contract_id(i: usize) -> String {
    format!("contract-{i:02}")
}

/// The name of skill `i`.
pub fn skill_name(i: usize) -> String {
    format!("skill-{i:05}")
}

/// Writes the canonical texts, conformance trees and skills of `spec` under `root` (which
/// should be empty). Copies and the lock are left to `gen`.
///
/// # Errors
/// A failed write.
pub fn generate(spec: &Spec, root: &Path) -> Result<()> {
    let root = Root::open(root)?;
    let mut rng = Rng::new(spec.seed);
    for c in 0..spec.contracts {
        let id = contract_id(c);
        let size = rng.range(spec.body.0, spec.body.1.max(spec.body.0));
        let body = text(&mut rng, size);
        let doc = if c % 2 == 0 {
            format!("---\ntitle: {id}\nowner: team-{c}\n---\n\n# {id}\n{body}")
        } else {
            format!("# {id}\n{body}")
        };
        root.write_file(&format!("contracts/{id}.md"), doc.as_bytes())?;
        if c % 3 == 0 {
            for k in 0..3 {
                let size = rng.range(256, 2048);
                let case = text(&mut rng, size);
                root.write_file(
                    &format!("contracts/{id}/conformance/cases/case-{k}.md"),
                    case.as_bytes(),
                )?;
            }
        }
    }
    let ids: Vec<String> = (0..spec.contracts).map(contract_id).collect();
    for s in 0..spec.skills {
        let name = skill_name(s);
        let mut md = format!(
            "---\nname: {name}\ndescription: Synthetic skill {s} for benchmarks.\nmetadata:\n  contracts:\n"
        );
        for id in &ids {
            md.push_str(&format!("    - {id}\n"));
        }
        md.push_str("---\n\n# Instructions\n\n");
        md.push_str(&text(&mut rng, 1024));
        root.write_file(&format!("skills/{name}/SKILL.md"), md.as_bytes())?;
    }
    Ok(())
}

/// Damages `count` generated copies, spread evenly over the tree (one byte of the body
/// changed), and returns their paths. Run after `gen`.
///
/// # Errors
/// A failed read or write.
pub fn break_copies(spec: &Spec, root: &Path, count: usize) -> Result<Vec<String>> {
    let root = Root::open(root)?;
    let total = spec.skills * spec.contracts;
    let mut broken = Vec::new();
    if count == 0 || total == 0 {
        return Ok(broken);
    }
    let step = (total / count).max(1);
    for k in (0..total).step_by(step).take(count) {
        let path = format!(
            "skills/{}/references/vendor/{}.md",
            skill_name(k / spec.contracts),
            contract_id(k % spec.contracts)
        );
        let Some(mut bytes) = root.read_file(&path)? else {
            continue;
        };
        if let Some(last) = bytes.iter().rposition(|b| b.is_ascii_lowercase()) {
            bytes[last] = bytes[last].to_ascii_uppercase();
        }
        root.write_file(&path, &bytes)?;
        broken.push(path);
    }
    Ok(broken)
}

/// Every file `verify` reads in a repository generated from `spec` after `gen`: the lock,
/// each SKILL.md, each canonical text, each conformance file and each copy.
pub fn files_verify_reads(spec: &Spec, root: &Path) -> Vec<String> {
    let mut out = vec!["vendor-lock.json".to_owned()];
    for c in 0..spec.contracts {
        let id = contract_id(c);
        out.push(format!("contracts/{id}.md"));
        if c % 3 == 0 {
            for k in 0..3 {
                out.push(format!("contracts/{id}/conformance/cases/case-{k}.md"));
            }
        }
    }
    for s in 0..spec.skills {
        let name = skill_name(s);
        out.push(format!("skills/{name}/SKILL.md"));
        for c in 0..spec.contracts {
            out.push(format!(
                "skills/{name}/references/vendor/{}.md",
                contract_id(c)
            ));
        }
    }
    out.retain(|p| root.join(p).exists());
    out
}

const SYLLABLES: &[&str] = &[
    "ka", "ri", "to", "men", "sa", "lo", "ver", "in", "qu", "ex", "pa", "de", "sh", "ta", "ble",
    "tion", "ar", "co", "ne", "mi", "st", "ul", "or", "ge", "fa", "ly", "pre", "con", "ing", "ed",
    "um", "ob", "ra", "ze", "wi", "ho", "ny", "tr", "el", "sk",
];

/// `count` made-up words of one to four syllables, for [`prose`].
pub fn vocabulary(rng: &mut Rng, count: usize) -> Vec<String> {
    (0..count)
        .map(|_| {
            (0..rng.range(1, 4))
                .map(|_| SYLLABLES[rng.range(0, SYLLABLES.len() - 1)])
                .collect()
        })
        .collect()
}

/// Sentence-like text of about `size` bytes drawn from `words`, the first words far more often
/// than the last (as in natural language), with numbers and punctuation. At level 9 it deflates
/// to about 42% of its size, closer to real prose than [`text`]'s 30 words, which deflate to a
/// fraction of that.
pub fn prose(rng: &mut Rng, words: &[String], size: usize) -> String {
    let mut out = String::with_capacity(size + 200);
    while out.len() < size {
        let start = out.len();
        for k in 0..rng.range(6, 18) {
            if k > 0 {
                out.push(' ');
            }
            if rng.range(0, 19) == 0 {
                out.push_str(&rng.range(0, 99_999).to_string());
            } else {
                // The cube of a uniform draw in [0, 1), in integers: skewed towards 0.
                let draw = |rng: &mut Rng| u128::from(rng.next_u64() >> 43);
                let cube = draw(rng) * draw(rng) * draw(rng);
                let index = (cube * words.len() as u128) >> 63;
                out.push_str(&words[index as usize]);
            }
        }
        if let Some(first) = out[start..].chars().next().filter(char::is_ascii_lowercase) {
            out.replace_range(start..start + 1, &first.to_ascii_uppercase().to_string());
        }
        out.push_str([". ", ". ", ", ", "? ", ".\n"][rng.range(0, 4)]);
    }
    out
}

/// The shape of one large synthetic skill, for `skill pack` and `skill install`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkillSpec {
    /// Text files besides `SKILL.md` (markdown references and executable scripts).
    pub texts: usize,
    /// Random binary files (incompressible: deflate cannot shrink them, so a ZIP stores them).
    pub binaries: usize,
    /// Seed of the generator.
    pub seed: u64,
}

impl SkillSpec {
    /// The skill of issue 16's measurements: 1,485 files (`SKILL.md`, 1,184 text files, 300
    /// random binary files), about 28 MiB, about 12 MiB of it incompressible.
    pub const ISSUE_16: SkillSpec = SkillSpec {
        texts: 1184,
        binaries: 300,
        seed: 1,
    };
}

/// The name (and directory name) of the skill [`generate_skill`] writes.
pub const SKILL_NAME: &str = "bench-skill";

/// Writes the skill of `spec` into the directory `dir` (which should be empty): a valid
/// `SKILL.md`, text files of 1–27 KiB ([`prose`]) spread over `references/` (nested two levels) and
/// `scripts/` (every eighth text file, executable), and random binary files of 4–74 KiB under
/// `assets/`. The same spec always writes the same bytes. Returns the number of files and
/// bytes written.
///
/// # Errors
/// A failed write.
pub fn generate_skill(spec: &SkillSpec, dir: &Path) -> Result<(usize, u64)> {
    let root = Root::open(dir)?;
    let mut rng = Rng::new(spec.seed);
    let words = vocabulary(&mut rng, 3000);
    let mut bytes = 0u64;
    let mut md = format!(
        "---\nname: {SKILL_NAME}\ndescription: Synthetic skill of {} files for benchmarks of pack and install.\n---\n\n# Instructions\n\n",
        spec.texts + spec.binaries + 1
    );
    md.push_str(&prose(&mut rng, &words, 4096));
    root.write_file("SKILL.md", md.as_bytes())?;
    bytes += md.len() as u64;
    for t in 0..spec.texts {
        let size = rng.range(1024, 27 * 1024);
        let body = prose(&mut rng, &words, size);
        if t % 8 == 7 {
            let script = format!("#!/bin/sh\n# generated script {t}\ncat <<'EOF'\n{body}EOF\n");
            root.write_file_mode(&format!("scripts/tool-{t:04}.sh"), script.as_bytes(), true)?;
            bytes += script.len() as u64;
        } else {
            let path = format!(
                "references/part-{:02}/topic-{:02}/ref-{t:04}.md",
                t % 16,
                t % 5
            );
            root.write_file(&path, body.as_bytes())?;
            bytes += body.len() as u64;
        }
    }
    for b in 0..spec.binaries {
        let size = rng.range(4 * 1024, 74 * 1024);
        let mut data = Vec::with_capacity(size + 8);
        while data.len() < size {
            data.extend_from_slice(&rng.next_u64().to_le_bytes());
        }
        data.truncate(size);
        root.write_file(&format!("assets/blob-{:02}/data-{b:04}.bin", b % 10), &data)?;
        bytes += size as u64;
    }
    Ok((spec.texts + spec.binaries + 1, bytes))
}

/// One file of a generated skill: its path in the skill, its text and its executable bit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillFileSpec {
    /// `/`-separated path inside the skill (`SKILL.md`, `scripts/check.py`, …).
    pub path: String,
    /// The whole file.
    pub text: String,
    /// Whether it is written with mode 755.
    pub executable: bool,
}

/// The ten files of skill number `i` of the audit benchmark, shaped as real skills are: a
/// `SKILL.md` with scoped `allowed-tools`, references with URLs and a `curl` example carrying
/// an authorization header, two executable Python scripts, a Markdown template and a JSON
/// schema. The skill is clean: the audit finds no error in it (about 26 KiB in all).
pub fn audit_skill(i: usize) -> Vec<SkillFileSpec> {
    let para = "Read the input, check each field against the schema, and report what differs. \
                Keep the output short; quote file names exactly as they appear.\n";
    let file = |path: &str, text: String, executable: bool| SkillFileSpec {
        path: path.to_owned(),
        text,
        executable,
    };
    let mut files = vec![
        file(
            "SKILL.md",
            format!(
                "---\nname: skill-{i:05}\ndescription: Generated skill {i} for the audit benchmark. Use it when asked to check reports.\nallowed-tools: Bash(python scripts/check.py:*), Read, Grep\n---\n# Skill {i}\n\n{}\nSee [the API guide](references/api.md) and run `python scripts/check.py`.\n",
                para.repeat(8)
            ),
            false,
        ),
        file(
            "references/api.md",
            format!(
                "# API\n\n```sh\ncurl -H \"Authorization: Bearer $API_TOKEN\" https://api.example.dev/v1/items/{i}\n```\n\n{}",
                para.repeat(40)
            ),
            false,
        ),
    ];
    for (n, name) in ["guide.md", "faq.md", "errors.md", "style.md"]
        .iter()
        .enumerate()
    {
        files.push(file(
            &format!("references/{name}"),
            format!(
                "# {name}\n\nhttps://docs.example.dev/{i}/{n}\n\n{}",
                para.repeat(20 + 5 * n)
            ),
            false,
        ));
    }
    let script = format!(
        "#!/usr/bin/env python3\n\"\"\"Checks report {i}.\"\"\"\nimport json, sys\n\n{}",
        "def check(path):\n    with open(path) as f:\n        data = json.load(f)\n    return [k for k in data if not k.islower()]\n\n".repeat(12)
    );
    for name in ["check.py", "fix.py"] {
        files.push(file(&format!("scripts/{name}"), script.clone(), true));
    }
    files.push(file(
        "assets/template.md",
        format!(
            "# Report {i}\n\n| field | value |\n|---|---|\n{}",
            "| name | |\n".repeat(30)
        ),
        false,
    ));
    files.push(file(
        "assets/schema.json",
        format!(
            "{{\"$id\": \"https://schemas.example.dev/{i}\", \"type\": \"object\", \"properties\": {{{}}}}}\n",
            (0..40)
                .map(|k| format!("\"field{k}\": {{\"type\": \"string\"}}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        false,
    ));
    files
}
