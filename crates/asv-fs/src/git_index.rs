//! Whether git tracks a file of the tree: a journal that git tracks came with the repository
//! (committed, pulled, checked out), so no recovery may act on it, whatever it says.
//!
//! Asked only when a journal is found, which is rare, so reading the index (tens of MiB in a
//! large repository) costs nothing on the paths every command takes. No `git` is run: the
//! offline commands start no process.

use std::fs;
use std::path::{Path, PathBuf};

/// Whether the git index of the work tree holding `root` has an entry for `rel` (a path
/// relative to `root`). `false` when there is no work tree, or its index cannot be read (a
/// journal is still proven this machine's by its own identity).
pub(crate) fn tracks(root: &Path, rel: &str) -> bool {
    let Some((index, prefix)) = index_of(root) else {
        return false;
    };
    let path = if prefix.is_empty() {
        rel.to_owned()
    } else {
        format!("{prefix}/{rel}")
    };
    [gix_index::hash::Kind::Sha1].into_iter().any(|kind| {
        gix_index::File::at(&index, kind, true, gix_index::decode::Options::default())
            .is_ok_and(|file| file.entry_by_path(path.as_str().into()).is_some())
    })
}

/// Where git keeps the index of the work tree holding `root`, and `root`'s path in it.
fn index_of(root: &Path) -> Option<(PathBuf, String)> {
    let mut dir = fs::canonicalize(root).ok()?;
    let mut prefix: Vec<String> = Vec::new();
    // A work tree is rarely deeper than this below its top; the loop ends at `/` anyway.
    for _ in 0..256 {
        let dot_git = dir.join(".git");
        if let Ok(meta) = fs::symlink_metadata(&dot_git) {
            let git_dir = if meta.is_dir() {
                dot_git
            } else {
                // A linked work tree or a submodule: `gitdir: <path>`.
                let text = fs::read_to_string(&dot_git).ok()?;
                dir.join(text.strip_prefix("gitdir:")?.trim())
            };
            prefix.reverse();
            return Some((git_dir.join("index"), prefix.join("/")));
        }
        prefix.push(dir.file_name()?.to_str()?.to_owned());
        dir = dir.parent()?.to_owned();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    }

    #[test]
    fn a_tracked_file_is_told_from_an_untracked_one() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        fs::create_dir_all(dir.path().join("sub/.agentic-skill-vendor")).unwrap();
        fs::write(
            dir.path()
                .join("sub/.agentic-skill-vendor/journal-0123456789ab"),
            "x",
        )
        .unwrap();
        fs::write(dir.path().join("sub/other"), "y").unwrap();
        let sub = dir.path().join("sub");
        assert!(!tracks(&sub, ".agentic-skill-vendor/journal-0123456789ab"));
        git(
            dir.path(),
            &[
                "add",
                "-f",
                "sub/.agentic-skill-vendor/journal-0123456789ab",
            ],
        );
        assert!(tracks(&sub, ".agentic-skill-vendor/journal-0123456789ab"));
        assert!(!tracks(&sub, "other"));
        assert!(tracks(
            dir.path(),
            "sub/.agentic-skill-vendor/journal-0123456789ab"
        ));
        // No work tree at all.
        let bare = tempfile::tempdir().unwrap();
        assert!(!tracks(bare.path(), "x"));
    }
}
