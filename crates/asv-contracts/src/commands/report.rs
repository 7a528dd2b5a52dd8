//! Report values: what `verify`, `gen`, `lint-selfcontain` and `self-test` found or did.
//!
//! Each value knows its stable kind code and the text of its compatibility line; the binary
//! chooses how to print them (plain lines, JSON, GitHub annotations).

use asv_error::quote::DisplayPath;
use asv_model::id::ContractId;

use crate::digest::Digest;

/// A violation: a line `verify`, `gen`, `lint-selfcontain` or `self-test` prints with exit 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Violation {
    /// A declared contract's canonical text is not there.
    Closure {
        /// The contract.
        id: ContractId,
        /// The declaring skills, sorted.
        skills: Vec<String>,
        /// Where the text should be.
        path: String,
    },
    /// The lock records nothing for a declared contract.
    Unresolved {
        /// The contract.
        id: ContractId,
    },
    /// The lock records a digest the canonical text no longer has.
    StaleLock {
        /// The contract.
        id: ContractId,
        /// What the lock records.
        recorded: Digest,
        /// The canonical text's path (for a remote contract, its place in the cache).
        path: String,
        /// What the text digests to now.
        current: Digest,
        /// Whether the text is the cached copy of a contract from another repository, which
        /// changes the remedy (fetch, then gen).
        remote: bool,
    },
    /// The lock records a raw-byte digest the srcs no longer have.
    RawStaleLock {
        /// The contract.
        id: ContractId,
        /// What the lock records.
        recorded: Digest,
        /// What the srcs digest to now.
        current: Digest,
    },
    /// The lock's record of what was placed where disagrees with the declarations and table.
    Placement {
        /// `skills/<skill>/<dest key>` (a directory keeps its `/`).
        site: String,
        /// What disagrees.
        problem: PlacementMismatch,
    },
    /// A vendored copy is missing or not what the lock pins.
    Drift {
        /// The copy's path.
        path: String,
        /// The contract.
        id: ContractId,
        /// What is wrong with it.
        problem: DriftProblem,
    },
    /// A file under a vendor directory answers to no declaration.
    Extra {
        /// Its path.
        path: String,
    },
    /// The lock file is missing or differs from what it should render to.
    Lock {
        /// Whether the file is missing (else it differs).
        missing: bool,
    },
    /// The lock pins a source to another repository than the table registers it at.
    SourceMismatch {
        /// The source name.
        name: String,
        /// The repository the lock pins it to.
        pinned: String,
        /// The repository the table registers.
        registered: String,
    },
    /// A conformance tree differs from the lock's record.
    ConformanceMismatch {
        /// The contract.
        id: ContractId,
        /// The digest now, if there are tests.
        now: Option<Digest>,
        /// The digest recorded, if any.
        recorded: Option<Digest>,
    },
    /// A reference above the skill directory.
    ParentEscape {
        /// The file (repository-relative).
        path: String,
        /// 1-based line.
        line: usize,
    },
    /// An absolute path in a skill's text.
    AbsolutePath {
        /// The file (repository-relative).
        path: String,
        /// 1-based line.
        line: usize,
        /// The path as written.
        text: String,
    },
    /// A link inside a skill resolving outside it.
    SymlinkEscape {
        /// The link (repository-relative).
        path: String,
    },
    /// The tool disagrees with one of its embedded vectors.
    SelfTest {
        /// The vector's name.
        name: String,
        /// What the tool computed, as JSON.
        computed: String,
        /// What the vector says, as JSON.
        expected: String,
    },
}

/// How the lock's placements disagree with the declarations and the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlacementMismatch {
    /// The lock records a dest no declaration places any more.
    Gone {
        /// The contract the lock records there.
        id: ContractId,
    },
    /// A declared dest the lock records nothing for.
    Unrecorded {
        /// The contract declared there.
        id: ContractId,
    },
    /// The lock records another contract or src there than the table places.
    Differs {
        /// What the lock records: contract and src.
        recorded: (ContractId, String),
        /// What the table places: contract and src.
        placed: (ContractId, String),
    },
}

