//! Contracts: shared documents kept byte-identical across the skills that declare them.
//!
//! A contract's canonical text lives in one place (`contracts/<id>.md`, or the path the table
//! of origins names); every skill that declares the id in its SKILL.md frontmatter carries a
//! copy under `references/vendor/`, and `vendor-lock.json` records the digest distributed.
//! This crate reads all of that, writes the copies and the lock ([`generate()`]), checks the
//! tree against the lock ([`verify()`]), checks that skills stay self-contained ([`lint`]) and
//! checks itself against embedded vectors ([`selftest`]). It reads no environment, starts no
//! process and reaches no network: every byte comes through [`asv_fs::Root`]. A contract taken
//! from another repository ([`asv_model::source`]) is read from the cache ([`cache`]) at the commit the
//! lock pins; filling that cache is the fetching commands' business, not this crate's.
//!
//! The bytes and lines are fixed by the compatibility contract shared with the TypeScript
//! tool of the same name, so a repository written by one verifies clean under the other.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let root = asv_fs::Root::open(dir.path())?;
//! root.write_file("contracts/style.md", b"---\ntitle: Style\n---\n\nWrite plainly.\n")?;
//! root.write_file("skills/writer/SKILL.md", b"---\nname: writer\nmetadata:\n  contracts: [style]\n---\n")?;
//!
//! let repo = asv_contracts::Repository::load(&root)?;
//! let lock = root.lock_for_writing(std::time::Duration::from_secs(2))?;
//! let outcome = asv_contracts::generate(&repo, &lock)?;
//! let asv_contracts::GenOutcome::Done { events, .. } = outcome else { panic!() };
//! assert!(events[0].line_text().starts_with("adopted: style sha256:"));
//!
//! let copy = root.read_file("skills/writer/references/vendor/style.md")?.unwrap();
//! assert!(copy.ends_with(b"-->\n\nWrite plainly.\n"));
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

mod commands;
pub mod error;
mod formats;
#[doc(hidden)]
pub mod fuzz;
mod model;

pub use commands::{generate, init, lint, report, selftest, verify};
pub use formats::{digest, document, json, lock, manifest, table_edit, table_key, typos};
pub use model::{cache, placement, raw, repository, snapshot, warnings};

pub use digest::Digest;
pub use document::CanonicalBody;
pub use error::{Error, Result};
pub use generate::{GenOutcome, generate, plan_generate};
pub use report::{Event, Violation};
pub use repository::Repository;
pub use verify::verify;
