//! The line every format shares ([`Line`]: level, kind, path, contract id, line number,
//! message), its three forms (the compatibility text, a GitHub annotation, a JSON record), the
//! escaping each needs, and the number words the lines use.

use serde::Serialize;

use crate::cli::Format;

/// How a line is announced in `--format github`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Level {
    Error,
    Warning,
    Notice,
}

impl Level {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Notice => "notice",
        }
    }
}

/// One report line in the fields every format shares.
pub(super) struct Line<'a> {
    pub(super) level: Level,
    pub(super) kind: &'a str,
    pub(super) path: Option<&'a str>,
    pub(super) id: Option<&'a str>,
    pub(super) line: Option<usize>,
    pub(super) message: String,
}

impl<'a> Line<'a> {
    /// A line with no path, id or line number.
    pub(super) fn new(level: Level, kind: &'a str, message: String) -> Self {
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
    pub(super) fn at(mut self, path: &'a str) -> Self {
        self.path = Some(path);
        self
    }

    /// The compatibility form: `<kind>: <message>`.
    pub(super) fn text(&self) -> String {
        format!("{}: {}", self.kind, self.message)
    }

    /// A workflow command: `::<level> file=…,line=…,title=<kind>::<message>`.
    pub(super) fn annotation(&self) -> String {
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
    pub(super) fn record<'r, F: Serialize>(&'r self, kind: &'r str, fields: F) -> Record<'r, F> {
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
    pub(super) fn render(&self, format: Format, fields: impl Serialize) -> String {
        self.render_as(format, self.kind, fields)
    }

    /// As [`Line::render`], the JSON record saying `kind`.
    pub(super) fn render_as(&self, format: Format, kind: &str, fields: impl Serialize) -> String {
        match format {
            Format::Text => self.text(),
            Format::Github => self.annotation(),
            // Only `skill audit` takes sarif, and prints its own document; a refusal it ends
            // with is a JSON record, as a program reading stdout expects one.
            Format::Json | Format::Sarif => json(&self.record(kind, fields)),
        }
    }

    /// The line in `format`, with no fields but the shared ones.
    pub(super) fn render_finding(&self, format: Format) -> String {
        self.render(format, NoFields {})
    }
}

/// One line in `--format json`: a stable shape of its own, so internals can change. Every
/// record has the five shared fields, in this order; a command's own follow, named in
/// camelCase.
#[derive(Serialize)]
pub(super) struct Record<'a, F> {
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
pub(super) struct NoFields {}

/// One JSON line. The records hold only strings, numbers, booleans and lists of them, which
/// always serialise.
pub(super) fn json(record: &impl Serialize) -> String {
    serde_json::to_string(record).unwrap_or_default()
}

/// Escapes the message part of a workflow command.
pub(super) fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value of a workflow command.
pub(super) fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
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
pub(super) fn size(bytes: usize) -> String {
    const UNITS: [(f64, &str); 3] = [(1e9, "GB"), (1e6, "MB"), (1e3, "kB")];
    let n = bytes as f64;
    match UNITS.iter().find(|(unit, _)| n >= *unit) {
        Some((unit, name)) => format!("{:.1} {name} ({} bytes)", n / unit, grouped(bytes)),
        None if bytes == 1 => "1 byte".to_owned(),
        None => format!("{bytes} bytes"),
    }
}

/// `1 file`, `3 files`.
pub(super) fn files(n: usize) -> String {
    if n == 1 {
        "1 file".to_owned()
    } else {
        format!("{} files", grouped(n))
    }
}
