//! The one error type of `asv-remote`.

/// Everything a source transport refuses or fails at.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The remote refused or answered something the tool will not take (remote side).
    #[error("{0}")]
    Remote(String),
    /// A limit was reached (size, time) (remote side).
    #[error("{0}")]
    Limit(String),
    /// The local environment failed (git missing, temporary directory, I/O).
    #[error("{0}")]
    Environment(String),
    /// Guarded tree access refused or failed.
    #[error(transparent)]
    Fs(#[from] asv_fs::Error),
}

/// The result type of `asv-remote`.
pub type Result<T, E = Error> = std::result::Result<T, E>;
