//! The one error type of `asv-contracts`, and the problem types its refusals carry.
//!
//! A refusal keeps the values it is about (ids, names, paths, kinds of YAML node), never
//! preformatted text; each problem's `Display` words it exactly as the TypeScript tool and
//! earlier releases did, so the printed lines do not change (issue 12).

use std::fmt;

use asv_fs::quote::{DisplayPath, json_string};
use asv_fs::{Location, Side};

use crate::id::{ContractId, IdProblem};
use crate::lock::{ContractKind, LOCK_FILE};
use crate::manifest::MANIFEST_FILE;
use crate::source::{RepositoryProblem, SourceName, SourceNameProblem};

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

/// A field of a `contracts` row that holds a path to a canonical text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathField {
    /// `path`: where a document contract's text is.
    Path,
    /// A key of `files`: a raw-byte contract's src.
    FilesSrc,
}

impl fmt::Display for PathField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PathField::Path => "path",
            PathField::FilesSrc => "files src",
        })
    }
}

/// Why a raw-byte dest is a name no mapping may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReservedDest {
    /// `SKILL.md`, the skill's own file.
    SkillMd,
    /// The marker `gen` writes at the top of a directory dest (left out of every digest).
    Marker,
    /// A `.gitignore` file, which would govern what git tracks in the skill.
    Gitignore,
    /// At, under or over `references/vendor/`, where the document copies live.
    VendorCopies,
}

