//! The skill lifecycle: judging a skill against the Agent Skills rules, taking whole skills
//! from other repositories and keeping them up to date, packing and installing them.
//!
//! A skill is a directory with a `SKILL.md` whose frontmatter names it and says what it is
//! for. Agents load skills by these fields, so a skill that breaks them is skipped or
//! misread without a word; [`validate_skill`] says so before the skill ships, and every
//! command that writes a skill judges it the same way ([`validate_tree`]) first.
//!
//! - [`add`]: `skill add` (and `--all`), [`status`], [`pull`] (a three-way merge that keeps
//!   local edits), [`resolve`] and [`diff`], with their lock ([`lock`],
//!   `vendor-skills-lock.json`), sources ([`upstream`]) and kept bases ([`bases`]).
//! - [`manage`]: `skill remove` (an imported skill, its lock entry and kept base, all or
//!   nothing), `skill outdated` (which imports' refs moved) and `skill list` (every skill, own
//!   and imported).
//! - [`audit`]: `skill audit`, every file of a skill judged by the audit rules (`asv-audit`);
//!   [`gate`]: the same audit over what `add`, `pull`, `sync` and `install` are about to write.
//! - [`package`]: `skill pack`, a reproducible ZIP; [`install`]: `skill install` from a
//!   directory, a ZIP or a tarball, all skills in one transaction, into the directories of
//!   the agents [`targets`] knows; [`installed`]: what an install into the user's agent
//!   directories recorded.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let root = asv_fs::Root::open(dir.path())?;
//! root.write_file("skills/pdf/SKILL.md", b"---\nname: pdf\ndescription: Reads PDF files.\n---\n")?;
//! assert!(asv_skills::validate_skill(&root, "skills/pdf")?.is_empty());
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

pub mod add;
pub mod audit;
pub mod bases;
pub mod diff;
pub mod discover;
pub mod edits;
pub mod error;
mod follow;
#[doc(hidden)]
pub mod fuzz;
pub mod gate;
pub mod install;
pub mod installed;
pub mod intent;
pub mod lock;
pub mod manage;
pub mod naming;
pub mod package;
mod paths;
mod placing;
mod projection;
pub mod pull;
pub mod refs;
mod rename;
pub mod resolve;
mod signed;
mod signer;
pub mod sources;
pub mod status;
pub mod sync;
pub mod targets;
pub mod upstream;
mod validate;
pub mod verify;
pub mod weburl;

pub use asv_skilltree::normalize_name;
pub use error::Error;
pub use paths::skill_dir;
pub use validate::{
    Finding, KNOWN_KEYS, MAX_COMPATIBILITY, MAX_DESCRIPTION, MAX_LINES, MAX_NAME, Problem, Profile,
    Rule, Severity, has_errors, manifest_name, name_problem, validate_skill, validate_skill_as,
    validate_tree, validate_tree_as,
};
