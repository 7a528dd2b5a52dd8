//! Turning report values into output: compatibility lines, JSON lines or GitHub annotations.

use asv_contracts::{Event, Violation};
use serde::Serialize;

use crate::cli::Format;

/// One finding in `--format json`: a stable shape of its own, so internals can change.
#[derive(Serialize)]
struct JsonFinding<'a> {
    kind: &'a str,
    path: Option<&'a str>,
    id: Option<&'a str>,
    line: Option<usize>,
    message: String,
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

fn line_for(
    format: Format,
    level: &str,
    kind: &str,
    path: Option<&str>,
    id: Option<&str>,
    line: Option<usize>,
    message: String,
) -> String {
    match format {
        Format::Text => format!("{kind}: {message}"),
        Format::Json => {
            let finding = JsonFinding {
                kind,
                path,
                id,
                line,
                message,
            };
            serde_json::to_string(&finding).unwrap_or_default()
        }
        Format::Github => {
            let mut props = Vec::new();
            if let Some(p) = path {
                props.push(format!("file={}", escape_property(p)));
            }
            if let Some(l) = line {
                props.push(format!("line={l}"));
            }
            // The title carries the kind; the message does not say it again.
            props.push(format!("title={}", escape_property(kind)));
            format!("::{level} {}::{}", props.join(","), escape_data(&message))
        }
    }
}

/// Renders one violation as a line (without the line break).
pub fn violation(format: Format, v: &Violation) -> String {
    line_for(
        format,
        "error",
        v.kind(),
        v.path(),
        v.id().map(|i| i.as_str()),
        v.line(),
        v.message(),
    )
}

/// Renders one skill finding as a line (without the line break).
pub fn finding(format: Format, f: &asv_skills::Finding) -> String {
    let (kind, level) = match f.severity {
        asv_skills::Severity::Error => ("error", "error"),
        asv_skills::Severity::Warning => ("warning", "warning"),
    };
    match format {
        Format::Text => format!("{kind}: {}: {}", f.location(), f.message),
        _ => line_for(
            format,
            level,
            kind,
            Some(&f.path),
            None,
            f.line,
            f.message.clone(),
        ),
    }
}

/// Renders one `gen` event as a line (without the line break).
pub fn event(format: Format, e: &Event) -> String {
    line_for(
        format,
        if matches!(e, Event::WorkdirNotIgnored) {
            "warning"
        } else {
            "notice"
        },
        e.kind(),
        e.path(),
        e.id().map(|i| i.as_str()),
        None,
        e.message(),
    )
}

/// Renders what `skill add` placed.
pub fn added(format: Format, a: &asv_skills::lifecycle::Added) -> String {
    let dir = asv_skills::lifecycle::skill_dir(&a.name);
    match format {
        Format::Json => serde_json::json!({
            "kind": "added",
            "name": a.name,
            "path": dir,
            "source": a.source,
            "revision": a.pin.as_str(),
            "hash": a.hash,
        })
        .to_string(),
        _ => line_for(
            format,
            "notice",
            "added",
            Some(&dir),
            None,
            None,
            match &a.pin {
                // A directory's tree hash is the hash placed unless the import renamed it.
                asv_skills::lifecycle::Pin::Tree(tree) if *tree == a.hash => {
                    format!("{} <- {} at {tree}", a.name, a.source)
                }
                pin => format!(
                    "{} <- {} at {} ({})",
                    a.name,
                    a.source,
                    pin.as_str(),
                    a.hash
                ),
            },
        ),
    }
}

/// Renders one line of `skill status`.
pub fn status(format: Format, s: &asv_skills::lifecycle::Status) -> String {
    let reason = match &s.state {
        asv_skills::lifecycle::State::Invalid(why) => Some(why.as_str()),
        _ => None,
    };
    match format {
        Format::Json => serde_json::json!({
            "kind": "status",
            "name": s.name,
            "state": s.state.as_str(),
            "reason": reason,
            "source": s.source,
            "revision": s.revision,
        })
        .to_string(),
        Format::Text => match reason {
            Some(why) => format!("{}: {} ({why})", s.name, s.state.as_str()),
            None => format!("{}: {}", s.name, s.state.as_str()),
        },
        Format::Github => line_for(
            format,
            if matches!(
                s.state,
                asv_skills::lifecycle::State::Clean | asv_skills::lifecycle::State::Modified
            ) {
                "notice"
            } else {
                "warning"
            },
            s.state.as_str(),
            Some(&asv_skills::lifecycle::skill_dir(&s.name)),
            None,
            None,
            reason.unwrap_or(s.state.as_str()).to_owned(),
        ),
    }
}

