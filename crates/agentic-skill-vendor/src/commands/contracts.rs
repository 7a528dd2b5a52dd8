//! The contract commands: `gen`, `verify`, `lint-selfcontain`, `self-test`, and the fetching
//! `add`, `update`, `fetch`.

use asv_contracts::{GenOutcome, Repository, Violation};

use super::Report;
use crate::cli::Format;
use crate::exit::ExitStatus;
use crate::render;
use crate::settings::Settings;
use crate::summary::{self, Tally};

fn violations(format: Format, violations: &[Violation]) -> Report {
    Report::new(
        violations
            .iter()
            .map(|v| render::violation(format, v))
            .collect(),
        !violations.is_empty(),
    )
}

/// The violations of a contract command, with each `closure` annotated (in `--format github`)
/// at the line of every SKILL.md that declares the missing contract.
fn contract_violations(root: &asv_fs::Root, format: Format, found: &[Violation]) -> Report {
    if format == Format::Text {
        let mut report = violations(format, found);
        report.notes = render::warnings::hints(found);
        return report;
    }
    if format != Format::Github {
        return violations(format, found);
    }
    let mut lines = Vec::with_capacity(found.len());
    for v in found {
        let Violation::Closure { id, skills, .. } = v else {
            lines.push(render::violation(format, v));
            continue;
        };
        for skill in skills {
            let path = format!(
                "{}/{}",
                asv_fs::join(asv_model::layout::SKILLS_DIR, skill),
                asv_model::layout::SKILL_MANIFEST
            );
            // Only for saying where: a SKILL.md that cannot be read here was read by the run.
            let line = root
                .read_file(&path)
                .ok()
                .flatten()
                .and_then(|bytes| asv_model::declaration::declaration_line(&bytes, id));
            lines.push(render::violation_at(format, v, &path, line));
        }
    }
    Report::new(lines, !found.is_empty())
}

fn events(format: Format, events: &[asv_contracts::Event]) -> Report {
    Report::new(
        events.iter().map(|e| render::event(format, e)).collect(),
        false,
    )
}

/// The repository's warnings ([`Repository::warnings`]), as said on stderr.
fn repository_warnings(repo: &Repository<'_>) -> Vec<String> {
    repo.warnings()
        .iter()
        .map(render::warnings::repository)
        .collect()
}

/// `self-test`.
pub fn self_test(settings: &Settings) -> Report {
    let checked = asv_contracts::selftest::check();
    let mut report = violations(settings.format, &checked.failed);
    let summary = render::checked(settings.format, &checked.vectors, checked.failed.len());
    match settings.format {
        // Text stdout is the TypeScript tool's (nothing when every vector agrees).
        Format::Text => report.notes.push(summary),
        _ => report.lines.push(summary),
    }
    report
}

/// `verify`.
///
/// # Errors
/// A refusal of the tree.
pub fn verify(settings: &Settings) -> crate::error::Result<Report> {
    let root = settings.open_root()?;
    let repo = Repository::load(&root)?;
    let mut report = contract_violations(&root, settings.format, &asv_contracts::verify(&repo)?);
    report.warnings = repository_warnings(&repo);
    if settings.summary && report.status == ExitStatus::Clean {
        report.summary = Some(summary::verify(Tally::of(&repo)));
    }
    super::with_interrupted(settings, &root, report)
}

/// `gen`.
///
/// # Errors
/// A refusal of the tree; a failed write.
pub fn gen_(settings: &Settings) -> crate::error::Result<Report> {
    let root = settings.open_root()?;
    let lock = super::lock_for_writing(settings, &root)?;
    let repo = Repository::load(&root)?;
    let warnings = repository_warnings(&repo);
    let mut report = match asv_contracts::generate(&repo, &lock)? {
        GenOutcome::Closure(found) => {
            let mut report = contract_violations(&root, settings.format, &found);
            report.status = ExitStatus::Violations;
            report
        }
        GenOutcome::Done {
            events: done,
            restored,
            foreign_removed,
            foreign_replaced,
            writes,
        } => {
            let mut report = events(settings.format, &done);
            if settings.summary {
                report.summary = Some(summary::gen_(Tally::of(&repo), writes));
            }
            report.warnings = restored
                .iter()
                .map(|path| render::warnings::restored(path))
                .collect();
            // The vendor directory is the tool's, as in the TypeScript tool, so stdout stays as
            // it is; the user still hears what of theirs went (issue 15).
            report.warnings.extend(
                foreign_replaced
                    .iter()
                    .map(|path| render::warnings::foreign_replaced(path)),
            );
            report.warnings.extend(
                foreign_removed
                    .iter()
                    .map(|path| render::warnings::foreign_removed(path)),
            );
            report
        }
    };
    report.warnings.splice(0..0, warnings);
    report.warnings.extend(super::left_behind(Some(&lock)));
    Ok(report)
}

