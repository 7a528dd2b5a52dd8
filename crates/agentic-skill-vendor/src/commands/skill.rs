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

/// `found` split by where each goes: in text, a warning is said on stderr (labelled there,
/// silenced by `-q`) and only an error is a line of the report; in JSON and GitHub
/// annotations every finding stays a record of the report, which a program reads whole.
/// Returns `(lines, warnings)`.
fn split_findings(format: Format, found: &[asv_skills::Finding]) -> (Vec<String>, Vec<String>) {
    if format != Format::Text {
        return (findings(format, found), Vec::new());
    }
    let (warnings, errors): (Vec<_>, Vec<_>) = found
        .iter()
        .partition(|f| f.severity == asv_skills::Severity::Warning);
    (
        errors.iter().map(|f| render::finding(format, f)).collect(),
        warnings
            .iter()
            .map(|f| format!("{}: {}", f.location(), f.problem))
            .collect(),
    )
}

/// Whether every item is a line of its own: asked with `--verbose`, and always in JSON and
/// GitHub annotations (one record per item).
fn each(settings: &Settings) -> bool {
    settings.verbose || settings.format != Format::Text
}

/// `skill sync [--force] [--dry-run] [--scope project|user]`.
///
/// # Errors
/// A refusal of the tree, the intent, the lock, a source or a mirrored copy; with `--scope
/// user`, no home directory, no user intent, or an agent's user directory outside the home
/// directory.
pub fn sync(
    settings: &Settings,
    force: bool,
    dry_run: bool,
    scope: InstallScope,
    accept_findings: bool,
) -> crate::error::Result<Report> {
    if scope == InstallScope::User {
        return sync_user(settings, force, dry_run, accept_findings);
    }
    let root = settings.open_root()?;
    let lock = super::lock_unless_dry(settings, &root, dry_run)?;
    let intent = asv_skills::intent::Intent::load(&root)?;
    let options = settings.transport_options()?;
    let gate = super::audit::gate(&root, accept_findings)?;
    let request = asv_skills::sync::SyncOptions {
        force,
        writer: lock.as_ref(),
        user: None,
        gate: Some(&gate),
    };
    let done = asv_skills::sync::sync(&root, &request, &options)?;
    let lines = crate::summary::collapse(
        &done,
        each(settings),
        // A skill left out of the agents' directories is said on its own line, always.
        |d| (!d.is_shortfall()).then(|| d.kind()),
        |d| vec![render::synced(settings.format, d)],
        crate::summary::synced,
    );
    let mut report = Report::new(
        lines,
        // A skill left out of the agents' directories is work left: exit 1.
        done.iter().any(asv_skills::sync::Synced::is_shortfall),
    );
    report.warnings = intent_keys(&intent);
    report.warnings.extend(super::left_behind(lock.as_ref()));
    super::audit::gated(settings, &mut report, gate);
    Ok(report)
}

/// `skill sync --scope user`: the user state directory synced, its skills mirrored into the
/// intent's targets' user directories under `HOME` (docs/TARGETS.md, "User scope").
fn sync_user(
    settings: &Settings,
    force: bool,
    dry_run: bool,
    accept_findings: bool,
) -> crate::error::Result<Report> {
    let places = crate::settings::user_sync_places()?;
    let state = &places.state;
    let home = &places.home;
    // The state directory first, the home tree second: the order every writer takes them.
    // Run again after a kill, a user sync does only what is left (its changes are three, so
    // one found complete is not the command complete).
    let (state_lock, home_lock) = if dry_run {
        (None, None)
    } else {
        (
            Some(super::lock_for_writing_as(settings, state, false)?),
            Some(super::lock_for_writing_as(settings, home, false)?),
        )
    };
    // Read under the state directory's lock: what a user install recorded is left alone.
    let installed = asv_skills::installed::InstalledRecord::load(
        state,
        &crate::settings::installed_shown(&places.state_dir),
    )?;
    let options = settings.transport_options()?;
    // The state directory's own allow file judges what a user sync takes up.
    let gate = super::audit::gate(state, accept_findings)?;
    let request = asv_skills::sync::SyncOptions {
        force,
        gate: Some(&gate),
        writer: state_lock.as_ref(),
        user: Some(asv_skills::sync::UserTree {
            tree: home,
            dirs: &places.dirs,
            writer: home_lock.as_ref(),
            installed: &installed,
        }),
    };
    let done = asv_skills::sync::sync(state, &request, &options).map_err(home_shown)?;
    let mut report = Report::new(
        done.iter()
            .map(|d| render::synced(settings.format, &user_shown(d)))
            .collect(),
        done.iter().any(asv_skills::sync::Synced::is_shortfall),
    );
    report.warnings = intent_keys(&places.intent);
    report
        .warnings
        .extend(super::left_behind(state_lock.as_ref()));
    report
        .warnings
        .extend(super::left_behind(home_lock.as_ref()));
    super::audit::gated(settings, &mut report, gate);
    Ok(report)
}

