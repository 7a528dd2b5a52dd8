//! `skill audit [NAME…|DIR…]`: the audit rules over skills of the repository or directories
//! as typed.

use std::path::Path;

use asv_skills::audit::allow::Allowances;
use asv_skills::error::GatedFinding;
use asv_skills::gate::Gate;

use super::Report;
use crate::cli::Format;
use crate::render;
use crate::settings::Settings;

/// Whether a typed argument names a directory rather than a skill under `skills/`: a skill
/// name never holds a `/` and never starts with a dot.
fn is_directory(typed: &str) -> bool {
    typed.contains('/') || typed.starts_with('.')
}

/// `skill audit [NAME…|DIR…]`: every skill under `skills/` when none is named. Exit 1 when
/// any finding is an error.
///
/// # Errors
/// A refusal of the tree, a name that is not a skill under `skills/`, a skill that cannot be
/// read.
pub fn audit(settings: &Settings, targets: &[String]) -> crate::error::Result<Report> {
    let mut audited: Vec<(String, asv_audit::Report)> = Vec::new();
    let mut allow = asv_skills::audit::allow::Allowances::default();
    let mut allow_loaded = false;
    let names: Vec<&String> = targets.iter().filter(|t| !is_directory(t)).collect();
    if targets.is_empty() || !names.is_empty() {
        let root = settings.open_root()?;
        allow = asv_skills::audit::allow::Allowances::load(&root)?;
        allow_loaded = true;
        let dirs: Vec<String> = if targets.is_empty() {
            asv_skills::audit::every_skill_dir(&root)?
        } else {
            let mut dirs = Vec::new();
            for name in &names {
                let dir = asv_skills::skill_dir(name);
                if root.kind(&dir)? != Some(asv_fs::EntryKind::Directory) {
                    return Err(crate::error::Usage::NoSuchSkill {
                        name: (*name).clone(),
                    }
                    .into());
                }
                dirs.push(dir);
            }
            dirs
        };
        for a in asv_skills::audit::audit_dirs(&root, &dirs)? {
            audited.push((a.dir, a.report));
        }
    }
    for typed in targets.iter().filter(|t| is_directory(t)) {
        let located = crate::paths::locate(&settings.root_abs, Path::new(typed), false)?;
        // A directory inside the repository is judged with the repository's allow file.
        if located.in_repository && !allow_loaded {
            allow = asv_skills::audit::allow::Allowances::load(&located.root)?;
            allow_loaded = true;
        }
        let report = asv_skills::audit::audit_dir(&located.root, &located.rel)?;
        let shown = if located.in_repository {
            located.rel.clone()
        } else {
            typed.trim_end_matches('/').to_owned()
        };
        audited.push((shown, report));
    }
    if settings.format == crate::cli::Format::Sarif {
        return Ok(sarif(&audited, &allow));
    }
    let mut lines = Vec::new();
    let mut tally = render::AuditTally {
        skills: audited.len(),
        ..Default::default()
    };
    for (dir, report) in &audited {
        // An entry of the allow file names the skill as its directory's last segment.
        let skill = dir.rsplit('/').next().unwrap_or(dir);
        for f in &report.findings {
            let allowed = allow.allowing(skill, f).map(|a| a.reason.as_str());
            match (allowed, f.severity) {
                (Some(_), _) => tally.allowed += 1,
                (None, asv_audit::Severity::Error) => tally.errors += 1,
                (None, asv_audit::Severity::Warning) => tally.warnings += 1,
            }
            // Text shows what is still to judge; JSON keeps every finding, the allowed ones
            // with their reason.
            if allowed.is_none() || settings.format == crate::cli::Format::Json {
                lines.push(render::audit_finding(settings.format, dir, f, allowed));
            }
        }
    }
    let mut report = Report::new(lines, tally.errors > 0);
    if settings.summary {
        report.summary = Some(render::audit_summary(&tally));
    }
    Ok(report)
}

/// The whole audit as one SARIF document (a single "line" of the report); exit 1 when an
/// error finding is not allowed, as in the other formats.
fn sarif(
    audited: &[(String, asv_audit::Report)],
    allow: &asv_skills::audit::allow::Allowances,
) -> Report {
    let mut items = Vec::new();
    let mut failed = false;
    for (dir, report) in audited {
        let skill = dir.rsplit('/').next().unwrap_or(dir);
        for f in &report.findings {
            let allowed = allow.allowing(skill, f).map(|a| a.reason.as_str());
            failed |= allowed.is_none() && f.severity == asv_audit::Severity::Error;
            items.push(render::sarif::SarifFinding {
                dir,
                finding: f,
                allowed,
            });
        }
    }
    let text = render::sarif::sarif(&items);
    Report::new(vec![text.trim_end().to_owned()], failed)
}

/// The audit gate of a command that writes skills under `root` (issue 32 §2): the allow file
/// of `root`, and whether `--accept-findings` lets error findings through for this run.
///
/// # Errors
/// An allow file that cannot be read or used.
pub(super) fn gate(root: &asv_fs::Root, accept: bool) -> crate::error::Result<Gate> {
    Ok(Gate::new(Allowances::load(root)?, accept))
}

