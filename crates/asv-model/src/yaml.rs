//! A plain YAML value tree, read through serde-saphyr.
//!
//! The declarations and the manifest are judged by shape ("a list of strings under
//! `metadata.contracts`"), not deserialized into fixed structs, because every YAML spelling of
//! that shape is accepted (flow style, anchors, merge keys) while every other shape needs its
//! own refusal. serde-saphyr parses (duplicate keys refused, merge keys expanded); this module
//! only keeps what it produced.

use std::fmt;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

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
/// A text holding no document at all (empty, blank, only comments) reads as [`Yaml::Null`],
/// as an explicit null document does; [`parse_document`] tells the two apart.
///
/// # Errors
/// A [`YamlError`] describing the first problem.
///
/// # Example
/// ```
/// # fn main() -> Result<(), asv_model::yaml::YamlError> {
/// use asv_model::yaml::{parse, Yaml};
/// assert_eq!(parse("a: yes\n")?.get("a"), Some(&Yaml::String("yes".into())));
/// assert_eq!(parse("# nothing\n")?, Yaml::Null);
/// # Ok(())
/// # }
/// ```
pub fn parse(text: &str) -> Result<Yaml, YamlError> {
    Ok(parse_document(text)?.unwrap_or(Yaml::Null))
}

/// Parses one YAML document, or `None` when the text holds none: it is empty, or holds only
/// whitespace, comments and document end markers (`...`). A text of `---` or `~` holds one
/// document, a null.
///
/// # Errors
/// As [`parse`]: several documents, duplicate keys, syntax errors, a reading limit.
///
/// # Example
/// ```
/// # fn main() -> Result<(), asv_model::yaml::YamlError> {
/// use asv_model::yaml::{parse_document, Yaml};
/// assert_eq!(parse_document("  \n# only a comment\n")?, None);
/// assert_eq!(parse_document("---\n")?, Some(Yaml::Null));
/// # Ok(())
/// # }
/// ```
pub fn parse_document(text: &str) -> Result<Option<Yaml>, YamlError> {
    if holds_no_document(text) {
        return Ok(None);
    }
    let (options, budget) = reader_options();
    let docs: Vec<Yaml> = serde_saphyr::from_multiple_with_options(text, options)
        .map_err(|e| to_yaml_error(&e, &budget))?;
    if docs.len() > 1 {
        return Err(YamlError {
            line: None,
            message: format!("holds {} YAML documents, expected one", docs.len()),
            limit: None,
        });
    }
    // The parser drops an empty document (`---` alone): the lines said there is one, a null.
    Ok(Some(docs.into_iter().next().unwrap_or(Yaml::Null)))
}

/// Whether a YAML stream holds no document: every line is blank (spaces, tabs), a comment,
/// or a document end marker (`...` at the line's start). The parser reads an empty explicit
/// document (`---`) as none too, so the lines are what tell them apart.
fn holds_no_document(text: &str) -> bool {
    let blank = |rest: &str| {
        let rest = rest.trim_start_matches([' ', '\t', '\r']);
        rest.is_empty() || rest.starts_with('#')
    };
    text.split('\n').all(|line| {
        blank(line)
            || line.strip_prefix("...").is_some_and(|rest| {
                rest.is_empty() || rest.starts_with([' ', '\t', '\r']) && blank(rest)
            })
    })
}

/// The reader's options and the budget inside them (kept to name a limit a text went over).
fn reader_options() -> (serde_saphyr::Options, serde_saphyr::Budget) {
    // YAML 1.2 core schema, as the TypeScript tool reads it: `yes`/`on` stay strings.
    let mut budget = serde_saphyr::Budget::default();
    budget.max_depth = MAX_DEPTH;
    budget.max_nodes = MAX_NODES;
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    // `.inf`, `.nan` and a float too large for a double (`1e400`) are numbers, as YAML 1.2
    // has them, not invalid text: a table key spelled so is judged as the id it spells
    // (issue 29 §6), a value as a number.
    options.non_finite_float_policy = serde_saphyr::NonFiniteFloatPolicy::PassThrough;
    options.budget = Some(budget.clone());
    (options, budget)
}

