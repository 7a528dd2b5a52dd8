//! Settings resolved once from the arguments and the environment: the repository, the output
//! format, colour and what goes to a terminal, the transport options of the commands that reach
//! a network, where an install lands.

use std::io::{self, IsTerminal};
use std::path::PathBuf;

use crate::cli::{Cli, Format, InstallScope, RootUse};
use crate::error::{DirRole, Usage};

/// What every command reads from the arguments and the environment, resolved once.
pub struct Settings {
    /// `--root` as given; without it, the repository found around the current directory (or
    /// the current directory, for a command that needs none).
    pub root: PathBuf,
    /// The root made absolute (lexically), to place paths typed from the current directory.
    pub root_abs: PathBuf,
    /// `--format`.
    pub format: Format,
    /// `-q`/`--quiet`: nothing on stderr but a refusal.
    pub quiet: bool,
    /// `-v`/`--verbose`: one line for every item, where a run over many says each kind in one.
    pub verbose: bool,
    /// Where the libraries report long work: bars on stderr for a person watching, else
    /// nobody ([`crate::progress::Bars`]).
    pub progress: asv_model::progress::Progress,
    /// `--token-stdin`, already judged to be an option of this command.
    pub token_stdin: bool,
    /// Whether stdout is coloured (`--color`, `NO_COLOR`, a terminal).
    pub stdout_color: crate::style::Paint,
    /// Whether stderr's labels are coloured (`--color`, `NO_COLOR`, a terminal).
    pub stderr_color: crate::style::Paint,
    /// Whether a clean run ends with a one-line summary on stderr: only for a person watching
    /// (stderr a terminal) who did not ask for quiet, never into a pipe or a log.
    pub summary: bool,
}

impl Settings {
    /// Resolves the settings of `cli`.
    ///
    /// # Errors
    /// `--token-stdin` on a command that reaches no network; an empty `--root`; a current
    /// directory that cannot be read.
    pub fn resolve(cli: &Cli) -> crate::error::Result<Settings> {
        if cli.token_stdin && !cli.command.facts().network {
            return Err(Usage::TokenStdinUnused {
                command: cli.command.name(),
            }
            .into());
        }
        let root = match &cli.root {
            Some(p) if p.as_os_str().is_empty() => {
                return Err(Usage::EmptyRoot.into());
            }
            Some(p) => p.clone(),
            None => PathBuf::from("."),
        };
        let mut root_abs =
            crate::paths::absolute(&root).map_err(|error| Usage::CurrentDirectory { error })?;
        let mut root = root;
        if cli.root.is_none() {
            match (cli.command.repository(), crate::paths::discover(&root_abs)) {
                (RootUse::Unused | RootUse::Here, _) => {}
                (_, Ok(found)) => {
                    root.clone_from(&found);
                    root_abs = found;
                }
                (RootUse::IfFound, Err(_)) => {}
                (RootUse::Always, Err(not_found)) => {
                    return Err(Usage::NoRepository(not_found).into());
                }
            }
        }
        Ok(Settings {
            root,
            root_abs,
            format: cli.format,
            token_stdin: cli.token_stdin,
            quiet: cli.quiet,
            verbose: cli.verbose,
            progress: crate::progress::Bars::progress(
                cli.quiet,
                cli.format == Format::Text,
                io::stderr().is_terminal(),
            ),
            stdout_color: crate::style::Paint::stdout(cli.color),
            stderr_color: crate::style::Paint::stderr(cli.color),
            summary: !cli.quiet && io::stderr().is_terminal(),
        })
    }

    /// The repository's tree.
    ///
    /// # Errors
    /// The root is not a directory that can be opened.
    pub fn open_root(&self) -> crate::error::Result<asv_fs::Root> {
        Ok(crate::paths::open_dir(&self.root, DirRole::Repository)?)
    }

    /// The options of the transports: the token piped in with `--token-stdin`, progress drawn
    /// as [`Settings::progress`] says, and in test builds only (asv-remote's `test-hooks` feature), test
    /// endpoints for the GitHub API (never reachable in a release build).
    ///
    /// # Errors
    /// A token that cannot be read or is not usable.
    pub fn transport_options(&self) -> crate::error::Result<asv_remote::Options> {
        use std::io::Read;
        let mut options = asv_remote::Options {
            progress: self.progress.clone(),
            ..asv_remote::Options::default()
        };
        if self.token_stdin {
            let stdin = io::stdin();
            let problem = if stdin.is_terminal() {
                Err(asv_remote::token::TokenProblem::Terminal)
            } else {
                let mut bytes = Vec::new();
                stdin
                    .lock()
                    .take(64 * 1024)
                    .read_to_end(&mut bytes)
                    .map_err(Usage::TokenUnread)?;
                asv_remote::token::Token::from_stdin_bytes(&bytes)
            };
            options.token = Some(problem.map_err(Usage::Token)?);
        }
        options.read_test_endpoints();
        Ok(options)
    }