/// A user sync's line with its copy shown from `~/`, where the agents read it (a skill of the
/// state directory stays `skills/<name>`, from the state directory).
fn user_shown(done: &asv_skills::sync::Synced) -> asv_skills::sync::Synced {
    use asv_skills::sync::Synced;
    match done.clone() {
        Synced::Projected { path, hash, how } => Synced::Projected {
            path: format!("~/{path}"),
            hash,
            how,
        },
        Synced::Unprojected { path } => Synced::Unprojected {
            path: format!("~/{path}"),
        },
        other => other,
    }
}

/// A user sync's refusal of a copy or an agent's directory, named from `~/` as its lines
/// name them: the library names them from the tree it was given, the home directory.
fn home_shown(e: asv_skills::Error) -> asv_skills::Error {
    use asv_skills::error::CopyEdited;
    let home = |p: String| format!("~/{p}");
    match e {
        asv_skills::Error::ProjectionEdited { path, what } => asv_skills::Error::ProjectionEdited {
            path: home(path),
            what: match what {
                CopyEdited::FileChanged { file } => CopyEdited::FileChanged { file: home(file) },
                CopyEdited::FileNotOurs { file, skill } => CopyEdited::FileNotOurs {
                    file: home(file),
                    skill,
                },
                other => other,
            },
        },
        asv_skills::Error::ProjectionDir { path, kind } => asv_skills::Error::ProjectionDir {
            path: home(path),
            kind,
        },
        asv_skills::Error::InstalledInTheWay { path, name, from } => {
            asv_skills::Error::InstalledInTheWay {
                path: home(path),
                name,
                from,
            }
        }
        other => other,
    }
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
    let allow = asv_skills::audit::allow::Allowances::load(&root)?;
    // Every skill under skills/ audited as verify reads it (issue 32 §2): an error finding no
    // entry of the allow file accepts fails the run.
    let (problems, audited) = asv_skills::verify::verify_audited(&root)?;
    if settings.format == Format::Sarif {
        // stdout is the SARIF document; verify's other problems, and a killed run's
        // leftovers, are said on stderr and fail the run.
        let mut said: Vec<String> = problems
            .iter()
            .map(|p| render::skill_problem(Format::Text, p))
            .collect();
        for run in root.interrupted_runs()? {
            said.push(render::interrupted(Format::Text, &run));
        }
        let mut report = super::audit::verify_sarif(audited, &allow, said);
        report.warnings.extend(unknown_keys);
        return Ok(report);
    }
    let mut lines: Vec<String> = problems
        .iter()
        .map(|p| render::skill_problem(settings.format, p))
        .collect();
    let (found, audit_failed) = super::audit::verify_lines(settings.format, &audited, &allow);
    lines.extend(found);
    let mut report = Report::new(lines, !problems.is_empty() || audit_failed);
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
    // Under --strict a warning fails the run: it is then one of the report's findings.
    let (lines, warnings) = if strict {
        (findings(settings.format, &found), Vec::new())
    } else {
        split_findings(settings.format, &found)
    };
    let mut report = Report::new(lines, failed);
    report.warnings = warnings;
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
    a: &AddArgs<'_>,
) -> crate::error::Result<Report> {
    let root = settings.open_root()?;
    let lock = super::lock_for_writing(settings, &root)?;
    let options = settings.transport_options()?;
    let gate = super::audit::gate(&root, a.accept_findings)?;
    let request = add::AddRequest {
        repository: local_source_from_root(settings, repository)?,
        path: path.to_owned(),
        name: a.name.map(str::to_owned),
        reference: a.reference.map(str::to_owned),
        working_tree: a.working_tree,
        signed_by: a.signed_by.map(str::to_owned),
    };
    let added = add::add_with(&lock, &request, &options, Some(&gate))?;
    let (mut lines, warnings) = split_findings(settings.format, &added.warnings);
    lines.push(render::added(settings.format, &added));
    let mut report = Report::new(lines, false);
    report.warnings = warnings;
    super::audit::gated(settings, &mut report, gate);
    Ok(super::with_left_behind(report, Some(&lock)))
}

