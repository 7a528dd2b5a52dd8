//! What a raw-byte contract's src or a `.gitignore` holds that the tool cannot use.

use std::fmt;

use crate::id::ContractId;

/// What a raw-byte contract's src holds that it may not distribute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawSourceProblem {
    /// A `.gitignore` inside a directory src.
    GitignoreInside {
        /// The raw-byte contract.
        id: ContractId,
    },
    /// The marker `gen` writes, at the top of a directory src.
    MarkerInside {
        /// The raw-byte contract.
        id: ContractId,
    },
    /// The ignore rules leave no file of a directory src.
    AllExcluded {
        /// The raw-byte contract.
        id: ContractId,
    },
}

impl fmt::Display for RawSourceProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RawSourceProblem::GitignoreInside { id } => write!(
                f,
                "a .gitignore inside a directory {id} distributes would govern what git tracks in every skill it lands in; keep it out of the src"
            ),
            RawSourceProblem::MarkerInside { id } => write!(
                f,
                "{} at the top of a directory {id} distributes is the marker gen writes, and a copy carrying one of its own could never verify; remove it from the src",
                crate::raw::MARKER
            ),
            RawSourceProblem::AllExcluded { id } => write!(
                f,
                "the ignore rules exclude every file of directory mapping {id}; narrow the rules or remove the mapping"
            ),
        }
    }
}

/// Why a `.gitignore` file's rules cannot be used.
#[derive(Debug)]
pub enum GitignoreProblem {
    /// gix-ignore cannot place the rules under the file's directory: it found no parent
    /// directory, or one it cannot spell as git path bytes. The paths this crate passes are
    /// UTF-8 and always have a parent (the root's is empty), so this is never expected.
    Unplaceable(std::io::Error),
}

impl fmt::Display for GitignoreProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GitignoreProblem::Unplaceable(e) => e.fmt(f),
        }
    }
}
