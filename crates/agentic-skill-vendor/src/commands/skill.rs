//! The `skill` commands: validate, hash, add, status, pull, resolve, diff, pack, install,
//! remove, outdated, list.

use std::path::{Path, PathBuf};

use asv_skills::{add, diff, pull, resolve, status};

use super::Report;
use crate::cli::{Format, InstallScope, SkillVersion};
use crate::error::{DirRole, Usage};
use crate::render;
use crate::settings::Settings;

fn version(v: SkillVersion) -> diff::Version {
    match v {
        SkillVersion::Base => diff::Version::Base,
        SkillVersion::Local => diff::Version::Local,
        SkillVersion::Upstream => diff::Version::Upstream,
    }
}

fn findings(format: Format, found: &[asv_skills::Finding]) -> Vec<String> {
    found.iter().map(|f| render::finding(format, f)).collect()
}

/// `skill sync [--force] [--dry-run]`.
///
/// # Errors
/// A refusal of the tree, the intent, the lock, a source or a mirrored copy.
pub fn sync(settings: &Settings, force: bool, dry_run: bool) -> crate::error::Result<Report> {
    let root = settings.open_root()?;
    let lock = super::lock_unless_dry(settings, &root, dry_run)?;
    let intent = asv_skills::intent::Intent::load(&root)?;
    let options = settings.transport_options()?;
    let request = asv_skills::sync::SyncOptions {
        force,
        writer: lock.as_ref(),
    };
    let done = asv_skills::sync::sync(&root, &request, &options)?;
    let mut report = Report::new(
        done.iter()
            .map(|d| render::synced(settings.format, d))
            .collect(),
        // A skill left out of the agents' directories is work left: exit 1.
        done.iter().any(asv_skills::sync::Synced::is_shortfall),
    );
    report.warnings = intent_keys(&intent);
    report.warnings.extend(super::left_behind(lock.as_ref()));
    Ok(report)
}

/// The warnings of the intent's keys this tool does not read.
fn intent_keys(intent: &asv_skills::intent::Intent) -> Vec<String> {
    intent
        .unknown_keys
        .iter()
        .map(render::warnings::intent_key)
        .collect()
}

/// `skill verify`.
///
/// # Errors
/// A refusal of the tree, the intent or the lock.
pub fn verify(settings: &Settings) -> crate::error::Result<Report> {
    let root = settings.open_root()?;
    // An unusable entry of the lock or intent is one of verify's findings, not a refusal:
    // verify itself tells which it is.
    let unknown_keys = match asv_skills::intent::Intent::load(&root) {
        Ok(intent) => intent_keys(&intent),
        Err(asv_skills::Error::Intent { .. } | asv_skills::Error::Lock { .. }) => Vec::new(),
        Err(e) => return Err(e.into()),
    };
    let problems = asv_skills::verify::verify(&root)?;
    let mut report = Report::new(
        problems
            .iter()
            .map(|p| render::skill_problem(settings.format, p))
            .collect(),
        !problems.is_empty(),
    );
    report.warnings = unknown_keys;
    super::with_interrupted(settings, &root, report)
}

/// A version's name as typed (`base`, `local`, `upstream`).
fn version_name(v: SkillVersion) -> &'static str {
    match v {
        SkillVersion::Base => "base",
        SkillVersion::Local => "local",
        SkillVersion::Upstream => "upstream",
    }
}

/// `skill hash <dir>`.
///
/// # Errors
/// No such directory; a refusal of what it holds.
pub fn hash(format: Format, dir: &Path) -> crate::error::Result<Report> {
    let root = crate::paths::open_dir(dir, DirRole::Skill)?;
    let skill = asv_skilltree::SkillTree::read(&root, "")?;
    let shown = dir.to_string_lossy();
    Ok(Report::new(
        vec![render::hash(format, &shown, &skill.hash())],
        false,
    ))
}

/// `skill validate [<dir>…] [--strict]`.
///
/// # Errors
/// A refusal of the tree or of a directory named.
pub fn validate(
    settings: &Settings,
    dirs: &[PathBuf],
    strict: bool,
) -> crate::error::Result<Report> {
    let mut found = Vec::new();
    let mut checked = dirs.len();
    let mut repo_root = None;
    if dirs.is_empty() {
        let root = repo_root.insert(settings.open_root()?);
        let every = root
            .read_dir(asv_model::layout::SKILLS_DIR)?
            .unwrap_or_default()
            .into_iter()
            .filter(|e| {
                e.kind == asv_fs::EntryKind::Directory && !asv_fs::is_tree_change_residue(&e.name)
            });
        for e in every {
            checked += 1;
            found.extend(asv_skills::validate_skill(
                root,
                &asv_fs::join(asv_model::layout::SKILLS_DIR, &e.name),
            )?);
        }
    }
    for typed in dirs {
        found.extend(validate_typed(settings, typed)?);
    }
    let failed = found
        .iter()
        .any(|f| f.severity == asv_skills::Severity::Error || strict);
    let mut report = Report::new(findings(settings.format, &found), failed);
    if settings.summary && !failed {
        report.summary = Some(crate::summary::validate(checked, found.len()));
    }
    match &repo_root {
        Some(root) => super::with_interrupted(settings, root, report),
        None => Ok(report),
    }
}

