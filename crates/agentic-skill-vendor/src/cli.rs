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

    /// Print a line for every skill, where a run over many says each kind in one line
    #[arg(short, long, global = true)]
    pub verbose: bool,

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

/// The program's name.
pub const NAME: &str = "agentic-skill-vendor";

/// The program's short name: the same program installed a second time as `asv` (issue 31 §4).
pub const SHORT_NAME: &str = "asv";

/// The name the program was run by, [`SHORT_NAME`] or [`NAME`], for the commands its own
/// words tell the user to type next. Any other name (a copy renamed by hand) is told the full
/// name, which every installation has.
pub fn invoked_name() -> &'static str {
    let first = std::env::args_os().next();
    let stem = first
        .as_deref()
        .map(std::path::Path::new)
        .and_then(std::path::Path::file_stem);
    if stem == Some(std::ffi::OsStr::new(SHORT_NAME)) {
        SHORT_NAME
    } else {
        NAME
    }
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
    /// Make contracts/ and skills/ (each with an empty .gitkeep, so git keeps it) and the .gitignore rule for the tool's working directory, where missing
    Init,
    /// Print a shell completion script (bash: source it, or save it where your shell loads completions)
    Completions {
        /// The shell
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff; read it with man -l), or with --out write every command's page
    Man {
        /// Write one page per command into this directory (agentic-skill-vendor-skill-pull.1, …) instead of printing the program's page
        #[arg(long, value_name = "dir")]
        out: Option<PathBuf>,
    },
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
    /// Audit skills' files for hidden characters, code fetched or decoded and run, secrets and broad tool grants (default: every skill under skills/); exit 1 on an error finding
    ///
    /// Every byte of every file is read; the rules are listed with examples in docs/AUDIT.md.
    /// --format sarif prints one SARIF 2.1.0 document for GitHub code scanning instead of lines.
    Audit {
        /// Skill names (under skills/) or skill directories (a path holding a /, from the current directory); with --allow, the one skill the entry names
        skills: Vec<String>,
        /// Instead of auditing, append an entry to vendor-skills-audit.yaml allowing this rule's findings in the one skill named (it need not be under skills/ yet)
        #[arg(long, value_name = "RULE", requires = "reason")]
        allow: Option<String>,
        /// With --allow: only in files matching this glob, from the skill's directory (* within a directory, ** across)
        #[arg(long, value_name = "GLOB", requires = "allow")]
        path: Option<String>,
        /// With --allow: only the finding of this fingerprint, so it fires again when the matched text changes (skill audit --format json and the gates' refusals print it)
        #[arg(long, value_name = "SHA256", requires = "allow")]
        fingerprint: Option<String>,
        /// With --allow (required): why the finding is safe, kept in the entry for review
        #[arg(long, value_name = "TEXT", requires = "allow")]
        reason: Option<String>,
    },
    /// Print the tree hash (sha256:<hex>) of a skill directory
    Hash {
        /// The skill directory
        dir: std::path::PathBuf,
    },
    /// Take whole skills from another repository (or a local directory) into skills/<name>
    ///
    /// With a path, the skill there (or, with --all, every skill directly under it). Without
    /// one, the skills the source holds are found wherever they are: a root SKILL.md, skills/*,
    /// nested layouts up to 5 directories deep (.git and node_modules skipped, and for a local
    /// directory what its .gitignore excludes), and the skills of Claude Code plugins named by
    /// .claude-plugin/marketplace.json or plugin.json. A single skill found is taken; of
    /// several, --skill or --all chooses, a terminal offers a multi-select, and anywhere else
    /// the list is printed and the run exits 2. A GitHub web address
    /// (https://github.com/o/r/tree/<ref>/<path>, or …/blob/<ref>/<path>/SKILL.md) is read as
    /// o/r with that ref and path.
    Add {
        /// owner/repo, a git URL, a GitHub web address, or a local directory starting with ./, ../ or / (from the current directory)
        repository: String,
        /// The skill's directory in that repository (. for its root); with --all, the directory whose subdirectories are the skills; without it, the skills are found
        path: Option<String>,
        /// The local name (default: the name its SKILL.md gives, else the last segment of the path)
        #[arg(long)]
        name: Option<String>,
        /// The branch, tag or commit to follow (default: the repository's default branch, for a local git repository too)
        #[arg(long = "ref")]
        reference: Option<String>,
        /// Take every skill under the path (each directory directly under it holding a SKILL.md), all or none; without a path, every skill found
        #[arg(long, conflicts_with = "name")]
        all: bool,
        /// Without a path: take the skills of these names (comma-separated, or --skill again; globs such as 'audit-*', any case)
        #[arg(long, value_name = "NAME", value_delimiter = ',', action = clap::ArgAction::Append, conflicts_with_all = ["all", "path"])]
        skill: Vec<String>,
        /// Without a path: list the skills found (name, path in the source, description), those --skill names only when given, and take none
        #[arg(long, conflicts_with_all = ["all", "path", "name"])]
        list: bool,
        /// For a local git repository: read its working tree as it stands (uncommitted and untracked files, .gitignore honoured) instead of its default branch's commit
        #[arg(long, conflicts_with = "reference")]
        working_tree: bool,
        /// Let the audit's error findings in what this run writes through, for this run only (each is said); an entry of vendor-skills-audit.yaml allows one for good
        #[arg(long)]
        accept_findings: bool,
        /// Take only a commit signed by a key of this OpenSSH allowed-signers file (a path in this repository, from its root), or, at a tag or a semver range, a signed tag; recorded as the row's signed-by (needs a git URL, not owner/repo)
        #[arg(long, value_name = "FILE", conflicts_with_all = ["list", "working_tree"])]
        signed_by: Option<String>,
    },
    /// Show each imported skill: clean, modified, missing, invalid or conflicted (offline)
    Status {
        /// Imported skills to show (default: every imported skill)
        names: Vec<String>,
    },
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
        /// Let the audit's error findings in what this run writes through, for this run only (each is said); an entry of vendor-skills-audit.yaml allows one for good
        #[arg(long)]
        accept_findings: bool,
        /// For this run, take a signed row's new commit signed by another key of its allowed-signers file than the pin before it
        #[arg(long)]
        accept_signer_change: bool,
    },
    /// Make the tree what vendor-skills.yaml and the lock say, and mirror skills/ into each target agent's directory (never moves a pin)
    Sync {
        /// Replace or remove what stands in the way (an edited mirrored copy, a dropped skill's local edits)
        #[arg(long)]
        force: bool,
        /// project: the repository, into the agents' project directories; user: the state in $XDG_CONFIG_HOME/agentic-skill-vendor (else ~/.config/…), into the agents' user directories under HOME
        #[arg(long, value_enum, default_value_t = InstallScope::Project)]
        scope: InstallScope,
        /// Say what sync would do and write nothing
        #[arg(long)]
        dry_run: bool,
        /// Let the audit's error findings in what this run writes through, for this run only (each is said); an entry of vendor-skills-audit.yaml allows one for good
        #[arg(long)]
        accept_findings: bool,
    },
    /// Check (for CI) that the tree is what vendor-skills.yaml and the lock say and that no skill holds an audit error not allowed; exit 1 on any problem
    ///
    /// --format sarif prints the audit of every skill under skills/ as one SARIF 2.1.0 document
    /// for GitHub code scanning (the other problems then go to stderr).
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
        /// Sign the ZIP with this OpenSSH private key (Ed25519 or ECDSA, no passphrase): writes <zip>.sig, which ssh-keygen -Y verify -n agentic-skill-vendor checks
        #[arg(long, value_name = "KEY")]
        sign: Option<std::path::PathBuf>,
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
        /// Install the archive only if its signature (<archive>.sig) is by a key of this OpenSSH allowed-signers file; checked before any entry is read
        #[arg(long, value_name = "FILE")]
        signed_by: Option<std::path::PathBuf>,
        /// With --signed-by: the signature file, when not <archive>.sig
        #[arg(long, value_name = "SIG", requires = "signed_by")]
        signature: Option<std::path::PathBuf>,
        /// Let the audit's error findings in what this run writes through, for this run only (each is said); an entry of vendor-skills-audit.yaml allows one for good
        #[arg(long)]
        accept_findings: bool,
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
        /// Also show what each update would change in what the skill can do (reads its base and upstream's new version)
        #[arg(long)]
        capabilities: bool,
    },
    /// List every skill under skills/, own or imported, with its origin and state (offline); with --target, the skills in that agent's directory and whether skill sync placed them
    List {
        /// Skills to show (default: every skill under skills/ and every imported one)
        #[arg(conflicts_with = "target")]
        names: Vec<String>,
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
    /// What the command is, beside what was typed to it: one row of [`COMMANDS`].
    pub fn facts(&self) -> Facts {
        match self {
            Command::Skill { command } => facts_of(&["skill", command.name()]),
            other => facts_of(&[other.name()]),
        }
    }

    /// Whether the command, as typed, looks for the repository without `--root`: its row of
    /// [`COMMANDS`], but a command given paths to work on uses a repository only if one is
    /// around them (`skill validate <dir>…`, `skill install --into`, `--scope user`).
    pub fn repository(&self) -> RootUse {
        let Command::Skill { command } = self else {
            return self.facts().repository;
        };
        match command {
            SkillCommand::Validate { dirs, .. } if !dirs.is_empty() => RootUse::IfFound,
            // Directories alone need no repository; a name (or none) is a skill under skills/.
            SkillCommand::Audit {
                skills,
                allow: None,
                ..
            } if !skills.is_empty()
                && skills.iter().all(|s| s.contains('/') || s.starts_with('.')) =>
            {
                RootUse::IfFound
            }
            SkillCommand::Install {
                into,
                target,
                scope,
                ..
            } if into.is_some() || (!target.is_empty() && *scope == InstallScope::User) => {
                RootUse::IfFound
            }
            SkillCommand::List {
                target: Some(_),
                scope: InstallScope::User,
                ..
            }
            | SkillCommand::Sync {
                scope: InstallScope::User,
                ..
            } => RootUse::IfFound,
            _ => self.facts().repository,
        }
    }

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
            Command::Man { .. } => "man",
            Command::Skill { .. } => "skill",
        }
    }
}

