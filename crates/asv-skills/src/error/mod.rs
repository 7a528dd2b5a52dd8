//! The one error type of `asv-skills`, and the problem types its refusals carry.
//!
//! A refusal keeps the values it is about (names, hashes, the parser's error), never
//! preformatted text; each problem's `Display` words it as earlier releases did, so the
//! printed lines do not change.

use asv_error::quote::{DisplayPath, json_string};
use asv_error::{Failure, Location, Side};

mod add_again;
mod audit;
mod copy_edited;
mod installed;
mod intent;
mod lock;
mod remedy;
mod repository;
mod signed;
mod wording;

pub use add_again::AddAgain;
use audit::audit_refusal;
pub use audit::{AllowProblem, GatedFinding};
pub use copy_edited::CopyEdited;
pub use installed::InstalledProblem;
pub use intent::IntentProblem;
pub use lock::{ProjectionProblem, SkillLockProblem};
pub use remedy::Remedy;
pub use repository::SourceProblem;
pub use signed::{SignatureFound, SignedRefusal};
use wording::{holds_skills, more_errors, no_such_skill, not_among, refused_lines, would_lose};

/// Everything the skill lifecycle refuses or fails at. Input-side refusals name the skill or
/// file and end with what to do; the wrapped errors carry their own side.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Guarded tree access refused or failed.
    #[error(transparent)]
    Fs(#[from] asv_fs::Error),
    /// A `.gitignore` of a local source that cannot be read or used, as the shared model
    /// refuses it.
    #[error(transparent)]
    Model(#[from] asv_model::Error),
    /// The skill tree model refused a tree (a link, a path that escapes, …).
    #[error(transparent)]
    SkillTree(#[from] asv_skilltree::Error),
    /// A source transport refused or failed.
    #[error(transparent)]
    Remote(#[from] asv_remote::Error),
    /// An archive refused or failed (its own side).
    #[error(transparent)]
    Archive(#[from] asv_archive::Error),
    /// A skill of a signed row refused (issue 33 §1): its own side and file.
    #[error(transparent)]
    Signed(Box<SignedRefusal>),
    /// The audit's allow file cannot be used (input side).
    #[error("{}{}: {problem}", asv_model::layout::SKILL_AUDIT_ALLOW, entry.map(|n| format!(": entry {n}")).unwrap_or_default())]
    AuditAllow {
        /// The 1-based entry of `allow:` at fault, when one is.
        entry: Option<usize>,
        /// What is wrong.
        problem: AllowProblem,
    },
    /// The audit found error findings no entry of the allow file accepts in what the run was
    /// about to write, and `--accept-findings` was not given (input side): nothing is written.
    #[error("{}", audit_refusal(refused))]
    AuditRefused {
        /// The findings that stop the run, by skill directory, path and place.
        refused: Vec<GatedFinding>,
    },
    /// The allow file cannot take the entry `skill audit --allow` would append to it as it
    /// is written (input side).
    #[error(
        "{}: cannot append an entry to its allow: list as the file is written ({why}); add this entry to the list by hand:\n{entry}",
        asv_model::layout::SKILL_AUDIT_ALLOW
    )]
    AuditAllowAppend {
        /// Why not.
        why: String,
        /// The entry, as YAML.
        entry: String,
    },
    /// `vendor-skills.yaml` cannot be used (input side).
    #[error("{}{}: {problem}", asv_model::layout::SKILL_INTENT, line.map(|l| format!(":{l}")).unwrap_or_default())]
    Intent {
        /// The 1-based line at fault, when known.
        line: Option<usize>,
        /// What is wrong.
        problem: IntentProblem,
    },
    /// The intent asks for a skill from another source, path or ref than the lock pins (input
    /// side): sync never moves a pin.
    #[error(
        "vendor-skills.yaml asks for {name} with {field} {}, the lock pins {}; to take it from there, run skill remove {name} and then {again} (or put the row back as it was)",
        intent.as_deref().map(asv_error::quote::json_string).unwrap_or_else(|| "none".to_owned()),
        lock.as_deref().map(asv_error::quote::json_string).unwrap_or_else(|| "none".to_owned())
    )]
    IntentDiffers {
        /// The skill.
        name: String,
        /// `source`, `path` or `ref`.
        field: &'static str,
        /// The intent's value.
        intent: Option<String>,
        /// The lock's value.
        lock: Option<String>,
        /// The `skill add` that takes the skill as the intent asks.
        again: Box<AddAgain>,
    },
    /// The intent names a skill under a name its SKILL.md does not give (input side).
    #[error(
        "vendor-skills.yaml wants {name}, but that skill's SKILL.md is named {}; name the row as the skill is named, or take it under another name with skill add --name",
        found.as_deref().map(asv_error::quote::json_string).unwrap_or_else(|| "nothing".to_owned())
    )]
    IntentName {
        /// The row's name.
        name: String,
        /// The `name:` of the skill's SKILL.md.
        found: Option<String>,
    },
    /// A skill the intent no longer names holds local edits (input side).
    #[error(
        "{} is no longer in vendor-skills.yaml but holds local edits{}; put its row back, or run skill sync --force to drop it with them",
        DisplayPath(&asv_fs::join(asv_model::layout::SKILLS_DIR, name)),
        file.as_deref().map(|f| format!(" ({f} differs from its base)")).unwrap_or_default()
    )]
    DropEdited {
        /// The skill.
        name: String,
        /// A file that differs from its base, when the base is kept.
        file: Option<String>,
    },
    /// A mirrored copy in an agent's directory that is not what sync placed (destination
    /// side).
    #[error(
        "{}: {what}; make the change in skills/ instead, or run skill sync --force to replace it",
        DisplayPath(path)
    )]
    ProjectionEdited {
        /// The copy.
        path: String,
        /// What stands there.
        what: CopyEdited,
    },
    /// An agent's skills directory that is not a directory (destination side).
    #[error(
        "{}: is {kind}, not a directory; move it away so skill sync can mirror skills/ there",
        DisplayPath(path)
    )]
    ProjectionDir {
        /// The directory.
        path: String,
        /// What stands there.
        kind: asv_fs::EntryKind,
    },
    /// A skill over the most the Skills API takes (input side).
    #[error(
        "{}: packs to {size} bytes, over the {limit} bytes the Skills API accepts; move large files out of the skill",
        DisplayPath(path)
    )]
    TooLarge {
        /// The skill directory.
        path: String,
        /// The bytes of its files, uncompressed.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// A staged or parked copy that a killed run of this tool left inside a skill, found by
    /// `skill pack` or `skill install` (input side): shipping it would copy the residue on.
    #[error(
        "{}: a staged or parked copy left by a killed run of agentic-skill-vendor; run a command that writes in that repository (gen, skill sync) to clear it, or remove it",
        DisplayPath(path)
    )]
    Residue {
        /// The entry, as the input is shown.
        path: String,
    },
    /// An install input that holds no skill (input side).
    #[error(
        "{}: holds no SKILL.md at its root or in a top-level directory; give a skill, a directory of skills, or an archive of one",
        DisplayPath(input)
    )]
    NoSkill {
        /// The input as given.
        input: String,
    },
    /// An install input that does not exist (input side).
    #[error(
        "{}: does not exist; give a skill directory, a ZIP or a .tar.gz",
        DisplayPath(input)
    )]
    NoInput {
        /// The input as given.
        input: String,
    },
    /// An install input that is neither a directory, a ZIP nor a gzipped tar (input side).
    #[error(
        "{}: is not a directory, a ZIP or a .tar.gz; give one of those",
        DisplayPath(input)
    )]
    UnknownInput {
        /// The input as given.
        input: String,
    },
    /// An install that requires a signature, of a directory (input side): only an archive
    /// has the bytes a detached signature covers.
    #[error(
        "{}: a directory carries no signature; --signed-by installs archives only (make one with skill pack --sign KEY)",
        DisplayPath(input)
    )]
    SignedDirectory {
        /// The input as given.
        input: String,
    },
    /// An install that requires a signature, of an archive without its signature file
    /// (input side).
    #[error(
        "{}: no signature at {}; --signed-by installs only archives signed by an allowed key (skill pack --sign KEY, or ssh-keygen -Y sign -n agentic-skill-vendor -f KEY <archive>, writes one)",
        DisplayPath(input),
        DisplayPath(signature)
    )]
    SignatureMissing {
        /// The input as given.
        input: String,
        /// The signature file looked for.
        signature: String,
    },
    /// An install that requires a signature, of an archive whose signature is not accepted
    /// (input side); nothing was read from the archive's entries.
    #[error(
        "{}: refused, nothing installed: {problem} (signature {}, allowed signers {}); install only what an allowed key signed, or add the signer's key to {} after checking it",
        DisplayPath(input),
        DisplayPath(signature),
        DisplayPath(allowed),
        DisplayPath(allowed)
    )]
    SignatureRefused {
        /// The input as given.
        input: String,
        /// The signature file.
        signature: String,
        /// The allowed-signers file.
        allowed: String,
        /// Why the signature is not accepted (boxed: it carries fingerprints and principals).
        problem: Box<asv_sign::SignatureProblem>,
    },
    /// An install given no directory to install into (input side).
    #[error("no directory to install into; give --into or at least one --target")]
    NoTarget,
    /// A skill of an install is already there (destination side).
    #[error(
        "{}: already exists; nothing was installed — pass --force to replace it",
        DisplayPath(path)
    )]
    AlreadyInstalled {
        /// The destination.
        path: String,
    },
    /// A path of an install input that cannot be written on every host (input side).
    #[error(
        "{} refused ({}): {refusal}; rename it and try again",
        DisplayPath(input),
        refusal.reason().code()
    )]
    Unwritable {
        /// The input as given.
        input: String,
        /// The entry policy's refusal, naming the path; its reason gives the code
        /// (`unsafe-name`, `name-clash`).
        refusal: asv_archive::Refusal,
    },
    /// An install input that is a symbolic link (input side).
    #[error(
        "{}: is a symbolic link; links are never followed — give the directory or archive it points at",
        DisplayPath(input)
    )]
    LinkInput {
        /// The input as given.
        input: String,
    },
    /// Two skills of one install input with one name (input side).
    #[error(
        "{}: holds two skills named {}; nothing was installed — rename one",
        DisplayPath(input),
        json_string(name)
    )]
    DuplicateSkill {
        /// The input as given.
        input: String,
        /// The name.
        name: String,
    },
    /// The skill lock cannot be read (input side).
    #[error(
        "{}{}: {problem}; {}",
        DisplayPath(path),
        line.map(|l| format!(":{l}")).unwrap_or_default(),
        problem.advice()
    )]
    Lock {
        /// The lock file.
        path: String,
        /// The 1-based line at fault, when known (a parse error names its own).
        line: Option<usize>,
        /// What is wrong.
        problem: SkillLockProblem,
    },
    /// The repository argument is not a usable source (input side).
    #[error(
        "the repository {} is not usable: {problem}; give owner/repo, a git URL, or a local directory starting with ./, ../ or /",
        json_string(given)
    )]
    Repository {
        /// As typed.
        given: String,
        /// What is wrong.
        problem: SourceProblem,
    },
    /// `--name` asks for a rename the SKILL.md cannot take (input side).
    #[error(
        "cannot rename the skill to {}: its SKILL.md has no one-line name: in its frontmatter to set; leave out --name, or fix the name upstream",
        json_string(name)
    )]
    Rename {
        /// The name asked for.
        name: String,
    },
    /// The intent asks for another ref than the lock pins (input side): a pull moves the pin,
    /// merging local edits (issue 29 §2), so sync, which never moves one, names it.
    #[error(
        "vendor-skills.yaml asks for {name} at ref {}, the lock pins {}; run skill pull {name} to move the pin (local edits are merged), or put the row's ref back as it was",
        json_string(intent),
        lock.as_deref().map(json_string).unwrap_or_else(|| "none".to_owned())
    )]
    RefDiffers {
        /// The skill.
        name: String,
        /// The intent's ref.
        intent: String,
        /// The lock's ref.
        lock: Option<String>,
    },
    /// A semver range was asked of a source whose transport lists no tags (input side).
    #[error(
        "{repository}: the ref {} is a semver range, and this source's tags cannot be listed; name a tag, branch or commit in vendor-skills.yaml (or with --ref)",
        json_string(range)
    )]
    RangeUnsupported {
        /// The source as given.
        repository: String,
        /// The range.
        range: String,
    },
    /// No tag of the source is a version the range takes (input side).
    #[error(
        "{repository}: no tag is a version in the range {}{}; widen the range in vendor-skills.yaml (or with --ref), or name a tag",
        json_string(range),
        newest.as_deref().map(|t| format!(" (the newest release is {t})")).unwrap_or_else(|| " (no tag is a version)".to_owned())
    )]
    NoTagInRange {
        /// The source as given.
        repository: String,
        /// The range.
        range: String,
        /// The newest release tag, when any tag is a version.
        newest: Option<String>,
    },
    /// The tag a pin was taken at names another commit now (remote side): a tag is meant
    /// never to move, so what it names now is not trusted to be an update.
    #[error(
        "{name}: the tag {tag} named {pinned} when vendor-skills-lock.json pinned it and names {now} now; check the source, then pin the commit you trust with skill pull {name} --ref <commit>"
    )]
    TagMoved {
        /// The skill.
        name: String,
        /// The tag.
        tag: String,
        /// The commit the lock records.
        pinned: String,
        /// The commit the tag names now.
        now: String,
    },
    /// A source answered a commit id that is not one (remote side).
    #[error(
        "{repository} answered {} for a commit id, which is not one; nothing was changed",
        json_string(answered)
    )]
    NotACommit {
        /// The source as given.
        repository: String,
        /// What it answered.
        answered: String,
    },
    /// `--ref` given for a local directory that is not a git repository (input side).
    #[error(
        "{}: --ref names a commit, and this is a plain directory, not the top of a git repository; leave out --ref to take the directory as it stands",
        DisplayPath(given)
    )]
    RefWithoutRepository {
        /// The directory as the lock keeps it.
        given: String,
    },
    /// A path in the source that is not a plain relative path (input side).
    #[error(
        "the path {} leaves the repository ({problem}); give a path inside it, such as skills/<name>",
        json_string(path)
    )]
    PathEscapes {
        /// As typed.
        path: String,
        /// What is wrong.
        problem: asv_skilltree::PathProblem,
    },
    /// The source holds no skill at the path (input side).
    #[error(
        "{repository} holds no files under {} at {revision}; check the path",
        json_string(path)
    )]
    NotInSource {
        /// The source.
        repository: String,
        /// The path asked for.
        path: String,
        /// The commit (or tree hash) read.
        revision: String,
    },
    /// `skill add --all` found no skill under the directory (input side).
    #[error(
        "{repository} holds no skill under {}: no directory directly under it holds a SKILL.md; check the path, or drop --all to take it as one skill",
        json_string(path)
    )]
    NoSkillsUnder {
        /// The source.
        repository: String,
        /// The directory asked for.
        path: String,
    },
    /// `skill add` with no path found no skill in the source (input side).
    #[error(
        "{repository} holds no skill under {}: no directory there (up to {} levels deep, or named by a Claude Code plugin manifest) holds a SKILL.md; check the source and its path, or name the skill's directory as the second argument",
        json_string(path),
        depth
    )]
    NoSkillFound {
        /// The source.
        repository: String,
        /// The directory looked under.
        path: String,
        /// How deep skills were looked for without a manifest naming them.
        depth: usize,
    },
    /// `skill add --skill` named no skill the source holds (input side).
    #[error(
        "{repository} holds no skill matching {}; it holds {}: run skill add {repository} --list to see them, and choose with --skill NAME[,NAME…] (globs allowed) or --all",
        patterns.iter().map(|p| json_string(p)).collect::<Vec<_>>().join(", "),
        names.iter().map(|p| json_string(p)).collect::<Vec<_>>().join(", ")
    )]
    NoSkillMatches {
        /// The source.
        repository: String,
        /// The patterns that matched no skill.
        patterns: Vec<String>,
        /// The names of the skills found.
        names: Vec<String>,
    },
    /// The source holds something a skill cannot hold (input side).
    #[error(
        "{repository} holds {} as {what}; a skill holds only regular files, so nothing was taken",
        json_string(path)
    )]
    UnsupportedEntry {
        /// The source.
        repository: String,
        /// The path in the source.
        path: String,
        /// What it is.
        what: &'static str,
    },
    /// `--working-tree` with a source that has none here (input side).
    #[error(
        "{}: --working-tree reads a local git repository's working tree; this source is not a local directory, so leave the flag out",
        json_string(given)
    )]
    WorkingTreeRemote {
        /// The source as given.
        given: String,
    },
    /// A local name that is not a usable skill name (input side).
    #[error(
        "the skill name {} {problem}; pass --name with lowercase letters, digits and hyphens",
        json_string(name)
    )]
    BadName {
        /// The name.
        name: String,
        /// What is wrong.
        problem: &'static str,
    },
    /// A skill taken from elsewhere whose `SKILL.md` gives no usable name and whose directory's
    /// name is not one either (input side).
    #[error(
        "the skill in {} has no usable name: {}, and the directory name {problem}; pass --name with lowercase letters, digits and hyphens",
        json_string(directory),
        match manifest {
            Some(name) => format!("its SKILL.md names it {}, which is not a skill name", json_string(name)),
            None => "its SKILL.md gives no name".to_owned(),
        }
    )]
    Unnamed {
        /// The `name:` of its `SKILL.md`, when it gives one as text.
        manifest: Option<String>,
        /// The directory it came from.
        directory: String,
        /// What is wrong with the directory's name ([`crate::name_problem`]).
        problem: &'static str,
    },
    /// Two skills of one `skill add --all` that would take one local name (input side).
    #[error(
        "{}: the skills in {} and {} are both named {}; nothing was written — add them one at a time, one with --name <other>",
        json_string(repository),
        json_string(&dirs[0]),
        json_string(&dirs[1]),
        json_string(name)
    )]
    SameName {
        /// The source.
        repository: String,
        /// The name both would take.
        name: String,
        /// The two directories of the source, in name order.
        dirs: [String; 2],
    },
    /// Several skills of one `skill add --all` cannot be taken (input side): each refusal, in
    /// name order.
    #[error(
        "{} skills under {} of {} cannot be taken; nothing was written — fix them upstream, or add the others one at a time:{}",
        refused.len(),
        json_string(dir),
        json_string(repository),
        refused_lines(refused)
    )]
    Refused {
        /// The source.
        repository: String,
        /// The directory of the source whose skills were asked for.
        dir: String,
        /// Why each skill was refused.
        refused: Vec<Error>,
    },
    /// The skill breaks the Agent Skills rules (input side).
    #[error("{}: {}{}; nothing was written — {remedy}", first.location(), first.problem, more_errors(*more))]
    Invalid {
        /// The first error found.
        first: Box<crate::Finding>,
        /// How many more errors.
        more: usize,
        /// What the user can do, which depends on where the skill came from.
        remedy: Remedy,
    },
    /// The destination is taken (destination side).
    #[error(
        "{}: already exists; remove it or pass --name <other>",
        DisplayPath(path)
    )]
    Occupied {
        /// The directory.
        path: String,
    },
    /// A skill `skill add --all` would place has its directory taken (destination side).
    #[error(
        "{}: already exists, so no skill was taken; remove it, or take the other skills one by one with skill add",
        DisplayPath(path)
    )]
    OccupiedForAll {
        /// The directory.
        path: String,
    },
    /// `skill add` given a path that holds skills below it but no `SKILL.md` of its own: the
    /// directory `--all` takes (input side).
    #[error("{}", holds_skills(path, skills))]
    HoldsSkills {
        /// The path as given, in the source.
        path: String,
        /// The skills' directories below it, relative to it, sorted.
        skills: Vec<String>,
    },
    /// The skill is already in the lock (input side).
    #[error(
        "the skill {} is already imported; use skill pull to update it",
        json_string(name)
    )]
    AlreadyImported {
        /// The name.
        name: String,
    },
    /// A name the lock does not hold (input side).
    #[error(
        "the skill {} is not imported; skill status lists the imported skills",
        json_string(name)
    )]
    NotImported {
        /// The name.
        name: String,
    },
    /// The skill directory is gone (input side).
    #[error(
        "{}: is missing; restore it (git checkout) or add the skill again",
        DisplayPath(path)
    )]
    Missing {
        /// The directory.
        path: String,
    },
    /// A skill's directory under `skills/` is a symbolic link (input side). No command
    /// follows it, and every one says so the same way: `skill verify` and `skill status`
    /// report it, and every writer refuses before changing anything, rather than each taking
    /// it for something else (a skill gone, whose mirrored copies sync would delete; issue 27
    /// §6).
    #[error(
        "{} is a symbolic link; a skill's directory must be a directory of its own: put the directory itself there (for an imported skill, delete the link and run skill sync to restore it)",
        DisplayPath(path)
    )]
    LinkedSkill {
        /// The skill's directory, from the root (`skills/<name>`).
        path: String,
    },
    /// An imported skill's directory is gone (input side): `skill add` takes it again, since
    /// an imported skill with no directory holds no local edits to keep.
    #[error(
        "{}: is missing; restore it from version control, or take it again: {again}",
        DisplayPath(path)
    )]
    MissingImported {
        /// The directory.
        path: String,
        /// The `skill add` that takes it again.
        again: AddAgain,
    },
    /// A pull of several skills refused one of them, so it wrote nothing (the refusal's own
    /// side).
    #[error(
        "the pull of {} was refused, so no skill was written",
        json_string(name)
    )]
    PullRefused {
        /// The skill refused.
        name: String,
        /// Why.
        #[source]
        source: Box<Error>,
    },
    /// The base at the locked revision is not the base the lock recorded (input side).
    #[error(
        "the base of {} at {revision} hashes to {found}, not the {expected} the lock records; the upstream history changed — remove {name} from vendor-skills-lock.json and skills/{name}, then add it again",
        json_string(name)
    )]
    BaseMismatch {
        /// The skill.
        name: String,
        /// The locked revision.
        revision: String,
        /// The hash in the lock.
        expected: String,
        /// The hash read.
        found: String,
    },
    /// The base of a local-directory source is not held any more and neither the local copy
    /// nor upstream is it (environment side). A pull merges without it; only `skill diff`
    /// refuses.
    #[error(
        "the base of {} is not in {} and its local directory source cannot give it again; skill pull {name} merges without it and records a new base",
        json_string(name),
        DisplayPath(path)
    )]
    BaseUnavailable {
        /// The skill.
        name: String,
        /// Where the base snapshot belongs.
        path: String,
    },
    /// A pull of a skill that waits for `skill resolve` (input side).
    #[error(
        "the skill {} has unresolved conflicts from its last pull; edit the files, then run skill resolve {name}",
        json_string(name)
    )]
    Conflicted {
        /// The skill.
        name: String,
    },
    /// `skill resolve` of a skill with no conflicts (input side).
    #[error("the skill {} has no conflicts to resolve", json_string(name))]
    NotConflicted {
        /// The skill.
        name: String,
    },
    /// `skill resolve` while conflict markers remain (input side).
    #[error(
        "{}: still holds conflict markers; edit them out, then run skill resolve again",
        DisplayPath(path)
    )]
    MarkersRemain {
        /// The first file with markers.
        path: String,
    },
    /// `skill remove` of an imported skill whose local copy holds what removing it would
    /// lose: local edits, or conflicts waiting for `skill resolve` (input side).
    #[error("{}", would_lose(path, name, edits.as_deref(), *conflicted))]
    WouldLose {
        /// The skill.
        name: String,
        /// Its directory.
        path: String,
        /// The files that differ from the base; `None` when the base is not kept, so they
        /// cannot be told.
        edits: Option<Vec<crate::edits::Edit>>,
        /// Whether the skill waits for `skill resolve`.
        conflicted: bool,
    },
    /// A skill command that works on imported skills given a skill of the repository's own
    /// (input side).
    #[error(
        "{}: is not an imported skill ({} does not list it) but one of this repository's own (skill list shows its state; to remove it, delete the directory)",
        DisplayPath(path),
        asv_model::layout::SKILL_LOCK
    )]
    OwnSkill {
        /// The skill's directory.
        path: String,
    },
    /// A name that is neither imported nor a skill of the repository (input side).
    #[error("{}", not_among(name, imported))]
    NotImportedAmong {
        /// The name given.
        name: String,
        /// The imported skills, by name.
        imported: Vec<String>,
    },
    /// The user install record cannot be read (input side).
    #[error(
        "{}{}: {problem}; fix the file, or delete it to forget what skill install recorded (the installed skills stay where they are, listed as not placed by this tool)",
        DisplayPath(path),
        line.map(|l| format!(":{l}")).unwrap_or_default()
    )]
    InstalledRecord {
        /// The record file, as the caller names it.
        path: String,
        /// The 1-based line at fault, when known (a parse error names its own).
        line: Option<usize>,
        /// What is wrong.
        problem: InstalledProblem,
    },
    /// A user sync would mirror a skill where `skill install --scope user` placed one of the
    /// same name (destination side).
    #[error(
        "{}: skill install placed this skill there (from {}), and skill sync would mirror skills/{name} over it; delete the installed copy, or take {name} out of the state directory's skills/ (and its intent), or run skill sync --scope user --force to replace the installed one",
        DisplayPath(path),
        DisplayPath(from)
    )]
    InstalledInTheWay {
        /// The installed copy.
        path: String,
        /// The skill sync mirrors.
        name: String,
        /// Where it was installed from, as recorded.
        from: String,
    },
    /// A name `skill list` was given that is neither a directory under `skills/` nor imported
    /// (input side).
    #[error("{}", no_such_skill(name, skills))]
    NoSuchSkill {
        /// The name given.
        name: String,
        /// Every skill `skill list` knows, by name.
        skills: Vec<String>,
    },
}

