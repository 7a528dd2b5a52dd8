//! Declarations: the ids a skill names under `metadata.contracts` in its SKILL.md frontmatter.
//!
//! A declaration the tool cannot make sense of stops the run: reading it as "this skill
//! declares nothing" would let a skill ship without the documents it asked for.

use crate::error::{DeclarationProblem as P, Error, Result};
use crate::id::ContractId;
use crate::yaml::{self, Yaml};

/// The frontmatter of a SKILL.md: its YAML text and the line the YAML starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frontmatter<'a> {
    /// The lines between the two `---` lines, LF-separated.
    pub yaml: &'a str,
    /// 1-based line number of the first YAML line.
    pub first_line: usize,
}

pub use crate::frontmatter::{
    is_default_ignorable, is_js_whitespace, looks_like_fence, visible_text,
};

fn refuse(path: &str, line: Option<usize>, problem: P) -> Error {
    Error::Declaration {
        path: path.to_owned(),
        line,
        problem,
    }
}

/// Splits a SKILL.md's text (already LF-normalized) into its frontmatter; `None` when the
/// file has none. The split is [`crate::frontmatter::split`], the one a contract's text gets;
/// only the wording (this tool's, with line numbers and a next step) differs.
///
/// # Errors
/// [`Error::Declaration`] for an opening or closing line that only looks like `---`, a `---`
/// reached only after blank lines, or a frontmatter that never closes.
pub fn split_frontmatter<'a>(path: &str, text: &'a str) -> Result<Option<Frontmatter<'a>>> {
    use crate::frontmatter::FrontmatterProblem as F;
    match crate::frontmatter::split(text) {
        Ok(split) => Ok(split.yaml.map(|yaml| Frontmatter {
            yaml,
            first_line: crate::frontmatter::YAML_FIRST_LINE,
        })),
        Err(F::OpeningLookalike { .. }) => {
            // Quote the whole first line (a lone CR in it is what is wrong), not the piece
            // before the CR.
            let first = text.split('\n').next().unwrap_or("");
            Err(refuse(
                path,
                Some(1),
                P::OpeningLookalike {
                    text: first.to_owned(),
                },
            ))
        }
        Err(F::OpensBelowBlank { .. }) => Err(refuse(path, None, P::OpensBelowBlank)),
        Err(F::ClosingLookalike { line, text }) => {
            Err(refuse(path, Some(line), P::ClosingLookalike { text }))
        }
        Err(F::Unclosed) => Err(refuse(path, Some(1), P::Unclosed)),
    }
}

/// A SKILL.md's frontmatter as the tool reads it: the YAML root and the ids it declares.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillFrontmatter {
    /// The YAML document between the `---` lines (`Yaml::Null` when it is empty).
    pub root: Yaml,
    /// The ids under `metadata.contracts`, in declaration order.
    pub declared: Vec<ContractId>,
    /// The line of a `contracts` key at the top level of the frontmatter, where it declares
    /// nothing (declarations go under `metadata`): most likely a mistake worth a warning. The
    /// frontmatter's first line when the key is not written in block style.
    pub misplaced_contracts: Option<usize>,
}

/// Reads a SKILL.md's frontmatter: the one reader behind `gen`, `verify` and `skill
/// validate`, so a file one of them accepts none of the others refuses. `None` when the file
/// has no frontmatter.
///
/// `bytes` are the file's bytes; `path` names it in refusals.
///
/// # Errors
/// [`Error::NotUtf8`] or [`Error::Declaration`] for every refusal FORMATS.md lists under
/// "Declarations".
pub fn read_frontmatter(path: &str, bytes: &[u8]) -> Result<Option<SkillFrontmatter>> {
    let text = std::str::from_utf8(bytes).map_err(|_| Error::NotUtf8 {
        path: path.to_owned(),
    })?;
    // One leading BOM is dropped by the decoder, as the TypeScript tool's TextDecoder does.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text = text.replace("\r\n", "\n");
    let Some(front) = split_frontmatter(path, &text)? else {
        return Ok(None);
    };
    for (i, line) in front.yaml.split('\n').enumerate() {
        let indent: &str = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
        if indent.contains('\t') {
            return Err(refuse(path, Some(front.first_line + i), P::TabIndent));
        }
    }
    let root = yaml::parse(front.yaml).map_err(|e| {
        refuse(
            path,
            e.line.map(|l| l + front.first_line - 1),
            match e.limit {
                Some(limit) => P::TooLarge { limit },
                None => P::NotYaml { message: e.message },
            },
        )
    })?;
    let declared = ids_of(path, &root)?;
    let misplaced_contracts = root.get("contracts").map(|_| {
        front
            .yaml
            .split('\n')
            .position(|line| {
                ["contracts:", "\"contracts\":", "'contracts':"]
                    .iter()
                    .any(|head| line.starts_with(head))
            })
            .map_or(front.first_line, |i| front.first_line + i)
    });
    Ok(Some(SkillFrontmatter {
        root,
        declared,
        misplaced_contracts,
    }))
}

