//! How the transports are reached: a token, progress reporting, and (debug builds only) test
//! endpoints; and [`transport`], which picks the transport a repository spec needs.

use asv_model::source::{RepositoryKind, RepositorySpec};

use crate::Transport;
use crate::error::Result;
use crate::token::Token;

/// Where a transport report what they are doing, a step at a time (the binary
/// shows it on stderr when stderr is a terminal).
#[derive(Clone)]
pub struct Progress(pub std::sync::Arc<dyn Fn(&str) + Send + Sync>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress(..)")
    }
}

/// How a transport reach sources.
#[derive(Debug, Default, Clone)]
pub struct Options {
    /// Told about each step of a fetch (resolving, listing, reading files).
    pub progress: Option<Progress>,
    /// A GitHub token, for `owner/repo` sources only.
    pub token: Option<Token>,
    /// Test-only GitHub endpoints (API, raw); honoured only in debug builds.
    pub github_endpoints: Option<(String, String)>,
    /// Extra environment for generic git (tests point `GIT_SSL_CAINFO` at their CA); honoured
    /// only in debug builds.
    pub git_env: Vec<(String, String)>,
}

/// The transport that reaches `spec`: the GitHub API for `owner/repo`, generic git otherwise.
///
/// # Errors
/// A repository the transport refuses to reach (see [`crate::git::Git::new`]).
pub fn transport(spec: &RepositorySpec, options: &Options) -> Result<Box<dyn Transport>> {
    let token = options.token.as_ref().map(|t| t.expose().to_owned());
    match spec.kind() {
        RepositoryKind::GitHub { owner, repo } => {
            #[cfg(debug_assertions)]
            if let Some((api, raw)) = &options.github_endpoints {
                return Ok(Box::new(crate::github::GitHub::with_endpoints(
                    api, raw, owner, repo, token,
                )?));
            }
            Ok(Box::new(crate::github::GitHub::new(owner, repo, token)?))
        }
        _ => {
            let git = crate::git::Git::new(spec.as_str())?;
            #[cfg(debug_assertions)]
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
