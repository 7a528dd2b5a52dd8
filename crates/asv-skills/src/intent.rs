//! `vendor-skills.yaml`: the skills a repository wants from elsewhere and the agents whose
//! project directories mirror `skills/` — what the user asks for, apart from the lock, which
//! records what was resolved.
//!
//! The file is the user's: the tool reads it with the YAML reader the manifest uses and edits
//! it line by line (a row added at the end of `skills:`, a row's lines taken out), so comments,
//! order and line endings stay as written. A repository without it has the lock's entries as
//! its intent and no targets.

use std::collections::HashMap;
use std::collections::{BTreeMap, BTreeSet};

use asv_fs::Root;
use asv_model::yaml::{self, Yaml};

use crate::error::{Error, IntentProblem};
use crate::lock::SkillLock;

/// The intent file's path, relative to the repository root.
pub const INTENT_FILE: &str = asv_model::layout::SKILL_INTENT;

/// The keys of the file's top level.
const TOP_KEYS: [&str; 2] = ["skills", "targets"];
/// The keys of a skill's row.
const ROW_KEYS: [&str; 4] = ["path", "ref", "signed-by", "source"];

/// One skill the repository wants from elsewhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    /// `owner/repo`, a git URL, or a local directory (from the root).
    pub source: String,
    /// The skill's directory in the source (`.` for its root).
    pub path: String,
    /// The branch, tag or commit to follow, when one is named.
    pub reference: Option<String>,
    /// `signed-by`: the allowed-signers file (from the repository root) whose keys must sign
    /// every commit pinned for this row, or its tag (issue 33 §1).
    pub signed_by: Option<String>,
}

/// What the repository asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Intent {
    /// Agent names whose project directories mirror `skills/`, as written.
    pub targets: Vec<String>,
    /// Skills by local name.
    pub skills: BTreeMap<String, Wanted>,
    /// Keys this tool does not read, each a warning, in the order they are written (the top
    /// level's, then each row's).
    pub unknown_keys: Vec<UnknownIntentKey>,
    /// Whether the file exists (else this is the lock's entries, with no targets).
    pub written: bool,
}

fn refuse(line: Option<usize>, problem: IntentProblem) -> Error {
    Error::Intent { line, problem }
}

/// The 1-based line of the first line of `text` that opens with `head` at indentation
/// `indent` (plain or quoted key), at or after line index `from`.
fn key_line(text: &str, indent: usize, key: &str, from: usize) -> Option<usize> {
    let pad = " ".repeat(indent);
    // The three spellings of the key's head, made once (not once a line).
    let heads = [
        format!("{key}:"),
        format!("\"{key}\":"),
        format!("'{key}':"),
    ];
    text.lines()
        .enumerate()
        .skip(from)
        .find(|(_, line)| {
            line.strip_prefix(&pad).is_some_and(|rest| {
                !rest.starts_with(' ') && heads.iter().any(|h| rest.starts_with(h.as_str()))
            })
        })
        .map(|(i, _)| i + 1)
}

/// The 1-based line of every key at indentation `indent` at or after line index `from`, by
/// the key as written (plain, or inside its quotes), the first line of each: one pass over the
/// text for all the rows of `skills:`, where a search per row would read the file once a row.
fn key_lines(text: &str, indent: usize, from: usize) -> HashMap<&str, usize> {
    let pad = " ".repeat(indent);
    let mut lines = HashMap::new();
    for (i, line) in text.lines().enumerate().skip(from) {
        let Some(rest) = line.strip_prefix(&pad) else {
            continue;
        };
        let key = match rest.chars().next() {
            None | Some(' ') => continue,
            Some(q @ ('"' | '\'')) => rest[1..]
                .find(q)
                .filter(|&end| rest[1 + end + 1..].starts_with(':'))
                .map(|end| &rest[1..1 + end]),
            Some(_) => rest.find(':').map(|end| &rest[..end]),
        };
        if let Some(key) = key {
            lines.entry(key).or_insert(i + 1);
        }
    }
    lines
}

/// The 1-based line of the field `key` of the row whose key stands on line `row` (1-based):
/// a line of the row's block (indented four or more), `None` when the row is written in flow
/// style or holds no such line.
fn field_line(text: &str, row: usize, key: &str) -> Option<usize> {
    let block = text
        .lines()
        .enumerate()
        .skip(row)
        .take_while(|(_, l)| {
            l.trim().is_empty() || l.trim_start().starts_with('#') || l.starts_with("    ")
        })
        .count();
    key_line(text, 4, key, row).filter(|l| *l <= row + block)
}