/// `skill add --all`: one `added:` line per skill, by name (one line for them all past
/// [`crate::summary::LISTED`], unless `--verbose`), each skill's warnings on stderr in text.
///
/// # Errors
/// A refusal of the tree, the source, or any skill under `dir` (then nothing is written).
pub fn add_all(
    settings: &Settings,
    repository: &str,
    dir: &str,
    a: &AddArgs<'_>,
) -> crate::error::Result<Report> {
    let root = settings.open_root()?;
    // Like every writer: waits for another run, and puts right what a killed one left,
    // before anything is read.
    let lock = super::lock_for_writing(settings, &root)?;
    let options = settings.transport_options()?;
    let gate = super::audit::gate(&root, a.accept_findings)?;
    let request = add::AddAllRequest {
        repository: local_source_from_root(settings, repository)?,
        dir: dir.to_owned(),
        reference: a.reference.map(str::to_owned),
        working_tree: a.working_tree,
        signed_by: a.signed_by.map(str::to_owned),
    };
    let all = add::add_all_with(&lock, &request, &options, Some(&gate))?;
    let mut warnings = Vec::new();
    let lines = crate::summary::collapse(
        &all,
        each(settings),
        |_| Some("added"),
        |added| {
            let (mut lines, _) = split_findings(settings.format, &added.warnings);
            lines.push(render::added(settings.format, added));
            lines
        },
        |_, group| crate::summary::added(group),
    );
    // In text a skill's warnings go to stderr, listed or not; elsewhere they are records
    // before the skill's own, made by the render above.
    for added in &all {
        warnings.extend(split_findings(settings.format, &added.warnings).1);
    }
    let mut report = Report::new(lines, false);
    report.warnings = warnings;
    super::audit::gated(settings, &mut report, gate);
    Ok(super::with_left_behind(report, Some(&lock)))
}

/// `skill add` as typed: a source, and a path or a way to choose among the skills found.
pub struct AddArgs<'a> {
    /// The source as typed (a GitHub web address included).
    pub repository: &'a str,
    /// The path in the source; `None` to find the skills.
    pub path: Option<&'a str>,
    /// `--name`.
    pub name: Option<&'a str>,
    /// `--ref`.
    pub reference: Option<&'a str>,
    /// `--all`.
    pub all: bool,
    /// `--skill`: the names (or globs) chosen.
    pub skills: &'a [String],
    /// `--list`.
    pub list: bool,
    /// `--working-tree`.
    pub working_tree: bool,
    /// `--accept-findings`.
    pub accept_findings: bool,
    /// `--signed-by`.
    pub signed_by: Option<&'a str>,
}

/// `skill add` in every form: with a path as it always was (one skill, or `--all` under
/// it); without one, the skills the source holds are found and listed, offered or chosen
/// (issue 31 §1). A GitHub web address is read as `owner/repo`, a ref and a path.
///
/// # Errors
/// A refusal of the tree, the source, the choice or any skill (then nothing is written).
pub fn add_any(settings: &Settings, a: &AddArgs<'_>) -> crate::error::Result<Report> {
    let web = asv_skills::weburl::parse(a.repository);
    match (a.path, &web) {
        (Some(_), Some(url)) if !url.rest.is_empty() => Err(Usage::PathTwice {
            address: a.repository.to_owned(),
            repository: url.repository.clone(),
            in_address: url.rest.join("/"),
        }
        .into()),
        (Some(path), _) => {
            let repository = web.as_ref().map_or(a.repository, |u| &u.repository);
            if a.all {
                add_all(settings, repository, path, a)
            } else {
                add(settings, repository, path, a)
            }
        }
        (None, _) => add_found(settings, a, web.as_ref()),
    }
}

