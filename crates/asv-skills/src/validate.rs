//! Judging a skill against the Agent Skills rules.
//!
//! The rules live in one place and read one manifest, so a skill on disk ([`validate_skill`])
//! and a skill held in memory before it is written ([`validate_tree`]) get the same findings.
//! This module sits here rather than in `asv-skilltree` because the frontmatter is read with
//! the YAML reader of `asv-contracts`, a layer above the tree model.
//!
//! Every finding names the [`Rule`] it reports, whose stable code (`name-format`,
//! `description-missing`, …) machine-readable output carries beside the message, as contract
//! violations carry their kind.

use asv_fs::{EntryKind, Root, join};
use asv_model::yaml::Yaml;
use asv_skilltree::{SKILL_MANIFEST, SkillTree, normalize_name};

use crate::error::Error;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The skill breaks a rule: agents may skip or misread it.
    Error,
    /// Allowed, but likely a mistake (`--strict` makes it an error).
    Warning,
}

/// The rule a finding reports a skill breaking, each with one stable kebab-case code
/// ([`Rule::code`]) that machine-readable output names it by. A code never changes meaning;
/// a new check gets a new rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// `skill-md-missing`: the skill directory holds no `SKILL.md`.
    SkillMdMissing,
    /// `skill-md-case`: the manifest is there under another case (`skill.md`), which
    /// case-sensitive hosts do not find.
    SkillMdCase,
    /// `skill-md-encoding`: `SKILL.md` is not UTF-8.
    SkillMdEncoding,
    /// `skill-md-too-long`: `SKILL.md` holds more than [`MAX_LINES`] lines (a warning).
    SkillMdTooLong,
    /// `frontmatter-missing`: `SKILL.md` does not open with a `---` frontmatter.
    FrontmatterMissing,
    /// `frontmatter-syntax`: the frontmatter cannot be read: a `---` line that only looks
    /// like one, a frontmatter never closed, a tab indent, text that is not YAML.
    FrontmatterSyntax,
    /// `frontmatter-not-mapping`: the frontmatter is YAML other than a mapping.
    FrontmatterNotMapping,
    /// `name-missing`: the frontmatter has no `name`.
    NameMissing,
    /// `name-type`: `name` is not text.
    NameType,
    /// `name-format`: `name` is empty, over [`MAX_NAME`] characters, or not lowercase
    /// letters, digits and single inner hyphens ([`name_problem`]).
    NameFormat,
    /// `name-mismatch`: `name` is not the skill directory's name.
    NameMismatch,
    /// `description-missing`: the frontmatter has no `description`.
    DescriptionMissing,
    /// `description-type`: `description` is not text.
    DescriptionType,
    /// `description-empty`: `description` is empty or only whitespace.
    DescriptionEmpty,
    /// `description-too-long`: `description` is over [`MAX_DESCRIPTION`] characters.
    DescriptionTooLong,
    /// `compatibility-type`: `compatibility` is not text.
    CompatibilityType,
    /// `compatibility-too-long`: `compatibility` is over [`MAX_COMPATIBILITY`] characters.
    CompatibilityTooLong,
    /// `compatibility-empty`: `compatibility` is given but empty or only whitespace (the
    /// rules want 1 to [`MAX_COMPATIBILITY`] characters when it is present).
    CompatibilityEmpty,
    /// `metadata-type`: `metadata` is not a mapping.
    MetadataType,
    /// `metadata-key`: a key of `metadata` is not text, or is empty.
    MetadataKey,
    /// `metadata-value-type`: a value of `metadata` is not text (`metadata.contracts`
    /// aside).
    MetadataValueType,
    /// `metadata-contracts`: `metadata.contracts`, this tool's declaration of contract ids,
    /// is not a list of distinct contract ids.
    MetadataContracts,
    /// `allowed-tools-type`: `allowed-tools` is neither text nor a list of text.
    AllowedToolsType,
    /// `unknown-key`: a top-level frontmatter key the Agent Skills rules do not know
    /// ([`KNOWN_KEYS`]); agents ignore it (a warning).
    UnknownKey,
    /// `upload-too-large`: the packed ZIP is over what a claude.ai upload takes (a warning
    /// of `skill pack`).
    UploadTooLarge,
}

impl Rule {
    /// Every rule, in the order the checks run.
    pub const ALL: [Rule; 25] = [
        Rule::SkillMdMissing,
        Rule::SkillMdCase,
        Rule::SkillMdEncoding,
        Rule::SkillMdTooLong,
        Rule::FrontmatterMissing,
        Rule::FrontmatterSyntax,
        Rule::FrontmatterNotMapping,
        Rule::NameMissing,
        Rule::NameType,
        Rule::NameFormat,
        Rule::NameMismatch,
        Rule::DescriptionMissing,
        Rule::DescriptionType,
        Rule::DescriptionEmpty,
        Rule::DescriptionTooLong,
        Rule::CompatibilityType,
        Rule::CompatibilityTooLong,
        Rule::CompatibilityEmpty,
        Rule::MetadataType,
        Rule::MetadataKey,
        Rule::MetadataValueType,
        Rule::MetadataContracts,
        Rule::AllowedToolsType,
        Rule::UnknownKey,
        Rule::UploadTooLarge,
    ];

