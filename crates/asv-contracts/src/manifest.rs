//! `vendor-manifest.yaml`, the table of origins: where each contract's canonical text lives.
//!
//! This crate reads the table; it never re-renders it. `sources` registers the other
//! repositories contracts are taken from (name → repository and ref); a `contracts` row names
//! `local` or one of those names. Raw-byte (`files`) rows from another repository are refused
//! as not yet supported rather than silently ignored.

use std::collections::BTreeMap;

use asv_fs::Tree;

use crate::error::{Error, Result};
use crate::id::ContractId;
use crate::source::{LOCAL_SOURCE, Ref, RepositorySpec, SourceName};
use crate::yaml::{self, Yaml};

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
}

fn refuse(line: Option<usize>, message: impl Into<String>) -> Error {
    Error::Manifest {
        path: MANIFEST_FILE.to_owned(),
        line,
        message: message.into(),
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
    /// [`Error::Manifest`] for text that is not UTF-8 YAML of the table's shape, or a row this
    /// build cannot act on; a guarded-read refusal.
    pub fn load(tree: &Tree) -> Result<Self> {
        let Some(bytes) = tree.read_file(MANIFEST_FILE)? else {
            return Ok(Manifest::default());
        };
        let text = std::str::from_utf8(&bytes).map_err(|_| Error::NotUtf8 {
            path: MANIFEST_FILE.to_owned(),
        })?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        Self::parse(text)
    }

    /// Parses the manifest's text.
    ///
    /// # Errors
    /// As [`Manifest::load`].
    pub fn parse(text: &str) -> Result<Self> {
        let root = yaml::parse(text).map_err(|e| {
            refuse(
                e.line,
                format!("is not valid YAML ({}); fix the syntax", e.message),
            )
        })?;
        let mut manifest = Manifest::default();
        match &root {
            Yaml::Null => return Ok(manifest),
            Yaml::Map(_) => {}
            other => {
                return Err(refuse(
                    None,
                    format!("the top level is {}, expected a mapping", other.kind()),
                ));
            }
        }
        // Unknown keys are left alone: the table may carry what a newer tool writes.
        if let Some(value) = root.get("sources") {
            manifest.sources = parse_sources(value)?;
        }
        if let Some(value) = root.get("ignore") {
            manifest.ignore = parse_ignore("ignore", value)?;
        }
        let rows = match root.get("contracts") {
            None | Some(Yaml::Null) => return Ok(manifest),
            Some(Yaml::Map(rows)) => rows,
            Some(other) => {
                return Err(refuse(
                    None,
                    format!("contracts is {}, expected a mapping of ids", other.kind()),
                ));
            }
        };
        for (key, row) in rows {
            let Yaml::String(key) = key else {
                return Err(refuse(
                    None,
                    format!("a contracts key is {}, expected an id", key.kind()),
                ));
            };
            let id = ContractId::parse(key).map_err(|p| {
                refuse(
                    None,
                    format!(
                        "contracts.{} is not a usable contract id: {p}",
                        asv_fs::quote::json_string(key)
                    ),
                )
            })?;
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

fn parse_sources(value: &Yaml) -> Result<BTreeMap<SourceName, SourceEntry>> {
    let entries = match value {
        Yaml::Null => return Ok(BTreeMap::new()),
        Yaml::Map(entries) => entries,
        other => {
            return Err(refuse(
                None,
                format!(
                    "sources is {}, expected a mapping of source names",
                    other.kind()
                ),
            ));
        }
    };
    let mut sources = BTreeMap::new();
    for (key, entry) in entries {
        let Yaml::String(key) = key else {
            return Err(refuse(
                None,
                format!("a sources key is {}, expected a source name", key.kind()),
            ));
        };
        let quoted = asv_fs::quote::json_string(key);
        let name = SourceName::parse(key).map_err(|p| {
            refuse(
                None,
                format!("sources.{quoted} is not a usable source name: {p}; choose another name"),
            )
        })?;
        let Yaml::Map(_) = entry else {
            return Err(refuse(
                None,
                format!(
                    "sources.{name} is {}, expected a mapping with repository and ref",
                    entry.kind()
                ),
            ));
        };
        let repository = match entry.get("repository") {
            None | Some(Yaml::Null) => {
                return Err(refuse(
                    None,
                    format!(
                        "sources.{name} has no repository; write the repository the source is fetched from"
                    ),
                ));
            }
            Some(Yaml::String(text)) => RepositorySpec::parse(text).map_err(|p| {
                refuse(
                    None,
                    format!(
                        "sources.{name}.repository is not usable: {p}; write owner/repo, ssh://…, user@host:path or https://…"
                    ),
                )
            })?,
            Some(other) => {
                return Err(refuse(
                    None,
                    format!(
                        "sources.{name}.repository is {}, expected the repository as text",
                        other.kind()
                    ),
                ));
            }
        };
        let reference = match entry.get("ref") {
            None | Some(Yaml::Null) => {
                return Err(refuse(
                    None,
                    format!(
                        "sources.{name} has no ref; write the branch, tag or commit id to fetch"
                    ),
                ));
            }
            Some(Yaml::String(text)) => Ref::parse(text).ok_or_else(|| {
                refuse(
                    None,
                    format!(
                        "sources.{name}.ref must be a branch, tag or commit id, found {}",
                        asv_fs::quote::json_string(text)
                    ),
                )
            })?,
            Some(other) => {
                return Err(refuse(
                    None,
                    format!(
                        "sources.{name}.ref is {}, expected a branch, tag or commit id as text",
                        other.kind()
                    ),
                ));
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
        return Err(refuse(
            None,
            format!(
                "contracts.{id} is {}, expected a mapping with source",
                row.kind()
            ),
        ));
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
            ("ignore", v) => ignore = parse_ignore(&format!("contracts.{id}.ignore"), v)?,
            ("source" | "path", v) => {
                return Err(refuse(
                    None,
                    format!("contracts.{id}.{k} is {}, expected a string", v.kind()),
                ));
            }
            _ => {}
        }
    }
    let source = match source {
        None => {
            return Err(refuse(
                None,
                format!("contracts.{id} has no source; write source: local or a source name"),
            ));
        }
        Some(s) => s,
    };
    let remote = match registered.get_key_value(source.as_str()) {
        Some((name, _)) => Some(name.clone()),
        None if source == LOCAL_SOURCE => None,
        None => {
            return Err(refuse(
                None,
                format!(
                    "contracts.{id} names the source {}, which no sources entry registers; register it with add or write source: local",
                    asv_fs::quote::json_string(&source)
                ),
            ));
        }
    };
    if files.is_some() && path.is_some() {
        return Err(refuse(
            None,
            format!(
                "contracts.{id} carries both files and path; a raw-byte contract's canonical paths are the keys of files, so remove path"
            ),
        ));
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
            Some(p) => {
                return Err(refuse(
                    None,
                    format!(
                        "contracts.{id}.path {} is not a relative path inside the source; write it with / separators and no . or .. segments",
                        asv_fs::quote::json_string(&p)
                    ),
                ));
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
        Some(p) => Ok(Origin::LocalPath(check_canonical_path(id, "path", &p)?)),
    }
}

/// Checks a canonical path (a document's `path` or a `files` src).
fn check_canonical_path(id: &ContractId, field: &str, p: &str) -> Result<String> {
    if !is_safe_relative_path(p) {
        return Err(refuse(
            None,
            format!(
                "contracts.{id}.{field} {} is not a relative path inside the repository; write it with / separators and no . or .. segments",
                asv_fs::quote::json_string(p)
            ),
        ));
    }
    let first = p.split('/').next().unwrap_or_default();
    if first == asv_model::layout::SKILLS_DIR || first == asv_model::layout::TOOL_DIR {
        return Err(refuse(
            None,
            format!(
                "contracts.{id}.{field} {} points into {first}/, which holds copies, not canonical text; keep the text elsewhere",
                asv_fs::quote::json_string(p)
            ),
        ));
    }
    Ok(p.to_owned())
}

/// Whether two slash paths are the same or one lies under the other.
pub fn paths_overlap(a: &str, b: &str) -> bool {
    a == b || a.starts_with(&format!("{b}/")) || b.starts_with(&format!("{a}/"))
}

fn parse_files(id: &ContractId, files: &Yaml, local: bool) -> Result<Vec<Mapping>> {
    let Yaml::Map(entries) = files else {
        return Err(refuse(
            None,
            format!(
                "contracts.{id}.files is {}, expected a mapping of src: dest lines",
                files.kind()
            ),
        ));
    };
    let mut mappings = Vec::new();
    for (k, v) in entries {
        let (Yaml::String(src), Yaml::String(dest)) = (k, v) else {
            return Err(refuse(
                None,
                format!(
                    "contracts.{id}.files holds a line that is not text: text (found {}: {})",
                    k.kind(),
                    v.kind()
                ),
            ));
        };
        let src_dir = src.ends_with('/');
        let dest_dir = dest.ends_with('/');
        if src_dir != dest_dir {
            let kind = |d: bool| if d { "directory" } else { "file" };
            return Err(refuse(
                None,
                format!(
                    "contracts.{id}.files maps {} to {}, a {} to a {}; end both sides in a slash (directories) or neither (files)",
                    asv_fs::quote::json_string(src),
                    asv_fs::quote::json_string(dest),
                    kind(src_dir),
                    kind(dest_dir)
                ),
            ));
        }
        let src = src.strip_suffix('/').unwrap_or(src);
        let dest = dest.strip_suffix('/').unwrap_or(dest);
        // The bans on skills/ and the tool's directory concern this repository only.
        let src = if local {
            check_canonical_path(id, "files src", src)?
        } else if is_safe_relative_path(src) {
            src.to_owned()
        } else {
            return Err(refuse(
                None,
                format!(
                    "contracts.{id}.files src {} is not a relative path inside the source; write it with / separators and no . or .. segments",
                    asv_fs::quote::json_string(src)
                ),
            ));
        };
        if !is_safe_relative_path(dest) {
            return Err(refuse(
                None,
                format!(
                    "contracts.{id}.files names the dest {}, which does not stay inside the skill; write it relative to the skill with no . or .. segments",
                    asv_fs::quote::json_string(dest)
                ),
            ));
        }
        let reserved = if dest == "SKILL.md" {
            Some("SKILL.md, which every skill keeps for itself".to_owned())
        } else if dest == ".vendored" || dest.ends_with("/.vendored") {
            Some(format!(
                "{}, the name of the marker gen writes (left out of every digest, so it could never verify)",
                asv_fs::quote::json_string(dest)
            ))
        } else if !src_dir && basename(dest) == ".gitignore" {
            Some(format!(
                "{}, a .gitignore, which would govern what git tracks in every skill it lands in",
                asv_fs::quote::json_string(dest)
            ))
        } else if paths_overlap(dest, "references/vendor") {
            Some(format!(
                "{}, at, under or over references/vendor/, where the document copies live",
                asv_fs::quote::json_string(dest)
            ))
        } else {
            None
        };
        if let Some(what) = reserved {
            return Err(refuse(
                None,
                format!("contracts.{id}.files names the dest {what}; choose another dest"),
            ));
        }
        mappings.push(Mapping {
            src,
            dest: dest.to_owned(),
            dir: src_dir,
        });
    }
    if mappings.is_empty() {
        return Err(refuse(
            None,
            format!(
                "contracts.{id}.files maps nothing; a raw-byte contract distributes at least one file or directory"
            ),
        ));
    }
    Ok(mappings)
}

fn parse_ignore(field: &str, value: &Yaml) -> Result<Vec<String>> {
    let Yaml::Seq(items) = value else {
        return Err(refuse(
            None,
            format!(
                "{field} is {}, expected a list of .gitignore patterns",
                value.kind()
            ),
        ));
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let Yaml::String(p) = item else {
            return Err(refuse(
                None,
                format!("{field} holds {}, expected only text patterns", item.kind()),
            ));
        };
        if p.starts_with('!') {
            return Err(refuse(
                None,
                format!(
                    "{field} cannot re-include paths with {}; ignore rules only add exclusions (escape a literal leading ! as \\!)",
                    asv_fs::quote::json_string(p)
                ),
            ));
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
        assert!(Manifest::parse("").unwrap().contracts.is_empty());
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
            Err(Error::Manifest { message, .. }) => message,
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
        for bad in [
            "- a\n",
            "contracts: [a]\n",
            "contracts:\n  a: {path: x.md}\n",
            "contracts:\n  a: {source: local, path: ../x.md}\n",
            "contracts:\n  a: {source: local, path: /x.md}\n",
            "contracts:\n  A: {source: local}\n",
            "contracts:\n  a: {source: local, path: skills/a/x.md}\n",
            "contracts:\n  a: {source: elsewhere}\n",
            "contracts:\n  a: {source: local, path: a//b.md}\n",
            "contracts:\n  a: {source: local, files: {x/: y}}\n",
            "contracts:\n  a: {source: local, files: {x: y/}}\n",
            "contracts:\n  a: {source: local, files: {}}\n",
            "contracts:\n  a: {source: local, path: p.md, files: {x: y}}\n",
            "contracts:\n  a: {source: local, files: {x: SKILL.md}}\n",
            "contracts:\n  a: {source: local, files: {x/: references/}}\n",
            "contracts:\n  a: {source: local, files: {x/: references/vendor/x/}}\n",
            "contracts:\n  a: {source: local, files: {x: d/.vendored}}\n",
            "contracts:\n  a: {source: local, files: {x: ../y}}\n",
            "contracts:\n  a: {source: local, files: {skills/x: y}}\n",
            "contracts:\n  a: {source: local, files: {x: y}, ignore: ['!k']}\n",
            "ignore: ['!k']\n",
            "ignore: k\n",
            "contracts:\n  a: {source: local, files: [x]}\n",
            "contracts:\n  a: {source: local}\n  a: {source: local}\n",
        ] {
            assert!(Manifest::parse(bad).is_err(), "{bad}");
        }
    }
}
