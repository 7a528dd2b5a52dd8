//! Helpers shared by the tree-change tests: snapshots of a whole tree and fixture builders.
#![allow(dead_code)]
// A broken fixture is a failed test: helpers panic rather than return errors.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};

/// One entry of a snapshot: what an `lstat` and a read show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// A regular file: its bytes and permission bits.
    File { bytes: Vec<u8>, mode: u32 },
    /// A directory and its permission bits.
    Dir { mode: u32 },
    /// A symbolic link and its text.
    Link { target: PathBuf },
    /// Anything else (FIFO, socket, …).
    Other,
}

/// Every entry below `root` (not `root` itself), by path relative to it with `/` separators.
pub fn snapshot(root: &Path) -> BTreeMap<String, Node> {
    let mut out = BTreeMap::new();
    walk(root, "", &mut out);
    out
}

fn walk(dir: &Path, rel: &str, out: &mut BTreeMap<String, Node>) {
    let mut names: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("list {}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    for name in names {
        let name = name.to_string_lossy().into_owned();
        let path = dir.join(&name);
        let child = if rel.is_empty() {
            name.clone()
        } else {
            format!("{rel}/{name}")
        };
        let meta = fs::symlink_metadata(&path).unwrap();
        let mode = meta.mode() & 0o7777;
        let ft = meta.file_type();
        if ft.is_symlink() {
            out.insert(
                child,
                Node::Link {
                    target: fs::read_link(&path).unwrap(),
                },
            );
        } else if ft.is_dir() {
            out.insert(child.clone(), Node::Dir { mode });
            walk(&path, &child, out);
        } else if ft.is_file() {
            out.insert(
                child,
                Node::File {
                    bytes: fs::read(&path).unwrap(),
                    mode,
                },
            );
        } else {
            out.insert(child, Node::Other);
        }
    }
}

/// The snapshot without the apply's own staged and parked entries (and what lies in them), its
/// journal and the state directory the journal stands in (these trees have none of their own).
pub fn without_residue(snap: &BTreeMap<String, Node>) -> BTreeMap<String, Node> {
    snap.iter()
        .filter(|(path, _)| {
            !path.split('/').any(asv_fs::is_tree_change_residue)
                && !asv_fs::is_journal_path(path)
                && path.as_str() != asv_fs::STATE_DIR
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The part of a snapshot at and below `at`, re-rooted there (`""` for `at` itself).
pub fn subtree(snap: &BTreeMap<String, Node>, at: &str) -> BTreeMap<String, Node> {
    let prefix = format!("{at}/");
    snap.iter()
        .filter_map(|(path, node)| {
            if path == at {
                Some((String::new(), node.clone()))
            } else {
                path.strip_prefix(&prefix)
                    .map(|rest| (rest.to_owned(), node.clone()))
            }
        })
        .collect()
}

/// Writes `bytes` to `root/rel`, making the directories on the way.
pub fn put(root: &Path, rel: &str, bytes: &[u8]) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

/// Sets the permission bits of `root/rel`.
pub fn chmod(root: &Path, rel: &str, mode: u32) {
    fs::set_permissions(root.join(rel), fs::Permissions::from_mode(mode)).unwrap();
}

/// Makes a symbolic link at `root/rel` holding `target`.
pub fn link(root: &Path, rel: &str, target: impl AsRef<Path>) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    symlink(target, path).unwrap();
}

/// Gives every directory below (and at) `dir` owner rwx back, so a temporary directory
/// made read-only by a test can be dropped.
pub fn make_writable(dir: &Path) {
    let Ok(meta) = fs::symlink_metadata(dir) else {
        return;
    };
    if meta.is_dir() {
        let _ = fs::set_permissions(dir, fs::Permissions::from_mode(0o755));
        if let Ok(listing) = fs::read_dir(dir) {
            for entry in listing.flatten() {
                make_writable(&entry.path());
            }
        }
    }
}

/// Whether the tests run as root (who reads a mode-000 directory anyway).
pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// The raw OS error an apply's failure carries, looking through a rollback's cause.
pub fn errno_of(error: &asv_fs::Error) -> Option<i32> {
    match error {
        asv_fs::Error::Io { error: source, .. }
        | asv_fs::Error::NotWritable { error: source, .. } => source.raw_os_error(),
        asv_fs::Error::CopySourceUnreadable { error, .. } => error.raw_os_error(),
        asv_fs::Error::RollbackIncomplete { cause, .. } => errno_of(cause),
        _ => None,
    }
}

/// What the next writer does first: recover from the interrupted run a journal describes.
/// Returns the tree afterwards, which must hold no journal and no residue.
pub fn recovered(root: &Path) -> BTreeMap<String, Node> {
    asv_fs::Root::open(root)
        .unwrap()
        .recover_interrupted()
        .unwrap();
    let after = snapshot(root);
    assert_eq!(without_residue(&after), after, "nothing of the run is left");
    after
}

/// Applies a plan under its tree's writer lock, taken for the one call, as a command does.
pub trait ApplyLocked {
    /// [`asv_fs::Plan::apply`] under a fresh writer lock of the plan's tree.
    fn apply_locked(self) -> asv_fs::Result<asv_fs::Applied>;
}

impl ApplyLocked for asv_fs::Plan<'_> {
    fn apply_locked(self) -> asv_fs::Result<asv_fs::Applied> {
        let lock = self
            .root()
            .lock_for_writing(std::time::Duration::from_secs(5))?;
        self.apply(&lock)
    }
}
