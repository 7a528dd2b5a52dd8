//! The state `gen` and `verify` share: declarations joined with each contract's canonical side.

use std::collections::{BTreeMap, BTreeSet};

use asv_model::id::ContractId;
use asv_model::source::SourceName;

use crate::error::{Error, Result};
use crate::lock::{ContractKind, Lock, Resolution};
use crate::manifest::Origin;
use crate::raw::RawState;
use crate::report::Violation;
use crate::repository::{Canonical, Repository};

/// A contract cannot change kind in place: a table row and the lock must agree on whether an
/// id is a document or raw bytes.
fn check_kinds(repo: &Repository<'_>, lock: &Lock) -> Result<()> {
    // A declared id without a row is a document at its standard path, as if the table said
    // `source: local` for it.
    let declared: std::collections::BTreeSet<&ContractId> =
        repo.skills.iter().flat_map(|s| s.declared.iter()).collect();
    let local = Origin::Local;
    let mut rows: BTreeMap<&ContractId, &Origin> = repo.manifest.contracts.iter().collect();
    for id in declared {
        rows.entry(id).or_insert(&local);
    }
    for (id, origin) in rows {
        let Some(resolution) = lock.resolutions.get(id) else {
            continue;
        };
        let table = match (origin, resolution.kind) {
            (Origin::Raw(_), ContractKind::Document) => ContractKind::Raw,
            (Origin::Local | Origin::LocalPath(_) | Origin::Remote { .. }, ContractKind::Raw) => {
                ContractKind::Document
            }
            _ => continue,
        };
        return Err(Error::KindChanged {
            id: id.clone(),
            table,
            has_row: repo.manifest.contracts.contains_key(id),
        });
    }
    Ok(())
}

/// A raw src may not sit at, under or over a document contract's conformance directory:
/// tests are collected by prefix, so the two would be confused. Only contracts of this
/// repository are compared (raw srcs are all local; a remote contract's tests are in its
/// source).
fn check_srcs_clear_of_conformance(
    repo: &Repository<'_>,
    canonical: &BTreeMap<ContractId, Canonical>,
) -> Result<()> {
    // Positions are compared within one source: this repository's, or one registered source's.
    let mut positions: Vec<(Option<&str>, ContractId, String)> = canonical
        .iter()
        .map(|(id, c)| {
            (
                c.remote.as_ref().map(|s| s.as_str()),
                id.clone(),
                crate::manifest::conformance_dir(&c.path, id),
            )
        })
        .collect();
    for (id, origin) in &repo.manifest.contracts {
        if canonical.contains_key(id) {
            continue;
        }
        let source = match origin {
            Origin::Local | Origin::LocalPath(_) => None,
            Origin::Remote { source, .. } => Some(source.as_str()),
            Origin::Raw(_) => continue,
        };
        let path = repo.manifest.canonical_path(id);
        positions.push((
            source,
            id.clone(),
            crate::manifest::conformance_dir(&path, id),
        ));
    }
    for (id, origin) in &repo.manifest.contracts {
        let Origin::Raw(row) = origin else { continue };
        let source = row.source.as_ref().map(|s| s.as_str());
        for mapping in &row.mappings {
            for (_, doc, dir) in positions.iter().filter(|(s, _, _)| *s == source) {
                if crate::manifest::paths_overlap(&mapping.src, dir) {
                    return Err(Error::Manifest {
                        line: None,
                        problem: crate::error::ManifestProblem::SrcOverConformance {
                            id: id.clone(),
                            src: mapping.src_key(),
                            dir: dir.clone(),
                            document: doc.clone(),
                        },
                    });
                }
            }
        }
    }
    Ok(())
}

/// Declarations, the lock and the canonical side of every contract either of them names.
#[derive(Debug)]
pub struct Snapshot {
    /// Every declared id ([`Repository::declarers`] names the skills declaring one).
    pub declared: BTreeSet<ContractId>,
    /// The lock as read (empty when the file is missing), shared with the repository.
    pub lock: std::sync::Arc<Lock>,
    /// Id → canonical side of each document contract the declarations or the lock name.
    pub canonical: BTreeMap<ContractId, Canonical>,
    /// Id → what the srcs hold, for each raw-byte contract (a `files` row of the table) the
    /// declarations or the lock name.
    pub raw: BTreeMap<ContractId, RawState>,
}

