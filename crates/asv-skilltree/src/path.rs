//! The one rule for a path inside a skill tree.
//!
//! A tree path comes from a directory walk, a remote listing or an archive; before anything is
//! written at it, it must name a place strictly inside the skill root on every host.

/// Why a path cannot be a skill tree path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathProblem {
    /// The path is empty.
    Empty,
    /// The path starts at a root (`/`).
    Absolute,
    /// The path holds a backslash, a separator on some hosts.
    Backslash,
    /// The path holds a NUL byte.
    Nul,
    /// A segment is empty (`a//b`, a trailing `/`).
    EmptySegment,
    /// A segment is `.` or `..`.
    DotSegment,
    /// A segment is one a read skips (`.git`, `.DS_Store`, `Thumbs.db`).
    Skipped,
    /// A segment is `.git` in some case (`.GIT`), which a case-folding volume opens as the
    /// repository's own git directory.
    GitDir,
}

impl std::fmt::Display for PathProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PathProblem::Empty => "is empty",
            PathProblem::Absolute => "is absolute",
            PathProblem::Backslash => "holds a backslash",
            PathProblem::Nul => "holds a NUL byte",
            PathProblem::EmptySegment => "has an empty segment",
            PathProblem::DotSegment => "has a `.` or `..` segment",
            PathProblem::Skipped => {
                "names an entry a skill read skips (.git, .DS_Store, Thumbs.db)"
            }
            PathProblem::GitDir => "has a .git segment (in some case)",
        })
    }
}

/// Checks that `path` stays inside its skill root: relative, `/`-separated, no empty, `.` or
/// `..` segment, no backslash, no NUL.
///
/// # Errors
/// The first [`PathProblem`] found.
///
/// # Example
/// ```
/// use asv_skilltree::{validate_relative_path, PathProblem};
/// assert!(validate_relative_path("references/guide.md").is_ok());
/// assert_eq!(validate_relative_path("../x"), Err(PathProblem::DotSegment));
/// ```
pub fn validate_relative_path(path: &str) -> Result<(), PathProblem> {
    if path.is_empty() {
        return Err(PathProblem::Empty);
    }
    if path.starts_with('/') {
        return Err(PathProblem::Absolute);
    }
    if path.contains('\\') {
        return Err(PathProblem::Backslash);
    }
    if path.contains('\0') {
        return Err(PathProblem::Nul);
    }
    for segment in path.split('/') {
        match segment {
            "" => return Err(PathProblem::EmptySegment),
            "." | ".." => return Err(PathProblem::DotSegment),
            _ => {}
        }
    }
    Ok(())
}

/// Checks a path a state file records (a digest list, the skill lock): as
/// [`validate_relative_path`], and no segment `.git` in any case. State files travel through
/// pull requests, so what they name is judged as hostile before any path is built from it
/// (issue 27 §3).
///
/// # Errors
/// The first [`PathProblem`] found.
///
/// # Example
/// ```
/// use asv_skilltree::{validate_stored_path, PathProblem};
/// assert!(validate_stored_path("skills/pdf").is_ok());
/// assert_eq!(validate_stored_path("a/.Git/objects"), Err(PathProblem::GitDir));
/// ```
pub fn validate_stored_path(path: &str) -> Result<(), PathProblem> {
    validate_relative_path(path)?;
    if path.split('/').any(asv_model::layout::is_git_dir_name) {
        return Err(PathProblem::GitDir);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        let rows: &[(&str, Result<(), PathProblem>)] = &[
            ("SKILL.md", Ok(())),
            ("references/a b/c.md", Ok(())),
            ("..foo", Ok(())),
            ("...", Ok(())),
            (".hidden/.x", Ok(())),
            ("", Err(PathProblem::Empty)),
            ("/etc/passwd", Err(PathProblem::Absolute)),
            ("a\\..\\b", Err(PathProblem::Backslash)),
            ("a\0b", Err(PathProblem::Nul)),
            ("a//b", Err(PathProblem::EmptySegment)),
            ("a/", Err(PathProblem::EmptySegment)),
            ("./a", Err(PathProblem::DotSegment)),
            ("a/../../b", Err(PathProblem::DotSegment)),
            ("..", Err(PathProblem::DotSegment)),
        ];
        for (path, want) in rows {
            assert_eq!(validate_relative_path(path), *want, "{path:?}");
        }
    }

    #[test]
    fn stored_paths() {
        let rows: &[(&str, Result<(), PathProblem>)] = &[
            ("SKILL.md", Ok(())),
            (".github/x", Ok(())),
            (".gitignore", Ok(())),
            ("a/.git", Err(PathProblem::GitDir)),
            (".GIT/objects", Err(PathProblem::GitDir)),
            ("../x", Err(PathProblem::DotSegment)),
            ("/etc/passwd", Err(PathProblem::Absolute)),
            ("", Err(PathProblem::Empty)),
        ];
        for (path, want) in rows {
            assert_eq!(validate_stored_path(path), *want, "{path:?}");
        }
    }
}
