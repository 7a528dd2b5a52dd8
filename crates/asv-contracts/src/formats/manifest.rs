//! `vendor-manifest.yaml`, the table of origins: where each contract's canonical text lives.
//!
//! This crate reads the table; it never re-renders it. `sources` registers the other
//! repositories contracts are taken from (name → repository and ref); a `contracts` row names
//! `local` or one of those names. Raw-byte (`files`) rows from another repository are refused
//! as not yet supported rather than silently ignored.

use std::collections::BTreeMap;

use asv_fs::Root;
use asv_model::id::ContractId;
use asv_model::source::{LOCAL_SOURCE, Ref, RepositorySpec, SourceName};
use asv_model::yaml::{self, Yaml};

use crate::error::{Error, ManifestProblem as P, PathField, ReservedDest, Result};

/// The manifest's file name, at the repository root.
pub const MANIFEST_FILE: &str = asv_model::layout::MANIFEST;

/// Where one contract's canonical text is, as the table says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A local document at a path other than `contracts/<id>.md`.
    LocalPath(String),
    /// A local document at its standard path.
    Local,
    /// A local raw-byte contract: files and directories copied as they are.
    Raw(RawRow),
    /// A document contract taken from a registered source: its text is read from the cache
    /// at the commit the lock pins.
    Remote {
        /// The registered source holding it.
        source: SourceName,
        /// Its path inside that source, when not `contracts/<id>.md`.
        path: Option<String>,
    },
}

/// A registered source: the repository to fetch from, and what to fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceEntry {
    /// The repository, exactly as the table writes it.
    pub repository: RepositorySpec,
    /// The branch, tag or commit id the fetching commands resolve (the lock records the
    /// commit it resolved to, never this).
    pub reference: Ref,
}

/// A raw-byte contract's row: its mappings in table order and its own ignore patterns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawRow {
    /// The source the files come from; `None` for this repository.
    pub source: Option<SourceName>,
    /// `src: dest` mappings, in the order the table lists them.
    pub mappings: Vec<Mapping>,
    /// This contract's `ignore` patterns (added to the shared ones).
    pub ignore: Vec<String>,
}

/// One `files` line: a file to a file, or a directory to a directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapping {
    /// The canonical path, repository-relative, without a trailing `/`.
    pub src: String,
    /// Where the copy lands, skill-relative, without a trailing `/`.
    pub dest: String,
    /// Whether both sides name directories (written with a trailing `/`).
    pub dir: bool,
}

impl Mapping {
    /// The src as the lock spells it (directories keep their trailing `/`).
    pub fn src_key(&self) -> String {
        if self.dir {
            format!("{}/", self.src)
        } else {
            self.src.clone()
        }
    }

    /// The dest as the lock spells it (directories keep their trailing `/`).
    pub fn dest_key(&self) -> String {
        if self.dir {
            format!("{}/", self.dest)
        } else {
            self.dest.clone()
        }
    }
}

/// The parsed table of origins.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    /// Source name → registration, for every entry of `sources`.
    pub sources: BTreeMap<SourceName, SourceEntry>,
    /// Id → origin, for every row of `contracts`.
    pub contracts: BTreeMap<ContractId, Origin>,
    /// The top-level `ignore` patterns, shared by every raw directory mapping.
    pub ignore: Vec<String>,
    /// Keys the table holds that this tool does not read (left alone, reported as warnings).
    pub unknown_keys: Vec<crate::typos::UnknownKey>,
}

/// A refusal of the table, at no one line.
fn refuse(problem: P) -> Error {
    Error::Manifest {
        line: None,
        problem,
    }
}

/// Checks a repository-relative path written in the manifest: relative, `/`-separated, no
/// empty, `.` or `..` segment, no backslash or control character.
pub fn is_safe_relative_path(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('/')
        && !path.contains('\\')
        && !path.chars().any(char::is_control)
        && path
            .split('/')
            .all(|seg| !seg.is_empty() && seg != "." && seg != "..")
}

impl Manifest {
    /// Reads `vendor-manifest.yaml` from the tree; a missing file is an empty table.
    ///
    /// # Errors
    /// [`Error::Manifest`] for text that is not UTF-8 YAML of the table's shape (a file that
    /// holds no document at all included: empty, blank or only comments), or a row this
    /// build cannot act on; a guarded-read refusal.
    pub fn load(root: &Root) -> Result<Self> {
        let Some(bytes) = root.read_file_capped(
            MANIFEST_FILE,
            asv_model::layout::SETTINGS_LIMIT,
            asv_model::layout::SETTINGS_LIMIT_WHAT,
        )?
        else {
            return Ok(Manifest::default());
        };
        Self::from_bytes(&bytes)
    }

