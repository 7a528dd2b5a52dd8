//! Every refusal's exact words and side.

use asv_model::error::GitignoreProblem;
use asv_model::id::IdProblem;
use asv_model::source::{RepositoryProblem, SourceName, SourceNameProblem};

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
            P::ContractKeyNotText { found: "a list" },
            "a contracts key is a list, expected an id",
        ),
        (
            P::NoDocument,
            "holds no YAML document (it is empty, blank or only comments); write the table in it, or delete the file",
        ),
        (
            P::DuplicateContractKey { id: id("7") },
            "contracts holds two keys naming 7 (a plain and a quoted spelling of one id); keep one of them",
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
    let e = Error::Model(asv_model::Error::Gitignore {
        path: "docs/.gitignore".into(),
        problem: GitignoreProblem::Unplaceable(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "Pattern source must have a parent directory",
        )),
    });
    assert_eq!(
        e.to_string(),
        "docs/.gitignore: Pattern source must have a parent directory"
    );
}

#[test]
fn kind_changed_wording() {
    let rows = [
        (
            ContractKind::Document,
            false,
            "r has no row in vendor-manifest.yaml, so it reads as a document contract, but vendor-lock.json resolves it as raw-byte; put its files row back in vendor-manifest.yaml, or withdraw it from every skill and run gen before declaring it as a document",
        ),
        (
            ContractKind::Raw,
            true,
            "r is a raw-byte contract in vendor-manifest.yaml but vendor-lock.json resolves it as a document; a contract cannot change kind in place: withdraw it from every skill, run gen, take the row out, run gen again, then write the new row",
        ),
        (
            ContractKind::Document,
            true,
            "r is a document contract in vendor-manifest.yaml but vendor-lock.json resolves it as raw-byte; a contract cannot change kind in place: withdraw it from every skill, run gen, take the row out, run gen again, then write the new row",
        ),
    ];
    for (table, has_row, want) in rows {
        let e = Error::KindChanged {
            id: id("r"),
            table,
            has_row,
        };
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
                        error: io(),
                    }
                    .into(),
                ),
            },
            Side::Destination,
            Some(Location::file("skills/a/x")),
        ),
        (
            Error::not_utf8("contracts/a.md"),
            Side::Input,
            Some(Location::file("contracts/a.md")),
        ),
        (
            Error::Model(asv_model::Error::Declaration {
                path: "skills/a/SKILL.md".into(),
                line: Some(4),
                problem: asv_model::error::DeclarationProblem::TabIndent,
            }),
            Side::Input,
            Some(Location::at("skills/a/SKILL.md", Some(4))),
        ),
        (
            Error::ContractText {
                path: "contracts/a.md".into(),
                problem: asv_model::frontmatter::FrontmatterProblem::ClosingLookalike {
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
                has_row: true,
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
            Error::Model(asv_model::Error::Gitignore {
                path: ".gitignore".into(),
                problem: GitignoreProblem::Unplaceable(io()),
            }),
            Side::Internal,
            Some(Location::file(".gitignore")),
        ),
    ];
    for (error, side, location) in rows {
        assert_eq!(error.side(), side, "{error:?}");
        assert_eq!(error.location(), location, "{error:?}");
    }
}

/// Issue 15: a failure `asv-fs` rolled back completely says nothing changed; only a rollback
/// that could not complete says the tree was left part-way.
#[test]
fn gen_apply_failures_are_worded_by_how_far_they_got() {
    let io = || asv_fs::Error::Io {
        path: "skills/a/references/vendor/x.md".into(),
        op: "write",
        error: std::io::Error::from_raw_os_error(28),
    };
    let rolled_back = Error::from_gen_apply(io());
    assert!(matches!(rolled_back, Error::RolledBack { .. }));
    assert_eq!(
        rolled_back.to_string(),
        "gen changed nothing: a write failed and every change was undone; fix the cause and run gen again"
    );
    assert_eq!(rolled_back.side(), Side::Destination);
    assert_eq!(
        rolled_back.location(),
        Some(Location::file("skills/a/references/vendor/x.md"))
    );
    let stranded = Error::from_gen_apply(asv_fs::Error::RollbackIncomplete {
        stranded: vec![asv_fs::StrandedEntry {
            dest: "skills/a/references/vendor/x.md".into(),
            parked: "skills/a/references/vendor/.x.md.asv-staged-1.previous".into(),
        }],
        leftovers: Vec::new(),
        cause: Box::new(io()),
    });
    assert!(matches!(stranded, Error::Interrupted { .. }));
    assert!(
        stranded
            .to_string()
            .starts_with("gen stopped part-way, leaving a tree verify reports"),
        "{stranded}"
    );
    assert_eq!(stranded.side(), Side::Destination);
}
