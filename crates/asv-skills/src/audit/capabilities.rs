//! What an update of an imported skill changes in what it can do (issue 32 §3), and the
//! capability digest the lock records of each base.
//!
//! Both sides of the comparison are upstream versions: the base the lock was last taken from
//! and the version an update would take. The local copy's own edits are the team's and are
//! not in it, so the diff shows what the source changed, whatever was edited here.

use asv_audit::CapabilityDiff;
use asv_fs::Root;
use asv_skilltree::SkillTree;

use crate::bases::kept_base;
use crate::error::Error;
use crate::lock::Entry;
use crate::sources::Sources;
use crate::upstream::{At, Source, base_of, take_in};

/// The capability digest of `tree` ([`asv_audit::Capabilities::digest`] of its audit): what
/// the lock records of a base.
///
/// # Errors
/// A file the read left on disk that changed since.
pub fn digest_of(tree: &SkillTree) -> Result<String, Error> {
    Ok(super::audit_tree(tree)?.capabilities.digest())
}

/// The capability diff from `old` to `new`, each audited whole.
///
/// # Errors
/// A file either read left on disk that changed since.
pub fn between(old: &SkillTree, new: &SkillTree) -> Result<CapabilityDiff, Error> {
    Ok(CapabilityDiff::between(
        &super::audit_tree(old)?,
        &super::audit_tree(new)?,
    ))
}

/// What moving imported skill `name` from its base to upstream's commit `now` (for a local
/// directory read as it stands, the directory now) changes in what it can do; `None` when the
/// base can no longer be had (a local directory's kept base gone) or upstream no longer holds
/// the skill. Writes nothing: a base read again from its source is not kept.
///
/// # Errors
/// As [`crate::upstream::take`] for either read; [`Error::BaseMismatch`] for a source whose
/// pinned revision no longer hashes as recorded.
pub(crate) fn update_of(
    root: &Root,
    name: &str,
    entry: &Entry,
    now: &str,
    sources: &Sources<'_>,
) -> Result<Option<CapabilityDiff>, Error> {
    let base = match base_of(
        root,
        name,
        entry,
        kept_base(root, &entry.base_hash)?,
        sources,
    ) {
        Ok((base, _)) => base,
        Err(Error::BaseUnavailable { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    let source = Source::parse(&entry.source)?;
    let at = match (&source, &entry.reference) {
        (Source::Local(_), None) => At::Now,
        _ => At::Revision(now),
    };
    let upstream = match take_in(root, &source, &entry.path, at, sources) {
        Ok(taken) => taken.tree,
        Err(Error::NotInSource { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    between(&base, &upstream).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use asv_skilltree::FileNode;

    fn tree(files: &[(&str, &str, bool)]) -> SkillTree {
        SkillTree::from_files(
            files
                .iter()
                .map(|(p, d, x)| FileNode {
                    path: (*p).to_owned(),
                    data: d.as_bytes().to_vec().into(),
                    executable: *x,
                })
                .collect(),
        )
        .unwrap()
    }

    #[test]
    fn the_digest_follows_what_the_skill_can_do_not_its_prose() {
        let md = |body: &str| format!("---\nname: x\ndescription: X.\n---\n{body}\n");
        let a = tree(&[("SKILL.md", &md("Reads files."), false)]);
        let b = tree(&[("SKILL.md", &md("Reads files with care."), false)]);
        let c = tree(&[("SKILL.md", &md("Reads https://x.dev/f files."), false)]);
        assert_eq!(digest_of(&a).unwrap(), digest_of(&b).unwrap());
        assert_ne!(digest_of(&a).unwrap(), digest_of(&c).unwrap());
        assert!(crate::lock::is_tree_hash(&digest_of(&a).unwrap()));
        assert!(between(&a, &c).unwrap().widens());
        assert!(!between(&a, &b).unwrap().widens());
    }
}
