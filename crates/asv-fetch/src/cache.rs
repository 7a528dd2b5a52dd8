//! Filling the cache: each fetched revision placed whole by one rename.
//!
//! The cache format belongs to `asv-contracts`, which reads it; this module writes it. A
//! revision directory standing at its place means that revision was fetched whole: the files
//! are written under a temporary directory beside the cache and the directory is renamed into
//! place in one step, so a run stopped part-way leaves no revision for a later command to read
//! as complete.

use asv_fs::{EntryKind, Root};

use crate::error::{Error, Result};

use asv_contracts::cache::revision_dir;
use asv_model::layout::CACHE_DIR;

/// Whether the cache holds `revision` of `source` (placed whole by an earlier fetch).
///
/// # Errors
/// A link or wrong kind on the way.
pub fn holds(root: &Root, source: &str, revision: &str) -> Result<bool> {
    match root.kind(&revision_dir(source, revision))? {
        None => Ok(false),
        Some(EntryKind::Directory) => Ok(true),
        Some(EntryKind::Symlink) => Err(asv_fs::Error::Symlink {
            path: revision_dir(source, revision),
        }
        .into()),
        Some(found) => Err(asv_fs::Error::WrongKind {
            path: revision_dir(source, revision),
            expected: EntryKind::Directory,
            found,
        }
        .into()),
    }
}

/// Writes `files` (repository paths of the source and their bytes) as revision `revision` of
/// `source`, in one rename. When the revision is already cached, what it holds is kept and a
/// new directory holding both is swapped in for it (a commit's files never change, but a
/// later run may need more of them).
///
/// # Errors
/// A failed write or rename; a link on the way.
pub fn place(root: &Root, source: &str, revision: &str, files: &[(String, Vec<u8>)]) -> Result<()> {
    let dir = revision_dir(source, revision);
    let mut all: Vec<(String, Vec<u8>)> = Vec::new();
    if holds(root, source, revision)? {
        let mut missing = false;
        for (path, _) in files {
            if root.kind(&format!("{dir}/{path}"))?.is_none() {
                missing = true;
            }
        }
        if !missing {
            return Ok(());
        }
        for rel in root
            .walk_files(&dir, &mut |_, _| false)?
            .unwrap_or_default()
        {
            let bytes = root.read_file(&format!("{dir}/{rel}"))?.unwrap_or_default();
            all.push((rel, bytes));
        }
    }
    for (path, bytes) in files {
        if !all.iter().any(|(p, _)| p == path) {
            all.push((path.clone(), bytes.clone()));
        }
    }
    let files = &all;
    let staging = format!(
        "{}/incoming-{source}-{revision}",
        asv_model::layout::TOOL_DIR
    );
    // Every command that fetches holds the writer lock, so any staging directory standing
    // here is one a killed run left (of this revision or another): none may stay for good.
    for e in root
        .read_dir(asv_model::layout::TOOL_DIR)?
        .unwrap_or_default()
    {
        if e.name.starts_with("incoming-") && e.kind == asv_fs::EntryKind::Directory {
            root.remove_all(&asv_fs::join(asv_model::layout::TOOL_DIR, &e.name))?;
        }
    }
    let placed = (|| {
        root.create_dir_all(&staging)?;
        for (path, bytes) in files {
            if !asv_contracts::manifest::is_safe_relative_path(path) {
                return Err(Error::ListedOutside {
                    name: source.to_owned(),
                    path: path.clone(),
                });
            }
            root.write_file(&format!("{staging}/{path}"), bytes)?;
        }
        root.create_dir_all(&format!("{CACHE_DIR}/{source}"))?;
        root.swap_into_place(&staging, &revision_dir(source, revision))?;
        Ok(())
    })();
    if placed.is_err() {
        // Leave no half-written revision behind; the error says what went wrong.
        let _ = root.remove_all(&staging);
    }
    placed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_killed_runs_staging_is_cleared_by_the_next_place() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        // What a run killed while staging another revision leaves.
        root.write_file(
            ".agentic-skill-vendor/incoming-w-old/contracts/a.md",
            b"x\n",
        )
        .unwrap();
        root.write_file(".agentic-skill-vendor/notes", b"kept\n")
            .unwrap();
        let files = vec![("contracts/a.md".to_owned(), b"A\n".to_vec())];
        place(&root, "w", "abc", &files).unwrap();
        let names: Vec<String> = root
            .read_dir(".agentic-skill-vendor")
            .unwrap()
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect();
        assert_eq!(names, ["cache", "notes"]);
    }

    #[test]
    fn a_revision_is_placed_whole_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        let files = vec![("contracts/a.md".to_owned(), b"A\n".to_vec())];
        place(&root, "w", "abc", &files).unwrap();
        assert!(holds(&root, "w", "abc").unwrap());
        assert_eq!(
            root.read_file(".agentic-skill-vendor/cache/w/abc/contracts/a.md")
                .unwrap()
                .unwrap(),
            b"A\n"
        );
        // Placing again keeps what is there.
        place(
            &root,
            "w",
            "abc",
            &[("contracts/a.md".to_owned(), b"B\n".to_vec())],
        )
        .unwrap();
        assert_eq!(
            root.read_file(".agentic-skill-vendor/cache/w/abc/contracts/a.md")
                .unwrap()
                .unwrap(),
            b"A\n"
        );
        let bad = vec![("../escape".to_owned(), b"x".to_vec())];
        assert!(place(&root, "w", "def", &bad).is_err());
        assert!(!holds(&root, "w", "def").unwrap());
        assert_eq!(
            root.kind(".agentic-skill-vendor/incoming-w-def").unwrap(),
            None,
            "nothing half-written is left"
        );
    }
}
