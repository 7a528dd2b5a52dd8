//! Parse, resolve, dispatch: from the typed arguments to an exit code.

use std::io::{self, Write};
use std::process::ExitCode;

use asv_error::Failure as _;
use clap::FromArgMatches;
use clap::error::{ContextKind, ContextValue, ErrorKind};

use crate::cli::{Cli, Command, Early, Format, SkillCommand};
use crate::commands::{self, Report};
use crate::exit::ExitStatus;
use crate::settings::Settings;
use crate::style::{Label, Paint};

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
    let mut lines = vec![message];
    lines.extend(usage_details(err));
    lines.push(help_hint(err));
    lines.join("\n")
}

/// The lines of clap's own message that the first line does not say: the names of missing
/// arguments, a "did you mean" tip, the usage line of the command that was being parsed.
fn usage_details(err: &clap::Error) -> Vec<String> {
    if matches!(
        err.kind(),
        ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        // clap would print the whole help here; the hint after says where to find it.
        return Vec::new();
    }
    let mut details: Vec<String> = err
        .to_string()
        .lines()
        .skip(1)
        .filter(|line| {
            let line = line.trim();
            !line.is_empty()
                && !line.starts_with("For more information")
                // Advice on passing a dash-led value is noise for a misspelt option.
                && !line.starts_with("tip: to pass")
        })
        .map(str::to_owned)
        .collect();
    if err.kind() == ErrorKind::InvalidSubcommand
        && let Some(skill) = skill_command_meant(err)
    {
        // A skill command typed without `skill` (issue 31 §3): clap's nearest top-level
        // command (`verify` for `verify-skill`) is not what was meant.
        details.retain(|l| !l.trim_start().starts_with("tip:"));
        details.insert(
            0,
            format!(
                "  tip: {skill} is a command of skill: '{} skill {skill}'",
                crate::cli::invoked_name()
            ),
        );
    }
    if err.kind() == ErrorKind::InvalidSubcommand
        && !details.iter().any(|l| l.trim_start().starts_with("tip:"))
        && let Some(near) = nearest_command(err)
    {
        details.insert(0, format!("  tip: a similar command exists: '{near}'"));
    }
    if err.kind() == ErrorKind::InvalidValue
        && !details.iter().any(|l| l.trim_start().starts_with("tip:"))
        && let Some(near) = nearest_value(err)
    {
        details.push(format!("  tip: a similar value exists: '{near}'"));
    }
    details
}

/// The `skill` command an unknown top-level command names (`sync`, `list`, `verify-skill`,
/// `skill-pull` → `sync`, `list`, `verify`, `pull`): people used to `npx skills` or
/// `gh skill` type them at the top.
fn skill_command_meant(err: &clap::Error) -> Option<String> {
    let Some(ContextValue::String(typed)) = err.get(ContextKind::InvalidSubcommand) else {
        return None;
    };
    if !command_path(&err.to_string()).is_empty() {
        return None;
    }
    let command = crate::cli::command();
    let skill = command.find_subcommand("skill")?;
    let typed = typed.as_str();
    [
        Some(typed),
        typed.strip_suffix("-skills"),
        typed.strip_suffix("-skill"),
        typed.strip_prefix("skills-"),
        typed.strip_prefix("skill-"),
    ]
    .into_iter()
    .flatten()
    .find(|name| *name != "help" && skill.find_subcommand(name).is_some())
    .map(str::to_owned)
}

/// The accepted value nearest to a refused one (`ocdex` → `codex` for `--target`), when
/// clap's own measure found none: the same slips as for commands.
fn nearest_value(err: &clap::Error) -> Option<String> {
    let Some(ContextValue::String(typed)) = err.get(ContextKind::InvalidValue) else {
        return None;
    };
    let Some(ContextValue::Strings(valid)) = err.get(ContextKind::ValidValue) else {
        return None;
    };
    valid
        .iter()
        .map(|name| (strsim::damerau_levenshtein(typed, name), name))
        .filter(|(distance, _)| *distance <= 2 && *distance < typed.chars().count())
        .min()
        .map(|(_, name)| name.clone())
}

/// The command nearest to an unknown one (`gne` → `gen`), among those of the command being
/// parsed, when clap's own measure found none: transposed and dropped letters are the usual
/// slips, and clap's similarity misses some of them.
fn nearest_command(err: &clap::Error) -> Option<String> {
    let Some(ContextValue::String(typed)) = err.get(ContextKind::InvalidSubcommand) else {
        return None;
    };
    let mut command = crate::cli::command();
    for name in command_path(&err.to_string()) {
        command = command.find_subcommand(name)?.clone();
    }
    command
        .get_subcommands()
        .map(|c| c.get_name())
        .map(|name| (strsim::damerau_levenshtein(typed, name), name))
        .filter(|(distance, _)| *distance <= 2 && *distance < typed.chars().count())
        .min()
        .map(|(_, name)| name.to_owned())
}

