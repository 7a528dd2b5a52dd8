//! What a repository holds that is likely a mistake though it changes nothing: keys of the
//! table and of the lock this tool does not read (typos, mostly), and `contracts` written at
//! the top level of a SKILL.md's frontmatter instead of under `metadata`. Returned as data;
//! the binary says them as warnings.

use std::fmt;

use asv_error::quote::DisplayPath;

use crate::repository::{LockFile, Repository};
use crate::typos::UnknownKey;

/// One thing worth a look in a repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Warning {
    /// A key of the table of origins this tool does not read.
    TableKey(UnknownKey),
    /// A key of the lock this tool does not read (gen writes the lock without it).
    LockKey(UnknownKey),
    /// `contracts` at the top level of a SKILL.md's frontmatter, where it declares nothing.
    TopLevelContracts {
        /// The SKILL.md.
        skill_md: String,
        /// The line of the key.
        line: usize,
    },
}

impl Warning {
    /// The file the warning is about.
    pub fn path(&self) -> &str {
        match self {
            Warning::TableKey(_) => asv_model::layout::MANIFEST,
            Warning::LockKey(_) => asv_model::layout::CONTRACT_LOCK,
            Warning::TopLevelContracts { skill_md, .. } => skill_md,
        }
    }

    /// The 1-based line at fault, when one is known.
    pub fn line(&self) -> Option<usize> {
        match self {
            Warning::TableKey(key) | Warning::LockKey(key) => key.line,
            Warning::TopLevelContracts { line, .. } => Some(*line),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", DisplayPath(self.path()))?;
        if let Some(line) = self.line() {
            write!(f, ":{line}")?;
        }
        match self {
            Warning::TableKey(key) => write!(f, ": {key}"),
            Warning::LockKey(key) => write!(f, ": {key} (gen writes the lock without it)"),
            Warning::TopLevelContracts { .. } => f.write_str(
                ": \"contracts\" at the top level of the frontmatter declares nothing; list the ids under metadata.contracts",
            ),
        }
    }
}

impl Repository<'_> {
    /// The repository's [`Warning`]s: the table's unknown keys, then the lock's, then each
    /// skill's misplaced `contracts`, skills in their order.
    pub fn warnings(&self) -> Vec<Warning> {
        let mut warnings: Vec<Warning> = self
            .manifest
            .unknown_keys
            .iter()
            .cloned()
            .map(Warning::TableKey)
            .collect();
        if let LockFile::Present { bytes, .. } = &self.lock_file {
            let text = String::from_utf8_lossy(bytes);
            warnings.extend(
                crate::typos::unknown_lock_keys(&text)
                    .into_iter()
                    .map(Warning::LockKey),
            );
        }
        warnings.extend(self.skills.iter().filter_map(|skill| {
            skill
                .misplaced_contracts
                .map(|line| Warning::TopLevelContracts {
                    skill_md: format!("{}/{}", skill.dir(), asv_model::layout::SKILL_MANIFEST),
                    line,
                })
        }));
        warnings
    }
}
