//! Parse, resolve, dispatch: from the typed arguments to an exit code.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use asv_contracts::{GenOutcome, Repository};
use clap::Parser;
use clap::error::{ContextKind, ContextValue, ErrorKind};

use crate::cli::{Cli, Command, Format, SkillCommand};
use crate::render;

/// A refusal worded for the user: printed as `error: <message>`, exit 2.
#[derive(Debug)]
struct Refusal(String);

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refusal {}

const USAGE_HINT: &str = "run agentic-skill-vendor --help for the commands and options";

/// Words a clap parse failure the way the compatibility contract spells it.
fn usage_refusal(err: &clap::Error) -> String {
    let invalid = || match err.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(s)) => s.clone(),
        Some(ContextValue::Strings(v)) => v.first().cloned().unwrap_or_default(),
        _ => String::new(),
    };
    let subcommand = || match err.get(ContextKind::InvalidSubcommand) {
        Some(ContextValue::String(s)) => s.clone(),
        _ => String::new(),
    };
    let message = match err.kind() {
        ErrorKind::UnknownArgument => {
            let token = invalid();
            if token.starts_with('-') {
                let name = token.split('=').next().unwrap_or(&token).to_owned();
                if name == "--root" {
                    "--root needs a path; write --root <path>".to_owned()
                } else {
                    format!("unknown option: {token}")
                }
            } else {
                format!("unexpected argument: {token}")
            }
        }
        ErrorKind::InvalidSubcommand => format!("unknown command: {}", subcommand()),
        ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            "no command given".to_owned()
        }
        ErrorKind::InvalidValue | ErrorKind::NoEquals | ErrorKind::MissingRequiredArgument
            if invalid().starts_with("--root") =>
        {
            "--root needs a path".to_owned()
        }
        _ => {
            let text = err.to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            first.trim_start_matches("error: ").to_owned()
        }
    };
    format!("{message}\n{USAGE_HINT}")
}

/// Writes lines to stdout; a closed pipe ends the run quietly.
fn emit(lines: &[String]) -> io::Result<()> {
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    for line in lines {
        writeln!(out, "{line}")?;
    }
    out.flush()
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.downcast_ref::<io::Error>()
        .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
}

/// Runs the binary and returns its exit code.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            return match err.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = err.print();
                    ExitCode::SUCCESS
                }
                _ => {
                    let _ = writeln!(io::stderr(), "error: {}", usage_refusal(&err));
                    ExitCode::from(2)
                }
            };
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            let mut message = err.to_string();
            // Join the chain with ": ", skipping a source whose text the wrapper already holds.
            for cause in err.chain().skip(1) {
                let text = cause.to_string();
                if !message.contains(&text) {
                    message.push_str(": ");
                    message.push_str(&text);
                }
            }
            let _ = writeln!(io::stderr(), "error: {message}");
            ExitCode::from(2)
        }
    }
}

/// Settings resolved from the typed arguments.
struct Settings {
    root: PathBuf,
    /// The root made absolute (lexically), to place paths typed from the current directory.
    root_abs: PathBuf,
    format: Format,
}