/// `gen --dry-run`: one `plan:` line per path gen would write or remove, nothing written.
///
/// # Errors
/// As `gen`'s refusals.
pub fn gen_plan(settings: &Settings) -> crate::error::Result<Report> {
    let root = settings.open_root()?;
    let repo = Repository::load(&root)?;
    let warnings = repository_warnings(&repo);
    let mut report = match asv_contracts::plan_generate(&repo)? {
        Err(found) => {
            let mut report = contract_violations(&root, settings.format, &found);
            report.status = ExitStatus::Violations;
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
pub fn lint_selfcontain(settings: &Settings) -> crate::error::Result<Report> {
    let root = settings.open_root()?;
    let report = violations(
        settings.format,
        &asv_contracts::lint::lint_selfcontain(&root)?,
    );
    super::with_interrupted(settings, &root, report)
}

/// `add <repository> [name]`.
///
/// # Errors
/// A refusal of the tree, the repository or a transport.
pub fn add(
    settings: &Settings,
    repository: &str,
    name: Option<&str>,
) -> crate::error::Result<Report> {
    refuse_a_skill(repository, name)?;
    let root = settings.open_root()?;
    let _lock = super::lock_for_writing(settings, &root)?;
    let options = settings.transport_options()?;
    let done = asv_fetch::commands::add(&root, repository, name, &options)?;
    Ok(events(settings.format, &done))
}

/// Refuses what `add` was given when it names a skill rather than a repository of contracts
/// ([`crate::error::SkillShape`]), pointing at `skill add` (issue 31 §3).
///
/// # Errors
/// [`crate::error::Usage::AddOfASkill`].
pub fn refuse_a_skill(repository: &str, name: Option<&str>) -> crate::error::Result<()> {
    match crate::error::SkillShape::of(repository, name) {
        None => Ok(()),
        Some(shape) => Err(crate::error::Usage::AddOfASkill {
            typed: repository.to_owned(),
            name: name.map(str::to_owned),
            shape,
        }
        .into()),
    }
}

/// `update`.
///
/// # Errors
/// A refusal of the tree or a transport.
pub fn update(settings: &Settings) -> crate::error::Result<Report> {
    let root = settings.open_root()?;
    let _lock = super::lock_for_writing(settings, &root)?;
    let options = settings.transport_options()?;
    Ok(events(
        settings.format,
        &asv_fetch::commands::update(&root, &options)?,
    ))
}

/// `fetch`.
///
/// # Errors
/// A refusal of the tree or a transport.
pub fn fetch(settings: &Settings) -> crate::error::Result<Report> {
    let root = settings.open_root()?;
    let _lock = super::lock_for_writing(settings, &root)?;
    let options = settings.transport_options()?;
    Ok(events(
        settings.format,
        &asv_fetch::commands::fetch(&root, &options)?,
    ))
}

/// `init`: one line per thing made; nothing when the repository is already laid out.
///
/// # Errors
/// The root cannot be opened; something of the wrong kind stands where a directory or
/// `.gitignore` belongs (nothing is made then).
pub fn init(settings: &Settings) -> crate::error::Result<Report> {
    let root = settings.open_root()?;
    let lock = super::lock_for_writing(settings, &root)?;
    let made = asv_contracts::init::init(&lock)?;
    let mut report = Report::new(
        made.iter()
            .map(|m| render::made(settings.format, m))
            .collect(),
        false,
    );
    report.warnings.extend(super::left_behind(Some(&lock)));
    Ok(report)
}
