//! Turning report values into output: compatibility lines, JSON lines or GitHub annotations.
//!
//! Every line a command prints is first a [`Line`] — its level, kind, path, contract id, line
//! number and message — from which the text form (`<kind>: <message>`) and the GitHub
//! annotation are rendered. In `--format json` a line is one serde serialisation: of the
//! [`Finding`] shape for contract violations, `gen` events and skill findings, and of a typed
//! record of its own for each skill command's result.

use asv_contracts::{Event, Violation};
use asv_skills::install::Installed;
use asv_skills::lifecycle::{Added, Pin, Pulled, State, Status, skill_dir};
use asv_skills::package::Packed;
use serde::Serialize;

use crate::cli::Format;

/// How a line is announced in `--format github`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Error,
    Warning,
    Notice,
}

impl Level {
    fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Notice => "notice",
        }
    }
}

/// One report line in the fields every format shares.
struct Line<'a> {
    level: Level,
    kind: &'a str,
    path: Option<&'a str>,
    id: Option<&'a str>,
    line: Option<usize>,
    message: String,
}

impl<'a> Line<'a> {
    /// A line with no path, id or line number.
    fn new(level: Level, kind: &'a str, message: String) -> Self {
        Line {
            level,
            kind,
            path: None,
            id: None,
            line: None,
            message,
        }
    }

    /// The same line about the file `path`.
    fn at(mut self, path: &'a str) -> Self {
        self.path = Some(path);
        self
    }

    /// The compatibility form: `<kind>: <message>`.
    fn text(&self) -> String {
        format!("{}: {}", self.kind, self.message)
    }

    /// A workflow command: `::<level> file=…,line=…,title=<kind>::<message>`.
    fn annotation(&self) -> String {
        let mut props = Vec::new();
        if let Some(p) = self.path {
            props.push(format!("file={}", escape_property(p)));
        }
        if let Some(l) = self.line {
            props.push(format!("line={l}"));
        }
        // The title carries the kind; the message does not say it again.
        props.push(format!("title={}", escape_property(self.kind)));
        format!(
            "::{} {}::{}",
            self.level.as_str(),
            props.join(","),
            escape_data(&self.message)
        )
    }

    /// The JSON record of a finding: every shared field, `null` where absent.
    fn finding(&self) -> Finding<'_> {
        Finding {
            kind: self.kind,
            path: self.path,
            id: self.id,
            line: self.line,
            message: &self.message,
        }
    }

    /// The line in `format`, with `record` as its JSON form.
    fn render(&self, format: Format, record: &impl Serialize) -> String {
        match format {
            Format::Text => self.text(),
            Format::Github => self.annotation(),
            Format::Json => json(record),
        }
    }

    /// The line in `format`, as a finding in JSON.
    fn render_finding(&self, format: Format) -> String {
        self.render(format, &self.finding())
    }
}

/// One finding in `--format json`: a stable shape of its own, so internals can change.
#[derive(Serialize)]
struct Finding<'a> {
    kind: &'a str,
    path: Option<&'a str>,
    id: Option<&'a str>,
    line: Option<usize>,
    message: &'a str,
}

// The skill commands' records. Their fields are declared in byte order of their names: that is
// the order these objects have always been printed in, and serde keeps declaration order.

/// `skill add`: what was placed.
#[derive(Serialize)]
struct AddedRecord<'a> {
    hash: &'a str,
    kind: &'static str,
    name: &'a str,
    path: &'a str,
    revision: &'a str,
    source: &'a str,
}

/// `skill status`: one skill's state.
#[derive(Serialize)]
struct StatusRecord<'a> {
    kind: &'static str,
    name: &'a str,
    reason: Option<&'a str>,
    revision: &'a str,
    source: &'a str,
    state: &'a str,
}

