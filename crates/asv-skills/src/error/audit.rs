//! Why the audit's allow file cannot be used.

/// What is wrong with `vendor-skills-audit.yaml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AllowProblem {
    /// The file is not YAML, or over a reading limit.
    NotYaml(String),
    /// The top is not a mapping with an `allow:` list.
    Shape {
        /// What the top, or `allow`, is instead.
        found: &'static str,
    },
    /// A key the file does not have.
    UnknownKey {
        /// The key.
        key: String,
    },
    /// An entry that is not a mapping.
    EntryShape {
        /// What it is instead.
        found: &'static str,
    },
    /// A field missing or not text.
    Field {
        /// The field (`skill`, `rule`, `reason`).
        field: &'static str,
    },
    /// A field the entry does not have.
    EntryKey {
        /// The key.
        key: String,
    },
    /// A rule id that is not one of the audit's.
    UnknownRule {
        /// The id as written.
        rule: String,
    },
    /// A fingerprint that is not 64 lowercase hex digits.
    Fingerprint {
        /// As written.
        written: String,
    },
}

impl std::fmt::Display for AllowProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AllowProblem::NotYaml(e) => {
                write!(f, "is not valid YAML ({e}); fix it or remove the file")
            }
            AllowProblem::Shape { found } => write!(
                f,
                "holds {found}, not a mapping with an allow: list of entries (skill, rule, reason, and optionally path and fingerprint)"
            ),
            AllowProblem::UnknownKey { key } => write!(
                f,
                "has a key {} this tool does not read; the file holds only allow:",
                asv_error::quote::json_string(key)
            ),
            AllowProblem::EntryShape { found } => write!(
                f,
                "is {found}, not a mapping of skill, rule, reason, and optionally path and fingerprint"
            ),
            AllowProblem::Field { field } => write!(
                f,
                "has no {field} text; every entry names a skill, a rule and the reason it is allowed"
            ),
            AllowProblem::EntryKey { key } => write!(
                f,
                "has a key {} an entry does not have (skill, rule, path, fingerprint, reason)",
                asv_error::quote::json_string(key)
            ),
            AllowProblem::UnknownRule { rule } => write!(
                f,
                "names the rule {}, which is not one of the audit's (docs/AUDIT.md lists them)",
                asv_error::quote::json_string(rule)
            ),
            AllowProblem::Fingerprint { written } => write!(
                f,
                "has the fingerprint {}, which is not 64 lowercase hex digits; copy it from skill audit --format json",
                asv_error::quote::json_string(written)
            ),
        }
    }
}

/// One audit finding in what a command that writes skills was about to write (`skill add`,
/// `pull`, `sync`, `install`): which skill, where, and the allow-file entry that accepts it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct GatedFinding {
    /// The skill's directory as the command places it (`skills/pdf`, `.claude/skills/pdf`).
    pub dir: String,
    /// The skill's name, as an allow-file entry names it.
    pub skill: String,
    /// The finding, its path relative to `dir`.
    pub finding: asv_audit::Finding,
    /// The reason of the allow-file entry that accepts it, when one does.
    pub allowed: Option<String>,
}

impl GatedFinding {
    /// Whether it stops the run unless accepted: an error no entry allows.
    pub fn blocks(&self) -> bool {
        self.allowed.is_none() && self.finding.severity == asv_audit::Severity::Error
    }

    /// The file, from the root the command writes under (`skills/pdf/scripts/x.sh`).
    pub fn file(&self) -> String {
        asv_fs::join(&self.dir, &self.finding.path)
    }

    /// `skills/pdf/scripts/x.sh:3:1: exec/fetch-pipe: what was found: the excerpt`.
    pub fn located(&self) -> String {
        let f = &self.finding;
        // The excerpt is said when the detail does not already show it.
        let said = if f.excerpt.is_empty() || f.detail.contains(&f.excerpt) {
            f.detail.clone()
        } else {
            format!("{}: {}", f.detail, f.excerpt)
        };
        format!(
            "{}:{}:{}: {}: {said}",
            self.file(),
            f.line,
            f.column,
            f.rule.id()
        )
    }
}

/// The refusal of a run whose audit found error findings no entry allows: each one on its
/// line, then how to allow one for good, or all of them for this run.
pub(super) fn audit_refusal(refused: &[GatedFinding]) -> String {
    let mut text = format!(
        "the audit found {} in what this run would write, and nothing was written:",
        match refused.len() {
            1 => "an error finding".to_owned(),
            n => format!("{n} error findings"),
        }
    );
    for g in refused {
        text.push_str(&format!("\n  {} (skill {})", g.located(), g.skill));
    }
    if let Some(first) = refused.first() {
        text.push_str(&format!(
            "\nreview each one; to allow one for good, add an entry to {} (skill audit {} --allow {} --fingerprint {} --reason '<why it is safe>' writes it), or pass --accept-findings to take them for this run only",
            asv_model::layout::SKILL_AUDIT_ALLOW,
            first.skill,
            first.finding.rule.id(),
            first.finding.fingerprint,
        ));
    }
    text
}