    /// Parses the manifest file's bytes: UTF-8, one leading BOM tolerated.
    ///
    /// # Errors
    /// As [`Manifest::load`], less the guarded read.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let text = std::str::from_utf8(bytes).map_err(|_| Error::not_utf8(MANIFEST_FILE))?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        Self::parse(text)
    }

    /// Parses the manifest's text.
    ///
    /// # Errors
    /// As [`Manifest::load`].
    pub fn parse(text: &str) -> Result<Self> {
        let yaml_error = |e: yaml::YamlError| Error::Manifest {
            line: e.line,
            problem: match e.limit {
                Some(limit) => P::TooLarge { limit },
                None => P::NotYaml { message: e.message },
            },
        };
        // A table with no document at all (empty, blank, only comments) is refused, as the
        // TypeScript tool refuses it (issue 29 §6): a file standing there was meant to say
        // something. An explicit null document (`---`, `~`) is an empty table in both.
        let root = yaml::parse_document(text)
            .map_err(yaml_error)?
            .ok_or_else(|| refuse(P::NoDocument))?;
        let mut manifest = Manifest::default();
        match &root {
            Yaml::Null => return Ok(manifest),
            Yaml::Map(_) => {}
            other => {
                return Err(refuse(P::NotMapping {
                    found: other.kind(),
                }));
            }
        }
        // Unknown keys are left alone, as the TypeScript tool leaves them; they are noted so a
        // typo does not pass silently.
        manifest.unknown_keys = crate::typos::unknown_keys(text, &root);
        if let Some(value) = root.get("sources") {
            manifest.sources = parse_sources(value)?;
        }
        if let Some(value) = root.get("ignore") {
            manifest.ignore = parse_ignore(None, value)?;
        }
        let rows = match root.get("contracts") {
            None | Some(Yaml::Null) => return Ok(manifest),
            Some(Yaml::Map(rows)) => rows,
            Some(other) => {
                return Err(refuse(P::ContractsNotMapping {
                    found: other.kind(),
                }));
            }
        };
        let keys = contract_keys(text, rows)?;
        for (key, (_, row)) in keys.into_iter().zip(rows) {
            let id = ContractId::parse(&key)
                .map_err(|problem| refuse(P::BadContractId { key, problem }))?;
            if manifest.contracts.contains_key(&id) {
                return Err(refuse(P::DuplicateContractKey { id }));
            }
            let origin = parse_row(&id, row, &manifest.sources)?;
            manifest.contracts.insert(id, origin);
        }
        Ok(manifest)
    }

    /// The raw row of `id`, if the table makes it a raw-byte contract.
    pub fn raw(&self, id: &ContractId) -> Option<&RawRow> {
        match self.contracts.get(id) {
            Some(Origin::Raw(row)) => Some(row),
            _ => None,
        }
    }

    /// The path of `id`'s canonical text inside the repository holding it: this one for a
    /// local contract, the source for a remote one (`contracts/<id>.md` unless the row names
    /// a `path`).
    pub fn canonical_path(&self, id: &ContractId) -> String {
        match self.contracts.get(id) {
            Some(Origin::LocalPath(p)) => p.clone(),
            Some(Origin::Remote { path: Some(p), .. }) => p.clone(),
            _ => standard_path(id),
        }
    }

    /// The registered source `id` is taken from, if its row names one.
    pub fn remote_source(&self, id: &ContractId) -> Option<&SourceName> {
        match self.contracts.get(id) {
            Some(Origin::Remote { source, .. }) => Some(source),
            _ => None,
        }
    }
}

/// The text of each `contracts` key, in row order: a string key as it is, a key YAML types as
/// a number, a boolean or null as it is spelled in the file (`007`, `0x1f`, `true`), so the
/// table the TypeScript tool writes with plain keys reads (issue 29 §6).
fn contract_keys(text: &str, rows: &[(Yaml, Yaml)]) -> Result<Vec<String>> {
    let mut typed = false;
    for (key, _) in rows {
        match key {
            Yaml::String(_) => {}
            Yaml::Null | Yaml::Bool(_) | Yaml::Number(_) => typed = true,
            Yaml::Seq(_) | Yaml::Map(_) => {
                return Err(refuse(P::ContractKeyNotText { found: key.kind() }));
            }
        }
    }
    let texts: Vec<Option<&str>> = rows
        .iter()
        .map(|(key, _)| match key {
            Yaml::String(k) => Some(k.as_str()),
            _ => None,
        })
        .collect();
    if !typed {
        return Ok(texts.into_iter().flatten().map(str::to_owned).collect());
    }
    // Only a table with such a key is read a second time, for the spellings; the second
    // reading must list the same keys in the same order, text keys as the first read them.
    let agrees = |keys: &[String]| {
        keys.len() == rows.len()
            && keys
                .iter()
                .zip(&texts)
                .all(|(k, t)| t.is_none_or(|t| t == k))
    };
    match yaml::key_texts(text, "contracts") {
        Ok(keys) if agrees(&keys) => Ok(keys),
        // A key the second reading cannot hand over as text names no contract.
        _ => {
            let found = rows
                .iter()
                .find(|(key, _)| !matches!(key, Yaml::String(_)))
                .map_or("null", |(key, _)| key.kind());
            Err(refuse(P::ContractKeyNotText { found }))
        }
    }
}