/// `skill add` without a path: finds the skills, then lists them (`--list`), or takes those
/// `--all`, `--skill` or the prompt choose; off a terminal with several found and no choice,
/// the refusal lists them and says how to choose.
fn add_found(
    settings: &Settings,
    a: &AddArgs<'_>,
    web: Option<&asv_skills::weburl::WebUrl>,
) -> crate::error::Result<Report> {
    use asv_skills::sources::Sources;
    let root = settings.open_root()?;
    // Only a run that may write waits for the writer lock (and puts right a killed run).
    let lock = if a.list {
        None
    } else {
        Some(super::lock_for_writing(settings, &root)?)
    };
    let options = settings.transport_options()?;
    let sources = Sources::new(&options);
    let (repository, start, reference) = match web {
        None => (
            local_source_from_root(settings, a.repository)?,
            ".".to_owned(),
            a.reference.map(str::to_owned),
        ),
        Some(url) => {
            let (reference, start) = match a.reference {
                None => asv_skills::weburl::ref_and_path(&root, url, &sources)?,
                Some(given) => {
                    let segments: Vec<&str> = given.split('/').collect();
                    let starts = url.rest.len() >= segments.len()
                        && url.rest.iter().zip(&segments).all(|(x, y)| x == y);
                    if !url.rest.is_empty() && !starts {
                        return Err(Usage::RefNotInAddress {
                            address: a.repository.to_owned(),
                            reference: given.to_owned(),
                        }
                        .into());
                    }
                    let rest = url.rest.get(segments.len()..).unwrap_or_default();
                    let start = if rest.is_empty() {
                        ".".to_owned()
                    } else {
                        rest.join("/")
                    };
                    (Some(given.to_owned()), start)
                }
            };
            (url.repository.clone(), start, reference)
        }
    };
    let request = add::FindRequest {
        repository: repository.clone(),
        start,
        reference: reference.clone(),
        working_tree: a.working_tree,
        signed_by: a.signed_by.map(str::to_owned),
    };
    let found = add::find(&root, &request, &sources)?;
    let Some(lock) = lock else {
        // `--list`: the skills found (those `--skill` names, when given), and nothing taken.
        let shown: Vec<usize> = if a.skills.is_empty() {
            (0..found.skills.len()).collect()
        } else {
            add::choose(&found, a.skills)?
        };
        let lines = shown
            .iter()
            .map(|&i| {
                render::discovered(
                    settings.format,
                    &found.source,
                    &found.revision,
                    &found.skills[i],
                )
            })
            .collect();
        return Ok(Report::new(lines, false));
    };
    let chosen: Vec<usize> = if a.all {
        (0..found.skills.len()).collect()
    } else if !a.skills.is_empty() {
        add::choose(&found, a.skills)?
    } else if found.skills.len() == 1 {
        vec![0]
    } else if interactive() {
        prompt(&found)?
    } else {
        return Err(Usage::ChooseSkills {
            source_name: found.source.clone(),
            found: found
                .skills
                .iter()
                .map(|s| (s.name.clone(), s.path.clone()))
                .collect(),
        }
        .into());
    };
    let gate = super::audit::gate(&root, a.accept_findings)?;
    let added = match (a.name, chosen.as_slice()) {
        (None, _) => add::add_found_with(&lock, &found, &chosen, &sources, Some(&gate))?,
        // A new name is the single add's rename, read from the one path chosen.
        (Some(name), [one]) => vec![add::add_with(
            &lock,
            &add::AddRequest {
                repository,
                path: found.skills[*one].path.clone(),
                name: Some(name.to_owned()),
                reference,
                working_tree: a.working_tree,
                signed_by: a.signed_by.map(str::to_owned),
            },
            &options,
            Some(&gate),
        )?],
        (Some(_), many) => {
            return Err(Usage::NameNeedsOneSkill { chosen: many.len() }.into());
        }
    };
    let mut lines = Vec::new();
    for added in &added {
        lines.extend(findings(settings.format, &added.warnings));
        lines.push(render::added(settings.format, added));
    }
    let mut report = Report::new(lines, false);
    super::audit::gated(settings, &mut report, gate);
    Ok(super::with_left_behind(report, Some(&lock)))
}

