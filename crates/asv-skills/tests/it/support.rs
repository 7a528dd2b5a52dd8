//! A temporary directory opened as a tree, real git, and a byte-exact snapshot of a tree.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use asv_fs::Root;

/// A skill's SKILL.md named `name`, with ten numbered body lines far enough apart that edits
/// to different lines merge cleanly.
pub fn skill_md(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Reads {name} files.\n---\n# {name}\n\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n"
    )
}

/// A temporary directory and the guarded tree over it.
pub struct Dir {
    pub dir: tempfile::TempDir,
    pub root: Root,
}

impl Dir {
    /// The tree's writer lock, as a command takes it before it changes the tree.
    pub fn lock(&self) -> asv_fs::WriterLock<'_> {
        self.root
            .lock_for_writing(std::time::Duration::from_secs(5))
            .unwrap()
    }

    pub fn new() -> Dir {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        Dir { dir, root }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The directory as a `skill add` source: its absolute path.
    pub fn source(&self) -> String {
        self.path().display().to_string()
    }

    pub fn write(&self, rel: &str, text: &str) {
        self.root.write_file(rel, text.as_bytes()).unwrap();
    }

    pub fn read(&self, rel: &str) -> String {
        String::from_utf8(self.root.read_file(rel).unwrap().unwrap()).unwrap()
    }

    pub fn exists(&self, rel: &str) -> bool {
        self.root.kind(rel).unwrap().is_some()
    }

    /// Replaces the first `from` of the file `rel` with `to`.
    pub fn edit(&self, rel: &str, from: &str, to: &str) {
        let text = self.read(rel);
        assert!(text.contains(from), "{rel} lacks {from:?}");
        self.write(rel, &text.replacen(from, to, 1));
    }

    pub fn chmod(&self, rel: &str, mode: u32) {
        std::fs::set_permissions(self.path().join(rel), std::fs::Permissions::from_mode(mode))
            .unwrap();
    }

    /// Everything under the directory: each directory (`/`-terminated), each file with its
    /// mode and bytes, each link with its target.
    pub fn snapshot(&self) -> BTreeMap<String, String> {
        snapshot(self.path())
    }
}

/// Everything under `root`, as [`Dir::snapshot`].
pub fn snapshot(root: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, rel: &str, out: &mut BTreeMap<String, String>) {
        for e in std::fs::read_dir(root.join(rel)).unwrap() {
            let e = e.unwrap();
            let name = e.file_name().into_string().unwrap();
            let rel = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            let meta = std::fs::symlink_metadata(root.join(&rel)).unwrap();
            if meta.is_symlink() {
                let target = std::fs::read_link(root.join(&rel)).unwrap();
                out.insert(rel, format!("-> {}", target.display()));
            } else if meta.is_dir() {
                out.insert(format!("{rel}/"), String::new());
                walk(root, &rel, out);
            } else {
                let bytes = std::fs::read(root.join(&rel)).unwrap();
                out.insert(
                    rel,
                    format!(
                        "{:o} {}",
                        meta.permissions().mode() & 0o777,
                        String::from_utf8_lossy(&bytes)
                    ),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, "", &mut out);
    out
}

/// git, run as every crate's tests run it.
pub use asv_test_support::git::git;

/// A git work tree on this machine, committed to with [`GitRepo::commit`].
pub struct GitRepo {
    pub dir: Dir,
}

impl GitRepo {
    pub fn new() -> GitRepo {
        let dir = Dir::new();
        git(dir.path(), &["init", "-q"]);
        GitRepo { dir }
    }

    /// Commits everything; the new commit id.
    pub fn commit(&self, message: &str) -> String {
        git(self.dir.path(), &["add", "-A"]);
        git(self.dir.path(), &["commit", "-q", "-m", message]);
        git(self.dir.path(), &["rev-parse", "HEAD"])
    }
}
