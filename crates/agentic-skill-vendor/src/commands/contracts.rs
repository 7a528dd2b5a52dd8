//! The contract commands: `gen`, `verify`, `lint-selfcontain`, `self-test`, and the fetching
//! `add`, `update`, `fetch`.

use asv_contracts::{GenOutcome, Repository, Violation};

use super::Report;
use crate::cli::Format;
use crate::render;
use crate::settings::Settings;

fn violations(format: Format, violations: &[Violation]) -> Report {
    Report::new(
        violations
            .iter()
            .map(|v| render::violation(format, v))
            .collect(),
        !violations.is_empty(),
    )
}

fn events(format: Format, events: &[asv_contracts::Event]) -> Report {
    Report::new(
        events.iter().map(|e| render::event(format, e)).collect(),
        false,
    )
}

/// What the repository holds that is likely a mistake though it changes nothing: keys of the
/// table this tool does not read (typos, mostly), and `contracts` written at the top level of a
/// SKILL.md's frontmatter instead of under `metadata`.
fn repository_warnings(repo: &Repository<'_>) -> Vec<String> {
    let table = asv_model::layout::MANIFEST;
    let mut warnings: Vec<String> = repo
        .manifest
        .unknown_keys
        .iter()
        .map(|k| match k.line {
            Some(line) => format!("{table}:{line}: {k}"),
            None => format!("{table}: {k}"),
        })
        .collect();
    warnings.extend(repo.skills.iter().filter_map(|skill| {
        skill.misplaced_contracts.map(|line| {
            let path = format!("{}/{}", skill.dir(), asv_model::layout::SKILL_MANIFEST);
            format!(
                "{}:{line}: \"contracts\" at the top level of the frontmatter declares nothing; list the ids under metadata.contracts",
                asv_fs::quote::DisplayPath(&path)
            )
        })
    }));
    warnings
}

/// `self-test`.
pub fn self_test(settings: &Settings) -> Report {
    violations(settings.format, &asv_contracts::selftest::run())
}

/// `verify`.
///
/// # Errors
/// A refusal of the tree.
pub fn verify(settings: &Settings) -> anyhow::Result<Report> {
    let tree = settings.open_tree()?;
    let repo = Repository::load(&tree)?;
    let mut report = violations(settings.format, &asv_contracts::verify(&repo)?);
    report.warnings = repository_warnings(&repo);
    Ok(report)
}

/// `gen`.
///
/// # Errors
/// A refusal of the tree; a failed write.
pub fn gen_(settings: &Settings) -> anyhow::Result<Report> {
    let tree = settings.open_tree()?;
    let repo = Repository::load(&tree)?;
    let warnings = repository_warnings(&repo);
    let mut report = match asv_contracts::generate(&repo)? {
        GenOutcome::Closure(found) => {
            let mut report = violations(settings.format, &found);
            report.status = crate::exit::ExitStatus::Violations;
            report
        }
        GenOutcome::Done {
            events: done,
            restored,
            ..
        } => {
            let mut report = events(settings.format, &done);
            report.warnings = restored
                .iter()
                .map(|path| {
                    format!(
                        "{}: put back — it was edited by hand; a copy is written from its canonical text, so edit that instead",
                        asv_fs::quote::DisplayPath(path)
                    )
                })
                .collect();
            report
        }
    };
    report.warnings.splice(0..0, warnings);
    Ok(report)
}

/// `gen --dry-run`: one `plan:` line per path gen would write or remove, nothing written.
///
/// # Errors
/// As `gen`'s refusals.
pub fn gen_plan(settings: &Settings) -> anyhow::Result<Report> {
    let tree = settings.open_tree()?;
    let repo = Repository::load(&tree)?;
    let warnings = repository_warnings(&repo);
    let mut report = match asv_contracts::plan_generate(&repo)? {
        Err(found) => {
            let mut report = violations(settings.format, &found);
            report.status = crate::exit::ExitStatus::Violations;
            report
        }
        Ok(planned) => Report::new(
            planned
                .iter()
                .filter(|p| p.action().is_active())
                .map(|p| render::planned(settings.format, p, "", false))
                .collect(),
            false,
        ),
    };
    report.warnings = warnings;
    Ok(report)
}

/// `lint-selfcontain`.
///
/// # Errors
/// A refusal of the tree.
pub fn lint_selfcontain(settings: &Settings) -> anyhow::Result<Report> {
    let tree = settings.open_tree()?;
    Ok(violations(
        settings.format,
        &asv_contracts::lint::lint_selfcontain(&tree)?,
    ))
}

/// `add <repository> [name]`.
///
/// # Errors
/// A refusal of the tree, the repository or a transport.
pub fn add(settings: &Settings, repository: &str, name: Option<&str>) -> anyhow::Result<Report> {
    let tree = settings.open_tree()?;
    let options = settings.transport_options()?;
    let done = asv_fetch::commands::add(&tree, repository, name, &options)?;
    Ok(events(settings.format, &done))
}

/// `update`.
///
/// # Errors
/// A refusal of the tree or a transport.
pub fn update(settings: &Settings) -> anyhow::Result<Report> {
    let tree = settings.open_tree()?;
    let options = settings.transport_options()?;
    Ok(events(
        settings.format,
        &asv_fetch::commands::update(&tree, &options)?,
    ))
}

/// `fetch`.
///
/// # Errors
/// A refusal of the tree or a transport.
pub fn fetch(settings: &Settings) -> anyhow::Result<Report> {
    let tree = settings.open_tree()?;
    let options = settings.transport_options()?;
    Ok(events(
        settings.format,
        &asv_fetch::commands::fetch(&tree, &options)?,
    ))
}

/// `init`: one line per thing made; nothing when the repository is already laid out.
///
/// # Errors
/// The root cannot be opened; something of the wrong kind stands where a directory or
/// `.gitignore` belongs (nothing is made then).
pub fn init(settings: &Settings) -> anyhow::Result<Report> {
    let tree = settings.open_tree()?;
    let made = asv_contracts::init::init(&tree)?;
    Ok(Report::new(made.iter().map(|m| m.line()).collect(), false))
}