/// Whether a person can be asked: standard input and standard error are both terminals
/// (the prompt is drawn on standard error, so standard output stays the report).
fn interactive() -> bool {
    use std::io::IsTerminal;
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// Offers the skills of `found` as a multi-select on standard error: the indices chosen, in
/// the order found.
///
/// # Errors
/// [`Usage::Prompt`] for a terminal that cannot be used; [`Usage::NoneChosen`] when the
/// prompt is left (Esc, q) or nothing is chosen.
fn prompt(found: &add::Found) -> crate::error::Result<Vec<usize>> {
    let items: Vec<String> = found
        .skills
        .iter()
        .map(|s| match &s.description {
            Some(d) => format!("{} ({}): {}", s.name, s.path, shorten(d, 60)),
            None => format!("{} ({})", s.name, s.path),
        })
        .collect();
    let picked = dialoguer::MultiSelect::new()
        .with_prompt(format!(
            "{} holds {} skills: space chooses, a chooses all, enter takes them",
            found.source,
            found.skills.len()
        ))
        .items(&items)
        .report(false)
        .interact_on_opt(&dialoguer::console::Term::stderr())
        .map_err(|dialoguer::Error::IO(e)| Usage::Prompt(e))?;
    match picked {
        Some(chosen) if !chosen.is_empty() => Ok(chosen),
        _ => Err(Usage::NoneChosen {
            source_name: found.source.clone(),
        }
        .into()),
    }
}

/// `text` cut to `max` characters, an ellipsis marking the cut.
fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
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

/// The options of `skill pull` as typed.
pub struct PullArgs<'a> {
    /// `--write-conflicts`.
    pub write_conflicts: bool,
    /// `--dry-run`.
    pub dry_run: bool,
    /// `--ref`.
    pub reference: Option<&'a str>,
    /// `--accept-signer-change`.
    pub accept_signer_change: bool,
    /// `--accept-findings`.
    pub accept_findings: bool,
}

/// `skill pull [<name>…] [--write-conflicts] [--dry-run] [--ref R] [--accept-signer-change]
/// [--accept-findings]`.
///
/// # Errors
/// A refusal of the tree, a skill, the source or a write.
pub fn pull(
    settings: &Settings,
    names: &[String],
    args: &PullArgs<'_>,
) -> crate::error::Result<Report> {
    let PullArgs {
        write_conflicts,
        dry_run,
        reference,
        accept_signer_change,
        accept_findings,
    } = *args;
    // `--ref` moves one skill: which one must be said.
    if reference.is_some() && names.len() != 1 {
        return Err(Usage::RefNeedsOneSkill { named: names.len() }.into());
    }
    let root = settings.open_root()?;
    let lock = super::lock_unless_dry(settings, &root, dry_run)?;
    let options = settings.transport_options()?;
    let gate = super::audit::gate(&root, accept_findings)?;
    let request = pull::PullOptions {
        names,
        write_conflicts,
        reference,
        writer: lock.as_ref(),
        gate: Some(&gate),
        accept_signer_change,
    };
    let pulled = pull::pull(&root, &request, &options)?;
    let conflicts = pulled.iter().any(|p| p.is_conflict());
    let mut warnings = Vec::new();
    for p in &pulled {
        if let pull::Pulled::Updated {
            warnings: found, ..
        } = p
        {
            warnings.extend(split_findings(settings.format, found).1);
        }
    }
    let lines = crate::summary::collapse(
        &pulled,
        each(settings),
        |p| match p {
            pull::Pulled::UpToDate { .. } => Some("up-to-date"),
            // An update that widens what its skill can do is never folded into a count.
            pull::Pulled::Updated { .. } if !p.widens() => Some("updated"),
            // A conflict, a skill waiting or one gone upstream is said on its own.
            _ => None,
        },
        |p| {
            let mut lines = Vec::new();
            // A skill's warnings come before its own line, as `skill add` puts them.
            if let pull::Pulled::Updated { warnings, .. } = p {
                lines.extend(split_findings(settings.format, warnings).0);
            }
            lines.extend(render::pulled(settings.format, p));
            // What the update changes in what the skill can do: every change in a dry run,
            // which is for reviewing; a widening one in any run (issue 32 §3).
            if let Some(diff) = p.capabilities()
                && settings.format == Format::Text
                && (dry_run || diff.widens())
            {
                lines.extend(render::capabilities::lines(p.name(), diff, true));
            }
            lines
        },
        crate::summary::pulled,
    );
    let mut lines = lines;
    // An update that widens what its skill can do is said on its own (issue 32 §3): on stderr,
    // or as a warning annotation on the pull request.
    for p in &pulled {
        let Some(diff) = p.capabilities().filter(|c| c.widens()) else {
            continue;
        };
        let (name, merged) = (
            p.name(),
            !dry_run && matches!(p, pull::Pulled::Updated { .. }),
        );
        match settings.format {
            Format::Github => lines.push(render::capabilities::widening_annotation(
                name, diff, merged,
            )),
            _ => warnings.push(render::capabilities::widening_warning(name, diff, merged)),
        }
    }
    let mut report = Report::new(lines, conflicts);
    report.warnings = warnings;
    report
        .warnings
        .extend(pulled.iter().filter_map(render::pull_warning));
    if dry_run {
        report.warnings.push(render::warnings::pull_dry_run());
    }
    report.warnings.extend(super::left_behind(lock.as_ref()));
    super::audit::gated(settings, &mut report, gate);
    Ok(report)
}

