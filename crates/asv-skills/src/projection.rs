//! The copies of skills mirrored into agents' project directories (projections), as every
//! writer changes them: `skill sync` for the whole tree, and `skill add`, `pull` and `remove`
//! for the skills they change, in the same transaction, so the agents' directories never
//! fall behind `skills/` (issue 29 §5).
//!
//! A copy is owned as a raw dest of the contract side is: the lock records the tree hash
//! placed, and only an entry that still holds it is replaced or removed; an identical
//! unrecorded copy is claimed; anything else is refused, naming it, unless forced.

use asv_fs::{Change, Disowned, During, EntryKind, Ownership, Root, Verdict};
use asv_skilltree::SkillTree;

use crate::error::{CopyEdited, Error};
use crate::lock::SkillLock;
use crate::placing::fill_of;
use crate::targets::{Scope, Target};

/// The distinct project directories of `targets`, in the order first named.
pub(crate) fn target_dirs(targets: &[String]) -> Vec<&'static str> {
    let mut dirs: Vec<&'static str> = Vec::new();
    for name in targets {
        if let Some(t) = Target::from_name(name) {
            let dir = t.dir(Scope::Project);
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
    }
    dirs
}

/// Ownership of a recorded projection: it must still hold the hash recorded.
pub(crate) fn still_projected(recorded: String) -> Ownership {
    Ownership::tool_made(move |root, dest, kind| {
        if kind != EntryKind::Directory {
            return Ok(Verdict::NotOurs(Disowned::Kind(kind)));
        }
        Ok(match SkillTree::read_hash(root, dest) {
            Ok(hash) if hash == recorded => Verdict::Ours,
            Ok(_) => Verdict::NotOurs(Disowned::Changed(During::Sync)),
            Err(e) => Verdict::NotOurs(Disowned::unreadable(e)),
        })
    })
}

/// The changes that remove the copies of `name` recorded in `lock`'s projections, taking them
/// out of `after`'s: a copy that still holds its recorded hash goes, one already gone is only
/// forgotten, and any other is refused unless `force`.
///
/// # Errors
/// [`Error::ProjectionEdited`] for a copy that changed since it was placed; a guarded-read
/// refusal.
pub(crate) fn projections_removed(
    root: &Root,
    name: &str,
    lock: &SkillLock,
    after: &mut SkillLock,
    force: bool,
) -> Result<Vec<Change>, Error> {
    let mut changes = Vec::new();
    for (dir, recorded) in &lock.projections {
        let Some(hash) = recorded.get(name) else {
            continue;
        };
        let dest = format!("{dir}/{name}");
        if root.kind(&dest)?.is_some() {
            let holds = matches!(SkillTree::read_hash(root, &dest), Ok(h) if h == *hash);
            if !holds && !force {
                return Err(Error::ProjectionEdited {
                    path: dest,
                    what: CopyEdited::Changed,
                });
            }
            changes.push(Change::remove(
                dest,
                if force {
                    Ownership::Force
                } else {
                    still_projected(hash.clone())
                },
            ));
        }
        if let Some(placed) = after.projections.get_mut(dir) {
            placed.remove(name);
            if placed.is_empty() {
                after.projections.remove(dir);
            }
        }
    }
    Ok(changes)
}

/// The changes that mirror `tree`, the skill `name` as it will stand, into each project
/// directory of `targets`, recording each copy in `after`'s projections: a copy missing is
/// placed, one that holds the recorded hash is replaced, an identical one is claimed.
///
/// # Errors
/// [`Error::ProjectionEdited`] for a copy that is neither (changed since it was placed, or
/// not this tool's) — `skill sync --force` replaces it; [`Error::ProjectionDir`] for a
/// project directory that is not a directory; a guarded-read refusal.
pub(crate) fn projections_placed(
    root: &Root,
    name: &str,
    tree: &SkillTree,
    targets: &[String],
    after: &mut SkillLock,
) -> Result<Vec<Change>, Error> {
    let mut changes = Vec::new();
    let hash = tree.hash();
    for dir in target_dirs(targets) {
        if let Some(kind) = root.kind(dir)?
            && kind != EntryKind::Directory
        {
            return Err(Error::ProjectionDir {
                path: dir.to_owned(),
                kind,
            });
        }
        let dest = format!("{dir}/{name}");
        let recorded = after
            .projections
            .get(dir)
            .and_then(|placed| placed.get(name))
            .cloned();
        let change = match root.kind(&dest)? {
            None => Some(Change::replace(
                dest.clone(),
                fill_of(root, tree),
                Ownership::MustBeFree,
            )),
            Some(EntryKind::Directory) => {
                let now = SkillTree::read_hash(root, &dest)?;
                if now == hash {
                    None
                } else if recorded.as_ref() == Some(&now) {
                    Some(Change::replace(
                        dest.clone(),
                        fill_of(root, tree),
                        still_projected(now),
                    ))
                } else {
                    return Err(Error::ProjectionEdited {
                        path: dest,
                        what: if recorded.is_some() {
                            CopyEdited::Changed
                        } else {
                            CopyEdited::NotOurs
                        },
                    });
                }
            }
            Some(kind) => {
                return Err(Error::ProjectionEdited {
                    path: dest,
                    what: CopyEdited::OtherKind(kind),
                });
            }
        };
        changes.extend(change);
        after
            .projections
            .entry(dir.to_owned())
            .or_default()
            .insert(name.to_owned(), hash.clone());
    }
    Ok(changes)
}
