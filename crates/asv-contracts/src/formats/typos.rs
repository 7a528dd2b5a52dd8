//! Keys of `vendor-manifest.yaml` and `vendor-lock.json` this tool does not know: most are
//! typos (`pth` for `path`), which the readers leave alone exactly as the TypeScript tool's
//! do (the table ignores them, the lock drops them), so a typo would otherwise pass silently.
//! Each is reported with its line and the nearest known key.

use std::fmt;

use asv_model::yaml::Yaml;

/// The keys the table's top level may hold.
const TOP_KEYS: [&str; 3] = ["contracts", "ignore", "sources"];
/// The keys of a `contracts` row.
const ROW_KEYS: [&str; 4] = ["files", "ignore", "path", "source"];
/// The keys of a `sources` entry.
const SOURCE_KEYS: [&str; 2] = ["ref", "repository"];

/// The keys the lock's top level may hold.
const LOCK_KEYS: [&str; 4] = ["dependencies", "placements", "resolutions", "sources"];
/// The keys of a resolution in the lock.
const RESOLUTION_KEYS: [&str; 3] = ["conformance", "digest", "kind"];
/// The keys of a source's pin in the lock.
const PIN_KEYS: [&str; 3] = ["objectFormat", "repository", "revision"];
/// The keys of a placement in the lock.
const PLACEMENT_KEYS: [&str; 3] = ["contract", "digest", "src"];

/// Where an unknown key stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyPlace {
    /// At the top level of the file.
    Top,
    /// In the row of this contract.
    Contract(String),
    /// In the entry of this source (the table's, or its pin in the lock).
    Source(String),
    /// In the lock's resolution of this contract.
    Resolution(String),
    /// In the lock's placement at this skill and dest.
    Placement(String, String),
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
        write!(
            f,
            "unknown key {}",
            asv_error::quote::json_string(&self.key)
        )?;
        match &self.place {
            KeyPlace::Top => {}
            KeyPlace::Contract(id) => {
                write!(f, " in contract {}", asv_error::quote::json_string(id))?;
            }
            KeyPlace::Source(name) => {
                write!(f, " in source {}", asv_error::quote::json_string(name))?;
            }
            KeyPlace::Resolution(id) => {
                write!(
                    f,
                    " in the resolution of {}",
                    asv_error::quote::json_string(id)
                )?;
            }
            KeyPlace::Placement(skill, dest) => write!(
                f,
                " in the placement of {} in skill {}",
                asv_error::quote::json_string(dest),
                asv_error::quote::json_string(skill)
            )?,
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

/// The 1-based line of the key at `path` in a lock written as the tool writes it (two spaces
/// an object level, one key a line); `None` when the text is laid out otherwise.
fn lock_line(lines: &[&str], path: &[&str]) -> Option<usize> {
    let mut at = 0;
    for (depth, key) in path.iter().enumerate() {
        let indent = " ".repeat(2 * (depth + 1));
        let head = format!("{indent}{}:", asv_error::quote::json_string(key));
        let mut found = None;
        // The search opens below the line that opened the object (the first line: `{`).
        for (i, line) in lines.iter().enumerate().skip(at + 1) {
            if line.starts_with(&head) {
                found = Some(i);
                break;
            }
            // A line indented less than this level's keys closes the enclosing object.
            let own = line.len() - line.trim_start_matches(' ').len();
            if !line.trim().is_empty() && own < indent.len() {
                return None;
            }
        }
        at = found?;
    }
    Some(at + 1)
}

/// The lock's top-level object with `dependencies` checked as JSON but not kept: no key of it
/// is looked at here, and it is nearly all of a large lock (at 100,000 skills, a JSON value of
/// it was the largest thing `verify` held).
struct LockTop(serde_json::Map<String, serde_json::Value>);

impl<'de> serde::Deserialize<'de> for LockTop {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Top;
        impl<'de> serde::de::Visitor<'de> for Top {
            type Value = LockTop;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<LockTop, A::Error> {
                let mut top = serde_json::Map::new();
                while let Some(key) = map.next_key::<String>()? {
                    let value = if key == "dependencies" {
                        map.next_value::<serde::de::IgnoredAny>()?;
                        serde_json::Value::Null
                    } else {
                        map.next_value::<serde_json::Value>()?
                    };
                    top.insert(key, value);
                }
                Ok(LockTop(top))
            }
        }
        deserializer.deserialize_map(Top)
    }
}

