//! `skill install --target … --scope user`: the skills placed in the agents' user
//! directories, and what was placed recorded in the user state directory
//! ([`asv_skills::installed`]), so `skill list --scope user` and `skill sync --scope user`
//! know them for this tool's.

use asv_fs::Plan;
use asv_skills::installed::{Install, InstalledRecord};

use super::Report;
use super::skill::{InstallArgs, Signing, installed_report};
use crate::settings::Settings;

/// The record's key for the directory `dir` of a user install shown from `shown_root`:
/// relative to the home directory when the destination is shown from `~/` (as a user sync
/// keys its copies), else the full path (an agent's variable moved it out of `HOME`).
pub(super) fn record_key(shown_root: &str, dir: &str) -> String {
    if shown_root == "~/" {
        dir.to_owned()
    } else {
        format!("{shown_root}{dir}")
    }
}

/// Where a user install writes.
#[derive(Clone, Copy)]
pub(super) struct Places<'a> {
    /// The tree the agents' directories are in (`HOME`, or the directory they share).
    pub dest: &'a asv_fs::Root,
    /// The agents' directories, relative to `dest`.
    pub dirs: &'a [String],
    /// How `dest` is shown: `~/`, or its full path and a `/`.
    pub shown_root: &'a str,
    /// The user state directory, where the record is kept (made if missing).
    pub state_dir: &'a std::path::Path,
}

/// Installs into `dirs` of `dest` (the agents' user directories) and records it.
///
/// Two trees take part, the agents' and the state directory, and one transaction cannot span
/// both: every check is made and both changes are planned before either is applied; then the
/// record is written, then the skills placed. Killed between the two, the record names
/// copies not yet placed (or not yet replaced): `skill list` shows them as edited since, a
/// user sync leaves them alone, and the same install run again places them (its first change
/// found complete does not stop it). Should placing them fail, the record is put back as it
/// was.
///
/// # Errors
/// As [`asv_skills::install::install`]; a state directory that cannot be made or opened; an install record that cannot be read (named by its full path).
pub(super) fn install_user(
    settings: &Settings,
    args: &InstallArgs<'_>,
    places: &Places<'_>,
) -> crate::error::Result<Report> {
    let Places {
        dest,
        dirs,
        shown_root,
        state_dir,
    } = *places;
    let shown = crate::settings::installed_shown(state_dir);
    let existing = crate::settings::open_user_state(state_dir)?;
    // Read before any lock is taken, so a record that cannot be read refuses the run before
    // anything (a lock file included) is written.
    if let Some(state) = &existing {
        InstalledRecord::load(state, &shown)?;
    }
    // The state directory first, the agents' tree second: the order a user sync takes them.
    let state_lock = match &existing {
        Some(state) if !args.dry_run => Some(super::lock_for_writing_as(settings, state, false)?),
        _ => None,
    };
    let dest_lock = super::lock_unless_dry(settings, dest, args.dry_run)?;
    let loaded = match &existing {
        Some(state) => InstalledRecord::load(state, &shown)?,
        None => InstalledRecord::default(),
    };
    let label = args.input.display().to_string();
    let into: Vec<&str> = dirs.iter().map(String::as_str).collect();
    let signing = Signing::read(args)?;
    let required = signing.required();
    // The user state directory's own allow file judges what a user install places, as it
    // does a user sync; with no state directory yet, nothing is allowed.
    let gate = match &existing {
        Some(state) => super::audit::gate(state, args.accept_findings)?,
        None => asv_skills::gate::Gate::new(Default::default(), args.accept_findings),
    };
    let request = asv_skills::install::InstallOptions {
        into: &into,
        input: args.input,
        label: &label,
        force: args.force,
        writer: dest_lock.as_ref(),
        signature: required.as_ref(),
        gate: Some(&gate),
    };
    let (installed, plan) = asv_skills::install::prepare(dest, &request)?;
    let Some(dest_lock) = dest_lock else {
        let mut report = installed_report(settings, &installed, shown_root, &label);
        super::audit::gated(settings, &mut report, gate);
        return Ok(report);
    };
    let from = crate::paths::absolute(args.input)
        .unwrap_or_else(|_| args.input.to_path_buf())
        .display()
        .to_string();
    let mut record = loaded.clone();
    // A record of a copy since deleted by hand is forgotten whenever its directory is
    // installed into again.
    for dir in dirs {
        let key = record_key(shown_root, dir);
        let names: Vec<String> = record
            .installed
            .get(&key)
            .map(|skills| skills.keys().cloned().collect())
            .unwrap_or_default();
        for name in names {
            if dest.kind(&asv_fs::join(dir, &name))?.is_none() {
                record.remove(&key, &name);
            }
        }
    }
    for (name, path, hash) in &installed.skills {
        let dir = path
            .strip_suffix(name.as_str())
            .map_or(path.as_str(), |d| d.trim_end_matches('/'));
        record.insert(
            &record_key(shown_root, dir),
            name,
            Install {
                from: from.clone(),
                from_digest: installed.from_digest.clone(),
                tree_hash: hash.clone(),
            },
        );
    }
    // Every check has passed: only now is the state directory made, if it has to be.
    let made;
    let (state, state_lock) = match (&existing, state_lock) {
        (Some(state), Some(lock)) => (state, lock),
        _ => {
            make_dir(state_dir)?;
            made = crate::paths::open_dir(state_dir, crate::error::DirRole::Parent)?;
            (&made, super::lock_for_writing_as(settings, &made, false)?)
        }
    };
    let recorded = record != loaded;
    if recorded {
        state_lock.apply(Plan::new(state, vec![record.change(&loaded)])?)?;
    }
    if let Err(e) = dest_lock.apply(plan) {
        // Nothing was placed (the plan rolled back): the record goes back to what it was.
        if recorded && let Ok(undo) = Plan::new(state, vec![loaded.change(&record)]) {
            let _ = state_lock.apply(undo);
        }
        return Err(e.into());
    }
    let mut report = installed_report(settings, &installed, shown_root, &label);
    super::audit::gated(settings, &mut report, gate);
    let report = super::with_left_behind(report, Some(&state_lock));
    Ok(super::with_left_behind(report, Some(&dest_lock)))
}

/// Makes `dir` (the user state directory) and its missing ancestors through the guarded tree
/// of the nearest ancestor that exists, so a link among the parts it makes is refused.
///
/// # Errors
/// [`crate::error::Usage::StateDirUnmade`] when it cannot be made.
fn make_dir(dir: &std::path::Path) -> crate::error::Result<()> {
    let unmade = |error: std::io::Error| crate::error::Usage::StateDirUnmade {
        dir: dir.to_path_buf(),
        error,
    };
    let mut base = dir.to_path_buf();
    while !base.is_dir() {
        if !base.pop() {
            return Err(unmade(std::io::Error::other("no parent of it exists")).into());
        }
    }
    let rel = crate::paths::below(&base, dir)
        .ok_or_else(|| unmade(std::io::Error::other("its path is not UTF-8")))?;
    let root = crate::paths::open_dir(&base, crate::error::DirRole::Parent)?;
    root.create_dir_all(&rel)
        .map_err(|e| unmade(std::io::Error::other(e.to_string())))?;
    Ok(())
}