impl From<SignedRefusal> for Error {
    fn from(refusal: SignedRefusal) -> Error {
        Error::Signed(Box::new(refusal))
    }
}

impl Failure for Error {
    /// Which side the failure lies with. The wrapped errors answer for themselves; a source
    /// that answers wrongly (a commit id that is none, a base that no longer hashes as
    /// recorded) lies with the environment; something standing where a skill goes lies with
    /// the destination; every other refusal lies with the input the user gave.
    fn side(&self) -> Side {
        match self {
            Error::PullRefused { source, .. } => source.side(),
            Error::Fs(e) => e.side(),
            Error::Model(e) => e.side(),
            Error::SkillTree(e) => e.side(),
            Error::Archive(e) => e.side(),
            Error::Signed(e) => e.side(),
            // The transport knows whose a refusal is: a bad URL or ref is the input's, a
            // server's answer or a limit the environment's.
            Error::Remote(e) => e.side(),
            Error::NotACommit { .. } | Error::BaseMismatch { .. } | Error::TagMoved { .. } => {
                Side::Environment
            }
            Error::AlreadyInstalled { .. }
            | Error::Occupied { .. }
            | Error::OccupiedForAll { .. }
            | Error::ProjectionEdited { .. }
            | Error::InstalledInTheWay { .. }
            | Error::ProjectionDir { .. } => Side::Destination,
            Error::Intent { .. }
            | Error::AuditAllow { .. }
            | Error::AuditRefused { .. }
            | Error::AuditAllowAppend { .. }
            | Error::IntentDiffers { .. }
            | Error::IntentName { .. }
            | Error::DropEdited { .. }
            | Error::TooLarge { .. }
            | Error::Residue { .. }
            | Error::NoSkill { .. }
            | Error::SignedDirectory { .. }
            | Error::SignatureMissing { .. }
            | Error::SignatureRefused { .. }
            | Error::NoInput { .. }
            | Error::UnknownInput { .. }
            | Error::NoTarget
            | Error::Unwritable { .. }
            | Error::LinkInput { .. }
            | Error::DuplicateSkill { .. }
            | Error::Lock { .. }
            | Error::InstalledRecord { .. }
            | Error::Repository { .. }
            | Error::Rename { .. }
            | Error::RefDiffers { .. }
            | Error::RangeUnsupported { .. }
            | Error::NoTagInRange { .. }
            | Error::RefWithoutRepository { .. }
            | Error::PathEscapes { .. }
            | Error::NotInSource { .. }
            | Error::NoSkillsUnder { .. }
            | Error::NoSkillFound { .. }
            | Error::NoSkillMatches { .. }
            | Error::UnsupportedEntry { .. }
            | Error::WorkingTreeRemote { .. }
            | Error::BadName { .. }
            | Error::Unnamed { .. }
            | Error::SameName { .. }
            | Error::Refused { .. }
            | Error::Invalid { .. }
            | Error::AlreadyImported { .. }
            | Error::HoldsSkills { .. }
            | Error::NotImported { .. }
            | Error::Missing { .. }
            | Error::LinkedSkill { .. }
            | Error::MissingImported { .. }
            | Error::BaseUnavailable { .. }
            | Error::Conflicted { .. }
            | Error::NotConflicted { .. }
            | Error::MarkersRemain { .. }
            | Error::WouldLose { .. }
            | Error::OwnSkill { .. }
            | Error::NotImportedAmong { .. }
            | Error::NoSuchSkill { .. } => Side::Input,
        }
    }