    /// Where `skill install` lands: `(a tree other than the repository's, the directories in
    /// it, how its destinations are shown)`. No tree means the repository's own; the
    /// destinations are then shown from its root.
    ///
    /// # Errors
    /// An unknown target; `--scope user` without a home directory (for an agent whose
    /// variable is unset) or with an agent directory that cannot be opened; an `--into` that
    /// cannot be placed.
    pub fn install_destination(
        &self,
        into: Option<&std::path::Path>,
        targets: &[String],
        scope: InstallScope,
    ) -> crate::error::Result<(Option<asv_fs::Root>, Vec<String>, String)> {
        use asv_skills::targets::Target;
        if targets.is_empty() {
            return Ok(match into {
                None => (None, vec!["skills".to_owned()], String::new()),
                Some(into) => {
                    let located = crate::paths::locate(&self.root_abs, into, true)?;
                    if located.in_repository {
                        (None, vec![located.rel], String::new())
                    } else {
                        let shown = format!("{}/", located.root.root().display());
                        (Some(located.root), vec![located.rel], shown)
                    }
                }
            });
        }
        let mut chosen = Vec::with_capacity(targets.len());
        for name in targets {
            // clap admits only the table's names; this is for a caller that skipped it.
            chosen.push(Target::from_name(name).ok_or_else(|| unknown_target(name))?);
        }
        Ok(match scope {
            InstallScope::Project => {
                let dirs = asv_skills::targets::distinct_project_dirs(&chosen)
                    .into_iter()
                    .map(|(dir, _)| dir.to_owned())
                    .collect();
                (None, dirs, String::new())
            }
            InstallScope::User => user_destination(&chosen)?,
        })
    }
}

/// The refusal of a `--target` name the table does not hold, with the nearest names.
fn unknown_target(name: &str) -> Usage {
    Usage::UnknownTarget {
        name: name.to_owned(),
        near: asv_skills::targets::Target::nearest(name, 2, strsim::damerau_levenshtein),
    }
}

/// Where `--scope user` installs `targets`: each agent's user directory (its variable's
/// value when set and non-empty, else under `HOME`), all under the nearest directory they
/// share, so one transaction covers them. Shown from `~/` when that directory is `HOME`.
fn user_destination(
    targets: &[asv_skills::targets::Target],
) -> crate::error::Result<(Option<asv_fs::Root>, Vec<String>, String)> {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    let mut places: Vec<(PathBuf, &'static str)> = Vec::with_capacity(targets.len());
    for &t in targets {
        let moved = t.user_env().and_then(|env| {
            std::env::var_os(env.var)
                .filter(|v| !v.is_empty())
                .map(|v| (PathBuf::from(v), env.under))
        });
        let place = match (moved, &home) {
            (Some(place), _) => place,
            (None, Some(home)) => (home.clone(), t.user_dir_in_home()),
            (None, None) => {
                return Err(Usage::NoHome.into());
            }
        };
        if !places.contains(&place) {
            places.push(place);
        }
    }
    let base =
        common_ancestor(places.iter().map(|(b, _)| b.as_path())).ok_or(Usage::NoCommonDirectory)?;
    let mut dirs = Vec::with_capacity(places.len());
    for (b, under) in &places {
        let rel = b.strip_prefix(&base).unwrap_or(b);
        let rel = rel.join(under);
        let rel = rel
            .to_str()
            .ok_or_else(|| Usage::AgentDirNotUtf8 { dir: b.clone() })?;
        if !dirs.iter().any(|d: &String| d == rel) {
            dirs.push(rel.to_owned());
        }
    }
    let is_home = home.as_deref() == Some(base.as_path());
    let root = match asv_fs::Root::open(&base) {
        Err(asv_fs::Error::RootMissing { .. }) if is_home => {
            return Err(Usage::NoHomeDirectory { home: base }.into());
        }
        _ if is_home => crate::paths::open_dir(&base, DirRole::Home)?,
        _ => crate::paths::open_dir(&base, DirRole::AgentDir)?,
    };
    let shown = if is_home {
        "~/".to_owned()
    } else {
        format!("{}/", base.display())
    };
    Ok((Some(root), dirs, shown))
}

/// The deepest directory every one of `paths` lies in (a path lies in itself); none when
/// they share no first component (a relative path beside an absolute one).
fn common_ancestor<'p>(mut paths: impl Iterator<Item = &'p std::path::Path>) -> Option<PathBuf> {
    let first = paths.next()?;
    let mut common: Vec<std::path::Component<'p>> = first.components().collect();
    for p in paths {
        let shared = common
            .iter()
            .zip(p.components())
            .take_while(|(a, b)| *a == b)
            .count();
        common.truncate(shared);
    }
    if common.is_empty() {
        return None;
    }
    Some(common.iter().collect())
}
