//! Why a repository argument is not a usable source.

use std::fmt;

/// Why a repository argument is not a usable source.
#[derive(Debug)]
pub enum SourceProblem {
    /// Text that is none of the repository forms the transports accept.
    Unaccepted(asv_model::source::RepositoryProblem),
    /// A local directory that is not there (or cannot be opened as a directory).
    NoSuchDirectory,
    /// A local directory whose absolute path cannot be formed (the working directory is
    /// unreadable).
    Unresolvable(std::io::Error),
    /// A local directory whose absolute path is not UTF-8, which git cannot be given.
    NotUtf8,
}

impl fmt::Display for SourceProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceProblem::Unaccepted(problem) => problem.fmt(f),
            SourceProblem::NoSuchDirectory => f.write_str("no such directory"),
            SourceProblem::Unresolvable(e) => e.fmt(f),
            SourceProblem::NotUtf8 => f.write_str("the path is not UTF-8"),
        }
    }
}
