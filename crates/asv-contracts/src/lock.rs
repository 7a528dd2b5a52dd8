//! `vendor-lock.json`: what the tool recorded, and its exact rendering.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::digest::Digest;
use crate::error::{Error, LockProblem};
use crate::id::ContractId;
use crate::json;

/// The lock's file name, at the repository root.
pub const LOCK_FILE: &str = "vendor-lock.json";

/// The kind of a contract as the lock records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContractKind {
    /// A document: header plus canonical body.
    Document,
    /// Raw bytes (`"kind": "raw"`).
    Raw,
}

/// What the lock records for one contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    /// The digest distributed.
    pub digest: Digest,
    /// The conformance tree's digest, when the contract has tests.
    pub conformance: Option<Digest>,
    /// Document or raw.
    pub kind: ContractKind,
}

/// What the lock records one raw-byte dest holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// The raw-byte contract placed there.
    pub contract: ContractId,
    /// The placement digest (files named relative to the dest, marker left out).
    pub digest: Digest,
    /// The mapping's src (a directory keeps its trailing `/`).
    pub src: String,
}

/// Skill → dest key (a directory keeps its trailing `/`) → placement.
pub type Placements = BTreeMap<String, BTreeMap<String, Placement>>;

/// The parsed lock.
///
/// `sources` belongs to the fetching commands; it is carried through unchanged as JSON so
/// that a command which does not own it never rewrites it. `placements` is written by `gen`
/// alone and carried unchanged by every other command.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lock {
    /// Skill name → the ids it declares, sorted.
    pub dependencies: BTreeMap<String, Vec<ContractId>>,
    /// Id → resolution.
    pub resolutions: BTreeMap<ContractId, Resolution>,
    /// The `sources` object, carried unchanged (absent when empty).
    pub sources: Option<Map<String, Value>>,
    /// What `gen` placed where (empty when no raw bytes are distributed).
    pub placements: Placements,
}

fn problem(p: LockProblem) -> Error {
    Error::Lock { problem: p }
}

impl Lock {
    /// Parses the lock's bytes. A leading BOM is tolerated.
    ///
    /// # Errors
    /// [`Error::Lock`] when the text is not UTF-8 JSON of the lock's shape: an object with
    /// `dependencies` (skill → list of ids) and `resolutions` (id → `{digest, conformance?,
    /// kind?}` with `sha256:<64 hex>` digests).
    pub fn parse(bytes: &[u8]) -> Result<Self, Error> {
        let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
        let text = std::str::from_utf8(bytes).map_err(|_| problem(LockProblem::NotUtf8))?;
        let value: Value = serde_json::from_str(text).map_err(|e| {
            problem(LockProblem::NotJson {
                line: e.line(),
                message: e.to_string(),
            })
        })?;
        let Value::Object(mut root) = value else {
            return Err(problem(LockProblem::NotObject));
        };
        let deps = match root.remove("dependencies") {
            Some(Value::Object(m)) => m,
            Some(_) => return Err(problem(LockProblem::NotAnObject("dependencies"))),
            None => return Err(problem(LockProblem::Missing("dependencies"))),
        };
        let res = match root.remove("resolutions") {
            Some(Value::Object(m)) => m,
            Some(_) => return Err(problem(LockProblem::NotAnObject("resolutions"))),
            None => return Err(problem(LockProblem::Missing("resolutions"))),
        };
        let sources = match root.remove("sources") {
            Some(Value::Object(m)) => Some(m),
            None => None,
            Some(_) => return Err(problem(LockProblem::NotAnObject("sources"))),
        };
        let placements = match root.remove("placements") {
            Some(Value::Object(m)) => parse_placements(m)?,
            None => Placements::new(),
            Some(_) => return Err(problem(LockProblem::NotAnObject("placements"))),
        };
        // Other top-level keys are dropped: verify then reports the lock as differing and
        // gen writes it without them.
        let mut dependencies = BTreeMap::new();
        // Only the keys of `dependencies` matter when reading: the values are rendered from
        // the declarations, and a stale value shows up as a `lock` violation, not a refusal.
        for (skill, ids) in deps {
            let list = match ids {
                Value::Array(items) => items
                    .iter()
                    .filter_map(|i| i.as_str().and_then(|s| ContractId::parse(s).ok()))
                    .collect(),
                _ => Vec::new(),
            };
            dependencies.insert(skill, list);
        }

        let mut resolutions = BTreeMap::new();
        for (key, entry) in res {
            let id = ContractId::parse(&key)
                .map_err(|_| problem(LockProblem::BadResolutionId(key.clone())))?;
            let Value::Object(mut fields) = entry else {
                return Err(problem(LockProblem::ResolutionNotObject(key)));
            };
            let digest = match fields.remove("digest") {
                Some(Value::String(s)) => Digest::parse(&s).ok_or_else(|| {
                    problem(LockProblem::BadDigest {
                        id: key.clone(),
                        field: "digest",
                    })
                })?,
                _ => {
                    return Err(problem(LockProblem::BadDigest {
                        id: key,
                        field: "digest",
                    }));
                }
            };
            let conformance = match fields.remove("conformance") {
                None => None,
                Some(Value::String(s)) => Some(Digest::parse(&s).ok_or_else(|| {
                    problem(LockProblem::BadDigest {
                        id: key.clone(),
                        field: "conformance",
                    })
                })?),
                Some(_) => {
                    return Err(problem(LockProblem::BadDigest {
                        id: key,
                        field: "conformance",
                    }));
                }
            };
            let kind = match fields.remove("kind") {
                None => ContractKind::Document,
                Some(Value::String(s)) if s == "raw" => ContractKind::Raw,
                Some(_) => return Err(problem(LockProblem::BadKind(key))),
            };
            resolutions.insert(
                id,
                Resolution {
                    digest,
                    conformance,
                    kind,
                },
            );
        }
        Ok(Lock {
            dependencies,
            resolutions,
            sources: sources.filter(|m| !m.is_empty()),
            placements,
        })
    }