/// `skill pull`: what happened to one skill.
#[derive(Serialize)]
#[serde(untagged)]
enum PulledRecord<'a> {
    UpToDate {
        kind: &'static str,
        name: &'a str,
        revision: &'a str,
    },
    Updated {
        from: &'a str,
        #[serde(rename = "keptLocal")]
        kept_local: bool,
        kind: &'static str,
        /// Where the lost base belonged, when the merge was made without one.
        #[serde(rename = "lostBase", skip_serializing_if = "Option::is_none")]
        lost_base: Option<&'a str>,
        name: &'a str,
        to: &'a str,
    },
    Conflicts {
        conflicts: Vec<ConflictRecord<'a>>,
        kind: &'static str,
        /// Where the lost base belonged, when the merge was made without one.
        #[serde(rename = "lostBase", skip_serializing_if = "Option::is_none")]
        lost_base: Option<&'a str>,
        name: &'a str,
        revision: &'a str,
        written: bool,
    },
    RemovedUpstream {
        kind: &'static str,
        modified: bool,
        name: &'a str,
        revision: &'a str,
    },
}

/// One conflicted file of a `skill pull`.
#[derive(Serialize)]
struct ConflictRecord<'a> {
    kind: &'a str,
    path: String,
}

/// `skill resolve`: the revision recorded.
#[derive(Serialize)]
struct ResolvedRecord<'a> {
    kind: &'static str,
    name: &'a str,
    revision: &'a str,
}

/// `skill pack`: the archive written.
#[derive(Serialize)]
struct PackedRecord<'a> {
    bytes: usize,
    files: usize,
    hash: &'a str,
    kind: &'static str,
    name: &'a str,
    path: &'a str,
    /// The archive file's own sha256, beside `hash`, the skill's tree hash.
    zip: &'a str,
}

/// `skill install --dry-run`: one planned change.
#[derive(Serialize)]
struct PlanRecord {
    kind: &'static str,
    message: String,
}

/// `skill install`: one skill placed.
#[derive(Serialize)]
struct InstalledRecord<'a> {
    hash: &'a str,
    kind: &'static str,
    name: &'a str,
    path: &'a str,
}

/// One JSON line. The records hold only strings, numbers, booleans and lists of them, which
/// always serialise.
fn json(record: &impl Serialize) -> String {
    serde_json::to_string(record).unwrap_or_default()
}

/// Escapes the message part of a workflow command.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value of a workflow command.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Renders one violation as a line (without the line break).
pub fn violation(format: Format, v: &Violation) -> String {
    Line {
        id: v.id().map(|i| i.as_str()),
        line: v.line(),
        path: v.path(),
        ..Line::new(Level::Error, v.kind(), v.message())
    }
    .render_finding(format)
}

/// Renders one skill finding as a line (without the line break).
pub fn finding(format: Format, f: &asv_skills::Finding) -> String {
    let (kind, level) = match f.severity {
        asv_skills::Severity::Error => ("error", Level::Error),
        asv_skills::Severity::Warning => ("warning", Level::Warning),
    };
    match format {
        Format::Text => format!("{kind}: {}: {}", f.location(), f.message),
        _ => Line {
            line: f.line,
            ..Line::new(level, kind, f.message.clone()).at(&f.path)
        }
        .render_finding(format),
    }
}

/// Renders one `gen` event as a line (without the line break).
pub fn event(format: Format, e: &Event) -> String {
    let level = if matches!(e, Event::WorkdirNotIgnored) {
        Level::Warning
    } else {
        Level::Notice
    };
    Line {
        id: e.id().map(|i| i.as_str()),
        path: e.path(),
        ..Line::new(level, e.kind(), e.message())
    }
    .render_finding(format)
}

/// Renders what `skill add` placed.
pub fn added(format: Format, a: &Added) -> String {
    let dir = skill_dir(&a.name);
    let message = match &a.pin {
        // A directory's tree hash is the hash placed unless the import renamed it.
        Pin::Tree(tree) if *tree == a.hash => format!("{} <- {} at {tree}", a.name, a.source),
        pin => format!(
            "{} <- {} at {} ({})",
            a.name,
            a.source,
            pin.as_str(),
            a.hash
        ),
    };
    Line::new(Level::Notice, "added", message).at(&dir).render(
        format,
        &AddedRecord {
            hash: &a.hash,
            kind: "added",
            name: &a.name,
            path: &dir,
            revision: a.pin.as_str(),
            source: &a.source,
        },
    )
}