/// Reads the ids a SKILL.md declares, in declaration order.
///
/// `bytes` are the file's bytes; `path` names it in refusals.
///
/// # Errors
/// As [`read_frontmatter`].
///
/// # Example
/// ```
/// let ids = asv_model::declaration::declared_ids(
///     "skills/a/SKILL.md",
///     b"---\nname: a\nmetadata:\n  contracts: [x, y]\n---\nBody\n",
/// )?;
/// assert_eq!(ids.iter().map(|i| i.as_str()).collect::<Vec<_>>(), ["x", "y"]);
/// # Ok::<(), asv_model::Error>(())
/// ```
pub fn declared_ids(path: &str, bytes: &[u8]) -> Result<Vec<ContractId>> {
    Ok(read_frontmatter(path, bytes)?
        .map(|f| f.declared)
        .unwrap_or_default())
}

/// The 1-based line of a SKILL.md on which `id` is declared: the first line of the
/// frontmatter, from its `metadata:` key on, that holds `id` as a whole word (an id's
/// characters are letters, digits, `.`, `_` and `-`), so a block list (`- id`), a flow list
/// (`[a, id]`) and quoted ids are all found. `None` when the file is not UTF-8, has no
/// frontmatter, or no such line: the caller then points at the file.
///
/// This looks at the text only, after [`read_frontmatter`] has accepted it; it is for saying
/// where, never for deciding what is declared.
///
/// # Example
/// ```
/// let text = b"---\nname: a\nmetadata:\n  contracts:\n    - x\n    - style-guide\n---\n";
/// let id = asv_model::id::ContractId::parse("style-guide")?;
/// assert_eq!(asv_model::declaration::declaration_line(text, &id), Some(6));
/// # Ok::<(), asv_model::id::IdProblem>(())
/// ```
pub fn declaration_line(bytes: &[u8], id: &ContractId) -> Option<usize> {
    let text = std::str::from_utf8(bytes).ok()?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text = text.replace("\r\n", "\n");
    let front = split_frontmatter("", &text).ok()??;
    let is_id_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    front
        .yaml
        .split('\n')
        .enumerate()
        // Only top-level `metadata` (no indent), quoted or not, opens the search.
        .skip_while(|(_, line)| !line.trim_start_matches(['"', '\'']).starts_with("metadata"))
        .find(|(_, line)| {
            line.split(|c| !is_id_char(c))
                .any(|word| word == id.as_str())
        })
        .map(|(i, _)| front.first_line + i)
}

