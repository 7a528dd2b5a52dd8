//! Paths as a user types them: relative to the current directory (or absolute), never to
//! `--root`, which only says which repository to work on.
//!
//! A typed path is made absolute and its `.` and `..` segments are taken out lexically, as a
//! shell's `cd -L` does: no link on the way is followed to decide where the path leads, so a
//! link standing where a skill directory is named is still met, and refused, by the guarded
//! reads below.

use std::path::{Component, Path, PathBuf};

use asv_fs::Root;

use crate::error::{DirRole, NotFound, Usage};

/// Opens the directory `dir` as a tree. Nothing there is [`Usage::NoSuchDirectory`], a file
/// there [`Usage::NotADirectory`], each ending with the next step for a directory of `role`; a
/// problem looking at it (a permission on the way) is said as it is, never as "missing".
///
/// # Errors
/// The refusal.
pub fn open_dir(dir: &Path, role: DirRole) -> Result<Root, Usage> {
    Root::open(dir).map_err(|e| match e {
        asv_fs::Error::RootMissing { .. } => Usage::NoSuchDirectory {
            dir: dir.to_path_buf(),
            role,
        },
        asv_fs::Error::RootNotDirectory { .. } => Usage::NotADirectory {
            dir: dir.to_path_buf(),
            role,
        },
        other => Usage::Unopenable(other),
    })
}

/// The entries that mark a directory as a repository this tool works on.
const REPOSITORY_MARKERS: [&str; 5] = [
    asv_model::layout::CONTRACT_LOCK,
    asv_model::layout::MANIFEST,
    asv_model::layout::SKILL_LOCK,
    asv_model::layout::SKILL_INTENT,
    asv_model::layout::SKILLS_DIR,
];

/// The repository around `start` (an absolute directory), found as git and cargo find theirs:
/// the nearest of `start` and its ancestors that holds one of [`REPOSITORY_MARKERS`], never
/// looking above a directory holding `.git` (the top of the enclosing work tree).
///
/// # Errors
/// No such directory: where the search started and stopped.
pub fn discover(start: &Path) -> Result<PathBuf, NotFound> {
    let mut top = start.to_path_buf();
    for dir in start.ancestors() {
        top = dir.to_path_buf();
        // A directory that cannot be opened holds nothing this run could use.
        let Ok(root) = Root::open(dir) else {
            continue;
        };
        let holds = |name: &str| matches!(root.kind(name), Ok(Some(_)));
        if REPOSITORY_MARKERS.iter().any(|m| holds(m)) {
            return Ok(dir.to_path_buf());
        }
        if holds(".git") {
            break;
        }
    }
    Err(NotFound {
        from: start.to_path_buf(),
        top,
        markers: &REPOSITORY_MARKERS,
    })
}

/// `path` made absolute against the current directory, `.` and `..` taken out lexically.
///
/// # Errors
/// The current directory cannot be read.
pub fn absolute(path: &Path) -> std::io::Result<PathBuf> {
    let joined = std::path::absolute(path)?;
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

/// `path` (absolute, normalized) below `root` (absolute, normalized) as a `/`-separated
/// relative path (`""` for the root itself); `None` when it is not below `root` or a segment
/// is not UTF-8.
pub fn below(root: &Path, path: &Path) -> Option<String> {
    let rest = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = rest.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.join("/"))
}

/// `to` as a relative path from `from` (both absolute, normalized), `/`-separated: `..`
/// segments up to their common ancestor, then down.
pub fn relative(from: &Path, to: &Path) -> Option<String> {
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<&str> = vec![".."; from.len() - common];
    for c in &to[common..] {
        parts.push(c.as_os_str().to_str()?);
    }
    Some(parts.join("/"))
}

/// A directory a user named, as the guarded tree layer reads it: a tree opened at a
/// directory and the path below it.
pub struct Located {
    /// The tree the path is read in.
    pub root: Root,
    /// The path below the tree's root (`""` for the root itself).
    pub rel: String,
    /// Whether the tree is the repository (paths are then shown from its root).
    pub in_repository: bool,
}

/// Where the typed directory `typed` stands: below the repository root `root` (absolute), in
/// the repository's tree; elsewhere, in a tree opened at its parent. With `create_missing`
/// a directory that does not exist yet is located under its nearest existing ancestor (the
/// rest is created by the plan that writes there).
///
/// # Errors
/// A path with no parent (`/`) or a non-UTF-8 segment, or a parent that cannot be opened as a
/// directory: a refusal naming the path as typed.
pub fn locate(root: &Path, typed: &Path, create_missing: bool) -> Result<Located, Usage> {
    let path = absolute(typed).map_err(|error| Usage::Unplaceable {
        typed: typed.to_path_buf(),
        error,
    })?;
    if let Some(rel) = below(root, &path) {
        return Ok(Located {
            root: Root::open(root).map_err(Usage::Unopenable)?,
            rel,
            in_repository: true,
        });
    }
    let mut base = path
        .parent()
        .ok_or_else(|| Usage::FileSystemRoot {
            typed: typed.to_path_buf(),
        })?
        .to_path_buf();
    if create_missing {
        base = path.clone();
        while !base.is_dir() {
            if !base.pop() {
                break;
            }
        }
    }
    let rel = below(&base, &path).ok_or_else(|| Usage::NotUtf8 {
        typed: typed.to_path_buf(),
    })?;
    let root = open_dir(&base, DirRole::Parent)?;
    Ok(Located {
        root,
        rel,
        in_repository: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_paths() {
        let p = |s: &str| PathBuf::from(s);
        assert_eq!(absolute(&p("/a/./b/../c")).unwrap(), p("/a/c"));
        assert_eq!(absolute(&p("/..")).unwrap(), p("/"));
        assert_eq!(below(&p("/r"), &p("/r/skills/a")), Some("skills/a".into()));
        assert_eq!(below(&p("/r"), &p("/r")), Some(String::new()));
        assert_eq!(below(&p("/r"), &p("/rs/a")), None);
        assert_eq!(relative(&p("/r/x"), &p("/r/up/s")), Some("../up/s".into()));
        assert_eq!(relative(&p("/r"), &p("/r/up")), Some("up".into()));
        assert_eq!(relative(&p("/r"), &p("/r")), Some(String::new()));
    }
}
