//! The one error type of `asv-contracts`, and the problem types its refusals carry.
//!
//! A refusal keeps the values it is about (ids, names, paths, kinds of YAML node), never
//! preformatted text; each problem's `Display` words it exactly as the TypeScript tool and
//! earlier releases did, so the printed lines do not change (issue 12).

use asv_error::quote::DisplayPath;
use asv_error::{Failure, Location, Side};
use asv_model::id::ContractId;

use crate::lock::{ContractKind, LOCK_FILE};
use crate::manifest::MANIFEST_FILE;

mod lock;
mod manifest;
mod placement;
mod raw;
#[cfg(test)]
mod tests;

pub use lock::{LockProblem, PinProblem};
pub use manifest::{ManifestProblem, PathField, ReservedDest};
pub use placement::PlacementProblem;
pub use raw::RawSourceProblem;

/// Everything `asv-contracts` refuses or fails at.
///
/// Every variant names the file (relative to the root, `/` separators) and says what to do,
/// so the binary prints it as it is after `error: `.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Guarded tree access refused or failed.
    #[error(transparent)]
    Fs(#[from] asv_fs::Error),
    /// A text file that is not UTF-8, or a SKILL.md declaration the tool cannot make sense
    /// of (input side): the shared model's refusal, as it is.
    #[error(transparent)]
    Model(#[from] asv_model::Error),
    /// A contract's canonical text whose frontmatter cannot be told apart from its body
    /// (input side). The wording is the TypeScript tool's.
    #[error("{}: {problem}", DisplayPath(path))]
    ContractText {
        /// The text, from the root.
        path: String,
        /// What is wrong.
        problem: asv_model::frontmatter::FrontmatterProblem,
    },
    /// `vendor-manifest.yaml` cannot be used (input side).
    #[error("{MANIFEST_FILE}{}: {problem}", line.map(|l| format!(":{l}")).unwrap_or_default())]
    Manifest {
        /// The 1-based line, when one line is at fault.
        line: Option<usize>,
        /// What is wrong.
        problem: ManifestProblem,
    },
    /// `vendor-lock.json` cannot be read as a lock (input side).
    #[error(
        "vendor-lock.json: {problem}; fix it by hand or delete it and run gen to write it again"
    )]
    Lock {
        /// What is wrong.
        problem: LockProblem,
    },
    /// A write failed while `gen` was changing the tree and every change was undone, so the
    /// tree is as it was before the run (destination side). The source says why.
    #[error(
        "gen changed nothing: a write failed and every change was undone; fix the cause and run gen again"
    )]
    RolledBack {
        /// The failure that stopped it.
        #[source]
        source: Box<Error>,
    },
    /// A write failed after `gen` had begun changing the tree and undoing the changes failed
    /// too, so some destinations hold what the run left (destination side). The source, an
    /// [`asv_fs::Error::RollbackIncomplete`], names them and the failure that started it.
    #[error("gen stopped part-way, leaving a tree verify reports; fix the cause and run gen again")]
    Interrupted {
        /// The failure that stopped it.
        #[source]
        source: Box<Error>,
    },
    /// Only the lock's old name, `vendor-manifest.json`, stands at the root (input side).
    #[error(
        "vendor-manifest.json is the name the lock had before vendor-lock.json; rename the file to vendor-lock.json"
    )]
    LegacyLock,
    /// The lock records a skill whose entry under `skills/` is not a directory (input side).
    #[error(
        "{} is recorded in the lock but is not a directory; restore the skill directory or run gen after removing it from the lock",
        DisplayPath(path)
    )]
    SkillNotDirectory {
        /// The entry.
        path: String,
    },
    /// `lint-selfcontain` found no `skills/` directory to check (input side).
    #[error(
        "skills/ does not exist in this tree; run from the repository root or pass --root <path>"
    )]
    NoSkillsDir,
    /// A raw-byte contract's src holds something it may not distribute (input side).
    #[error("{}: {problem}", DisplayPath(path))]
    RawSource {
        /// The offending file or src.
        path: String,
        /// What is wrong.
        problem: RawSourceProblem,
    },
    /// Raw-byte dests that cannot be combined or written (input / destination side).
    #[error("{problem}")]
    Placement {
        /// What is wrong, naming the dest.
        problem: PlacementProblem,
    },
    /// The table makes a contract another kind (document or raw bytes) than the lock
    /// resolves it as (input side).
    #[error("{}", kind_changed(id, *table, *has_row))]
    KindChanged {
        /// The contract.
        id: ContractId,
        /// The kind the table makes it; the lock resolves it as the other one.
        table: ContractKind,
        /// Whether the table has a row for it (without one, a declared id reads as a document
        /// at `contracts/<id>.md`).
        has_row: bool,
    },
    /// The lock pins a source to another repository than the table registers it at, so a
    /// command that would act on the pin stops (input side).
    #[error(
        "vendor-lock.json pins {name} to {pinned} while vendor-manifest.yaml registers {registered}; run update to pin the registered repository and take up what it holds"
    )]
    PinnedElsewhere {
        /// The source name.
        name: String,
        /// The repository the lock pins it to.
        pinned: String,
        /// The repository the table registers.
        registered: String,
    },
    /// Declared contracts from other repositories whose source the lock pins no commit for,
    /// so `gen` has nothing to read them from (input side).
    #[error(
        "vendor-lock.json pins no commit for the source of {}; run update to resolve one",
        remote_list(contracts)
    )]
    Unpinned {
        /// Each contract with the source it is taken from, by id.
        contracts: Vec<(ContractId, String)>,
    },
    /// Declared contracts from other repositories whose text the cache does not hold at the
    /// pinned commit (input side; a fetch puts it back).
    #[error(
        "the cache holds no text for {}; run fetch to put it back",
        remote_list(contracts)
    )]
    NotCached {
        /// Each contract with the source it is taken from, by id.
        contracts: Vec<(ContractId, String)>,
    },
    /// Declared raw-byte contracts from other repositories whose files the cache does not hold
    /// at the pinned commit (input side; a fetch puts them back).
    #[error(
        "the cache holds no files for {}; run fetch to put them back",
        remote_list(contracts)
    )]
    NotCachedFiles {
        /// Each contract with the source it is taken from, by id.
        contracts: Vec<(ContractId, String)>,
    },
}