/// The ids under `metadata.contracts` of a frontmatter's YAML root.
fn ids_of(path: &str, root: &Yaml) -> Result<Vec<ContractId>> {
    let metadata = match root {
        Yaml::Null => return Ok(Vec::new()),
        Yaml::Map(_) => root.get("metadata"),
        other => {
            return Err(refuse(
                path,
                None,
                P::NotMapping {
                    found: other.kind(),
                },
            ));
        }
    };
    let contracts = match metadata {
        None => return Ok(Vec::new()),
        Some(m @ Yaml::Map(_)) => m.get("contracts"),
        Some(other) => {
            return Err(refuse(
                path,
                None,
                P::MetadataNotMapping {
                    found: other.kind(),
                },
            ));
        }
    };
    let items = match contracts {
        None => return Ok(Vec::new()),
        Some(Yaml::Null) => {
            return Err(refuse(path, None, P::ContractsNull));
        }
        Some(Yaml::Seq(items)) if items.is_empty() => {
            return Err(refuse(path, None, P::ContractsEmpty));
        }
        Some(Yaml::Seq(items)) => items,
        Some(other) => {
            return Err(refuse(
                path,
                None,
                P::ContractsNotList {
                    found: other.kind(),
                },
            ));
        }
    };
    let mut ids: Vec<ContractId> = Vec::with_capacity(items.len());
    for (n, item) in items.iter().enumerate() {
        if matches!(item, Yaml::Map(_) | Yaml::Seq(_)) {
            return Err(refuse(
                path,
                None,
                P::EntryNested {
                    index: n,
                    found: item.kind(),
                },
            ));
        }
        let Yaml::String(text) = item else {
            return Err(refuse(
                path,
                None,
                P::EntryNotString {
                    index: n,
                    found: item.kind(),
                },
            ));
        };
        let id = ContractId::parse(text).map_err(|problem| {
            refuse(
                path,
                None,
                P::BadId {
                    index: n,
                    text: text.clone(),
                    problem,
                },
            )
        })?;
        if ids.contains(&id) {
            return Err(refuse(path, None, P::Duplicate { id }));
        }
        ids.push(id);
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::id::IdProblem;

    fn ids(text: &str) -> Result<Vec<String>> {
        declared_ids("skills/s/SKILL.md", text.as_bytes())
            .map(|v| v.into_iter().map(|i| i.to_string()).collect())
    }

    #[test]
    fn the_line_declaring_an_id_is_found_in_every_spelling() {
        let id = ContractId::parse("style").unwrap();
        let rows: &[(&str, Option<usize>)] = &[
            (
                "---\nname: style\nmetadata:\n  contracts:\n    - style\n---\n",
                Some(5),
            ),
            ("---\nmetadata:\n  contracts: [a, style]\n---\n", Some(3)),
            (
                "---\nmetadata:\n  contracts:\n    - \"style\"\n---\n",
                Some(4),
            ),
            (
                "\u{feff}---\r\nmetadata:\r\n  contracts: ['style']\r\n---\r\n",
                Some(3),
            ),
            // A longer id holding this one is not it.
            ("---\nmetadata:\n  contracts: [style-guide]\n---\n", None),
            ("---\nname: a\n---\nstyle\n", None),
            ("no frontmatter style\n", None),
        ];
        for (text, line) in rows {
            assert_eq!(declaration_line(text.as_bytes(), &id), *line, "{text:?}");
        }
    }

    #[test]
    fn accepted_spellings() {
        let rows: &[(&str, &[&str])] = &[
            ("Body only\n", &[]),
            ("---\nname: s\n---\n", &[]),
            ("---\n---\n", &[]),
            ("---\nmetadata: {}\n---\n", &[]),
            ("\u{feff}---\nmetadata: {contracts: [a]}\n---\n", &["a"]),
            ("", &[]),
            ("# Title\n---\n", &[]),
            ("---\n# only a comment\n---\n", &[]),
            ("---\nmetadata:\n    contracts:\n    - a\n---\n", &["a"]),
            (
                "---\nmetadata:\n  contracts:\n    - a\n    - b\n---\n",
                &["a", "b"],
            ),
            ("---\r\nmetadata: {contracts: [a]}\r\n---\r\n", &["a"]),
            (
                "---\nx: &c [a, b]\nmetadata:\n  contracts: *c\n---\n",
                &["a", "b"],
            ),
            (
                "---\nbase: &b {contracts: [z]}\nmetadata:\n  <<: *b\n---\n",
                &["z"],
            ),
            (
                "---\nmetadata:\n  contracts: ['a', \"b\"]\n---\n",
                &["a", "b"],
            ),
        ];
        for (text, want) in rows {
            assert_eq!(ids(text).unwrap(), *want, "{text:?}");
        }
    }

    #[test]
    fn refusals() {
        let opening = |t: &str| P::OpeningLookalike { text: t.into() };
        let closing = |t: &str| P::ClosingLookalike { text: t.into() };
        let not_yaml = |m: &str| P::NotYaml { message: m.into() };
        let bad_id = |t: &str, problem| P::BadId {
            index: 0,
            text: t.into(),
            problem,
        };
        let rows: Vec<(&str, Option<usize>, P)> = vec![
            ("---\nmetadata: {contracts: [a]}\n", Some(1), P::Unclosed),
            (" ---\nname: s\n---\n", Some(1), opening(" ---")),
            ("--- \nname: s\n---\n", Some(1), opening("--- ")),
            (
                "\u{feff}\u{feff}---\nname: s\n---\n",
                Some(1),
                opening("\u{feff}---"),
            ),
            ("---\rname: s\n---\n", Some(1), opening("---\rname: s")),
            ("\u{200b}\n---\nname: s\n---\n", None, P::OpensBelowBlank),
            (
                "---\nmetadata:\n---\n",
                None,
                P::MetadataNotMapping { found: "null" },
            ),
            (
                "---\nmetadata:\n  contracts: [[a]]\n---\n",
                None,
                P::EntryNested {
                    index: 0,
                    found: "a list",
                },
            ),
            (
                "\u{200b}---\nname: s\n---\n",
                Some(1),
                opening("\u{200b}---"),
            ),
            (
                "---\nname: s\n---\u{200b}\n",
                Some(3),
                closing("---\u{200b}"),
            ),
            ("---\nname: s\n ---\n", Some(3), closing(" ---")),
            ("\n\n---\nname: s\n---\n", None, P::OpensBelowBlank),
            (
                "---\nmetadata:\n\tcontracts: [a]\n---\n",
                Some(3),
                P::TabIndent,
            ),
            (
                "---\nmetadata: [\n---\n",
                Some(2),
                not_yaml("unclosed bracket '['"),
            ),
            (
                "---\na: 1\n...\nb: 2\n---\n",
                None,
                not_yaml("holds 2 YAML documents, expected one"),
            ),
            ("---\n- a\n---\n", None, P::NotMapping { found: "a list" }),
            (
                "---\nmetadata: [a]\n---\n",
                None,
                P::MetadataNotMapping { found: "a list" },
            ),
            (
                "---\nname: a\nname: b\n---\n",
                Some(3),
                not_yaml("duplicate mapping key: name"),
            ),
            (
                "---\nmetadata:\n  contracts: a\n---\n",
                None,
                P::ContractsNotList { found: "a string" },
            ),
            (
                "---\nmetadata:\n  contracts: []\n---\n",
                None,
                P::ContractsEmpty,
            ),
            (
                "---\nmetadata:\n  contracts:\n---\n",
                None,
                P::ContractsNull,
            ),
            (
                "---\nmetadata:\n  contracts: [1]\n---\n",
                None,
                P::EntryNotString {
                    index: 0,
                    found: "a number",
                },
            ),
            (
                "---\nmetadata:\n  contracts: [null]\n---\n",
                None,
                P::EntryNotString {
                    index: 0,
                    found: "null",
                },
            ),
            (
                "---\nmetadata:\n  contracts: [{a: b}]\n---\n",
                None,
                P::EntryNested {
                    index: 0,
                    found: "a mapping",
                },
            ),
            (
                "---\nmetadata:\n  contracts: [\"a@sha256:00\"]\n---\n",
                None,
                bad_id("a@sha256:00", IdProblem::BadCharacter),
            ),
            (
                "---\nmetadata:\n  contracts: [a, a]\n---\n",
                None,
                P::Duplicate {
                    id: ContractId::parse("a").unwrap(),
                },
            ),
            (
                "---\nmetadata:\n  contracts: [A]\n---\n",
                None,
                bad_id("A", IdProblem::BadCharacter),
            ),
            (
                "---\nmetadata:\n  contracts: [b, a..b]\n---\n",
                None,
                P::BadId {
                    index: 1,
                    text: "a..b".into(),
                    problem: IdProblem::DotDot,
                },
            ),
        ];
        for (text, line, problem) in rows {
            match ids(text) {
                Err(Error::Declaration {
                    path,
                    line: at,
                    problem: found,
                }) => assert_eq!(
                    (path.as_str(), at, found),
                    ("skills/s/SKILL.md", line, problem),
                    "{text:?}"
                ),
                other => panic!("{text:?}: {other:?}"),
            }
        }
        assert!(matches!(
            declared_ids("s", b"\xff"),
            Err(Error::NotUtf8 { path }) if path == "s"
        ));
    }
}