/// Renders one line of `skill status`.
pub fn status(format: Format, s: &Status) -> String {
    let reason = match &s.state {
        State::Invalid(why) => Some(why.as_str()),
        _ => None,
    };
    let state = s.state.as_str();
    if format == Format::Text {
        return match reason {
            Some(why) => format!("{}: {state} ({why})", s.name),
            None => format!("{}: {state}", s.name),
        };
    }
    let level = if matches!(s.state, State::Clean | State::Modified) {
        Level::Notice
    } else {
        Level::Warning
    };
    let dir = skill_dir(&s.name);
    Line::new(level, state, reason.unwrap_or(state).to_owned())
        .at(&dir)
        .render(
            format,
            &StatusRecord {
                kind: "status",
                name: &s.name,
                reason,
                revision: &s.revision,
                source: &s.source,
                state,
            },
        )
}

/// Renders what `skill pull` did to one skill (one or more lines).
pub fn pulled(format: Format, p: &Pulled) -> Vec<String> {
    match format {
        Format::Text => p.lines(),
        Format::Json => vec![json(&pulled_record(p))],
        Format::Github => match p {
            Pulled::Conflicts {
                name, conflicts, ..
            } => {
                let dir = skill_dir(name);
                let head = p.lines().swap_remove(0);
                let mut out = vec![
                    Line::new(Level::Error, "conflicts", head)
                        .at(&dir)
                        .annotation(),
                ];
                out.extend(conflicts.iter().map(|c| {
                    let path = format!("{dir}/{}", c.path);
                    Line::new(Level::Error, "conflict", c.kind.as_str().to_owned())
                        .at(&path)
                        .annotation()
                }));
                out
            }
            _ => p
                .lines()
                .into_iter()
                .map(|l| Line::new(Level::Notice, "pulled", l).annotation())
                .collect(),
        },
    }
}

/// The JSON record of one skill's pull.
fn pulled_record(p: &Pulled) -> PulledRecord<'_> {
    match p {
        Pulled::UpToDate { name, revision } => PulledRecord::UpToDate {
            kind: "up-to-date",
            name,
            revision,
        },
        Pulled::Updated {
            name,
            from,
            to,
            kept_local,
            lost_base,
        } => PulledRecord::Updated {
            from,
            kept_local: *kept_local,
            kind: "updated",
            lost_base: lost_base.as_deref(),
            name,
            to,
        },
        Pulled::Conflicts {
            name,
            revision,
            conflicts,
            written,
            lost_base,
        } => PulledRecord::Conflicts {
            conflicts: conflicts
                .iter()
                .map(|c| ConflictRecord {
                    kind: c.kind.as_str(),
                    path: format!("{}/{}", skill_dir(name), c.path),
                })
                .collect(),
            kind: "conflicts",
            lost_base: lost_base.as_deref(),
            name,
            revision,
            written: *written,
        },
        Pulled::RemovedUpstream {
            name,
            revision,
            modified,
        } => PulledRecord::RemovedUpstream {
            kind: "removed-upstream",
            modified: *modified,
            name,
            revision,
        },
    }
}

/// Renders what `skill resolve` recorded.
pub fn resolved(format: Format, name: &str, revision: &str) -> String {
    let dir = skill_dir(name);
    Line::new(Level::Notice, "resolved", format!("{name} at {revision}"))
        .at(&dir)
        .render(
            format,
            &ResolvedRecord {
                kind: "resolved",
                name,
                revision,
            },
        )
}

