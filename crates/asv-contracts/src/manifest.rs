//! `vendor-manifest.yaml`, the table of origins: where each contract's canonical text lives.
//!
//! This crate reads the table; it never re-renders it. Rows naming a remote source or raw
//! `files` mappings belong to the fetching and raw-byte commands and are reported as not yet
//! supported by the offline core rather than silently ignored.

use std::collections::BTreeMap;

use asv_fs::Tree;

use crate::error::{Error, Result};
use crate::id::ContractId;
use crate::yaml::{self, Yaml};

/// The manifest's file name, at the repository root.
pub const MANIFEST_FILE: &str = "vendor-manifest.yaml";

/// Where one contract's canonical text is, as the table says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A local document at a path other than `contracts/<id>.md`.
    LocalPath(String),
    /// A local document at its standard path.
    Local,
}

/// The parsed table of origins.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    /// Id → origin, for every row of `contracts`.
    pub contracts: BTreeMap<ContractId, Origin>,
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
        let registered: Vec<String> = match root.get("sources") {
            Some(Yaml::Map(sources)) => sources
                .iter()
                .filter_map(|(k, _)| match k {
                    Yaml::String(k) => Some(k.clone()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
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
            let origin = parse_row(&id, row, &registered)?;
            manifest.contracts.insert(id, origin);
        }
        Ok(manifest)
    }

    /// The repository-relative path of `id`'s canonical text.
    pub fn canonical_path(&self, id: &ContractId) -> String {
        match self.contracts.get(id) {
            Some(Origin::LocalPath(p)) => p.clone(),
            _ => standard_path(id),
        }
    }
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

fn parse_row(id: &ContractId, row: &Yaml, registered: &[String]) -> Result<Origin> {
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
    for (k, v) in fields {
        match (k, v) {
            (Yaml::String(k), Yaml::String(v)) if k == "source" => source = Some(v.clone()),
            (Yaml::String(k), Yaml::String(v)) if k == "path" => path = Some(v.clone()),
            (Yaml::String(k), _) if k == "files" || k == "ignore" => {
                return Err(refuse(
                    None,
                    format!(
                        "contracts.{id} distributes raw files, which this build does not support yet; use a document contract"
                    ),
                ));
            }
            (Yaml::String(k), v) if k == "source" || k == "path" => {
                return Err(refuse(
                    None,
                    format!("contracts.{id}.{k} is {}, expected a string", v.kind()),
                ));
            }
            _ => {}
        }
    }
    match source.as_deref() {
        None => Err(refuse(
            None,
            format!("contracts.{id} has no source; write source: local or a source name"),
        )),
        Some("local") => match path {
            None => Ok(Origin::Local),
            Some(p) if is_safe_relative_path(&p) => {
                let first = p.split('/').next().unwrap_or_default();
                if first == "skills" || first == ".agentic-skill-vendor" {
                    return Err(refuse(
                        None,
                        format!(
                            "contracts.{id}.path {} points into {first}/, which holds copies, not canonical text; keep the text elsewhere",
                            asv_fs::quote::json_string(&p)
                        ),
                    ));
                }
                Ok(Origin::LocalPath(p))
            }
            Some(p) => Err(refuse(
                None,
                format!(
                    "contracts.{id}.path {} is not a relative path inside the repository; write it with / separators and no . or .. segments",
                    asv_fs::quote::json_string(&p)
                ),
            )),
        },
        Some(other) => {
            if !registered.iter().any(|r| r == other) {
                return Err(refuse(
                    None,
                    format!(
                        "contracts.{id} names the source {}, which no sources entry registers; register it with add or write source: local",
                        asv_fs::quote::json_string(other)
                    ),
                ));
            }
            if path.is_some() {
                return Err(refuse(
                    None,
                    format!("contracts.{id} has a path, which only a source: local row may carry"),
                ));
            }
            Err(refuse(
                None,
                format!(
                    "contracts.{id} comes from source {}, and contracts from other repositories are not supported by this build yet",
                    asv_fs::quote::json_string(other)
                ),
            ))
        }
    }
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
        assert!(
            Manifest::parse("future: 1\ncontracts:\n  a: {source: local, note: x}\n").is_ok(),
            "unknown keys are left alone"
        );
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
            "contracts:\n  a: {source: local}\n  a: {source: local}\n",
        ] {
            assert!(Manifest::parse(bad).is_err(), "{bad}");
        }
    }
}