/// Every key of the lock text `text` this tool does not read, in the order they stand: the
/// top level, then each resolution, each source's pin and each placement. Nothing for a text
/// that is not a JSON object (the lock's reader refuses that on its own).
pub fn unknown_lock_keys(text: &str) -> Vec<UnknownKey> {
    use serde_json::Value;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Ok(LockTop(top)) = serde_json::from_str::<LockTop>(text) else {
        return Vec::new();
    };
    // Split into lines only when some key is unknown: a lock of 100,000 skills has millions.
    let lines: std::cell::OnceCell<Vec<&str>> = std::cell::OnceCell::new();
    let unknown = |key: &str, path: &[&str], known: &[&'static str], place: KeyPlace| UnknownKey {
        line: lock_line(lines.get_or_init(|| text.lines().collect()), path),
        suggestion: nearest(key, known),
        key: key.to_owned(),
        place,
    };
    let mut found: Vec<UnknownKey> = top
        .keys()
        .filter(|k| !LOCK_KEYS.contains(&k.as_str()))
        .map(|k| unknown(k, &[k], &LOCK_KEYS, KeyPlace::Top))
        .collect();
    for (block, known, place) in [
        (
            "resolutions",
            &RESOLUTION_KEYS[..],
            KeyPlace::Resolution as fn(String) -> KeyPlace,
        ),
        ("sources", &PIN_KEYS[..], KeyPlace::Source),
    ] {
        let Some(Value::Object(entries)) = top.get(block) else {
            continue;
        };
        for (name, entry) in entries {
            let Value::Object(fields) = entry else {
                continue;
            };
            for key in fields.keys().filter(|k| !known.contains(&k.as_str())) {
                found.push(unknown(
                    key,
                    &[block, name, key],
                    known,
                    place(name.clone()),
                ));
            }
        }
    }
    if let Some(Value::Object(skills)) = top.get("placements") {
        for (skill, dests) in skills {
            let Value::Object(dests) = dests else {
                continue;
            };
            for (dest, entry) in dests {
                let Value::Object(fields) = entry else {
                    continue;
                };
                for key in fields
                    .keys()
                    .filter(|k| !PLACEMENT_KEYS.contains(&k.as_str()))
                {
                    found.push(unknown(
                        key,
                        &["placements", skill, dest, key],
                        &PLACEMENT_KEYS,
                        KeyPlace::Placement(skill.clone(), dest.clone()),
                    ));
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_lock_keys_are_found_with_their_line_and_nearest_key() {
        let text = "{\n  \"dependencies\": {},\n  \"resolutons\": {},\n  \"resolutions\": {\n    \"a\": {\n      \"digets\": \"x\",\n      \"digest\": \"y\"\n    }\n  },\n  \"sources\": {\n    \"s\": {\n      \"revison\": \"1\"\n    }\n  },\n  \"placements\": {\n    \"k\": {\n      \"d/\": {\n        \"note\": 1\n      }\n    }\n  }\n}\n";
        let found: Vec<String> = unknown_lock_keys(text)
            .iter()
            .map(|k| format!("{:?}: {k}", k.line))
            .collect();
        assert_eq!(
            found,
            [
                "Some(3): unknown key \"resolutons\"; did you mean \"resolutions\"?",
                "Some(6): unknown key \"digets\" in the resolution of \"a\"; did you mean \"digest\"?",
                "Some(12): unknown key \"revison\" in source \"s\"; did you mean \"revision\"?",
                "Some(18): unknown key \"note\" in the placement of \"d/\" in skill \"k\"; this tool does not read it",
            ]
        );
        // A lock the tool wrote has none; a text that is not an object is left to the reader.
        assert!(
            unknown_lock_keys("{\n  \"dependencies\": {},\n  \"resolutions\": {}\n}\n").is_empty()
        );
        assert!(unknown_lock_keys("[]").is_empty());
    }

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
