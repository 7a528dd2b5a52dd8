//! The one error type of `asv-contracts`.

use asv_fs::quote::DisplayPath;

/// What is wrong with `vendor-lock.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LockProblem {
    /// The bytes are not UTF-8.
    NotUtf8,
    /// The text is not JSON.
    NotJson {
        /// 1-based line of the parse failure.
        line: usize,
        /// The parser's description.
        message: String,
    },
    /// The top level is not an object.
    NotObject,
    /// A required top-level key is missing.
    Missing(&'static str),
    /// A top-level key holds something other than an object.
    NotAnObject(&'static str),
    /// A `resolutions` key is not an id.
    BadResolutionId(String),
    /// A resolution is not an object.
    ResolutionNotObject(String),
    /// A digest field is missing or not `sha256:<64 lowercase hex>`.
    BadDigest {
        /// The id.
        id: String,
        /// `digest` or `conformance`.
        field: &'static str,
    },
    /// A `placements` entry is malformed.
    BadPlacement {
        /// Where in the lock.
        at: String,
        /// What is wrong.
        what: &'static str,
    },
    /// `kind` is not `"raw"`.
    BadKind(String),
    /// A `sources` entry is malformed.
    BadSource {
        /// The source name as the lock spells it.
        name: String,
        /// The field at fault (`repository`, `revision`, `objectFormat`), `None` for the
        /// entry itself.
        field: Option<&'static str>,
        /// What is wrong.
        what: String,
    },
}

impl std::fmt::Display for LockProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockProblem::NotUtf8 => f.write_str("is not valid UTF-8"),
            LockProblem::NotJson { line, message } => {
                write!(f, "line {line}: is not valid JSON ({message})")
            }
            LockProblem::NotObject => f.write_str("is not a JSON object"),
            LockProblem::Missing(key) => write!(f, "has no \"{key}\" object"),
            LockProblem::NotAnObject(key) => write!(f, "\"{key}\" is not an object"),
            LockProblem::BadResolutionId(id) => write!(
                f,
                "resolutions has the key {}, which is not a contract id",
                asv_fs::quote::json_string(id)
            ),
            LockProblem::ResolutionNotObject(id) => write!(f, "resolutions.{id} is not an object"),
            LockProblem::BadDigest { id, field } => write!(
                f,
                "resolutions.{id}.{field} is not a digest of the form sha256:<64 lowercase hex digits>"
            ),
            LockProblem::BadPlacement { at, what } => write!(f, "{at} {what}"),
            LockProblem::BadKind(id) => {
                write!(f, "resolutions.{id}.kind is not \"raw\"")
            }
            LockProblem::BadSource { name, field, what } => {
                write!(f, "sources.{}", DisplayPath(name))?;
                if let Some(field) = field {
                    write!(f, ".{field}")?;
                }
                write!(f, " {what}")
            }
        }
    }
}

/// Everything `asv-contracts` refuses or fails at.
///
/// Every variant names the file (relative to the root, `/` separators) and says what to do,
/// so the binary prints it as it is after `error: `.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Guarded tree access refused or failed.
    #[error(transparent)]
    Fs(#[from] asv_fs::Error),
    /// A text file that must be UTF-8 is not (input side).
    #[error("{}: is not valid UTF-8; save it as UTF-8", DisplayPath(path))]
    NotUtf8 {
        /// The file.
        path: String,
    },
    /// A SKILL.md declaration the tool cannot make sense of (input side).
    #[error("{}{}: {problem}", DisplayPath(path), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Declaration {
        /// The SKILL.md.
        path: String,
        /// The 1-based line, when one line is at fault.
        line: Option<usize>,
        /// What is wrong.
        problem: asv_model::error::DeclarationProblem,
    },
    /// A contract's canonical text whose frontmatter cannot be told apart from its body
    /// (input side). The wording is the TypeScript tool's.
    #[error("{}: {problem}", DisplayPath(path))]
    ContractText {
        /// The text, from the root.
        path: String,
        /// What is wrong.
        problem: crate::frontmatter::FrontmatterProblem,
    },
    /// `vendor-manifest.yaml` cannot be used (input side).
    #[error("{}{}: {message}", DisplayPath(path), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Manifest {
        /// The manifest.
        path: String,
        /// The 1-based line, when one line is at fault.
        line: Option<usize>,
        /// What is wrong and what to do.
        message: String,
    },
    /// `vendor-lock.json` cannot be read as a lock (input side).
    #[error(
        "vendor-lock.json: {problem}; fix it by hand or delete it and run gen to write it again"
    )]
    Lock {
        /// What is wrong.
        problem: LockProblem,
    },
    /// A write failed after `gen` had begun changing the tree (destination side).
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
    #[error("{}: {message}", DisplayPath(path))]
    RawSource {
        /// The offending file or src.
        path: String,
        /// What is wrong and what to do.
        message: String,
    },
    /// Raw-byte dests that cannot be combined or written (input / destination side).
    #[error("{message}")]
    Placement {
        /// The whole refusal, naming the dest and what to do.
        message: String,
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
        contracts: Vec<(crate::id::ContractId, String)>,
    },
    /// Declared contracts from other repositories whose text the cache does not hold at the
    /// pinned commit (input side; a fetch puts it back).
    #[error(
        "the cache holds no text for {}; run fetch to put it back",
        remote_list(contracts)
    )]
    NotCached {
        /// Each contract with the source it is taken from, by id.
        contracts: Vec<(crate::id::ContractId, String)>,
    },
    /// Declared raw-byte contracts from other repositories whose files the cache does not hold
    /// at the pinned commit (input side; a fetch puts them back).
    #[error(
        "the cache holds no files for {}; run fetch to put them back",
        remote_list(contracts)
    )]
    NotCachedFiles {
        /// Each contract with the source it is taken from, by id.
        contracts: Vec<(crate::id::ContractId, String)>,
    },
    /// A `.gitignore` file cannot be used (input side).
    #[error("{}: {message}", DisplayPath(path))]
    Gitignore {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
}

/// `a (from s), b (from t)`.
fn remote_list(contracts: &[(crate::id::ContractId, String)]) -> String {
    contracts
        .iter()
        .map(|(id, source)| format!("{id} (from {source})"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Error {
    /// Whether the failure lies with the input (the user's tree) rather than the environment.
    pub fn is_input(&self) -> bool {
        match self {
            Error::Fs(e) => e.is_input(),
            Error::Interrupted { .. } => false,
            _ => true,
        }
    }
}

impl From<asv_model::Error> for Error {
    fn from(e: asv_model::Error) -> Self {
        match e {
            asv_model::Error::NotUtf8 { path } => Error::NotUtf8 { path },
            asv_model::Error::Declaration {
                path,
                line,
                problem,
            } => Error::Declaration {
                path,
                line,
                problem,
            },
        }
    }
}

/// The result type of `asv-contracts`.
pub type Result<T, E = Error> = std::result::Result<T, E>;