    /// The stable kebab-case code output names the rule by.
    pub fn code(self) -> &'static str {
        match self {
            Rule::SkillMdMissing => "skill-md-missing",
            Rule::SkillMdCase => "skill-md-case",
            Rule::SkillMdEncoding => "skill-md-encoding",
            Rule::SkillMdTooLong => "skill-md-too-long",
            Rule::FrontmatterMissing => "frontmatter-missing",
            Rule::FrontmatterSyntax => "frontmatter-syntax",
            Rule::FrontmatterNotMapping => "frontmatter-not-mapping",
            Rule::NameMissing => "name-missing",
            Rule::NameType => "name-type",
            Rule::NameFormat => "name-format",
            Rule::NameMismatch => "name-mismatch",
            Rule::DescriptionMissing => "description-missing",
            Rule::DescriptionType => "description-type",
            Rule::DescriptionEmpty => "description-empty",
            Rule::DescriptionTooLong => "description-too-long",
            Rule::CompatibilityType => "compatibility-type",
            Rule::CompatibilityTooLong => "compatibility-too-long",
            Rule::CompatibilityEmpty => "compatibility-empty",
            Rule::MetadataType => "metadata-type",
            Rule::MetadataKey => "metadata-key",
            Rule::MetadataValueType => "metadata-value-type",
            Rule::MetadataContracts => "metadata-contracts",
            Rule::AllowedToolsType => "allowed-tools-type",
            Rule::UnknownKey => "unknown-key",
            Rule::UploadTooLarge => "upload-too-large",
        }
    }

    /// How serious breaking the rule is: a warning for what agents still load as meant (a
    /// long file, an unknown key, a large upload), an error for everything else.
    pub fn severity(self) -> Severity {
        self.severity_in(Profile::Author)
    }

    /// How serious breaking the rule is under `profile`. An author is held to every rule of
    /// the specification; content taken from elsewhere is refused only for what breaks an
    /// agent or this tree (no usable `SKILL.md`, frontmatter that is not a YAML mapping, no
    /// `name` or `description` as text, a `metadata` that `gen` cannot read), and warned about
    /// for what the specification forbids but agents load all the same.
    ///
    /// The match lists every rule, so a new one must be placed on purpose.
    pub fn severity_in(self, profile: Profile) -> Severity {
        match self {
            Rule::SkillMdTooLong | Rule::UnknownKey | Rule::UploadTooLarge => Severity::Warning,
            Rule::SkillMdMissing
            | Rule::SkillMdCase
            | Rule::SkillMdEncoding
            | Rule::FrontmatterMissing
            | Rule::FrontmatterSyntax
            | Rule::FrontmatterNotMapping
            | Rule::NameMissing
            | Rule::NameType
            | Rule::DescriptionMissing
            | Rule::DescriptionType
            | Rule::DescriptionEmpty
            | Rule::MetadataType
            | Rule::MetadataContracts => Severity::Error,
            Rule::NameFormat
            | Rule::NameMismatch
            | Rule::DescriptionTooLong
            | Rule::CompatibilityType
            | Rule::CompatibilityTooLong
            | Rule::CompatibilityEmpty
            | Rule::MetadataKey
            | Rule::MetadataValueType
            | Rule::AllowedToolsType => match profile {
                Profile::Author => Severity::Error,
                Profile::Consumer => Severity::Warning,
            },
        }
    }
}

/// Whose rules a skill is judged by ([`Rule::severity_in`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// The author's: every rule of the Agent Skills specification is an error (`skill
    /// validate`, `skill pack`, and the user's own skills in `skill verify` and `status`).
    Author,
    /// A consumer's: content taken from elsewhere (`skill add`, `pull`, `resolve`, sync's
    /// take-up, `install`) is refused only for what would break an agent or the tree; what
    /// agents load despite the specification is a warning.
    Consumer,
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

/// One thing wrong with a skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule broken.
    pub rule: Rule,
    /// Error or warning (the rule's [`Rule::severity`]).
    pub severity: Severity,
    /// The file (repository-relative, `/` separators).
    pub path: String,
    /// The 1-based line of that file at fault, when one line is.
    pub line: Option<usize>,
    /// What is wrong, as data; its `Display` says it and what to do.
    pub problem: Problem,
}

impl Finding {
    /// A finding of `rule` at `path` (and `line`), with the rule's severity.
    pub fn new(rule: Rule, path: impl Into<String>, line: Option<usize>, problem: Problem) -> Self {
        Finding {
            rule,
            severity: rule.severity(),
            path: path.into(),
            line,
            problem,
        }
    }

    /// Where the finding is: the file, and `:<line>` when one line is at fault (a name with a
    /// control character JSON-quoted).
    pub fn location(&self) -> String {
        let path = asv_error::quote::DisplayPath(&self.path);
        match self.line {
            Some(line) => format!("{path}:{line}"),
            None => path.to_string(),
        }
    }
}