/// `skill validate <dir>` for one directory as typed: a skill inside the repository is judged
/// in its tree and shown from the root (as `verify` shows it); one elsewhere is shown by the
/// path as typed.
fn validate_typed(
    settings: &Settings,
    typed: &Path,
) -> crate::error::Result<Vec<asv_skills::Finding>> {
    let located = crate::paths::locate(&settings.root_abs, typed, false)?;
    let mut found = asv_skills::validate_skill(&located.root, &located.rel)?;
    if !located.in_repository {
        let shown = typed.display().to_string();
        let shown = shown.trim_end_matches('/');
        for f in &mut found {
            if let Some(rest) = f.path.strip_prefix(&located.rel) {
                f.path = format!("{shown}{rest}");
            }
        }
    }
    Ok(found)
}

/// `skill add <repository> <path> [--name N] [--ref R]` (without `--all`).
///
/// # Errors
/// A refusal of the tree, the source or the skill.
pub fn add(
    settings: &Settings,
    repository: &str,
    path: &str,
    name: Option<&str>,
    reference: Option<&str>,
    working_tree: bool,
) -> crate::error::Result<Report> {
    let root = settings.open_root()?;
    let lock = super::lock_for_writing(settings, &root)?;
    let options = settings.transport_options()?;
    let request = add::AddRequest {
        repository: local_source_from_root(settings, repository)?,
        path: path.to_owned(),
        name: name.map(str::to_owned),
        reference: reference.map(str::to_owned),
        working_tree,
    };
    let added = add::add(&lock, &request, &options)?;
    let mut lines = findings(settings.format, &added.warnings);
    lines.push(render::added(settings.format, &added));
    Ok(super::with_left_behind(
        Report::new(lines, false),
        Some(&lock),
    ))
}

/// `skill add --all`: one `added:` line per skill, by name, after the warnings of each.
///
/// # Errors
/// A refusal of the tree, the source, or any skill under `dir` (then nothing is written).
pub fn add_all(
    settings: &Settings,
    repository: &str,
    dir: &str,
    reference: Option<&str>,
    working_tree: bool,
) -> crate::error::Result<Report> {
    let root = settings.open_root()?;
    // Like every writer: waits for another run, and puts right what a killed one left,
    // before anything is read.
    let lock = super::lock_for_writing(settings, &root)?;
    let options = settings.transport_options()?;
    let request = add::AddAllRequest {
        repository: local_source_from_root(settings, repository)?,
        dir: dir.to_owned(),
        reference: reference.map(str::to_owned),
        working_tree,
    };
    let mut lines = Vec::new();
    for added in add::add_all(&lock, &request, &options)? {
        lines.extend(findings(settings.format, &added.warnings));
        lines.push(render::added(settings.format, &added));
    }
    Ok(super::with_left_behind(
        Report::new(lines, false),
        Some(&lock),
    ))
}

/// A local source of `skill add` as typed (from the current directory) turned into the path
/// the lock keeps: from the repository root, so later pulls find it from any directory; an
/// absolute one stays absolute. A repository spelling is left as it is.
fn local_source_from_root(settings: &Settings, given: &str) -> crate::error::Result<String> {
    let local = given == "."
        || given == ".."
        || given.starts_with('/')
        || given.starts_with("./")
        || given.starts_with("../");
    if !local || given.starts_with('/') {
        return Ok(given.to_owned());
    }
    let path = crate::paths::absolute(Path::new(given)).map_err(|error| Usage::Unplaceable {
        typed: given.into(),
        error,
    })?;
    let rel = crate::paths::relative(&settings.root_abs, &path).ok_or_else(|| Usage::NotUtf8 {
        typed: given.into(),
    })?;
    Ok(if rel.is_empty() {
        ".".to_owned()
    } else if rel == ".." || rel.starts_with("../") {
        rel
    } else {
        format!("./{rel}")
    })
}

/// `skill status [<name>…]`.
///
/// # Errors
/// A refusal of the tree or the skill lock.
pub fn status(settings: &Settings, names: &[String]) -> crate::error::Result<Report> {
    let root = settings.open_root()?;
    let states = status::status_of(&root, names)?;
    Ok(Report::new(
        states
            .iter()
            .map(|s| render::status(settings.format, settings.stdout_color, s))
            .collect(),
        false,
    ))
}

