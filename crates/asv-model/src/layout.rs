//! Where things live in a repository: the names every command agrees on, spelled once.

/// The directory of skills, own and imported, below the repository root.
pub const SKILLS_DIR: &str = "skills";

/// A skill's manifest, directly in its directory (spelled exactly).
pub const SKILL_MANIFEST: &str = "SKILL.md";

/// The most bytes a `SKILL.md` may hold, 1 MiB: agents load the whole file into their
/// context, and the Agent Skills guidance keeps it under 500 lines (about 5,000 tokens), so a
/// manifest past this is no skill; it is refused before more than this is read (issue 15 §3).
pub const SKILL_MANIFEST_LIMIT: u64 = 1024 * 1024;

/// How the refusal of a `SKILL.md` past [`SKILL_MANIFEST_LIMIT`] names the limit.
pub const SKILL_MANIFEST_LIMIT_WHAT: &str = "a SKILL.md may hold (agents load it whole)";

/// The tool's own working directory below the root (cache, kept bases, staging): never
/// committed, so `gen` warns when `.gitignore` does not exclude it.
pub const TOOL_DIR: &str = ".agentic-skill-vendor";

/// The cache of other repositories' files, by source and revision.
pub const CACHE_DIR: &str = ".agentic-skill-vendor/cache";

/// The kept bases of imported skills, by tree hash.
pub const SKILL_BASES_DIR: &str = ".agentic-skill-vendor/skill-bases";

/// The contract lock, at the root.
pub const CONTRACT_LOCK: &str = "vendor-lock.json";

/// The table of origins, at the root.
pub const MANIFEST: &str = "vendor-manifest.yaml";

/// The lock of imported skills, at the root.
pub const SKILL_LOCK: &str = "vendor-skills-lock.json";

/// The intent of the skill side: which skills to take from where and which agents mirror
/// `skills/`, at the root. Hand-edited; the tool edits it line by line.
pub const SKILL_INTENT: &str = "vendor-skills.yaml";

/// The findings of `skill audit` accepted after review, committed beside the intent.
pub const SKILL_AUDIT_ALLOW: &str = "vendor-skills-audit.yaml";

/// The most bytes a settings file may hold: `vendor-manifest.yaml`, `vendor-skills.yaml`, or a
/// `.gitignore` the tool reads. 16 MiB, far past any real table (their YAML is also held to a
/// node budget when parsed); each is refused before more than this is read (issue 15 §3).
pub const SETTINGS_LIMIT: u64 = 16 * 1024 * 1024;

/// How the refusal of a file past [`SETTINGS_LIMIT`] names the limit.
pub const SETTINGS_LIMIT_WHAT: &str = "a settings file may hold";

/// The most bytes a lock may hold: `vendor-lock.json` or `vendor-skills-lock.json`. 256 MiB,
/// about ten times the contract lock of 100,000 skills declaring ten contracts each; refused
/// before more than this is read (issue 15 §3).
pub const LOCK_LIMIT: u64 = 256 * 1024 * 1024;

/// How the refusal of a lock past [`LOCK_LIMIT`] names the limit.
pub const LOCK_LIMIT_WHAT: &str = "a lock may hold";

/// Whether a path segment names a git directory: `.git` in any case, as a volume that folds
/// case (macOS, Windows) opens it. A path read from a state file (a lock, a digest list) with
/// such a segment is refused before use: those files travel through pull requests, and a
/// crafted one must never name the repository's own `.git` (issue 27 §3).
///
/// ```
/// assert!(asv_model::layout::is_git_dir_name(".GiT"));
/// assert!(!asv_model::layout::is_git_dir_name(".github"));
/// ```
pub fn is_git_dir_name(segment: &str) -> bool {
    segment.eq_ignore_ascii_case(".git")
}