/// `skill resolve <name>`.
///
/// # Errors
/// A refusal of the tree or the skill.
pub fn resolve(settings: &Settings, name: &str) -> crate::error::Result<Report> {
    let root = settings.open_root()?;
    let lock = super::lock_for_writing(settings, &root)?;
    let resolved = resolve::resolve(&lock, name)?;
    let mut report = Report::new(
        vec![render::resolved(settings.format, name, &resolved.revision)],
        false,
    );
    // What the resolved copy keeps where the sides disagreed, said once so that nothing
    // upstream deleted stays without a word.
    let dir = asv_skills::skill_dir(name);
    report.notes.extend(resolved.kept_though_deleted_upstream.iter().map(|p| {
        format!("{dir}/{p}: kept, though upstream deleted it; delete it if upstream's delete should stand")
    }));
    report.notes.extend(resolved.gone_though_changed_upstream.iter().map(|p| {
        format!("{dir}/{p}: left deleted, though upstream changed it; skill diff {name} --from upstream shows upstream's version")
    }));
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
    let compared = diff::compare(&lock, name, version(from), version(to), &options)?;
    let (from, to) = (version_name(from), version_name(to));
    let mut lines = render::diff(
        settings.format,
        settings.stdout_color,
        name,
        from,
        to,
        &compared,
    );
    let caps = &compared.capabilities;
    let mut report = Report::new(Vec::new(), false);
    match settings.format {
        // stdout stays the patch `git apply` takes: what the versions can do goes to stderr.
        Format::Text => {
            report.notes = render::capabilities::lines(name, caps, true);
            if let Some(head) = report.notes.first_mut() {
                head.push_str(&format!(" ({from} -> {to})"));
            }
        }
        Format::Github if caps.widens() => lines.push(render::capabilities::annotation(
            name,
            render::capabilities::widening_between(name, from, to, caps),
        )),
        _ => {}
    }
    report.lines = lines;
    Ok(super::with_left_behind(report, Some(&lock)))
}

/// `skill pack <dir> [-o file.zip]`.
///
/// # Errors
/// A refusal of the skill; the ZIP cannot be written.
pub fn pack(
    settings: &Settings,
    dir: &Path,
    output: Option<&Path>,
    sign: Option<&Path>,
) -> crate::error::Result<Report> {
    // The repository must exist even for a skill outside it, as for every skill command.
    settings.open_root()?;
    let located = crate::paths::locate(&settings.root_abs, dir, false)?;
    let packed = asv_skills::package::pack(&located.root, &located.rel, &settings.progress)?;
    let output = output
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(format!("{}.zip", packed.name)));
    // Signed before anything is written: a key that cannot sign leaves no ZIP without its
    // signature behind.
    let signature = match sign {
        Some(key) => {
            let text = read_named_file(key, KEY_LIMIT)?.ok_or_else(|| Usage::NoSigningKey {
                path: key.to_path_buf(),
            })?;
            let armored =
                asv_sign::sign(&text, asv_sign::PACK_NAMESPACE, &packed.zip).map_err(|error| {
                    Usage::SigningKey {
                        path: key.to_path_buf(),
                        error,
                    }
                })?;
            let fingerprint =
                asv_sign::private_key_fingerprint(&text).map_err(|error| Usage::SigningKey {
                    path: key.to_path_buf(),
                    error,
                })?;
            Some((armored, fingerprint))
        }
        None => None,
    };
    write_output(&output, &packed.zip)?;
    let (mut lines, warnings) = split_findings(settings.format, &packed.warnings);
    lines.push(render::packed(
        settings.format,
        &packed,
        &output.display().to_string(),
    ));
    if let Some((armored, fingerprint)) = signature {
        let mut sig_path = output.clone().into_os_string();
        sig_path.push(".sig");
        let sig_path = PathBuf::from(sig_path);
        write_output(&sig_path, armored.as_bytes())?;
        lines.push(render::pack_signed(
            settings.format,
            &sig_path.display().to_string(),
            &fingerprint,
        ));
    }
    let mut report = Report::new(lines, false);
    report.warnings = warnings;
    Ok(report)
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
    /// `--signed-by`: the allowed-signers file the archive's signature must answer to.
    pub signed_by: Option<&'a Path>,
    /// `--signature`: the signature file, when not `<archive>.sig`.
    pub signature: Option<&'a Path>,
    /// `--accept-findings`.
    pub accept_findings: bool,
}

