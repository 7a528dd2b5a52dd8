//! The skill lifecycle: judging a skill directory against the Agent Skills rules.
//!
//! A skill is a directory with a `SKILL.md` whose frontmatter names it and says what it is
//! for. Agents load skills by these fields, so a skill that breaks them is skipped or
//! misread without a word; [`validate_skill`] says so before the skill ships.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let fs = asv_fs::Tree::open(dir.path())?;
//! fs.write_file("skills/pdf/SKILL.md", b"---\nname: pdf\ndescription: Reads PDF files.\n---\n")?;
//! assert!(asv_skills::validate_skill(&fs, "skills/pdf")?.is_empty());
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

pub mod diff;
pub mod error;
pub mod install;
pub mod lifecycle;
pub mod lock;
pub mod package;
pub mod upstream;
mod validate;

pub use asv_skilltree::normalize_name;
pub use error::Error;
pub use validate::{
    Finding, KNOWN_KEYS, MAX_COMPATIBILITY, MAX_DESCRIPTION, MAX_LINES, MAX_NAME, Severity,
    has_errors, manifest_name, name_problem, validate_skill, validate_tree,
};
