//! `skill resolve`: a conflicted pull finished by hand, once no file holds a conflict marker.

use asv_fs::{Plan, WriterLock};
use asv_skilltree::SkillTree;

use crate::error::{Error, Remedy};
use crate::lock::{SkillLock, lock_changes};
use crate::paths::skill_dir;
use crate::upstream::require_imported;
use crate::validate::refuse_errors;
use crate::{Profile, validate_tree_as};

/// Whether `data` holds a conflict marker line (`<<<<<<<`, `|||||||` or `>>>>>>>` opening a
/// line, followed by a space or the line's end).
pub fn has_conflict_markers(data: &[u8]) -> bool {
    data.split(|&b| b == b'\n').any(|line| {
        [b"<<<<<<<", b"|||||||", b">>>>>>>"].iter().any(|m| {
            line.strip_prefix(&m[..])
                .is_some_and(|rest| rest.is_empty() || rest[0] == b' ' || rest == b"\r")
        })
    })
}

/// What `skill resolve` recorded, and what it kept that the two sides disagreed on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The upstream revision recorded as the new base.
    pub revision: String,
    /// Files upstream deleted that the resolved copy still holds (paths in the skill).
    pub kept_though_deleted_upstream: Vec<String>,
    /// Files upstream changed that the resolved copy no longer holds.
    pub gone_though_changed_upstream: Vec<String>,
}

/// `skill resolve`: records the upstream version a conflicted pull merged as the new base,
/// once no file holds a conflict marker and the skill is valid.
///
/// # Errors
/// [`Error::Lock`]; [`Error::NotImported`]; [`Error::LinkedSkill`] for a skill directory that
/// is a symbolic link; [`Error::NotConflicted`];
/// [`Error::MissingImported`] for a skill whose directory is gone; [`Error::MarkersRemain`] naming the first file with
/// markers; [`Error::Invalid`]; a guarded-read or write failure.
pub fn resolve(root: &WriterLock<'_>, name: &str) -> Result<Resolved, Error> {
    let mut lock = SkillLock::load(root)?;
    let entry = lock.entry(name)?.clone();
    // A link is said first, as every other command says it.
    crate::paths::refuse_linked_skill(root, &skill_dir(name))?;
    let Some(pending) = entry.pending.clone() else {
        return Err(Error::NotConflicted {
            name: name.to_owned(),
        });
    };
    let dir = require_imported(root, name, &entry)?;
    let local = SkillTree::read(root, &dir)?;
    // One file at a time: files the read left on disk are read again to be searched.
    for f in local.files() {
        if has_conflict_markers(&f.data.read()?) {
            return Err(Error::MarkersRemain {
                path: format!("{dir}/{}", f.path),
            });
        }
    }
    // Judged as a pull judges what it takes: the result holds upstream's text, which may break
    // a rule agents do not enforce (a long description), and must not stay unresolvable.
    refuse_errors(
        validate_tree_as(&local, &dir, Profile::Consumer)?,
        Remedy::FixLocal,
    )?;
    // What the user settled a delete/modify to, said back: the old base against upstream and
    // the resolved copy (when both bases are still kept; a fresh clone may have neither).
    let (mut kept, mut gone) = (Vec::new(), Vec::new());
    if let (Some(base), Some(upstream)) = (
        crate::bases::kept_base(root, &entry.base_hash)?,
        crate::bases::kept_base(root, &pending.base_hash)?,
    ) {
        for b in base.files() {
            match (upstream.get(&b.path), local.get(&b.path)) {
                (None, Some(_)) => kept.push(b.path.clone()),
                (Some(u), None)
                    if u.data.sha256() != b.data.sha256() || u.executable != b.executable =>
                {
                    gone.push(b.path.clone());
                }
                _ => {}
            }
        }
    }
    let loaded = lock.clone();
    if let Some(e) = lock.skills.get_mut(name) {
        e.revision = pending.revision.clone();
        e.base_hash = pending.base_hash;
        e.capabilities = pending.capabilities;
        e.pending = None;
        // The signer of the commit a pull was merging is the pin's now.
        if pending.signer.is_some() {
            e.signer = pending.signer;
        }
    }
    // The base the conflicted pull merged from goes once nothing else refers to it.
    root.apply(Plan::new(root, lock_changes(root, &loaded, &lock)?)?)?;
    Ok(Resolved {
        revision: pending.revision,
        kept_though_deleted_upstream: kept,
        gone_though_changed_upstream: gone,
    })
}
