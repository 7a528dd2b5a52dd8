//! What is wrong with `vendor-skills-lock.json` and its `projections`.

use std::fmt;

use asv_error::quote::json_string;

/// What is wrong with `vendor-skills-lock.json`.
#[derive(Debug)]
pub enum SkillLockProblem {
    /// The text is not JSON of the lock's shape (an unknown key, a missing field, a syntax
    /// error): serde's description, which names the line and column.
    NotValid(serde_json::Error),
    /// The `version` is not the one this build reads.
    Version {
        /// The version the file holds.
        found: u32,
        /// The version this build reads.
        read: u32,
    },
    /// A key of `skills` is not a usable skill name.
    BadName {
        /// The key as written.
        name: String,
        /// Why it is not a skill name ([`crate::name_problem`]).
        problem: &'static str,
    },
    /// A projection whose directory, skill name or hash is not one a sync could have
    /// recorded.
    BadProjection {
        /// The directory as written.
        dir: String,
        /// The skill name as written.
        name: String,
        /// What is wrong with it.
        problem: ProjectionProblem,
    },
    /// An object of the file holds one key twice (serde would keep the last one without a
    /// word, while a reader of the file sees the first).
    Duplicate {
        /// The keys from the top level down to the repeated one, it last.
        path: Vec<String>,
    },
    /// An entry's `path` (the skill's directory in its source) that is not `.` or a plain
    /// relative path.
    BadPath {
        /// The skill whose entry holds it.
        name: String,
        /// The value as written.
        path: String,
        /// Why not.
        problem: asv_skilltree::PathProblem,
    },
    /// A `baseHash` (of the entry or of its pending pull) is not a tree hash.
    BadHash {
        /// The skill whose entry holds it.
        name: String,
        /// The value as written.
        hash: String,
    },
    /// A `capabilities` digest (of the entry or of its pending pull) is not a digest as the
    /// audit prints one.
    BadCapabilities {
        /// The skill whose entry holds it.
        name: String,
        /// The value as written.
        digest: String,
    },
    /// An entry's `signer` (or its pending one) whose key is no `SHA256:` fingerprint or whose
    /// principal is empty or holds a control character (issue 33 §1).
    BadSigner {
        /// The skill whose entry holds it.
        name: String,
    },
}

impl fmt::Display for SkillLockProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Rust's `{:?}` quoting is kept for names and hashes: it is what earlier releases
        // printed.
        match self {
            SkillLockProblem::NotValid(e) => write!(f, "not valid: {e}"),
            SkillLockProblem::Version { found, read } => {
                write!(
                    f,
                    "version {found} is not the version {read} this build reads"
                )
            }
            SkillLockProblem::BadProjection { dir, name, problem } => {
                let at = asv_model::json::display_path(&["projections", dir, name]);
                match problem {
                    ProjectionProblem::UnknownDir => write!(
                        f,
                        "{at}: {} is not the project skills directory of an agent skill sync knows (such as .claude/skills or .agents/skills)",
                        json_string(dir)
                    ),
                    ProjectionProblem::NotUserDir => write!(
                        f,
                        "{at}: {} is not a user skills directory under the home directory (such as .claude/skills or .config/goose/skills)",
                        json_string(dir)
                    ),
                    ProjectionProblem::BadName(why) => {
                        write!(f, "{at}: the skill name {} {why}", json_string(name))
                    }
                    ProjectionProblem::BadHash => {
                        write!(f, "{at}: is not a tree hash (sha256:<64 hex digits>)")
                    }
                }
            }
            SkillLockProblem::Duplicate { path } => {
                let (key, within) = path
                    .split_last()
                    .map_or(("", &[][..]), |(k, w)| (k.as_str(), w));
                write!(f, "the key {} appears twice", json_string(key))?;
                if !within.is_empty() {
                    write!(f, " in {}", asv_model::json::display_path(within))?;
                }
                Ok(())
            }
            SkillLockProblem::BadPath {
                name,
                path,
                problem,
            } => write!(
                f,
                "{}: {} {problem}, not . or a plain relative path inside the source",
                asv_model::json::display_path(&["skills", name, "path"]),
                json_string(path)
            ),
            SkillLockProblem::BadName { name, problem } => {
                write!(f, "the skill name {name:?} {problem}")
            }
            SkillLockProblem::BadHash { name, hash } => write!(
                f,
                "{name}: {hash:?} is not a tree hash (sha256:<64 hex digits>)"
            ),
            SkillLockProblem::BadCapabilities { name, digest } => write!(
                f,
                "{name}: the capabilities {} are not a capability digest (sha256:<64 hex digits>)",
                json_string(digest)
            ),
            SkillLockProblem::BadSigner { name } => write!(
                f,
                "{name}: the signer is not one this tool records (a principal, and a key fingerprint SHA256:<base64>)"
            ),
        }
    }
}

impl SkillLockProblem {
    /// What to do about it, as the refusal ends.
    pub fn advice(&self) -> &'static str {
        match self {
            SkillLockProblem::BadProjection { .. } => {
                "remove the entry (skill sync records again what it places and claims identical copies)"
            }
            SkillLockProblem::Duplicate { .. } => "keep one of them and remove the other",
            SkillLockProblem::BadPath { .. } => {
                "fix or remove the entry, then add the skill again with skill add"
            }
            SkillLockProblem::BadCapabilities { .. } => {
                "remove the capabilities field (the next skill pull that moves the base writes it again)"
            }
            _ => "fix or remove the file, then add the skills again",
        }
    }
}

/// What is wrong with one entry of the lock's `projections`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectionProblem {
    /// The directory is not the project directory of a known agent
    /// ([`crate::targets::AGENTS`]), the only places sync mirrors into.
    UnknownDir,
    /// In the user state lock: the directory is not a plain relative path ending in
    /// `skills`, as every agent's user directory is.
    NotUserDir,
    /// The skill name is not one ([`crate::name_problem`] says why).
    BadName(&'static str),
    /// The value is not a tree hash.
    BadHash,
}