/// What is wrong with a vendored copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DriftProblem {
    /// Nothing stands there.
    Missing,
    /// It does not begin with the header for the locked digest.
    Header {
        /// The locked digest.
        locked: Digest,
    },
    /// Its body digests to another value.
    Body {
        /// What the body digests to.
        found: Digest,
        /// The locked digest.
        locked: Digest,
    },
    /// A raw-byte dest's files digest to another value than the placement recorded.
    Files {
        /// What the files digest to.
        found: Digest,
        /// The recorded placement digest.
        locked: Digest,
        /// The first file that differs from the current canonical files, when known.
        differs: Option<String>,
    },
    /// A directory dest's `.vendored` marker is missing or not the one for the locked digest.
    Marker {
        /// The contract digest the lock records.
        locked: Digest,
    },
    /// A directory dest still holds a file the `ignore` rules no longer select.
    NoLongerSelected {
        /// That file (repository-relative).
        file: String,
    },
}

/// Every violation kind code, in one place so they stay unique and stable.
pub const VIOLATION_KINDS: &[&str] = &[
    "closure",
    "unresolved",
    "stale-lock",
    "drift",
    "extra",
    "placement",
    "lock",
    "source-mismatch",
    "conformance-mismatch",
    "parent-escape",
    "absolute-path",
    "symlink-escape",
    "self-test",
];

