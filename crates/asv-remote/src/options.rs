//! How the transports are reached: a token, progress reporting, and (with the `test-hooks`
//! feature only) test endpoints and environment; and [`transport`], which picks the transport
//! a repository spec needs.

use asv_model::source::{RepositoryKind, RepositorySpec};

use crate::Transport;
use crate::error::Result;
use crate::token::Token;

/// Where the transports and the commands above them report their steps (the binary draws
/// them on stderr when stderr is a terminal): the one type every library shares.
pub use asv_model::progress::Progress;

/// How a transport reach sources.
#[derive(Debug, Default, Clone)]
pub struct Options {
    /// Told about each step of a fetch (resolving, listing, fetching, reading files); nobody
    /// by default.
    pub progress: Progress,
    /// A GitHub token, for `owner/repo` sources only.
    pub token: Option<Token>,
    /// Test-only GitHub endpoints (API, raw). Exists only with the `test-hooks` feature, so a
    /// build without it cannot point the GitHub transport anywhere but the two fixed hosts.
    #[cfg(feature = "test-hooks")]
    pub github_endpoints: Option<(String, String)>,
    /// Extra environment for generic git (tests point `GIT_SSL_CAINFO` at their CA). Exists
    /// only with the `test-hooks` feature.
    #[cfg(feature = "test-hooks")]
    pub git_env: Vec<(String, String)>,
}

impl Options {
    /// Takes test GitHub endpoints from the environment: `ASV_TEST_GITHUB_API` and
    /// `ASV_TEST_GITHUB_RAW`, when both are set. Does nothing unless built with the
    /// `test-hooks` feature, so that a shipped binary never reads them; the binary's own
    /// integration tests, which enable the feature through a dev-dependency, point it at a
    /// server of theirs this way.
    // The one place this crate reads the environment: the binary calls it, so the binary
    // needs no feature of its own, and without the feature nothing is read at all.
    pub fn read_test_endpoints(&mut self) {
        #[cfg(feature = "test-hooks")]
        if let (Ok(api), Ok(raw)) = (
            std::env::var("ASV_TEST_GITHUB_API"),
            std::env::var("ASV_TEST_GITHUB_RAW"),
        ) {
            self.github_endpoints = Some((api, raw));
        }
    }
}

/// The transport that reaches `spec`: the GitHub API for `owner/repo`, generic git otherwise.
///
/// # Errors
/// A repository the transport refuses to reach (see [`crate::git::Git::new`]).
pub fn transport(spec: &RepositorySpec, options: &Options) -> Result<Box<dyn Transport>> {
    let token = options.token.as_ref().map(|t| t.expose().to_owned());
    match spec.kind() {
        RepositoryKind::GitHub { owner, repo } => {
            #[cfg(feature = "test-hooks")]
            if let Some((api, raw)) = &options.github_endpoints {
                return Ok(Box::new(crate::github::GitHub::with_endpoints(
                    api, raw, owner, repo, token,
                )?));
            }
            Ok(Box::new(crate::github::GitHub::new(owner, repo, token)?))
        }
        _ => {
            let git = crate::git::Git::new(spec.as_str())?.with_progress(options.progress.clone());
            #[cfg(feature = "test-hooks")]
            let git = if options.git_env.is_empty() {
                git
            } else {
                git.with_env(
                    options
                        .git_env
                        .iter()
                        .map(|(k, v)| (k.into(), v.into()))
                        .collect(),
                )
            };
            Ok(Box::new(git))
        }
    }
}
