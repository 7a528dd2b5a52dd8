//! `skill audit [NAME…|DIR…]`: the audit rules over skills of the repository or directories
//! as typed.

use std::path::Path;

use super::Report;
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
