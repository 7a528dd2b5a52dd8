//! Settings resolved once from the arguments and the environment: the repository, the output
//! format, colour and what goes to a terminal, the transport options of the commands that reach
//! a network, where an install lands.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;

use crate::cli::{Cli, Command, Format, InstallScope, SkillCommand};

/// A refusal worded for the user: printed as `error: <message>`, exit 2.
#[derive(Debug)]
pub struct Refusal(pub String);

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refusal {}

/// The line after a usage refusal.
pub const USAGE_HINT: &str = "run agentic-skill-vendor --help for the commands and options";

/// Whether a command run without `--root` looks for the repository around the current
/// directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RepositoryNeed {
    /// It works on the current directory or on paths alone (`init`, `self-test`, `skill hash`,
    /// `completions`, `man`).
    None,
    /// It takes paths and uses a repository only to show them from its root (`skill pack`,
    /// `skill validate <dir>…`, `skill install --into`, `--scope user`).
    IfFound,
    /// It works on a repository and refuses to run without one.
    Always,
}

fn repository_need(command: &Command) -> RepositoryNeed {
    match command {
        Command::Init
        | Command::SelfTest
        | Command::Completions { .. }
        | Command::Man
        | Command::Skill {
            command: SkillCommand::Hash { .. },
        } => RepositoryNeed::None,
        Command::Skill {
            command: SkillCommand::Pack { .. },
        } => RepositoryNeed::IfFound,
        Command::Skill {
            command: SkillCommand::Validate { dirs, .. },
        } if !dirs.is_empty() => RepositoryNeed::IfFound,
        Command::Skill {
            command:
                SkillCommand::Install {
                    into,
                    target,
                    scope,
                    ..
                },
        } if into.is_some() || (target.is_some() && *scope == InstallScope::User) => {
            RepositoryNeed::IfFound
        }
        _ => RepositoryNeed::Always,
    }
}

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
    /// `--token-stdin`, already judged to be an option of this command.
    pub token_stdin: bool,
    /// Whether stdout is coloured (`--color`, `NO_COLOR`, a terminal).
    pub stdout_color: crate::style::Paint,
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
    pub fn resolve(cli: &Cli) -> anyhow::Result<Settings> {
        let networked_skill = matches!(
            &cli.command,
            Command::Skill {
                command: SkillCommand::Add { .. }
                    | SkillCommand::Pull { .. }
                    | SkillCommand::Diff { .. }
                    | SkillCommand::Sync { .. }
                    | SkillCommand::Outdated { .. }
            }
        );
        if cli.token_stdin
            && !networked_skill
            && !matches!(
                cli.command,
                Command::Add { .. } | Command::Update | Command::Fetch
            )
        {
            return Err(Refusal(format!(
                "--token-stdin is not an option {} takes: it reaches no network; only add, update, fetch and skill add, pull, diff and outdated do\n{USAGE_HINT}",
                cli.command.name()
            ))
            .into());
        }
        let root = match &cli.root {
            Some(p) if p.as_os_str().is_empty() => {
                return Err(Refusal("--root needs a path".to_owned()).into());
            }
            Some(p) => p.clone(),
            None => PathBuf::from("."),
        };
        let mut root_abs = crate::paths::absolute(&root).map_err(|e| {
            Refusal(format!(
                "the current directory cannot be read ({e}); pass --root <absolute path>"
            ))
        })?;
        let mut root = root;
        if cli.root.is_none() {
            match (
                repository_need(&cli.command),
                crate::paths::discover(&root_abs),
            ) {
                (RepositoryNeed::None, _) => {}
                (_, Ok(found)) => {
                    root.clone_from(&found);
                    root_abs = found;
                }
                (RepositoryNeed::IfFound, Err(_)) => {}
                (RepositoryNeed::Always, Err(not_found)) => {
                    return Err(Refusal(not_found.to_string()).into());
                }
            }
        }
        Ok(Settings {
            root,
            root_abs,
            format: cli.format,
            token_stdin: cli.token_stdin,
            quiet: cli.quiet,
            stdout_color: crate::style::Paint::stdout(cli.color),
            summary: !cli.quiet && io::stderr().is_terminal(),
        })
    }

    /// The repository's tree.
    ///
    /// # Errors
    /// The root is not a directory that can be opened.
    pub fn open_tree(&self) -> anyhow::Result<asv_fs::Root> {
        crate::paths::open_dir(&self.root, "; pass --root <path> naming the repository")
            .map_err(|message| Refusal(message).into())
    }

    /// The options of the transports: the token piped in with `--token-stdin`, progress on a
    /// terminal's stderr, and in test builds only (asv-remote's `test-hooks` feature), test
    /// endpoints for the GitHub API (never reachable in a release build).
    ///
    /// # Errors
    /// A token that cannot be read or is not usable.
    pub fn transport_options(&self) -> anyhow::Result<asv_remote::Options> {
        use std::io::Read;
        let mut options = asv_remote::Options::default();
        // Progress goes to stderr, and only to a person watching: never into a pipe or a log.
        if !self.quiet && io::stderr().is_terminal() {
            options.progress = Some(asv_remote::Progress(std::sync::Arc::new(
                |message: &str| {
                    let _ = writeln!(io::stderr(), "{message}");
                },
            )));
        }
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
                    .map_err(|e| {
                        Refusal(format!("--token-stdin could not read standard input: {e}"))
                    })?;
                asv_remote::token::Token::from_stdin_bytes(&bytes)
            };
            options.token = Some(problem.map_err(|p| Refusal(p.to_string()))?);
        }
        options.read_test_endpoints();
        Ok(options)
    }

    /// Where `skill install` lands: `(a tree other than the repository's, the directory in
    /// it, how its destinations are shown)`. No tree means the repository's own; the
    /// destinations are then shown from its root.
    ///
    /// # Errors
    /// An unknown target; `--scope user` without a home directory; an `--into` that cannot be
    /// placed.
    pub fn install_destination(
        &self,
        into: Option<&std::path::Path>,
        target: Option<&str>,
        scope: InstallScope,
    ) -> anyhow::Result<(Option<asv_fs::Root>, String, String)> {
        use asv_skills::install::{Scope, Target};
        Ok(match (target, into) {
            (None, None) => (None, "skills".to_owned(), String::new()),
            (None, Some(into)) => {
                let located = crate::paths::locate(&self.root_abs, into, true).map_err(Refusal)?;
                if located.in_repository {
                    (None, located.rel, String::new())
                } else {
                    let shown = format!("{}/", located.tree.root().display());
                    (Some(located.tree), located.rel, shown)
                }
            }
            (Some(t), _) => {
                // clap admits only the names `Target::ALL` gives.
                let t = Target::from_name(t)
                    .ok_or_else(|| Refusal(format!("unknown target: {t}\n{USAGE_HINT}")))?;
                match scope {
                    InstallScope::Project => {
                        (None, t.dir(Scope::Project).to_owned(), String::new())
                    }
                    InstallScope::User => {
                        let home = std::env::var_os("HOME")
                            .filter(|h| !h.is_empty())
                            .ok_or_else(|| {
                                Refusal(
                                    "--scope user needs HOME set to your home directory".to_owned(),
                                )
                            })?;
                        let home = PathBuf::from(&home);
                        let home = match asv_fs::Root::open(&home) {
                            Err(asv_fs::Error::RootMissing { .. }) => {
                                return Err(Refusal(format!(
                                    "{}: the home directory does not exist; set HOME",
                                    home.display()
                                ))
                                .into());
                            }
                            _ => crate::paths::open_dir(&home, "; set HOME").map_err(Refusal)?,
                        };
                        (Some(home), t.dir(Scope::User).to_owned(), "~/".to_owned())
                    }
                }
            }
        })
    }
}
