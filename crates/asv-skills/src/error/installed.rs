//! What is wrong with the user install record (`vendor-skills-installed.json`).

use std::fmt;

use asv_error::quote::json_string;

/// What is wrong with the user install record (`vendor-skills-installed.json`).
#[derive(Debug)]
pub enum InstalledProblem {
    /// The text is not JSON of the record's shape (an unknown key, a missing field, a syntax
    /// error): serde's description, which names the line and column.
    NotValid(serde_json::Error),
    /// The `version` is not the one this build reads.
    Version {
        /// The version the file holds.
        found: u32,
        /// The version this build reads.
        read: u32,
    },
    /// An object of the file holds one key twice.
    Duplicate {
        /// The keys from the top level down to the repeated one, it last.
        path: Vec<String>,
    },
    /// A key of `installed` is not a directory `skill install --scope user` could have
    /// written into: a plain path (relative to the home directory, or absolute) ending in
    /// `skills`.
    BadDir {
        /// The directory as written.
        dir: String,
    },
    /// A skill name that is not one.
    BadName {
        /// The directory it is under.
        dir: String,
        /// The name as written.
        name: String,
        /// Why it is not a skill name ([`crate::name_problem`]).
        problem: &'static str,
    },
    /// A `treeHash` or `fromDigest` that is not `sha256:` and 64 lowercase hex digits.
    BadHash {
        /// The directory it is under.
        dir: String,
        /// The skill.
        name: String,
        /// The field (`treeHash`, `fromDigest`).
        field: &'static str,
    },
}

impl fmt::Display for InstalledProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstalledProblem::NotValid(e) => write!(f, "not valid: {e}"),
            InstalledProblem::Version { found, read } => write!(
                f,
                "version {found} is not the version {read} this build reads"
            ),
            InstalledProblem::Duplicate { path } => {
                let (key, within) = path
                    .split_last()
                    .map_or(("", &[][..]), |(k, w)| (k.as_str(), w));
                write!(f, "the key {} appears twice", json_string(key))?;
                if !within.is_empty() {
                    write!(f, " in {}", asv_model::json::display_path(within))?;
                }
                Ok(())
            }
            InstalledProblem::BadDir { dir } => write!(
                f,
                "{}: is not a skills directory under the home directory or an absolute one (such as .claude/skills)",
                asv_model::json::display_path(&["installed", dir])
            ),
            InstalledProblem::BadName { dir, name, problem } => write!(
                f,
                "{}: the skill name {} {problem}",
                asv_model::json::display_path(&["installed", dir, name]),
                json_string(name)
            ),
            InstalledProblem::BadHash { dir, name, field } => write!(
                f,
                "{}: is not a digest (sha256:<64 hex digits>)",
                asv_model::json::display_path(&["installed", dir, name, field])
            ),
        }
    }
}
