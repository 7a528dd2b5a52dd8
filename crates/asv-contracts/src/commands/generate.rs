//! `gen`: write every vendored copy and the lock so the tree agrees with the canonical texts.

use std::collections::BTreeSet;

use asv_fs::EntryKind;

use crate::error::Result;
use crate::lock::LOCK_FILE;
use crate::report::{Event, Violation};
use crate::repository::{LockFile, Repository, Skill};
use crate::snapshot::Snapshot;

/// What one `gen` run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GenOutcome {
    /// A declared contract has no canonical text: nothing was written.
    Closure(Vec<Violation>),
    /// The tree was brought up to date; the events say what was recorded.
    Done {
        /// Success lines, in the order they are printed.
        events: Vec<Event>,
        /// How many files were written or removed (0 when nothing changed).
        writes: usize,
        /// Copies that were edited by hand and were put back from their canonical text.
        restored: Vec<String>,
        /// Entries of vendor directories this tool did not write (a file without the generated
        /// header, a directory) that the run removed; a directory ends in `/`.
        foreign_removed: Vec<String>,
        /// Files at a copy's path this tool did not write (no generated header) that the run
        /// replaced with the copy.
        foreign_replaced: Vec<String>,
    },
}

/// The names under a skill's vendor directory that answer to no declaration, sorted in UTF-16
/// order. Only the entries directly inside the directory count, of any kind.
///
/// # Errors
/// A link in or at the vendor directory; a vendor path that is not a directory.
pub fn extra_entries(repo: &Repository<'_>, skill: &Skill) -> Result<Vec<String>> {
    let dir = skill.vendor_dir();
    let Some(entries) = repo.root.read_dir(&dir)? else {
        return Ok(Vec::new());
    };
    let expected: BTreeSet<String> = skill
        .declared
        .iter()
        .filter(|id| repo.manifest.raw(id).is_none())
        .map(|id| format!("{id}.md"))
        .collect();
    let mut extra = Vec::new();
    for entry in entries {
        if entry.kind == EntryKind::Symlink {
            return Err(asv_fs::Error::Symlink {
                path: format!("{dir}/{}", entry.name),
            }
            .into());
        }
        if !expected.contains(&entry.name) {
            extra.push(entry.name);
        }
    }
    extra.sort_by(|a, b| crate::digest::cmp_utf16(a, b));
    Ok(extra)
}

/// Brings every vendored copy and the lock up to date with the canonical texts, under `lock`,
/// the tree's writer lock.
///
/// Every change of the run is one plan of `asv-fs`'s tree-change layer: a failure before its
/// last swap leaves every destination as it was, and the lock is swapped after every copy, so
/// even a process killed mid-swap leaves the old lock beside new copies — a state `verify`
/// reports (`stale-lock`, `drift`), never one that looks finished. A run with nothing to change
/// writes nothing.
///
/// # Errors
/// A refusal while reading; a failed write: [`crate::Error::RolledBack`] once every change was
/// undone, [`crate::Error::Interrupted`] when undoing them failed too.
///
/// # Example
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let root = asv_fs::Root::open(dir.path())?;
/// root.write_file("contracts/c.md", b"Shared text\n")?;
/// root.write_file("skills/a/SKILL.md", b"---\nmetadata:\n  contracts: [c]\n---\n")?;
/// let repo = asv_contracts::Repository::load(&root)?;
/// let lock = root.lock_for_writing(std::time::Duration::from_secs(2))?;
/// asv_contracts::generate(&repo, &lock)?;
/// let repo = asv_contracts::Repository::load(&root)?;
/// assert!(asv_contracts::verify(&repo)?.is_empty());
/// # Ok(())
/// # }
/// ```
pub fn generate(repo: &Repository<'_>, lock: &asv_fs::WriterLock<'_>) -> Result<GenOutcome> {
    run(repo, Mode::Write(lock)).map(|(outcome, _)| outcome)
}

/// What [`generate`] would change, decided exactly as it decides (every refusal included),
/// with nothing written: one planned change per copy, table, raw dest, lock or removal, in
/// path order. A `Closure` outcome stops it as it stops `gen`.
///
/// # Errors
/// As [`generate`], less the failed writes.
pub fn plan_generate(
    repo: &Repository<'_>,
) -> Result<std::result::Result<Vec<asv_fs::PlannedChange>, Vec<Violation>>> {
    Ok(match run(repo, Mode::Plan)? {
        (GenOutcome::Closure(found), _) => Err(found),
        (GenOutcome::Done { .. }, planned) => Ok(planned),
    })
}