/// What a [`Finding`] found, with the facts its words are made of: the renderers and other
/// callers read the facts, and `Display` gives the sentence the tool prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// No `SKILL.md` ([`Rule::SkillMdMissing`]).
    Missing,
    /// The manifest is there under another case ([`Rule::SkillMdCase`]).
    OtherCase {
        /// The name it has.
        name: String,
    },
    /// `SKILL.md` is not UTF-8 ([`Rule::SkillMdEncoding`]).
    NotUtf8,
    /// `SKILL.md` holds more than [`MAX_LINES`] lines ([`Rule::SkillMdTooLong`]).
    TooManyLines {
        /// The lines it holds.
        lines: usize,
    },
    /// No frontmatter ([`Rule::FrontmatterMissing`]).
    NoFrontmatter,
    /// The frontmatter reader that gen and verify share refused the frontmatter.
    Declaration(asv_model::error::DeclarationProblem),
    /// The frontmatter reader refused for a reason of its own (its words, the file's name
    /// taken off). It reads the bytes already found UTF-8 and no file, so this is kept only
    /// for a reader that grows a new refusal.
    Reader(String),
    /// The frontmatter is YAML other than a mapping ([`Rule::FrontmatterNotMapping`]).
    NotMapping {
        /// What it is (`a list`, `text`, …).
        kind: &'static str,
    },
    /// A top-level key (`name`, `description`, `compatibility`, `metadata`, `allowed-tools`)
    /// holds the wrong kind of value.
    WrongType {
        /// The key.
        key: &'static str,
        /// What it holds.
        kind: &'static str,
        /// What the rules want there, in words (`text`, `a mapping of strings`, …).
        expected: &'static str,
    },
    /// `name` is not a usable skill name ([`name_problem`]).
    BadName {
        /// The name.
        name: String,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// `name` is not the directory's name ([`Rule::NameMismatch`]).
    NameMismatch {
        /// The name.
        name: String,
        /// The directory's name.
        dir: String,
    },
    /// `name` is absent ([`Rule::NameMissing`]).
    NoName,
    /// `description` is absent ([`Rule::DescriptionMissing`]).
    NoDescription,
    /// `description` is empty or whitespace ([`Rule::DescriptionEmpty`]).
    EmptyDescription,
    /// `compatibility` is empty or whitespace ([`Rule::CompatibilityEmpty`]).
    EmptyCompatibility,
    /// A text key is longer than the rules allow.
    TooLong {
        /// The key (`description`, `compatibility`).
        key: &'static str,
        /// Its length in characters.
        chars: usize,
        /// The most the rules allow.
        max: usize,
    },
    /// An entry of `metadata` whose key is empty or not text, or whose value is not text.
    MetadataEntry {
        /// The key as text (empty when it is none).
        key: String,
        /// What the value is.
        kind: &'static str,
    },
    /// `contracts` at the top level, where it declares nothing.
    TopLevelContracts,
    /// A key Claude Code reads but the Agent Skills rules do not know.
    ClaudeCodeKey {
        /// The key.
        key: String,
    },
    /// A key the Agent Skills rules do not know.
    UnknownKey {
        /// The key.
        key: String,
    },
    /// The packed ZIP is over what a claude.ai upload takes ([`Rule::UploadTooLarge`]).
    UploadTooLarge {
        /// The ZIP's size in bytes.
        size: u64,
        /// What an upload takes.
        upload_limit: u64,
        /// What the Skills API takes.
        api_limit: u64,
    },
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Missing => f.write_str("is missing; a skill is a directory with a SKILL.md"),
            Problem::OtherCase { name } => {
                write!(f, "the file is named {name}; rename it to SKILL.md exactly")
            }
            Problem::NotUtf8 => f.write_str("is not valid UTF-8; save it as UTF-8"),
            Problem::TooManyLines { lines } => write!(
                f,
                "holds {lines} lines, over {MAX_LINES}; agents load all of it, so move detail into references/"
            ),
            Problem::NoFrontmatter => {
                f.write_str("has no frontmatter; open it with --- and give name and description")
            }
            Problem::Declaration(problem) => write!(f, "{problem}"),
            Problem::Reader(words) => f.write_str(words),
            Problem::NotMapping { kind } => write!(f, "frontmatter is {kind}, expected a mapping"),
            Problem::WrongType {
                key,
                kind,
                expected,
            } => write!(f, "{key} is {kind}, expected {expected}"),
            Problem::BadName { name, problem } => write!(f, "name {name:?} {problem}"),
            Problem::NameMismatch { name, dir } => write!(
                f,
                "name {name:?} differs from the directory name {dir:?}; make them the same"
            ),
            Problem::NoName => f.write_str("has no name; add name: <directory name>"),
            Problem::NoDescription => {
                f.write_str("has no description; say what the skill does and when to use it")
            }
            Problem::EmptyDescription => {
                f.write_str("description is empty; say what the skill does and when to use it")
            }
            Problem::EmptyCompatibility => f.write_str(
                "compatibility is empty; say what the skill needs, or leave the key out",
            ),
            Problem::TooLong { key, chars, max } => {
                write!(f, "{key} is {chars} characters long, over {max}")
            }
            Problem::MetadataEntry { key, kind } => write!(
                f,
                "metadata.{key} is {kind}, expected text; metadata maps names to strings"
            ),
            Problem::TopLevelContracts => f.write_str(
                "\"contracts\" at the top level of the frontmatter declares nothing; list the ids under metadata.contracts",
            ),
            Problem::ClaudeCodeKey { key } => write!(
                f,
                "frontmatter key {key:?} is Claude Code's, not the Agent Skills specification's; other agents ignore it"
            ),
            Problem::UnknownKey { key } => write!(
                f,
                "unknown frontmatter key {key:?}; agents ignore it (put custom data under metadata)"
            ),
            Problem::UploadTooLarge {
                size,
                upload_limit,
                api_limit,
            } => write!(
                f,
                "packs to {size} bytes, over the {upload_limit} bytes a claude.ai upload takes (the Skills API takes up to {api_limit})"
            ),
        }
    }
}

