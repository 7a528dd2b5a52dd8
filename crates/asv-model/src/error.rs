//! The one error type of `asv-model`: what reading a SKILL.md's frontmatter refuses.

use asv_fs::quote::DisplayPath;

/// A SKILL.md the tool cannot read (input side); `asv-contracts` carries each variant over
/// under the same name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The file is not UTF-8.
    #[error("{}: is not valid UTF-8; save it as UTF-8", DisplayPath(path))]
    NotUtf8 {
        /// The file.
        path: String,
    },
    /// A declaration the tool cannot make sense of.
    #[error("{}{}: {message}", DisplayPath(path), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Declaration {
        /// The SKILL.md.
        path: String,
        /// The 1-based line, when one line is at fault.
        line: Option<usize>,
        /// What is wrong and what to do.
        message: String,
    },
}

/// The result type of `asv-model`.
pub type Result<T, E = Error> = std::result::Result<T, E>;
