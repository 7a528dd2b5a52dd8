//! The vocabulary every layer shares, below contracts, sources and skills alike: where things
//! live in a repository ([`layout`]), how a Markdown text splits at its frontmatter
//! ([`frontmatter`]), how YAML is read ([`yaml`]), how a JSON
//! lock's keys stand in its text ([`json`]), what a SKILL.md declares ([`declaration`],
//! [`id`]) and the values that name other repositories ([`source`]), and how long work reports how far it
//! has got ([`progress`]).
//!
//! It exists so the skill commands can read a SKILL.md and name a repository exactly as the
//! contract commands do without depending on them: one reader, one spelling.
#![deny(missing_docs)]

pub mod declaration;
pub mod error;
pub mod frontmatter;
#[doc(hidden)]
pub mod fuzz;
pub mod id;
pub mod ignore;
pub mod json;
pub mod layout;
pub mod progress;
pub mod source;
pub mod yaml;

pub use error::{Error, Result};
