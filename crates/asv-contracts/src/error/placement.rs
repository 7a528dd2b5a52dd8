//! Why raw-byte dests cannot be combined, written or cleared.

use asv_error::Side;
use asv_error::quote::DisplayPath;

use super::Error;
use crate::placement::DestKind;

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
        id: asv_model::id::ContractId,
        /// Its dest, skill-relative.
        dest: String,
        /// The dest it collides with, skill-relative.
        other: String,
        /// The contract placed there.
        other_id: asv_model::id::ContractId,
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
    /// A dest the lock records as this tool's was edited since it was placed, and it is not
    /// what this run would write.
    Edited {
        /// `skills/<skill>/<dest>`.
        site: String,
        /// The first file that differs from what this run writes, from the root.
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
            | PlacementProblem::Edited { .. }
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
            | PlacementProblem::Edited { site, .. }
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
        use asv_error::quote::json_string;
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
            PlacementProblem::Edited { site, differs } => write!(
                f,
                "refusing to write {}: it was edited since gen placed it — {} is not what the lock records there; keep your edit elsewhere and delete {} (gen then places it afresh), or undo the edit",
                DisplayPath(site),
                DisplayPath(differs),
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