    /// The lock as a JSON value (empty `sources`/`placements` left out).
    pub fn to_value(&self) -> Value {
        let mut root = Map::new();
        let mut deps = Map::new();
        for (skill, ids) in &self.dependencies {
            if ids.is_empty() {
                continue;
            }
            let mut sorted: Vec<&str> = ids.iter().map(ContractId::as_str).collect();
            sorted.sort_by(|a, b| crate::digest::cmp_utf16(a, b));
            sorted.dedup();
            deps.insert(
                skill.clone(),
                Value::Array(
                    sorted
                        .into_iter()
                        .map(|s| Value::String(s.into()))
                        .collect(),
                ),
            );
        }
        root.insert("dependencies".into(), Value::Object(deps));
        let mut res = Map::new();
        for (id, r) in &self.resolutions {
            let mut entry = Map::new();
            entry.insert("digest".into(), Value::String(r.digest.to_string()));
            if let Some(c) = r.conformance {
                entry.insert("conformance".into(), Value::String(c.to_string()));
            }
            if r.kind == ContractKind::Raw {
                entry.insert("kind".into(), Value::String("raw".into()));
            }
            res.insert(id.to_string(), Value::Object(entry));
        }
        root.insert("resolutions".into(), Value::Object(res));
        if let Some(s) = self.sources.as_ref().filter(|m| !m.is_empty()) {
            root.insert("sources".into(), Value::Object(s.clone()));
        }
        let mut placements = Map::new();
        for (skill, dests) in &self.placements {
            if dests.is_empty() {
                continue;
            }
            let mut by_dest = Map::new();
            for (dest, p) in dests {
                let mut entry = Map::new();
                entry.insert("contract".into(), Value::String(p.contract.to_string()));
                entry.insert("digest".into(), Value::String(p.digest.to_string()));
                entry.insert("src".into(), Value::String(p.src.clone()));
                by_dest.insert(dest.clone(), Value::Object(entry));
            }
            placements.insert(skill.clone(), Value::Object(by_dest));
        }
        if !placements.is_empty() {
            root.insert("placements".into(), Value::Object(placements));
        }
        Value::Object(root)
    }