/// What is wrong with `vendor-manifest.yaml`, the table of origins.
///
/// Each variant carries the values it is about; [`fmt::Display`] words it as the refusal
/// that follows `vendor-manifest.yaml[:<line>]: `, ending with what to do. Kinds of YAML node
/// are the words of [`crate::yaml::Yaml::kind`] (`a list`, `a mapping`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ManifestProblem {
    /// The text is not YAML.
    NotYaml {
        /// What the parser said, on one line.
        message: String,
    },
    /// The top level is a YAML node other than a mapping.
    NotMapping {
        /// The kind of node found.
        found: &'static str,
    },
    /// `contracts` is neither a mapping nor empty.
    ContractsNotMapping {
        /// The kind of node found.
        found: &'static str,
    },
    /// A key of `contracts` is not text.
    ContractKeyNotText {
        /// The kind of node found.
        found: &'static str,
    },
    /// A key of `contracts` is not a contract id.
    BadContractId {
        /// The key as written.
        key: String,
        /// Why it is not an id.
        problem: IdProblem,
    },
    /// `sources` is neither a mapping nor empty.
    SourcesNotMapping {
        /// The kind of node found.
        found: &'static str,
    },
    /// A key of `sources` is not text.
    SourceKeyNotText {
        /// The kind of node found.
        found: &'static str,
    },
    /// A key of `sources` is not a usable source name.
    BadSourceName {
        /// The key as written.
        key: String,
        /// Why it is not a source name.
        problem: SourceNameProblem,
    },
    /// A `sources` entry is not a mapping.
    SourceNotMapping {
        /// The source.
        name: SourceName,
        /// The kind of node found.
        found: &'static str,
    },
    /// A `sources` entry has no `repository`.
    NoRepository {
        /// The source.
        name: SourceName,
    },
    /// A source's `repository` is text of no accepted form.
    BadRepository {
        /// The source.
        name: SourceName,
        /// What rules it out (never repeating the text, which may carry a credential).
        problem: RepositoryProblem,
    },
    /// A source's `repository` is not text.
    RepositoryNotText {
        /// The source.
        name: SourceName,
        /// The kind of node found.
        found: &'static str,
    },
    /// A `sources` entry has no `ref`.
    NoRef {
        /// The source.
        name: SourceName,
    },
    /// A source's `ref` is text that is not a branch, tag or commit id.
    BadRef {
        /// The source.
        name: SourceName,
        /// The `ref` as written.
        text: String,
    },
    /// A source's `ref` is not text.
    RefNotText {
        /// The source.
        name: SourceName,
        /// The kind of node found.
        found: &'static str,
    },
    /// A `contracts` row is not a mapping.
    RowNotMapping {
        /// The contract.
        id: ContractId,
        /// The kind of node found.
        found: &'static str,
    },
    /// A row's `source` or `path` is not text.
    RowFieldNotText {
        /// The contract.
        id: ContractId,
        /// The key: `source` or `path`.
        key: &'static str,
        /// The kind of node found.
        found: &'static str,
    },
    /// A row names no `source`.
    NoSource {
        /// The contract.
        id: ContractId,
    },
    /// A row's `source` is neither `local` nor a registered source.
    UnregisteredSource {
        /// The contract.
        id: ContractId,
        /// The source as written.
        source: String,
    },
    /// A row carries both `files` and `path`.
    FilesAndPath {
        /// The contract.
        id: ContractId,
    },
    /// A path of a row taken from another repository does not stay inside that repository.
    OutsideSource {
        /// The contract.
        id: ContractId,
        /// Which field holds the path.
        field: PathField,
        /// The path as written (a directory's trailing `/` removed).
        path: String,
    },
    /// A path of a local row does not stay inside this repository.
    OutsideRepository {
        /// The contract.
        id: ContractId,
        /// Which field holds the path.
        field: PathField,
        /// The path as written (a directory's trailing `/` removed).
        path: String,
    },
    /// A path of a local row points into a directory of copies (`skills/`, the tool's own).
    IntoCopies {
        /// The contract.
        id: ContractId,
        /// Which field holds the path.
        field: PathField,
        /// The path as written (a directory's trailing `/` removed).
        path: String,
        /// The directory it points into, without its `/`.
        dir: &'static str,
    },
    /// A row's `files` is not a mapping.
    FilesNotMapping {
        /// The contract.
        id: ContractId,
        /// The kind of node found.
        found: &'static str,
    },
    /// A `files` line whose src or dest is not text.
    FilesLineNotText {
        /// The contract.
        id: ContractId,
        /// The kind of the src node.
        src: &'static str,
        /// The kind of the dest node.
        dest: &'static str,
    },
    /// A `files` line maps a directory to a file or a file to a directory.
    FileDirMismatch {
        /// The contract.
        id: ContractId,
        /// The src as written (a trailing `/` makes it a directory).
        src: String,
        /// The dest as written (a trailing `/` makes it a directory).
        dest: String,
    },
    /// A `files` dest that does not stay inside the skill.
    DestOutsideSkill {
        /// The contract.
        id: ContractId,
        /// The dest, its trailing `/` removed.
        dest: String,
    },
    /// A `files` dest that is a name no mapping may write.
    ReservedDest {
        /// The contract.
        id: ContractId,
        /// The dest, its trailing `/` removed.
        dest: String,
        /// Why it is reserved.
        reserved: ReservedDest,
    },
    /// A row's `files` maps nothing.
    FilesEmpty {
        /// The contract.
        id: ContractId,
    },
    /// An `ignore` list that is not a list.
    IgnoreNotList {
        /// The row whose `ignore` it is; `None` for the top-level list.
        contract: Option<ContractId>,
        /// The kind of node found.
        found: &'static str,
    },
    /// An `ignore` list holding something other than text.
    IgnoreNotText {
        /// The row whose `ignore` it is; `None` for the top-level list.
        contract: Option<ContractId>,
        /// The kind of node found.
        found: &'static str,
    },
    /// An `ignore` pattern starting with `!`, which would re-include paths.
    IgnoreNegated {
        /// The row whose `ignore` it is; `None` for the top-level list.
        contract: Option<ContractId>,
        /// The pattern.
        pattern: String,
    },
    /// A block `gen` must add a line to is written in flow style, on one line.
    FlowBlock {
        /// The block: `contracts` or `sources`.
        block: &'static str,
    },
    /// A row no skill declares any more is written in a form `gen` cannot take out.
    RowNotRemovable {
        /// The contract.
        id: ContractId,
    },
    /// A raw-byte src at, under or over a document contract's conformance directory.
    SrcOverConformance {
        /// The raw-byte contract.
        id: ContractId,
        /// The src as the lock spells it (a directory keeps its trailing `/`).
        src: String,
        /// The conformance directory.
        dir: String,
        /// The document contract whose tests live there.
        document: ContractId,
    },
}

/// `ignore` or `contracts.<id>.ignore`.
struct IgnoreList<'a>(&'a Option<ContractId>);

impl fmt::Display for IgnoreList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            None => f.write_str("ignore"),
            Some(id) => write!(f, "contracts.{id}.ignore"),
        }
    }
}