/// Whether a run writes its plan or only shows it.
#[derive(Debug, Clone, Copy)]
enum Mode<'l> {
    /// Writes, under the tree's writer lock.
    Write(&'l asv_fs::WriterLock<'l>),
    Plan,
}

/// `gen`'s decisions, then its writes (in [`Mode::Write`]) or its plan (in [`Mode::Plan`]).
fn run(repo: &Repository<'_>, mode: Mode<'_>) -> Result<(GenOutcome, Vec<asv_fs::PlannedChange>)> {
    // Asked before anything else: what follows reads a cache filled from the repository the
    // lock names and rewrites the lock with the table's repository, so carrying on would
    // distribute bytes the table attributes elsewhere and leave no trace of the disagreement.
    if let LockFile::Present { lock, .. } = &repo.lock_file
        && let Some(first) = lock.divergent_sources(&repo.manifest).into_iter().next()
    {
        return Err(crate::error::Error::PinnedElsewhere {
            name: first.name,
            pinned: first.pinned.as_str().to_owned(),
            registered: first.registered.as_str().to_owned(),
        });
    }
    // The table is revised first; everything after reads the revised table. Its text is
    // written with the rest, so a run that stops before writing leaves it as it was.
    let revised_table = crate::table_edit::revise(repo)?;
    let revised;
    let repo = match &revised_table {
        Some(r) => {
            revised = Repository {
                root: repo.root,
                skills: repo.skills.clone(),
                manifest: r.manifest.clone(),
                lock_file: repo.lock_file.clone(),
            };
            &revised
        }
        None => repo,
    };
    let snap = Snapshot::take(repo)?;
    let closure = snap.closure(repo);
    if !closure.is_empty() {
        return Ok((GenOutcome::Closure(closure), Vec::new()));
    }
    check_remote_texts(repo, &snap)?;
    let derived = snap.derived_resolutions();
    let old = &snap.lock.resolutions;

    let mut events = Vec::new();
    for (id, new) in &derived {
        let previous = old.get(id);
        if previous.map(|p| p.digest) != Some(new.digest) {
            events.push(Event::Adopted {
                id: id.clone(),
                old: previous.map(|p| p.digest),
                new: new.digest,
            });
        }
        let old_conformance = previous.and_then(|p| p.conformance);
        match (old_conformance, new.conformance) {
            (before, Some(now)) if before != Some(now) => {
                events.push(Event::AdoptedConformance {
                    id: id.clone(),
                    old: before,
                    new: now,
                });
            }
            (Some(before), None) => events.push(Event::RetiredConformance {
                id: id.clone(),
                old: before,
            }),
            _ => {}
        }
    }
    for id in old.keys() {
        if !derived.contains_key(id) {
            events.push(Event::Retired { id: id.clone() });
        }
    }
    for id in derived.keys() {
        if !snap.declared.contains(id) {
            events.push(Event::Unused { id: id.clone() });
        }
    }

    let raw = crate::placement::plan(repo, &snap)?;
    let mut report = Vec::new();
    if raw.touches_dests && !crate::placement::workdir_ignored(repo.root)? {
        report.push(Event::WorkdirNotIgnored);
    }
    if let Some(r) = &revised_table {
        report.extend(r.events.iter().cloned());
    }
    report.extend(raw.events.iter().cloned());
    report.extend(events);
    let (writes, planned, found) = write_tree(
        repo,
        &snap,
        derived,
        &raw,
        revised_table.as_ref().map(|r| r.text.as_str()),
        mode,
    )?;
    Ok((
        GenOutcome::Done {
            events: report,
            writes,
            restored: found.restored,
            foreign_removed: found.foreign_removed,
            foreign_replaced: found.foreign_replaced,
        },
        planned,
    ))
}

/// Refuses a run whose declared remote contracts have no text in the cache. `gen` never
/// resolves a ref itself (that would take up whatever the source holds today with nothing in
/// any diff saying so): where the lock pins no commit for a source it asks for an update,
/// otherwise for a fetch, which reproduces the pinned commit.
fn check_remote_texts(repo: &Repository<'_>, snap: &Snapshot) -> Result<()> {
    let mut unknown = snap.remote_unknown();
    let raw_unknown = snap.raw_unknown(&repo.manifest);
    unknown.extend(raw_unknown.iter().cloned());
    if unknown.is_empty() {
        return Ok(());
    }
    let pins = repo.lock_file.sources();
    let named = |list: Vec<(asv_model::id::ContractId, asv_model::source::SourceName)>| {
        list.into_iter()
            .map(|(id, source)| (id, source.as_str().to_owned()))
            .collect::<Vec<_>>()
    };
    let unpinned: Vec<_> = unknown
        .iter()
        .filter(|(_, source)| !pins.is_some_and(|p| p.contains_key(source.as_str())))
        .cloned()
        .collect();
    if !unpinned.is_empty() {
        return Err(crate::error::Error::Unpinned {
            contracts: named(unpinned),
        });
    }
    if raw_unknown.len() == unknown.len() {
        return Err(crate::error::Error::NotCachedFiles {
            contracts: named(raw_unknown),
        });
    }
    Err(crate::error::Error::NotCached {
        contracts: named(unknown),
    })
}

