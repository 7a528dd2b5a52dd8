//! Judging a skill against the Agent Skills rules.
//!
//! The rules live in one place and read one manifest, so a skill on disk ([`validate_skill`])
//! and a skill held in memory before it is written ([`validate_tree`]) get the same findings.
//! This module sits here rather than in `asv-skilltree` because the frontmatter is read with
//! the YAML reader of `asv-contracts`, a layer above the tree model.

use asv_fs::{EntryKind, Tree, join};
use asv_model::yaml::Yaml;
use asv_skilltree::{SKILL_MANIFEST, SkillTree, normalize_name};

use crate::error::Error;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The skill breaks a rule: agents may skip or misread it.
    Error,
    /// Allowed, but likely a mistake (`--strict` makes it an error).
    Warning,
}

/// One thing wrong with a skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Error or warning.
    pub severity: Severity,
    /// The file (repository-relative, `/` separators).
    pub path: String,
    /// The 1-based line of that file at fault, when one line is.
    pub line: Option<usize>,
    /// What is wrong and what to do.
    pub message: String,
}

impl Finding {
    /// Where the finding is: the file, and `:<line>` when one line is at fault (a name with a
    /// control character JSON-quoted).
    pub fn location(&self) -> String {
        let path = asv_fs::quote::DisplayPath(&self.path);
        match self.line {
            Some(line) => format!("{path}:{line}"),
            None => path.to_string(),
        }
    }
}

/// The longest `name`.
pub const MAX_NAME: usize = 64;
/// The longest `description`.
pub const MAX_DESCRIPTION: usize = 1024;
/// The longest `compatibility`.
pub const MAX_COMPATIBILITY: usize = 500;
/// A SKILL.md longer than this is a warning (agents load the whole file).
pub const MAX_LINES: usize = 500;
/// The top-level frontmatter keys the Agent Skills rules know.
pub const KNOWN_KEYS: &[&str] = &[
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];

/// Why `name` is not a usable skill name, if it is not.
pub fn name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("is empty")
    } else if name.chars().count() > MAX_NAME {
        Some("is longer than 64 characters")
    } else if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        Some("may hold only lowercase letters a-z, digits and hyphens")
    } else if name.starts_with('-') || name.ends_with('-') {
        Some("may not start or end with a hyphen")
    } else if name.contains("--") {
        Some("may not hold two hyphens in a row")
    } else {
        None
    }
}

/// Judges the skill directory `dir` (repository-relative) as it stands on disk.
///
/// # Errors
/// A guarded-read refusal (a link, a FIFO where SKILL.md belongs).
pub fn validate_skill(fs: &Tree, dir: &str) -> Result<Vec<Finding>, Error> {
    let skill_md = join(dir, SKILL_MANIFEST);
    let manifest = match fs.read_file(&skill_md)? {
        Some(bytes) => Manifest::Found(bytes),
        None => {
            let listing = fs.read_dir(dir)?.unwrap_or_default();
            Manifest::Missing(
                listing
                    .into_iter()
                    .find(|e| {
                        e.kind == EntryKind::File && e.name.eq_ignore_ascii_case(SKILL_MANIFEST)
                    })
                    .map(|e| e.name),
            )
        }
    };
    Ok(judge(dir, manifest))
}

/// Judges a skill tree held in memory as if it stood at `dir` (repository-relative): what
/// `skill add` and `skill pull` check before they write anything.
pub fn validate_tree(tree: &SkillTree, dir: &str) -> Vec<Finding> {
    let manifest = match tree.get(SKILL_MANIFEST) {
        Some(f) => Manifest::Found(f.data.clone()),
        None => Manifest::Missing(
            tree.files()
                .iter()
                .find(|f| !f.path.contains('/') && f.path.eq_ignore_ascii_case(SKILL_MANIFEST))
                .map(|f| f.path.clone()),
        ),
    };
    judge(dir, manifest)
}

/// The `name` a skill's `SKILL.md` gives, when it parses and gives one as text.
pub fn manifest_name(tree: &SkillTree) -> Option<String> {
    let bytes = &tree.get(SKILL_MANIFEST)?.data;
    let front = asv_model::declaration::read_frontmatter(SKILL_MANIFEST, bytes).ok()??;
    match front.root.get("name")? {
        Yaml::String(name) => Some(name.clone()),
        _ => None,
    }
}

/// The refusal for findings that hold an error: the first error, and how many more.
pub(crate) fn first_error(findings: Vec<Finding>) -> Error {
    let errors: Vec<Finding> = findings
        .into_iter()
        .filter(|f| f.severity == Severity::Error)
        .collect();
    let more = errors.len().saturating_sub(1);
    match errors.into_iter().next() {
        Some(first) => Error::Invalid { first, more },
        None => Error::Invalid {
            first: Finding {
                severity: Severity::Error,
                path: String::new(),
                line: None,
                message: "invalid".to_owned(),
            },
            more: 0,
        },
    }
}