impl SkillCommand {
    /// The command's name as typed after `skill`.
    pub fn name(&self) -> &'static str {
        match self {
            SkillCommand::Validate { .. } => "validate",
            SkillCommand::Audit { .. } => "audit",
            SkillCommand::Hash { .. } => "hash",
            SkillCommand::Add { .. } => "add",
            SkillCommand::Status { .. } => "status",
            SkillCommand::Pull { .. } => "pull",
            SkillCommand::Sync { .. } => "sync",
            SkillCommand::Verify => "verify",
            SkillCommand::Resolve { .. } => "resolve",
            SkillCommand::Pack { .. } => "pack",
            SkillCommand::Install { .. } => "install",
            SkillCommand::Diff { .. } => "diff",
            SkillCommand::Remove { .. } => "remove",
            SkillCommand::Outdated { .. } => "outdated",
            SkillCommand::List { .. } => "list",
        }
    }
}

/// Whether a command run without `--root` looks for the repository around the current
/// directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootUse {
    /// It works on the current directory or on the paths it is given alone, and `--root`
    /// means nothing to it (`self-test`, `skill hash`, `completions`, `man`).
    Unused,
    /// It works on `--root`, or on the current directory, and never looks further (`init`,
    /// which makes the repository).
    Here,
    /// It takes paths and uses a repository only to show them from its root (`skill pack`).
    IfFound,
    /// It works on a repository and refuses to run without one.
    Always,
    /// It works on a repository; in a git work tree that holds none yet, the top of that
    /// work tree becomes it, so a fresh `git init` needs no `init` before the first skill is
    /// taken (issue 31 §1: `skill add`, `skill install`).
    OrGitTop,
}

