//! The JSON records' own fields, one struct per command result (docs/JSON.md lists them):
//! what follows the shared fields of a [`super::line::Line`] in `--format json`.

use serde::Serialize;

use super::capabilities::CapabilityRecord;

// The fields of each command's own, after the shared ones. Names are camelCase, in the order
// declared here (serde keeps it).

/// `skill add`: what was placed.
#[derive(Serialize)]
pub(super) struct AddedFields<'a> {
    pub(super) name: &'a str,
    pub(super) source: &'a str,
    pub(super) revision: &'a str,
    pub(super) hash: &'a str,
    /// Where the local name came from: `option`, `manifest` or `directory`.
    #[serde(rename = "namedBy")]
    pub(super) named_by: &'static str,
}

/// `skill status`: one skill's state.
#[derive(Serialize)]
pub(super) struct StatusFields<'a> {
    pub(super) name: &'a str,
    pub(super) state: &'a str,
    pub(super) reason: Option<&'a str>,
    pub(super) source: &'a str,
    pub(super) revision: &'a str,
    /// The revision a pull found the skill gone upstream at (empty for a local directory).
    #[serde(rename = "removedUpstream")]
    pub(super) removed_upstream: Option<&'a str>,
}

/// `skill pull`: what happened to one skill.
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum PulledFields<'a> {
    UpToDate {
        name: &'a str,
        revision: &'a str,
    },
    Updated {
        name: &'a str,
        from: &'a str,
        to: &'a str,
        #[serde(rename = "keptLocal")]
        kept_local: bool,
        /// Where the lost base belonged, when the merge was made without one.
        #[serde(rename = "lostBase")]
        lost_base: Option<&'a str>,
        /// Whether the update grants the skill more than its base could do.
        widens: bool,
        /// What the update changes in what the skill can do; `null` when the base was lost.
        capabilities: Option<CapabilityRecord<'a>>,
    },
    Conflicts {
        name: &'a str,
        revision: &'a str,
        written: bool,
        conflicts: Vec<ConflictRecord<'a>>,
        /// Where the lost base belonged, when the merge was made without one.
        #[serde(rename = "lostBase")]
        lost_base: Option<&'a str>,
        /// As for `Updated`.
        widens: bool,
        /// As for `Updated`.
        capabilities: Option<CapabilityRecord<'a>>,
    },
    RemovedUpstream {
        name: &'a str,
        revision: &'a str,
        modified: bool,
    },
}

/// One conflicted file of a `skill pull`.
#[derive(Serialize)]
pub(super) struct ConflictRecord<'a> {
    pub(super) kind: &'a str,
    pub(super) path: String,
}

/// `skill resolve`: the revision recorded.
#[derive(Serialize)]
pub(super) struct ResolvedFields<'a> {
    pub(super) name: &'a str,
    pub(super) revision: &'a str,
}

/// `skill pack`: the archive written.
#[derive(Serialize)]
pub(super) struct PackedFields<'a> {
    pub(super) name: &'a str,
    pub(super) files: usize,
    pub(super) bytes: usize,
    pub(super) hash: &'a str,
    /// The archive file's own sha256, beside `hash`, the skill's tree hash.
    pub(super) zip: &'a str,
}

/// `skill pack --sign`: the signature written.
#[derive(Serialize)]
pub(super) struct SignedFields<'a> {
    /// The signing key's `SHA256:` fingerprint.
    pub(super) fingerprint: &'a str,
}

/// `skill install --signed-by`: who signed the archive.
#[derive(Serialize)]
pub(super) struct SignerFields<'a> {
    /// The principals of the allowed-signers line that accepted the signature.
    pub(super) principal: &'a str,
    /// The key's `SHA256:` fingerprint.
    pub(super) fingerprint: &'a str,
}

/// `gen --dry-run`, `skill install --dry-run`: one planned change.
#[derive(Serialize)]
pub(super) struct PlanFields<'a> {
    pub(super) action: &'a str,
}

/// `skill install`: one skill placed.
#[derive(Serialize)]
pub(super) struct InstalledFields<'a> {
    pub(super) name: &'a str,
    pub(super) hash: &'a str,
}

/// `skill validate` and the warnings of other skill commands: the rule a finding is about.
#[derive(Serialize)]
pub(super) struct FindingFields<'a> {
    pub(super) rule: &'a str,
}

/// `skill hash`.
#[derive(Serialize)]
pub(super) struct HashFields<'a> {
    pub(super) hash: &'a str,
}

/// `skill diff`.
#[derive(Serialize)]
pub(super) struct DiffFields<'a> {
    pub(super) name: &'a str,
    pub(super) from: &'a str,
    pub(super) to: &'a str,
    pub(super) diff: &'a str,
    /// What the second version can do that the first could not, and the reverse.
    pub(super) capabilities: CapabilityRecord<'a>,
}

/// `skill remove`: one skill removed.
#[derive(Serialize)]
pub(super) struct RemovedFields<'a> {
    pub(super) name: &'a str,
    /// Whether `--force` discarded local edits or conflicts.
    pub(super) discarded: bool,
}

/// `skill outdated`: one skill whose ref moved.
#[derive(Serialize)]
pub(super) struct OutdatedFields<'a> {
    pub(super) name: &'a str,
    pub(super) locked: &'a str,
    pub(super) now: &'a str,
    #[serde(rename = "ref")]
    pub(super) reference: Option<&'a str>,
    /// The ref the lock follows, when vendor-skills.yaml asks for another (`ref`).
    #[serde(rename = "lockedRef", skip_serializing_if = "Option::is_none")]
    pub(super) locked_ref: Option<Option<&'a str>>,
    /// For a semver range: the newest tag in it.
    #[serde(rename = "inRange", skip_serializing_if = "Option::is_none")]
    pub(super) in_range: Option<&'a str>,
    /// For a semver range (present with `inRange`): the newest release tag.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) newest: Option<Option<&'a str>>,
    /// With `--capabilities`: what the update would change in what the skill can do (`null`
    /// when its base can no longer be had).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) capabilities: Option<Option<CapabilityRecord<'a>>>,
}

/// `skill list`: one skill.
#[derive(Serialize)]
pub(super) struct ListedFields<'a> {
    pub(super) name: &'a str,
    pub(super) origin: &'a str,
    pub(super) source: Option<&'a str>,
    pub(super) revision: Option<&'a str>,
    pub(super) state: &'a str,
    /// The agents' directories `skill sync` mirrored it into.
    pub(super) mirrored: &'a [&'a str],
}

/// `skill add --list`: one skill found in a source.
#[derive(Serialize)]
pub(super) struct FoundFields<'a> {
    pub(super) name: &'a str,
    pub(super) source: &'a str,
    /// The commit listed (for a local directory read as it stands, the tree hash of it).
    pub(super) revision: &'a str,
    /// The Claude Code plugin whose manifest named it.
    pub(super) plugin: Option<&'a str>,
    pub(super) description: Option<&'a str>,
}

/// A refusal: which side it lies with.
#[derive(Serialize)]
pub(super) struct RefusalFields {
    pub(super) side: &'static str,
}

/// `self-test`: the vectors checked, and how many the build disagrees with.
#[derive(Serialize)]
pub(super) struct CheckedFields<'a> {
    pub(super) vectors: &'a [&'a str],
    pub(super) failed: usize,
}

/// `skill list --target`: one skill in an agent's directory.
#[derive(Serialize)]
pub(super) struct AgentSkillFields<'a> {
    pub(super) name: &'a str,
    pub(super) hash: Option<&'a str>,
    pub(super) placed: &'static str,
}