/// The known key nearest to `key`, within two edits.
fn nearest(key: &str, known: &[&'static str]) -> Option<&'static str> {
    known
        .iter()
        .map(|k| (strsim::damerau_levenshtein(key, k), *k))
        .filter(|(d, _)| *d <= 2 && *d < key.chars().count())
        .min()
        .map(|(_, k)| k)
}

/// A key of `vendor-skills.yaml` this tool does not read (a typo, mostly): returned as data,
/// said by the binary as a warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownIntentKey {
    /// The key as written.
    pub key: String,
    /// The skill whose row holds it; `None` at the top level.
    pub skill: Option<String>,
    /// Its 1-based line in [`INTENT_FILE`], when it is written in block style.
    pub line: Option<usize>,
    /// The known key it most resembles, if one is close.
    pub nearest: Option<&'static str>,
}

fn unknown(
    key: &str,
    skill: Option<&str>,
    line: Option<usize>,
    known: &[&'static str],
) -> UnknownIntentKey {
    UnknownIntentKey {
        key: key.to_owned(),
        skill: skill.map(str::to_owned),
        line,
        nearest: nearest(key, known),
    }
}

impl Intent {
    /// The intent of the repository at `root`: `vendor-skills.yaml` when it exists, else the
    /// skill lock's entries with no targets.
    ///
    /// # Errors
    /// [`Error::Intent`] for a file that is not UTF-8 YAML of the intent's shape, names a
    /// target no agent answers to or a skill name that is not one; [`Error::Lock`] as
    /// [`SkillLock::load`]; a guarded-read refusal.
    pub fn load(root: &Root) -> Result<Intent, Error> {
        match root.read_file_capped(
            INTENT_FILE,
            asv_model::layout::SETTINGS_LIMIT,
            asv_model::layout::SETTINGS_LIMIT_WHAT,
        )? {
            Some(bytes) => Intent::parse(&bytes),
            None => Ok(Intent::of_lock(&SkillLock::load(root)?)),
        }
    }

    /// The lock's entries as an intent: what a repository without the file asks for.
    pub fn of_lock(lock: &SkillLock) -> Intent {
        Intent {
            targets: Vec::new(),
            skills: lock
                .skills
                .iter()
                .map(|(name, e)| {
                    (
                        name.clone(),
                        Wanted {
                            source: e.source.clone(),
                            path: e.path.clone(),
                            reference: e.reference.clone(),
                            signed_by: None,
                        },
                    )
                })
                .collect(),
            unknown_keys: Vec::new(),
            written: false,
        }
    }

    /// Reads the file's bytes.
    ///
    /// # Errors
    /// As [`Intent::load`].
    pub fn parse(bytes: &[u8]) -> Result<Intent, Error> {
        let text = std::str::from_utf8(bytes).map_err(|_| refuse(None, IntentProblem::NotUtf8))?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let root = yaml::parse(text).map_err(|e| {
            refuse(
                e.line,
                match e.limit {
                    Some(limit) => IntentProblem::TooLarge(limit),
                    None => IntentProblem::NotYaml(e.message),
                },
            )
        })?;
        let mut intent = Intent {
            written: true,
            ..Intent::default()
        };
        let top = match &root {
            Yaml::Null => return Ok(intent),
            Yaml::Map(entries) => entries,
            _ => {
                return Err(refuse(
                    None,
                    IntentProblem::Shape("the top level is not a mapping of targets: and skills:"),
                ));
            }
        };
        for (key, _) in top {
            if let Yaml::String(key) = key
                && !TOP_KEYS.contains(&key.as_str())
            {
                intent
                    .unknown_keys
                    .push(unknown(key, None, key_line(text, 0, key, 0), &TOP_KEYS));
            }
        }
        match root.get("targets") {
            None | Some(Yaml::Null) => {}
            Some(Yaml::Seq(items)) => {
                let line = key_line(text, 0, "targets", 0);
                for item in items {
                    let Yaml::String(name) = item else {
                        return Err(refuse(
                            line,
                            IntentProblem::Shape("targets: is not a list of agent names"),
                        ));
                    };
                    if crate::install::Target::from_name(name).is_none() {
                        let names: Vec<&'static str> =
                            crate::install::Target::all().map(|t| t.name()).collect();
                        let mut near: Vec<(usize, &'static str)> = names
                            .iter()
                            .map(|n| (strsim::damerau_levenshtein(name, n), *n))
                            .filter(|(d, _)| *d <= 2)
                            .collect();
                        near.sort();
                        return Err(refuse(
                            line,
                            IntentProblem::UnknownTarget {
                                name: name.clone(),
                                nearest: near.into_iter().map(|(_, n)| n).take(3).collect(),
                                known: names,
                            },
                        ));
                    }
                    if !intent.targets.contains(name) {
                        intent.targets.push(name.clone());
                    }
                }
            }
            Some(_) => {
                return Err(refuse(
                    key_line(text, 0, "targets", 0),
                    IntentProblem::Shape("targets: is not a list of agent names"),
                ));
            }
        }
        let skills_line = key_line(text, 0, "skills", 0);
        let rows = match root.get("skills") {
            None | Some(Yaml::Null) => return Ok(intent),
            Some(Yaml::Map(rows)) => rows,
            Some(_) => {
                return Err(refuse(
                    skills_line,
                    IntentProblem::Shape("skills: is not a mapping of skill names to rows"),
                ));
            }
        };
        let row_lines = key_lines(text, 2, skills_line.unwrap_or(0));
        for (name, row) in rows {
            let Yaml::String(name) = name else {
                return Err(refuse(
                    skills_line,
                    IntentProblem::Shape("skills: holds a key that is not a skill name"),
                ));
            };
            let line = row_lines.get(name.as_str()).copied();
            if let Some(problem) = crate::name_problem(name) {
                return Err(refuse(
                    line,
                    IntentProblem::BadName {
                        name: name.clone(),
                        problem,
                    },
                ));
            }
            let Yaml::Map(fields) = row else {
                return Err(refuse(
                    line,
                    IntentProblem::Field {
                        name: name.clone(),
                        field: "source",
                    },
                ));
            };
            for (key, _) in fields {
                if let Yaml::String(key) = key
                    && !ROW_KEYS.contains(&key.as_str())
                {
                    let at = key_line(text, 4, key, line.unwrap_or(0));
                    intent
                        .unknown_keys
                        .push(unknown(key, Some(name.as_str()), at, &ROW_KEYS));
                }
            }
            let field = |field: &'static str, required: bool| match row.get(field) {
                Some(Yaml::String(s)) => Ok(Some(s.clone())),
                None | Some(Yaml::Null) if !required => Ok(None),
                _ => Err(refuse(
                    line,
                    IntentProblem::Field {
                        name: name.clone(),
                        field,
                    },
                )),
            };
            let source = field("source", true)?.unwrap_or_default();
            let path = field("path", true)?.unwrap_or_default();
            // The file travels through pull requests: a path that leaves the source (or names
            // a .git) is refused here, before sync or verify builds anything from it.
            if let Err(Error::PathEscapes { problem, .. }) =
                crate::upstream::check_source_path(&path)
            {
                return Err(refuse(
                    line.and_then(|l| field_line(text, l, "path")).or(line),
                    IntentProblem::BadPath {
                        name: name.clone(),
                        path,
                        problem,
                    },
                ));
            }
            let reference = field("ref", false)?;
            let signed_by = field("signed-by", false)?;
            // The allowed-signers file is read from this repository: a path that leaves it
            // (or names a .git) is refused as a row's path is.
            if let Some(file) = &signed_by
                && let Err(problem) = asv_skilltree::validate_stored_path(file)
            {
                return Err(refuse(
                    line.and_then(|l| field_line(text, l, "signed-by")).or(line),
                    IntentProblem::BadSignedBy {
                        name: name.clone(),
                        file: file.clone(),
                        problem,
                    },
                ));
            }
            intent.skills.insert(
                name.clone(),
                Wanted {
                    source,
                    path,
                    reference,
                    signed_by,
                },
            );
        }
        Ok(intent)
    }
}

/// The change that records `name` → `wanted` in the intent file, in the same transaction as
/// the import it goes with: as [`rows_change`] for one row.
///
/// # Errors
/// As [`rows_change`].
pub fn row_change(
    root: &Root,
    lock: &SkillLock,
    name: &str,
    wanted: &Wanted,
) -> Result<asv_fs::Change, Error> {
    rows_change(root, lock, &[(name.to_owned(), wanted.clone())])
}

/// The change that records each of `rows` (name → what is wanted) in the intent file: each
/// row added to the file (or replacing the row of that name), or, when there is no file yet,
/// a file made with a row for every other skill of `lock` and then these. The file must still
/// read as it did when this was decided.
///
/// # Errors
/// As [`with_row`]; a guarded-read refusal; a file that is not UTF-8.
pub fn rows_change(
    root: &Root,
    lock: &SkillLock,
    rows: &[(String, Wanted)],
) -> Result<asv_fs::Change, Error> {
    let before = root.read_file_capped(
        INTENT_FILE,
        asv_model::layout::SETTINGS_LIMIT,
        asv_model::layout::SETTINGS_LIMIT_WHAT,
    )?;
    // Without a file, the lock's other rows are written first (the file starts as the lock
    // says it would read).
    let (unedited, mut all): (Option<String>, Vec<(String, Wanted)>) = match &before {
        Some(bytes) => (
            Some(
                std::str::from_utf8(bytes)
                    .map_err(|_| refuse(None, IntentProblem::NotUtf8))?
                    .to_owned(),
            ),
            Vec::new(),
        ),
        None => (
            None,
            Intent::of_lock(lock)
                .skills
                .into_iter()
                .filter(|(other, _)| !rows.iter().any(|(name, _)| name == other))
                .collect(),
        ),
    };
    all.extend(rows.iter().cloned());
    // Every row edited in, then the result read back once against every row (a check per row
    // would read the whole file once a row: quadratic in an `--all` of many skills).
    // A row already in the file is replaced where it stands; the new ones go in together.
    let present: BTreeSet<&str> = match &unedited {
        Some(text) => key_lines(text, 2, 0).into_keys().collect(),
        None => BTreeSet::new(),
    };
    let mut text = unedited.clone();
    let mut new = Vec::new();
    for (name, wanted) in &all {
        if present.contains(name.as_str()) {
            text = Some(edit_with_row(text.as_deref(), name, wanted)?);
        } else {
            new.push((name.as_str(), wanted));
        }
    }
    if !new.is_empty() {
        text = Some(insert_rows(text.as_deref(), &new)?);
    }
    if let Some(edited) = text.take() {
        text = Some(checked_rows(unedited.as_deref(), edited, &all)?);
    }
    Ok(asv_fs::Change::replace_file(
        INTENT_FILE,
        text.unwrap_or_default().into_bytes(),
        unchanged_since(before),
    ))
}

/// The change that sets the `ref` of `name`'s row to `reference` (`skill pull NAME --ref R`,
/// issue 29 §2), or `None` when the row asks for it already. The row's `ref:` line is
/// rewritten in place (a comment after its value kept), or a `ref:` line added after the
/// row's last line; every other byte stays. Without a file, or without a row for `name`, the
/// row is written as [`rows_change`] writes one, from the lock entry. The file must still read
/// as it did when this was decided.
///
/// # Errors
/// [`Error::NotImported`] for a name `lock` does not hold; as [`rows_change`].
pub fn ref_change(
    root: &Root,
    lock: &SkillLock,
    name: &str,
    reference: &str,
) -> Result<Option<asv_fs::Change>, Error> {
    let entry = lock.entry(name)?;
    let before = root.read_file_capped(
        INTENT_FILE,
        asv_model::layout::SETTINGS_LIMIT,
        asv_model::layout::SETTINGS_LIMIT_WHAT,
    )?;
    let text = match &before {
        Some(bytes) => Some(
            std::str::from_utf8(bytes)
                .map_err(|_| refuse(None, IntentProblem::NotUtf8))?
                .to_owned(),
        ),
        None => None,
    };
    let row = match &text {
        Some(text) => Intent::parse(text.as_bytes())?.skills.get(name).cloned(),
        None => None,
    };
    let (Some(text), Some(row)) = (text, row) else {
        let wanted = Wanted {
            source: entry.source.clone(),
            path: entry.path.clone(),
            reference: Some(reference.to_owned()),
            signed_by: None,
        };
        return row_change(root, lock, name, &wanted).map(Some);
    };
    if row.reference.as_deref() == Some(reference) {
        return Ok(None);
    }
    let wanted = Wanted {
        reference: Some(reference.to_owned()),
        ..row
    };
    // A layout the line edit does not follow (a row in flow style) is written anew, as a
    // row replaced by `skill add` is.
    let edited = match edit_ref(&text, name, reference)
        .and_then(|edited| checked(Some(&text), edited, name, Some(&wanted)))
    {
        Ok(edited) => edited,
        Err(_) => with_row(Some(&text), name, &wanted)?,
    };
    Ok(Some(asv_fs::Change::replace_file(
        INTENT_FILE,
        edited.into_bytes(),
        unchanged_since(before),
    )))
}

/// The line edit of [`ref_change`], unchecked: the row's `ref:` line given `reference`, or
/// one added after the row's last line.
fn edit_ref(text: &str, name: &str, reference: &str) -> Result<String, Error> {
    let misread = || {
        refuse(
            None,
            IntentProblem::EditMisread {
                name: name.to_owned(),
            },
        )
    };
    let start = key_line(text, 0, "skills", 0).ok_or_else(misread)?;
    let row = key_line(text, 2, name, start).ok_or_else(misread)?;
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_owned).collect();
    match field_line(text, row, "ref") {
        Some(at) => {
            let line = &lines[at - 1];
            let ending = &line[line.trim_end_matches(['\r', '\n']).len()..];
            // A comment after the value stays (` #` opens one in YAML).
            let comment = line
                .trim_end_matches(['\r', '\n'])
                .find(" #")
                .map(|i| line[i..line.len() - ending.len()].to_owned())
                .unwrap_or_default();
            let ending = if ending.is_empty() { eol } else { ending };
            lines[at - 1] = format!("    ref: {}{comment}{ending}", scalar(reference));
        }
        None => {
            // After the row's last line of its own (blank lines after it stay below).
            let mut last = row;
            while last < lines.len() && lines[last].starts_with("    ") {
                last += 1;
            }
            if !lines[last - 1].ends_with('\n') {
                lines[last - 1].push_str(eol);
            }
            lines.insert(last, format!("    ref: {}{eol}", scalar(reference)));
        }
    }
    Ok(lines.concat())
}

/// The change that takes the rows of `names` out of the intent file, or `None` when there is
/// no file or it holds none of them. The file must still read as it did when this was decided.
///
/// # Errors
/// As [`without_row`]; a guarded-read refusal; a file that is not UTF-8.
pub fn rows_removed(root: &Root, names: &[String]) -> Result<Option<asv_fs::Change>, Error> {
    let Some(bytes) = root.read_file_capped(
        INTENT_FILE,
        asv_model::layout::SETTINGS_LIMIT,
        asv_model::layout::SETTINGS_LIMIT_WHAT,
    )?
    else {
        return Ok(None);
    };
    let before = std::str::from_utf8(&bytes).map_err(|_| refuse(None, IntentProblem::NotUtf8))?;
    let mut text = before.to_owned();
    for name in names {
        text = without_row(&text, name)?;
    }
    if text == before {
        return Ok(None);
    }
    Ok(Some(asv_fs::Change::replace_file(
        INTENT_FILE,
        text.into_bytes(),
        unchanged_since(Some(bytes)),
    )))
}

/// Ownership of the intent file: ours to rewrite only while it still holds `before`.
fn unchanged_since(before: Option<Vec<u8>>) -> asv_fs::Ownership {
    asv_fs::Ownership::tool_made(move |root, dest, kind| {
        if kind != asv_fs::EntryKind::File {
            return Ok(asv_fs::Verdict::NotOurs(asv_fs::Disowned::Kind(kind)));
        }
        Ok(if root.read_file(dest)? == before {
            asv_fs::Verdict::Ours
        } else {
            asv_fs::Verdict::NotOurs(asv_fs::Disowned::Changed(asv_fs::During::Command))
        })
    })
}

/// Whether `s` is made only of characters that cannot start or end a YAML construct inside a
/// plain scalar (letters, digits and `/._-@+~`, not leading with `-`, `~` or `@`): such a
/// string is written plain when it also reads back as itself (`true` or `1e3` would not).
fn plain_candidate(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-@+~".contains(c))
        && !s.starts_with(['-', '~', '@'])
}

/// The YAML scalars `values` are written as: plain when each reads back as the same string,
/// else double-quoted (JSON's quoting, which YAML reads). The candidates are read back in one
/// document, one key each: made only of [`plain_candidate`]'s characters, one value cannot
/// change how another reads, so the answer is the one a document per value would give.
fn scalars<'a>(values: impl IntoIterator<Item = &'a str>) -> HashMap<&'a str, String> {
    let mut out: HashMap<&str, String> = HashMap::new();
    let mut candidates: Vec<&str> = Vec::new();
    for s in values {
        if plain_candidate(s) {
            candidates.push(s);
        } else {
            out.entry(s)
                .or_insert_with(|| asv_error::quote::json_string(s));
        }
    }
    candidates.sort_unstable();
    candidates.dedup();
    let mut doc = String::new();
    for (k, s) in candidates.iter().enumerate() {
        doc.push_str(&format!("k{k}: {s}\n"));
    }
    let read = yaml::parse(&doc).ok();
    for (k, s) in candidates.iter().enumerate() {
        let plain = matches!(
            read.as_ref().and_then(|y| y.get(&format!("k{k}"))),
            Some(Yaml::String(v)) if v == s
        );
        out.insert(
            s,
            if plain {
                (*s).to_owned()
            } else {
                asv_error::quote::json_string(s)
            },
        );
    }
    out
}