/// `skill pull [<name>…] [--write-conflicts]`.
///
/// # Errors
/// A refusal of the tree, a skill, the source or a write.
pub fn pull(
    settings: &Settings,
    names: &[String],
    write_conflicts: bool,
    dry_run: bool,
    reference: Option<&str>,
) -> crate::error::Result<Report> {
    // `--ref` moves one skill: which one must be said.
    if reference.is_some() && names.len() != 1 {
        return Err(Usage::RefNeedsOneSkill { named: names.len() }.into());
    }
    let root = settings.open_root()?;
    let lock = super::lock_unless_dry(settings, &root, dry_run)?;
    let options = settings.transport_options()?;
    let request = pull::PullOptions {
        names,
        write_conflicts,
        reference,
        writer: lock.as_ref(),
    };
    let pulled = pull::pull(&root, &request, &options)?;
    let conflicts = pulled.iter().any(|p| p.is_conflict());
    let mut lines = Vec::new();
    for p in &pulled {
        // A skill's warnings come before its own line, as `skill add` puts them.
        if let pull::Pulled::Updated { warnings, .. } = p {
            lines.extend(findings(settings.format, warnings));
        }
        lines.extend(render::pulled(settings.format, p));
    }
    let mut report = Report::new(lines, conflicts);
    report
        .warnings
        .extend(pulled.iter().filter_map(render::pull_warning));
    if dry_run {
        report.warnings.push(render::warnings::pull_dry_run());
    }
    report.warnings.extend(super::left_behind(lock.as_ref()));
    Ok(report)
}

/// `skill resolve <name>`.
///
/// # Errors
/// A refusal of the tree or the skill.
pub fn resolve(settings: &Settings, name: &str) -> crate::error::Result<Report> {
    let root = settings.open_root()?;
    let lock = super::lock_for_writing(settings, &root)?;
    let revision = resolve::resolve(&lock, name)?;
    let report = Report::new(
        vec![render::resolved(settings.format, name, &revision)],
        false,
    );
    Ok(super::with_left_behind(report, Some(&lock)))
}

/// `skill diff <name> [--from …] [--to …]`.
///
/// # Errors
/// A refusal of the tree, the skill or the source.
pub fn diff(
    settings: &Settings,
    name: &str,
    from: SkillVersion,
    to: SkillVersion,
) -> crate::error::Result<Report> {
    let root = settings.open_root()?;
    // A diff may keep a base it had to fetch, which is a change to the tree like any other.
    let lock = super::lock_for_writing(settings, &root)?;
    let options = settings.transport_options()?;
    let unified = diff::diff(&lock, name, version(from), version(to), &options)?;
    let lines = render::diff(
        settings.format,
        settings.stdout_color,
        name,
        version_name(from),
        version_name(to),
        &unified,
    );
    Ok(super::with_left_behind(
        Report::new(lines, false),
        Some(&lock),
    ))
}

/// `skill pack <dir> [-o file.zip]`.
///
/// # Errors
/// A refusal of the skill; the ZIP cannot be written.
pub fn pack(
    settings: &Settings,
    dir: &Path,
    output: Option<&Path>,
) -> crate::error::Result<Report> {
    // The repository must exist even for a skill outside it, as for every skill command.
    settings.open_root()?;
    let located = crate::paths::locate(&settings.root_abs, dir, false)?;
    let packed = asv_skills::package::pack(&located.root, &located.rel)?;
    let output = output
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(format!("{}.zip", packed.name)));
    write_output(&output, &packed.zip)?;
    let mut lines = findings(settings.format, &packed.warnings);
    lines.push(render::packed(
        settings.format,
        &packed,
        &output.display().to_string(),
    ));
    Ok(Report::new(lines, false))
}

/// The options of `skill install`.
pub struct InstallArgs<'a> {
    /// The input: a skill directory, a directory of skills, a ZIP or a `.tar.gz`.
    pub input: &'a Path,
    /// `--into`.
    pub into: Option<&'a Path>,
    /// `--target`, every name given (in order).
    pub targets: &'a [String],
    /// `--scope`.
    pub scope: InstallScope,
    /// `--force`.
    pub force: bool,
    /// `--dry-run`.
    pub dry_run: bool,
}