/// What one command is, beside what is typed to it: what the help shows of the shared
/// options, what the settings look for and which options are refused come from here, said
/// once for each command (issue 28 §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Facts {
    /// Whether it looks for the repository without `--root` (and so takes `--root`).
    pub repository: RootUse,
    /// Whether it reaches a network (and so takes `--token-stdin`).
    pub network: bool,
    /// Whether it prints warnings, progress or a summary on stderr (and so takes `--quiet`).
    pub notes: bool,
    /// Whether it prints a report (and so takes `--format`); the others print a fixed text.
    pub report: bool,
}

const fn facts(repository: RootUse, network: bool, notes: bool, report: bool) -> Facts {
    Facts {
        repository,
        network,
        notes,
        report,
    }
}

/// Every command by its path as typed (`["skill", "add"]`), with its [`Facts`]; a test holds
/// it to the commands clap knows, one row each.
pub const COMMANDS: &[(&[&str], Facts)] = {
    use RootUse::{Always, Here, IfFound, OrGitTop, Unused};
    &[
        (&["gen"], facts(Always, false, true, true)),
        (&["verify"], facts(Always, false, true, true)),
        (&["lint-selfcontain"], facts(Always, false, false, true)),
        (&["self-test"], facts(Unused, false, false, true)),
        (&["add"], facts(Always, true, true, true)),
        (&["update"], facts(Always, true, true, true)),
        (&["fetch"], facts(Always, true, true, true)),
        (&["init"], facts(Here, false, false, true)),
        (&["completions"], facts(Unused, false, false, false)),
        (&["man"], facts(Unused, false, false, false)),
        (&["skill", "validate"], facts(Always, false, true, true)),
        (&["skill", "audit"], facts(Always, false, true, true)),
        (&["skill", "hash"], facts(Unused, false, false, true)),
        (&["skill", "add"], facts(OrGitTop, true, true, true)),
        (&["skill", "status"], facts(Always, false, false, true)),
        (&["skill", "pull"], facts(Always, true, true, true)),
        (&["skill", "sync"], facts(Always, true, true, true)),
        (&["skill", "verify"], facts(Always, false, true, true)),
        (&["skill", "resolve"], facts(Always, false, false, true)),
        (&["skill", "pack"], facts(IfFound, false, true, true)),
        (&["skill", "install"], facts(OrGitTop, false, true, true)),
        (&["skill", "diff"], facts(Always, true, true, true)),
        (&["skill", "remove"], facts(Always, false, false, true)),
        (&["skill", "outdated"], facts(Always, true, true, true)),
        (&["skill", "list"], facts(Always, false, false, true)),
    ]
};

