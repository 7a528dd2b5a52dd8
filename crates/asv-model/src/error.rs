//! The one error type of `asv-model`: what reading a SKILL.md's frontmatter refuses.

use std::fmt;

use asv_error::quote::{DisplayPath, json_string};
use asv_error::{Failure, Location, Side};

use crate::id::{ContractId, IdProblem};

/// What is wrong with a SKILL.md's declaration: its frontmatter, or the ids under
/// `metadata.contracts`.
///
/// Each variant carries the values it is about; [`fmt::Display`] words it as the refusal
/// that follows `<path>[:<line>]: `, ending with what to do. Kinds of YAML node are the words
/// of [`crate::yaml::Yaml::kind`] (`a list`, `a mapping`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeclarationProblem {
    /// Line 1 reads as `---` without being it exactly.
    OpeningLookalike {
        /// The whole first line (up to its LF, so a lone CR in it shows).
        text: String,
    },
    /// The first `---` comes only after blank lines.
    OpensBelowBlank,
    /// A line reads as the closing `---` without being it exactly.
    ClosingLookalike {
        /// The line.
        text: String,
    },
    /// Line 1 is `---` and no later line is.
    Unclosed,
    /// A frontmatter line is indented with a tab.
    TabIndent,
    /// The frontmatter is not YAML.
    NotYaml {
        /// What the parser said, on one line.
        message: String,
    },
    /// The frontmatter may be valid YAML but goes over a reading limit (too deep or too
    /// large).
    TooLarge {
        /// The limit, with its value.
        limit: crate::yaml::YamlLimit,
    },
    /// The frontmatter is a YAML node other than a mapping.
    NotMapping {
        /// The kind of node found.
        found: &'static str,
    },
    /// `metadata` is a YAML node other than a mapping.
    MetadataNotMapping {
        /// The kind of node found.
        found: &'static str,
    },
    /// `metadata.contracts` is present with no value.
    ContractsNull,
    /// `metadata.contracts` is an empty list.
    ContractsEmpty,
    /// `metadata.contracts` is neither a list nor absent.
    ContractsNotList {
        /// The kind of node found.
        found: &'static str,
    },
    /// An entry of `metadata.contracts` is a list or a mapping (a pin, say) rather than an id.
    EntryNested {
        /// The entry's 0-based index.
        index: usize,
        /// The kind of node found.
        found: &'static str,
    },
    /// An entry of `metadata.contracts` is a scalar other than a string.
    EntryNotString {
        /// The entry's 0-based index.
        index: usize,
        /// The kind of node found.
        found: &'static str,
    },
    /// An entry of `metadata.contracts` is a string that is not a contract id.
    BadId {
        /// The entry's 0-based index.
        index: usize,
        /// The entry as written.
        text: String,
        /// Why it is not an id.
        problem: IdProblem,
    },
    /// `metadata.contracts` names one id twice.
    Duplicate {
        /// The id.
        id: ContractId,
    },
}

impl fmt::Display for DeclarationProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeclarationProblem::OpeningLookalike { text } => write!(
                f,
                "the line opening the frontmatter is {}, not exactly ---; write --- alone on line 1",
                json_string(text)
            ),
            DeclarationProblem::OpensBelowBlank => f.write_str(
                "the frontmatter's --- comes only after a blank line; move it to line 1",
            ),
            DeclarationProblem::ClosingLookalike { text } => write!(
                f,
                "the line closing the frontmatter is {}, not exactly ---; write --- alone on the line",
                json_string(text)
            ),
            DeclarationProblem::Unclosed => f.write_str(
                "the frontmatter opened on line 1 is never closed; add a line holding exactly ---",
            ),
            DeclarationProblem::TabIndent => {
                f.write_str("indented with a tab; YAML indentation uses spaces")
            }
            DeclarationProblem::NotYaml { message } => {
                write!(
                    f,
                    "frontmatter is not valid YAML ({message}); fix the syntax"
                )
            }
            DeclarationProblem::TooLarge { limit } => {
                write!(f, "frontmatter is {limit}; {}", limit.advice())
            }
            DeclarationProblem::NotMapping { found } => {
                write!(f, "frontmatter is {found}, expected a mapping")
            }
            DeclarationProblem::MetadataNotMapping { found } => {
                write!(f, "metadata is {found}, expected a mapping")
            }
            DeclarationProblem::ContractsNull => f.write_str(
                "metadata.contracts has no value; list the contract ids or remove the key",
            ),
            DeclarationProblem::ContractsEmpty => f.write_str(
                "metadata.contracts is an empty list; list the contract ids or remove the key",
            ),
            DeclarationProblem::ContractsNotList { found } => write!(
                f,
                "metadata.contracts is {found}, expected a list of contract ids"
            ),
            DeclarationProblem::EntryNested { index, found } => write!(
                f,
                "metadata.contracts[{index}] is {found}; an entry names a contract id and nothing else, digests live in vendor-lock.json"
            ),
            DeclarationProblem::EntryNotString { index, found } => write!(
                f,
                "metadata.contracts[{index}] is {found}, expected a contract id"
            ),
            DeclarationProblem::BadId {
                index,
                text,
                problem,
            } => write!(
                f,
                "metadata.contracts[{index}] {} is not a usable contract id: {problem}",
                json_string(text)
            ),
            DeclarationProblem::Duplicate { id } => write!(
                f,
                "metadata.contracts declares {id} twice; keep one of them"
            ),
        }
    }
}