/// The subcommands named on clap's usage line (`Usage: agentic-skill-vendor skill add …` →
/// `skill`, `add`).
fn command_path(text: &str) -> Vec<&str> {
    text.lines()
        .find_map(|line| line.strip_prefix("Usage: "))
        .map(|usage| {
            usage
                .split_whitespace()
                .skip(1)
                .take_while(|word| !word.starts_with(['[', '<', '-']))
                .collect()
        })
        .unwrap_or_default()
}

/// Where to read next: the `--help` of the command whose arguments were wrong, named from
/// clap's usage line (`Usage: agentic-skill-vendor skill add [OPTIONS] <repository> …`).
fn help_hint(err: &clap::Error) -> String {
    let text = err.to_string();
    let path = command_path(&text);
    let name = crate::cli::invoked_name();
    if path.is_empty() {
        format!("run {name} --help for the commands and options")
    } else {
        format!(
            "run {name} {} --help for its arguments and options",
            path.join(" ")
        )
    }
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

/// Writes notes to stderr as they are.
fn note(notes: &[String]) {
    let mut err = io::stderr().lock();
    for line in notes {
        let _ = writeln!(err, "{line}");
    }
}

/// Parses the command line. clap's own texts (help, usage) are coloured as `--color` asks,
/// read from the raw arguments (`early`) since they are shown before any parse succeeds.
fn parse(early: Early) -> Result<Cli, clap::Error> {
    let mut command = crate::cli::command().color(early.color.into());
    let matches = command.try_get_matches_from_mut(std::env::args_os())?;
    Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut command))
}

/// Runs the binary, whose raw command line asked for `early`, and returns its exit code.
pub fn main(early: Early) -> ExitCode {
    let cli = match parse(early) {
        Ok(cli) => cli,
        Err(err) => {
            return match err.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = err.print();
                    ExitCode::SUCCESS
                }
                _ => {
                    let paint = Paint::stderr(early.color);
                    refuse(
                        early.format,
                        asv_error::Side::Input,
                        None,
                        &usage_refusal(&err),
                        paint,
                    );
                    ExitStatus::Refused.into()
                }
            };
        }
    };
    let stderr_paint = Paint::stderr(cli.color);
    match run(&cli).and_then(|report| {
        if !cli.quiet {
            crate::style::warn(&report.warnings, stderr_paint);
            note(&report.notes);
        }
        emit(&report.lines)?;
        if let Some(summary) = &report.summary {
            let _ = writeln!(io::stderr(), "{summary}");
        }
        Ok(report.status)
    }) {
        Ok(status) => status.into(),
        Err(err) if err.is_broken_pipe() => ExitCode::SUCCESS,
        Err(err @ crate::error::Error::Finished(_)) => {
            if !cli.quiet {
                note(&[err.to_string()]);
            }
            ExitStatus::Clean.into()
        }
        Err(err) => {
            let mut message = err.to_string();
            // Each error says only its own words and leaves what it wraps to its source, so the
            // chain joined with ": " says everything once (STYLE.md 12, issue 28 §1).
            let mut cause = std::error::Error::source(&err);
            while let Some(e) = cause {
                message.push_str(": ");
                message.push_str(&e.to_string());
                cause = e.source();
            }
            // The audit's findings that refused the run are records of their own before the
            // refusal, as a program reading the report wants them.
            if cli.format != Format::Text {
                let _ = emit(&crate::render::refused_findings(cli.format, &err));
            }
            refuse(
                cli.format,
                err.side(),
                err.location().as_ref(),
                &message,
                stderr_paint,
            );
            ExitStatus::Refused.into()
        }
    }
}

/// Says a refusal: `error: <message>` on stderr (`internal error:` for a state this tool
/// should never reach, since a refusal is the user's to fix and that is ours), and in
/// `--format json` or `github` also as the stream's last line on stdout, so a job that parses
/// the report parses a failure too.
fn refuse(
    format: Format,
    side: asv_error::Side,
    location: Option<&asv_error::Location>,
    message: &str,
    paint: Paint,
) {
    let label = match side {
        asv_error::Side::Internal => Label::Internal,
        _ => Label::Error,
    };
    let _ = writeln!(io::stderr(), "{} {message}", paint.label(label));
    if format != Format::Text {
        let _ = emit(&[crate::render::refusal(format, side, location, message)]);
    }
}

