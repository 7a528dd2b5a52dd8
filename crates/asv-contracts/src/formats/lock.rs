//! `vendor-lock.json`: what the tool recorded, and its exact rendering.

use std::collections::BTreeMap;

use asv_model::id::ContractId;
use asv_model::source::{ObjectFormat, RepositorySpec, Revision};
use serde_json::{Map, Value};

use crate::digest::Digest;
use crate::error::{Error, LockProblem, PinProblem};
use crate::json;
use crate::manifest::Manifest;

/// The lock's file name, at the repository root.
pub const LOCK_FILE: &str = asv_model::layout::CONTRACT_LOCK;

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

/// The commit one source is pinned at, and the repository it was resolved from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourcePin {
    /// The repository the pin was resolved from (rendered from the table's registration).
    pub repository: RepositorySpec,
    /// The commit id; its format decides whether `"objectFormat": "sha256"` is written.
    pub revision: Revision,
}

/// Source name → pin, as the lock's `sources` records them.
///
/// The names are kept as the lock spells them: only pins whose name the table registers are
/// ever acted on or rendered back, and the table's names are checked there.
pub type SourcePins = BTreeMap<String, SourcePin>;

/// A source whose pin names another repository than the table registers it at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DivergentSource {
    /// The source name.
    pub name: String,
    /// The repository the lock pins it to.
    pub pinned: RepositorySpec,
    /// The repository the table registers it at.
    pub registered: RepositorySpec,
}

/// The parsed lock.
///
/// `sources` is written by the fetching commands; `gen` and `verify` render back the pins whose
/// source the table still registers (see [`Lock::registered_sources`]). `placements` is written
/// by `gen` alone and carried unchanged by every other command.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lock {
    /// Skill name → the ids it declares, sorted.
    pub dependencies: BTreeMap<String, Vec<ContractId>>,
    /// Id → resolution.
    pub resolutions: BTreeMap<ContractId, Resolution>,
    /// Source name → pin (`sources`, absent from the text when empty).
    pub sources: SourcePins,
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
        // serde_json keeps the last of two equal keys; the lock travels through pull requests,
        // so a key given twice (an entry a reviewer reads, shadowed by one acted on) is
        // refused (issue 27 §3). Valid locks, which the TypeScript tool writes and reads
        // alike, hold no such key.
        if let Some(twice) = asv_model::json::duplicate_key(text) {
            return Err(problem(LockProblem::DuplicateKey {
                line: twice.line,
                path: twice.path,
            }));
        }
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
            Some(Value::Object(m)) => parse_sources(m)?,
            None => SourcePins::new(),
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
            // The keys name skill directories that verify and gen look at, so one that is not
            // a plain name (`../../etc`) is refused before any path is built from it.
            if !is_skill_name(&skill) {
                return Err(problem(LockProblem::BadDependency(skill)));
            }
            let mut list: Vec<ContractId> = match ids {
                Value::Array(items) => items
                    .iter()
                    .filter_map(|i| i.as_str().and_then(|s| ContractId::parse(s).ok()))
                    .collect(),
                _ => Vec::new(),
            };
            // Sorted and deduplicated as `render` writes them, so the field holds what its doc
            // says and a lock read back from its own text is the lock that wrote it.
            list.sort_by(|a, b| crate::digest::cmp_utf16(a.as_str(), b.as_str()));
            list.dedup();
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
            sources,
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
            let sorted = sorted_ids(ids);
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
        root.insert("resolutions".into(), resolutions_value(&self.resolutions));
        if !self.sources.is_empty() {
            root.insert("sources".into(), sources_value(&self.sources));
        }
        if let Some(placements) = placements_value(&self.placements) {
            root.insert("placements".into(), placements);
        }
        Value::Object(root)
    }

    /// The lock's exact text: 2-space JSON, keys in UTF-16 order, one trailing LF.
    ///
    /// It cannot fail: [`LockView::write`] writes into a `String` itself, with no serializer
    /// that could refuse it.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.view(&self.dependencies_list()).write(&mut out);
        out
    }

    /// `dependencies` as the borrowed list a [`LockView`] takes.
    pub fn dependencies_list(&self) -> Vec<(&str, &[ContractId])> {
        self.dependencies
            .iter()
            .map(|(skill, ids)| (skill.as_str(), ids.as_slice()))
            .collect()
    }

    /// This lock seen through `dependencies` (usually [`Lock::dependencies_list`]).
    pub fn view<'a>(&'a self, dependencies: &'a [(&'a str, &'a [ContractId])]) -> LockView<'a> {
        LockView {
            dependencies,
            resolutions: &self.resolutions,
            sources: &self.sources,
            placements: &self.placements,
        }
    }

    /// The pins whose source `manifest` still registers, each with the repository the table
    /// registers (the table is the authority over which repository a source is; the lock
    /// only over which commit was resolved from it). This is what `gen` and `verify` render.
    pub fn registered_sources(&self, manifest: &Manifest) -> SourcePins {
        self.sources
            .iter()
            .filter_map(|(name, pin)| {
                let entry = manifest.sources.get(name.as_str())?;
                Some((
                    name.clone(),
                    SourcePin {
                        repository: entry.repository.clone(),
                        revision: pin.revision.clone(),
                    },
                ))
            })
            .collect()
    }

    /// The pins naming another repository than `manifest` registers their source at, sorted
    /// by name. A pin whose source the table no longer registers is not one of them (the
    /// rendering drops it whole).
    pub fn divergent_sources(&self, manifest: &Manifest) -> Vec<DivergentSource> {
        self.sources
            .iter()
            .filter_map(|(name, pin)| {
                let entry = manifest.sources.get(name.as_str())?;
                (entry.repository.as_str() != pin.repository.as_str()).then(|| DivergentSource {
                    name: name.clone(),
                    pinned: pin.repository.clone(),
                    registered: entry.repository.clone(),
                })
            })
            .collect()
    }
}