impl Violation {
    /// The stable kind code the line opens with.
    pub fn kind(&self) -> &'static str {
        match self {
            Violation::Closure { .. } => "closure",
            Violation::Unresolved { .. } => "unresolved",
            Violation::StaleLock { .. } | Violation::RawStaleLock { .. } => "stale-lock",
            Violation::Placement { .. } => "placement",
            Violation::Drift { .. } => "drift",
            Violation::Extra { .. } => "extra",
            Violation::Lock { .. } => "lock",
            Violation::SourceMismatch { .. } => "source-mismatch",
            Violation::ConformanceMismatch { .. } => "conformance-mismatch",
            Violation::ParentEscape { .. } => "parent-escape",
            Violation::AbsolutePath { .. } => "absolute-path",
            Violation::SymlinkEscape { .. } => "symlink-escape",
            Violation::SelfTest { .. } => "self-test",
        }
    }

    /// The repository-relative path the violation is about, if any.
    pub fn path(&self) -> Option<&str> {
        match self {
            Violation::Closure { path, .. }
            | Violation::StaleLock { path, .. }
            | Violation::Drift { path, .. }
            | Violation::Extra { path }
            | Violation::ParentEscape { path, .. }
            | Violation::AbsolutePath { path, .. }
            | Violation::SymlinkEscape { path } => Some(path),
            Violation::Lock { .. } | Violation::SourceMismatch { .. } => {
                Some(crate::lock::LOCK_FILE)
            }
            Violation::Placement { site, .. } => Some(site),
            Violation::Unresolved { .. }
            | Violation::RawStaleLock { .. }
            | Violation::ConformanceMismatch { .. }
            | Violation::SelfTest { .. } => None,
        }
    }

    /// The 1-based line within [`Violation::path`], if one line is at fault.
    pub fn line(&self) -> Option<usize> {
        match self {
            Violation::ParentEscape { line, .. } | Violation::AbsolutePath { line, .. } => {
                Some(*line)
            }
            _ => None,
        }
    }

    /// The contract the violation is about, if any.
    pub fn id(&self) -> Option<&ContractId> {
        match self {
            Violation::Closure { id, .. }
            | Violation::Unresolved { id }
            | Violation::StaleLock { id, .. }
            | Violation::RawStaleLock { id, .. }
            | Violation::Drift { id, .. }
            | Violation::ConformanceMismatch { id, .. } => Some(id),
            _ => None,
        }
    }

    /// The text after `<kind>: ` on the violation's line.
    pub fn message(&self) -> String {
        match self {
            Violation::Closure { id, skills, path } => {
                let names: Vec<String> =
                    skills.iter().map(|s| DisplayPath(s).to_string()).collect();
                format!(
                    "{id} is declared by {} but {path} does not exist",
                    names.join(", ")
                )
            }
            Violation::Unresolved { id } => {
                format!("{id} has no entry in vendor-lock.json; run gen to record one")
            }
            Violation::StaleLock {
                id,
                recorded,
                path,
                current,
                remote,
            } => format!(
                "{id} is recorded as {recorded} but {path} is {current}; {}",
                if *remote {
                    "run fetch to rebuild the cache from the commit the lock pins, then gen to record what that commit holds"
                } else {
                    "run gen to record the current text"
                }
            ),
            Violation::RawStaleLock {
                id,
                recorded,
                current,
            } => format!(
                "{id} is recorded as {recorded} but its files digest to {current}; run gen to record the current files"
            ),
            Violation::Placement { site, problem } => {
                let site = DisplayPath(site);
                match problem {
                    PlacementMismatch::Gone { id } => format!(
                        "vendor-lock.json records {site} for {id}, which no declaration places there any more; run gen to clear it"
                    ),
                    PlacementMismatch::Unrecorded { id } => format!(
                        "{site} is declared for {id} but vendor-lock.json records nothing there; run gen to place it"
                    ),
                    PlacementMismatch::Differs { recorded, placed } => format!(
                        "vendor-lock.json records {site} as {} from {}, the table places {} from {}; run gen",
                        recorded.0, recorded.1, placed.0, placed.1
                    ),
                }
            }
            Violation::Drift { path, problem, .. } => {
                let path = DisplayPath(path);
                match problem {
                    DriftProblem::Files {
                        found,
                        locked,
                        differs,
                    } => match differs {
                        Some(file) => format!(
                            "{path} holds files digesting to {found}, the lock pins {locked} — {} differs",
                            DisplayPath(file)
                        ),
                        None => {
                            format!(
                                "{path} holds files digesting to {found}, the lock pins {locked}"
                            )
                        }
                    },
                    DriftProblem::Marker { locked } => {
                        format!("{path}/.vendored does not carry the marker generated for {locked}")
                    }
                    DriftProblem::NoLongerSelected { file } => format!(
                        "{path} differs from the currently selected canonical files — {} is no longer selected; run gen to replace it",
                        DisplayPath(file)
                    ),
                    DriftProblem::Missing => format!("{path} is missing"),
                    DriftProblem::Header { locked } => {
                        format!("{path} does not carry the header generated for {locked}")
                    }
                    DriftProblem::Body { found, locked } => {
                        format!("{path} holds text digesting to {found}, the lock pins {locked}")
                    }
                }
            }
            Violation::Extra { path } => {
                format!("{} answers to no declaration", DisplayPath(path))
            }
            Violation::Lock { missing: true } => "vendor-lock.json is missing".to_owned(),
            Violation::Lock { missing: false } => {
                "vendor-lock.json differs from what the declarations and the lock render to"
                    .to_owned()
            }
            Violation::SourceMismatch {
                name,
                pinned,
                registered,
            } => format!(
                "vendor-lock.json pins {name} to {pinned} but vendor-manifest.yaml registers {registered}; run update to pin the registered repository"
            ),
            Violation::ConformanceMismatch { id, now, recorded } => format!(
                "{id} now has {}, the lock records {}",
                now.map_or("no conformance tests".to_owned(), |d| d.to_string()),
                recorded.map_or("none".to_owned(), |d| d.to_string())
            ),
            Violation::ParentEscape { path, line } => format!(
                "{}:{line}: reference above the skill directory",
                DisplayPath(path)
            ),
            Violation::AbsolutePath { path, line, text } => format!(
                "{}:{line}: absolute reference {}",
                DisplayPath(path),
                asv_error::quote::json_string(text)
            ),
            Violation::SymlinkEscape { path } => format!(
                "{}: symlink resolves outside the skill directory",
                DisplayPath(path)
            ),
            Violation::SelfTest {
                name,
                computed,
                expected,
            } => format!("{name}: computed {computed}, the embedded vector says {expected}"),
        }
    }

    /// The whole compatibility line, without a line break.
    pub fn line_text(&self) -> String {
        format!("{}: {}", self.kind(), self.message())
    }
}

