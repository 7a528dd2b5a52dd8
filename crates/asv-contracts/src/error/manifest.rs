//! What is wrong with `vendor-manifest.yaml`, the table of origins.

use std::fmt;

use asv_error::quote::json_string;

use asv_model::id::{ContractId, IdProblem};
use asv_model::source::{RepositoryProblem, SourceName, SourceNameProblem};

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
/// are the words of [`asv_model::yaml::Yaml::kind`] (`a list`, `a mapping`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ManifestProblem {
    /// The text is not YAML.
    NotYaml {
        /// What the parser said, on one line.
        message: String,
    },
    /// The text may be valid YAML but goes over a reading limit (too deep or too large).
    TooLarge {
        /// The limit, with its value.
        limit: asv_model::yaml::YamlLimit,
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
    /// The file holds no YAML document: it is empty, blank or only comments.
    NoDocument,
    /// Two keys of `contracts` name one contract (`7` and `"7"`).
    DuplicateContractKey {
        /// The contract.
        id: ContractId,
    },
    /// A key of `contracts` is a list, a mapping or empty.
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
            P::TooLarge { limit } => write!(f, "is {limit}; {}", limit.advice()),
            P::NotMapping { found } => write!(f, "the top level is {found}, expected a mapping"),
            P::ContractsNotMapping { found } => {
                write!(f, "contracts is {found}, expected a mapping of ids")
            }
            P::NoDocument => f.write_str(
                "holds no YAML document (it is empty, blank or only comments); write the table in it, or delete the file",
            ),
            P::DuplicateContractKey { id } => write!(
                f,
                "contracts holds two keys naming {id} (a plain and a quoted spelling of one id); keep one of them"
            ),
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