/// One copy to write: its path, its contract and the canonical side to put under the header.
type CopyWrite<'s> = (
    String,
    &'s asv_model::id::ContractId,
    &'s crate::repository::Canonical,
);

/// What `gen` will change, worked out (and every refusal met) before the first write.
struct Plan<'s> {
    /// Copies whose bytes differ from what stands there.
    copies: Vec<CopyWrite<'s>>,
    /// The lock's new text, when it differs from the file.
    lock: Option<String>,
    /// Entries of vendor directories that answer to no declaration.
    removals: Vec<String>,
    /// What the user loses to the run, for the warnings.
    found: HandWritten,
}

/// What a `gen` run puts over or removes that was not this tool's to begin with.
#[derive(Debug, Default)]
struct HandWritten {
    /// Copies among `copies` whose header is right but whose body was edited by hand.
    restored: Vec<String>,
    /// Removals of entries this tool did not write (a directory ends in `/`).
    foreign_removed: Vec<String>,
    /// Copies among `copies` replacing a file this tool did not write.
    foreign_replaced: Vec<String>,
}

fn plan<'s>(
    repo: &Repository<'_>,
    snap: &'s Snapshot,
    derived: std::collections::BTreeMap<asv_model::id::ContractId, crate::lock::Resolution>,
    placements: crate::lock::Placements,
) -> Result<Plan<'s>> {
    use rayon::prelude::*;

    type SkillPlan<'s> = (Vec<CopyWrite<'s>>, Vec<String>, HandWritten);
    let per_skill: Vec<Result<SkillPlan<'s>>> = repo
        .skills
        .par_iter()
        .map(|skill| {
            let mut copies = Vec::new();
            let mut found = HandWritten::default();
            // A skill whose vendor directory is missing has no copy to judge: one look at the
            // directory rather than a read attempt per copy. Anything else (a link or a file on
            // the way) is left to the reads below, which refuse it as they always did.
            let no_vendor_dir = matches!(repo.root.kind(&skill.vendor_dir()), Ok(None));
            for id in &skill.declared {
                let Some((id, canonical)) = snap.canonical.get_key_value(id) else {
                    continue;
                };
                let Some(body) = &canonical.body else {
                    continue;
                };
                let copy = (skill.copy_path(id), id, canonical);
                // Judged as it is read: a copy is never held whole beside its body.
                let judged = if no_vendor_dir {
                    None
                } else {
                    crate::document::judge_file(repo.root, &copy.0, id, &body.digest())?
                };
                match judged {
                    Some((crate::document::CopyState::Intact, _)) => {}
                    // The header names the current text, so only a hand edit changed the rest.
                    Some((crate::document::CopyState::Body(_), _)) => {
                        found.restored.push(copy.0.clone());
                        copies.push(copy);
                    }
                    Some((crate::document::CopyState::Header, generated)) => {
                        if !generated {
                            found.foreign_replaced.push(copy.0.clone());
                        }
                        copies.push(copy);
                    }
                    None => copies.push(copy),
                }
            }
            let mut removals = Vec::new();
            for name in extra_entries(repo, skill)? {
                let path = format!("{}/{name}", skill.vendor_dir());
                // A file is read only to tell a copy of a withdrawn contract (removed without a
                // word, as it always was) from a file put there by hand.
                match repo.root.kind(&path)? {
                    Some(EntryKind::File) => {
                        if !crate::document::opens_as_generated(repo.root, &path)? {
                            found.foreign_removed.push(path.clone());
                        }
                    }
                    Some(EntryKind::Directory) => found.foreign_removed.push(format!("{path}/")),
                    _ => found.foreign_removed.push(path.clone()),
                }
                removals.push(path);
            }
            Ok((copies, removals, found))
        })
        .collect();
    let mut copies = Vec::new();
    let mut removals = Vec::new();
    let mut found = HandWritten::default();
    for skill in per_skill {
        let (c, r, f) = skill?;
        copies.extend(c);
        removals.extend(r);
        found.restored.extend(f.restored);
        found.foreign_removed.extend(f.foreign_removed);
        found.foreign_replaced.extend(f.foreign_replaced);
    }
    // Rendered straight from the skills' declarations, with no copy of every skill's ids.
    let mut rendered = String::new();
    crate::lock::LockView {
        dependencies: &repo.dependencies_list(),
        resolutions: &derived,
        sources: &snap.lock.registered_sources(&repo.manifest),
        placements: &placements,
    }
    .write(&mut rendered);
    let unchanged =
        matches!(&repo.lock_file, LockFile::Present { bytes, .. } if bytes == rendered.as_bytes());
    Ok(Plan {
        copies,
        lock: (!unchanged).then_some(rendered),
        removals,
        found,
    })
}