/// Puts what `gate` saw into `report`: in JSON every finding is an `audit` record before the
/// command's own (the allowed ones with their reason, the accepted ones marked), in GitHub
/// annotations those no entry allows; in text each error let through is said on stderr, and
/// the warnings too, one by one up to [`crate::summary::LISTED`] (all with `-v`), past that in
/// one line.
pub(super) fn gated(settings: &Settings, report: &mut Report, gate: Gate) {
    let found = gate.into_findings();
    if settings.format != Format::Text {
        let mut lines: Vec<String> = found
            .iter()
            .filter(|g| g.allowed.is_none() || settings.format == Format::Json)
            .map(|g| {
                render::gated_finding(
                    settings.format,
                    &g.dir,
                    &g.finding,
                    g.allowed.as_deref(),
                    g.blocks(),
                )
            })
            .collect();
        lines.append(&mut report.lines);
        report.lines = lines;
        return;
    }
    let mut said: Vec<String> = found
        .iter()
        .filter(|g| g.blocks())
        .map(render::warnings::accepted_finding)
        .collect();
    let warned: Vec<&GatedFinding> = found
        .iter()
        .filter(|g| g.allowed.is_none() && g.finding.severity == asv_audit::Severity::Warning)
        .collect();
    if settings.verbose || warned.len() <= crate::summary::LISTED {
        said.extend(warned.iter().map(|g| render::warnings::audit_warning(g)));
    } else {
        said.push(render::warnings::audit_warnings(&warned));
    }
    said.append(&mut report.warnings);
    report.warnings = said;
}

/// `skill audit <NAME> --allow <RULE> …` as typed.
pub struct AllowArgs<'a> {
    /// `--allow`: the rule id.
    pub rule: &'a str,
    /// `--path`: a glob over the paths in the skill.
    pub path: Option<&'a str>,
    /// `--fingerprint`.
    pub fingerprint: Option<&'a str>,
    /// `--reason`.
    pub reason: &'a str,
}

/// `skill audit <NAME> --allow <RULE> [--path GLOB] [--fingerprint FP] --reason TEXT`: appends
/// the entry to `vendor-skills-audit.yaml` (made when absent), keeping every byte already
/// there. The skill need not be under `skills/` yet: a gate that refused it names the entry
/// that lets it in.
///
/// # Errors
/// Other than one skill name; a rule the audit does not have; an empty reason or glob; a
/// fingerprint that is not 64 lowercase hex digits; an allow file that cannot take the entry.
pub fn allow(
    settings: &Settings,
    targets: &[String],
    a: &AllowArgs<'_>,
) -> crate::error::Result<Report> {
    use crate::error::Usage;
    let [skill] = targets else {
        return Err(Usage::AllowOneSkill {
            named: targets.len(),
        }
        .into());
    };
    if let Some(problem) = asv_skills::name_problem(skill) {
        return Err(Usage::AllowSkillName {
            typed: skill.clone(),
            problem: problem.to_string(),
        }
        .into());
    }
    let rule = asv_audit::Rule::from_id(a.rule).ok_or_else(|| Usage::UnknownRule {
        rule: a.rule.to_owned(),
    })?;
    if a.reason.trim().is_empty() {
        return Err(Usage::AllowValue {
            option: "reason",
            typed: a.reason.to_owned(),
            problem: "says nothing; give why the finding is safe, for whoever reviews the entry",
        }
        .into());
    }
    if let Some(path) = a.path
        && path.trim().is_empty()
    {
        return Err(Usage::AllowValue {
            option: "path",
            typed: path.to_owned(),
            problem: "is empty; give a glob from the skill's directory (scripts/*.sh), or leave --path out for every file",
        }
        .into());
    }
    if let Some(fp) = a.fingerprint
        && (fp.len() != 64
            || !fp
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
    {
        return Err(Usage::AllowValue {
            option: "fingerprint",
            typed: fp.to_owned(),
            problem: "is not 64 lowercase hex digits; copy it from skill audit --format json or from the refusal that named it",
        }
        .into());
    }
    let entry = asv_skills::audit::allow::Allowance {
        skill: skill.clone(),
        rule,
        path: a.path.map(str::to_owned),
        fingerprint: a.fingerprint.map(str::to_owned),
        reason: a.reason.trim().to_owned(),
    };
    let root = settings.open_root()?;
    let lock = super::lock_for_writing(settings, &root)?;
    asv_skills::audit::allow::append(&lock, &entry)?;
    let report = Report::new(vec![render::allowed_entry(settings.format, &entry)], false);
    Ok(super::with_left_behind(report, Some(&lock)))
}

/// `skill verify`'s part of the audit: a line for each error finding no entry allows (in
/// JSON, an `audit` record for the allowed errors too), and whether any fails the run.
pub(super) fn verify_lines(
    format: Format,
    audited: &[asv_skills::audit::Audited],
    allow: &Allowances,
) -> (Vec<String>, bool) {
    let mut lines = Vec::new();
    let mut failed = false;
    for a in audited {
        let skill = a.dir.rsplit('/').next().unwrap_or(&a.dir);
        for f in &a.report.findings {
            if f.severity != asv_audit::Severity::Error {
                continue;
            }
            let allowed = allow.allowing(skill, f).map(|e| e.reason.as_str());
            failed |= allowed.is_none();
            if allowed.is_none() || format == Format::Json {
                lines.push(render::gated_finding(format, &a.dir, f, allowed, false));
            }
        }
    }
    (lines, failed)
}

/// `skill verify --format sarif`: every finding of the audit of `skills/` as one SARIF
/// document (allowed ones suppressed with their reason), the other problems of verify said
/// on stderr; exit 1 on an error finding not allowed or any other problem.
pub(super) fn verify_sarif(
    audited: Vec<asv_skills::audit::Audited>,
    allow: &Allowances,
    problems: Vec<String>,
) -> Report {
    let audited: Vec<(String, asv_audit::Report)> =
        audited.into_iter().map(|a| (a.dir, a.report)).collect();
    let mut report = sarif(&audited, allow);
    if !problems.is_empty() {
        report.status = crate::exit::ExitStatus::Violations;
    }
    report.warnings = problems;
    report
}