/// Something `gen` recorded or noticed, printed as a success line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A new digest recorded for a contract's text.
    Adopted {
        /// The contract.
        id: ContractId,
        /// The previous digest, `None` on first adoption.
        old: Option<Digest>,
        /// The digest recorded now.
        new: Digest,
    },
    /// A new digest recorded for a contract's conformance tests.
    AdoptedConformance {
        /// The contract.
        id: ContractId,
        /// The previous digest, `None` on first adoption.
        old: Option<Digest>,
        /// The digest recorded now.
        new: Digest,
    },
    /// A contract's resolution left the lock (its text is gone).
    Retired {
        /// The contract.
        id: ContractId,
    },
    /// A contract's conformance digest left the lock (its tests are gone).
    RetiredConformance {
        /// The contract.
        id: ContractId,
        /// The digest removed.
        old: Digest,
    },
    /// A resolution no skill declares any more, kept in the lock.
    Unused {
        /// The contract.
        id: ContractId,
    },
    /// A raw-byte dest that already held exactly what this run writes, taken over.
    Claimed {
        /// `skills/<skill>/<dest>` (a directory keeps its `/`).
        site: String,
        /// The contract.
        id: ContractId,
    },
    /// A recorded raw-byte dest no declaration places any more, removed.
    Cleared {
        /// `skills/<skill>/<dest>` (a directory keeps its `/`).
        site: String,
        /// The contract.
        id: ContractId,
        /// Whether nothing was left there to remove.
        already_absent: bool,
    },
    /// The tool's working directory is not ignored by the repository.
    WorkdirNotIgnored,
    /// A row written into the table of origins.
    Mapped {
        /// The contract.
        id: ContractId,
        /// The source it now comes from (`local` for this repository).
        source: String,
    },
    /// A source's pin recorded or moved.
    Resolved {
        /// The source.
        source: String,
        /// The previous commit, `None` on the first resolution.
        old: Option<String>,
        /// The commit pinned now.
        new: String,
    },
    /// A declared contract no source holds at a conventional place.
    Unlocated {
        /// The contract.
        id: ContractId,
    },
    /// A row taken out of the table of origins (no skill declares the contract any more).
    Unmapped {
        /// The contract.
        id: ContractId,
    },
}

/// Every event kind code.
pub const EVENT_KINDS: &[&str] = &[
    "adopted", "retired", "unused", "claimed", "cleared", "warning",
];