/// Whether `findings` hold an error.
pub fn has_errors(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}

/// What stands where a skill's manifest belongs.
enum Manifest {
    /// The bytes of `SKILL.md`.
    Found(Vec<u8>),
    /// No `SKILL.md`; the name of a root file that is one but for case, if any.
    Missing(Option<String>),
}

fn judge(dir: &str, manifest: Manifest) -> Vec<Finding> {
    let skill_md = join(dir, SKILL_MANIFEST);
    let mut out = Vec::new();
    let error = |path: &str, message: String| Finding {
        severity: Severity::Error,
        path: path.to_owned(),
        line: None,
        message,
    };
    let bytes = match manifest {
        Manifest::Found(bytes) => bytes,
        Manifest::Missing(other) => {
            out.push(match other {
                Some(name) => error(
                    &join(dir, &name),
                    format!("the file is named {name}; rename it to SKILL.md exactly"),
                ),
                None => error(
                    &skill_md,
                    "is missing; a skill is a directory with a SKILL.md".to_owned(),
                ),
            });
            return out;
        }
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        out.push(error(
            &skill_md,
            "is not valid UTF-8; save it as UTF-8".to_owned(),
        ));
        return out;
    };
    let text = text
        .strip_prefix('\u{feff}')
        .unwrap_or(text)
        .replace("\r\n", "\n");
    let lines = text.lines().count();
    if lines > MAX_LINES {
        out.push(Finding {
            severity: Severity::Warning,
            path: skill_md.clone(),
            line: None,
            message: format!(
                "holds {lines} lines, over {MAX_LINES}; agents load all of it, so move detail into references/"
            ),
        });
    }
    // The reader gen and verify use: whatever they refuse in a frontmatter is an error here,
    // at the same line.
    let root = match asv_model::declaration::read_frontmatter(&skill_md, &bytes) {
        Ok(Some(front)) => front.root,
        Ok(None) => {
            out.push(error(
                &skill_md,
                "has no frontmatter; open it with --- and give name and description".to_owned(),
            ));
            return out;
        }
        Err(asv_model::Error::Declaration {
            path,
            line,
            problem,
        }) => {
            out.push(Finding {
                severity: Severity::Error,
                path,
                line,
                message: problem.to_string(),
            });
            return out;
        }
        Err(e) => {
            out.push(error(&skill_md, strip_path(&e.to_string(), &skill_md)));
            return out;
        }
    };
    if !matches!(root, Yaml::Map(_)) {
        out.push(error(
            &skill_md,
            format!("frontmatter is {}, expected a mapping", root.kind()),
        ));
        return out;
    }
    let dir_name = dir.rsplit('/').next().unwrap_or(dir);
    match root.get("name") {
        Some(Yaml::String(name)) => {
            if let Some(problem) = name_problem(name) {
                out.push(error(&skill_md, format!("name {name:?} {problem}")));
            } else if normalize_name(name) != normalize_name(dir_name) {
                out.push(error(
                    &skill_md,
                    format!(
                        "name {name:?} differs from the directory name {dir_name:?}; make them the same"
                    ),
                ));
            }
        }
        Some(other) => out.push(error(
            &skill_md,
            format!("name is {}, expected text", other.kind()),
        )),
        None => out.push(error(
            &skill_md,
            "has no name; add name: <directory name>".to_owned(),
        )),
    }
    match root.get("description") {
        Some(Yaml::String(d)) if d.trim().is_empty() => out.push(error(
            &skill_md,
            "description is empty; say what the skill does and when to use it".to_owned(),
        )),
        Some(Yaml::String(d)) if d.chars().count() > MAX_DESCRIPTION => out.push(error(
            &skill_md,
            format!(
                "description is {} characters long, over {MAX_DESCRIPTION}",
                d.chars().count()
            ),
        )),
        Some(Yaml::String(_)) => {}
        Some(other) => out.push(error(
            &skill_md,
            format!("description is {}, expected text", other.kind()),
        )),
        None => out.push(error(
            &skill_md,
            "has no description; say what the skill does and when to use it".to_owned(),
        )),
    }
    match root.get("compatibility") {
        None => {}
        Some(Yaml::String(c)) if c.chars().count() > MAX_COMPATIBILITY => out.push(error(
            &skill_md,
            format!(
                "compatibility is {} characters long, over {MAX_COMPATIBILITY}",
                c.chars().count()
            ),
        )),
        Some(Yaml::String(_)) => {}
        Some(other) => out.push(error(
            &skill_md,
            format!("compatibility is {}, expected text", other.kind()),
        )),
    }
    match root.get("metadata") {
        None => {}
        Some(Yaml::Map(entries)) => {
            for (k, v) in entries {
                let key = match k {
                    Yaml::String(k) => k.as_str(),
                    _ => "",
                };
                // `contracts` is this tool's own declaration: a list of ids, judged by gen.
                let ok = matches!(v, Yaml::String(_)) || key == "contracts";
                if key.is_empty() || !ok {
                    out.push(error(
                        &skill_md,
                        format!(
                            "metadata.{key} is {}, expected text; metadata maps names to strings",
                            v.kind()
                        ),
                    ));
                }
            }
        }
        Some(other) => out.push(error(
            &skill_md,
            format!(
                "metadata is {}, expected a mapping of strings",
                other.kind()
            ),
        )),
    }
    match root.get("allowed-tools") {
        None | Some(Yaml::String(_)) => {}
        Some(Yaml::Seq(items)) if items.iter().all(|i| matches!(i, Yaml::String(_))) => {}
        Some(other) => out.push(error(
            &skill_md,
            format!(
                "allowed-tools is {}, expected text or a list of text",
                other.kind()
            ),
        )),
    }
    if let Yaml::Map(entries) = &root {
        for (k, _) in entries {
            if let Yaml::String(k) = k
                && !KNOWN_KEYS.contains(&k.as_str())
            {
                out.push(Finding {
                    severity: Severity::Warning,
                    path: skill_md.clone(),
                    line: None,
                    message: format!(
                        "unknown frontmatter key {k:?}; agents ignore it (put custom data under metadata)"
                    ),
                });
            }
        }
    }
    out
}