/// The keys of the top-level mapping `block` as text, in document order: a quoted key as its
/// value, a plain one as it is spelled, so `007`, `0x1f`, `1e3`, `true` and `null` keep the
/// spelling a [`Yaml::Number`], [`Yaml::Bool`] or [`Yaml::Null`] key loses. An empty `block`,
/// or none, has no keys.
///
/// Call it on a text [`parse`] accepted: it reads the same text a second time, asking the
/// parser for every key of `block` as a string (issue 29 §6: the table of origins names
/// contracts by keys YAML would type, and the tool of the same name writes them plain).
///
/// # Errors
/// A key that is not a scalar, or an empty (null) key, which has no spelling; the text's own
/// problems as [`parse`] reports them.
///
/// # Example
/// ```
/// # fn main() -> Result<(), asv_model::yaml::YamlError> {
/// use asv_model::yaml::key_texts;
/// let keys = key_texts("contracts:\n  007: {}\n  \"9\": {}\n  true: {}\n", "contracts")?;
/// assert_eq!(keys, ["007", "9", "true"]);
/// # Ok(())
/// # }
/// ```
pub fn key_texts(text: &str, block: &str) -> Result<Vec<String>, YamlError> {
    let (mut options, budget) = reader_options();
    // `null` and `~` keep their text when a string is asked for, as numbers and booleans do.
    options.null_as_string = true;
    serde_saphyr::with_deserializer_from_str_with_options(text, options, |d| {
        TopLevel { block }.deserialize(d)
    })
    .map_err(|e| to_yaml_error(&e, &budget))
}

/// Reads a top-level mapping, keeping the text of the keys of one of its values.
struct TopLevel<'a> {
    block: &'a str,
}