/// Renders what `skill pull` did to one skill (one or more lines).
pub fn pulled(format: Format, p: &asv_skills::lifecycle::Pulled) -> Vec<String> {
    use asv_skills::lifecycle::Pulled;
    match format {
        Format::Text => p.lines(),
        Format::Json => {
            let value = match p {
                Pulled::UpToDate { name, revision } => serde_json::json!({
                    "kind": "up-to-date", "name": name, "revision": revision,
                }),
                Pulled::Updated {
                    name,
                    from,
                    to,
                    kept_local,
                } => serde_json::json!({
                    "kind": "updated", "name": name, "from": from, "to": to, "keptLocal": kept_local,
                }),
                Pulled::Conflicts {
                    name,
                    revision,
                    conflicts,
                    written,
                } => serde_json::json!({
                    "kind": "conflicts", "name": name, "revision": revision, "written": written,
                    "conflicts": conflicts.iter().map(|c| serde_json::json!({
                        "path": format!("{}/{}", asv_skills::lifecycle::skill_dir(name), c.path),
                        "kind": c.kind.as_str(),
                    })).collect::<Vec<_>>(),
                }),
                Pulled::RemovedUpstream {
                    name,
                    revision,
                    modified,
                } => serde_json::json!({
                    "kind": "removed-upstream", "name": name, "revision": revision, "modified": modified,
                }),
            };
            vec![value.to_string()]
        }
        Format::Github => {
            let lines = p.lines();
            match p {
                Pulled::Conflicts {
                    name, conflicts, ..
                } => {
                    let mut out = vec![line_for(
                        format,
                        "error",
                        "conflicts",
                        Some(&asv_skills::lifecycle::skill_dir(name)),
                        None,
                        None,
                        lines[0].clone(),
                    )];
                    out.extend(conflicts.iter().map(|c| {
                        let path = format!("{}/{}", asv_skills::lifecycle::skill_dir(name), c.path);
                        line_for(
                            format,
                            "error",
                            "conflict",
                            Some(&path),
                            None,
                            None,
                            c.kind.as_str().to_owned(),
                        )
                    }));
                    out
                }
                _ => lines
                    .into_iter()
                    .map(|l| line_for(format, "notice", "pulled", None, None, None, l))
                    .collect(),
            }
        }
    }
}

/// Renders what `skill resolve` recorded.
pub fn resolved(format: Format, name: &str, revision: &str) -> String {
    match format {
        Format::Json => serde_json::json!({
            "kind": "resolved", "name": name, "revision": revision,
        })
        .to_string(),
        _ => line_for(
            format,
            "notice",
            "resolved",
            Some(&asv_skills::lifecycle::skill_dir(name)),
            None,
            None,
            format!("{name} at {revision}"),
        ),
    }
}

/// Renders what `skill pack` wrote.
pub fn packed(format: Format, p: &asv_skills::package::Packed, output: &str) -> String {
    match format {
        Format::Json => serde_json::json!({
            "kind": "packed",
            "name": p.name,
            "path": output,
            "files": p.files,
            "bytes": p.zip.len(),
            "hash": p.hash,
        })
        .to_string(),
        _ => line_for(
            format,
            "notice",
            "packed",
            Some(output),
            None,
            None,
            format!(
                "{} -> {output} ({} files, {} bytes, {})",
                p.name,
                p.files,
                p.zip.len(),
                p.hash
            ),
        ),
    }
}

/// Renders what `skill install` did, or would do for a dry run (`shown_root` prefixes each
/// destination: `~/` for the home directory).
pub fn installed(
    format: Format,
    i: &asv_skills::install::Installed,
    shown_root: &str,
) -> Vec<String> {
    if i.dry_run {
        return i
            .plan
            .iter()
            .map(|planned| match format {
                Format::Json => {
                    serde_json::json!({ "kind": "plan", "message": planned.to_string() })
                        .to_string()
                }
                _ => {
                    let mut message = format!(
                        "{} {shown_root}{}",
                        planned.action(),
                        asv_fs::quote::DisplayPath(planned.dest())
                    );
                    if let Some(reason) = planned.reason() {
                        message.push_str(&format!(" ({reason})"));
                    }
                    line_for(format, "notice", "plan", None, None, None, message)
                }
            })
            .collect();
    }
    i.skills
        .iter()
        .map(|(name, dest, hash)| {
            let shown = format!("{shown_root}{dest}");
            match format {
                Format::Json => serde_json::json!({
                    "kind": "installed", "name": name, "path": shown, "hash": hash,
                })
                .to_string(),
                _ => line_for(
                    format,
                    "notice",
                    "installed",
                    Some(&shown),
                    None,
                    None,
                    format!("{name} -> {shown} ({hash})"),
                ),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