/// The row of [`COMMANDS`] for `path`. Every parsed command has one (the test
/// `every_command_has_one_row` holds the table to clap's commands); a path without one is
/// judged as a command that needs a repository and reaches nothing else.
fn facts_of(path: &[&str]) -> Facts {
    COMMANDS
        .iter()
        .find(|(p, _)| *p == path)
        .map_or(facts(RootUse::Always, false, false, true), |(_, f)| *f)
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
    /// SARIF 2.1.0 for code scanning: one document of every finding. Only `skill audit` takes
    /// it (its help says so), so the other commands' help does not list it.
    #[value(hide = true)]
    Sarif,
}

/// The `--format` and `--color` of the raw command line, read once before clap parses it:
/// clap's help is coloured, and a command line clap refuses (or a panic) is reported, as the
/// user asked, though no parse succeeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Early {
    /// The last `--format` given; text when the last names none that exists (which is then
    /// the refusal) or none is given.
    pub format: Format,
    /// The last `--color` that names a choice; `auto` when none does.
    pub color: ColorChoice,
}

impl Early {
    /// Reads `args` (the program's name first) up to a `--`.
    pub fn scan(args: impl IntoIterator<Item = std::ffi::OsString>) -> Self {
        let mut early = Early {
            format: Format::Text,
            color: ColorChoice::Auto,
        };
        let mut args = args.into_iter().skip(1);
        while let Some(arg) = args.next() {
            let Some(arg) = arg.to_str() else { continue };
            if arg == "--" {
                break;
            }
            // `--name value` or `--name=value`; None when `arg` is not `--name`.
            let mut value_of = |name: &str| match arg.strip_prefix(name) {
                Some("") => Some(args.next().and_then(|v| v.into_string().ok())),
                Some(rest) => rest.strip_prefix('=').map(|v| Some(v.to_owned())),
                None => None,
            };
            if let Some(value) = value_of("--format") {
                early.format = value
                    .and_then(|v| Format::from_str(&v, false).ok())
                    .unwrap_or(Format::Text);
            } else if let Some(Some(value)) = value_of("--color")
                && let Ok(color) = ColorChoice::from_str(&value, false)
            {
                early.color = color;
            }
        }
        early
    }
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
const SHARED_OPTIONS: [&str; 6] = ["root", "format", "quiet", "verbose", "token_stdin", "color"];

/// The commands whose text output says a kind of many items in one line unless `--verbose`
/// asks for each; `--verbose` is shown to them alone.
pub const SUMMARIZED: &[&[&str]] = &[
    &["skill", "add"],
    &["skill", "pull"],
    &["skill", "sync"],
    &["skill", "install"],
];

/// Whether the command at `path` (`["skill", "add"]`) makes use of the shared option `id`,
/// from its [`Facts`]. `skill` itself shows every option one of its commands uses.
fn uses(path: &[&str], id: &str) -> bool {
    let mut under = COMMANDS
        .iter()
        .filter(|(p, _)| p.starts_with(path))
        .map(|(_, f)| f);
    match id {
        "root" => under.any(|f| f.repository != RootUse::Unused),
        "format" => under.any(|f| f.report),
        "quiet" => under.any(|f| f.notes),
        "token_stdin" => under.any(|f| f.network),
        "verbose" => COMMANDS
            .iter()
            .any(|(p, _)| p.starts_with(path) && SUMMARIZED.contains(p)),
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
    use clap::Parser;

    use super::{ColorChoice, Early, Format};

    #[test]
    fn format_and_color_are_read_from_a_line_clap_refuses() {
        let scan = |a: &[&str]| {
            Early::scan(
                std::iter::once("asv")
                    .chain(a.iter().copied())
                    .map(Into::into),
            )
        };
        let early = |format, color| Early { format, color };
        let rows = [
            (
                &["gne", "--color", "never"][..],
                early(Format::Text, ColorChoice::Never),
            ),
            (
                &["--color=always", "x"],
                early(Format::Text, ColorChoice::Always),
            ),
            // A colour that does not exist leaves the one before it.
            (
                &["--color=never", "--color", "blue"],
                early(Format::Text, ColorChoice::Never),
            ),
            (
                &["--", "--color=never", "--format=json"],
                early(Format::Text, ColorChoice::Auto),
            ),
            (
                &["verify", "--format", "json", "--nosuch"],
                early(Format::Json, ColorChoice::Auto),
            ),
            (
                &["--format=github", "x"],
                early(Format::Github, ColorChoice::Auto),
            ),
            // The last --format counts, and one that does not exist is text (and the refusal).
            (
                &["--format=json", "--format", "yaml"],
                early(Format::Text, ColorChoice::Auto),
            ),
            (
                &["--formats=json", "--colors=never"],
                early(Format::Text, ColorChoice::Auto),
            ),
            (&["--format"], early(Format::Text, ColorChoice::Auto)),
        ];
        for (args, want) in rows {
            assert_eq!(scan(args), want, "{args:?}");
        }
    }

    /// The paths of the commands clap knows that take no further command.
    fn leaves(command: &clap::Command, parent: &[String], out: &mut Vec<Vec<String>>) {
        for sub in command.get_subcommands() {
            let mut path = parent.to_vec();
            path.push(sub.get_name().to_owned());
            if sub.get_subcommands().next().is_none() {
                out.push(path);
            } else {
                leaves(sub, &path, out);
            }
        }
    }

    #[test]
    fn every_command_has_one_row() {
        let mut known = Vec::new();
        leaves(&super::command(), &[], &mut known);
        let rows: Vec<Vec<String>> = super::COMMANDS
            .iter()
            .map(|(p, _)| p.iter().map(|s| (*s).to_owned()).collect())
            .collect();
        // clap's own `help` commands are no commands of ours.
        known.retain(|p| p.last().is_none_or(|n| n != "help"));
        known.sort();
        let mut sorted = rows.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), rows.len(), "a path is listed twice");
        assert_eq!(known, sorted);
    }

