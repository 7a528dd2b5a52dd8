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
            props.push(format!("title={}", escape_property(kind)));
            format!(
                "::{level} {}::{}",
                props.join(","),
                escape_data(&format!("{kind}: {message}"))
            )
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
        Format::Text => format!(
            "{kind}: {}: {}",
            asv_fs::quote::DisplayPath(&f.path),
            f.message
        ),
        _ => line_for(
            format,
            level,
            kind,
            Some(&f.path),
            None,
            None,
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
            "::error file=skills/a%2Cb/references/vendor/x%3Ay%25.md,title=extra::extra: skills/a,b/references/vendor/x:y%25.md answers to no declaration"
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