/// The longest `name`.
pub const MAX_NAME: usize = 64;
/// The longest `description`.
pub const MAX_DESCRIPTION: usize = 1024;
/// The longest `compatibility`.
pub const MAX_COMPATIBILITY: usize = 500;
/// A SKILL.md longer than this is a warning (agents load the whole file).
pub const MAX_LINES: usize = 500;
/// The top-level frontmatter keys the Agent Skills rules know.
pub const KNOWN_KEYS: &[&str] = &[
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];

/// The frontmatter keys Claude Code reads beyond [`KNOWN_KEYS`] (its skill documentation);
/// an unknown key among them is worded as Claude Code's rather than as ignored.
pub const CLAUDE_CODE_KEYS: &[&str] = &[
    "argument-hint",
    "disable-model-invocation",
    "user-invocable",
    "model",
    "context",
    "agent",
    "hooks",
];

/// Why `name` is not a usable skill name, if it is not.
pub fn name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("is empty")
    } else if name.chars().count() > MAX_NAME {
        Some("is longer than 64 characters")
    } else if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        Some("may hold only lowercase letters a-z, digits and hyphens")
    } else if name.starts_with('-') || name.ends_with('-') {
        Some("may not start or end with a hyphen")
    } else if name.contains("--") {
        Some("may not hold two hyphens in a row")
    } else {
        None
    }
}

/// Judges the skill directory `dir` (repository-relative) as it stands on disk.
///
/// # Errors
/// A guarded-read refusal (a link, a FIFO where SKILL.md belongs).
pub fn validate_skill(root: &Root, dir: &str) -> Result<Vec<Finding>, Error> {
    validate_skill_as(root, dir, Profile::Author)
}

/// Judges the skill directory `dir` as it stands on disk, by `profile`'s rules.
///
/// # Errors
/// As [`validate_skill`].
pub fn validate_skill_as(root: &Root, dir: &str, profile: Profile) -> Result<Vec<Finding>, Error> {
    let skill_md = join(dir, SKILL_MANIFEST);
    let manifest = match root.read_file_capped(
        &skill_md,
        asv_model::layout::SKILL_MANIFEST_LIMIT,
        asv_model::layout::SKILL_MANIFEST_LIMIT_WHAT,
    )? {
        Some(bytes) => Manifest::Found(bytes),
        None => {
            let listing = root.read_dir(dir)?.unwrap_or_default();
            Manifest::Missing(
                listing
                    .into_iter()
                    .find(|e| {
                        e.kind == EntryKind::File && e.name.eq_ignore_ascii_case(SKILL_MANIFEST)
                    })
                    .map(|e| e.name),
            )
        }
    };
    Ok(judge(dir, manifest, profile))
}

/// Judges a skill tree held in memory as if it stood at `dir` (repository-relative), by the
/// author's rules.
///
/// # Errors
/// A `SKILL.md` left on disk by the read that cannot be read again or changed since (a read
/// keeps every `SKILL.md` in memory, so only a tree put together by hand meets this).
pub fn validate_tree(tree: &SkillTree, dir: &str) -> Result<Vec<Finding>, asv_skilltree::Error> {
    validate_tree_as(tree, dir, Profile::Author)
}

/// Judges a skill tree held in memory as if it stood at `dir`, by `profile`'s rules: what
/// `skill add` and `skill pull` check (as [`Profile::Consumer`]) before they write anything.
///
/// # Errors
/// As [`validate_tree`].
pub fn validate_tree_as(
    tree: &SkillTree,
    dir: &str,
    profile: Profile,
) -> Result<Vec<Finding>, asv_skilltree::Error> {
    let manifest = match tree.get(SKILL_MANIFEST) {
        Some(f) => Manifest::Found(f.data.read()?.into_owned()),
        None => Manifest::Missing(
            tree.files()
                .iter()
                .find(|f| !f.path.contains('/') && f.path.eq_ignore_ascii_case(SKILL_MANIFEST))
                .map(|f| f.path.clone()),
        ),
    };
    Ok(judge(dir, manifest, profile))
}