/// `skill install <input> …`.
///
/// # Errors
/// A refusal of the destination, the input or a skill; a failed write (rolled back).
pub fn install(settings: &Settings, args: &InstallArgs<'_>) -> crate::error::Result<Report> {
    let (dest, dirs, shown_root) =
        settings.install_destination(args.into, args.targets, args.scope)?;
    let user = args.scope == InstallScope::User && !args.targets.is_empty();
    if user
        && let Some(dest) = &dest
        && let Some(state_dir) = crate::settings::user_state_path()
    {
        let places = super::install_user::Places {
            dest,
            dirs: &dirs,
            shown_root: &shown_root,
            state_dir: &state_dir,
        };
        return super::install_user::install_user(settings, args, &places);
    }
    let root = settings.open_root()?;
    // Whichever tree is written is locked, and put right first should a killed run have
    // left it part-way: the repository, or an agent's directory elsewhere.
    let dest = dest.as_ref().unwrap_or(&root);
    let lock = super::lock_unless_dry(settings, dest, args.dry_run)?;
    let label = args.input.display().to_string();
    let dirs: Vec<&str> = dirs.iter().map(String::as_str).collect();
    let signing = Signing::read(args)?;
    let required = signing.required();
    // The repository's allow file judges what is installed, wherever it goes.
    let gate = super::audit::gate(&root, args.accept_findings)?;
    let request = asv_skills::install::InstallOptions {
        into: &dirs,
        input: args.input,
        label: &label,
        force: args.force,
        writer: lock.as_ref(),
        signature: required.as_ref(),
        gate: Some(&gate),
    };
    let installed = asv_skills::install::install(dest, &request)?;
    let mut report = installed_report(settings, &installed, &shown_root, &label);
    if user && !installed.dry_run {
        report.warnings.push(render::warnings::install_unrecorded());
    }
    super::audit::gated(settings, &mut report, gate);
    Ok(super::with_left_behind(report, lock.as_ref()))
}

/// What `--signed-by` asks of an install's input: the allowed-signers file read and parsed,
/// and the signature file's path (`<input>.sig` unless `--signature` names one).
pub(super) struct Signing {
    allowed: Option<asv_sign::AllowedSigners>,
    allowed_label: String,
    signature: PathBuf,
    signature_label: String,
}

impl Signing {
    /// Reads the allowed-signers file `args.signed_by` names, if any.
    ///
    /// # Errors
    /// The file missing, unreadable or not of the OpenSSH allowed-signers form.
    pub(super) fn read(args: &InstallArgs<'_>) -> crate::error::Result<Signing> {
        let allowed = match args.signed_by {
            Some(file) => Some(read_allowed_signers(file)?),
            None => None,
        };
        let signature = args.signature.map(Path::to_path_buf).unwrap_or_else(|| {
            let mut p = args.input.as_os_str().to_owned();
            p.push(".sig");
            PathBuf::from(p)
        });
        Ok(Signing {
            allowed,
            allowed_label: args
                .signed_by
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            signature_label: signature.display().to_string(),
            signature,
        })
    }

    /// The requirement the install checks, when `--signed-by` was given.
    pub(super) fn required(&self) -> Option<asv_skills::install::RequiredSignature<'_>> {
        self.allowed
            .as_ref()
            .map(|allowed| asv_skills::install::RequiredSignature {
                allowed,
                allowed_label: &self.allowed_label,
                signature: &self.signature,
                signature_label: &self.signature_label,
            })
    }
}