/// `s` as a YAML scalar, as [`scalars`] writes it.
fn scalar(s: &str) -> String {
    scalars([s])
        .remove(s)
        .unwrap_or_else(|| asv_error::quote::json_string(s))
}

/// The lines of one skill's row, each ending in `eol`, its values written as `written` says
/// ([`scalars`] of every value of the row).
fn row_lines(name: &str, wanted: &Wanted, eol: &str, written: &HashMap<&str, String>) -> String {
    let w = |s: &str| written.get(s).cloned().unwrap_or_else(|| scalar(s));
    let mut out = format!("  {}:{eol}", w(name));
    out.push_str(&format!("    source: {}{eol}", w(&wanted.source)));
    out.push_str(&format!("    path: {}{eol}", w(&wanted.path)));
    if let Some(r) = &wanted.reference {
        out.push_str(&format!("    ref: {}{eol}", w(r)));
    }
    if let Some(file) = &wanted.signed_by {
        out.push_str(&format!("    signed-by: {}{eol}", w(file)));
    }
    out
}

/// The file's text with `name`'s row set to `wanted`: an existing row taken out first, the new
/// one added at the end of the `skills:` block (made when missing). `text` is `None` for a file
/// not there yet. Everything else stays byte for byte.
///
/// # Errors
/// [`Error::Intent`] with [`IntentProblem::FlowSkills`] for a `skills:` written on one line;
/// with [`IntentProblem::EditMisread`] when the edited file would not read
/// back with that row as `wanted` and everything else as it was (a layout the line edit does
/// not follow, such as a top level indented past the left edge); as [`Intent::parse`] for a
/// `text` that does not read.
pub fn with_row(text: Option<&str>, name: &str, wanted: &Wanted) -> Result<String, Error> {
    let edited = edit_with_row(text, name, wanted)?;
    checked(text, edited, name, Some(wanted))
}