/// The `name` a skill's `SKILL.md` gives, when it parses and gives one as text.
pub fn manifest_name(tree: &SkillTree) -> Option<String> {
    // A read keeps every SKILL.md in memory; one that cannot be read again gives no name.
    let bytes = tree.get(SKILL_MANIFEST)?.data.read().ok()?;
    let front = asv_model::declaration::read_frontmatter(SKILL_MANIFEST, &bytes).ok()??;
    match front.root.get("name")? {
        Yaml::String(name) => Some(name.clone()),
        _ => None,
    }
}

/// `findings` back when none is an error (warnings are the caller's to report).
///
/// # Errors
/// [`Error::Invalid`] with the first error, and how many more, when any is an error.
pub(crate) fn refuse_errors(
    findings: Vec<Finding>,
    remedy: crate::error::Remedy,
) -> Result<Vec<Finding>, Error> {
    let mut errors = findings.iter().filter(|f| f.severity == Severity::Error);
    match errors.next() {
        None => Ok(findings),
        Some(first) => Err(Error::Invalid {
            first: Box::new(first.clone()),
            more: errors.count(),
            remedy,
        }),
    }
}

/// Whether `findings` hold an error.
pub fn has_errors(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}

/// What stands where a skill's manifest belongs.
enum Manifest {
    /// The bytes of `SKILL.md`.
    Found(Vec<u8>),
    /// No `SKILL.md`; the name of a root file that is one but for case, if any.
    Missing(Option<String>),
}

/// The findings for the skill at `dir` whose manifest is `manifest`: every rule judged that
/// can be, in a fixed order, so the same skill always reports the same list. A manifest that
/// is missing, not UTF-8 or without a readable frontmatter stops the judging there, since
/// every later rule reads the frontmatter.
fn judge(dir: &str, manifest: Manifest, profile: Profile) -> Vec<Finding> {
    let mut out = judge_author(dir, manifest);
    for finding in &mut out {
        finding.severity = finding.rule.severity_in(profile);
    }
    out
}