/// Dispatches the parsed command to its function.
fn run(cli: &Cli) -> crate::error::Result<Report> {
    // Before the repository is looked for: the way on is another command, wherever it runs.
    if let Command::Add { repository, name } = &cli.command {
        commands::contracts::refuse_a_skill(repository, name.as_deref())?;
    }
    let settings = Settings::resolve(cli)?;
    let s = &settings;
    match &cli.command {
        Command::SelfTest => Ok(commands::contracts::self_test(s)),
        Command::Verify => commands::contracts::verify(s),
        Command::Gen { dry_run: false } => commands::contracts::gen_(s),
        Command::Gen { dry_run: true } => commands::contracts::gen_plan(s),
        Command::LintSelfcontain => commands::contracts::lint_selfcontain(s),
        Command::Add { repository, name } => {
            commands::contracts::add(s, repository, name.as_deref())
        }
        Command::Update => commands::contracts::update(s),
        Command::Fetch => commands::contracts::fetch(s),
        Command::Init => commands::contracts::init(s),
        Command::Completions { shell } => Ok(commands::help::completions(*shell)),
        Command::Man { out } => commands::help::man(out.as_deref()),
        Command::Skill { command } => match command {
            SkillCommand::Hash { dir } => commands::skill::hash(s.format, dir),
            SkillCommand::Validate { dirs, strict } => commands::skill::validate(s, dirs, *strict),
            SkillCommand::Audit {
                skills,
                allow: Some(rule),
                path,
                fingerprint,
                reason,
            } => commands::audit::allow(
                s,
                skills,
                &commands::audit::AllowArgs {
                    rule,
                    path: path.as_deref(),
                    fingerprint: fingerprint.as_deref(),
                    reason: reason.as_deref().unwrap_or_default(),
                },
            ),
            SkillCommand::Audit { skills, .. } => commands::audit::audit(s, skills),
            SkillCommand::Add {
                repository,
                path,
                name,
                reference,
                all,
                skill,
                list,
                working_tree,
                accept_findings,
                signed_by,
            } => commands::skill::add_any(
                s,
                &commands::skill::AddArgs {
                    repository,
                    path: path.as_deref(),
                    name: name.as_deref(),
                    reference: reference.as_deref(),
                    all: *all,
                    skills: skill,
                    list: *list,
                    working_tree: *working_tree,
                    accept_findings: *accept_findings,
                    signed_by: signed_by.as_deref(),
                },
            ),
            SkillCommand::Status { names } => commands::skill::status(s, names),
            SkillCommand::Pull {
                names,
                write_conflicts,
                dry_run,
                reference,
                accept_signer_change,
                accept_findings,
            } => commands::skill::pull(
                s,
                names,
                &commands::skill::PullArgs {
                    write_conflicts: *write_conflicts,
                    dry_run: *dry_run,
                    reference: reference.as_deref(),
                    accept_signer_change: *accept_signer_change,
                    accept_findings: *accept_findings,
                },
            ),
            SkillCommand::Resolve { name } => commands::skill::resolve(s, name),
            SkillCommand::Sync {
                force,
                dry_run,
                scope,
                accept_findings,
            } => commands::skill::sync(s, *force, *dry_run, *scope, *accept_findings),
            SkillCommand::Verify => commands::skill::verify(s),
            SkillCommand::Diff { name, from, to } => commands::skill::diff(s, name, *from, *to),
            SkillCommand::Pack { dir, output, sign } => {
                commands::skill::pack(s, dir, output.as_deref(), sign.as_deref())
            }
            SkillCommand::Install {
                input,
                into,
                target,
                scope,
                force,
                dry_run,
                signed_by,
                signature,
                accept_findings,
            } => commands::skill::install(
                s,
                &commands::skill::InstallArgs {
                    input,
                    into: into.as_deref(),
                    targets: target,
                    scope: *scope,
                    force: *force,
                    dry_run: *dry_run,
                    signed_by: signed_by.as_deref(),
                    signature: signature.as_deref(),
                    accept_findings: *accept_findings,
                },
            ),
            SkillCommand::Remove { names, force } => commands::skill::remove(s, names, *force),
            SkillCommand::Outdated {
                names,
                capabilities,
            } => commands::skill::outdated(s, names, *capabilities),
            SkillCommand::List {
                names,
                target,
                scope,
            } => match target {
                None => commands::skill::list(s, names),
                Some(target) => commands::skill::list_agent(s, target, *scope),
            },
        },
    }
}
