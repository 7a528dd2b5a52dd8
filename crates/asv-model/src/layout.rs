//! Where things live in a repository: the names every command agrees on, spelled once.

/// The directory of skills, own and imported, below the repository root.
pub const SKILLS_DIR: &str = "skills";

/// A skill's manifest, directly in its directory (spelled exactly).
pub const SKILL_MANIFEST: &str = "SKILL.md";

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
