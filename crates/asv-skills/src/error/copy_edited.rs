//! What stands where skill sync mirrors a skill, when it is not what sync placed there.

use std::fmt;

use asv_error::quote::DisplayPath;

/// What stands where skill sync mirrors a skill, that is not what it placed there
/// ([`Error::ProjectionEdited`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CopyEdited {
    /// An entry of another kind than a directory.
    OtherKind(asv_fs::EntryKind),
    /// A copy skill sync placed, changed since.
    Changed,
    /// A copy skill sync placed, changed since, of a skill gone from `skills/`.
    ChangedSkillGone,
    /// A copy skill sync did not place.
    NotOurs,
    /// A copy skill sync placed, whose file `file` (from the root) differs from what it placed.
    FileChanged {
        /// The first file that differs.
        file: String,
    },
    /// A copy skill sync did not place, whose file `file` (from the root) differs from the
    /// skill's.
    FileNotOurs {
        /// The first file that differs.
        file: String,
        /// The skill.
        skill: String,
    },
    /// A copy that differs (no one file found to name).
    Differs,
}

impl fmt::Display for CopyEdited {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CopyEdited::OtherKind(kind) => write!(f, "it is {kind}"),
            CopyEdited::Changed => f.write_str("it changed since skill sync placed it"),
            CopyEdited::ChangedSkillGone => f.write_str(
                "it changed since skill sync placed it, and its skill is gone from skills/",
            ),
            CopyEdited::NotOurs => f.write_str("it is not this tool's copy"),
            CopyEdited::FileChanged { file } => write!(
                f,
                "{} differs from what skill sync placed there",
                DisplayPath(file)
            ),
            CopyEdited::FileNotOurs { file, skill } => write!(
                f,
                "it is not this tool's: {} differs from skills/{skill}",
                DisplayPath(file)
            ),
            CopyEdited::Differs => f.write_str("it differs"),
        }
    }
}