    /// The file or directory the failure is about, when there is one.
    fn location(&self) -> Option<Location> {
        match self {
            Error::PullRefused { source, .. } => source.location(),
            Error::Fs(e) => e.location(),
            Error::Model(e) => e.location(),
            Error::SkillTree(e) => e.location(),
            // The transport knows the file of a guarded access it made (issue 28 §1).
            Error::Remote(e) => e.location(),
            Error::Archive(e) => e.location(),
            Error::Signed(e) => e.location(),
            Error::Invalid { first, .. } => Some(Location::at(first.path.clone(), first.line)),
            Error::Refused { refused, .. } => refused.first().and_then(Error::location),
            Error::Lock {
                path,
                line,
                problem,
            } => Some(Location::at(
                path.clone(),
                // A lock that does not parse knows its line itself.
                if let SkillLockProblem::NotValid(e) = problem {
                    Some(e.line())
                } else {
                    *line
                },
            )),
            Error::AuditAllow { .. } | Error::AuditAllowAppend { .. } => {
                Some(Location::file(asv_model::layout::SKILL_AUDIT_ALLOW))
            }
            Error::AuditRefused { refused } => refused
                .first()
                .map(|g| Location::at(g.file(), Some(g.finding.line as usize))),
            Error::InstalledRecord {
                path,
                line,
                problem,
            } => Some(Location::at(
                path.clone(),
                if let InstalledProblem::NotValid(e) = problem {
                    Some(e.line())
                } else {
                    *line
                },
            )),
            Error::Intent { line, .. } => {
                Some(Location::at(asv_model::layout::SKILL_INTENT, *line))
            }
            Error::IntentDiffers { .. } | Error::IntentName { .. } | Error::RefDiffers { .. } => {
                Some(Location::file(asv_model::layout::SKILL_INTENT))
            }
            Error::DropEdited { name, .. } => Some(Location::file(asv_fs::join(
                asv_model::layout::SKILLS_DIR,
                name,
            ))),
            Error::ProjectionEdited { path, .. } | Error::ProjectionDir { path, .. } => {
                Some(Location::file(path.clone()))
            }
            Error::TooLarge { path, .. }
            | Error::Residue { path }
            | Error::AlreadyInstalled { path }
            | Error::Occupied { path }
            | Error::OccupiedForAll { path }
            | Error::Missing { path }
            | Error::LinkedSkill { path }
            | Error::MissingImported { path, .. }
            | Error::BaseUnavailable { path, .. }
            | Error::MarkersRemain { path, .. }
            | Error::WouldLose { path, .. }
            | Error::InstalledInTheWay { path, .. }
            | Error::OwnSkill { path } => Some(Location::file(path.clone())),
            Error::TagMoved { .. } => Some(Location::file(asv_model::layout::SKILL_LOCK)),
            Error::NoSkill { input }
            | Error::SignedDirectory { input }
            | Error::SignatureMissing { input, .. }
            | Error::SignatureRefused { input, .. }
            | Error::NoInput { input }
            | Error::UnknownInput { input }
            | Error::LinkInput { input }
            | Error::DuplicateSkill { input, .. }
            | Error::Unwritable { input, .. } => Some(Location::file(input.clone())),
            // What a source refuses is about another repository, or about no one file.
            Error::NoTarget
            | Error::Repository { .. }
            | Error::Rename { .. }
            | Error::RangeUnsupported { .. }
            | Error::NoTagInRange { .. }
            | Error::NotACommit { .. }
            | Error::RefWithoutRepository { .. }
            | Error::PathEscapes { .. }
            | Error::NotInSource { .. }
            | Error::NoSkillsUnder { .. }
            | Error::NoSkillFound { .. }
            | Error::NoSkillMatches { .. }
            | Error::UnsupportedEntry { .. }
            | Error::WorkingTreeRemote { .. }
            | Error::BadName { .. }
            | Error::Unnamed { .. }
            | Error::SameName { .. }
            | Error::AlreadyImported { .. }
            | Error::HoldsSkills { .. }
            | Error::NotImported { .. }
            | Error::BaseMismatch { .. }
            | Error::Conflicted { .. }
            | Error::NotConflicted { .. }
            | Error::NotImportedAmong { .. }
            | Error::NoSuchSkill { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use asv_error::{Location, Side};

    fn lock(problem: SkillLockProblem) -> Error {
        Error::Lock {
            path: crate::lock::SKILL_LOCK_FILE.to_owned(),
            line: None,
            problem,
        }
    }

    fn repository(given: &str, problem: SourceProblem) -> Error {
        Error::Repository {
            given: given.to_owned(),
            problem,
        }
    }

    /// Every lock and repository problem, worded exactly as earlier releases printed it.
    #[test]
    fn lock_and_repository_problems_keep_their_wording_and_side() {
        let not_json = serde_json::from_str::<crate::lock::SkillLock>("{")
            .expect_err("an open brace is not a lock");
        let rows: Vec<(Error, &str)> = vec![
            (
                lock(SkillLockProblem::NotValid(not_json)),
                "vendor-skills-lock.json: not valid: EOF while parsing an object at line 1 column 1; fix or remove the file, then add the skills again",
            ),
            (
                lock(SkillLockProblem::Version { found: 2, read: 1 }),
                "vendor-skills-lock.json: version 2 is not the version 1 this build reads; fix or remove the file, then add the skills again",
            ),
            (
                lock(SkillLockProblem::BadName {
                    name: "PDF".to_owned(),
                    problem: "may hold only lowercase letters a-z, digits and hyphens",
                }),
                "vendor-skills-lock.json: the skill name \"PDF\" may hold only lowercase letters a-z, digits and hyphens; fix or remove the file, then add the skills again",
            ),
            (
                lock(SkillLockProblem::BadHash {
                    name: "pdf".to_owned(),
                    hash: "sha256:zz".to_owned(),
                }),
                "vendor-skills-lock.json: pdf: \"sha256:zz\" is not a tree hash (sha256:<64 hex digits>); fix or remove the file, then add the skills again",
            ),
            (
                repository(
                    "http://example.com/x.git",
                    SourceProblem::Unaccepted(asv_model::source::RepositoryProblem::PlainHttp),
                ),
                "the repository \"http://example.com/x.git\" is not usable: plain http:// is not accepted; give owner/repo, a git URL, or a local directory starting with ./, ../ or /",
            ),
            (
                repository("./gone", SourceProblem::NoSuchDirectory),
                "the repository \"./gone\" is not usable: no such directory; give owner/repo, a git URL, or a local directory starting with ./, ../ or /",
            ),
            (
                repository(
                    "./here",
                    SourceProblem::Unresolvable(std::io::Error::other(
                        "the working directory is gone",
                    )),
                ),
                "the repository \"./here\" is not usable: the working directory is gone; give owner/repo, a git URL, or a local directory starting with ./, ../ or /",
            ),
            (
                repository("./odd", SourceProblem::NotUtf8),
                "the repository \"./odd\" is not usable: the path is not UTF-8; give owner/repo, a git URL, or a local directory starting with ./, ../ or /",
            ),
        ];
        for (error, text) in rows {
            assert_eq!(error.to_string(), text);
            assert_eq!(error.side(), Side::Input, "{text}");
            let want = match &error {
                Error::Lock {
                    problem: SkillLockProblem::NotValid(_),
                    ..
                } => Some(Location::at(crate::lock::SKILL_LOCK_FILE, Some(1))),
                Error::Lock { .. } => Some(Location::file(crate::lock::SKILL_LOCK_FILE)),
                _ => None,
            };
            assert_eq!(error.location(), want, "{text}");
        }
    }

    #[test]
    fn add_again_is_a_command_a_shell_runs_as_written() {
        let rows = [
            (
                AddAgain {
                    source: "./up".to_owned(),
                    path: "skills/pdf".to_owned(),
                    name: None,
                    reference: None,
                },
                "skill add ./up skills/pdf",
            ),
            (
                AddAgain {
                    source: "https://example.com/a b.git".to_owned(),
                    path: ".".to_owned(),
                    name: Some("pdf".to_owned()),
                    reference: Some("it's".to_owned()),
                },
                "skill add 'https://example.com/a b.git' . --name pdf --ref 'it'\\''s'",
            ),
        ];
        for (again, text) in rows {
            assert_eq!(again.to_string(), text);
        }
    }

    #[test]
    fn a_transport_refusal_keeps_the_side_the_transport_gives_it() {
        let input = Error::Remote(asv_remote::Error::Fs(asv_fs::Error::Symlink {
            path: "skills/a".into(),
        }));
        assert_eq!(input.side(), asv_error::Side::Input);
    }
}
