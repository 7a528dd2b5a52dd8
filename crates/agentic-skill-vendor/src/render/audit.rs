//! `skill audit`'s lines: one per finding, the file shown from the repository root.

use serde::Serialize;

use super::line::{Level, Line};
use crate::cli::Format;

/// What a finding's JSON record carries beside the shared fields.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AuditFields<'a> {
    rule: &'a str,
    severity: &'a str,
    skill: &'a str,
    column: u32,
    excerpt: &'a str,
    fingerprint: &'a str,
    /// The reason of the allow-file entry that accepts it, `null` when none does.
    allowed: Option<&'a str>,
}

/// One finding of the skill at `dir` (`skills/pdf`, or a directory as typed):
/// `error: skills/pdf/SKILL.md:3:14: unicode/tag: 11 tag character(s) spelling "…"`.
pub fn audit_finding(
    format: Format,
    dir: &str,
    f: &asv_audit::Finding,
    allowed: Option<&str>,
) -> String {
    let path = if dir.is_empty() {
        f.path.clone()
    } else {
        format!("{}/{}", dir.trim_end_matches('/'), f.path)
    };
    let (kind, level) = match f.severity {
        asv_audit::Severity::Error => ("error", Level::Error),
        asv_audit::Severity::Warning => ("warning", Level::Warning),
    };
    // The excerpt is said when the detail does not already show it.
    let message = if f.excerpt.is_empty() || f.detail.contains(&f.excerpt) {
        f.detail.clone()
    } else {
        format!("{}: {}", f.detail, f.excerpt)
    };
    match format {
        Format::Text => format!(
            "{kind}: {path}:{}:{}: {}: {message}",
            f.line,
            f.column,
            f.rule.id()
        ),
        // The annotation's title is the rule; the JSON record's kind is the severity, as
        // `skill validate` gives it.
        _ => Line {
            line: Some(f.line as usize),
            id: Some(f.rule.id()),
            ..Line::new(level, f.rule.id(), message).at(&path)
        }
        .render_as(
            format,
            kind,
            AuditFields {
                rule: f.rule.id(),
                severity: f.severity.as_str(),
                skill: dir,
                column: f.column,
                excerpt: &f.excerpt,
                fingerprint: &f.fingerprint,
                allowed,
            },
        ),
    }
}

/// What an audit counted.
#[derive(Debug, Default, Clone, Copy)]
pub struct AuditTally {
    /// Skills audited.
    pub skills: usize,
    /// Error findings not allowed.
    pub errors: usize,
    /// Warning findings not allowed.
    pub warnings: usize,
    /// Findings an entry of the allow file accepts.
    pub allowed: usize,
}

/// The line after an audit: `audited 12 skills: 1 error, 3 warnings (2 allowed)`.
pub fn audit_summary(t: &AuditTally) -> String {
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let allowed = if t.allowed > 0 {
        format!(
            " ({} allowed by {})",
            t.allowed,
            asv_model::layout::SKILL_AUDIT_ALLOW
        )
    } else {
        String::new()
    };
    format!(
        "audited {}: {}, {}{allowed}",
        plural(t.skills, "skill", "skills"),
        plural(t.errors, "error", "errors"),
        plural(t.warnings, "warning", "warnings")
    )
}

/// What an `audit` record carries beside the shared fields: a finding in what a command
/// wrote (`skill add`, `pull`, `sync`, `install`) or in what `skill verify` read.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GatedFields<'a> {
    rule: &'a str,
    severity: &'a str,
    skill: &'a str,
    column: u32,
    excerpt: &'a str,
    fingerprint: &'a str,
    /// The reason of the allow-file entry that accepts it, `null` when none does.
    allowed: Option<&'a str>,
    /// Whether `--accept-findings` let this error through for the run.
    accepted: bool,
}

/// One audit finding of a command that writes skills, or of `skill verify`: in text the line
/// `skill audit` prints; in JSON an `audit` record; in GitHub an annotation at its file and
/// line, titled by its rule.
pub fn gated_finding(
    format: Format,
    dir: &str,
    f: &asv_audit::Finding,
    allowed: Option<&str>,
    accepted: bool,
) -> String {
    if format == Format::Text {
        return audit_finding(format, dir, f, allowed);
    }
    let path = asv_fs::join(dir, &f.path);
    let level = match f.severity {
        asv_audit::Severity::Error => Level::Error,
        asv_audit::Severity::Warning => Level::Warning,
    };
    let message = if f.excerpt.is_empty() || f.detail.contains(&f.excerpt) {
        f.detail.clone()
    } else {
        format!("{}: {}", f.detail, f.excerpt)
    };
    Line {
        line: Some(f.line as usize),
        id: Some(f.rule.id()),
        ..Line::new(level, f.rule.id(), message).at(&path)
    }
    .render_as(
        format,
        "audit",
        GatedFields {
            rule: f.rule.id(),
            severity: f.severity.as_str(),
            skill: dir,
            column: f.column,
            excerpt: &f.excerpt,
            fingerprint: &f.fingerprint,
            allowed,
            accepted,
        },
    )
}

/// The records of the findings that refused a run (`error` is the refusal), before the
/// refusal's own record; none for any other refusal.
pub fn refused_findings(format: Format, error: &crate::error::Error) -> Vec<String> {
    match error {
        crate::error::Error::Skills(asv_skills::Error::AuditRefused { refused }) => refused
            .iter()
            .map(|g| gated_finding(format, &g.dir, &g.finding, None, false))
            .collect(),
        _ => Vec::new(),
    }
}

/// What an `allowed` record carries beside the shared fields.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AllowedFields<'a> {
    skill: &'a str,
    rule: &'a str,
    glob: Option<&'a str>,
    fingerprint: Option<&'a str>,
    reason: &'a str,
}

/// The entry `skill audit --allow` appended:
/// `allowed: net/url in pdf, files references/*.md: <reason> (vendor-skills-audit.yaml)`.
pub fn allowed_entry(format: Format, e: &asv_skills::audit::allow::Allowance) -> String {
    let mut scope = String::new();
    if let Some(glob) = &e.path {
        scope.push_str(&format!(", files {glob}"));
    }
    if let Some(fp) = &e.fingerprint {
        scope.push_str(&format!(", fingerprint {}", &fp[..fp.len().min(12)]));
    }
    let file = asv_model::layout::SKILL_AUDIT_ALLOW;
    let message = format!(
        "{} in {}{scope}: {} ({file})",
        e.rule.id(),
        e.skill,
        e.reason
    );
    Line::new(Level::Notice, "allowed", message)
        .at(file)
        .render(
            format,
            AllowedFields {
                skill: &e.skill,
                rule: e.rule.id(),
                glob: e.path.as_deref(),
                fingerprint: e.fingerprint.as_deref(),
                reason: &e.reason,
            },
        )
}
