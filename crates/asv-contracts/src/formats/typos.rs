//! Keys of `vendor-manifest.yaml` this tool does not know: most are typos (`pth` for `path`),
//! which the table's reader leaves alone exactly as the TypeScript tool does, so a typo would
//! otherwise pass silently. Each is reported with its line and the nearest known key.

use std::fmt;

use asv_model::yaml::Yaml;

/// The keys the table's top level may hold.
const TOP_KEYS: [&str; 3] = ["contracts", "ignore", "sources"];
/// The keys of a `contracts` row.
const ROW_KEYS: [&str; 4] = ["files", "ignore", "path", "source"];
/// The keys of a `sources` entry.
const SOURCE_KEYS: [&str; 2] = ["ref", "repository"];

/// Where an unknown key stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyPlace {
    /// At the top level of the table.
    Top,
    /// In the row of this contract.
    Contract(String),
    /// In the entry of this source.
    Source(String),
}

/// One key the table holds and this tool does not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKey {
    /// The key as written.
    pub key: String,
    /// Where it stands.
    pub place: KeyPlace,
    /// Its 1-based line, when it is written in block style.
    pub line: Option<usize>,
    /// The known key it most resembles, if one is close.
    pub suggestion: Option<&'static str>,
}

impl fmt::Display for UnknownKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown key {}", asv_fs::quote::json_string(&self.key))?;
        match &self.place {
            KeyPlace::Top => {}
            KeyPlace::Contract(id) => {
                write!(f, " in contract {}", asv_fs::quote::json_string(id))?;
            }
            KeyPlace::Source(name) => {
                write!(f, " in source {}", asv_fs::quote::json_string(name))?;
            }
        }
        match self.suggestion {
            Some(known) => write!(f, "; did you mean \"{known}\"?"),
            None => write!(f, "; this tool does not read it"),
        }
    }
}

/// The known key nearest to `key`: within two edits, and fewer than the key's own length.
fn nearest(key: &str, known: &[&'static str]) -> Option<&'static str> {
    known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(key, k), *k))
        .filter(|(d, _)| *d <= 2 && *d < key.chars().count())
        .min_by_key(|(d, k)| (*d, *k))
        .map(|(_, k)| k)
}

/// Whether `line` writes the mapping key `key` at `indent` spaces (plain, or quoted).
fn writes_key(line: &str, indent: usize, key: &str) -> bool {
    let Some(rest) = line.strip_prefix(&" ".repeat(indent)) else {
        return false;
    };
    if rest.starts_with(' ') {
        return false;
    }
    [
        format!("{key}:"),
        format!("\"{key}\":"),
        format!("'{key}':"),
    ]
    .iter()
    .any(|head| {
        rest.strip_prefix(head.as_str())
            .is_some_and(|after| after.is_empty() || after.starts_with([' ', '\t']))
    })
}

/// The indentation of a line that holds something other than a comment.
fn indent_of(line: &str) -> Option<usize> {
    let trimmed = line.trim_start_matches(' ');
    if trimmed.is_empty() || trimmed.starts_with('#') {
        return None;
    }
    Some(line.len() - trimmed.len())
}

/// Finds the lines of keys in block-style text: a path of keys, each nested one level deeper.
struct Lines<'a> {
    lines: Vec<&'a str>,
}

impl<'a> Lines<'a> {
    /// The 0-based index of `key` directly inside the block that opens at line `parent` with
    /// indentation `parent_indent` (the whole text for `None`), and its own indentation.
    fn find(&self, parent: Option<(usize, usize)>, key: &str) -> Option<(usize, usize)> {
        let (start, min_indent) = match parent {
            None => (0, 0),
            Some((line, indent)) => (line + 1, indent + 1),
        };
        // The block's children share the indentation of its first non-comment line.
        let mut child_indent = None;
        for (i, line) in self.lines.iter().enumerate().skip(start) {
            let Some(indent) = indent_of(line) else {
                continue;
            };
            if parent.is_some() && indent < min_indent {
                return None;
            }
            let want = *child_indent.get_or_insert(indent);
            if indent == want && writes_key(line, want, key) {
                return Some((i, want));
            }
        }
        None
    }
}