    /// The lock's exact text: 2-space JSON, keys in UTF-16 order, one trailing LF.
    pub fn render(&self) -> String {
        json::render(&self.to_value())
    }
}

fn parse_placements(map: Map<String, Value>) -> Result<Placements, Error> {
    let mut out = Placements::new();
    for (skill, dests) in map {
        if skill.is_empty() || skill.contains('/') || skill == "." || skill == ".." {
            return Err(problem(LockProblem::BadPlacement {
                at: format!("placements.{}", asv_fs::quote::json_string(&skill)),
                what: "does not name one skill directory",
            }));
        }
        let Value::Object(dests) = dests else {
            return Err(problem(LockProblem::BadPlacement {
                at: format!("placements.{skill}"),
                what: "is not an object",
            }));
        };
        let mut by_dest: BTreeMap<String, Placement> = BTreeMap::new();
        for (dest, entry) in dests {
            let at = format!("placements.{skill}.{dest}");
            let bare = dest.strip_suffix('/').unwrap_or(&dest);
            if !crate::manifest::is_safe_relative_path(bare) {
                return Err(problem(LockProblem::BadPlacement {
                    at,
                    what: "is not a path inside the skill",
                }));
            }
            if by_dest.keys().any(|other| {
                crate::manifest::paths_overlap(bare, other.strip_suffix('/').unwrap_or(other))
            }) {
                return Err(problem(LockProblem::BadPlacement {
                    at,
                    what: "is the same as or nests with another placement of the skill",
                }));
            }
            let Value::Object(mut fields) = entry else {
                return Err(problem(LockProblem::BadPlacement {
                    at,
                    what: "is not an object",
                }));
            };
            let contract = fields
                .remove("contract")
                .and_then(|v| v.as_str().and_then(|s| ContractId::parse(s).ok()));
            let digest = fields
                .remove("digest")
                .and_then(|v| v.as_str().and_then(Digest::parse));
            let src = fields
                .remove("src")
                .and_then(|v| v.as_str().map(str::to_owned));
            let (Some(contract), Some(digest), Some(src)) = (contract, digest, src) else {
                return Err(problem(LockProblem::BadPlacement {
                    at,
                    what: "needs a contract id, a sha256 digest and a src",
                }));
            };
            by_dest.insert(
                dest,
                Placement {
                    contract,
                    digest,
                    src,
                },
            );
        }
        out.insert(skill, by_dest);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(c: char) -> String {
        format!("sha256:{}", c.to_string().repeat(64))
    }

    #[test]
    fn round_trip_is_byte_exact() {
        let text = format!(
            "{{\n  \"dependencies\": {{\n    \"a\": [\n      \"x\"\n    ]\n  }},\n  \"resolutions\": {{\n    \"x\": {{\n      \"conformance\": \"{}\",\n      \"digest\": \"{}\"\n    }}\n  }}\n}}\n",
            d('1'),
            d('2')
        );
        let lock = Lock::parse(text.as_bytes()).unwrap();
        assert_eq!(lock.render(), text);
        let with_bom = [b"\xef\xbb\xbf".as_slice(), text.as_bytes()].concat();
        assert_eq!(Lock::parse(&with_bom).unwrap(), lock);
    }

    #[test]
    fn refusals() {
        let rows: &[&str] = &[
            "",
            "not json",
            "[]",
            "{\"resolutions\": {}}",
            "{\"dependencies\": {}}",
            "{\"dependencies\": [], \"resolutions\": {}}",
            "{\"dependencies\": {}, \"resolutions\": {\"x\": {\"digest\": \"sha256:00\"}}}",
            "{\"dependencies\": {}, \"resolutions\": {\"x\": {}}}",
            "{\"dependencies\": {}, \"resolutions\": {\"X\": {\"digest\": \"sha256:00\"}}}",
        ];
        for row in rows {
            assert!(
                matches!(Lock::parse(row.as_bytes()), Err(Error::Lock { .. })),
                "{row}"
            );
        }
    }
}