fn parse_sources(value: &Yaml) -> Result<BTreeMap<SourceName, SourceEntry>> {
    let entries = match value {
        Yaml::Null => return Ok(BTreeMap::new()),
        Yaml::Map(entries) => entries,
        other => {
            return Err(refuse(P::SourcesNotMapping {
                found: other.kind(),
            }));
        }
    };
    let mut sources = BTreeMap::new();
    for (key, entry) in entries {
        let Yaml::String(key) = key else {
            return Err(refuse(P::SourceKeyNotText { found: key.kind() }));
        };
        let name = SourceName::parse(key).map_err(|problem| {
            refuse(P::BadSourceName {
                key: key.clone(),
                problem,
            })
        })?;
        let Yaml::Map(_) = entry else {
            return Err(refuse(P::SourceNotMapping {
                name,
                found: entry.kind(),
            }));
        };
        let repository = match entry.get("repository") {
            None | Some(Yaml::Null) => {
                return Err(refuse(P::NoRepository { name }));
            }
            Some(Yaml::String(text)) => RepositorySpec::parse(text).map_err(|problem| {
                refuse(P::BadRepository {
                    name: name.clone(),
                    problem,
                })
            })?,
            Some(other) => {
                return Err(refuse(P::RepositoryNotText {
                    name,
                    found: other.kind(),
                }));
            }
        };
        let reference = match entry.get("ref") {
            None | Some(Yaml::Null) => {
                return Err(refuse(P::NoRef { name }));
            }
            Some(Yaml::String(text)) => Ref::parse(text).ok_or_else(|| {
                refuse(P::BadRef {
                    name: name.clone(),
                    text: text.clone(),
                })
            })?,
            Some(other) => {
                return Err(refuse(P::RefNotText {
                    name,
                    found: other.kind(),
                }));
            }
        };
        sources.insert(
            name,
            SourceEntry {
                repository,
                reference,
            },
        );
    }
    Ok(sources)
}

/// `contracts/<id>.md`.
pub fn standard_path(id: &ContractId) -> String {
    format!("contracts/{id}.md")
}

/// The conformance directory beside a canonical text: `<dir of text>/<id>/conformance`.
pub fn conformance_dir(canonical_path: &str, id: &ContractId) -> String {
    match canonical_path.rfind('/') {
        Some(i) => format!("{}/{id}/conformance", &canonical_path[..i]),
        None => format!("{id}/conformance"),
    }
}

fn parse_row(
    id: &ContractId,
    row: &Yaml,
    registered: &BTreeMap<SourceName, SourceEntry>,
) -> Result<Origin> {
    let Yaml::Map(fields) = row else {
        return Err(refuse(P::RowNotMapping {
            id: id.clone(),
            found: row.kind(),
        }));
    };
    let mut source = None;
    let mut path = None;
    let mut files = None;
    let mut ignore = Vec::new();
    for (k, v) in fields {
        let Yaml::String(k) = k else { continue };
        match (k.as_str(), v) {
            ("source", Yaml::String(v)) => source = Some(v.clone()),
            ("path", Yaml::String(v)) => path = Some(v.clone()),
            ("files", v) => files = Some(v),
            ("ignore", v) => ignore = parse_ignore(Some(id), v)?,
            ("source", v) => return Err(not_text(id, "source", v)),
            ("path", v) => return Err(not_text(id, "path", v)),
            _ => {}
        }
    }
    let source = match source {
        None => {
            return Err(refuse(P::NoSource { id: id.clone() }));
        }
        Some(s) => s,
    };
    let remote = match registered.get_key_value(source.as_str()) {
        Some((name, _)) => Some(name.clone()),
        None if source == LOCAL_SOURCE => None,
        None => {
            return Err(refuse(P::UnregisteredSource {
                id: id.clone(),
                source,
            }));
        }
    };
    if files.is_some() && path.is_some() {
        return Err(refuse(P::FilesAndPath { id: id.clone() }));
    }
    if let Some(source) = remote {
        if let Some(files) = files {
            return Ok(Origin::Raw(RawRow {
                mappings: parse_files(id, files, false)?,
                source: Some(source),
                ignore,
            }));
        }
        let path = match path {
            None => None,
            Some(p) if is_safe_relative_path(&p) => Some(p),
            Some(path) => {
                return Err(refuse(P::OutsideSource {
                    id: id.clone(),
                    field: PathField::Path,
                    path,
                }));
            }
        };
        return Ok(Origin::Remote { source, path });
    }
    if let Some(files) = files {
        return Ok(Origin::Raw(RawRow {
            mappings: parse_files(id, files, true)?,
            source: None,
            ignore,
        }));
    }
    match path {
        None => Ok(Origin::Local),
        Some(p) => Ok(Origin::LocalPath(check_canonical_path(
            id,
            PathField::Path,
            &p,
        )?)),
    }
}

