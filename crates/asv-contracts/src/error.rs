//! The one error type of `asv-contracts`.

use asv_fs::quote::DisplayPath;

use crate::placement::DestKind;

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
    #[error("{}{}: {message}", DisplayPath(path), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Declaration {
        /// The SKILL.md.
        path: String,
        /// The 1-based line, when one line is at fault.
        line: Option<usize>,
        /// What is wrong and what to do.
        message: String,
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
    #[error("{problem}")]
    Placement {
        /// What is wrong, naming the dest.
        problem: PlacementProblem,
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
                message,
            } => Error::Declaration {
                path,
                line,
                message,
            },
        }
    }
}

/// The result type of `asv-contracts`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why raw-byte dests cannot be combined, written or cleared.
///
/// Each names the dest (from the root, `/` separators) and says what to do; the tool only ever
/// touches what it can show it wrote, so most of these stop `gen` before anything changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlacementProblem {
    /// Two dests of one skill are the same or nest.
    DestsOverlap {
        /// The skill.
        skill: String,
        /// The contract placed second.
        id: crate::id::ContractId,
        /// Its dest, skill-relative.
        dest: String,
        /// The dest it collides with, skill-relative.
        other: String,
        /// The contract placed there.
        other_id: crate::id::ContractId,
    },
    /// The repository's `.gitignore` rules exclude the dest itself.
    DestIgnored {
        /// `skills/<skill>/<dest>`.
        site: String,
    },
    /// The repository's `.gitignore` rules would exclude a planned file of a directory dest.
    FileIgnored {
        /// `skills/<skill>/<dest>`.
        site: String,
        /// The file, relative to the dest.
        file: String,
    },
    /// Something of the other kind stands where this run writes, and the lock does not record
    /// it as the tool's.
    UnownedKind {
        /// `skills/<skill>/<dest>`.
        site: String,
        /// What stands there.
        found: DestKind,
        /// What this run writes.
        planned: DestKind,
    },
    /// Something the lock does not record stands where this run writes, and it is not what
    /// this run would write.
    Unowned {
        /// `skills/<skill>/<dest>`.
        site: String,
        /// The first file that differs or is not this run's to write, from the root.
        differs: String,
    },
    /// A recorded dest to clear nests with a dest this run writes.
    NestsWithPlanned {
        /// The recorded `skills/<skill>/<dest>`.
        site: String,
        /// The `skills/<skill>/<dest>` this run writes.
        planned: String,
    },
    /// A recorded dest to clear holds the other kind of entry.
    ClearWrongKind {
        /// `skills/<skill>/<dest>`.
        site: String,
        /// What the lock records.
        recorded: DestKind,
        /// What stands there.
        found: DestKind,
    },
    /// A recorded dest to clear no longer holds what the lock records.
    ClearEdited {
        /// `skills/<skill>/<dest>`.
        site: String,
    },
    /// Old and new dests of a skill overlap, but no one of them holds all the others.
    NoOutermost {
        /// The skill.
        skill: String,
    },
    /// An old dest of a migration is gone or of the other kind.
    MigrateMissing {
        /// `skills/<skill>/<dest>`.
        site: String,
        /// What the lock records.
        recorded: DestKind,
    },
    /// An old dest of a migration no longer holds what the lock records.
    MigrateEdited {
        /// `skills/<skill>/<dest>`.
        site: String,
    },
    /// Something under a migration's outermost dest is neither an old placement's nor this
    /// run's.
    MigrateForeign {
        /// The outermost `skills/<skill>/<dest>`.
        site: String,
        /// The foreign file, from the root.
        foreign: String,
    },
    /// `verify` found the other kind of entry at a recorded dest.
    RecordedWrongKind {
        /// `skills/<skill>/<dest>`.
        site: String,
        /// What the lock records.
        recorded: DestKind,
        /// What stands there.
        found: DestKind,
    },
    /// The table and the lock disagree on whether a contract is a document or raw bytes.
    KindChanged {
        /// The contract.
        id: crate::id::ContractId,
        /// What the lock resolves it as (the table says the other).
        locked: crate::lock::ContractKind,
    },
}