fn parse_sources(map: Map<String, Value>) -> Result<SourcePins, Error> {
    let mut out = SourcePins::new();
    for (name, entry) in map {
        let Value::Object(mut fields) = entry else {
            return Err(problem(LockProblem::BadSource {
                name,
                problem: PinProblem::NotObject,
            }));
        };
        let bad = |pin: PinProblem| {
            problem(LockProblem::BadSource {
                name: name.clone(),
                problem: pin,
            })
        };
        let format = match fields.remove("objectFormat") {
            None => ObjectFormat::Sha1,
            Some(Value::String(s)) if s == "sha256" => ObjectFormat::Sha256,
            Some(_) => return Err(bad(PinProblem::ObjectFormat)),
        };
        let repository = match fields.remove("repository") {
            Some(Value::String(text)) => {
                RepositorySpec::parse(&text).map_err(|p| bad(PinProblem::Repository(p)))?
            }
            _ => return Err(bad(PinProblem::NoRepository)),
        };
        let revision = match fields.remove("revision") {
            Some(Value::String(text)) => Revision::parse(&text, format),
            _ => None,
        };
        let Some(revision) = revision else {
            return Err(bad(PinProblem::Revision(format)));
        };
        out.insert(
            name,
            SourcePin {
                repository,
                revision,
            },
        );
    }
    Ok(out)
}

/// Whether a lock key names one directory directly under `skills/`: not empty, not `.`,
/// `..` or `.git` (in any case), no `/` and no NUL. Both `dependencies` and `placements`
/// keys are judged by it before any path is built from them. (A backslash is an ordinary
/// character of a skill directory's name on the hosts the TypeScript tool runs on, which
/// reads such a lock; it is no separator here.)
fn is_skill_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !asv_model::layout::is_git_dir_name(name)
        && !name.contains(['/', '\0'])
}

/// Whether a placement's dest (its trailing `/` taken off) is a path inside the skill: a
/// plain relative path ([`crate::manifest::is_safe_relative_path`]) with no `.git` segment in
/// any case, so a crafted lock cannot have `gen` judge, replace or remove a git directory.
fn is_placement_dest(dest: &str) -> bool {
    crate::manifest::is_safe_relative_path(dest)
        && !dest.split('/').any(asv_model::layout::is_git_dir_name)
}