/// `skill install <input> …`.
///
/// # Errors
/// A refusal of the destination, the input or a skill; a failed write (rolled back).
pub fn install(settings: &Settings, args: &InstallArgs<'_>) -> crate::error::Result<Report> {
    let root = settings.open_root()?;
    let (dest, dirs, shown_root) =
        settings.install_destination(args.into, args.targets, args.scope)?;
    // Whichever tree is written is locked, and put right first should a killed run have
    // left it part-way: the repository, or an agent's directory elsewhere.
    let dest = dest.as_ref().unwrap_or(&root);
    let lock = super::lock_unless_dry(settings, dest, args.dry_run)?;
    let label = args.input.display().to_string();
    let dirs: Vec<&str> = dirs.iter().map(String::as_str).collect();
    let request = asv_skills::install::InstallOptions {
        into: &dirs,
        input: args.input,
        label: &label,
        force: args.force,
        writer: lock.as_ref(),
    };
    let installed = asv_skills::install::install(dest, &request)?;
    let mut lines = findings(settings.format, &installed.warnings);
    lines.extend(render::installed(settings.format, &installed, &shown_root));
    Ok(super::with_left_behind(
        Report::new(lines, false),
        lock.as_ref(),
    ))
}

/// Writes a file the user named on the command line (atomically, never through a link).
fn write_output(path: &Path, bytes: &[u8]) -> crate::error::Result<()> {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| Usage::NotAFileName {
            path: path.to_path_buf(),
        })?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // Whatever stops it opening, the way out is another -o.
    let dir = asv_fs::Root::open(&parent).map_err(|_| Usage::NoOutputDirectory {
        dir: parent.clone(),
    })?;
    dir.write_file(name, bytes)?;
    Ok(())
}

/// `skill remove <name>… [--force]`.
///
/// # Errors
/// A refusal of the tree, a name or a skill's local edits; a failed write (rolled back).
pub fn remove(settings: &Settings, names: &[String], force: bool) -> crate::error::Result<Report> {
    let root = settings.open_root()?;
    let lock = super::lock_for_writing(settings, &root)?;
    let removed = asv_skills::manage::remove(&lock, names, force)?;
    let report = Report::new(
        removed
            .iter()
            .map(|r| render::removed(settings.format, r))
            .collect(),
        false,
    );
    Ok(super::with_left_behind(report, Some(&lock)))
}

/// `skill outdated [<name>…]`: exit 1 when any imported skill's ref has moved.
///
/// # Errors
/// A refusal of the tree, a name or a source.
pub fn outdated(settings: &Settings, names: &[String]) -> crate::error::Result<Report> {
    let root = settings.open_root()?;
    let options = settings.transport_options()?;
    let moved = asv_skills::manage::outdated(&root, names, &options)?;
    Ok(Report::new(
        moved
            .iter()
            .map(|o| render::outdated(settings.format, o))
            .collect(),
        // A skill gone upstream is news, not work: it is kept as it is.
        moved.iter().any(|o| !o.removed_upstream),
    ))
}

/// `skill list --target <agent>`.
///
/// # Errors
/// A refusal of the tree or the skill lock.
pub fn list_agent(
    settings: &Settings,
    target: &str,
    scope: crate::cli::InstallScope,
) -> crate::error::Result<Report> {
    let (elsewhere, dirs, shown) =
        settings.install_destination(None, &[target.to_owned()], scope)?;
    let Some(dir) = dirs.first() else {
        return Ok(Report::new(Vec::new(), false));
    };
    let (root, recorded) = match &elsewhere {
        Some(root) => (root, None),
        None => {
            let root = settings.open_root()?;
            let lock = asv_skills::lock::SkillLock::load(&root)?;
            let skills = asv_skills::sync::list_agent(&root, dir, lock.projections.get(dir))?;
            return Ok(agent_report(settings, &shown, dir, &skills));
        }
    };
    let skills = asv_skills::sync::list_agent(root, dir, recorded)?;
    Ok(agent_report(settings, &shown, dir, &skills))
}

fn agent_report(
    settings: &Settings,
    shown: &str,
    dir: &str,
    skills: &[asv_skills::sync::AgentSkill],
) -> Report {
    Report::new(
        skills
            .iter()
            .map(|s| render::agent_skill(settings.format, &format!("{shown}{dir}"), s))
            .collect(),
        false,
    )
}

/// `skill list [<name>…]`.
///
/// # Errors
/// A refusal of the tree or the lock.
pub fn list(settings: &Settings, names: &[String]) -> crate::error::Result<Report> {
    let root = settings.open_root()?;
    let skills = asv_skills::manage::list_of(&root, names)?;
    let lock = asv_skills::lock::SkillLock::load(&root)?;
    Ok(Report::new(
        skills
            .iter()
            .map(|s| {
                // Where skill sync mirrored it (per the lock).
                let mirrored: Vec<&str> = lock
                    .projections
                    .iter()
                    .filter(|(_, placed)| placed.contains_key(&s.name))
                    .map(|(dir, _)| dir.as_str())
                    .collect();
                render::listed(settings.format, s, &mirrored)
            })
            .collect(),
        false,
    ))
}
