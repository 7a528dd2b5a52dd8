//! Turning report values into output: compatibility lines, JSON lines or GitHub annotations.
//!
//! Every line a command prints is first a [`Line`] — its level, kind, path, contract id, line
//! number and message — from which the text form (`<kind>: <message>`) and the GitHub
//! annotation are rendered. In `--format json` a line is one serde serialisation of a
//! [`Record`]: those five shared fields, then the fields of the command's own (docs/JSON.md
//! lists every kind and its fields; a test holds the output to that page).

use asv_contracts::{Event, Violation};
use asv_skills::add::{Added, Pin};
use asv_skills::install::Installed;
use asv_skills::naming::NamedBy;
use asv_skills::package::Packed;
use asv_skills::pull::Pulled;
use asv_skills::skill_dir;
use asv_skills::status::{State, Status};
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

    /// The JSON record of the line: every shared field (`null` where absent), then `fields`,
    /// under the JSON kind `kind` (which differs from the line's own only where the text and
    /// GitHub forms name a state the JSON record carries as a field).
    fn record<'r, F: Serialize>(&'r self, kind: &'r str, fields: F) -> Record<'r, F> {
        Record {
            kind,
            path: self.path,
            id: self.id,
            line: self.line,
            message: &self.message,
            fields,
        }
    }

    /// The line in `format`, with `fields` after the shared ones in JSON.
    fn render(&self, format: Format, fields: impl Serialize) -> String {
        self.render_as(format, self.kind, fields)
    }

    /// As [`Line::render`], the JSON record saying `kind`.
    fn render_as(&self, format: Format, kind: &str, fields: impl Serialize) -> String {
        match format {
            Format::Text => self.text(),
            Format::Github => self.annotation(),
            Format::Json => json(&self.record(kind, fields)),
        }
    }

    /// The line in `format`, with no fields but the shared ones.
    fn render_finding(&self, format: Format) -> String {
        self.render(format, NoFields {})
    }
}

/// One line in `--format json`: a stable shape of its own, so internals can change. Every
/// record has the five shared fields, in this order; a command's own follow, named in
/// camelCase.
#[derive(Serialize)]
struct Record<'a, F> {
    kind: &'a str,
    path: Option<&'a str>,
    id: Option<&'a str>,
    line: Option<usize>,
    message: &'a str,
    #[serde(flatten)]
    fields: F,
}

/// A record with only the shared fields: violations, `gen` events, plan entries.
#[derive(Serialize)]
struct NoFields {}

// The fields of each command's own, after the shared ones. Names are camelCase, in the order
// declared here (serde keeps it).

/// `skill add`: what was placed.
#[derive(Serialize)]
struct AddedFields<'a> {
    name: &'a str,
    source: &'a str,
    revision: &'a str,
    hash: &'a str,
    /// Where the local name came from: `option`, `manifest` or `directory`.
    #[serde(rename = "namedBy")]
    named_by: &'static str,
}

/// `skill status`: one skill's state.
#[derive(Serialize)]
struct StatusFields<'a> {
    name: &'a str,
    state: &'a str,
    reason: Option<&'a str>,
    source: &'a str,
    revision: &'a str,
    /// The revision a pull found the skill gone upstream at (empty for a local directory).
    #[serde(rename = "removedUpstream")]
    removed_upstream: Option<&'a str>,
}

/// `skill pull`: what happened to one skill.
#[derive(Serialize)]
#[serde(untagged)]
enum PulledFields<'a> {
    UpToDate {
        name: &'a str,
        revision: &'a str,
    },
    Updated {
        name: &'a str,
        from: &'a str,
        to: &'a str,
        #[serde(rename = "keptLocal")]
        kept_local: bool,
        /// Where the lost base belonged, when the merge was made without one.
        #[serde(rename = "lostBase")]
        lost_base: Option<&'a str>,
    },
    Conflicts {
        name: &'a str,
        revision: &'a str,
        written: bool,
        conflicts: Vec<ConflictRecord<'a>>,
        /// Where the lost base belonged, when the merge was made without one.
        #[serde(rename = "lostBase")]
        lost_base: Option<&'a str>,
    },
    RemovedUpstream {
        name: &'a str,
        revision: &'a str,
        modified: bool,
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
struct ResolvedFields<'a> {
    name: &'a str,
    revision: &'a str,
}

/// `skill pack`: the archive written.
#[derive(Serialize)]
struct PackedFields<'a> {
    name: &'a str,
    files: usize,
    bytes: usize,
    hash: &'a str,
    /// The archive file's own sha256, beside `hash`, the skill's tree hash.
    zip: &'a str,
}