/// The line edit of [`with_row`], unchecked.
fn edit_with_row(text: Option<&str>, name: &str, wanted: &Wanted) -> Result<String, Error> {
    match text {
        None => insert_rows(None, &[(name, wanted)]),
        Some(text) => insert_rows(Some(&edit_without_row(text, name)?), &[(name, wanted)]),
    }
}

/// `rows` (none of them in `text`) written after the last row of `skills:`, in order, in one
/// edit.
fn insert_rows(text: Option<&str>, rows: &[(&str, &Wanted)]) -> Result<String, Error> {
    let written = scalars(rows.iter().flat_map(|(name, wanted)| {
        [
            Some(*name),
            Some(wanted.source.as_str()),
            Some(wanted.path.as_str()),
            wanted.reference.as_deref(),
            wanted.signed_by.as_deref(),
        ]
        .into_iter()
        .flatten()
    }));
    let lines_of = |eol: &str| -> String {
        rows.iter()
            .map(|(name, wanted)| row_lines(name, wanted, eol, &written))
            .collect()
    };
    let Some(text) = text else {
        return Ok(format!("skills:\n{}", lines_of("\n")));
    };
    let text = text.to_owned();
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let Some(start) = key_line(&text, 0, "skills", 0) else {
        let mut out = text.clone();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push_str(eol);
        }
        out.push_str(&format!("skills:{eol}{}", lines_of(eol)));
        return Ok(out);
    };
    check_block(lines[start - 1], start)?;
    // The block ends before the next line at indentation 0 (a key, or a comment, which
    // belongs with what follows it).
    let end = (start..lines.len())
        .find(|&i| {
            let l = lines[i].trim_end_matches(['\r', '\n']);
            !l.is_empty() && !l.starts_with(' ')
        })
        .unwrap_or(lines.len());
    // New rows go after the block's last content line, before trailing blank lines.
    let mut at = end;
    while at > start && lines[at - 1].trim().is_empty() {
        at -= 1;
    }
    let mut out: String = lines[..at].concat();
    if !out.ends_with('\n') {
        out.push_str(eol);
    }
    out.push_str(&lines_of(eol));
    out.push_str(&lines[at..].concat());
    Ok(out)
}

