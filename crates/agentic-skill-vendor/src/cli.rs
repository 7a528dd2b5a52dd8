//! What the user typed: clap structs only. Their doc comments are the help text.

use std::path::PathBuf;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

/// Keeps shared documents byte-identical across the Agent Skills of a repository.
///
/// A contract's canonical text lives once under contracts/; every skill that names it under
/// metadata.contracts in its SKILL.md gets its own copy, and vendor-lock.json records the
/// digest distributed. Run gen after editing, verify in CI.
#[derive(Debug, Parser)]
#[command(
    name = "agentic-skill-vendor",
    version,
    after_help = "Exit codes: 0 nothing to report, 1 violations (one per line on stdout), \
                  2 a refusal or an internal error (on stderr).\n\
                  gen, verify, lint-selfcontain and self-test read and write the tree and \
                  nothing else: no network, no subprocess, no environment (but NO_COLOR and \
                  TERM, for colour on a terminal)."
)]
pub struct Cli {
    /// The repository to work on [default: the one around the current directory]
    ///
    /// Without --root: the current directory or the nearest one above it that holds
    /// vendor-lock.json, vendor-manifest.yaml, vendor-skills-lock.json, vendor-skills.yaml or skills/, never above
    /// the top of its git work tree.
    #[arg(long, global = true, value_name = "path")]
    pub root: Option<PathBuf>,

    /// How to print the report: plain lines, one JSON object per line, or GitHub Actions
    /// annotations
    #[arg(long, global = true, value_enum, value_name = "format", default_value_t = Format::Text)]
    pub format: Format,

    /// Print no warnings, progress or summary on stderr (refusals still are)
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// Read a GitHub token from standard input (add, update, fetch, and skill add, pull, diff, outdated and sync)
    #[arg(long, global = true)]
    pub token_stdin: bool,

    /// When to colour the output: auto colours a terminal, unless NO_COLOR is set
    #[arg(long, global = true, value_enum, value_name = "when", default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write each contract's current text into every skill that declares it, and the lock
    Gen {
        /// Print what gen would change (plan: <action> <path>), and write nothing
        #[arg(long)]
        dry_run: bool,
    },
    /// Check the whole tree against the lock; exit 1 on any violation
    Verify,
    /// Check that no skill points outside its own directory
    LintSelfcontain,
    /// Check the tool's digests against vectors embedded in it
    SelfTest,
    /// Register another repository as a source and take up the contracts it holds
    Add {
        /// owner/repo, or an ssh:// / user@host:path / https:// git URL
        repository: String,
        /// The source's name [default: the repository's own name]
        name: Option<String>,
    },
    /// Move every source's pin to what its ref names now
    Update,
    /// Fill the cache with exactly what the lock pins
    Fetch,
    /// Make contracts/, skills/ and the .gitignore rule for the tool's working directory, where missing
    Init,
    /// Print a shell completion script (bash: source it, or save it where your shell loads completions)
    Completions {
        /// The shell
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff); read it with man -l
    Man,
    /// Work with whole skills
    Skill {
        /// What to do with skills.
        #[command(subcommand)]
        command: SkillCommand,
    },
}