/// `gen --dry-run`, `skill install --dry-run`: one planned change.
#[derive(Serialize)]
struct PlanFields<'a> {
    action: &'a str,
}

/// `skill install`: one skill placed.
#[derive(Serialize)]
struct InstalledFields<'a> {
    name: &'a str,
    hash: &'a str,
}

/// `skill validate` and the warnings of other skill commands: the rule a finding is about.
#[derive(Serialize)]
struct FindingFields<'a> {
    rule: &'a str,
}

/// `skill hash`.
#[derive(Serialize)]
struct HashFields<'a> {
    hash: &'a str,
}

/// `skill diff`.
#[derive(Serialize)]
struct DiffFields<'a> {
    name: &'a str,
    from: &'a str,
    to: &'a str,
    diff: &'a str,
}

/// `skill remove`: one skill removed.
#[derive(Serialize)]
struct RemovedFields<'a> {
    name: &'a str,
    /// Whether `--force` discarded local edits or conflicts.
    discarded: bool,
}

/// `skill outdated`: one skill whose ref moved.
#[derive(Serialize)]
struct OutdatedFields<'a> {
    name: &'a str,
    locked: &'a str,
    now: &'a str,
    #[serde(rename = "ref")]
    reference: Option<&'a str>,
    /// The ref the lock follows, when vendor-skills.yaml asks for another (`ref`).
    #[serde(rename = "lockedRef", skip_serializing_if = "Option::is_none")]
    locked_ref: Option<Option<&'a str>>,
    /// For a semver range: the newest tag in it.
    #[serde(rename = "inRange", skip_serializing_if = "Option::is_none")]
    in_range: Option<&'a str>,
    /// For a semver range (present with `inRange`): the newest release tag.
    #[serde(skip_serializing_if = "Option::is_none")]
    newest: Option<Option<&'a str>>,
}

/// `skill list`: one skill.
#[derive(Serialize)]
struct ListedFields<'a> {
    name: &'a str,
    origin: &'a str,
    source: Option<&'a str>,
    revision: Option<&'a str>,
    state: &'a str,
    /// The agents' directories `skill sync` mirrored it into.
    mirrored: &'a [&'a str],
}

/// A refusal: which side it lies with.
#[derive(Serialize)]
struct RefusalFields {
    side: &'static str,
}

/// `self-test`: the vectors checked, and how many the build disagrees with.
#[derive(Serialize)]
struct CheckedFields<'a> {
    vectors: &'a [&'a str],
    failed: usize,
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

/// Renders a run of this tool that was killed while it changed the tree, as a reader finds it.
pub fn interrupted(format: Format, run: &asv_fs::Interrupted) -> String {
    if let Some(problem) = &run.refused {
        // Not a run this tool will put right: a file to delete, said as the writers say it.
        let message = format!(
            "{}: a journal no command acts on: {problem}; if no run of agentic-skill-vendor is changing this repository, delete this file",
            asv_fs::quote::DisplayPath(&run.journal)
        );
        return Line::new(Level::Error, "journal-refused", message)
            .at(&run.journal)
            .render_finding(format);
    }
    let message = format!(
        "{}: `{}` was killed while it changed the tree, which is part old, part new; run it again (a command that writes first {} what it changed)",
        asv_fs::quote::DisplayPath(&run.journal),
        run.command,
        if run.committed {
            "finishes"
        } else {
            "puts back"
        }
    );
    Line::new(Level::Error, "interrupted", message)
        .at(&run.journal)
        .render_finding(format)
}

