//! The binary's one error type: every refusal a command can end with, by the crate that raised
//! it, so the binary finds its side and place with one exhaustive match instead of asking each
//! crate's type in turn (issue 28 §1).

use std::io;

use asv_error::{Failure, Location, Side};

/// A refusal worded for the user: printed as `error: <message>`, exit 2.
#[derive(Debug)]
pub struct Refusal(pub String);

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refusal {}

/// The command being run had already made its change in full when it was killed, and taking
/// the writer lock finished the clean-up: there is nothing left to do (the run ends clean).
#[derive(Debug)]
pub struct Finished(pub String);

impl std::fmt::Display for Finished {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` had made its change before it was killed; nothing is left to do",
            self.0
        )
    }
}

impl std::error::Error for Finished {}

/// Why a command stopped.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The contract side refused.
    #[error(transparent)]
    Contracts(#[from] asv_contracts::Error),
    /// The skill side refused.
    #[error(transparent)]
    Skills(#[from] asv_skills::Error),
    /// A guarded access to the tree refused or failed.
    #[error(transparent)]
    Fs(#[from] asv_fs::Error),
    /// A skill tree could not be read, hashed or merged.
    #[error(transparent)]
    SkillTree(#[from] asv_skilltree::Error),
    /// The shared model refused a text (a SKILL.md declaration, a `.gitignore`).
    #[error(transparent)]
    Model(#[from] asv_model::Error),
    /// `add`, `update` or `fetch` refused.
    #[error(transparent)]
    Fetch(#[from] asv_fetch::Error),
    /// A transport refused or failed.
    #[error(transparent)]
    Remote(#[from] asv_remote::Error),
    /// A refusal worded here, of what the user typed (input side, no file of its own).
    #[error(transparent)]
    Usage(#[from] Refusal),
    /// A killed run of this command had made its change in full: nothing is left to do.
    #[error(transparent)]
    Finished(#[from] Finished),
    /// Writing the report failed (a closed pipe ends the run quietly).
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl Error {
    /// Whether writing to a closed pipe ended the run (`… | head`): not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Io(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

impl Failure for Error {
    /// Which side the failure lies with, as the crate that raised it says.
    fn side(&self) -> Side {
        match self {
            Error::Contracts(e) => e.side(),
            Error::Skills(e) => e.side(),
            Error::Fs(e) => e.side(),
            Error::SkillTree(e) => e.side(),
            Error::Model(e) => e.side(),
            Error::Fetch(e) => e.side(),
            Error::Remote(e) => e.side(),
            Error::Usage(_) | Error::Finished(_) => Side::Input,
            // Where nothing says otherwise, a failure is the input's, as before this type.
            Error::Io(_) => Side::Input,
        }
    }

    /// The file (and line) the failure is about, when there is one.
    fn location(&self) -> Option<Location> {
        match self {
            Error::Contracts(e) => e.location(),
            Error::Skills(e) => e.location(),
            Error::Fs(e) => e.location(),
            Error::SkillTree(e) => e.location(),
            Error::Model(e) => e.location(),
            Error::Fetch(e) => e.location(),
            Error::Remote(e) => e.location(),
            Error::Usage(_) | Error::Finished(_) | Error::Io(_) => None,
        }
    }
}

/// The result type of the binary's commands.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_side_comes_from_the_crate_that_raised_the_error() {
        let internal = Error::from(asv_contracts::Error::Model(asv_model::Error::Gitignore {
            path: ".gitignore".into(),
            problem: asv_model::error::GitignoreProblem::Unplaceable(io::Error::other("x")),
        }));
        assert_eq!(internal.side(), asv_error::Side::Internal);
        let input = Error::from(asv_contracts::Error::NoSkillsDir);
        assert_eq!(input.side(), asv_error::Side::Input);
        let destination = Error::from(asv_skills::Error::Occupied {
            path: "skills/a".into(),
        });
        assert_eq!(destination.side(), asv_error::Side::Destination);
        // A transport's refusal says its own side, through asv-fetch or directly.
        let ambiguous = || asv_remote::Error::Git {
            url: "https://git.example.com/c.git".into(),
            problem: Box::new(asv_remote::error::GitProblem::Ref(
                asv_remote::error::RefProblem::Unknown {
                    reference: "main".into(),
                },
            )),
        };
        assert_eq!(Error::from(ambiguous()).side(), asv_error::Side::Input);
        let fetched = Error::from(asv_fetch::Error::Remote(ambiguous()));
        assert_eq!(fetched.side(), asv_error::Side::Input);
        let limit = Error::from(asv_remote::Error::GitHub {
            owner: "o".into(),
            repo: "r".into(),
            problem: Box::new(asv_remote::error::GitHubProblem::Truncated {
                request: asv_remote::error::Request::Repository,
            }),
        });
        assert_eq!(limit.side(), asv_error::Side::Environment);
        let fetch_input = Error::from(asv_fetch::Error::NoSourceName);
        assert_eq!(fetch_input.side(), asv_error::Side::Input);
        let worded_here = Error::from(Refusal("x".into()));
        assert_eq!(worded_here.side(), asv_error::Side::Input);
    }
}