/// Checks a canonical path (a document's `path` or a `files` src).
fn check_canonical_path(id: &ContractId, field: PathField, p: &str) -> Result<String> {
    if !is_safe_relative_path(p) {
        return Err(refuse(P::OutsideRepository {
            id: id.clone(),
            field,
            path: p.to_owned(),
        }));
    }
    let first = p.split('/').next().unwrap_or_default();
    let copies = [asv_model::layout::SKILLS_DIR, asv_model::layout::TOOL_DIR];
    if let Some(dir) = copies.into_iter().find(|dir| *dir == first) {
        return Err(refuse(P::IntoCopies {
            id: id.clone(),
            field,
            path: p.to_owned(),
            dir,
        }));
    }
    Ok(p.to_owned())
}

/// A row's `source` or `path` that is not text.
fn not_text(id: &ContractId, key: &'static str, found: &Yaml) -> Error {
    refuse(P::RowFieldNotText {
        id: id.clone(),
        key,
        found: found.kind(),
    })
}

/// Whether two slash paths are the same or one lies under the other.
pub fn paths_overlap(a: &str, b: &str) -> bool {
    a == b || a.starts_with(&format!("{b}/")) || b.starts_with(&format!("{a}/"))
}

fn parse_files(id: &ContractId, files: &Yaml, local: bool) -> Result<Vec<Mapping>> {
    let Yaml::Map(entries) = files else {
        return Err(refuse(P::FilesNotMapping {
            id: id.clone(),
            found: files.kind(),
        }));
    };
    let mut mappings = Vec::new();
    for (k, v) in entries {
        let (Yaml::String(src), Yaml::String(dest)) = (k, v) else {
            return Err(refuse(P::FilesLineNotText {
                id: id.clone(),
                src: k.kind(),
                dest: v.kind(),
            }));
        };
        let src_dir = src.ends_with('/');
        let dest_dir = dest.ends_with('/');
        if src_dir != dest_dir {
            return Err(refuse(P::FileDirMismatch {
                id: id.clone(),
                src: src.clone(),
                dest: dest.clone(),
            }));
        }
        let src = src.strip_suffix('/').unwrap_or(src);
        let dest = dest.strip_suffix('/').unwrap_or(dest);
        // The bans on skills/ and the tool's directory concern this repository only.
        let src = if local {
            check_canonical_path(id, PathField::FilesSrc, src)?
        } else if is_safe_relative_path(src) {
            src.to_owned()
        } else {
            return Err(refuse(P::OutsideSource {
                id: id.clone(),
                field: PathField::FilesSrc,
                path: src.to_owned(),
            }));
        };
        if !is_safe_relative_path(dest) {
            return Err(refuse(P::DestOutsideSkill {
                id: id.clone(),
                dest: dest.to_owned(),
            }));
        }
        let reserved = if dest == "SKILL.md" {
            Some(ReservedDest::SkillMd)
        } else if dest == ".vendored" || dest.ends_with("/.vendored") {
            Some(ReservedDest::Marker)
        } else if !src_dir && basename(dest) == ".gitignore" {
            Some(ReservedDest::Gitignore)
        } else if paths_overlap(dest, "references/vendor") {
            Some(ReservedDest::VendorCopies)
        } else {
            None
        };
        if let Some(reserved) = reserved {
            return Err(refuse(P::ReservedDest {
                id: id.clone(),
                dest: dest.to_owned(),
                reserved,
            }));
        }
        mappings.push(Mapping {
            src,
            dest: dest.to_owned(),
            dir: src_dir,
        });
    }
    if mappings.is_empty() {
        return Err(refuse(P::FilesEmpty { id: id.clone() }));
    }
    Ok(mappings)
}