/// Renders one violation as a line about `path` at `line` instead of its own path: a
/// `closure` annotation points at the SKILL.md line that declares the missing contract, where
/// the fix is made, not at the file that is not there.
pub fn violation_at(format: Format, v: &Violation, path: &str, line: Option<usize>) -> String {
    Line {
        id: v.id().map(|i| i.as_str()),
        line,
        path: Some(path),
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
        .render(
            format,
            FindingFields {
                rule: f.rule.code(),
            },
        ),
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
    // The name is said when it is not the upstream directory's, so the user knows which rule
    // chose it.
    let message = match a.named_by {
        NamedBy::Manifest if a.name != a.upstream => format!(
            "{message}; named by its SKILL.md (upstream directory {})",
            asv_fs::quote::DisplayPath(&a.upstream)
        ),
        NamedBy::Directory => {
            format!("{message}; named after its directory (its SKILL.md gives no usable name)")
        }
        _ => message,
    };
    Line::new(Level::Notice, "added", message).at(&dir).render(
        format,
        AddedFields {
            name: &a.name,
            source: &a.source,
            revision: a.pin.as_str(),
            hash: &a.hash,
            named_by: a.named_by.code(),
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
    let mut shown = match reason {
        Some(why) => format!("{state} ({why})"),
        None => state.to_owned(),
    };
    match s.removed_upstream.as_deref() {
        Some("") => shown.push_str("; removed upstream, kept as it is"),
        Some(at) => shown.push_str(&format!("; removed upstream at {at}, kept as it is")),
        None => {}
    }
    match format {
        Format::Text => format!("{}: {shown}", s.name),
        Format::Github => {
            let level = if matches!(s.state, State::Clean | State::Modified) {
                Level::Notice
            } else {
                Level::Warning
            };
            Line::new(level, state, reason.unwrap_or(state).to_owned())
                .at(&skill_dir(&s.name))
                .annotation()
        }
        Format::Json => Line::new(Level::Notice, "status", shown)
            .at(&skill_dir(&s.name))
            .render(
                format,
                StatusFields {
                    name: &s.name,
                    state,
                    reason,
                    source: &s.source,
                    revision: &s.revision,
                    removed_upstream: s.removed_upstream.as_deref(),
                },
            ),
    }
}

/// Renders what `skill pull` did to one skill (one or more lines).
pub fn pulled(format: Format, p: &Pulled) -> Vec<String> {
    match format {
        Format::Text => p.lines(),
        Format::Json => {
            let (kind, name) = match p {
                Pulled::UpToDate { name, .. } => ("up-to-date", name),
                Pulled::Updated { name, .. } => ("updated", name),
                Pulled::Conflicts { name, .. } => ("conflicts", name),
                Pulled::Waiting { name, .. } => ("waiting", name),
                Pulled::RemovedUpstream { name, .. } => ("removed-upstream", name),
            };
            let dir = skill_dir(name);
            let head = p.lines().into_iter().next().unwrap_or_default();
            vec![
                Line::new(Level::Notice, kind, head)
                    .at(&dir)
                    .render(format, pulled_fields(p)),
            ]
        }
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
            Pulled::Waiting { name, .. } => vec![
                Line::new(Level::Error, "waiting", p.lines().swap_remove(0))
                    .at(&skill_dir(name))
                    .annotation(),
            ],
            _ => p
                .lines()
                .into_iter()
                .map(|l| Line::new(Level::Notice, "pulled", l).annotation())
                .collect(),
        },
    }
}

/// The fields of one skill's pull in JSON.
fn pulled_fields(p: &Pulled) -> PulledFields<'_> {
    match p {
        Pulled::UpToDate { name, revision } | Pulled::Waiting { name, revision } => {
            PulledFields::UpToDate { name, revision }
        }
        Pulled::Updated {
            name,
            from,
            to,
            kept_local,
            lost_base,
            ..
        } => PulledFields::Updated {
            name,
            from,
            to,
            kept_local: *kept_local,
            lost_base: lost_base.as_deref(),
        },
        Pulled::Conflicts {
            name,
            revision,
            conflicts,
            written,
            lost_base,
        } => PulledFields::Conflicts {
            name,
            revision,
            written: *written,
            conflicts: conflicts
                .iter()
                .map(|c| ConflictRecord {
                    kind: c.kind.as_str(),
                    path: format!("{}/{}", skill_dir(name), c.path),
                })
                .collect(),
            lost_base: lost_base.as_deref(),
        },
        Pulled::RemovedUpstream {
            name,
            revision,
            modified,
        } => PulledFields::RemovedUpstream {
            name,
            revision,
            modified: *modified,
        },
    }
}

/// Renders what `skill resolve` recorded.
pub fn resolved(format: Format, name: &str, revision: &str) -> String {
    let dir = skill_dir(name);
    Line::new(Level::Notice, "resolved", format!("{name} at {revision}"))
        .at(&dir)
        .render(format, ResolvedFields { name, revision })
}

/// `1,234,567`.
pub fn grouped(n: usize) -> String {
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
            PackedFields {
                name: &p.name,
                files: p.files,
                bytes: p.zip.len(),
                hash: &p.hash,
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
    let dest = format!("{shown_root}{}", planned.dest());
    match format {
        // The JSON message is the plan's own words, the destination unquoted in `path`.
        Format::Json => Line {
            message: planned.to_string(),
            ..Line::new(Level::Notice, "plan", String::new()).at(&dest)
        }
        .render(
            format,
            PlanFields {
                action: &planned.action().to_string(),
            },
        ),
        _ => Line::new(Level::Notice, "plan", message).render_finding(format),
    }
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
            .render(format, InstalledFields { name, hash })
        })
        .collect()
}

