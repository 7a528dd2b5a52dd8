//! A plain YAML value tree, read through serde-saphyr.
//!
//! The declarations and the manifest are judged by shape ("a list of strings under
//! `metadata.contracts`"), not deserialized into fixed structs, because every YAML spelling of
//! that shape is accepted (flow style, anchors, merge keys) while every other shape needs its
//! own refusal. serde-saphyr parses (duplicate keys refused, merge keys expanded); this module
//! only keeps what it produced.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// A YAML node.
#[derive(Debug, Clone, PartialEq)]
pub enum Yaml {
    /// `null`, `~` or an empty value.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer or float, kept as written by the parser's number.
    Number(String),
    /// A string scalar.
    String(String),
    /// A sequence.
    Seq(Vec<Yaml>),
    /// A mapping, in document order.
    Map(Vec<(Yaml, Yaml)>),
}

impl Yaml {
    /// Looks a string key up in a mapping.
    pub fn get(&self, key: &str) -> Option<&Yaml> {
        match self {
            Yaml::Map(entries) => entries
                .iter()
                .find(|(k, _)| matches!(k, Yaml::String(s) if s == key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// A short name for the node's kind, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Yaml::Null => "null",
            Yaml::Bool(_) => "a boolean",
            Yaml::Number(_) => "a number",
            Yaml::String(_) => "a string",
            Yaml::Seq(_) => "a list",
            Yaml::Map(_) => "a mapping",
        }
    }
}

struct YamlVisitor;

impl<'de> Visitor<'de> for YamlVisitor {
    type Value = Yaml;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Yaml, E> {
        Ok(Yaml::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Yaml, E> {
        Ok(Yaml::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Yaml, D::Error> {
        Yaml::deserialize(d)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Yaml, E> {
        Ok(Yaml::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Yaml, E> {
        Ok(Yaml::Number(v.to_string()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Yaml, E> {
        Ok(Yaml::Number(v.to_string()))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Yaml, E> {
        Ok(Yaml::Number(v.to_string()))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Yaml, E> {
        Ok(Yaml::Number(v.to_string()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Yaml, E> {
        Ok(Yaml::Number(v.to_string()))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Yaml, E> {
        Ok(Yaml::String(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Yaml, E> {
        Ok(Yaml::String(v))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Yaml, E> {
        Ok(Yaml::String(String::from_utf8_lossy(v).into_owned()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Yaml, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Yaml>()? {
            items.push(item);
        }
        Ok(Yaml::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Yaml, A::Error> {
        let mut entries = Vec::new();
        while let Some((k, v)) = map.next_entry::<Yaml, Yaml>()? {
            entries.push((k, v));
        }
        Ok(Yaml::Map(entries))
    }
}

impl<'de> Deserialize<'de> for Yaml {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(YamlVisitor)
    }
}

/// The most levels lists and mappings may nest in one document; deeper text is refused so a
/// hostile file cannot exhaust the stack.
pub const MAX_DEPTH: usize = 64;

/// The most nodes (scalars, lists and mappings) one document may hold; more is refused so a
/// hostile file cannot exhaust memory.
pub const MAX_NODES: usize = 250_000;

/// A reading limit a document went over: the text may well be valid YAML, but it is too deep
/// or too large for this tool to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YamlLimit {
    /// Lists and mappings nest more than this many levels ([`MAX_DEPTH`]).
    Depth(usize),
    /// More than this many nodes ([`MAX_NODES`]).
    Nodes(usize),
    /// Another of the reader's limits: more than `limit` of `what` (`aliases`, `anchors`,
    /// `merge keys`, ...).
    Other {
        /// What is counted, plural.
        what: &'static str,
        /// The most allowed.
        limit: usize,
    },
}

impl YamlLimit {
    /// What to do about it, for the end of a refusal.
    pub fn advice(&self) -> &'static str {
        match self {
            YamlLimit::Depth(_) => "nest it less deeply",
            YamlLimit::Nodes(_) | YamlLimit::Other { .. } => "make it smaller",
        }
    }
}

impl fmt::Display for YamlLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            YamlLimit::Depth(limit) => write!(
                f,
                "too deep to read: lists and mappings nest more than {limit} levels, the limit"
            ),
            YamlLimit::Nodes(limit) => write!(
                f,
                "too large to read: more than {limit} YAML nodes (scalars, lists and mappings), the limit"
            ),
            YamlLimit::Other { what, limit } => {
                write!(f, "too large to read: more than {limit} {what}, the limit")
            }
        }
    }
}

/// A YAML parse failure: a one-line description and, where known, the 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// The 1-based line within the parsed text, when the parser knows it.
    pub line: Option<usize>,
    /// What the parser said, on one line.
    pub message: String,
    /// The reading limit the document went over, when that is what stopped it rather than
    /// its syntax; `message` then words the limit too.
    pub limit: Option<YamlLimit>,
}

/// Parses one YAML document. Several documents, duplicate keys and syntax errors are errors.
///
/// # Errors
/// A [`YamlError`] describing the first problem.
pub fn parse(text: &str) -> Result<Yaml, YamlError> {
    // YAML 1.2 core schema, as the TypeScript tool reads it: `yes`/`on` stay strings.
    let mut budget = serde_saphyr::Budget::default();
    budget.max_depth = MAX_DEPTH;
    budget.max_nodes = MAX_NODES;
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    options.budget = Some(budget.clone());
    let docs: Vec<Yaml> = serde_saphyr::from_multiple_with_options(text, options)
        .map_err(|e| to_yaml_error(&e, &budget))?;
    match docs.len() {
        0 => Ok(Yaml::Null),
        1 => Ok(docs.into_iter().next().unwrap_or(Yaml::Null)),
        n => Err(YamlError {
            line: None,
            message: format!("holds {n} YAML documents, expected one"),
            limit: None,
        }),
    }
}

fn to_yaml_error(e: &serde_saphyr::Error, budget: &serde_saphyr::Budget) -> YamlError {
    let line = e.location().map(|l| l.line() as usize);
    match limit_of(e, budget) {
        Some(limit) => YamlError {
            line,
            message: limit.to_string(),
            limit: Some(limit),
        },
        None => YamlError {
            line,
            message: clean_message(&e.to_string()),
            limit: None,
        },
    }
}

/// The limit a budget breach went over, with the value it was set to (issue 15: the parser's
/// own text is a debug dump such as `Nodes { nodes: 250001 }`).
fn limit_of(e: &serde_saphyr::Error, budget: &serde_saphyr::Budget) -> Option<YamlLimit> {
    use serde_saphyr::budget::BudgetBreach as B;
    let serde_saphyr::Error::Budget { breach, .. } = e.without_snippet() else {
        return None;
    };
    let other = |what, limit| Some(YamlLimit::Other { what, limit });
    match breach {
        B::Depth { .. } => Some(YamlLimit::Depth(budget.max_depth)),
        B::Nodes { .. } => Some(YamlLimit::Nodes(budget.max_nodes)),
        B::Events { .. } => other("parser events", budget.max_events),
        B::Aliases { .. } => other("aliases", budget.max_aliases),
        B::Anchors { .. } => other("anchors", budget.max_anchors),
        B::Documents { .. } => other("documents", budget.max_documents),
        B::ScalarBytes { .. } => other("bytes of scalar text", budget.max_total_scalar_bytes),
        B::MergeKeys { .. } => other("merge keys", budget.max_merge_keys),
        B::AliasAnchorRatio { .. } => {
            other("aliases per anchor", budget.alias_anchor_ratio_multiplier)
        }
        B::RecordedAnchorEvents { .. } => {
            other("events kept for anchors", budget.max_recorded_anchor_events)
        }
        B::RecordedAnchorBytes { .. } => {
            other("bytes kept for anchors", budget.max_recorded_anchor_bytes)
        }
        // The rest are not limits a string input can reach in this reader (includes,
        // properties, reader input), or a malformed structure: the parser's words serve.
        _ => None,
    }
}

/// The parser's description reduced to what is wrong: its own `error:` label, the position
/// (reported separately, as a line of the file) and advice about the library's options go.
fn clean_message(full: &str) -> String {
    let mut text = full.lines().next().unwrap_or("invalid YAML").trim();
    text = text.strip_prefix("error:").unwrap_or(text).trim_start();
    if let Some((_, after)) = text
        .strip_prefix("line ")
        .and_then(|rest| rest.split_once(": "))
    {
        text = after;
    }
    text.split(", set ").next().unwrap_or(text).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let y = parse("a: [x, 'y']\nb: {c: ~}\n").unwrap();
        assert_eq!(
            y.get("a"),
            Some(&Yaml::Seq(vec![
                Yaml::String("x".into()),
                Yaml::String("y".into())
            ]))
        );
        assert_eq!(y.get("b").and_then(|b| b.get("c")), Some(&Yaml::Null));
    }

    #[test]
    fn merge_keys_expand() {
        let y = parse("base: &b {contracts: [a]}\nmetadata:\n  <<: *b\n").unwrap();
        assert_eq!(
            y.get("metadata").and_then(|m| m.get("contracts")),
            Some(&Yaml::Seq(vec![Yaml::String("a".into())]))
        );
    }

    #[test]
    fn messages_are_cleaned() {
        let e = parse("a: 1\na: 2\n").unwrap_err();
        assert_eq!(e.message, "duplicate mapping key: a");
        assert_eq!(e.line, Some(2));
    }

    #[test]
    fn limits_name_themselves() {
        let deep = format!("{}{}\n", "[".repeat(100), "]".repeat(100));
        let e = parse(&deep).unwrap_err();
        assert_eq!(e.limit, Some(YamlLimit::Depth(MAX_DEPTH)), "{e:?}");
        assert_eq!(
            e.message,
            "too deep to read: lists and mappings nest more than 64 levels, the limit"
        );
        let large = format!("[{}]\n", vec!["a"; MAX_NODES].join(","));
        let e = parse(&large).unwrap_err();
        assert_eq!(e.limit, Some(YamlLimit::Nodes(MAX_NODES)), "{e:?}");
        assert!(!e.message.contains('{'), "{e:?}");
        // Right at the limits, the text reads.
        let at = format!("{}{}\n", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&at).is_ok());
        let at = format!("[{}]\n", vec!["a"; MAX_NODES - 1].join(","));
        assert!(parse(&at).is_ok());
    }

    #[test]
    fn refusals() {
        assert_eq!(
            parse("a: yes\n").unwrap().get("a"),
            Some(&Yaml::String("yes".into()))
        );
        for bad in ["a: 1\na: 2\n", "a: [\n", "a: 1\n---\nb: 2\n", "a: b: c\n"] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }
}