/// The `skill` commands.
#[derive(Debug, Subcommand)]
pub enum SkillCommand {
    /// Check skills against the Agent Skills rules (default: every skill under skills/)
    Validate {
        /// Skill directories (paths from the current directory, or absolute)
        dirs: Vec<std::path::PathBuf>,
        /// Treat warnings as errors
        #[arg(long)]
        strict: bool,
    },
    /// Print the tree hash (sha256:<hex>) of a skill directory
    Hash {
        /// The skill directory
        dir: std::path::PathBuf,
    },
    /// Take a whole skill from another repository (or a local directory) into skills/<name>
    Add {
        /// owner/repo, a git URL, or a local directory starting with ./, ../ or / (from the current directory)
        repository: String,
        /// The skill's directory in that repository (. for its root); with --all, the directory whose subdirectories are the skills
        path: String,
        /// The local name (default: the name its SKILL.md gives, else the last segment of the path)
        #[arg(long)]
        name: Option<String>,
        /// The branch, tag or commit to follow (default: the repository's default branch, for a local git repository too)
        #[arg(long = "ref")]
        reference: Option<String>,
        /// Take every skill under the path (each directory directly under it holding a SKILL.md), all or none
        #[arg(long, conflicts_with = "name")]
        all: bool,
        /// For a local git repository: read its working tree as it stands (uncommitted and untracked files, .gitignore honoured) instead of its default branch's commit
        #[arg(long, conflicts_with = "reference")]
        working_tree: bool,
    },
    /// Show each imported skill: clean, modified, missing, invalid or conflicted (offline)
    Status,
    /// Merge upstream changes into imported skills, keeping local edits
    Pull {
        /// Skills to pull (default: every imported skill)
        names: Vec<String>,
        /// On conflict, write the files with diff3 markers and wait for skill resolve
        #[arg(long)]
        write_conflicts: bool,
        /// Say what the pull would do (merged, up to date, conflicts) and write nothing
        #[arg(long)]
        dry_run: bool,
        /// Move the one skill named to this ref (branch, tag, commit or semver range like ^1.2), recording it in vendor-skills.yaml
        #[arg(long = "ref", value_name = "REF")]
        reference: Option<String>,
    },
    /// Make the tree what vendor-skills.yaml and the lock say, and mirror skills/ into each target agent's directory (never moves a pin)
    Sync {
        /// Replace or remove what stands in the way (an edited mirrored copy, a dropped skill's local edits)
        #[arg(long)]
        force: bool,
        /// Say what sync would do and write nothing
        #[arg(long)]
        dry_run: bool,
    },
    /// Check (for CI) that the tree is what vendor-skills.yaml and the lock say; exit 1 on any problem
    Verify,
    /// Record a conflicted skill as resolved once its markers are gone
    Resolve {
        /// The skill
        name: String,
    },
    /// Pack a skill into a reproducible ZIP (warns past 8 MiB, refuses past 30 MiB)
    Pack {
        /// The skill directory (a path from the current directory, or absolute)
        dir: std::path::PathBuf,
        /// Where to write the ZIP (default: <name>.zip in the current directory)
        #[arg(short = 'o', long = "output")]
        output: Option<std::path::PathBuf>,
    },
    /// Install skills from a directory, a ZIP or a .tar.gz, all or nothing
    Install {
        /// A skill directory, a directory of skills, a ZIP or a .tar.gz
        input: std::path::PathBuf,
        /// The directory to install into, from the current directory or absolute (default: skills/ of the root)
        #[arg(long, conflicts_with = "target")]
        into: Option<std::path::PathBuf>,
        /// Install where these agents read skills (comma-separated, or --target again; a directory two agents share is written once)
        #[arg(long, value_parser = install_targets(), value_delimiter = ',', action = clap::ArgAction::Append)]
        target: Vec<String>,
        /// With --target: the project (under the root) or the user's home directory
        #[arg(long, value_enum, requires = "target", default_value_t = InstallScope::Project)]
        scope: InstallScope,
        /// Replace skills that are already installed
        #[arg(long)]
        force: bool,
        /// Print the plan and write nothing
        #[arg(long)]
        dry_run: bool,
    },
    /// Show a unified diff between two versions of an imported skill
    Diff {
        /// The skill
        name: String,
        /// The version to diff from
        #[arg(long, value_enum, default_value_t = SkillVersion::Base)]
        from: SkillVersion,
        /// The version to diff to
        #[arg(long, value_enum, default_value_t = SkillVersion::Local)]
        to: SkillVersion,
    },
    /// Remove imported skills: each one's directory, lock entry and kept base, all or nothing
    Remove {
        /// The imported skills to remove
        #[arg(required = true)]
        names: Vec<String>,
        /// Remove a skill even when its local edits or unresolved conflicts would be lost
        #[arg(long)]
        force: bool,
    },
    /// Show the imported skills whose upstream ref has moved since the lock; exit 1 when any has
    Outdated {
        /// Skills to check (default: every imported skill)
        names: Vec<String>,
    },
    /// List every skill under skills/, own or imported, with its origin and state (offline); with --target, the skills in that agent's directory and whether skill sync placed them
    List {
        /// List this agent's skills directory instead
        #[arg(long, value_parser = install_targets())]
        target: Option<String>,
        /// With --target: the project's directory of the agent, or the user's
        #[arg(long, value_enum, requires = "target", default_value_t = InstallScope::Project)]
        scope: InstallScope,
    },
}

/// The `--target` values, each with the directories it installs into, from the one table
/// the installer knows (`asv_skills::targets`).
fn install_targets() -> clap::builder::PossibleValuesParser {
    use asv_skills::targets::Target;
    clap::builder::PossibleValuesParser::new(Target::all().map(|t| {
        let user = match t.user_env() {
            Some(env) => format!("~/{} or ${}/{}", t.user_dir_in_home(), env.var, env.under),
            None => format!("~/{}", t.user_dir_in_home()),
        };
        clap::builder::PossibleValue::new(t.name()).help(format!(
            "{}: {} (user: {user})",
            t.display_name(),
            t.project_dir()
        ))
    }))
}