/// Renders one thing `skill sync` did (or would do).
pub fn synced(format: Format, s: &asv_skills::sync::Synced) -> String {
    let path = s.path();
    let level = if s.is_shortfall() {
        Level::Warning
    } else {
        Level::Notice
    };
    Line::new(level, s.kind(), s.message())
        .at(&path)
        .render_finding(format)
}

/// Renders one problem `skill verify` found.
pub fn skill_problem(format: Format, p: &asv_skills::sync::Problem) -> String {
    Line::new(Level::Error, p.kind, p.message.clone())
        .at(&p.path)
        .render_finding(format)
}

/// Renders a skill's tree hash (`skill hash`): the bare hash as text, so a script can take it
/// as it is.
pub fn hash(format: Format, dir: &str, hash: &str) -> String {
    match format {
        Format::Text => hash.to_owned(),
        _ => Line::new(Level::Notice, "hash", hash.to_owned())
            .at(dir)
            .render(format, HashFields { hash }),
    }
}

/// Renders `skill diff`: the unified diff's lines as text, one record in JSON.
pub fn diff(format: Format, name: &str, from: &str, to: &str, text: &str) -> Vec<String> {
    match format {
        Format::Json => vec![
            Line::new(Level::Notice, "diff", format!("{name}: {from} -> {to}"))
                .at(&skill_dir(name))
                .render(
                    format,
                    DiffFields {
                        name,
                        from,
                        to,
                        diff: text,
                    },
                ),
        ],
        // Split at LF only: a CR before it belongs to the line (a CRLF file's diff keeps its
        // CRs, as `git diff` prints them and `git apply` needs them).
        _ => text
            .split_inclusive('\n')
            .map(|l| l.strip_suffix('\n').unwrap_or(l).to_owned())
            .collect(),
    }
}

/// Renders what `init` made.
pub fn made(format: Format, made: &asv_contracts::init::Made) -> String {
    let text = made.line();
    let (kind, message) = text.split_once(": ").unwrap_or(("created", text.as_str()));
    let path = match made {
        asv_contracts::init::Made::Directory(dir) => dir,
        asv_contracts::init::Made::IgnoreRule { .. } => ".gitignore",
    };
    Line::new(Level::Notice, kind, message.to_owned())
        .at(path)
        .render_finding(format)
}

/// Renders a refusal for `--format json` (a record of kind `error` with its side) or `github`
/// (an error annotation at the file and line it names).
pub fn refusal(
    format: Format,
    side: asv_fs::Side,
    location: Option<&asv_fs::Location>,
    message: &str,
) -> String {
    Line {
        path: location.map(|l| l.file.as_str()),
        line: location.and_then(|l| l.line),
        ..Line::new(Level::Error, "error", message.to_owned())
    }
    .render(format, RefusalFields { side: side.name() })
}

/// Renders what `self-test` checked: `vectors` by name, `failed` of them disagreeing.
pub fn checked(format: Format, vectors: &[&str], failed: usize) -> String {
    let agree = vectors.len() - failed.min(vectors.len());
    let message = format!(
        "{} embedded vectors checked ({}); {agree} agree",
        vectors.len(),
        vectors.join(", ")
    );
    Line::new(Level::Notice, "checked", message).render(format, CheckedFields { vectors, failed })
}

/// Renders what `skill remove` removed: `removed: <name> (skills/<name>)`, saying when the
/// directory was already gone or local edits were discarded.
pub fn removed(format: Format, r: &asv_skills::manage::Removed) -> String {
    let mut notes = Vec::new();
    if !r.present {
        notes.push("already absent");
    }
    if r.discarded {
        notes.push("local edits discarded");
    }
    let mut message = format!("{} ({}", r.name, r.path);
    for note in notes {
        message.push_str("; ");
        message.push_str(note);
    }
    message.push(')');
    Line::new(Level::Notice, "removed", message)
        .at(&r.path)
        .render(
            format,
            RemovedFields {
                name: &r.name,
                discarded: r.discarded,
            },
        )
}