fn resolve(cli: &Cli) -> anyhow::Result<Settings> {
    let networked_skill = matches!(
        &cli.command,
        Command::Skill {
            command: SkillCommand::Add { .. }
                | SkillCommand::Pull { .. }
                | SkillCommand::Diff { .. }
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
            "--token-stdin is not an option {} takes: it reaches no network; only add, update, fetch and skill add, pull and diff do\n{USAGE_HINT}",
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
    let root_abs = crate::paths::absolute(&root).map_err(|e| {
        Refusal(format!(
            "the current directory cannot be read ({e}); pass --root <absolute path>"
        ))
    })?;
    Ok(Settings {
        root,
        root_abs,
        format: cli.format,
    })
}

fn open_tree(settings: &Settings) -> anyhow::Result<asv_fs::Tree> {
    asv_fs::Tree::open(&settings.root).map_err(|_| {
        Refusal(format!(
            "{}: no such directory; pass --root <path> naming the repository",
            settings.root.display()
        ))
        .into()
    })
}

/// The options of the fetching commands: the token piped in with `--token-stdin`, and in
/// debug builds only, test endpoints for the GitHub API (never reachable in a release build).
fn remote_options(token_stdin: bool) -> anyhow::Result<asv_remote::Options> {
    use std::io::{IsTerminal, Read};
    let mut options = asv_remote::Options::default();
    // Progress goes to stderr, and only to a person watching: never into a pipe or a log.
    if io::stderr().is_terminal() {
        options.progress = Some(asv_remote::Progress(std::sync::Arc::new(
            |message: &str| {
                let _ = writeln!(io::stderr(), "{message}");
            },
        )));
    }
    if token_stdin {
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
    #[cfg(debug_assertions)]
    if let (Ok(api), Ok(raw)) = (
        std::env::var("ASV_TEST_GITHUB_API"),
        std::env::var("ASV_TEST_GITHUB_RAW"),
    ) {
        options.github_endpoints = Some((api, raw));
    }
    Ok(options)
}

fn finish(lines: Vec<String>, violations: bool) -> anyhow::Result<ExitCode> {
    emit(&lines)?;
    Ok(if violations {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let settings = resolve(&cli)?;
    let format = settings.format;
    match &cli.command {
        Command::SelfTest => {
            let violations = asv_contracts::selftest::run();
            let lines = violations
                .iter()
                .map(|v| render::violation(format, v))
                .collect();
            finish(lines, !violations.is_empty())
        }
        Command::Verify => {
            let tree = open_tree(&settings)?;
            let repo = Repository::load(&tree)?;
            let violations = asv_contracts::verify(&repo)?;
            let lines = violations
                .iter()
                .map(|v| render::violation(format, v))
                .collect();
            finish(lines, !violations.is_empty())
        }
        Command::Gen => {
            let tree = open_tree(&settings)?;
            let repo = Repository::load(&tree)?;
            match asv_contracts::generate(&repo)? {
                GenOutcome::Closure(violations) => {
                    let lines = violations
                        .iter()
                        .map(|v| render::violation(format, v))
                        .collect();
                    finish(lines, true)
                }
                GenOutcome::Done { events, .. } => {
                    let lines = events.iter().map(|e| render::event(format, e)).collect();
                    finish(lines, false)
                }
            }
        }
        Command::LintSelfcontain => {
            let tree = open_tree(&settings)?;
            let violations = asv_contracts::lint::lint_selfcontain(&tree)?;
            let lines = violations
                .iter()
                .map(|v| render::violation(format, v))
                .collect();
            finish(lines, !violations.is_empty())
        }
        Command::Add { repository, name } => {
            let tree = open_tree(&settings)?;
            let options = remote_options(cli.token_stdin)?;
            let events = asv_fetch::commands::add(&tree, repository, name.as_deref(), &options)?;
            finish(
                events.iter().map(|e| render::event(format, e)).collect(),
                false,
            )
        }
        Command::Update => {
            let tree = open_tree(&settings)?;
            let options = remote_options(cli.token_stdin)?;
            let events = asv_fetch::commands::update(&tree, &options)?;
            finish(
                events.iter().map(|e| render::event(format, e)).collect(),
                false,
            )
        }
        Command::Skill {
            command: SkillCommand::Hash { dir },
        } => {
            let tree = asv_fs::Tree::open(dir).map_err(|_| {
                Refusal(format!(
                    "{}: no such directory; name a skill directory",
                    dir.display()
                ))
            })?;
            let skill = asv_skilltree::SkillTree::read(&tree, "")?;
            finish(vec![skill.hash()], false)
        }
        Command::Skill {
            command: SkillCommand::Validate { dirs, strict },
        } => {
            let mut findings = Vec::new();
            if dirs.is_empty() {
                let tree = open_tree(&settings)?;
                let every = tree
                    .read_dir("skills")?
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|e| {
                        e.kind == asv_fs::EntryKind::Directory
                            && !asv_fs::is_tree_change_residue(&e.name)
                    });
                for e in every {
                    findings.extend(asv_skills::validate_skill(
                        &tree,
                        &format!("skills/{}", e.name),
                    )?);
                }
            }
            for typed in dirs {
                findings.extend(validate_typed(&settings, typed)?);
            }
            let failed = findings
                .iter()
                .any(|f| f.severity == asv_skills::Severity::Error || *strict);
            let lines = findings
                .iter()
                .map(|f| render::finding(format, f))
                .collect();
            finish(lines, failed)
        }
        Command::Skill { command } => {
            let tree = open_tree(&settings)?;
            skill_lifecycle(&tree, &settings, command, cli.token_stdin)
        }
        Command::Fetch => {
            let tree = open_tree(&settings)?;
            let options = remote_options(cli.token_stdin)?;
            let events = asv_fetch::commands::fetch(&tree, &options)?;
            finish(
                events.iter().map(|e| render::event(format, e)).collect(),
                false,
            )
        }
    }
}

fn version(v: crate::cli::SkillVersion) -> asv_skills::lifecycle::Version {
    use crate::cli::SkillVersion;
    use asv_skills::lifecycle::Version;
    match v {
        SkillVersion::Base => Version::Base,
        SkillVersion::Local => Version::Local,
        SkillVersion::Upstream => Version::Upstream,
    }
}

/// `skill add|status|pull|resolve|diff`.
fn skill_lifecycle(
    tree: &asv_fs::Tree,
    settings: &Settings,
    command: &SkillCommand,
    token_stdin: bool,
) -> anyhow::Result<ExitCode> {
    use asv_skills::lifecycle;
    let format = settings.format;
    match command {
        SkillCommand::Add {
            repository,
            path,
            name,
            reference,
        } => {
            let options = remote_options(token_stdin)?;
            let request = lifecycle::AddRequest {
                repository: local_source_from_root(settings, repository)?,
                path: path.clone(),
                name: name.clone(),
                reference: reference.clone(),
            };
            let added = lifecycle::add(tree, &request, &options)?;
            let mut lines: Vec<String> = added
                .warnings
                .iter()
                .map(|f| render::finding(format, f))
                .collect();
            lines.push(render::added(format, &added));
            finish(lines, false)
        }
        SkillCommand::Status => {
            let states = lifecycle::status(tree)?;
            finish(
                states.iter().map(|s| render::status(format, s)).collect(),
                false,
            )
        }
        SkillCommand::Pull {
            names,
            write_conflicts,
        } => {
            let options = remote_options(token_stdin)?;
            let pulled = lifecycle::pull(tree, names, *write_conflicts, &options)?;
            let conflicts = pulled.iter().any(|p| p.is_conflict());
            finish(
                pulled
                    .iter()
                    .flat_map(|p| render::pulled(format, p))
                    .collect(),
                conflicts,
            )
        }
        SkillCommand::Resolve { name } => {
            let revision = lifecycle::resolve(tree, name)?;
            finish(vec![render::resolved(format, name, &revision)], false)
        }
        SkillCommand::Diff { name, from, to } => {
            let options = remote_options(token_stdin)?;
            let text = lifecycle::diff(tree, name, version(*from), version(*to), &options)?;
            let lines = match format {
                Format::Json => vec![serde_json::json!({ "name": name, "diff": text }).to_string()],
                _ => text.lines().map(str::to_owned).collect(),
            };
            finish(lines, false)
        }
        SkillCommand::Pack { dir, output } => {
            let located = crate::paths::locate(&settings.root_abs, dir, false).map_err(Refusal)?;
            let packed = asv_skills::package::pack(&located.tree, &located.rel)?;
            let output = output
                .clone()
                .unwrap_or_else(|| PathBuf::from(format!("{}.zip", packed.name)));
            write_output(&output, &packed.zip)?;
            let mut lines: Vec<String> = packed
                .warnings
                .iter()
                .map(|f| render::finding(format, f))
                .collect();
            lines.push(render::packed(
                format,
                &packed,
                &output.display().to_string(),
            ));
            finish(lines, false)
        }
        SkillCommand::Install {
            input,
            into,
            target,
            scope,
            force,
            dry_run,
        } => {
            use crate::cli::InstallScope;
            use asv_skills::install::{Scope, Target};
            let (dest, dir, shown_root) = match (target, into) {
                (None, None) => (None, "skills".to_owned(), String::new()),
                (None, Some(into)) => {
                    let located =
                        crate::paths::locate(&settings.root_abs, into, true).map_err(Refusal)?;
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
                                        "--scope user needs HOME set to your home directory"
                                            .to_owned(),
                                    )
                                })?;
                            let home = asv_fs::Tree::open(PathBuf::from(&home)).map_err(|_| {
                                Refusal(format!(
                                    "{}: the home directory does not exist; set HOME",
                                    PathBuf::from(&home).display()
                                ))
                            })?;
                            (Some(home), t.dir(Scope::User).to_owned(), "~/".to_owned())
                        }
                    }
                }
            };
            let dest = dest.as_ref().unwrap_or(tree);
            let label = input.display().to_string();
            let installed =
                asv_skills::install::install(dest, &dir, input, &label, *force, *dry_run)?;
            let mut lines: Vec<String> = installed
                .warnings
                .iter()
                .map(|f| render::finding(format, f))
                .collect();
            lines.extend(render::installed(format, &installed, &shown_root));
            finish(lines, false)
        }
        SkillCommand::Validate { .. } | SkillCommand::Hash { .. } => Ok(ExitCode::SUCCESS),
    }
}

