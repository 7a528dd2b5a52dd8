//! What a raw-byte contract's src or a `.gitignore` holds that the tool cannot use.

use std::fmt;

use asv_model::id::ContractId;

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