/// A declaration refusal already names the file; keep only what follows it.
fn strip_path(message: &str, path: &str) -> String {
    message
        .strip_prefix(path)
        .map(|rest| rest.trim_start_matches(|c: char| c == ':' || c.is_ascii_digit()))
        .map(|rest| rest.trim_start().to_owned())
        .unwrap_or_else(|| message.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(dir: &str, files: &[(&str, &str)]) -> Vec<(Severity, String)> {
        let d = tempfile::tempdir().unwrap();
        let fs = Tree::open(d.path()).unwrap();
        for (p, c) in files {
            fs.write_file(p, c.as_bytes()).unwrap();
        }
        validate_skill(&fs, dir)
            .unwrap()
            .into_iter()
            .map(|f| (f.severity, f.message))
            .collect()
    }

    #[test]
    fn a_good_skill_passes() {
        let ok = "---\nname: pdf-tools\ndescription: Reads PDFs.\ncompatibility: any\nallowed-tools: [Read, Bash]\nmetadata:\n  owner: team\n  contracts: [a]\n---\nBody\n";
        assert_eq!(
            findings("skills/pdf-tools", &[("skills/pdf-tools/SKILL.md", ok)]),
            []
        );
    }

    #[test]
    fn name_table() {
        for good in ["a", "pdf", "a-b", "x1", &"a".repeat(64)] {
            assert_eq!(name_problem(good), None, "{good}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "é", &"a".repeat(65)] {
            assert!(name_problem(bad).is_some(), "{bad}");
        }
        assert_eq!(normalize_name(" ｐｄｆ "), "pdf");
    }

    #[test]
    fn errors_and_warnings() {
        let rows: &[(&str, Severity, &str)] = &[
            ("---\ndescription: d\n---\n", Severity::Error, "has no name"),
            (
                "---\nname: other\ndescription: d\n---\n",
                Severity::Error,
                "differs from the directory name",
            ),
            ("---\nname: s\n---\n", Severity::Error, "has no description"),
            (
                "---\nname: s\ndescription: '  '\n---\n",
                Severity::Error,
                "description is empty",
            ),
            (
                "---\nname: s\ndescription: d\nmetadata: {a: 1}\n---\n",
                Severity::Error,
                "metadata.a is a number",
            ),
            (
                "---\nname: s\ndescription: d\nallowed-tools: {a: b}\n---\n",
                Severity::Error,
                "allowed-tools is a mapping",
            ),
            (
                "---\nname: s\ndescription: d\nfoo: 1\n---\n",
                Severity::Warning,
                "unknown frontmatter key",
            ),
            ("no frontmatter\n", Severity::Error, "has no frontmatter"),
        ];
        for (text, severity, fragment) in rows {
            let got = findings("skills/s", &[("skills/s/SKILL.md", text)]);
            assert!(
                got.iter()
                    .any(|(s, m)| s == severity && m.contains(fragment)),
                "{text:?}: {got:?}"
            );
        }
        let long = format!("---\nname: s\ndescription: {}\n---\n", "x".repeat(1025));
        assert!(
            findings("skills/s", &[("skills/s/SKILL.md", &long)])[0]
                .1
                .contains("over 1024")
        );
        let many = format!(
            "---\nname: s\ndescription: d\n---\n{}",
            "line\n".repeat(501)
        );
        assert_eq!(
            findings("skills/s", &[("skills/s/SKILL.md", &many)])[0].0,
            Severity::Warning
        );
        let lower = findings("skills/s", &[("skills/s/skill.md", "---\nname: s\n---\n")]);
        assert!(lower[0].1.contains("rename it to SKILL.md"), "{lower:?}");
    }
}
