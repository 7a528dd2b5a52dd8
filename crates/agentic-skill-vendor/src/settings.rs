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

/// Whether `dir` holds `.git` (the top of a git work tree, where the search for a repository
/// stopped).
fn holds_git(dir: &std::path::Path) -> bool {
    asv_fs::Root::open(dir).is_ok_and(|r| matches!(r.kind(".git"), Ok(Some(_))))
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
        let audit = matches!(
            &cli.command,
            crate::cli::Command::Skill {
                command: crate::cli::SkillCommand::Audit { allow: None, .. }
                    | crate::cli::SkillCommand::Verify
            }
        );
        // `skill audit --allow` writes an entry, and has no findings to report.
        if cli.format == crate::cli::Format::Sarif && !audit {
            return Err(Usage::SarifUnsupported {
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
                (RootUse::OrGitTop, Err(not_found)) if holds_git(&not_found.top) => {
                    root.clone_from(&not_found.top);
                    root_abs = not_found.top;
                }
                (RootUse::Always | RootUse::OrGitTop, Err(not_found)) => {
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

/// Where `skill sync --scope user` works: the user state directory, the home directory the
/// agents' user directories are in, those directories, and the intent naming them.
pub struct UserSync {
    /// `$XDG_CONFIG_HOME/agentic-skill-vendor` (else `~/.config/agentic-skill-vendor`): the
    /// user's intent, lock and `skills/`, synced as a repository's are.
    pub state: asv_fs::Root,
    /// The state directory's path, as refusals of its files name them.
    pub state_dir: PathBuf,
    /// `HOME`, opened guarded: the tree the copies are written in. Never scanned, never taken
    /// for a repository; only the agents' directories in it are read and written.
    pub home: asv_fs::Root,
    /// The intent's targets' user directories relative to `HOME`, each once, in the order
    /// first named.
    pub dirs: Vec<String>,
    /// The user intent, as read.
    pub intent: asv_skills::intent::Intent,
}

/// The directory the user's state lives in: `$XDG_CONFIG_HOME` when set to an absolute path
/// (the XDG rule: a relative one is ignored), else `<home>/.config`, then
/// `agentic-skill-vendor`.
fn user_state_dir(home: &std::path::Path) -> PathBuf {
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|c| c.is_absolute())
        .unwrap_or_else(|| home.join(".config"));
    config.join("agentic-skill-vendor")
}

/// The user state directory's path, for `skill install --scope user`, which records there
/// what it placed and makes the directory when it has to: [`user_state_dir`] of `HOME`, or
/// under an absolute `XDG_CONFIG_HOME` alone; `None` with neither (an install into a
/// directory an agent's variable names needs no `HOME`).
pub fn user_state_path() -> Option<PathBuf> {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    match home {
        Some(home) => Some(user_state_dir(&home)),
        None => std::env::var_os("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .filter(|c| c.is_absolute())
            .map(|c| c.join("agentic-skill-vendor")),
    }
}

/// The user state directory at `dir`, opened; `None` while it does not exist.
///
/// # Errors
/// A path that is not a directory or cannot be opened.
pub fn open_user_state(dir: &std::path::Path) -> crate::error::Result<Option<asv_fs::Root>> {
    match asv_fs::Root::open(dir) {
        Err(asv_fs::Error::RootMissing { .. }) => Ok(None),
        _ => Ok(Some(crate::paths::open_dir(dir, DirRole::Parent)?)),
    }
}

/// The user install record (`skill install --scope user`'s), empty when there is no state
/// directory or no record in it; refusals name the file by its full path.
///
/// # Errors
/// A state directory that cannot be opened; a record that cannot be read.
pub fn user_installed() -> crate::error::Result<asv_skills::installed::InstalledRecord> {
    let Some(dir) = user_state_path() else {
        return Ok(Default::default());
    };
    match open_user_state(&dir)? {
        None => Ok(Default::default()),
        Some(state) => Ok(asv_skills::installed::InstalledRecord::load(
            &state,
            &installed_shown(&dir),
        )?),
    }
}

/// The user install record's full path, as refusals name it.
pub fn installed_shown(state_dir: &std::path::Path) -> String {
    state_dir
        .join(asv_skills::installed::INSTALLED_FILE)
        .display()
        .to_string()
}

/// The user lock (`skill sync --scope user`'s record), if the state directory holds one.
///
/// # Errors
/// A state directory that cannot be opened; a lock that cannot be read.
pub fn user_lock() -> crate::error::Result<Option<asv_skills::lock::SkillLock>> {
    let Some(home) = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
    else {
        return Ok(None);
    };
    let state_dir = user_state_dir(&home);
    let state = match asv_fs::Root::open(&state_dir) {
        Err(asv_fs::Error::RootMissing { .. }) => return Ok(None),
        _ => crate::paths::open_dir(&state_dir, DirRole::Parent)?,
    };
    Ok(Some(asv_skills::lock::SkillLock::load_as(
        &state,
        asv_skills::targets::Scope::User,
    )?))
}

/// Finds and opens what `skill sync --scope user` works on ([`UserSync`]).
///
/// # Errors
/// No `HOME`, or one that does not exist; no user intent file; an agent's user directory that
/// a variable moves outside `HOME` or to a path that is not UTF-8; a directory that cannot be
/// opened; an intent that cannot be read.
pub fn user_sync_places() -> crate::error::Result<UserSync> {
    use asv_skills::targets::Target;
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or(Usage::NoHome)?;
    let state_dir = user_state_dir(&home);
    let intent_file = state_dir.join(asv_model::layout::SKILL_INTENT);
    let state = match asv_fs::Root::open(&state_dir) {
        Err(asv_fs::Error::RootMissing { .. }) => {
            return Err(Usage::NoUserIntent { file: intent_file }.into());
        }
        _ => crate::paths::open_dir(&state_dir, DirRole::Parent)?,
    };
    let intent = asv_skills::intent::Intent::load(&state)?;
    if !intent.written {
        return Err(Usage::NoUserIntent { file: intent_file }.into());
    }
    let home_root = match asv_fs::Root::open(&home) {
        Err(asv_fs::Error::RootMissing { .. }) => {
            return Err(Usage::NoHomeDirectory { home }.into());
        }
        _ => crate::paths::open_dir(&home, DirRole::Home)?,
    };
    let mut dirs: Vec<String> = Vec::new();
    for name in &intent.targets {
        // The intent's reader admits only the table's names; another is left out, as the
        // project scope leaves it.
        let Some(t) = Target::from_name(name) else {
            continue;
        };
        let dir = t.user_dir(&home, |v| std::env::var_os(v));
        let rel = dir
            .strip_prefix(&home)
            .ok()
            .filter(|r| {
                r.components()
                    .all(|c| matches!(c, std::path::Component::Normal(_)))
            })
            .ok_or_else(|| Usage::UserDirOutsideHome {
                agent: t.name(),
                dir: dir.clone(),
            })?;
        let rel = rel
            .to_str()
            .ok_or_else(|| Usage::AgentDirNotUtf8 { dir: dir.clone() })?;
        if !dirs.iter().any(|d| d == rel) {
            dirs.push(rel.to_owned());
        }
    }
    Ok(UserSync {
        state,
        state_dir,
        home: home_root,
        dirs,
        intent,
    })
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