fn parse_placements(map: Map<String, Value>) -> Result<Placements, Error> {
    let mut out = Placements::new();
    for (skill, dests) in map {
        if !is_skill_name(&skill) {
            return Err(problem(LockProblem::BadPlacement {
                at: format!("placements.{}", asv_error::quote::json_string(&skill)),
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
            if !is_placement_dest(bare) {
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

/// A lock's ids as written: sorted in UTF-16 order, each once.
fn sorted_ids(ids: &[ContractId]) -> Vec<&str> {
    let mut sorted: Vec<&str> = ids.iter().map(ContractId::as_str).collect();
    sorted.sort_by(|a, b| crate::digest::cmp_utf16(a, b));
    sorted.dedup();
    sorted
}

fn resolutions_value(resolutions: &BTreeMap<ContractId, Resolution>) -> Value {
    let mut res = Map::new();
    for (id, r) in resolutions {
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
    Value::Object(res)
}

fn sources_value(pins: &SourcePins) -> Value {
    let mut sources = Map::new();
    for (name, pin) in pins {
        let mut entry = Map::new();
        if pin.revision.format() == ObjectFormat::Sha256 {
            entry.insert("objectFormat".into(), Value::String("sha256".into()));
        }
        entry.insert(
            "repository".into(),
            Value::String(pin.repository.as_str().to_owned()),
        );
        entry.insert(
            "revision".into(),
            Value::String(pin.revision.as_str().to_owned()),
        );
        sources.insert(name.clone(), Value::Object(entry));
    }
    Value::Object(sources)
}

/// `placements` as a value, or `None` when no skill has one (the key is then left out).
fn placements_value(placements: &Placements) -> Option<Value> {
    let mut out = Map::new();
    for (skill, dests) in placements {
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
        out.insert(skill.clone(), Value::Object(by_dest));
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

/// A lock to render, borrowed. `dependencies` is a plain list so that `verify` can render the
/// lock its declarations give straight from the skills it read, with no second copy of every
/// skill's ids (at 100,000 skills that copy, its JSON value and its text were most of the
/// memory `verify` took).
#[derive(Debug, Clone, Copy)]
pub struct LockView<'a> {
    /// Skill name → the ids it declares, in any order; a skill with none is left out.
    pub dependencies: &'a [(&'a str, &'a [ContractId])],
    /// Id → resolution.
    pub resolutions: &'a BTreeMap<ContractId, Resolution>,
    /// Source name → pin.
    pub sources: &'a SourcePins,
    /// What `gen` placed where.
    pub placements: &'a Placements,
}

impl LockView<'_> {
    /// Writes the lock's exact text into `out`: what [`json::render`] writes for
    /// [`Lock::to_value`], with `dependencies` written directly, one skill at a time.
    pub fn write(&self, out: &mut impl json::Sink) {
        let mut parts: Vec<(&str, Option<Value>)> = vec![
            ("dependencies", None),
            ("resolutions", Some(resolutions_value(self.resolutions))),
        ];
        if !self.sources.is_empty() {
            parts.push(("sources", Some(sources_value(self.sources))));
        }
        if let Some(placements) = placements_value(self.placements) {
            parts.push(("placements", Some(placements)));
        }
        parts.sort_by(|a, b| json::js_property_order(a.0, b.0));
        out.put("{\n");
        for (i, (key, value)) in parts.iter().enumerate() {
            json::indent(out, 1);
            out.put(&asv_error::quote::json_string(key));
            out.put(": ");
            match value {
                Some(value) => json::write_value(out, value, 1),
                None => self.write_dependencies(out),
            }
            if i + 1 < parts.len() {
                out.put(",");
            }
            out.put("\n");
        }
        out.put("}\n");
    }

    /// The `dependencies` object at the second level, as `json::write_value` writes an
    /// object of arrays of strings.
    fn write_dependencies(&self, out: &mut impl json::Sink) {
        let mut entries: Vec<&(&str, &[ContractId])> = self
            .dependencies
            .iter()
            .filter(|(_, ids)| !ids.is_empty())
            .collect();
        if entries.is_empty() {
            out.put("{}");
            return;
        }
        entries.sort_by(|a, b| json::js_property_order(a.0, b.0));
        out.put("{\n");
        for (i, (skill, ids)) in entries.iter().enumerate() {
            json::indent(out, 2);
            out.put(&asv_error::quote::json_string(skill));
            out.put(": [\n");
            let sorted = sorted_ids(ids);
            for (j, id) in sorted.iter().enumerate() {
                json::indent(out, 3);
                out.put(&asv_error::quote::json_string(id));
                if j + 1 < sorted.len() {
                    out.put(",");
                }
                out.put("\n");
            }
            json::indent(out, 2);
            out.put("]");
            if i + 1 < entries.len() {
                out.put(",");
            }
            out.put("\n");
        }
        json::indent(out, 1);
        out.put("}");
    }
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

    /// Found by the `contract_lock` fuzz target (fuzz/README.md): a skill's ids were kept in
    /// the order written, while `render` sorts and deduplicates them, so a lock read back from
    /// its own text differed from the lock that wrote it, and the field broke its doc.
    #[test]
    fn declared_ids_read_sorted_and_once() {
        let text = format!(
            "{{\"dependencies\": {{\"a\": [\"writing-style\", \"review\", \"not an id\", \"review\"]}}, \"resolutions\": {{\"review\": {{\"digest\": \"{}\"}}}}}}",
            d('1')
        );
        let lock = Lock::parse(text.as_bytes()).unwrap();
        let ids: Vec<&str> = lock.dependencies["a"].iter().map(|i| i.as_str()).collect();
        assert_eq!(ids, ["review", "writing-style"]);
        assert_eq!(Lock::parse(lock.render().as_bytes()).unwrap(), lock);
    }

    const SHA1: &str = "9f1b7c2d4e5a60718293a4b5c6d7e8f90a1b2c3d";
    const SHA256: &str = "0db72a1f69edeaabea98e6cb01de7218947c0dc6390800d38edf9270a7c88986";

    #[test]
    fn direct_rendering_is_the_value_rendering() {
        let digest = d('a');
        let text = format!(
            "{{\"dependencies\": {{\"b\": [\"z\", \"a\", \"a\"], \"10\": [\"x\"], \"2\": [\"y\"], \"01\": [\"w\"], \"none\": [], \"é\": [\"q\"]}}, \"resolutions\": {{\"a\": {{\"digest\": \"{digest}\", \"kind\": \"raw\"}}, \"9\": {{\"digest\": \"{digest}\", \"conformance\": \"{digest}\"}}}}, \"sources\": {{\"w\": {{\"repository\": \"o/r\", \"revision\": \"{SHA1}\"}}}}, \"placements\": {{\"b\": {{\"x/y\": {{\"contract\": \"a\", \"digest\": \"{digest}\", \"src\": \"s\"}}}}, \"c\": {{}}}}}}"
        );
        let lock = Lock::parse(text.as_bytes()).unwrap();
        let rendered = lock.render();
        assert_eq!(rendered, json::render(&lock.to_value()));
        assert!(rendered.contains("\"2\": [\n      \"y\"\n    ],\n    \"10\""));
        let deps = lock.dependencies_list();
        let mut same = json::Compare::new(rendered.as_bytes());
        lock.view(&deps).write(&mut same);
        assert!(same.matched());
        // One byte more, one byte less, one byte other: each is a difference.
        for other in [
            format!("{rendered} "),
            rendered[..rendered.len() - 1].to_owned(),
            rendered.replacen('y', "Y", 1),
        ] {
            let mut c = json::Compare::new(other.as_bytes());
            lock.view(&deps).write(&mut c);
            assert!(!c.matched(), "{other}");
        }
    }

    fn with_sources(sources: &str) -> String {
        format!(
            "{{\n  \"dependencies\": {{}},\n  \"resolutions\": {{}},\n  \"sources\": {sources}\n}}\n"
        )
    }

    #[test]
    fn sources_round_trip() {
        let text = with_sources(&format!(
            "{{\n    \"g\": {{\n      \"objectFormat\": \"sha256\",\n      \"repository\": \"ssh://git@example.com/team/g.git\",\n      \"revision\": \"{SHA256}\"\n    }},\n    \"workflow\": {{\n      \"repository\": \"ba0918/agentic-workflow\",\n      \"revision\": \"{SHA1}\"\n    }}\n  }}"
        ));
        let lock = Lock::parse(text.as_bytes()).unwrap();
        assert_eq!(lock.render(), text);
        let pin = &lock.sources["g"];
        assert_eq!(pin.revision.format(), ObjectFormat::Sha256);
        assert_eq!(pin.repository.as_str(), "ssh://git@example.com/team/g.git");
        assert_eq!(lock.sources["workflow"].revision.as_str(), SHA1);
        // An empty object reads as no sources and is not written back.
        let empty = Lock::parse(with_sources("{}").as_bytes()).unwrap();
        assert!(empty.sources.is_empty());
        assert_eq!(
            empty.render(),
            "{\n  \"dependencies\": {},\n  \"resolutions\": {}\n}\n"
        );
    }

    #[test]
    fn source_refusals() {
        let entry = |body: &str| with_sources(&format!("{{\"w\": {body}}}"));
        let rows: Vec<(String, &str)> = vec![
            (with_sources("[]"), "\"sources\" is not an object"),
            (entry("1"), "sources.w is not an object"),
            (
                entry(&format!(
                    "{{\"repository\": \"o/r\", \"revision\": \"{SHA256}\"}}"
                )),
                "sources.w.revision is not a commit id of 40 lowercase hex digits",
            ),
            (
                entry(&format!(
                    "{{\"objectFormat\": \"sha256\", \"repository\": \"o/r\", \"revision\": \"{SHA1}\"}}"
                )),
                "sources.w.revision is not a commit id of 64 lowercase hex digits",
            ),
            (
                entry(&format!(
                    "{{\"objectFormat\": \"sha1\", \"repository\": \"o/r\", \"revision\": \"{SHA1}\"}}"
                )),
                "sources.w.objectFormat is not \"sha256\"",
            ),
            (
                entry(&format!(
                    "{{\"repository\": \"o/r\", \"revision\": \"{}\"}}",
                    SHA1.to_uppercase()
                )),
                "sources.w.revision",
            ),
            (entry("{\"repository\": \"o/r\"}"), "sources.w.revision"),
            (
                entry(&format!("{{\"revision\": \"{SHA1}\"}}")),
                "sources.w.repository is missing or not text",
            ),
            (
                entry(&format!(
                    "{{\"repository\": \"file:///tmp/r\", \"revision\": \"{SHA1}\"}}"
                )),
                "sources.w.repository is not usable: local paths",
            ),
            (
                entry(&format!(
                    "{{\"repository\": \"https://u:fake-secret-marker@h.example/r\", \"revision\": \"{SHA1}\"}}"
                )),
                "sources.w.repository is not usable: an https:// URL",
            ),
        ];
        for (text, expected) in rows {
            let err = Lock::parse(text.as_bytes()).unwrap_err().to_string();
            assert!(err.starts_with("vendor-lock.json: "), "{err}");
            assert!(err.contains(expected), "{text}: {err}");
            assert!(!err.contains("fake-secret-marker"), "{err}");
        }
    }

    #[test]
    fn registered_and_divergent_sources() {
        let lock = Lock::parse(
            with_sources(&format!(
                "{{\"a\": {{\"repository\": \"o/a\", \"revision\": \"{SHA1}\"}}, \"b\": {{\"repository\": \"o/b\", \"revision\": \"{SHA1}\"}}, \"gone\": {{\"repository\": \"o/g\", \"revision\": \"{SHA1}\"}}}}"
            ))
            .as_bytes(),
        )
        .unwrap();
        let manifest = Manifest::parse(
            "sources:\n  a: {repository: o/a, ref: main}\n  b: {repository: o/moved, ref: main}\n  new: {repository: o/n, ref: main}\n",
        )
        .unwrap();
        let kept = lock.registered_sources(&manifest);
        assert_eq!(kept.keys().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(kept["b"].repository.as_str(), "o/moved");
        assert_eq!(kept["b"].revision.as_str(), SHA1);
        let divergent = lock.divergent_sources(&manifest);
        assert_eq!(divergent.len(), 1);
        assert_eq!(divergent[0].name, "b");
        assert_eq!(divergent[0].pinned.as_str(), "o/b");
        assert_eq!(divergent[0].registered.as_str(), "o/moved");
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
            "{\"dependencies\": {\"../../../../etc/passwd\": []}, \"resolutions\": {}}",
            "{\"dependencies\": {\"..\": []}, \"resolutions\": {}}",
            "{\"dependencies\": {\"\": []}, \"resolutions\": {}}",
            "{\"dependencies\": {\"a\\u0000b\": []}, \"resolutions\": {}}",
            "{\"dependencies\": {\".git\": []}, \"resolutions\": {}}",
        ];
        for row in rows {
            assert!(
                matches!(Lock::parse(row.as_bytes()), Err(Error::Lock { .. })),
                "{row}"
            );
        }
    }
}

#[cfg(test)]
mod hostile {
    //! Issue 27 §3: a crafted `vendor-lock.json` names nothing outside a skill, no `.git`, and
    //! no entry twice.
    use super::*;

    const DIGEST: &str = "sha256:17f99ce24157f2824815f5ab1b8bda6f297e28e2f6edf187ce18fe0bb4274a51";

    fn with_placements(placements: &str) -> String {
        format!(
            "{{\n  \"dependencies\": {{}},\n  \"resolutions\": {{}},\n  \"placements\": {placements}\n}}\n"
        )
    }

    fn placement(skill: &str, dest: &str) -> String {
        with_placements(&format!(
            "{{\n    {}: {{\n      {}: {{\n        \"contract\": \"c\",\n        \"digest\": \"{DIGEST}\",\n        \"src\": \"x\"\n      }}\n    }}\n  }}",
            serde_json::to_string(skill).unwrap(),
            serde_json::to_string(dest).unwrap()
        ))
    }

    fn refused(text: &str) -> LockProblem {
        match Lock::parse(text.as_bytes()) {
            Err(Error::Lock { problem }) => problem,
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn placements_stay_inside_their_skill() {
        assert!(Lock::parse(placement("a", "docs/x.md").as_bytes()).is_ok());
        assert!(Lock::parse(placement("a", "docs/").as_bytes()).is_ok());
        assert!(Lock::parse(placement("a", ".github/x").as_bytes()).is_ok());
        // A backslash is part of a skill directory's name, as the TypeScript tool reads it.
        assert!(Lock::parse(placement("back\\slash", "x").as_bytes()).is_ok());
        for dest in [
            "..",
            "../x",
            "../",
            "/etc/passwd",
            "",
            "a//b",
            "./a",
            ".git",
            ".GIT/config",
            "a/.git/",
            "a\\b",
        ] {
            let problem = refused(&placement("a", dest));
            assert!(
                matches!(
                    &problem,
                    LockProblem::BadPlacement {
                        what: "is not a path inside the skill",
                        ..
                    }
                ),
                "{dest:?}: {problem:?}"
            );
        }
        for skill in ["..", ".", ".git", ".Git", "", "a/b"] {
            let problem = refused(&placement(skill, "x"));
            assert!(
                matches!(
                    &problem,
                    LockProblem::BadPlacement {
                        what: "does not name one skill directory",
                        ..
                    }
                ),
                "{skill:?}: {problem:?}"
            );
        }
    }

    #[test]
    fn a_key_given_twice_is_refused_with_its_line() {
        let one = placement("a", "x");
        let entry_at = one.find("      \"x\"").unwrap();
        let entry_end = one.find("\n    }\n  }").unwrap();
        let entry = &one[entry_at..entry_end];
        let twice = format!("{},\n{entry}{}", &one[..entry_end], &one[entry_end..]);
        let problem = refused(&twice);
        assert_eq!(
            problem,
            LockProblem::DuplicateKey {
                line: 11,
                path: vec!["placements".into(), "a".into(), "x".into()],
            },
            "{twice}"
        );
        assert_eq!(
            problem.to_string(),
            "line 11: the key \"x\" appears twice in placements.a"
        );
        let top = "{\"dependencies\": {}, \"resolutions\": {},\n\"resolutions\": {}}";
        assert_eq!(
            refused(top),
            LockProblem::DuplicateKey {
                line: 2,
                path: vec!["resolutions".into()],
            }
        );
        let deps = "{\"dependencies\": {\"a\": [], \"a\": []}, \"resolutions\": {}}";
        assert!(matches!(refused(deps), LockProblem::DuplicateKey { .. }));
    }
}