/// Where a target's skills go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InstallScope {
    /// Under the repository root
    Project,
    /// Under the home directory
    User,
}

/// A version of an imported skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SkillVersion {
    /// The upstream version the local copy started from
    Base,
    /// The copy under skills/
    Local,
    /// Upstream now
    Upstream,
}

impl Command {
    /// The command's name as typed.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Gen { .. } => "gen",
            Command::Verify => "verify",
            Command::LintSelfcontain => "lint-selfcontain",
            Command::SelfTest => "self-test",
            Command::Add { .. } => "add",
            Command::Update => "update",
            Command::Fetch => "fetch",
            Command::Init => "init",
            Command::Completions { .. } => "completions",
            Command::Man => "man",
            Command::Skill { .. } => "skill",
        }
    }
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Plain lines, one per finding.
    Text,
    /// One JSON object per finding: kind, path, id, line, message.
    Json,
    /// GitHub Actions annotations (::error file=…::), shown on the pull request.
    Github,
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour what goes to a terminal, unless NO_COLOR is set (and not empty) or TERM is dumb.
    Auto,
    /// Colour even into a pipe or a file.
    Always,
    /// Never colour.
    Never,
}

/// The options a user may give before or after any command (`--root X verify` as well as
/// `verify --root X`), by the names clap knows them by.
const SHARED_OPTIONS: [&str; 5] = ["root", "format", "quiet", "token_stdin", "color"];

/// Whether the command at `path` (`["skill", "add"]`) makes use of the shared option `id`.
/// `skill` itself shows every option one of its commands uses.
fn uses(path: &[&str], id: &str) -> bool {
    match id {
        // These work on the current directory or on the paths they are given alone.
        "root" => !matches!(
            path,
            ["self-test" | "completions" | "man"] | ["skill", "hash"]
        ),
        // These print a fixed text.
        "format" => !matches!(path, ["completions" | "man"]),
        // The commands that print warnings, progress or a summary on stderr.
        "quiet" => matches!(
            path,
            ["gen" | "verify" | "add" | "update" | "fetch" | "skill"]
                | [
                    "skill",
                    "validate" | "add" | "pull" | "diff" | "sync" | "verify" | "outdated"
                ]
        ),
        // The commands that reach a network.
        "token_stdin" => matches!(
            path,
            ["add" | "update" | "fetch" | "skill"]
                | ["skill", "add" | "pull" | "diff" | "sync" | "outdated"]
        ),
        // Every command may refuse, and a refusal's label is coloured.
        _ => true,
    }
}

/// The command line as clap parses it: [`Cli`], with each command's help listing only the
/// shared options that command uses.
///
/// Every command still accepts every shared option, anywhere on the line, so a command line
/// that worked keeps working and `gen --token-stdin` still meets its own refusal (the
/// TypeScript tool refuses it the same way). clap copies a global option into each command
/// only where the command has no option of that name, so each command gets its own copy
/// here, hidden where the command has no use for it; the value still reaches [`Cli`].
pub fn command() -> clap::Command {
    let mut top = Cli::command();
    let shared: Vec<clap::Arg> = SHARED_OPTIONS
        .iter()
        .filter_map(|id| top.get_arguments().find(|a| a.get_id() == *id).cloned())
        .collect();
    for sub in top.get_subcommands_mut() {
        limit_shared_options(sub, &[], &shared);
    }
    top
}

fn limit_shared_options(command: &mut clap::Command, parent: &[&str], shared: &[clap::Arg]) {
    let name = command.get_name().to_owned();
    let mut path = parent.to_vec();
    path.push(name.as_str());
    let mut own = std::mem::take(command);
    for arg in shared {
        let hide = !uses(&path, arg.get_id().as_str());
        own = own.arg(arg.clone().hide(hide));
    }
    for sub in own.get_subcommands_mut() {
        limit_shared_options(sub, &path, shared);
    }
    *command = own;
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_shared_option_is_given_to_every_command() {
        let command = super::command();
        command.clone().debug_assert();
        for id in super::SHARED_OPTIONS {
            assert!(command.get_arguments().any(|a| a.get_id() == id), "{id}");
            for sub in command.get_subcommands() {
                assert!(sub.get_arguments().any(|a| a.get_id() == id), "{id}");
            }
        }
    }
}
