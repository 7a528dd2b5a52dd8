//! The state `gen` and `verify` share: declarations joined with each contract's canonical side.

use std::collections::{BTreeMap, BTreeSet};

use crate::error::Result;
use crate::id::ContractId;
use crate::lock::{ContractKind, Lock, Resolution};
use crate::report::Violation;
use crate::repository::{Canonical, Repository};

/// Declarations, the lock and the canonical side of every contract either of them names.
#[derive(Debug)]
pub struct Snapshot {
    /// Declared id → declaring skills (sorted in UTF-16 order).
    pub declared: BTreeMap<ContractId, Vec<String>>,
    /// The lock as read (empty when the file is missing).
    pub lock: Lock,
    /// Id → canonical side, for every declared id and every id the lock resolves.
    pub canonical: BTreeMap<ContractId, Canonical>,
}

impl Snapshot {
    /// Reads the canonical side of every contract the declarations or the lock name.
    ///
    /// # Errors
    /// A canonical text that is not UTF-8; a guarded-read refusal.
    pub fn take(repo: &Repository<'_>) -> Result<Self> {
        let mut declared = repo.declared();
        for skills in declared.values_mut() {
            skills.sort_by(|a, b| crate::digest::cmp_utf16(a, b));
        }
        let lock = repo.lock_file.lock();
        let ids: BTreeSet<&ContractId> = declared.keys().chain(lock.resolutions.keys()).collect();
        let mut canonical = BTreeMap::new();
        for id in ids {
            canonical.insert(id.clone(), repo.canonical(id)?);
        }
        Ok(Snapshot {
            declared,
            lock,
            canonical,
        })
    }

    /// One `closure` violation per declared id whose canonical text is not there.
    pub fn closure(&self) -> Vec<Violation> {
        self.declared
            .iter()
            .filter_map(|(id, skills)| {
                let c = self.canonical.get(id)?;
                c.body.is_none().then(|| Violation::Closure {
                    id: id.clone(),
                    skills: skills.clone(),
                    path: c.path.clone(),
                })
            })
            .collect()
    }

    /// The resolutions the current canonical texts give: every declared or locked id whose
    /// text is there.
    pub fn derived_resolutions(&self) -> BTreeMap<ContractId, Resolution> {
        self.canonical
            .iter()
            .filter_map(|(id, c)| {
                let body = c.body.as_ref()?;
                Some((
                    id.clone(),
                    Resolution {
                        digest: body.digest(),
                        conformance: c.conformance,
                        kind: ContractKind::Document,
                    },
                ))
            })
            .collect()
    }

    /// `dependencies` as the declarations give it: skill → sorted ids, empty skills left out.
    pub fn dependencies(repo: &Repository<'_>) -> BTreeMap<String, Vec<ContractId>> {
        repo.skills
            .iter()
            .filter(|s| !s.declared.is_empty())
            .map(|s| {
                let mut ids = s.declared.clone();
                ids.sort();
                (s.name.clone(), ids)
            })
            .collect()
    }
}