fn check_block(line: &str, number: usize) -> Result<(), Error> {
    let after = line.trim_end_matches(['\r', '\n']);
    let value = after.split_once(':').map(|(_, v)| v.trim()).unwrap_or("");
    if value.is_empty() || value.starts_with('#') {
        Ok(())
    } else {
        Err(refuse(Some(number), IntentProblem::FlowSkills))
    }
}

/// The file's text without `name`'s row (its key line and every deeper line after it); the
/// text as it is when there is no such row.
///
/// # Errors
/// [`Error::Intent`] with [`IntentProblem::FlowSkills`] for a `skills:` written on one line;
/// with [`IntentProblem::EditMisread`] when the edited file would not read back without that
/// row and with everything else as it was; as [`Intent::parse`] for a `text` that does not
/// read.
pub fn without_row(text: &str, name: &str) -> Result<String, Error> {
    let edited = edit_without_row(text, name)?;
    checked(Some(text), edited, name, None)
}

/// Gives back `edited` when it reads as the edit of `before` meant: the row of `name` as
/// `wanted` (gone for `None`), every other row and the targets unchanged.
///
/// The edits work on lines and assume the usual layout; YAML allows others (a top level
/// indented past the left edge, rows four spaces in) that such an edit would break or
/// misread, so the result is read back rather than trusted (DESIGN.md: edit lines in place
/// and re-parse to check).
fn checked(
    before: Option<&str>,
    edited: String,
    name: &str,
    wanted: Option<&Wanted>,
) -> Result<String, Error> {
    match wanted {
        Some(wanted) => checked_rows(before, edited, &[(name.to_owned(), wanted.clone())]),
        None => read_back(before, edited, name, |rows| {
            rows.remove(name);
        }),
    }
}

