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