impl<'de> DeserializeSeed<'de> for TopLevel<'_> {
    type Value = Vec<String>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<String>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TopLevel<'_> {
    type Value = Vec<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<String>, A::Error> {
        let mut keys = Vec::new();
        while let Some(key) = map.next_key::<Yaml>()? {
            if matches!(&key, Yaml::String(k) if k == self.block) {
                keys = map.next_value::<KeysAsText>()?.0;
            } else {
                map.next_value::<de::IgnoredAny>()?;
            }
        }
        Ok(keys)
    }
    // Any other top level holds no block.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
        while seq.next_element::<de::IgnoredAny>()?.is_some() {}
        Ok(Vec::new())
    }
    fn visit_unit<E: de::Error>(self) -> Result<Vec<String>, E> {
        Ok(Vec::new())
    }
    fn visit_none<E: de::Error>(self) -> Result<Vec<String>, E> {
        Ok(Vec::new())
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Vec<String>, E> {
        Ok(Vec::new())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Vec<String>, E> {
        Ok(Vec::new())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Vec<String>, E> {
        Ok(Vec::new())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Vec<String>, E> {
        Ok(Vec::new())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Vec<String>, E> {
        Ok(Vec::new())
    }
}

/// A mapping's keys, each asked of the parser as a string (which hands over a plain
/// scalar's spelling); anything but a mapping has none.
struct KeysAsText(Vec<String>);

impl<'de> Deserialize<'de> for KeysAsText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeysVisitor;
        impl<'de> Visitor<'de> for KeysVisitor {
            type Value = KeysAsText;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any YAML value")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KeysAsText, A::Error> {
                let mut keys = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    map.next_value::<de::IgnoredAny>()?;
                    keys.push(key);
                }
                Ok(KeysAsText(keys))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<KeysAsText, A::Error> {
                while seq.next_element::<de::IgnoredAny>()?.is_some() {}
                Ok(KeysAsText(Vec::new()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<KeysAsText, E> {
                Ok(KeysAsText(Vec::new()))
            }
            fn visit_none<E: de::Error>(self) -> Result<KeysAsText, E> {
                Ok(KeysAsText(Vec::new()))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<KeysAsText, E> {
                Ok(KeysAsText(Vec::new()))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<KeysAsText, E> {
                Ok(KeysAsText(Vec::new()))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<KeysAsText, E> {
                Ok(KeysAsText(Vec::new()))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<KeysAsText, E> {
                Ok(KeysAsText(Vec::new()))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<KeysAsText, E> {
                Ok(KeysAsText(Vec::new()))
            }
        }
        d.deserialize_any(KeysVisitor)
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
    fn no_document_is_told_from_a_null_one() {
        let nothing = [
            "",
            "\n",
            "   \n\t\n",
            "# c\n",
            "# c\n\n  # d",
            "\r\n",
            "...\n",
            "... # c\n",
            "#c\n...\n#d",
        ];
        for none in nothing {
            assert_eq!(parse_document(none), Ok(None), "{none:?}");
            assert_eq!(parse(none), Ok(Yaml::Null), "{none:?}");
        }
        for null in [
            "---\n",
            "--- # c\n",
            "~\n",
            "null\n",
            "---\n...\n",
            "# c\n---\n",
        ] {
            assert_eq!(parse_document(null), Ok(Some(Yaml::Null)), "{null:?}");
        }
        // Text that is not a marker at the start of its line is a document.
        assert_eq!(
            parse_document("  ...\n"),
            Ok(Some(Yaml::String("...".into())))
        );
    }

    /// Issue 29 §6: a key YAML types keeps its spelling; a quoted one is its value.
    #[test]
    fn key_texts_keep_the_spelling() {
        let rows: &[(&str, &[&str])] = &[
            (
                "contracts:\n  007: {}\n  0x1f: {}\n  1e3: {}\n",
                &["007", "0x1f", "1e3"],
            ),
            (
                "contracts:\n  true: {}\n  null: {}\n  ~: {}\n  .inf: {}\n",
                &["true", "null", "~", ".inf"],
            ),
            (
                "contracts:\n  \"9\": {}\n  '010': {}\n  a: {}\n",
                &["9", "010", "a"],
            ),
            ("contracts: {1.0: {}, 1: {}}\n", &["1.0", "1"]),
            ("sources:\n  9: {}\ncontracts:\n  8: {}\n", &["8"]),
            (
                "base: &b {0: {}}\ncontracts:\n  <<: *b\n  1: {}\n",
                &["1", "0"],
            ),
            ("contracts:\n", &[]),
            ("contracts: [a]\n", &[]),
            ("sources: {}\n", &[]),
            ("- a\n", &[]),
            ("~\n", &[]),
            ("", &[]),
        ];
        for (text, keys) in rows {
            let found = key_texts(text, "contracts").unwrap();
            assert_eq!(found, *keys, "{text:?}");
        }
        // A key with no spelling (empty) or no scalar at all has no text.
        for bad in ["contracts:\n  ? : {}\n", "contracts:\n  ? [a]\n  : {}\n"] {
            assert!(key_texts(bad, "contracts").is_err(), "{bad:?}");
        }
    }

    /// Issue 29 §6: non-finite floats are numbers, not a refusal of the whole text.
    #[test]
    fn non_finite_floats_are_numbers() {
        for text in ["a: .inf\n", "a: -.inf\n", "a: .nan\n", "a: 1e400\n"] {
            assert!(
                matches!(parse(text).unwrap().get("a"), Some(Yaml::Number(_))),
                "{text:?}"
            );
        }
        assert_eq!(
            key_texts("contracts:\n  1e400: {}\n  .nan: {}\n", "contracts").unwrap(),
            ["1e400", ".nan"]
        );
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