/// Every key of the table `root` (parsed from `text`) this tool does not read, in the order
/// they stand: top level, then each source, then each contract row.
pub fn unknown_keys(text: &str, root: &Yaml) -> Vec<UnknownKey> {
    let Yaml::Map(top) = root else {
        return Vec::new();
    };
    let lines = Lines {
        lines: text.lines().collect(),
    };
    let line_of = |at: Option<(usize, usize)>| at.map(|(i, _)| i + 1);
    let mut found = Vec::new();
    for (key, _) in top {
        let Yaml::String(key) = key else { continue };
        if !TOP_KEYS.contains(&key.as_str()) {
            found.push(UnknownKey {
                line: line_of(lines.find(None, key)),
                suggestion: nearest(key, &TOP_KEYS),
                key: key.clone(),
                place: KeyPlace::Top,
            });
        }
    }
    for (block, known, place) in [
        (
            "sources",
            &SOURCE_KEYS[..],
            KeyPlace::Source as fn(String) -> KeyPlace,
        ),
        ("contracts", &ROW_KEYS[..], KeyPlace::Contract),
    ] {
        let Some(Yaml::Map(entries)) = root.get(block) else {
            continue;
        };
        let block_at = lines.find(None, block);
        for (name, entry) in entries {
            let (Yaml::String(name), Yaml::Map(fields)) = (name, entry) else {
                continue;
            };
            let entry_at = block_at.and_then(|at| lines.find(Some(at), name));
            for (key, _) in fields {
                let Yaml::String(key) = key else { continue };
                if known.contains(&key.as_str()) {
                    continue;
                }
                found.push(UnknownKey {
                    line: line_of(entry_at.and_then(|at| lines.find(Some(at), key))),
                    suggestion: nearest(key, known),
                    key: key.clone(),
                    place: place(name.clone()),
                });
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> Vec<String> {
        let root = asv_model::yaml::parse(text).unwrap();
        unknown_keys(text, &root)
            .iter()
            .map(|k| format!("{:?}: {k}", k.line))
            .collect()
    }

    #[test]
    fn typos_are_found_with_their_line_and_nearest_key() {
        let text = "# origins\nsorces:\n  x: 1\ncontracts:\n  writing-style:\n    # kept elsewhere\n    pth: docs/style.md\n    source: local\n  other:\n    source: local\n    note: fine\n";
        assert_eq!(
            keys(text),
            [
                "Some(2): unknown key \"sorces\"; did you mean \"sources\"?",
                "Some(7): unknown key \"pth\" in contract \"writing-style\"; did you mean \"path\"?",
                "Some(11): unknown key \"note\" in contract \"other\"; this tool does not read it",
            ]
        );
    }

    #[test]
    fn source_entries_flow_style_and_known_keys() {
        let text = "sources:\n  team:\n    repository: acme/x\n    reff: main\ncontracts: {a: {source: team, paht: x.md}}\n";
        assert_eq!(
            keys(text),
            [
                "Some(4): unknown key \"reff\" in source \"team\"; did you mean \"ref\"?",
                "None: unknown key \"paht\" in contract \"a\"; did you mean \"path\"?",
            ]
        );
        assert!(
            keys("contracts:\n  a:\n    source: local\n    path: x.md\nignore: []\n").is_empty()
        );
    }

    #[test]
    fn a_key_far_from_every_known_one_gets_no_suggestion() {
        assert_eq!(nearest("description", &ROW_KEYS), None);
        assert_eq!(nearest("src", &ROW_KEYS), None);
        assert_eq!(nearest("sourc", &ROW_KEYS), Some("source"));
        assert_eq!(nearest("Path", &ROW_KEYS), Some("path"));
    }
}
