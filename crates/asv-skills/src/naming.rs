//! The one rule every command that takes a skill from elsewhere names it by.
//!
//! `skill add`, `skill add --all` and `skill install` all place a skill under the same local
//! name: `--name` when given, else the `name:` of its `SKILL.md` when that is a usable skill
//! name, else the name of the directory it came from. Agents know a skill by its `name:`, so
//! that name comes first; real repositories often keep a skill in a directory named otherwise
//! (`composition-patterns` holding `vercel-composition-patterns`), and the directory only
//! stands in when the manifest's name cannot be a directory of its own.

use crate::error::Error;
use crate::validate::name_problem;

/// Where a skill's local name came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamedBy {
    /// `--name`, given by the user.
    Option,
    /// The `name:` of the skill's `SKILL.md`.
    Manifest,
    /// The directory the skill came from (its `SKILL.md` gives no usable name).
    Directory,
}

impl NamedBy {
    /// The stable word machine-readable output names the source by.
    pub fn code(self) -> &'static str {
        match self {
            NamedBy::Option => "option",
            NamedBy::Manifest => "manifest",
            NamedBy::Directory => "directory",
        }
    }
}

/// The local name of a skill: `requested` (`--name`), else `manifest` (the `SKILL.md`
/// `name:`) when it is a usable name, else `directory` (where the skill came from).
///
/// # Errors
/// [`Error::BadName`] for a `requested` name that is not a skill name;
/// [`Error::Unnamed`] when neither the manifest nor the directory gives one.
pub fn local_name(
    requested: Option<&str>,
    manifest: Option<&str>,
    directory: &str,
) -> Result<(String, NamedBy), Error> {
    if let Some(name) = requested {
        return match name_problem(name) {
            Some(problem) => Err(Error::BadName {
                name: name.to_owned(),
                problem,
            }),
            None => Ok((name.to_owned(), NamedBy::Option)),
        };
    }
    if let Some(name) = manifest.filter(|n| name_problem(n).is_none()) {
        return Ok((name.to_owned(), NamedBy::Manifest));
    }
    match name_problem(directory) {
        None => Ok((directory.to_owned(), NamedBy::Directory)),
        Some(problem) => Err(Error::Unnamed {
            manifest: manifest.map(str::to_owned),
            directory: directory.to_owned(),
            problem,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_option_then_the_manifest_then_the_directory() {
        assert_eq!(
            local_name(Some("mine"), Some("theirs"), "dir").unwrap(),
            ("mine".to_owned(), NamedBy::Option)
        );
        assert_eq!(
            local_name(
                None,
                Some("vercel-composition-patterns"),
                "composition-patterns"
            )
            .unwrap(),
            ("vercel-composition-patterns".to_owned(), NamedBy::Manifest)
        );
        assert_eq!(
            local_name(None, Some("My Skill"), "my-skill").unwrap(),
            ("my-skill".to_owned(), NamedBy::Directory)
        );
        assert_eq!(
            local_name(None, None, "pdf").unwrap(),
            ("pdf".to_owned(), NamedBy::Directory)
        );
    }

    #[test]
    fn no_usable_name_is_refused_naming_both() {
        let e = local_name(None, Some("../x"), "My_Skill").unwrap_err();
        assert!(matches!(e, Error::Unnamed { .. }), "{e:?}");
        let text = e.to_string();
        assert!(
            text.contains("\"../x\"") && text.contains("\"My_Skill\""),
            "{text}"
        );
        assert!(matches!(
            local_name(Some("Bad Name"), Some("good"), "good").unwrap_err(),
            Error::BadName { .. }
        ));
    }
}