/// [`checked`] for the edit that set every row of `rows` (the first named in a refusal).
fn checked_rows(
    before: Option<&str>,
    edited: String,
    rows: &[(String, Wanted)],
) -> Result<String, Error> {
    let first = rows.first().map_or("", |(name, _)| name.as_str());
    read_back(before, edited, first, |expected| {
        for (name, wanted) in rows {
            expected.insert(name.clone(), wanted.clone());
        }
    })
}

/// Gives back `edited` when its rows are `before`'s as `expect` changes them and its targets
/// `before`'s; else the edit misread, naming `name`.
fn read_back(
    before: Option<&str>,
    edited: String,
    name: &str,
    expect: impl FnOnce(&mut BTreeMap<String, Wanted>),
) -> Result<String, Error> {
    let before = match before {
        Some(text) => Intent::parse(text.as_bytes())?,
        None => Intent::default(),
    };
    let misread = || {
        refuse(
            None,
            IntentProblem::EditMisread {
                name: name.to_owned(),
            },
        )
    };
    let after = Intent::parse(edited.as_bytes()).map_err(|_| misread())?;
    let mut expected = before.skills;
    expect(&mut expected);
    if after.skills != expected || after.targets != before.targets {
        return Err(misread());
    }
    Ok(edited)
}

/// The line edit of [`without_row`], unchecked.
fn edit_without_row(text: &str, name: &str) -> Result<String, Error> {
    let Some(start) = key_line(text, 0, "skills", 0) else {
        return Ok(text.to_owned());
    };
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    check_block(lines[start - 1], start)?;
    let quoted = asv_error::quote::json_string(name);
    let Some(row) = key_line(text, 2, name, start)
        .or_else(|| key_line(text, 2, &quoted[1..quoted.len() - 1], start))
    else {
        return Ok(text.to_owned());
    };
    let first = row - 1;
    let mut last = row;
    while last < lines.len() {
        let l = lines[last].trim_end_matches(['\r', '\n']);
        if l.trim().is_empty()
            || l.starts_with("    ")
            || l.trim_start().starts_with('#') && l.starts_with("   ")
        {
            last += 1;
        } else {
            break;
        }
    }
    // Trailing blank lines of the row stay with what follows.
    while last > row && lines[last - 1].trim().is_empty() {
        last -= 1;
    }
    Ok([&lines[..first], &lines[last..]].concat().concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What one document per value says of `s`: the rule [`scalars`] answers for many at once.
    fn scalar_alone(s: &str) -> String {
        let plain = plain_candidate(s)
            && matches!(
                yaml::parse(&format!("k: {s}\n")).ok().as_ref().and_then(|y| y.get("k")),
                Some(Yaml::String(v)) if v == s
            );
        if plain {
            s.to_owned()
        } else {
            asv_error::quote::json_string(s)
        }
    }

    #[test]
    fn scalars_read_back_in_one_document_as_each_would_alone() {
        let values = [
            "pdf",
            "s001",
            "skills/pdf",
            "true",
            "True",
            "false",
            "yes",
            "no",
            "on",
            "off",
            "null",
            "Null",
            "~",
            "~x",
            "1",
            "-1",
            "+1",
            "1.5",
            ".5",
            "1.",
            "1e3",
            "1E3",
            "0x1F",
            "0o17",
            "017",
            "1_000",
            ".inf",
            "-.inf",
            ".nan",
            ".NaN",
            "2001-12-14",
            "2001-12-14t21.59.43.10-05",
            "v1.2.3",
            "main",
            "@scope/pkg",
            "-x",
            "a b",
            "",
            "a#b",
            "#a",
            "a:b",
            "owner/repo",
            "https://x.dev/r.git",
            "./local",
            "../up",
            "..",
            ".",
            "...",
            "y",
            "n",
            "Y",
            "NO",
            "nUll",
            "0",
            "00",
            "1__0",
            "é",
        ];
        let together = scalars(values);
        for v in values {
            assert_eq!(together[v], scalar_alone(v), "{v:?}");
            assert_eq!(scalar(v), scalar_alone(v), "{v:?}");
        }
    }

    fn wanted(source: &str, path: &str, reference: Option<&str>) -> Wanted {
        Wanted {
            source: source.to_owned(),
            path: path.to_owned(),
            reference: reference.map(str::to_owned),
            signed_by: None,
        }
    }

    #[test]
    fn row_keys_are_found_in_one_pass_plain_or_quoted() {
        let text = "skills:\n  pdf:\n    source: x\n  \"a-b\":\n    path: y\n  'c': {}\n   deep: 1\n  pdf: again\n";
        let lines = key_lines(text, 2, 0);
        assert_eq!(lines.get("pdf"), Some(&2));
        assert_eq!(lines.get("a-b"), Some(&4));
        assert_eq!(lines.get("c"), Some(&6));
        assert_eq!(lines.get("deep"), None);
        assert_eq!(lines.len(), 3);
    }

    /// New rows go in together after the last row, in order, before trailing blank lines and
    /// the next top-level key; a row already there is replaced where it stands.
    #[test]
    fn new_rows_are_inserted_in_one_edit() {
        let text = "skills:\n  old:\n    source: o\n    path: .\n\ntargets: []\n";
        let (a, b) = (wanted("s", "a", None), wanted("s", "b", Some("v1")));
        let edited = insert_rows(Some(text), &[("a", &a), ("b", &b)]).unwrap();
        assert_eq!(
            edited,
            "skills:\n  old:\n    source: o\n    path: .\n  a:\n    source: s\n    path: a\n  b:\n    source: s\n    path: b\n    ref: v1\n\ntargets: []\n"
        );
        let rows = [("a".to_owned(), a), ("b".to_owned(), b)];
        assert_eq!(
            checked_rows(Some(text), edited.clone(), &rows).unwrap(),
            edited
        );
        // A row left out of the check is an edit misread.
        assert!(checked_rows(Some(text), edited, &rows[..1]).is_err());
    }

    #[test]
    fn a_file_is_read_with_targets_rows_and_unknown_keys() {
        let text = "# ours\ntargets: [claude, codex]\nskills:\n  pdf:\n    source: anthropics/skills\n    path: skills/pdf\n    ref: main\n    pth: x\n  doc:\n    source: ./up\n    path: .\ntarget: []\n";
        let intent = Intent::parse(text.as_bytes()).unwrap();
        assert_eq!(intent.targets, ["claude", "codex"]);
        assert_eq!(
            intent.skills["pdf"],
            wanted("anthropics/skills", "skills/pdf", Some("main"))
        );
        assert_eq!(intent.skills["doc"], wanted("./up", ".", None));
        assert_eq!(
            intent.unknown_keys,
            [
                UnknownIntentKey {
                    key: "target".into(),
                    skill: None,
                    line: Some(12),
                    nearest: Some("targets"),
                },
                UnknownIntentKey {
                    key: "pth".into(),
                    skill: Some("pdf".into()),
                    line: Some(8),
                    nearest: Some("path"),
                },
            ]
        );
    }

    #[test]
    fn bad_files_are_refused_with_their_line() {
        let cases: &[(&str, Option<usize>, &str)] = &[
            ("skills:\n  pdf: [\n", None, "is not YAML"),
            ("targets: [claud]\n", Some(1), "did you mean claude?"),
            ("skills:\n  pdf:\n    path: x\n", Some(2), "needs source:"),
            (
                "skills:\n  Bad Name:\n    source: a/b\n    path: x\n",
                Some(2),
                "the skill name",
            ),
            ("skills: [a]\n", Some(1), "skills: is not a mapping"),
            // Issue 27 §3: a row's path stays inside its source.
            (
                "skills:\n  pdf:\n    source: a/b\n    path: ../x\n",
                Some(4),
                "the path \"../x\" of the skill \"pdf\" has a `.` or `..` segment",
            ),
            (
                "skills:\n  pdf: {source: a/b, path: .GIT/x}\n  doc:\n    source: a/b\n    path: d\n",
                Some(2),
                "has a .git segment",
            ),
            (
                "skills:\n  pdf:\n    path: /etc\n    source: a/b\n",
                Some(3),
                "is absolute",
            ),
        ];
        for (text, line, says) in cases {
            match Intent::parse(text.as_bytes()) {
                Err(Error::Intent { line: l, problem }) => {
                    assert!(problem.to_string().contains(says), "{text:?}: {problem}");
                    if line.is_some() {
                        assert_eq!(l, *line, "{text:?}");
                    }
                }
                other => panic!("{text:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn rows_are_added_and_taken_out_keeping_every_other_byte() {
        let pdf = wanted("anthropics/skills", "skills/pdf", Some("main"));
        let made = with_row(None, "pdf", &pdf).unwrap();
        assert_eq!(
            made,
            "skills:\n  pdf:\n    source: anthropics/skills\n    path: skills/pdf\n    ref: main\n"
        );
        assert_eq!(Intent::parse(made.as_bytes()).unwrap().skills["pdf"], pdf);

        let text = "# mine\r\ntargets: [claude]\r\nskills:\r\n  # first\r\n  doc:\r\n    source: ./up # here\r\n    path: .\r\n\r\n# end\r\n";
        let added = with_row(Some(text), "pdf", &pdf).unwrap();
        assert_eq!(
            added,
            "# mine\r\ntargets: [claude]\r\nskills:\r\n  # first\r\n  doc:\r\n    source: ./up # here\r\n    path: .\r\n  pdf:\r\n    source: anthropics/skills\r\n    path: skills/pdf\r\n    ref: main\r\n\r\n# end\r\n"
        );
        assert_eq!(without_row(&added, "pdf").unwrap(), text);
        let no_doc = without_row(text, "doc").unwrap();
        assert_eq!(
            no_doc,
            "# mine\r\ntargets: [claude]\r\nskills:\r\n  # first\r\n\r\n# end\r\n"
        );
        // A source that is not plain YAML is quoted, and reads back the same.
        let odd = wanted("./a dir: x", "#p", None);
        let t = with_row(None, "x", &odd).unwrap();
        assert_eq!(Intent::parse(t.as_bytes()).unwrap().skills["x"], odd);
        assert!(matches!(
            with_row(Some("skills: {}\n"), "x", &odd),
            Err(Error::Intent {
                problem: IntentProblem::FlowSkills,
                ..
            })
        ));
    }

    /// Issue 29 §2: `skill pull NAME --ref R` edits the row's `ref:` line in place.
    #[test]
    fn a_ref_is_set_in_place() {
        let text = "skills:\n  pdf:\n    source: a/b # up\n    ref: v1 # pinned\n    path: p\n  doc:\n    source: ./up\n    path: .\n\n# end\n";
        let edited = edit_ref(text, "pdf", "^2").unwrap();
        assert_eq!(
            edited,
            "skills:\n  pdf:\n    source: a/b # up\n    ref: \"^2\" # pinned\n    path: p\n  doc:\n    source: ./up\n    path: .\n\n# end\n"
        );
        let added = edit_ref(text, "doc", "main").unwrap();
        assert_eq!(
            added,
            "skills:\n  pdf:\n    source: a/b # up\n    ref: v1 # pinned\n    path: p\n  doc:\n    source: ./up\n    path: .\n    ref: main\n\n# end\n"
        );
        let read = Intent::parse(added.as_bytes()).unwrap();
        assert_eq!(read.skills["doc"].reference.as_deref(), Some("main"));
        assert_eq!(read.skills["pdf"].reference.as_deref(), Some("v1"));
    }

    /// Found by the `intent` fuzz target (fuzz/README.md): a top level indented past the left
    /// edge (here behind a lone CR, which ends a comment line for YAML but not for the line
    /// edit) is valid YAML, and the `skills:` block the edit appended at the left edge broke it.
    /// The edit now reads its result back and refuses instead of writing a broken file.
    #[test]
    fn an_edit_that_would_not_read_back_as_meant_is_refused() {
        let pdf = wanted("anthropics/skills", "skills/pdf", Some("main"));
        let cases: &[&[u8]] = &[
            b"# mian\r  dnc:\r\n    source: ./up # here\r\n    path: .\r\n\r\n# end\r\n",
            b"  targets: [claude]\n  other: 1\n",
        ];
        for text in cases {
            let text = std::str::from_utf8(text).unwrap();
            assert!(Intent::parse(text.as_bytes()).is_ok(), "{text:?}");
            match with_row(Some(text), "pdf", &pdf) {
                Err(Error::Intent {
                    line: None,
                    problem: IntentProblem::EditMisread { name },
                }) => assert_eq!(name, "pdf"),
                other => panic!("{text:?}: {other:?}"),
            }
        }
        // Rows four spaces in: taking one out by its two-space key finds nothing and leaves
        // the file as it is, which reads back as still holding the row.
        let deep = "skills:\n    pdf:\n        source: a/b\n        path: .\n";
        assert!(
            Intent::parse(deep.as_bytes())
                .unwrap()
                .skills
                .contains_key("pdf")
        );
        assert!(matches!(
            without_row(deep, "pdf"),
            Err(Error::Intent {
                problem: IntentProblem::EditMisread { .. },
                ..
            })
        ));
    }
}