/// `skill validate <dir>` for one directory as typed: a skill inside the repository is judged
/// in its tree and shown from the root (as `verify` shows it); one elsewhere is shown by the
/// path as typed.
fn validate_typed(
    settings: &Settings,
    typed: &std::path::Path,
) -> anyhow::Result<Vec<asv_skills::Finding>> {
    let located = crate::paths::locate(&settings.root_abs, typed, false).map_err(Refusal)?;
    let mut findings = asv_skills::validate_skill(&located.tree, &located.rel)?;
    if !located.in_repository {
        let shown = typed.display().to_string();
        let shown = shown.trim_end_matches('/');
        for f in &mut findings {
            if let Some(rest) = f.path.strip_prefix(&located.rel) {
                f.path = format!("{shown}{rest}");
            }
        }
    }
    Ok(findings)
}

/// A local source of `skill add` as typed (from the current directory) turned into the path
/// the lock keeps: from the repository root, so later pulls find it from any directory; an
/// absolute one stays absolute. A repository spelling is left as it is.
fn local_source_from_root(settings: &Settings, given: &str) -> anyhow::Result<String> {
    let local = given == "."
        || given == ".."
        || given.starts_with('/')
        || given.starts_with("./")
        || given.starts_with("../");
    if !local || given.starts_with('/') {
        return Ok(given.to_owned());
    }
    let path = crate::paths::absolute(std::path::Path::new(given))
        .map_err(|e| Refusal(format!("{given}: {e}")))?;
    let rel = crate::paths::relative(&settings.root_abs, &path).ok_or_else(|| {
        Refusal(format!(
            "{given}: a segment of the path is not UTF-8; rename it"
        ))
    })?;
    Ok(if rel.is_empty() {
        ".".to_owned()
    } else if rel == ".." || rel.starts_with("../") {
        rel
    } else {
        format!("./{rel}")
    })
}

/// Writes a file the user named on the command line (atomically, never through a link).
fn write_output(path: &std::path::Path, bytes: &[u8]) -> anyhow::Result<()> {
    let name = path.file_name().and_then(|n| n.to_str()).ok_or_else(|| {
        Refusal(format!(
            "{}: not a file name; give -o <file>.zip",
            path.display()
        ))
    })?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let dir = asv_fs::Tree::open(&parent).map_err(|_| {
        Refusal(format!(
            "{}: no such directory; create it or give another -o",
            parent.display()
        ))
    })?;
    dir.write_file(name, bytes)?;
    Ok(())
}