/// What `skill install` prints of `installed`, its destinations shown from `shown_root`.
pub(super) fn installed_report(
    settings: &Settings,
    installed: &asv_skills::install::Installed,
    shown_root: &str,
    label: &str,
) -> Report {
    let (mut lines, warnings) = split_findings(settings.format, &installed.warnings);
    if let Some(signer) = &installed.signer {
        lines.push(render::signature_accepted(settings.format, label, signer));
    }
    if installed.dry_run {
        lines.extend(render::installed(settings.format, installed, shown_root));
    } else {
        lines.extend(crate::summary::collapse(
            &installed.skills,
            each(settings),
            |_| Some("installed"),
            |skill| vec![render::installed_one(settings.format, skill, shown_root)],
            |_, group| crate::summary::installed(group, shown_root),
        ));
    }
    let mut report = Report::new(lines, false);
    report.warnings = warnings;
    report
}

/// The most bytes a private key file may hold (an RSA-16384 key is under 13 KiB).
const KEY_LIMIT: u64 = 64 * 1024;
/// The most bytes an allowed-signers file may hold.
const ALLOWED_SIGNERS_LIMIT: u64 = 1024 * 1024;

/// A file the user named on the command line, as its directory (`.` for a bare name) and its
/// name in it: what the guarded tree opens and reads or writes through.
fn named_file(path: &Path) -> crate::error::Result<(PathBuf, &str)> {
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
    Ok((parent, name))
}

/// Reads a file the user named on the command line (never through a link), up to `limit`
/// bytes; `None` when nothing is there.
fn read_named_file(path: &Path, limit: u64) -> crate::error::Result<Option<Vec<u8>>> {
    let (parent, name) = named_file(path)?;
    let Ok(dir) = asv_fs::Root::open(&parent) else {
        return Ok(None);
    };
    Ok(dir.read_file_capped(name, limit, "this option reads")?)
}

/// Reads and parses the allowed-signers file `--signed-by` names.
fn read_allowed_signers(file: &Path) -> crate::error::Result<asv_sign::AllowedSigners> {
    let bytes =
        read_named_file(file, ALLOWED_SIGNERS_LIMIT)?.ok_or_else(|| Usage::NoAllowedSigners {
            path: file.to_path_buf(),
        })?;
    let text = String::from_utf8_lossy(&bytes);
    Ok(
        asv_sign::AllowedSigners::parse(&text).map_err(|error| Usage::AllowedSigners {
            path: file.to_path_buf(),
            error,
        })?,
    )
}

/// Writes a file the user named on the command line (atomically, never through a link).
fn write_output(path: &Path, bytes: &[u8]) -> crate::error::Result<()> {
    let (parent, name) = named_file(path)?;
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
pub fn outdated(
    settings: &Settings,
    names: &[String],
    capabilities: bool,
) -> crate::error::Result<Report> {
    let root = settings.open_root()?;
    let options = settings.transport_options()?;
    let moved = asv_skills::manage::outdated_with(&root, names, &options, capabilities)?;
    let mut lines = Vec::with_capacity(moved.len());
    for o in &moved {
        lines.push(render::outdated(settings.format, o, capabilities));
        if capabilities {
            lines.extend(render::capabilities::outdated(settings.format, o));
        }
    }
    // A skill gone upstream is news, not work: it is kept as it is.
    Ok(Report::new(
        lines,
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
    // A user directory under HOME is what a user sync records, in the user lock; any user
    // directory is what a user install records, in the install record.
    let user = scope == InstallScope::User;
    let user_lock = if user && shown == "~/" {
        crate::settings::user_lock()?
    } else {
        None
    };
    let installed = if user {
        crate::settings::user_installed()?
    } else {
        Default::default()
    };
    let (root, recorded) = match &elsewhere {
        Some(root) => (
            root,
            user_lock.as_ref().and_then(|l| l.projections.get(dir)),
        ),
        None => {
            let root = settings.open_root()?;
            let lock = asv_skills::lock::SkillLock::load(&root)?;
            let skills = asv_skills::sync::list_agent(&root, dir, lock.projections.get(dir), None)?;
            return Ok(agent_report(settings, &shown, dir, &skills));
        }
    };
    let key = super::install_user::record_key(&shown, dir);
    let skills = asv_skills::sync::list_agent(root, dir, recorded, installed.installed.get(&key))?;
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
