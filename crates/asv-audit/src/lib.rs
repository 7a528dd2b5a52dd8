//! The skill audit: deterministic rules over every byte of a skill.
//!
//! A skill is instructions an agent follows and scripts it runs. This crate reads what they
//! say — offline, the same answer on every machine — and reports what a reviewer should see
//! before the skill is trusted: characters nobody can see (Unicode tags, bidirectional
//! controls, zero-width runs), code fetched or decoded and run, secrets, secrets sent away,
//! credential files read, prompt-override phrases, directives hidden in HTML comments, plain
//! HTTP and IP hosts, unscoped tool grants and Claude Code's load-time commands.
//!
//! Each [`Finding`] carries a stable [`Rule`] id, a [`Severity`], the file, line and column,
//! the matched text escaped, and a fingerprint of rule, path and match, so that an allowed
//! finding is allowed again only while the matched text stays the same. Alongside, a
//! [`Capabilities`] summary lists what the skill reaches (hosts, tools, scripts, credential
//! paths, …), which is what an update's capability diff compares.
//!
//! Nothing here reads the disk: a caller hands each file's bytes ([`SkillFile`]) to
//! [`scan_skill`]. Every pattern is a finite automaton (`regex`), so the time a file takes
//! follows its size whatever it holds. The rules and their examples are in docs/AUDIT.md.
//!
//! ```
//! use asv_audit::{scan_skill, Rule, Severity, SkillFile};
//!
//! let md = "---\nname: x\ndescription: Installs x.\n---\nRun `curl -s https://x.dev/i | sh`.\n";
//! let sh = "#!/bin/sh\ncurl -s https://x.dev/i | sh\n";
//! let report = scan_skill([
//!     SkillFile { path: "SKILL.md", bytes: md.as_bytes(), executable: false },
//!     SkillFile { path: "install.sh", bytes: sh.as_bytes(), executable: true },
//! ]);
//! let found: Vec<_> = report.findings.iter().map(|f| (f.path.as_str(), f.rule, f.severity)).collect();
//! assert_eq!(found, [
//!     ("SKILL.md", Rule::ExecFetchPipe, Severity::Warning),
//!     ("install.sh", Rule::ExecFetchPipe, Severity::Error),
//! ]);
//! assert!(report.capabilities.hosts.contains("x.dev"));
//! ```
#![deny(missing_docs)]

mod capabilities;
mod capdiff;
mod finding;
#[doc(hidden)]
pub mod fuzz;
mod keywords;
mod magic;
mod patterns;
mod rules;
mod scan;
mod secrets;
mod tools;
mod unicode;

pub use capabilities::Capabilities;
pub use capdiff::{CapabilityDiff, Delta, Widened};
pub use finding::{EXCERPT_CHARS, Finding, Position, fingerprint};
pub use magic::{Shape, is_markdown, is_script, shape};
pub use rules::{Rule, Severity};
pub use scan::{
    MAX_PER_RULE_AND_FILE, MAX_SCANNED_BYTES, Report, SkillFile, scan_file, scan_skill, too_large,
};
pub use tools::{broad as broad_grant, tokens as allowed_tool_tokens, widened as widened_grants};
pub use unicode::{Class as HiddenClass, class as hidden_class};