/// The writing half of [`generate`]: every copy, the table, the raw dests, the lock and the
/// removals as one plan of `asv-fs`'s tree-change layer. Each new file or dest is staged beside
/// its place (a copy in a vendor directory the run makes is written there directly), every
/// previous entry parked, all swapped in (the lock, which sorts after `skills/`, after every
/// copy), and a failure before the last swap puts every destination
/// back as it was. Every refusal was met while planning, so what fails here is the
/// environment, mid-run.
fn write_tree(
    repo: &Repository<'_>,
    snap: &Snapshot,
    derived: std::collections::BTreeMap<asv_model::id::ContractId, crate::lock::Resolution>,
    raw: &crate::placement::RawPlan,
    table: Option<&str>,
    mode: Mode<'_>,
) -> Result<(usize, Vec<asv_fs::PlannedChange>, HandWritten)> {
    use asv_fs::{Change, Ownership};
    use std::sync::Arc;
    let plan = plan(repo, snap, derived, raw.placements.clone())?;
    // One header serves every skill that declares the contract (it names only the id and
    // the digest), and every copy shares the one body the snapshot holds.
    let mut headers: std::collections::HashMap<&asv_model::id::ContractId, asv_fs::SharedBytes> =
        std::collections::HashMap::new();
    let mut changes = Vec::with_capacity(plan.copies.len() + plan.removals.len() + 2);
    let removals = plan.removals;
    let found = plan.found;
    // Ownership was judged while planning (a copy is the tool's by its path and header, an
    // extra entry of a vendor directory answers to no declaration), so the changes are forced.
    // Texts too large to keep are read again, one at a time across the staging threads, so
    // at most one of them is held at once.
    let one_reread = Arc::new(std::sync::Mutex::new(()));
    for (path, id, canonical) in plan.copies {
        let Some(text) = &canonical.body else {
            continue;
        };
        let header = headers
            .entry(id)
            .or_insert_with(|| Arc::new(crate::document::header(id, &text.digest())))
            .clone();
        match text.held() {
            Some(body) => changes.push(Change::replace_file_parts(
                path,
                vec![header, body.shared()],
                Ownership::Force,
            )),
            None => {
                let (source, digest, gate) = (
                    canonical.path.clone(),
                    text.digest(),
                    Arc::clone(&one_reread),
                );
                changes.push(Change::replace_file_written(
                    path,
                    move |root, sink| {
                        let _one = gate
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner);
                        let body = crate::document::reread(root, &source, &digest)?;
                        sink.write((*header).as_ref());
                        sink.write(body.as_str().as_bytes());
                        Ok(())
                    },
                    Ownership::Force,
                ));
            }
        }
    }
    if let Some(text) = table {
        changes.push(Change::replace_file(
            crate::manifest::MANIFEST_FILE,
            text.as_bytes(),
            Ownership::Force,
        ));
    }
    changes.extend(crate::placement::changes(raw));
    if let Some(text) = &plan.lock {
        changes.push(Change::replace_file(
            LOCK_FILE,
            text.as_bytes(),
            Ownership::Force,
        ));
    }
    for path in removals {
        changes.push(Change::remove(path, Ownership::Force));
    }
    let writes = changes.len();
    if writes == 0 {
        return Ok((0, Vec::new(), found));
    }
    let Mode::Write(lock) = mode else {
        let plan = asv_fs::Plan::new(repo.root, changes)?;
        return Ok((writes, plan.changes().cloned().collect(), found));
    };
    // Planning writes nothing, so its refusal is the tree's, as it is; only a failure of the
    // apply says how far the tree change got.
    lock.apply(asv_fs::Plan::new(repo.root, changes)?)
        .map_err(crate::error::Error::from_gen_apply)?;
    Ok((writes, Vec::new(), found))
}
