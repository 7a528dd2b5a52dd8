//! Kept bases: the upstream version each imported skill was taken at, kept under
//! `.agentic-skill-vendor/skill-bases/` by its tree hash (a directory and, beside it, its
//! digest list), so a pull can merge from it without reaching the source again.
//!
//! A kept base is never written in place: a new one is placed whole (its files shared with
//! another kept base may be hard links of that base's), and one no lock entry refers to any
//! more goes in the same transaction as the lock change that dropped it.

use std::sync::atomic::AtomicBool;

use asv_fs::{Change, Ownership, Plan, Root, WriterLock};
use asv_skilltree::SkillTree;

use crate::error::Error;
use crate::placing::{fill_linking, fill_of};

pub use asv_model::layout::SKILL_BASES_DIR as BASES_DIR;

/// Where the base with tree hash `hash` is kept.
pub fn base_dir(hash: &str) -> String {
    format!(
        "{BASES_DIR}/{}",
        hash.strip_prefix("sha256:").unwrap_or(hash)
    )
}

/// Where the digest list of the base with tree hash `hash` is kept, beside its directory
/// ([`SkillTree::digest_list`]).
pub fn base_digests(hash: &str) -> String {
    format!("{}.json", base_dir(hash))
}

/// The changes that keep `tree` as a base: its directory, filled by `fill`, and its digest
/// list, in one transaction. Should only one of them land (a run killed between the two),
/// the base is read whole, as one kept without a list is.
pub(crate) fn base_changes(tree: &SkillTree, fill: asv_fs::Fill) -> [Change; 2] {
    let hash = tree.hash();
    [
        Change::replace(base_dir(&hash), fill, Ownership::ToolState),
        Change::replace_file(
            base_digests(&hash),
            tree.digest_list(),
            Ownership::ToolState,
        ),
    ]
}

/// Keeps `tree` as a base (under [`BASES_DIR`], by its hash); nothing happens when it is
/// already kept.
///
/// # Errors
/// [`Error::SkillTree`] for a tree whose paths cannot be written ([`SkillTree::check_paths`]); a
/// guarded-read or write failure.
pub fn keep_base(root: &WriterLock<'_>, tree: &SkillTree) -> Result<(), Error> {
    let hash = tree.hash();
    if kept_base(root, &hash)?.is_some() {
        return Ok(());
    }
    tree.check_paths()?;
    let changes = base_changes(tree, fill_of(root, tree));
    root.apply(Plan::new(root, changes.into())?)?;
    Ok(())
}

/// The base with tree hash `hash`, when it is kept and still hashes so: read whole.
///
/// # Errors
/// A guarded-read failure other than a refusal of what is kept (which reads as not kept).
pub fn kept_base(root: &Root, hash: &str) -> Result<Option<SkillTree>, Error> {
    read_kept_base(root, hash, &AtomicBool::new(false))
}

/// The base with tree hash `hash` as a pull takes it, ahead of knowing whether it is wanted
/// (`None` too once `stop` is set): from its digest list when one fits the directory
/// ([`SkillTree::read_listed`]; no file is read, and each is checked against the list when it
/// is), else read whole as [`kept_base`] reads it (a base kept by an earlier version has no
/// list). The flag says it came from its list.
///
/// # Errors
/// As [`kept_base`].
pub fn listed_base_unless(
    root: &Root,
    hash: &str,
    stop: &AtomicBool,
) -> Result<Option<(SkillTree, bool)>, Error> {
    let dir = base_dir(hash);
    if root.kind(&dir)? != Some(asv_fs::EntryKind::Directory) {
        return Ok(None);
    }
    // A list that cannot be read is no list: the whole read judges the base.
    let list = root.read_file_capped(
        &base_digests(hash),
        asv_model::layout::LOCK_LIMIT,
        asv_model::layout::LOCK_LIMIT_WHAT,
    );
    if let Ok(Some(list)) = list
        && let Some(tree) = SkillTree::read_listed(root, &dir, &list, hash)?
    {
        return Ok(Some((tree, true)));
    }
    Ok(read_kept_base(root, hash, stop)?.map(|tree| (tree, false)))
}

/// [`kept_base`], giving up (`None`) once `stop` is set.
fn read_kept_base(root: &Root, hash: &str, stop: &AtomicBool) -> Result<Option<SkillTree>, Error> {
    let dir = base_dir(hash);
    if root.kind(&dir)? != Some(asv_fs::EntryKind::Directory) {
        return Ok(None);
    }
    match SkillTree::read_strict_unless(root, &dir, stop) {
        Ok(Some(tree)) if tree.hash() == hash => Ok(Some(tree)),
        Ok(_)
        | Err(asv_skilltree::Error::Unsupported { .. })
        | Err(asv_skilltree::Error::IgnoredMetadata { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The changes that keep `tree` as a base (its directory and digest list), unless it is kept
/// already.
///
/// # Errors
/// [`Error::SkillTree`] for a tree whose paths cannot be written; a guarded-read failure.
pub(crate) fn base_change(root: &Root, tree: &SkillTree) -> Result<Vec<Change>, Error> {
    base_change_linking(root, tree, None)
}

/// As [`base_change`]; the files `tree` shares with the kept base `from` (its directory and
/// tree) are hard links of that base's files. A kept base is never written in place, so the
/// two may share them.
pub(crate) fn base_change_linking(
    root: &Root,
    tree: &SkillTree,
    from: Option<&(String, SkillTree)>,
) -> Result<Vec<Change>, Error> {
    let hash = tree.hash();
    if kept_base(root, &hash)?.is_some() {
        return Ok(Vec::new());
    }
    tree.check_paths()?;
    let fill = match from {
        Some((dir, same)) => fill_linking(root, tree, same, dir),
        None => fill_of(root, tree),
    };
    Ok(base_changes(tree, fill).into())
}