impl fmt::Display for ManifestProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ManifestProblem as P;
        match self {
            P::NotYaml { message } => write!(f, "is not valid YAML ({message}); fix the syntax"),
            P::NotMapping { found } => write!(f, "the top level is {found}, expected a mapping"),
            P::ContractsNotMapping { found } => {
                write!(f, "contracts is {found}, expected a mapping of ids")
            }
            P::ContractKeyNotText { found } => {
                write!(f, "a contracts key is {found}, expected an id")
            }
            P::BadContractId { key, problem } => write!(
                f,
                "contracts.{} is not a usable contract id: {problem}",
                json_string(key)
            ),
            P::SourcesNotMapping { found } => {
                write!(f, "sources is {found}, expected a mapping of source names")
            }
            P::SourceKeyNotText { found } => {
                write!(f, "a sources key is {found}, expected a source name")
            }
            P::BadSourceName { key, problem } => write!(
                f,
                "sources.{} is not a usable source name: {problem}; choose another name",
                json_string(key)
            ),
            P::SourceNotMapping { name, found } => write!(
                f,
                "sources.{name} is {found}, expected a mapping with repository and ref"
            ),
            P::NoRepository { name } => write!(
                f,
                "sources.{name} has no repository; write the repository the source is fetched from"
            ),
            P::BadRepository { name, problem } => write!(
                f,
                "sources.{name}.repository is not usable: {problem}; write owner/repo, ssh://…, user@host:path or https://…"
            ),
            P::RepositoryNotText { name, found } => write!(
                f,
                "sources.{name}.repository is {found}, expected the repository as text"
            ),
            P::NoRef { name } => write!(
                f,
                "sources.{name} has no ref; write the branch, tag or commit id to fetch"
            ),
            P::BadRef { name, text } => write!(
                f,
                "sources.{name}.ref must be a branch, tag or commit id, found {}",
                json_string(text)
            ),
            P::RefNotText { name, found } => write!(
                f,
                "sources.{name}.ref is {found}, expected a branch, tag or commit id as text"
            ),
            P::RowNotMapping { id, found } => write!(
                f,
                "contracts.{id} is {found}, expected a mapping with source"
            ),
            P::RowFieldNotText { id, key, found } => {
                write!(f, "contracts.{id}.{key} is {found}, expected a string")
            }
            P::NoSource { id } => write!(
                f,
                "contracts.{id} has no source; write source: local or a source name"
            ),
            P::UnregisteredSource { id, source } => write!(
                f,
                "contracts.{id} names the source {}, which no sources entry registers; register it with add or write source: local",
                json_string(source)
            ),
            P::FilesAndPath { id } => write!(
                f,
                "contracts.{id} carries both files and path; a raw-byte contract's canonical paths are the keys of files, so remove path"
            ),
            P::OutsideSource { id, field, path } => write!(
                f,
                "contracts.{id}.{field} {} is not a relative path inside the source; write it with / separators and no . or .. segments",
                json_string(path)
            ),
            P::OutsideRepository { id, field, path } => write!(
                f,
                "contracts.{id}.{field} {} is not a relative path inside the repository; write it with / separators and no . or .. segments",
                json_string(path)
            ),
            P::IntoCopies {
                id,
                field,
                path,
                dir,
            } => write!(
                f,
                "contracts.{id}.{field} {} points into {dir}/, which holds copies, not canonical text; keep the text elsewhere",
                json_string(path)
            ),
            P::FilesNotMapping { id, found } => write!(
                f,
                "contracts.{id}.files is {found}, expected a mapping of src: dest lines"
            ),
            P::FilesLineNotText { id, src, dest } => write!(
                f,
                "contracts.{id}.files holds a line that is not text: text (found {src}: {dest})"
            ),
            P::FileDirMismatch { id, src, dest } => {
                let kind = |side: &str| {
                    if side.ends_with('/') {
                        "directory"
                    } else {
                        "file"
                    }
                };
                write!(
                    f,
                    "contracts.{id}.files maps {} to {}, a {} to a {}; end both sides in a slash (directories) or neither (files)",
                    json_string(src),
                    json_string(dest),
                    kind(src),
                    kind(dest)
                )
            }
            P::DestOutsideSkill { id, dest } => write!(
                f,
                "contracts.{id}.files names the dest {}, which does not stay inside the skill; write it relative to the skill with no . or .. segments",
                json_string(dest)
            ),
            P::ReservedDest { id, dest, reserved } => {
                write!(f, "contracts.{id}.files names the dest ")?;
                match reserved {
                    ReservedDest::SkillMd => {
                        f.write_str("SKILL.md, which every skill keeps for itself")?
                    }
                    ReservedDest::Marker => write!(
                        f,
                        "{}, the name of the marker gen writes (left out of every digest, so it could never verify)",
                        json_string(dest)
                    )?,
                    ReservedDest::Gitignore => write!(
                        f,
                        "{}, a .gitignore, which would govern what git tracks in every skill it lands in",
                        json_string(dest)
                    )?,
                    ReservedDest::VendorCopies => write!(
                        f,
                        "{}, at, under or over references/vendor/, where the document copies live",
                        json_string(dest)
                    )?,
                }
                f.write_str("; choose another dest")
            }
            P::FilesEmpty { id } => write!(
                f,
                "contracts.{id}.files maps nothing; a raw-byte contract distributes at least one file or directory"
            ),
            P::IgnoreNotList { contract, found } => write!(
                f,
                "{} is {found}, expected a list of .gitignore patterns",
                IgnoreList(contract)
            ),
            P::IgnoreNotText { contract, found } => write!(
                f,
                "{} holds {found}, expected only text patterns",
                IgnoreList(contract)
            ),
            P::IgnoreNegated { contract, pattern } => write!(
                f,
                "{} cannot re-include paths with {}; ignore rules only add exclusions (escape a literal leading ! as \\!)",
                IgnoreList(contract),
                json_string(pattern)
            ),
            P::FlowBlock { block } => write!(
                f,
                "the {block} block is written on one line, which leaves nowhere to add an entry under it; write {block}: on a line of its own with each entry indented beneath it"
            ),
            P::RowNotRemovable { id } => write!(
                f,
                "nothing declares {id} any more, and its contracts.{id} entry is not written in a form this tool can take out; take the entry out by hand"
            ),
            P::SrcOverConformance {
                id,
                src,
                dir,
                document,
            } => write!(
                f,
                "contracts.{id}.files names the src {}, which is at, under or over {dir}, the conformance directory of {document}; tests are collected by prefix, so move one of them",
                json_string(src)
            ),
        }
    }
}

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
    #[error(
        "{id} is {} contract in vendor-manifest.yaml but vendor-lock.json resolves it as {}; a contract cannot change kind in place: withdraw it from every skill, run gen, take the row out, run gen again, then write the new row",
        match table { ContractKind::Raw => "a raw-byte", ContractKind::Document => "a document" },
        match table { ContractKind::Raw => "a document", ContractKind::Document => "raw-byte" }
    )]
    KindChanged {
        /// The contract.
        id: ContractId,
        /// The kind the table makes it; the lock resolves it as the other one.
        table: ContractKind,
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
    /// A `.gitignore` file's rules cannot be used (internal side: see
    /// [`GitignoreProblem::Unplaceable`]).
    #[error("{}: {problem}", DisplayPath(path))]
    Gitignore {
        /// The file.
        path: String,
        /// What is wrong.
        problem: GitignoreProblem,
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
    /// Which side the failure lies with.
    ///
    /// A guarded tree access answers for itself; a `gen` stopped part-way lies with the
    /// destination it left half-written; a `.gitignore` whose rules cannot be placed is this
    /// tool's fault ([`GitignoreProblem::Unplaceable`]); every other refusal lies with the
    /// input: the tree, the table, the lock or the cache the user gave. A refusal of raw-byte
    /// dests ([`Error::Placement`]) says itself ([`PlacementProblem::side`]).
    pub fn side(&self) -> Side {
        match self {
            Error::Fs(e) => e.side(),
            Error::Interrupted { .. } => Side::Destination,
            Error::Placement { problem } => problem.side(),
            Error::Gitignore { .. } => Side::Internal,
            Error::NotUtf8 { .. }
            | Error::Declaration { .. }
            | Error::ContractText { .. }
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
    pub fn location(&self) -> Option<Location> {
        match self {
            Error::Fs(e) => e.location(),
            Error::Interrupted { source } => source.location(),
            Error::NotUtf8 { path }
            | Error::SkillNotDirectory { path }
            | Error::RawSource { path, .. }
            | Error::Gitignore { path, .. } => Some(Location::file(path.clone())),
            Error::Declaration { path, line, .. } => Some(Location::at(path.clone(), *line)),
            Error::ContractText { path, problem } => {
                Some(Location::at(path.clone(), Some(problem.line())))
            }
            Error::Manifest { line, .. } => Some(Location::at(MANIFEST_FILE, *line)),
            Error::KindChanged { .. } => Some(Location::file(MANIFEST_FILE)),
            Error::Lock { problem } => Some(Location::at(
                LOCK_FILE,
                match problem {
                    LockProblem::NotJson { line, .. } => Some(*line),
                    _ => None,
                },
            )),
            Error::LegacyLock => Some(Location::file(crate::repository::LEGACY_LOCK_FILE)),
            Error::PinnedElsewhere { .. } | Error::Unpinned { .. } => {
                Some(Location::file(LOCK_FILE))
            }
            Error::Placement { problem } => problem.site().map(Location::file),
            Error::NoSkillsDir | Error::NotCached { .. } | Error::NotCachedFiles { .. } => None,
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
}

impl PlacementProblem {
    /// Which side the refusal lies with: what stands at a dest (edited, foreign, missing, of
    /// the other kind) lies with the destination; a table whose dests cannot be combined or
    /// that `.gitignore` would hide lies with the input.
    pub fn side(&self) -> Side {
        match self {
            PlacementProblem::DestsOverlap { .. }
            | PlacementProblem::DestIgnored { .. }
            | PlacementProblem::FileIgnored { .. }
            | PlacementProblem::NestsWithPlanned { .. }
            | PlacementProblem::NoOutermost { .. } => Side::Input,
            PlacementProblem::UnownedKind { .. }
            | PlacementProblem::Unowned { .. }
            | PlacementProblem::ClearWrongKind { .. }
            | PlacementProblem::ClearEdited { .. }
            | PlacementProblem::MigrateMissing { .. }
            | PlacementProblem::MigrateEdited { .. }
            | PlacementProblem::MigrateForeign { .. }
            | PlacementProblem::RecordedWrongKind { .. } => Side::Destination,
        }
    }

    /// The dest the refusal is about, from the root; `None` for a skill's dests as a whole.
    pub fn site(&self) -> Option<&str> {
        match self {
            PlacementProblem::DestsOverlap { .. } | PlacementProblem::NoOutermost { .. } => None,
            PlacementProblem::DestIgnored { site }
            | PlacementProblem::FileIgnored { site, .. }
            | PlacementProblem::UnownedKind { site, .. }
            | PlacementProblem::Unowned { site, .. }
            | PlacementProblem::NestsWithPlanned { site, .. }
            | PlacementProblem::ClearWrongKind { site, .. }
            | PlacementProblem::ClearEdited { site }
            | PlacementProblem::MigrateMissing { site, .. }
            | PlacementProblem::MigrateEdited { site }
            | PlacementProblem::MigrateForeign { site, .. }
            | PlacementProblem::RecordedWrongKind { site, .. } => Some(site),
        }
    }
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
        }
    }
}

impl From<PlacementProblem> for Error {
    fn from(problem: PlacementProblem) -> Self {
        Error::Placement { problem }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> ContractId {
        ContractId::parse(s).unwrap()
    }

    fn name(s: &str) -> SourceName {
        SourceName::parse(s).unwrap()
    }

    #[test]
    fn manifest_wording() {
        use ManifestProblem as P;
        let rows: Vec<(P, &str)> = vec![
            (
                P::NotYaml {
                    message: "unclosed bracket '['".into(),
                },
                "is not valid YAML (unclosed bracket '['); fix the syntax",
            ),
            (
                P::NotMapping { found: "a list" },
                "the top level is a list, expected a mapping",
            ),
            (
                P::ContractsNotMapping { found: "a list" },
                "contracts is a list, expected a mapping of ids",
            ),
            (
                P::ContractKeyNotText { found: "a number" },
                "a contracts key is a number, expected an id",
            ),
            (
                P::BadContractId {
                    key: "a..b".into(),
                    problem: IdProblem::DotDot,
                },
                "contracts.\"a..b\" is not a usable contract id: it contains \"..\"",
            ),
            (
                P::SourcesNotMapping { found: "a list" },
                "sources is a list, expected a mapping of source names",
            ),
            (
                P::SourceKeyNotText { found: "a number" },
                "a sources key is a number, expected a source name",
            ),
            (
                P::BadSourceName {
                    key: "local".into(),
                    problem: SourceNameProblem::Reserved,
                },
                "sources.\"local\" is not a usable source name: local is reserved for this repository's own contracts; choose another name",
            ),
            (
                P::SourceNotMapping {
                    name: name("w"),
                    found: "a string",
                },
                "sources.w is a string, expected a mapping with repository and ref",
            ),
            (
                P::NoRepository { name: name("w") },
                "sources.w has no repository; write the repository the source is fetched from",
            ),
            (
                P::BadRepository {
                    name: name("w"),
                    problem: RepositoryProblem::PlainHttp,
                },
                "sources.w.repository is not usable: plain http:// is not accepted; write owner/repo, ssh://…, user@host:path or https://…",
            ),
            (
                P::RepositoryNotText {
                    name: name("w"),
                    found: "a number",
                },
                "sources.w.repository is a number, expected the repository as text",
            ),
            (
                P::NoRef { name: name("w") },
                "sources.w has no ref; write the branch, tag or commit id to fetch",
            ),
            (
                P::BadRef {
                    name: name("w"),
                    text: "x\ny".into(),
                },
                "sources.w.ref must be a branch, tag or commit id, found \"x\\ny\"",
            ),
            (
                P::RefNotText {
                    name: name("w"),
                    found: "a number",
                },
                "sources.w.ref is a number, expected a branch, tag or commit id as text",
            ),
            (
                P::RowNotMapping {
                    id: id("a"),
                    found: "a string",
                },
                "contracts.a is a string, expected a mapping with source",
            ),
            (
                P::RowFieldNotText {
                    id: id("a"),
                    key: "path",
                    found: "a list",
                },
                "contracts.a.path is a list, expected a string",
            ),
            (
                P::NoSource { id: id("a") },
                "contracts.a has no source; write source: local or a source name",
            ),
            (
                P::UnregisteredSource {
                    id: id("a"),
                    source: "v".into(),
                },
                "contracts.a names the source \"v\", which no sources entry registers; register it with add or write source: local",
            ),
            (
                P::FilesAndPath { id: id("a") },
                "contracts.a carries both files and path; a raw-byte contract's canonical paths are the keys of files, so remove path",
            ),
            (
                P::OutsideSource {
                    id: id("a"),
                    field: PathField::FilesSrc,
                    path: "../x".into(),
                },
                "contracts.a.files src \"../x\" is not a relative path inside the source; write it with / separators and no . or .. segments",
            ),
            (
                P::OutsideRepository {
                    id: id("a"),
                    field: PathField::Path,
                    path: "/x.md".into(),
                },
                "contracts.a.path \"/x.md\" is not a relative path inside the repository; write it with / separators and no . or .. segments",
            ),
            (
                P::IntoCopies {
                    id: id("a"),
                    field: PathField::Path,
                    path: "skills/a/x.md".into(),
                    dir: "skills",
                },
                "contracts.a.path \"skills/a/x.md\" points into skills/, which holds copies, not canonical text; keep the text elsewhere",
            ),
            (
                P::FilesNotMapping {
                    id: id("a"),
                    found: "a list",
                },
                "contracts.a.files is a list, expected a mapping of src: dest lines",
            ),
            (
                P::FilesLineNotText {
                    id: id("a"),
                    src: "a number",
                    dest: "a string",
                },
                "contracts.a.files holds a line that is not text: text (found a number: a string)",
            ),
            (
                P::FileDirMismatch {
                    id: id("a"),
                    src: "x/".into(),
                    dest: "y".into(),
                },
                "contracts.a.files maps \"x/\" to \"y\", a directory to a file; end both sides in a slash (directories) or neither (files)",
            ),
            (
                P::FileDirMismatch {
                    id: id("a"),
                    src: "x".into(),
                    dest: "y/".into(),
                },
                "contracts.a.files maps \"x\" to \"y/\", a file to a directory; end both sides in a slash (directories) or neither (files)",
            ),
            (
                P::DestOutsideSkill {
                    id: id("a"),
                    dest: "../y".into(),
                },
                "contracts.a.files names the dest \"../y\", which does not stay inside the skill; write it relative to the skill with no . or .. segments",
            ),
            (
                P::ReservedDest {
                    id: id("a"),
                    dest: "SKILL.md".into(),
                    reserved: ReservedDest::SkillMd,
                },
                "contracts.a.files names the dest SKILL.md, which every skill keeps for itself; choose another dest",
            ),
            (
                P::ReservedDest {
                    id: id("a"),
                    dest: "d/.vendored".into(),
                    reserved: ReservedDest::Marker,
                },
                "contracts.a.files names the dest \"d/.vendored\", the name of the marker gen writes (left out of every digest, so it could never verify); choose another dest",
            ),
            (
                P::ReservedDest {
                    id: id("a"),
                    dest: "sub/.gitignore".into(),
                    reserved: ReservedDest::Gitignore,
                },
                "contracts.a.files names the dest \"sub/.gitignore\", a .gitignore, which would govern what git tracks in every skill it lands in; choose another dest",
            ),
            (
                P::ReservedDest {
                    id: id("a"),
                    dest: "references".into(),
                    reserved: ReservedDest::VendorCopies,
                },
                "contracts.a.files names the dest \"references\", at, under or over references/vendor/, where the document copies live; choose another dest",
            ),
            (
                P::FilesEmpty { id: id("a") },
                "contracts.a.files maps nothing; a raw-byte contract distributes at least one file or directory",
            ),
            (
                P::IgnoreNotList {
                    contract: None,
                    found: "a string",
                },
                "ignore is a string, expected a list of .gitignore patterns",
            ),
            (
                P::IgnoreNotText {
                    contract: Some(id("a")),
                    found: "a list",
                },
                "contracts.a.ignore holds a list, expected only text patterns",
            ),
            (
                P::IgnoreNegated {
                    contract: Some(id("a")),
                    pattern: "!k".into(),
                },
                "contracts.a.ignore cannot re-include paths with \"!k\"; ignore rules only add exclusions (escape a literal leading ! as \\!)",
            ),
            (
                P::FlowBlock { block: "sources" },
                "the sources block is written on one line, which leaves nowhere to add an entry under it; write sources: on a line of its own with each entry indented beneath it",
            ),
            (
                P::RowNotRemovable { id: id("a") },
                "nothing declares a any more, and its contracts.a entry is not written in a form this tool can take out; take the entry out by hand",
            ),
            (
                P::SrcOverConformance {
                    id: id("r"),
                    src: "contracts/d/".into(),
                    dir: "contracts/d/conformance".into(),
                    document: id("d"),
                },
                "contracts.r.files names the src \"contracts/d/\", which is at, under or over contracts/d/conformance, the conformance directory of d; tests are collected by prefix, so move one of them",
            ),
        ];
        for (problem, want) in rows {
            assert_eq!(problem.to_string(), want, "{problem:?}");
        }
        let e = Error::Manifest {
            line: Some(3),
            problem: ManifestProblem::NotYaml {
                message: "duplicate mapping key: a".into(),
            },
        };
        assert_eq!(
            e.to_string(),
            "vendor-manifest.yaml:3: is not valid YAML (duplicate mapping key: a); fix the syntax"
        );
    }

    #[test]
    fn raw_source_wording() {
        let rows = [
            (
                RawSourceProblem::GitignoreInside { id: id("r") },
                "a .gitignore inside a directory r distributes would govern what git tracks in every skill it lands in; keep it out of the src",
            ),
            (
                RawSourceProblem::MarkerInside { id: id("r") },
                ".vendored at the top of a directory r distributes is the marker gen writes, and a copy carrying one of its own could never verify; remove it from the src",
            ),
            (
                RawSourceProblem::AllExcluded { id: id("r") },
                "the ignore rules exclude every file of directory mapping r; narrow the rules or remove the mapping",
            ),
        ];
        for (problem, want) in rows {
            assert_eq!(problem.to_string(), want, "{problem:?}");
        }
        let e = Error::RawSource {
            path: "tools/rt/".into(),
            problem: RawSourceProblem::AllExcluded { id: id("r") },
        };
        assert_eq!(
            e.to_string(),
            "tools/rt/: the ignore rules exclude every file of directory mapping r; narrow the rules or remove the mapping"
        );
    }

    #[test]
    fn gitignore_wording() {
        let e = Error::Gitignore {
            path: "docs/.gitignore".into(),
            problem: GitignoreProblem::Unplaceable(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "Pattern source must have a parent directory",
            )),
        };
        assert_eq!(
            e.to_string(),
            "docs/.gitignore: Pattern source must have a parent directory"
        );
    }

    #[test]
    fn kind_changed_wording() {
        let rows = [
            (
                ContractKind::Raw,
                "r is a raw-byte contract in vendor-manifest.yaml but vendor-lock.json resolves it as a document; a contract cannot change kind in place: withdraw it from every skill, run gen, take the row out, run gen again, then write the new row",
            ),
            (
                ContractKind::Document,
                "r is a document contract in vendor-manifest.yaml but vendor-lock.json resolves it as raw-byte; a contract cannot change kind in place: withdraw it from every skill, run gen, take the row out, run gen again, then write the new row",
            ),
        ];
        for (table, want) in rows {
            let e = Error::KindChanged { id: id("r"), table };
            assert_eq!(e.to_string(), want);
        }
    }

    #[test]
    fn sides_and_locations() {
        let io = || std::io::Error::other("disk full");
        let rows: Vec<(Error, Side, Option<Location>)> = vec![
            (
                asv_fs::Error::Symlink {
                    path: "skills/a".into(),
                }
                .into(),
                Side::Input,
                Some(Location::file("skills/a")),
            ),
            (
                Error::Interrupted {
                    source: Box::new(
                        asv_fs::Error::Io {
                            path: "skills/a/x".into(),
                            op: "write",
                            source: io(),
                        }
                        .into(),
                    ),
                },
                Side::Destination,
                Some(Location::file("skills/a/x")),
            ),
            (
                Error::NotUtf8 {
                    path: "contracts/a.md".into(),
                },
                Side::Input,
                Some(Location::file("contracts/a.md")),
            ),
            (
                Error::Declaration {
                    path: "skills/a/SKILL.md".into(),
                    line: Some(4),
                    problem: asv_model::error::DeclarationProblem::TabIndent,
                },
                Side::Input,
                Some(Location::at("skills/a/SKILL.md", Some(4))),
            ),
            (
                Error::ContractText {
                    path: "contracts/a.md".into(),
                    problem: crate::frontmatter::FrontmatterProblem::ClosingLookalike {
                        line: 3,
                        text: "--- ".into(),
                    },
                },
                Side::Input,
                Some(Location::at("contracts/a.md", Some(3))),
            ),
            (
                Error::Manifest {
                    line: Some(2),
                    problem: ManifestProblem::NotYaml {
                        message: "x".into(),
                    },
                },
                Side::Input,
                Some(Location::at("vendor-manifest.yaml", Some(2))),
            ),
            (
                Error::Lock {
                    problem: LockProblem::NotJson {
                        line: 7,
                        message: "x".into(),
                    },
                },
                Side::Input,
                Some(Location::at("vendor-lock.json", Some(7))),
            ),
            (
                Error::Lock {
                    problem: LockProblem::NotObject,
                },
                Side::Input,
                Some(Location::file("vendor-lock.json")),
            ),
            (
                Error::LegacyLock,
                Side::Input,
                Some(Location::file("vendor-manifest.json")),
            ),
            (
                Error::SkillNotDirectory {
                    path: "skills/a".into(),
                },
                Side::Input,
                Some(Location::file("skills/a")),
            ),
            (Error::NoSkillsDir, Side::Input, None),
            (
                Error::RawSource {
                    path: "tools/rt/.vendored".into(),
                    problem: RawSourceProblem::MarkerInside { id: id("r") },
                },
                Side::Input,
                Some(Location::file("tools/rt/.vendored")),
            ),
            (
                Error::Placement {
                    problem: PlacementProblem::Unowned {
                        site: "skills/a/tools".into(),
                        differs: "skills/a/tools/x".into(),
                    },
                },
                Side::Destination,
                Some(Location::file("skills/a/tools")),
            ),
            (
                Error::KindChanged {
                    id: id("r"),
                    table: ContractKind::Raw,
                },
                Side::Input,
                Some(Location::file("vendor-manifest.yaml")),
            ),
            (
                Error::PinnedElsewhere {
                    name: "w".into(),
                    pinned: "o/a".into(),
                    registered: "o/b".into(),
                },
                Side::Input,
                Some(Location::file("vendor-lock.json")),
            ),
            (
                Error::Unpinned {
                    contracts: vec![(id("a"), "w".into())],
                },
                Side::Input,
                Some(Location::file("vendor-lock.json")),
            ),
            (
                Error::NotCached {
                    contracts: vec![(id("a"), "w".into())],
                },
                Side::Input,
                None,
            ),
            (
                Error::NotCachedFiles {
                    contracts: vec![(id("a"), "w".into())],
                },
                Side::Input,
                None,
            ),
            (
                Error::Gitignore {
                    path: ".gitignore".into(),
                    problem: GitignoreProblem::Unplaceable(io()),
                },
                Side::Internal,
                Some(Location::file(".gitignore")),
            ),
        ];
        for (error, side, location) in rows {
            assert_eq!(error.side(), side, "{error:?}");
            assert_eq!(error.location(), location, "{error:?}");
        }
    }
}