/// The findings of [`judge`], graded by the author's rules.
fn judge_author(dir: &str, manifest: Manifest) -> Vec<Finding> {
    let skill_md = join(dir, SKILL_MANIFEST);
    let mut out = Vec::new();
    let error = |rule: Rule, problem: Problem| Finding::new(rule, skill_md.as_str(), None, problem);
    let bytes = match manifest {
        Manifest::Found(bytes) => bytes,
        Manifest::Missing(other) => {
            out.push(match other {
                Some(name) => Finding::new(
                    Rule::SkillMdCase,
                    join(dir, &name),
                    None,
                    Problem::OtherCase { name },
                ),
                None => error(Rule::SkillMdMissing, Problem::Missing),
            });
            return out;
        }
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        out.push(error(Rule::SkillMdEncoding, Problem::NotUtf8));
        return out;
    };
    let text = text
        .strip_prefix('\u{feff}')
        .unwrap_or(text)
        .replace("\r\n", "\n");
    let lines = text.lines().count();
    if lines > MAX_LINES {
        out.push(error(Rule::SkillMdTooLong, Problem::TooManyLines { lines }));
    }
    // The reader gen and verify use: whatever they refuse in a frontmatter is an error here,
    // at the same line.
    let (root, misplaced_contracts) =
        match asv_model::declaration::read_frontmatter(&skill_md, &bytes) {
            Ok(Some(front)) => (front.root, front.misplaced_contracts),
            Ok(None) => {
                out.push(error(Rule::FrontmatterMissing, Problem::NoFrontmatter));
                return out;
            }
            Err(asv_model::Error::Declaration {
                path,
                line,
                problem,
            }) => {
                out.push(Finding::new(
                    declaration_rule(&problem),
                    path,
                    line,
                    Problem::Declaration(problem),
                ));
                return out;
            }
            Err(e) => {
                // Only `NotUtf8` is left, and the bytes were found UTF-8 above; judged by what it
                // says all the same, should the reader ever refuse for another reason.
                let finding = match &e {
                    asv_model::Error::NotUtf8 { .. } => {
                        error(Rule::SkillMdEncoding, Problem::NotUtf8)
                    }
                    // The frontmatter reader reads no file, so neither is ever met here.
                    asv_model::Error::Declaration { .. }
                    | asv_model::Error::Fs(_)
                    | asv_model::Error::Gitignore { .. } => error(
                        Rule::FrontmatterSyntax,
                        Problem::Reader(strip_path(&e.to_string(), &skill_md)),
                    ),
                };
                out.push(finding);
                return out;
            }
        };
    if !matches!(root, Yaml::Map(_)) {
        out.push(error(
            Rule::FrontmatterNotMapping,
            Problem::NotMapping { kind: root.kind() },
        ));
        return out;
    }
    let dir_name = dir.rsplit('/').next().unwrap_or(dir);
    match root.get("name") {
        Some(Yaml::String(name)) => {
            if let Some(problem) = name_problem(name) {
                out.push(error(
                    Rule::NameFormat,
                    Problem::BadName {
                        name: name.clone(),
                        problem,
                    },
                ));
            } else if normalize_name(name) != normalize_name(dir_name) {
                out.push(error(
                    Rule::NameMismatch,
                    Problem::NameMismatch {
                        name: name.clone(),
                        dir: dir_name.to_owned(),
                    },
                ));
            }
        }
        Some(other) => out.push(error(Rule::NameType, wrong_type("name", other, "text"))),
        None => out.push(error(Rule::NameMissing, Problem::NoName)),
    }
    match root.get("description") {
        Some(Yaml::String(d)) if d.trim().is_empty() => {
            out.push(error(Rule::DescriptionEmpty, Problem::EmptyDescription))
        }
        Some(Yaml::String(d)) if d.chars().count() > MAX_DESCRIPTION => out.push(error(
            Rule::DescriptionTooLong,
            Problem::TooLong {
                key: "description",
                chars: d.chars().count(),
                max: MAX_DESCRIPTION,
            },
        )),
        Some(Yaml::String(_)) => {}
        Some(other) => out.push(error(
            Rule::DescriptionType,
            wrong_type("description", other, "text"),
        )),
        None => out.push(error(Rule::DescriptionMissing, Problem::NoDescription)),
    }
    match root.get("compatibility") {
        None => {}
        Some(Yaml::String(c)) if c.trim().is_empty() => {
            out.push(error(Rule::CompatibilityEmpty, Problem::EmptyCompatibility))
        }
        Some(Yaml::String(c)) if c.chars().count() > MAX_COMPATIBILITY => out.push(error(
            Rule::CompatibilityTooLong,
            Problem::TooLong {
                key: "compatibility",
                chars: c.chars().count(),
                max: MAX_COMPATIBILITY,
            },
        )),
        Some(Yaml::String(_)) => {}
        Some(other) => out.push(error(
            Rule::CompatibilityType,
            wrong_type("compatibility", other, "text"),
        )),
    }
    match root.get("metadata") {
        None => {}
        Some(Yaml::Map(entries)) => {
            for (k, v) in entries {
                let key = match k {
                    Yaml::String(k) => k.as_str(),
                    _ => "",
                };
                // `contracts` is this tool's own declaration: a list of ids, judged by gen.
                let ok = matches!(v, Yaml::String(_)) || key == "contracts";
                if key.is_empty() || !ok {
                    // A key that is no text (or empty) is its own rule, though it is worded
                    // as its value's kind like any other entry of metadata.
                    let rule = if key.is_empty() {
                        Rule::MetadataKey
                    } else {
                        Rule::MetadataValueType
                    };
                    out.push(error(
                        rule,
                        Problem::MetadataEntry {
                            key: key.to_owned(),
                            kind: v.kind(),
                        },
                    ));
                }
            }
        }
        Some(other) => out.push(error(
            Rule::MetadataType,
            wrong_type("metadata", other, "a mapping of strings"),
        )),
    }
    match root.get("allowed-tools") {
        None | Some(Yaml::String(_)) => {}
        Some(Yaml::Seq(items)) if items.iter().all(|i| matches!(i, Yaml::String(_))) => {}
        Some(other) => out.push(error(
            Rule::AllowedToolsType,
            wrong_type("allowed-tools", other, "text or a list of text"),
        )),
    }
    if let Yaml::Map(entries) = &root {
        for (k, _) in entries {
            if let Yaml::String(k) = k
                && !KNOWN_KEYS.contains(&k.as_str())
            {
                // Declarations written one level too high are the likeliest slip of all: say
                // where they go rather than only that the key is unknown.
                if k == "contracts" {
                    out.push(Finding::new(
                        Rule::UnknownKey,
                        skill_md.as_str(),
                        misplaced_contracts,
                        Problem::TopLevelContracts,
                    ));
                } else if CLAUDE_CODE_KEYS.contains(&k.as_str()) {
                    // Claude Code reads these; other agents do not, so it is still a warning,
                    // but not one that says the key does nothing.
                    out.push(error(
                        Rule::UnknownKey,
                        Problem::ClaudeCodeKey { key: k.clone() },
                    ));
                } else {
                    out.push(error(
                        Rule::UnknownKey,
                        Problem::UnknownKey { key: k.clone() },
                    ));
                }
            }
        }
    }
    out
}

/// [`Problem::WrongType`] of `key`, which holds `value` where the rules want `expected`.
fn wrong_type(key: &'static str, value: &Yaml, expected: &'static str) -> Problem {
    Problem::WrongType {
        key,
        kind: value.kind(),
        expected,
    }
}

/// The rule a refusal of the shared frontmatter reader reports: the frontmatter's shape, the
/// `metadata` mapping, or this tool's `metadata.contracts` declaration.
fn declaration_rule(problem: &asv_model::error::DeclarationProblem) -> Rule {
    use asv_model::error::DeclarationProblem as P;
    match problem {
        P::OpeningLookalike { .. }
        | P::OpensBelowBlank
        | P::ClosingLookalike { .. }
        | P::Unclosed
        | P::TabIndent
        | P::NotYaml { .. }
        | P::TooLarge { .. } => Rule::FrontmatterSyntax,
        P::NotMapping { .. } => Rule::FrontmatterNotMapping,
        P::MetadataNotMapping { .. } => Rule::MetadataType,
        P::ContractsNull
        | P::ContractsEmpty
        | P::ContractsNotList { .. }
        | P::EntryNested { .. }
        | P::EntryNotString { .. }
        | P::BadId { .. }
        | P::Duplicate { .. } => Rule::MetadataContracts,
    }
}