impl Snapshot {
    /// Reads the canonical side of every contract the declarations or the lock name.
    ///
    /// # Errors
    /// A canonical text that is not UTF-8; a guarded-read refusal.
    pub fn take(repo: &Repository<'_>) -> Result<Self> {
        let declared = repo.declared_ids();
        let lock = repo.lock_file.shared();
        let ids: BTreeSet<&ContractId> = declared.iter().chain(lock.resolutions.keys()).collect();
        check_kinds(repo, &lock)?;
        let mut canonical = BTreeMap::new();
        let mut raw = BTreeMap::new();
        let mut kept_left = super::repository::kept_texts();
        for id in ids {
            match repo.manifest.raw(id) {
                Some(row) => {
                    let pin = row
                        .source
                        .as_ref()
                        .and_then(|s| lock.sources.get(s.as_str()))
                        .map(|p| p.revision.as_str().to_owned());
                    raw.insert(
                        id.clone(),
                        crate::raw::read(
                            repo.root,
                            id,
                            row,
                            &repo.manifest.ignore,
                            pin.as_deref(),
                        )?,
                    );
                }
                None => {
                    let mut read = repo.canonical(id)?;
                    if let Some(super::repository::Text::Held(body)) = &read.body {
                        let len = body.as_str().len();
                        if len > kept_left {
                            read.body = Some(super::repository::Text::Digested(body.digest()));
                        } else {
                            kept_left -= len;
                        }
                    }
                    canonical.insert(id.clone(), read);
                }
            }
        }
        check_srcs_clear_of_conformance(repo, &canonical)?;
        Ok(Snapshot {
            declared,
            lock,
            canonical,
            raw,
        })
    }

    /// One `closure` violation per declared id whose canonical side is not there: document
    /// contracts first, then raw-byte ones, each by id. A contract from another repository is
    /// never a closure gap: without its text in the cache, what is missing is a fetch.
    pub fn closure(&self, repo: &Repository<'_>) -> Vec<Violation> {
        let documents = self.declared.iter().filter_map(|id| {
            let c = self.canonical.get(id)?;
            (c.body.is_none() && c.remote.is_none()).then(|| Violation::Closure {
                id: id.clone(),
                skills: repo.declarers(id),
                path: c.path.clone(),
            })
        });
        let raw = self
            .declared
            .iter()
            .filter_map(|id| match self.raw.get(id)? {
                RawState::Absent { src } => Some(Violation::Closure {
                    id: id.clone(),
                    skills: repo.declarers(id),
                    path: src.clone(),
                }),
                RawState::Present { .. } | RawState::NotHeld { .. } => None,
            });
        documents.chain(raw).collect()
    }

    /// The resolutions the current canonical texts give: every declared or locked id whose
    /// text is there.
    pub fn derived_resolutions(&self) -> BTreeMap<ContractId, Resolution> {
        let documents = self.canonical.iter().filter_map(|(id, c)| {
            let body = c.body.as_ref()?;
            Some((
                id.clone(),
                Resolution {
                    digest: body.digest(),
                    conformance: c.conformance,
                    kind: ContractKind::Document,
                },
            ))
        });
        let raw = self.raw.iter().filter_map(|(id, state)| match state {
            RawState::Present { digest, .. } => Some((
                id.clone(),
                Resolution {
                    digest: *digest,
                    conformance: None,
                    kind: ContractKind::Raw,
                },
            )),
            RawState::Absent { .. } | RawState::NotHeld { .. } => None,
        });
        documents.chain(raw).collect()
    }

    /// Whether the canonical side of `id` (text or srcs) is there now.
    pub fn is_located(&self, id: &ContractId) -> bool {
        self.canonical.get(id).is_some_and(|c| c.body.is_some())
            || matches!(self.raw.get(id), Some(RawState::Present { .. }))
    }

    /// Whether the lock, rendered from this tree, keeps a recorded resolution of `id`: its
    /// canonical side is there, or it comes from another repository (whose row, not the
    /// cache, accounts for it: a clean checkout holds no cache).
    pub fn keeps_resolution(&self, id: &ContractId) -> bool {
        self.is_located(id)
            || self.canonical.get(id).is_some_and(|c| c.remote.is_some())
            || matches!(self.raw.get(id), Some(RawState::NotHeld { .. }))
    }

    /// The declared contracts from other repositories whose text is not known here (no pin
    /// for their source, or no text in the cache), by id, each with its source.
    pub fn remote_unknown(&self) -> Vec<(ContractId, SourceName)> {
        self.declared
            .iter()
            .filter_map(|id| {
                let c = self.canonical.get(id)?;
                let source = c.remote.as_ref()?;
                c.body.is_none().then(|| (id.clone(), source.clone()))
            })
            .collect()
    }

    /// The declared raw-byte contracts from other repositories whose files the cache does not
    /// hold, by id, each with its source.
    pub fn raw_unknown(
        &self,
        manifest: &crate::manifest::Manifest,
    ) -> Vec<(ContractId, SourceName)> {
        self.declared
            .iter()
            .filter_map(|id| match self.raw.get(id)? {
                RawState::NotHeld { .. } => manifest
                    .raw(id)
                    .and_then(|row| row.source.clone())
                    .map(|s| (id.clone(), s)),
                _ => None,
            })
            .collect()
    }
}