    /// A parsed command finds its own row, and the paths it was given move it from needing
    /// a repository to using one if found.
    #[test]
    fn a_parsed_command_reads_its_row() {
        use super::RootUse::{Always, Here, IfFound, OrGitTop, Unused};
        let rows: &[(&[&str], super::RootUse, bool)] = &[
            (&["gen"], Always, false),
            (&["init"], Here, false),
            (&["man"], Unused, false),
            (&["skill", "hash", "d"], Unused, false),
            (&["skill", "sync"], Always, true),
            (&["skill", "validate"], Always, false),
            (&["skill", "validate", "d"], IfFound, false),
            (&["skill", "audit"], Always, false),
            (&["skill", "audit", "pdf"], Always, false),
            (&["skill", "audit", "./pdf"], IfFound, false),
            (&["skill", "pack", "d"], IfFound, false),
            (&["skill", "install", "x.zip"], OrGitTop, false),
            (&["skill", "add", "o/r"], OrGitTop, true),
            (
                &["skill", "install", "x.zip", "--into", "d"],
                IfFound,
                false,
            ),
            (
                &[
                    "skill", "install", "x.zip", "--target", "claude", "--scope", "user",
                ],
                IfFound,
                false,
            ),
            (&["skill", "list", "--target", "claude"], Always, false),
            (
                &["skill", "list", "--target", "claude", "--scope", "user"],
                IfFound,
                false,
            ),
        ];
        for (args, repository, network) in rows {
            let argv = std::iter::once("agentic-skill-vendor").chain(args.iter().copied());
            let cli = super::Cli::try_parse_from(argv).expect("parses");
            assert_eq!(cli.command.repository(), *repository, "{args:?}");
            assert_eq!(cli.command.facts().network, *network, "{args:?}");
        }
    }

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