/// A declaration refusal already names the file; keep only what follows it.
fn strip_path(message: &str, path: &str) -> String {
    message
        .strip_prefix(path)
        .map(|rest| rest.trim_start_matches(|c: char| c == ':' || c.is_ascii_digit()))
        .map(|rest| rest.trim_start().to_owned())
        .unwrap_or_else(|| message.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(dir: &str, files: &[(&str, &[u8])]) -> Vec<Finding> {
        let d = tempfile::tempdir().unwrap();
        let root = Root::open(d.path()).unwrap();
        for (p, c) in files {
            root.write_file(p, c).unwrap();
        }
        validate_skill(&root, dir).unwrap()
    }

    fn findings(dir: &str, files: &[(&str, &str)]) -> Vec<(Severity, String)> {
        let files: Vec<(&str, &[u8])> = files.iter().map(|(p, c)| (*p, c.as_bytes())).collect();
        judged(dir, &files)
            .into_iter()
            .map(|f| (f.severity, f.problem.to_string()))
            .collect()
    }

    #[test]
    fn a_good_skill_passes() {
        let ok = "---\nname: pdf-tools\ndescription: Reads PDFs.\ncompatibility: any\nallowed-tools: [Read, Bash]\nmetadata:\n  owner: team\n  contracts: [a]\n---\nBody\n";
        assert_eq!(
            findings("skills/pdf-tools", &[("skills/pdf-tools/SKILL.md", ok)]),
            []
        );
    }

    #[test]
    fn name_table() {
        for good in ["a", "pdf", "a-b", "x1", &"a".repeat(64)] {
            assert_eq!(name_problem(good), None, "{good}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "é", &"a".repeat(65)] {
            assert!(name_problem(bad).is_some(), "{bad}");
        }
        assert_eq!(normalize_name(" ｐｄｆ "), "pdf");
    }

    #[test]
    fn rule_codes_are_unique_kebab_case_and_listed_once() {
        let codes: std::collections::BTreeSet<&str> = Rule::ALL.iter().map(|r| r.code()).collect();
        assert_eq!(codes.len(), Rule::ALL.len());
        for rule in Rule::ALL {
            let code = rule.code();
            assert!(
                !code.starts_with('-')
                    && !code.ends_with('-')
                    && !code.contains("--")
                    && code.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'),
                "{code}"
            );
            assert_eq!(rule.to_string(), code);
        }
    }

    /// One SKILL.md (or skill directory) per row that breaks the row's rule: the rule is
    /// reported, with its severity, at the file, worded as the fragment says.
    #[test]
    fn each_rule_is_reported_for_a_skill_that_breaks_it() {
        const MD: &str = "skills/s/SKILL.md";
        let front = |extra: &str| format!("---\nname: s\ndescription: d\n{extra}---\n");
        let long_description = format!("---\nname: s\ndescription: {}\n---\n", "x".repeat(1025));
        let long_compatibility = front(&format!("compatibility: {}\n", "x".repeat(501)));
        let long_file = format!("{}{}", front(""), "line\n".repeat(501));
        let rows: Vec<(Rule, &str, Vec<u8>, &str)> = vec![
            (
                Rule::SkillMdMissing,
                "skills/s/README.md",
                b"readme".to_vec(),
                "is missing; a skill is a directory with a SKILL.md",
            ),
            (
                Rule::SkillMdCase,
                "skills/s/skill.md",
                front("").into_bytes(),
                "the file is named skill.md; rename it to SKILL.md exactly",
            ),
            (
                Rule::SkillMdEncoding,
                MD,
                b"---\nname: s\xff\n---\n".to_vec(),
                "is not valid UTF-8",
            ),
            (
                Rule::SkillMdTooLong,
                MD,
                long_file.into_bytes(),
                "holds 505 lines, over 500",
            ),
            (
                Rule::FrontmatterMissing,
                MD,
                b"no frontmatter\n".to_vec(),
                "has no frontmatter",
            ),
            (
                Rule::FrontmatterSyntax,
                MD,
                b"---\nname: s\n".to_vec(),
                "is never closed",
            ),
            (
                Rule::FrontmatterSyntax,
                MD,
                b"---\nname: [s\n---\n".to_vec(),
                "frontmatter is not valid YAML",
            ),
            (
                Rule::FrontmatterSyntax,
                MD,
                b"---\nname: s\nmetadata:\n\towner: x\n---\n".to_vec(),
                "indented with a tab",
            ),
            (
                Rule::FrontmatterNotMapping,
                MD,
                b"---\n- a\n---\n".to_vec(),
                "frontmatter is a list, expected a mapping",
            ),
            (
                Rule::FrontmatterNotMapping,
                MD,
                b"---\n---\n".to_vec(),
                "frontmatter is null, expected a mapping",
            ),
            (
                Rule::NameMissing,
                MD,
                b"---\ndescription: d\n---\n".to_vec(),
                "has no name",
            ),
            (
                Rule::NameType,
                MD,
                b"---\nname: 1\ndescription: d\n---\n".to_vec(),
                "name is a number, expected text",
            ),
            (
                Rule::NameFormat,
                MD,
                b"---\nname: S\ndescription: d\n---\n".to_vec(),
                "name \"S\" may hold only lowercase letters",
            ),
            (
                Rule::NameMismatch,
                MD,
                b"---\nname: other\ndescription: d\n---\n".to_vec(),
                "differs from the directory name",
            ),
            (
                Rule::DescriptionMissing,
                MD,
                b"---\nname: s\n---\n".to_vec(),
                "has no description",
            ),
            (
                Rule::DescriptionType,
                MD,
                b"---\nname: s\ndescription: [d]\n---\n".to_vec(),
                "description is a list, expected text",
            ),
            (
                Rule::DescriptionEmpty,
                MD,
                b"---\nname: s\ndescription: '  '\n---\n".to_vec(),
                "description is empty",
            ),
            (
                Rule::DescriptionTooLong,
                MD,
                long_description.into_bytes(),
                "description is 1025 characters long, over 1024",
            ),
            (
                Rule::CompatibilityType,
                MD,
                front("compatibility: [a]\n").into_bytes(),
                "compatibility is a list, expected text",
            ),
            (
                Rule::CompatibilityTooLong,
                MD,
                long_compatibility.into_bytes(),
                "compatibility is 501 characters long, over 500",
            ),
            (
                Rule::CompatibilityEmpty,
                MD,
                front("compatibility: \"  \"\n").into_bytes(),
                "compatibility is empty",
            ),
            (
                Rule::MetadataType,
                MD,
                front("metadata: [a]\n").into_bytes(),
                "metadata is a list, expected a mapping",
            ),
            (
                Rule::MetadataType,
                MD,
                front("metadata:\n").into_bytes(),
                "metadata is null, expected a mapping",
            ),
            (
                Rule::MetadataKey,
                MD,
                front("metadata: {'': x}\n").into_bytes(),
                "metadata. is a string, expected text",
            ),
            (
                Rule::MetadataValueType,
                MD,
                front("metadata: {a: 1}\n").into_bytes(),
                "metadata.a is a number, expected text",
            ),
            (
                Rule::MetadataContracts,
                MD,
                front("metadata: {contracts: []}\n").into_bytes(),
                "metadata.contracts is an empty list",
            ),
            (
                Rule::AllowedToolsType,
                MD,
                front("allowed-tools: {a: b}\n").into_bytes(),
                "allowed-tools is a mapping",
            ),
            (
                Rule::UnknownKey,
                MD,
                front("foo: 1\n").into_bytes(),
                "unknown frontmatter key \"foo\"",
            ),
            (
                Rule::UnknownKey,
                MD,
                front("contracts: [a]\n").into_bytes(),
                "\"contracts\" at the top level of the frontmatter declares nothing; list the ids under metadata.contracts",
            ),
        ];
        for (rule, path, bytes, fragment) in &rows {
            let got = judged("skills/s", &[(path, bytes)]);
            // A finding is at SKILL.md, or at the file that is SKILL.md but for its case.
            let at = if *rule == Rule::SkillMdCase { path } else { MD };
            assert!(
                got.iter().any(|f| f.rule == *rule
                    && f.severity == rule.severity()
                    && f.path == at
                    && f.problem.to_string().contains(fragment)),
                "{rule}: {:?}: {got:?}",
                String::from_utf8_lossy(bytes)
            );
        }
        // `upload-too-large` is judged by `skill pack`, not by the SKILL.md.
        let every: std::collections::BTreeSet<Rule> = rows.iter().map(|r| r.0).collect();
        for rule in Rule::ALL {
            assert!(
                every.contains(&rule) || rule == Rule::UploadTooLarge,
                "no row breaks {rule}"
            );
        }
    }

    #[test]
    fn a_finding_takes_its_rule_s_severity() {
        for rule in Rule::ALL {
            let f = Finding::new(rule, "skills/s/SKILL.md", Some(3), Problem::NoName);
            assert_eq!(f.severity, rule.severity(), "{rule}");
        }
        let warnings = [Rule::SkillMdTooLong, Rule::UnknownKey, Rule::UploadTooLarge];
        for rule in Rule::ALL {
            assert_eq!(
                rule.severity() == Severity::Warning,
                warnings.contains(&rule),
                "{rule}"
            );
        }
    }

    #[test]
    fn refuse_errors_names_the_first_error_and_counts_the_rest() {
        let warning = Finding::new(Rule::UnknownKey, "a", None, Problem::NoName);
        let first = Finding::new(Rule::NameMissing, "a", None, Problem::NoName);
        let second = Finding::new(Rule::DescriptionMissing, "a", None, Problem::NoDescription);
        assert_eq!(
            refuse_errors(vec![warning.clone()], crate::error::Remedy::FixLocal).unwrap(),
            vec![warning.clone()]
        );
        match refuse_errors(
            vec![warning, first.clone(), second],
            crate::error::Remedy::FixLocal,
        ) {
            Err(Error::Invalid {
                first: got, more, ..
            }) => {
                assert_eq!((*got, more), (first, 1));
            }
            other => panic!("{other:?}"),
        }
    }
}
