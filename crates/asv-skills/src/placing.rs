//! A skill tree as a change of the tree: what the tree-change layer is given to write, and
//! the ownership a placed skill directory must still show when it is replaced.

use asv_fs::{
    Body, Disowned, During, EntryKind, Fill, NewFile, Ownership, Root, TreeFile, Verdict,
};
use asv_skilltree::{FileNode, Place, SkillTree, Stamps};

/// The files of `tree` as a fill of the tree-change layer applied to `root`. Bytes in memory
/// are shared with the tree, not copied, so a skill placed in several directories is held
/// once; files a read left on disk are copied from there when staged, checked against what
/// they held when read.
pub(crate) fn fill_of(root: &Root, tree: &SkillTree) -> Fill {
    Fill::files(tree.files().iter().map(|f| new_file(root, f)).collect())
}

/// As [`fill_of`], but a file that `same` holds at the same path with the same bytes and
/// executable bit (`same` read from `at`, a directory of `root`) is given as a hard link of
/// that file ([`Body::Link`]): what did not change is not written again.
pub(crate) fn fill_linking(root: &Root, tree: &SkillTree, same: &SkillTree, at: &str) -> Fill {
    Fill::files(
        tree.files()
            .iter()
            .map(|f| match same.get(&f.path) {
                // Compared by content as the tree compares files: bytes in memory, or digests
                // already known, so nothing is hashed here for it.
                Some(was) if was.executable == f.executable && was.data == f.data => {
                    let fallback = new_file(root, f);
                    NewFile {
                        body: Body::Link {
                            path: asv_fs::join(at, &f.path),
                            len: f.data.len(),
                            fallback: Box::new(fallback.body),
                        },
                        ..fallback
                    }
                }
                _ => new_file(root, f),
            })
            .collect(),
    )
}

fn new_file(root: &Root, f: &FileNode) -> NewFile {
    let body = match f.data.place() {
        Place::Memory(bytes) => Body::Shared(bytes),
        Place::Disk(stored) => {
            let file = TreeFile {
                path: stored.path().to_owned(),
                len: stored.len(),
                sha256: stored.sha256(),
            };
            if stored.root() == root.root() {
                Body::Copy(file)
            } else {
                Body::CopyFrom {
                    root: stored.root().to_owned(),
                    file,
                    hold: stored.hold(),
                }
            }
        }
    };
    NewFile {
        path: f.path.clone(),
        body,
        executable: f.executable,
    }
}

/// Ownership of an imported skill's directory during a pull: it must still hold exactly the
/// local version the merge read (hash `expected`), so an edit made while the pull ran is never
/// overwritten.
pub(crate) fn still_local(expected: String) -> Ownership {
    Ownership::tool_made(move |root, dest, kind| {
        if kind != EntryKind::Directory {
            return Ok(Verdict::NotOurs(Disowned::Kind(kind)));
        }
        Ok(match SkillTree::read_hash(root, dest) {
            Ok(hash) if hash == expected => Verdict::Ours,
            Ok(_) => Verdict::NotOurs(Disowned::Changed(During::Pull)),
            Err(e) => Verdict::NotOurs(Disowned::unreadable(e)),
        })
    })
}

/// Ownership of an imported skill's directory during a pull: it must still hold exactly the
/// local tree the merge read (`local`, read with `stamps`), so an edit made while the pull ran
/// is never overwritten. Files whose stamps say they are untouched are not read again
/// ([`Stamps::still_hold`]).
pub(crate) fn still_read(local: SkillTree, stamps: Stamps) -> Ownership {
    Ownership::tool_made(move |root, dest, kind| {
        if kind != EntryKind::Directory {
            return Ok(Verdict::NotOurs(Disowned::Kind(kind)));
        }
        Ok(match stamps.still_hold(root, dest, &local) {
            Ok(true) => Verdict::Ours,
            Ok(false) => Verdict::NotOurs(Disowned::Changed(During::Pull)),
            Err(e) => Verdict::NotOurs(Disowned::unreadable(e)),
        })
    })
}