/// An `ignore` list: the row's (`contract`) or, with `None`, the top-level one.
fn parse_ignore(contract: Option<&ContractId>, value: &Yaml) -> Result<Vec<String>> {
    let Yaml::Seq(items) = value else {
        return Err(refuse(P::IgnoreNotList {
            contract: contract.cloned(),
            found: value.kind(),
        }));
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let Yaml::String(p) = item else {
            return Err(refuse(P::IgnoreNotText {
                contract: contract.cloned(),
                found: item.kind(),
            }));
        };
        if p.starts_with('!') {
            return Err(refuse(P::IgnoreNegated {
                contract: contract.cloned(),
                pattern: p.clone(),
            }));
        }
        out.push(p.clone());
    }
    Ok(out)
}

/// The last path segment.
pub fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows() {
        let m = Manifest::parse(
            "contracts:\n  a: {source: local, path: docs/a.md}\n  b:\n    source: local\n",
        )
        .unwrap();
        let a = ContractId::parse("a").unwrap();
        let b = ContractId::parse("b").unwrap();
        assert_eq!(m.canonical_path(&a), "docs/a.md");
        assert_eq!(m.canonical_path(&b), "contracts/b.md");
        assert_eq!(conformance_dir("docs/a.md", &a), "docs/a/conformance");
        assert_eq!(conformance_dir("a.md", &a), "a/conformance");
        assert!(Manifest::parse("---\n").unwrap().contracts.is_empty());
        let m = Manifest::parse(
            "ignore: ['**/*.test.ts']\ncontracts:\n  r:\n    source: local\n    ignore: [fixtures/]\n    files:\n      tools/rt/: scripts/_runtime/\n      tools/c.sh: scripts/c.sh\n",
        )
        .unwrap();
        let r = m.raw(&ContractId::parse("r").unwrap()).unwrap();
        assert_eq!(m.ignore, ["**/*.test.ts"]);
        assert_eq!(r.ignore, ["fixtures/"]);
        assert_eq!(r.mappings[0].src_key(), "tools/rt/");
        assert_eq!(r.mappings[0].dest_key(), "scripts/_runtime/");
        assert_eq!(r.mappings[1].dest, "scripts/c.sh");
        assert!(!r.mappings[1].dir);
        assert!(
            Manifest::parse("future: 1\ncontracts:\n  a: {source: local, note: x}\n").is_ok(),
            "unknown keys are left alone"
        );
    }

    /// Issue 29 §6: a key YAML types (number, boolean, null) is the id it spells, as the
    /// TypeScript tool writes it; a quoted key is the id it holds.
    #[test]
    fn typed_keys_are_the_ids_they_spell() {
        let ids = |text: &str| -> Vec<String> {
            Manifest::parse(text)
                .unwrap_or_else(|e| panic!("{text:?}: {e}"))
                .contracts
                .keys()
                .map(|id| id.as_str().to_owned())
                .collect()
        };
        let rows: &[(&str, &[&str])] = &[
            (
                "contracts:\n  123:\n    source: local\n  007:\n    source: local\n",
                &["007", "123"],
            ),
            (
                "contracts:\n  0x1f: {source: local}\n  1e3: {source: local}\n  1.0: {source: local}\n",
                &["0x1f", "1.0", "1e3"],
            ),
            (
                "contracts:\n  true: {source: local}\n  false: {source: local}\n  null: {source: local}\n",
                &["false", "null", "true"],
            ),
            (
                "contracts: {9: {source: local}, \"10\": {source: local}, 'a': {source: local}}\n",
                &["10", "9", "a"],
            ),
            // A float too large for a double is a number to YAML, and its spelling an id.
            ("contracts:\n  1e400: {source: local}\n", &["1e400"]),
            // `7` and `007` are two ids.
            (
                "contracts:\n  7: {source: local}\n  007: {source: local}\n",
                &["007", "7"],
            ),
        ];
        for (text, expected) in rows {
            assert_eq!(ids(text), *expected, "{text:?}");
        }
        // The row a typed key names is read as any other.
        let m = Manifest::parse("contracts:\n  007:\n    source: local\n    path: docs/b.md\n")
            .unwrap();
        assert_eq!(
            m.canonical_path(&ContractId::parse("007").unwrap()),
            "docs/b.md"
        );
        // An explicit empty document is an empty table; a BOM before nothing is nothing.
        for empty in ["---\n", "--- # c\n", "~\n", "null\n"] {
            assert_eq!(
                Manifest::parse(empty).unwrap(),
                Manifest::default(),
                "{empty:?}"
            );
        }
        assert!(matches!(
            Manifest::from_bytes(b"\xef\xbb\xbf\n"),
            Err(Error::Manifest {
                problem: P::NoDocument,
                ..
            })
        ));
    }

    #[test]
    fn sources_and_remote_rows() {
        let m = Manifest::parse(
            "sources:\n  workflow:\n    repository: ba0918/agentic-workflow\n    ref: main\n  git.x:\n    repository: git@example.com:team/x.git\n    ref: release/2.x\n\ncontracts:\n  tdd-contract:\n    source: workflow\n  style: {source: git.x, path: docs/style.md}\n  report-format:\n    source: local\n",
        )
        .unwrap();
        let names: Vec<&str> = m.sources.keys().map(SourceName::as_str).collect();
        assert_eq!(names, ["git.x", "workflow"]);
        let workflow = &m.sources["workflow"];
        assert_eq!(workflow.repository.as_str(), "ba0918/agentic-workflow");
        assert!(workflow.repository.is_github());
        assert_eq!(workflow.reference.as_str(), "main");
        assert_eq!(m.sources["git.x"].reference.as_str(), "release/2.x");
        let tdd = ContractId::parse("tdd-contract").unwrap();
        let style = ContractId::parse("style").unwrap();
        assert_eq!(
            m.contracts[&tdd],
            Origin::Remote {
                source: SourceName::parse("workflow").unwrap(),
                path: None
            }
        );
        assert_eq!(m.canonical_path(&tdd), "contracts/tdd-contract.md");
        assert_eq!(m.canonical_path(&style), "docs/style.md");
        assert_eq!(m.remote_source(&style).unwrap().as_str(), "git.x");
        assert_eq!(
            m.remote_source(&ContractId::parse("report-format").unwrap()),
            None
        );
        // A remote path is a path inside the source: skills/ is not this repository's.
        assert!(
            Manifest::parse(
                "sources:\n  w: {repository: o/r, ref: main}\ncontracts:\n  a: {source: w, path: skills/a.md}\n"
            )
            .is_ok()
        );
        assert!(
            Manifest::parse("sources:\ncontracts:\n")
                .unwrap()
                .sources
                .is_empty()
        );
    }

    fn message(text: &str) -> String {
        match Manifest::parse(text) {
            Err(Error::Manifest { problem, .. }) => problem.to_string(),
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn source_refusals() {
        let rows: &[(&str, &str)] = &[
            (
                "sources: [a]\n",
                "sources is a list, expected a mapping of source names",
            ),
            (
                "sources:\n  local: {repository: o/r, ref: main}\n",
                "sources.\"local\" is not a usable source name: local is reserved",
            ),
            (
                "sources:\n  Work: {repository: o/r, ref: main}\n",
                "sources.\"Work\" is not a usable source name",
            ),
            (
                "sources:\n  a..b: {repository: o/r, ref: main}\n",
                "sources.\"a..b\" is not a usable source name",
            ),
            (
                "sources:\n  w: o/r\n",
                "sources.w is a string, expected a mapping",
            ),
            (
                "sources:\n  w: {ref: main}\n",
                "sources.w has no repository",
            ),
            (
                "sources:\n  w: {repository: 3, ref: main}\n",
                "sources.w.repository is a number",
            ),
            (
                "sources:\n  w: {repository: 'http://example.com/r.git', ref: main}\n",
                "sources.w.repository is not usable: plain http:// is not accepted",
            ),
            (
                "sources:\n  w: {repository: 'https://u:p@example.com/r.git', ref: main}\n",
                "sources.w.repository is not usable: an https:// URL may not carry",
            ),
            ("sources:\n  w: {repository: o/r}\n", "sources.w has no ref"),
            (
                "sources:\n  w: {repository: o/r, ref: -main}\n",
                "sources.w.ref must be a branch, tag or commit id, found \"-main\"",
            ),
            (
                "sources:\n  w: {repository: o/r, ref: 'a..b'}\n",
                "sources.w.ref must be a branch, tag or commit id, found \"a..b\"",
            ),
            (
                "sources:\n  w: {repository: o/r, ref: 12}\n",
                "sources.w.ref is a number",
            ),
            (
                "sources:\n  w: {repository: o/r, ref: main}\ncontracts:\n  a: {source: v}\n",
                "contracts.a names the source \"v\", which no sources entry registers",
            ),
            (
                "sources:\n  w: {repository: o/r, ref: main}\ncontracts:\n  a: {source: w, files: {../x: y}}\n",
                "contracts.a.files src \"../x\" is not a relative path inside the source",
            ),
            (
                "sources:\n  w: {repository: o/r, ref: main}\ncontracts:\n  a: {source: w, path: ../a.md}\n",
                "contracts.a.path \"../a.md\" is not a relative path inside the source",
            ),
            (
                "sources:\n  w: {repository: o/r, ref: main}\ncontracts:\n  a: {source: w, path: /a.md}\n",
                "is not a relative path inside the source",
            ),
        ];
        for (text, expected) in rows {
            let found = message(text);
            assert!(found.contains(expected), "{text}: {found}");
        }
        let full = format!(
            "{}",
            Manifest::parse("sources:\n  w: {repository: o/r, ref: '-x'}\n").unwrap_err()
        );
        assert_eq!(
            full,
            "vendor-manifest.yaml: sources.w.ref must be a branch, tag or commit id, found \"-x\""
        );
        let secret = message(
            "sources:\n  w: {repository: 'https://u:fake-secret-marker@example.com/r.git', ref: main}\n",
        );
        assert!(!secret.contains("fake-secret-marker"), "{secret}");
    }

    #[test]
    fn refusals() {
        use crate::error::{ManifestProblem as P, PathField, ReservedDest};
        let id = |s: &str| ContractId::parse(s).unwrap();
        let a = || id("a");
        let reserved = |dest: &str, reserved| P::ReservedDest {
            id: a(),
            dest: dest.into(),
            reserved,
        };
        let rows: Vec<(&str, P)> = vec![
            ("- a\n", P::NotMapping { found: "a list" }),
            (
                "contracts: [a]\n",
                P::ContractsNotMapping { found: "a list" },
            ),
            (
                "contracts:\n  ? [a]\n  : {source: local}\n",
                P::ContractKeyNotText { found: "a list" },
            ),
            (
                "contracts:\n  ?\n  : {source: local}\n",
                P::BadContractId {
                    key: "".into(),
                    problem: asv_model::id::IdProblem::Empty,
                },
            ),
            (
                "contracts:\n  ~: {source: local}\n",
                P::BadContractId {
                    key: "~".into(),
                    problem: asv_model::id::IdProblem::BadCharacter,
                },
            ),
            (
                "contracts:\n  .inf: {source: local}\n",
                P::BadContractId {
                    key: ".inf".into(),
                    problem: asv_model::id::IdProblem::BadCharacter,
                },
            ),
            (
                "contracts:\n  True: {source: local}\n",
                P::BadContractId {
                    key: "True".into(),
                    problem: asv_model::id::IdProblem::BadCharacter,
                },
            ),
            (
                "contracts:\n  7: {source: local}\n  \"7\": {source: local}\n",
                P::DuplicateContractKey { id: id("7") },
            ),
            ("", P::NoDocument),
            ("\n\n", P::NoDocument),
            ("  \t\n", P::NoDocument),
            ("# only a comment\n# and another\n", P::NoDocument),
            (
                "contracts:\n  A: {source: local}\n",
                P::BadContractId {
                    key: "A".into(),
                    problem: asv_model::id::IdProblem::BadCharacter,
                },
            ),
            (
                "contracts:\n  a: x\n",
                P::RowNotMapping {
                    id: a(),
                    found: "a string",
                },
            ),
            (
                "contracts:\n  a: {source: 1}\n",
                P::RowFieldNotText {
                    id: a(),
                    key: "source",
                    found: "a number",
                },
            ),
            (
                "contracts:\n  a: {source: local, path: [x]}\n",
                P::RowFieldNotText {
                    id: a(),
                    key: "path",
                    found: "a list",
                },
            ),
            ("contracts:\n  a: {path: x.md}\n", P::NoSource { id: a() }),
            (
                "contracts:\n  a: {source: elsewhere}\n",
                P::UnregisteredSource {
                    id: a(),
                    source: "elsewhere".into(),
                },
            ),
            (
                "contracts:\n  a: {source: local, path: p.md, files: {x: y}}\n",
                P::FilesAndPath { id: a() },
            ),
            (
                "contracts:\n  a: {source: local, path: ../x.md}\n",
                P::OutsideRepository {
                    id: a(),
                    field: PathField::Path,
                    path: "../x.md".into(),
                },
            ),
            (
                "contracts:\n  a: {source: local, path: /x.md}\n",
                P::OutsideRepository {
                    id: a(),
                    field: PathField::Path,
                    path: "/x.md".into(),
                },
            ),
            (
                "contracts:\n  a: {source: local, path: a//b.md}\n",
                P::OutsideRepository {
                    id: a(),
                    field: PathField::Path,
                    path: "a//b.md".into(),
                },
            ),
            (
                "contracts:\n  a: {source: local, files: {../x: y}}\n",
                P::OutsideRepository {
                    id: a(),
                    field: PathField::FilesSrc,
                    path: "../x".into(),
                },
            ),
            (
                "contracts:\n  a: {source: local, path: skills/a/x.md}\n",
                P::IntoCopies {
                    id: a(),
                    field: PathField::Path,
                    path: "skills/a/x.md".into(),
                    dir: "skills",
                },
            ),
            (
                "contracts:\n  a: {source: local, files: {skills/x: y}}\n",
                P::IntoCopies {
                    id: a(),
                    field: PathField::FilesSrc,
                    path: "skills/x".into(),
                    dir: "skills",
                },
            ),
            (
                "contracts:\n  a: {source: local, files: {.agentic-skill-vendor/: y/}}\n",
                P::IntoCopies {
                    id: a(),
                    field: PathField::FilesSrc,
                    path: ".agentic-skill-vendor".into(),
                    dir: ".agentic-skill-vendor",
                },
            ),
            (
                "sources:\n  w: {repository: o/r, ref: main}\ncontracts:\n  a: {source: w, path: ../a.md}\n",
                P::OutsideSource {
                    id: a(),
                    field: PathField::Path,
                    path: "../a.md".into(),
                },
            ),
            (
                "sources:\n  w: {repository: o/r, ref: main}\ncontracts:\n  a: {source: w, files: {../x/: y/}}\n",
                P::OutsideSource {
                    id: a(),
                    field: PathField::FilesSrc,
                    path: "../x".into(),
                },
            ),
            (
                "contracts:\n  a: {source: local, files: [x]}\n",
                P::FilesNotMapping {
                    id: a(),
                    found: "a list",
                },
            ),
            (
                "contracts:\n  a: {source: local, files: {1: y}}\n",
                P::FilesLineNotText {
                    id: a(),
                    src: "a number",
                    dest: "a string",
                },
            ),
            (
                "contracts:\n  a: {source: local, files: {x/: y}}\n",
                P::FileDirMismatch {
                    id: a(),
                    src: "x/".into(),
                    dest: "y".into(),
                },
            ),
            (
                "contracts:\n  a: {source: local, files: {x: y/}}\n",
                P::FileDirMismatch {
                    id: a(),
                    src: "x".into(),
                    dest: "y/".into(),
                },
            ),
            (
                "contracts:\n  a: {source: local, files: {x: ../y}}\n",
                P::DestOutsideSkill {
                    id: a(),
                    dest: "../y".into(),
                },
            ),
            (
                "contracts:\n  a: {source: local, files: {x: SKILL.md}}\n",
                reserved("SKILL.md", ReservedDest::SkillMd),
            ),
            (
                "contracts:\n  a: {source: local, files: {x: d/.vendored}}\n",
                reserved("d/.vendored", ReservedDest::Marker),
            ),
            (
                "contracts:\n  a: {source: local, files: {x/: .vendored/}}\n",
                reserved(".vendored", ReservedDest::Marker),
            ),
            (
                "contracts:\n  a: {source: local, files: {x: sub/.gitignore}}\n",
                reserved("sub/.gitignore", ReservedDest::Gitignore),
            ),
            (
                "contracts:\n  a: {source: local, files: {x/: references/}}\n",
                reserved("references", ReservedDest::VendorCopies),
            ),
            (
                "contracts:\n  a: {source: local, files: {x/: references/vendor/x/}}\n",
                reserved("references/vendor/x", ReservedDest::VendorCopies),
            ),
            (
                "contracts:\n  a: {source: local, files: {}}\n",
                P::FilesEmpty { id: a() },
            ),
            (
                "ignore: k\n",
                P::IgnoreNotList {
                    contract: None,
                    found: "a string",
                },
            ),
            (
                "ignore: [1]\n",
                P::IgnoreNotText {
                    contract: None,
                    found: "a number",
                },
            ),
            (
                "ignore: ['!k']\n",
                P::IgnoreNegated {
                    contract: None,
                    pattern: "!k".into(),
                },
            ),
            (
                "contracts:\n  a: {source: local, files: {x: y}, ignore: [[k]]}\n",
                P::IgnoreNotText {
                    contract: Some(a()),
                    found: "a list",
                },
            ),
            (
                "contracts:\n  a: {source: local, files: {x: y}, ignore: ['!k']}\n",
                P::IgnoreNegated {
                    contract: Some(a()),
                    pattern: "!k".into(),
                },
            ),
        ];
        let refusal = |text: &str| match Manifest::parse(text) {
            Err(Error::Manifest { line, problem }) => (line, problem),
            other => panic!("{text}: {other:?}"),
        };
        for (text, problem) in rows {
            assert_eq!(refusal(text), (None, problem), "{text}");
        }
        assert_eq!(
            refusal("contracts:\n  a: {source: local}\n  a: {source: local}\n"),
            (
                Some(3),
                P::NotYaml {
                    message: "duplicate mapping key: a".into()
                }
            )
        );
    }
}
