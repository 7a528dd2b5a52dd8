//! The one error type of `asv-fetch`.

use asv_contracts::manifest::MANIFEST_FILE;
use asv_error::quote::json_string;
use asv_error::{Failure, Location, Side};

/// Everything the fetching commands refuse or fail at.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A source answered a commit id that is not one (remote side).
    #[error(
        "{repository} answered {} for a commit id, which is not one; nothing was changed",
        json_string(answered)
    )]
    NotACommit {
        /// The repository as registered.
        repository: String,
        /// What it answered.
        answered: String,
    },
    /// `add` was given a repository it cannot use (input side).
    #[error(
        "the repository is not usable: {problem}; give owner/repo, ssh://…, user@host:path or https://…"
    )]
    Repository {
        /// Why.
        problem: asv_model::source::RepositoryProblem,
    },
    /// `add` was given a source name it cannot use (input side).
    #[error("the source name {} is not usable: {problem}", json_string(name))]
    SourceName {
        /// The name as given.
        name: String,
        /// Why.
        problem: asv_model::source::SourceNameProblem,
    },
    /// The repository's own name makes no source name, and none was given (input side).
    #[error(
        "the repository's own name is not a usable source name; give one: add <repository> <name>"
    )]
    NoSourceName,
    /// `add` of a name the table already registers (input side).
    #[error("{name} is already registered in vendor-manifest.yaml; run update to move its pin")]
    AlreadyRegistered {
        /// The source name.
        name: String,
    },
    /// Several sources hold a declared contract the table maps to none of them (input side).
    #[error("{} both hold contracts/{id}.md; write the contracts.{id} line in vendor-manifest.yaml to say which one {id} comes from", sources.join(" and "))]
    Ambiguous {
        /// The contract.
        id: String,
        /// The sources holding it.
        sources: Vec<String>,
    },
    /// A source listed a path that is not inside the repository (remote side).
    #[error(
        "the source {name} lists {}, which is not a path inside the repository; nothing was cached",
        json_string(path)
    )]
    ListedOutside {
        /// The source name.
        name: String,
        /// The path as listed.
        path: String,
    },
    /// A transport refused or failed (remote side, a limit, or the environment).
    #[error(transparent)]
    Remote(#[from] asv_remote::Error),
    /// Guarded tree access refused or failed.
    #[error(transparent)]
    Fs(#[from] asv_fs::Error),
    /// A contracts-side refusal (manifest, lock, a text that is not usable).
    #[error(transparent)]
    Contracts(#[from] asv_contracts::Error),
}

impl Failure for Error {
    /// Which side the failure lies with: what `add` was given and what the table says are the
    /// input's; a source that answers a commit id that is none, or lists a path outside the
    /// repository, is the environment's. A wrapped error answers for itself.
    fn side(&self) -> Side {
        match self {
            Error::Repository { .. }
            | Error::SourceName { .. }
            | Error::NoSourceName
            | Error::AlreadyRegistered { .. }
            | Error::Ambiguous { .. } => Side::Input,
            Error::NotACommit { .. } | Error::ListedOutside { .. } => Side::Environment,
            Error::Remote(e) => e.side(),
            Error::Fs(e) => e.side(),
            Error::Contracts(e) => e.side(),
        }
    }

    /// The file (from the root) the failure is about, when there is one: the table of origins
    /// for a name it already registers or a contract it must map; a wrapped error's own.
    fn location(&self) -> Option<Location> {
        match self {
            Error::AlreadyRegistered { .. } | Error::Ambiguous { .. } => {
                Some(Location::file(MANIFEST_FILE))
            }
            Error::Remote(e) => e.location(),
            Error::Fs(e) => e.location(),
            Error::Contracts(e) => e.location(),
            Error::NotACommit { .. }
            | Error::Repository { .. }
            | Error::SourceName { .. }
            | Error::NoSourceName
            | Error::ListedOutside { .. } => None,
        }
    }
}

/// The result type of `asv-fetch`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sides_and_locations() {
        let transport = || asv_remote::Error::GitHubName {
            owner: "o".to_owned(),
            repo: ".r".to_owned(),
            field: asv_remote::error::NameField::Repository,
        };
        let rows = [
            (
                Error::NotACommit {
                    repository: "o/r".to_owned(),
                    answered: "x".to_owned(),
                },
                Side::Environment,
                None,
            ),
            (
                Error::Repository {
                    problem: asv_model::source::RepositoryProblem::Whitespace,
                },
                Side::Input,
                None,
            ),
            (Error::NoSourceName, Side::Input, None),
            (
                Error::AlreadyRegistered {
                    name: "up".to_owned(),
                },
                Side::Input,
                Some(Location::file(MANIFEST_FILE)),
            ),
            (
                Error::Ambiguous {
                    id: "a".to_owned(),
                    sources: vec!["s".to_owned(), "t".to_owned()],
                },
                Side::Input,
                Some(Location::file(MANIFEST_FILE)),
            ),
            (
                Error::ListedOutside {
                    name: "up".to_owned(),
                    path: "../x".to_owned(),
                },
                Side::Environment,
                None,
            ),
            // A wrapped error answers for itself.
            (Error::Remote(transport()), Side::Input, None),
            (
                Error::Fs(asv_fs::Error::Symlink {
                    path: "a".to_owned(),
                }),
                Side::Input,
                Some(Location::file("a")),
            ),
            (
                Error::Contracts(asv_contracts::Error::NoSkillsDir),
                Side::Input,
                None,
            ),
        ];
        for (error, side, location) in rows {
            assert_eq!(error.side(), side, "{error}");
            assert_eq!(error.location(), location, "{error}");
        }
    }
}