impl std::fmt::Display for PlacementProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use asv_fs::quote::json_string;
        match self {
            PlacementProblem::DestsOverlap {
                skill,
                id,
                dest,
                other,
                other_id,
            } => write!(
                f,
                "skill {} places contract {id} at {}, which is the same as or nests with {} of contract {other_id}; two distributions cannot share a place in one skill, so change one dest in vendor-manifest.yaml",
                json_string(skill),
                json_string(dest),
                json_string(other)
            ),
            PlacementProblem::DestIgnored { site } => write!(
                f,
                "{} is excluded by the repository's .gitignore rules; a dest verify cannot see is not one gen may write, so change the rule or the dest",
                DisplayPath(site)
            ),
            PlacementProblem::FileIgnored { site, file } => write!(
                f,
                "{}/{file} would be excluded by the repository's .gitignore rules once placed; a distributed file verify cannot see is not one gen may write, so change the rule or the dest",
                DisplayPath(site)
            ),
            PlacementProblem::UnownedKind {
                site,
                found,
                planned,
            } => write!(
                f,
                "refusing to write {}: a {found} stands there that the lock does not record as this tool's, and this run writes a {planned}; move it aside or delete it by hand",
                DisplayPath(site)
            ),
            PlacementProblem::Unowned { site, differs } => write!(
                f,
                "refusing to write {}: something stands there that the lock does not record as this tool's, and it is not what this run would write — {} differs or is not this run's to write; move it aside or delete it by hand",
                DisplayPath(site),
                DisplayPath(differs)
            ),
            PlacementProblem::NestsWithPlanned { site, planned } => write!(
                f,
                "{} is recorded in the lock and nests with {}, which this run writes; this build does not move ownership between nested dests: withdraw the declaration from every skill, run gen, then place the new dest",
                DisplayPath(site),
                DisplayPath(planned)
            ),
            PlacementProblem::ClearWrongKind {
                site,
                recorded,
                found,
            } => write!(
                f,
                "{}: the lock records a {recorded} there, found a {found}; it is not this tool's to clear, so move it aside by hand",
                DisplayPath(site)
            ),
            PlacementProblem::ClearEdited { site } => write!(
                f,
                "refusing to clear {}: it no longer holds what the lock recorded this tool wrote there; delete it by hand if it is not yours",
                DisplayPath(site)
            ),
            PlacementProblem::NoOutermost { skill } => write!(
                f,
                "placements in skill {} overlap but have no single owned outermost dest; withdraw the declarations, run gen, then place the new dests",
                json_string(skill)
            ),
            PlacementProblem::MigrateMissing { site, recorded } => write!(
                f,
                "{} no longer has the {recorded} placement recorded by the lock; restore it or delete the lock's record by hand before moving the dest",
                DisplayPath(site)
            ),
            PlacementProblem::MigrateEdited { site } => write!(
                f,
                "refusing to migrate {}: it no longer holds the placement recorded by the lock; restore it or move it aside by hand",
                DisplayPath(site)
            ),
            PlacementProblem::MigrateForeign { site, foreign } => write!(
                f,
                "refusing to write {}: {} is not owned by an old placement or written by this run; move it aside or delete it by hand",
                DisplayPath(site),
                DisplayPath(foreign)
            ),
            PlacementProblem::RecordedWrongKind {
                site,
                recorded,
                found,
            } => write!(
                f,
                "{}: vendor-lock.json records a {recorded} there, found a {found}; move it aside and run gen",
                DisplayPath(site)
            ),
            PlacementProblem::KindChanged { id, locked } => {
                // The lock's side reads "raw-byte" without an article: today's wording, kept
                // byte for byte.
                let (table, locked) = match locked {
                    crate::lock::ContractKind::Document => ("a raw-byte", "a document"),
                    crate::lock::ContractKind::Raw => ("a document", "raw-byte"),
                };
                write!(
                    f,
                    "{id} is {table} contract in vendor-manifest.yaml but vendor-lock.json resolves it as {locked}; a contract cannot change kind in place: withdraw it from every skill, run gen, take the row out, run gen again, then write the new row"
                )
            }
        }
    }
}

impl From<PlacementProblem> for Error {
    fn from(problem: PlacementProblem) -> Self {
        Error::Placement { problem }
    }
}