impl Event {
    /// The stable kind code the line opens with.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Adopted { .. } | Event::AdoptedConformance { .. } => "adopted",
            Event::Retired { .. } | Event::RetiredConformance { .. } => "retired",
            Event::Unused { .. } => "unused",
            Event::Claimed { .. } => "claimed",
            Event::Cleared { .. } => "cleared",
            Event::WorkdirNotIgnored => "warning",
            Event::Mapped { .. } => "mapped",
            Event::Unmapped { .. } => "unmapped",
            Event::Resolved { .. } => "resolved",
            Event::Unlocated { .. } => "unlocated",
        }
    }

    /// The contract the event is about, if any.
    pub fn id(&self) -> Option<&ContractId> {
        match self {
            Event::Adopted { id, .. }
            | Event::AdoptedConformance { id, .. }
            | Event::Retired { id }
            | Event::RetiredConformance { id, .. }
            | Event::Unused { id }
            | Event::Claimed { id, .. }
            | Event::Cleared { id, .. }
            | Event::Mapped { id, .. }
            | Event::Unmapped { id }
            | Event::Unlocated { id } => Some(id),
            Event::Resolved { .. } => None,
            Event::WorkdirNotIgnored => None,
        }
    }

    /// The path the event is about, if any.
    pub fn path(&self) -> Option<&str> {
        match self {
            Event::Claimed { site, .. } | Event::Cleared { site, .. } => Some(site),
            _ => None,
        }
    }

    /// The text after `<kind>: `.
    pub fn message(&self) -> String {
        match self {
            Event::Adopted { id, old: None, new } => format!("{id} {new} (initial adoption)"),
            Event::Adopted {
                id,
                old: Some(old),
                new,
            } => format!("{id} {old} -> {new}"),
            Event::AdoptedConformance { id, old: None, new } => {
                format!("{id} conformance {new} (initial adoption)")
            }
            Event::AdoptedConformance {
                id,
                old: Some(old),
                new,
            } => format!("{id} conformance {old} -> {new}"),
            Event::Retired { id } => {
                format!("{id} (no canonical text; resolution removed from the lock)")
            }
            Event::RetiredConformance { id, old } => format!(
                "{id} conformance {old} (no conformance tests; digest removed from the lock)"
            ),
            Event::Unused { id } => {
                format!("{id} (no skill declares it; its resolution stays in the lock)")
            }
            Event::Claimed { site, id } => format!("{} ({id})", DisplayPath(site)),
            Event::Cleared {
                site,
                id,
                already_absent: false,
            } => format!("{} ({id})", DisplayPath(site)),
            Event::Cleared {
                site,
                id,
                already_absent: true,
            } => format!("{} ({id}; already absent)", DisplayPath(site)),
            Event::Mapped { id, source } => format!("{id} <- {source}"),
            Event::Unmapped { id } => id.to_string(),
            Event::Resolved {
                source,
                old: None,
                new,
            } => format!("{source} {new} (initial resolution)"),
            Event::Resolved {
                source,
                old: Some(old),
                new,
            } => format!("{source} {old} -> {new}"),
            Event::Unlocated { id } => {
                format!("{id} (no canonical text at any conventional location)")
            }
            Event::WorkdirNotIgnored => ".agentic-skill-vendor is not ignored by this repository; add /.agentic-skill-vendor/ to .gitignore so the tool's working files are never committed".to_owned(),
        }
    }

    /// The whole success line, without a line break.
    pub fn line_text(&self) -> String {
        format!("{}: {}", self.kind(), self.message())
    }
}

impl Violation {
    /// What to do about a violation of this kind, for the kinds whose lines do not already
    /// end in a next step of their own.
    pub fn hint(&self) -> Option<&'static str> {
        Some(match self {
            Violation::Closure { .. } => {
                "write each missing canonical text at the path named, or take the id out of metadata.contracts in the SKILL.md files named; then run gen"
            }
            Violation::Drift { .. } => {
                "a copy was edited or is out of date; run gen to write it again from its canonical text (edit the canonical text, never the copy)"
            }
            Violation::Extra { .. } => {
                "delete each file named, or declare its contract under metadata.contracts in that skill's SKILL.md and run gen"
            }
            Violation::Lock { .. } => {
                "run gen to write vendor-lock.json from the declarations and canonical texts, then commit it with them"
            }
            Violation::ConformanceMismatch { .. } => {
                "the contract's conformance tests changed; run gen to record their digest"
            }
            // Their lines name the next step themselves.
            Violation::Unresolved { .. }
            | Violation::StaleLock { .. }
            | Violation::RawStaleLock { .. }
            | Violation::Placement { .. }
            | Violation::SourceMismatch { .. }
            | Violation::ParentEscape { .. }
            | Violation::AbsolutePath { .. }
            | Violation::SymlinkEscape { .. }
            | Violation::SelfTest { .. } => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_codes_are_unique() {
        let mut all: Vec<&str> = VIOLATION_KINDS.iter().chain(EVENT_KINDS).copied().collect();
        all.sort_unstable();
        let before = all.len();
        all.dedup();
        assert_eq!(before, all.len());
    }
}