/// `a (from s), b (from t)`.
fn remote_list(contracts: &[(ContractId, String)]) -> String {
    contracts
        .iter()
        .map(|(id, source)| format!("{id} (from {source})"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Failure for Error {
    /// Which side the failure lies with.
    ///
    /// A guarded tree access answers for itself; a `gen` stopped part-way lies with the
    /// destination it left half-written; a `.gitignore` whose rules cannot be placed is this
    /// tool's fault ([`asv_model::error::GitignoreProblem::Unplaceable`]); every other
    /// refusal lies with the input: the tree, the table, the lock or the cache the user gave.
    /// A refusal of raw-byte dests ([`Error::Placement`]) says itself
    /// ([`PlacementProblem::side`]).
    fn side(&self) -> Side {
        match self {
            Error::Fs(e) => e.side(),
            Error::Interrupted { .. } | Error::RolledBack { .. } => Side::Destination,
            Error::Placement { problem } => problem.side(),
            Error::Model(e) => e.side(),
            Error::ContractText { .. }
            | Error::Manifest { .. }
            | Error::Lock { .. }
            | Error::LegacyLock
            | Error::SkillNotDirectory { .. }
            | Error::NoSkillsDir
            | Error::RawSource { .. }
            | Error::KindChanged { .. }
            | Error::PinnedElsewhere { .. }
            | Error::Unpinned { .. }
            | Error::NotCached { .. }
            | Error::NotCachedFiles { .. } => Side::Input,
        }
    }

    /// The file (from the root) and line the failure is about, when there is one: the
    /// SKILL.md of a declaration, `vendor-manifest.yaml` of a table refusal, `vendor-lock.json`
    /// of a lock refusal or a pin, the file of a guarded access. `None` for what no one file
    /// holds: a missing `skills/`, the cache, clashing dests of a skill.
    fn location(&self) -> Option<Location> {
        match self {
            Error::Fs(e) => e.location(),
            Error::Interrupted { source } | Error::RolledBack { source } => source.location(),
            Error::Model(e) => e.location(),
            Error::SkillNotDirectory { path } | Error::RawSource { path, .. } => {
                Some(Location::file(path.clone()))
            }
            Error::ContractText { path, problem } => {
                Some(Location::at(path.clone(), Some(problem.line())))
            }
            Error::Manifest { line, .. } => Some(Location::at(MANIFEST_FILE, *line)),
            Error::KindChanged { .. } => Some(Location::file(MANIFEST_FILE)),
            Error::Lock { problem } => {
                // Only a lock that does not parse has one line at fault.
                let line = if let LockProblem::NotJson { line, .. }
                | LockProblem::DuplicateKey { line, .. } = problem
                {
                    Some(*line)
                } else {
                    None
                };
                Some(Location::at(LOCK_FILE, line))
            }
            Error::LegacyLock => Some(Location::file(crate::repository::LEGACY_LOCK_FILE)),
            Error::PinnedElsewhere { .. } | Error::Unpinned { .. } => {
                Some(Location::file(LOCK_FILE))
            }
            Error::Placement { problem } => problem.site().map(Location::file),
            Error::NoSkillsDir | Error::NotCached { .. } | Error::NotCachedFiles { .. } => None,
        }
    }
}

impl Error {
    /// The failure of `gen`'s tree change, worded by how far it got: [`Error::Interrupted`]
    /// when the rollback could not complete ([`asv_fs::Error::RollbackIncomplete`]),
    /// [`Error::RolledBack`] for any other failure, which `asv-fs` returns only once every
    /// destination holds again what it held.
    pub fn from_gen_apply(e: asv_fs::Error) -> Self {
        match e {
            asv_fs::Error::RollbackIncomplete { .. } => Error::Interrupted {
                source: Box::new(e.into()),
            },
            _ => Error::RolledBack {
                source: Box::new(e.into()),
            },
        }
    }

    /// The refusal of a text file (from the root) that is not UTF-8.
    pub fn not_utf8(path: impl Into<String>) -> Self {
        Error::Model(asv_model::Error::NotUtf8 { path: path.into() })
    }
}

/// The result type of `asv-contracts`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The words of [`Error::KindChanged`]: a row that says the other kind, or no row at all.
fn kind_changed(id: &ContractId, table: ContractKind, has_row: bool) -> String {
    if !has_row {
        return format!(
            "{id} has no row in vendor-manifest.yaml, so it reads as a document contract, but vendor-lock.json resolves it as raw-byte; put its files row back in vendor-manifest.yaml, or withdraw it from every skill and run gen before declaring it as a document"
        );
    }
    let (row, lock) = match table {
        ContractKind::Raw => ("a raw-byte", "a document"),
        ContractKind::Document => ("a document", "raw-byte"),
    };
    format!(
        "{id} is {row} contract in vendor-manifest.yaml but vendor-lock.json resolves it as {lock}; a contract cannot change kind in place: withdraw it from every skill, run gen, take the row out, run gen again, then write the new row"
    )
}