/// `1,234,567`.
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A size as people read it: `950 bytes`, `1 byte`, `13.4 MB (13,393,373 bytes)` (decimal
/// units, as file managers and upload limits state them).
fn size(bytes: usize) -> String {
    const UNITS: [(f64, &str); 3] = [(1e9, "GB"), (1e6, "MB"), (1e3, "kB")];
    let n = bytes as f64;
    match UNITS.iter().find(|(unit, _)| n >= *unit) {
        Some((unit, name)) => format!("{:.1} {name} ({} bytes)", n / unit, grouped(bytes)),
        None if bytes == 1 => "1 byte".to_owned(),
        None => format!("{bytes} bytes"),
    }
}

/// `1 file`, `3 files`.
fn files(n: usize) -> String {
    if n == 1 {
        "1 file".to_owned()
    } else {
        format!("{} files", grouped(n))
    }
}

/// Renders what `skill pack` wrote: the skill's tree hash and the archive's own digest, each
/// named, since a user may compare either.
pub fn packed(format: Format, p: &Packed, output: &str) -> String {
    let zip = asv_contracts::Digest::of(&p.zip).to_string();
    let message = format!(
        "{} -> {output} ({}, {}; tree {}, zip {zip})",
        p.name,
        files(p.files),
        size(p.zip.len()),
        p.hash
    );
    Line::new(Level::Notice, "packed", message)
        .at(output)
        .render(
            format,
            &PackedRecord {
                bytes: p.zip.len(),
                files: p.files,
                hash: &p.hash,
                kind: "packed",
                name: &p.name,
                path: output,
                zip: &zip,
            },
        )
}

/// Renders one change a dry run would make (`shown_root` prefixes its destination), with the
/// reason the plan gave when `reasons` (an install's `forced` or `already absent` says
/// something; every change of gen is its own by rule, so there it would only repeat itself).
pub fn planned(
    format: Format,
    planned: &asv_fs::PlannedChange,
    shown_root: &str,
    reasons: bool,
) -> String {
    let mut message = format!(
        "{} {shown_root}{}",
        planned.action(),
        asv_fs::quote::DisplayPath(planned.dest())
    );
    if let Some(reason) = planned.reason().filter(|_| reasons) {
        message.push_str(&format!(" ({reason})"));
    }
    Line::new(Level::Notice, "plan", message).render(
        format,
        &PlanRecord {
            kind: "plan",
            message: planned.to_string(),
        },
    )
}

/// Renders what `skill install` did, or would do for a dry run (`shown_root` prefixes each
/// destination: `~/` for the home directory).
pub fn installed(format: Format, i: &Installed, shown_root: &str) -> Vec<String> {
    if i.dry_run {
        return i
            .plan
            .iter()
            .map(|p| planned(format, p, shown_root, true))
            .collect();
    }
    i.skills
        .iter()
        .map(|(name, dest, hash)| {
            let shown = format!("{shown_root}{dest}");
            Line::new(
                Level::Notice,
                "installed",
                format!("{name} -> {shown} ({hash})"),
            )
            .at(&shown)
            .render(
                format,
                &InstalledRecord {
                    hash,
                    kind: "installed",
                    name,
                    path: &shown,
                },
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_counts_read_as_english() {
        assert_eq!(size(0), "0 bytes");
        assert_eq!(size(1), "1 byte");
        assert_eq!(size(999), "999 bytes");
        assert_eq!(size(1_000), "1.0 kB (1,000 bytes)");
        assert_eq!(size(13_393_373), "13.4 MB (13,393,373 bytes)");
        assert_eq!(size(2_500_000_000), "2.5 GB (2,500,000,000 bytes)");
        assert_eq!(files(1), "1 file");
        assert_eq!(files(1485), "1,485 files");
    }

    #[test]
    fn github_annotations_escape_what_would_break_them() {
        let v = Violation::Extra {
            path: "skills/a,b/references/vendor/x:y%.md".into(),
        };
        assert_eq!(
            violation(Format::Github, &v),
            "::error file=skills/a%2Cb/references/vendor/x%3Ay%25.md,title=extra::skills/a,b/references/vendor/x:y%25.md answers to no declaration"
        );
    }

    #[test]
    fn json_lines_carry_kind_path_id_message() {
        let v = Violation::Lock { missing: true };
        assert_eq!(
            violation(Format::Json, &v),
            r#"{"kind":"lock","path":"vendor-lock.json","id":null,"line":null,"message":"vendor-lock.json is missing"}"#
        );
    }
}