/// Renders one skill of `skill outdated`: `<name>: <locked> -> <now> (<ref>)`, the ref
/// followed by the tags a range picks and, when vendor-skills.yaml asks for another ref than
/// the lock follows, why.
pub fn outdated(format: Format, o: &asv_skills::manage::Outdated) -> String {
    if o.removed_upstream {
        let at = if o.now.is_empty() {
            String::new()
        } else {
            format!(" at {}", o.now)
        };
        let message = format!(
            "removed upstream{at}; {} is kept as it is (skill remove {} drops it)",
            skill_dir(&o.name),
            o.name
        );
        return match format {
            Format::Text => format!("{}: {message}", o.name),
            _ => Line::new(Level::Notice, "removed-upstream", message)
                .at(&skill_dir(&o.name))
                .render(
                    format,
                    OutdatedFields {
                        name: &o.name,
                        locked: &o.locked,
                        now: &o.now,
                        reference: o.reference.as_deref(),
                        locked_ref: None,
                        in_range: None,
                        newest: None,
                    },
                ),
        };
    }
    let mut why = o
        .reference
        .as_deref()
        .unwrap_or("the directory as it stands")
        .to_owned();
    if let Some(tag) = &o.in_range {
        why.push_str(&format!(": newest in range {tag}"));
        if let Some(newest) = &o.newest {
            why.push_str(&format!(", newest {newest}"));
        }
    }
    if o.ref_changed {
        why.push_str(&format!(
            "; vendor-skills.yaml asks for it, the lock follows {}: skill pull {} moves the pin",
            o.locked_ref.as_deref().unwrap_or("the default branch"),
            o.name
        ));
    }
    let message = format!("{} -> {} ({why})", o.locked, o.now);
    let dir = skill_dir(&o.name);
    match format {
        Format::Text => format!("{}: {message}", o.name),
        _ => Line::new(Level::Notice, "outdated", message)
            .at(&dir)
            .render(
                format,
                OutdatedFields {
                    name: &o.name,
                    locked: &o.locked,
                    now: &o.now,
                    reference: o.reference.as_deref(),
                    locked_ref: o.ref_changed.then_some(o.locked_ref.as_deref()),
                    in_range: o.in_range.as_deref(),
                    newest: o.in_range.as_ref().map(|_| o.newest.as_deref()),
                },
            ),
    }
}

/// Renders one skill of `skill list`: `<name>: <origin>, <state>` (an invalid one with why).
pub fn listed(format: Format, s: &asv_skills::manage::Skill, mirrored: &[&str]) -> String {
    use asv_skills::manage::Origin;
    let (origin, source, revision) = match &s.origin {
        Origin::Own => ("own".to_owned(), None, None),
        Origin::Imported { source, revision } => (
            format!("{source} @ {revision}"),
            Some(source.as_str()),
            Some(revision.as_str()),
        ),
    };
    let state = s.state.as_str();
    let mut message = match s.state.reason() {
        Some(why) => format!("{origin}, {state} ({why})"),
        None => format!("{origin}, {state}"),
    };
    if !mirrored.is_empty() {
        message.push_str(&format!("; mirrored in {}", mirrored.join(", ")));
    }
    let dir = skill_dir(&s.name);
    match format {
        Format::Text => format!("{}: {message}", s.name),
        _ => Line::new(Level::Notice, "skill", message).at(&dir).render(
            format,
            ListedFields {
                name: &s.name,
                origin: &origin,
                source,
                revision,
                state,
                mirrored,
            },
        ),
    }
}

/// `skill list --target`: one skill in an agent's directory.
#[derive(Serialize)]
struct AgentSkillFields<'a> {
    name: &'a str,
    hash: Option<&'a str>,
    placed: &'static str,
}

/// Renders one skill found in an agent's directory (`dir`, as shown).
pub fn agent_skill(format: Format, dir: &str, s: &asv_skills::sync::AgentSkill) -> String {
    let placed = s.placed.as_str();
    let path = format!("{dir}/{}", s.name);
    match format {
        Format::Text => format!("{}: {placed}", s.name),
        _ => Line::new(Level::Notice, "agent-skill", placed.to_owned())
            .at(&path)
            .render(
                format,
                AgentSkillFields {
                    name: &s.name,
                    hash: s.hash.as_deref(),
                    placed: match s.placed {
                        asv_skills::sync::Placed::BySync => "sync",
                        asv_skills::sync::Placed::EditedSinceSync => "sync-edited",
                        asv_skills::sync::Placed::NotRecorded => "unrecorded",
                    },
                },
            ),
    }
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