/// A text file that is not UTF-8, a SKILL.md declaration the tool cannot read (input side), or
/// a `.gitignore` that cannot be read or used; `asv-contracts` carries it as it is
/// (`asv_contracts::Error::Model`).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Guarded tree access refused or failed (a `.gitignore` read).
    #[error(transparent)]
    Fs(#[from] asv_fs::Error),
    /// A `.gitignore` file's rules cannot be used (internal side: see
    /// [`GitignoreProblem::Unplaceable`]).
    #[error("{}: {problem}", DisplayPath(path))]
    Gitignore {
        /// The file.
        path: String,
        /// What is wrong.
        problem: GitignoreProblem,
    },
    /// The file is not UTF-8.
    #[error("{}: is not valid UTF-8; save it as UTF-8", DisplayPath(path))]
    NotUtf8 {
        /// The file.
        path: String,
    },
    /// A declaration the tool cannot make sense of.
    #[error("{}{}: {problem}", DisplayPath(path), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Declaration {
        /// The SKILL.md.
        path: String,
        /// The 1-based line, when one line is at fault.
        line: Option<usize>,
        /// What is wrong.
        problem: DeclarationProblem,
    },
}

impl Failure for Error {
    /// Which side the failure lies with: the file the user gave, but for a guarded read (which
    /// says for itself) and rules gix-ignore cannot place (this tool's fault).
    fn side(&self) -> Side {
        match self {
            Error::Fs(e) => e.side(),
            Error::Gitignore { .. } => Side::Internal,
            Error::NotUtf8 { .. } | Error::Declaration { .. } => Side::Input,
        }
    }

    /// The file the failure is in (a SKILL.md for a declaration), with the line at fault when
    /// one is.
    fn location(&self) -> Option<Location> {
        Some(match self {
            Error::Fs(e) => return e.location(),
            Error::Gitignore { path, .. } => Location::file(path.clone()),
            Error::NotUtf8 { path } => Location::file(path.clone()),
            Error::Declaration { path, line, .. } => Location::at(path.clone(), *line),
        })
    }
}

/// Why a `.gitignore` file's rules cannot be used.
#[derive(Debug)]
pub enum GitignoreProblem {
    /// gix-ignore cannot place the rules under the file's directory: it found no parent
    /// directory, or one it cannot spell as git path bytes. The paths passed are UTF-8 and
    /// always have a parent (the root's is empty), so this is never expected.
    Unplaceable(std::io::Error),
}

impl std::fmt::Display for GitignoreProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GitignoreProblem::Unplaceable(e) => e.fmt(f),
        }
    }
}

/// The result type of `asv-model`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declaration_wording() {
        use DeclarationProblem as P;
        let id = |s: &str| ContractId::parse(s).unwrap();
        let rows: Vec<(P, &str)> = vec![
            (
                P::OpeningLookalike {
                    text: "---\r".into(),
                },
                "the line opening the frontmatter is \"---\\r\", not exactly ---; write --- alone on line 1",
            ),
            (
                P::OpensBelowBlank,
                "the frontmatter's --- comes only after a blank line; move it to line 1",
            ),
            (
                P::ClosingLookalike {
                    text: " ---".into(),
                },
                "the line closing the frontmatter is \" ---\", not exactly ---; write --- alone on the line",
            ),
            (
                P::Unclosed,
                "the frontmatter opened on line 1 is never closed; add a line holding exactly ---",
            ),
            (
                P::TabIndent,
                "indented with a tab; YAML indentation uses spaces",
            ),
            (
                P::NotYaml {
                    message: "duplicate mapping key: a".into(),
                },
                "frontmatter is not valid YAML (duplicate mapping key: a); fix the syntax",
            ),
            (
                P::NotMapping { found: "a list" },
                "frontmatter is a list, expected a mapping",
            ),
            (
                P::MetadataNotMapping { found: "a list" },
                "metadata is a list, expected a mapping",
            ),
            (
                P::ContractsNull,
                "metadata.contracts has no value; list the contract ids or remove the key",
            ),
            (
                P::ContractsEmpty,
                "metadata.contracts is an empty list; list the contract ids or remove the key",
            ),
            (
                P::ContractsNotList { found: "a string" },
                "metadata.contracts is a string, expected a list of contract ids",
            ),
            (
                P::EntryNested {
                    index: 0,
                    found: "a mapping",
                },
                "metadata.contracts[0] is a mapping; an entry names a contract id and nothing else, digests live in vendor-lock.json",
            ),
            (
                P::EntryNotString {
                    index: 2,
                    found: "null",
                },
                "metadata.contracts[2] is null, expected a contract id",
            ),
            (
                P::BadId {
                    index: 1,
                    text: "A".into(),
                    problem: IdProblem::BadCharacter,
                },
                "metadata.contracts[1] \"A\" is not a usable contract id: an id starts with a-z or 0-9 and holds only a-z, 0-9, '.', '_' and '-'",
            ),
            (
                P::Duplicate { id: id("a") },
                "metadata.contracts declares a twice; keep one of them",
            ),
        ];
        for (problem, want) in rows {
            assert_eq!(problem.to_string(), want, "{problem:?}");
        }
    }

    #[test]
    fn side_and_location() {
        let e = Error::Declaration {
            path: "skills/a/SKILL.md".into(),
            line: Some(3),
            problem: DeclarationProblem::TabIndent,
        };
        assert_eq!(
            e.to_string(),
            "skills/a/SKILL.md:3: indented with a tab; YAML indentation uses spaces"
        );
        assert_eq!(e.side(), Side::Input);
        assert_eq!(
            e.location(),
            Some(Location::at("skills/a/SKILL.md", Some(3)))
        );
        let e = Error::NotUtf8 {
            path: "skills/a/SKILL.md".into(),
        };
        assert_eq!(e.side(), Side::Input);
        assert_eq!(e.location(), Some(Location::file("skills/a/SKILL.md")));
    }
}
