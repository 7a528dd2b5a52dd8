//! `add`, `update` and `fetch`: the three commands that reach a network.
//!
//! Each acquires first and publishes last: sources are resolved and every file is fetched and
//! checked into the cache before the table of origins and the lock are touched, so a refused
//! or failed run leaves the manifest, the lock and the cache as they were.

use std::collections::BTreeMap;

use asv_contracts::lock::{LOCK_FILE, Lock, SourcePin};
use asv_contracts::manifest::{MANIFEST_FILE, Origin, standard_path};
use asv_contracts::{Event, Repository};
use asv_fs::Root;
use asv_model::id::ContractId;
use asv_model::source::{RepositorySpec, Revision, SourceName};
use asv_remote::take::{Held, Listing, read_all};
use asv_remote::{Commit, Options, Transport, transport};

use crate::error::{Error, Result};

/// Files taken from a source: repository path and bytes.
type Files = Vec<(String, Vec<u8>)>;

/// The lock's pin for `commit` of `spec`.
///
/// # Errors
/// A commit id the source answered that is not one.
pub fn to_pin(spec: &RepositorySpec, commit: &Commit) -> Result<SourcePin> {
    let revision =
        Revision::parse(&commit.revision, commit.format).ok_or_else(|| Error::NotACommit {
            repository: spec.as_str().to_owned(),
            answered: commit.revision.clone(),
        })?;
    Ok(SourcePin {
        repository: spec.clone(),
        revision,
    })
}

fn to_commit(pin: &SourcePin) -> Commit {
    Commit {
        revision: pin.revision.as_str().to_owned(),
        format: pin.revision.format(),
    }
}

/// The document contracts the table maps to `source`, with their paths in it.
fn mapped_texts(repo: &Repository<'_>, source: &str) -> Vec<(ContractId, String)> {
    repo.manifest
        .contracts
        .iter()
        .filter(|(_, o)| matches!(o, Origin::Remote { source: s, .. } if s.as_str() == source))
        .map(|(id, _)| (id.clone(), repo.manifest.canonical_path(id)))
        .collect()
}

/// The raw-byte srcs the table maps to `source`: (src without `/`, is a directory).
fn raw_srcs(repo: &Repository<'_>, source: &str) -> Vec<(String, bool)> {
    repo.manifest
        .contracts
        .values()
        .filter_map(|o| match o {
            Origin::Raw(row) if row.source.as_ref().is_some_and(|s| s.as_str() == source) => {
                Some(row.mappings.iter().map(|m| (m.src.clone(), m.dir)))
            }
            _ => None,
        })
        .flatten()
        .collect()
}

/// Takes the texts (and conformance tests) of `wanted` (id → path in the source) out of
/// `commit`; returns the files to cache and the ids the source does not hold.
#[allow(clippy::too_many_arguments)]
fn take_up(
    transport: &mut dyn Transport,
    source: &str,
    commit: &Commit,
    listing: &Listing,
    wanted: &[(ContractId, String)],
    raw: &[(String, bool)],
    options: &Options,
) -> Result<(Files, Vec<ContractId>)> {
    let mut entries = Vec::new();
    for (src, dir) in raw {
        entries.extend(listing.raw_src(source, src, *dir)?);
    }
    let mut missing = Vec::new();
    let mut texts = std::collections::HashSet::new();
    for (id, path) in wanted {
        match listing.text(source, path)? {
            Held::No => missing.push(id.clone()),
            Held::Yes(entry) => {
                texts.insert(entry.path.clone());
                entries.push(entry);
                entries.extend(listing.conformance(source, path, id.as_str())?);
            }
        }
    }
    let step = options.progress.step(
        &format!(
            "{source}: reading {} files at {}",
            entries.len(),
            asv_model::source::short(&commit.revision)
        ),
        Some(entries.len() as u64),
    );
    let files = read_all(transport, commit, &entries, &step)?;
    drop(step);
    // A text gen and verify would refuse is refused before it reaches the cache, named where
    // the cache would hold it.
    for (path, bytes) in &files {
        if texts.contains(path) {
            let site = asv_contracts::cache::site(source, &commit.revision, path);
            asv_contracts::CanonicalBody::from_bytes(&site, bytes)?;
        }
    }
    Ok((files, missing))
}

/// Declared ids that are neither in the table nor local texts: the ones a source may hold.
fn unmapped_declared(repo: &Repository<'_>) -> Result<Vec<ContractId>> {
    let mut ids: Vec<ContractId> = repo
        .skills
        .iter()
        .flat_map(|s| s.declared.iter().cloned())
        .collect();
    ids.sort();
    ids.dedup();
    let mut out = Vec::new();
    for id in ids {
        if repo.manifest.contracts.contains_key(&id) {
            continue;
        }
        if repo.root.kind(&standard_path(&id))?.is_some() {
            continue;
        }
        out.push(id);
    }
    Ok(out)
}

fn write_lock(root: &Root, lock: &Lock) -> Result<()> {
    root.write_file(LOCK_FILE, lock.render().as_bytes())?;
    Ok(())
}

fn manifest_text(root: &Root) -> Result<String> {
    Ok(
        match root.read_file_capped(
            MANIFEST_FILE,
            asv_model::layout::SETTINGS_LIMIT,
            asv_model::layout::SETTINGS_LIMIT_WHAT,
        )? {
            None => String::new(),
            Some(bytes) => String::from_utf8(bytes)
                .map_err(|_| Error::Contracts(asv_contracts::Error::not_utf8(MANIFEST_FILE)))?,
        },
    )
}

fn warn_if_not_ignored(root: &Root, events: &mut Vec<Event>) -> Result<()> {
    if !asv_contracts::placement::workdir_ignored(root)? {
        events.insert(0, Event::WorkdirNotIgnored);
    }
    Ok(())
}

/// `add <repository> [name]`: register a source, resolve its default branch, and take up
/// every declared contract it holds at `contracts/<id>.md`.
///
/// # Errors
/// A repository or name that is not usable, a name already registered, a refusal of the
/// transport; nothing is changed then.
pub fn add(
    root: &Root,
    repository: &str,
    name: Option<&str>,
    options: &Options,
) -> Result<Vec<Event>> {
    let repo = Repository::load(root)?;
    let spec =
        RepositorySpec::parse(repository).map_err(|problem| Error::Repository { problem })?;
    let name = match name {
        Some(n) => SourceName::parse(n).map_err(|p| Error::SourceName {
            name: n.to_owned(),
            problem: p,
        })?,
        None => spec.default_source_name().ok_or(Error::NoSourceName)?,
    };
    if repo.manifest.sources.contains_key(name.as_str()) {
        return Err(Error::AlreadyRegistered {
            name: name.as_str().to_owned(),
        });
    }
    let mut t = transport(&spec, options)?;
    let _step = options.progress.step(
        &format!("{}: resolving the default branch", name.as_str()),
        None,
    );
    let branch = t.default_branch()?;
    let commit = t.resolve(&branch)?;
    let pin = to_pin(&spec, &commit)?;
    let listing = Listing::new(t.list(&commit)?);
    let wanted: Vec<(ContractId, String)> = unmapped_declared(&repo)?
        .into_iter()
        .map(|id| {
            let path = standard_path(&id);
            (id, path)
        })
        .collect();
    let (files, missing) = take_up(
        t.as_mut(),
        name.as_str(),
        &commit,
        &listing,
        &wanted,
        &raw_srcs(&repo, name.as_str()),
        options,
    )?;
    crate::cache::place(root, name.as_str(), pin.revision.as_str(), &files)?;

    // Publish: the table, then the lock.
    let taken: Vec<ContractId> = wanted
        .iter()
        .map(|(id, _)| id.clone())
        .filter(|id| !missing.contains(id))
        .collect();
    let text = asv_contracts::table_edit::with_source(
        &manifest_text(root)?,
        name.as_str(),
        spec.as_str(),
        &branch,
        &taken,
    )?;
    root.write_file(MANIFEST_FILE, text.as_bytes())?;
    let mut lock = repo.lock_file.lock();
    lock.sources.insert(name.as_str().to_owned(), pin.clone());
    write_lock(root, &lock)?;

    let mut events = vec![Event::Resolved {
        source: name.as_str().to_owned(),
        old: None,
        new: pin.revision.as_str().to_owned(),
    }];
    events.extend(taken.into_iter().map(|id| Event::Mapped {
        id,
        source: name.as_str().to_owned(),
    }));
    events.extend(missing.into_iter().map(|id| Event::Unlocated { id }));
    warn_if_not_ignored(root, &mut events)?;
    Ok(events)
}

/// `update`: move every source's pin to what its ref names now, map declared contracts held by
/// exactly one source, and fetch what the new pins hold.
///
/// # Errors
/// A refusal of a transport; a contract two sources hold with no row saying which.
pub fn update(root: &Root, options: &Options) -> Result<Vec<Event>> {
    let repo = Repository::load(root)?;
    let mut lock = repo.lock_file.lock();
    let unmapped = unmapped_declared(&repo)?;
    let mut holders: BTreeMap<ContractId, Vec<String>> = BTreeMap::new();
    let mut resolved = Vec::new();
    let mut staged: Vec<(String, SourcePin, Files)> = Vec::new();
    for (name, entry) in &repo.manifest.sources {
        let mut t = transport(&entry.repository, options)?;
        let _step = options.progress.step(
            &format!("{}: resolving {}", name.as_str(), entry.reference.as_str()),
            None,
        );
        let commit = t.resolve(entry.reference.as_str())?;
        let pin = to_pin(&entry.repository, &commit)?;
        let listing = Listing::new(t.list(&commit)?);
        for id in &unmapped {
            if matches!(
                listing.text(name.as_str(), &standard_path(id))?,
                Held::Yes(_)
            ) {
                holders
                    .entry(id.clone())
                    .or_default()
                    .push(name.as_str().to_owned());
            }
        }
        // Everything the table maps to this source, plus what only it may hold.
        let mut wanted = mapped_texts(&repo, name.as_str());
        wanted.extend(unmapped.iter().map(|id| (id.clone(), standard_path(id))));
        let (files, _) = take_up(
            t.as_mut(),
            name.as_str(),
            &commit,
            &listing,
            &wanted,
            &raw_srcs(&repo, name.as_str()),
            options,
        )?;
        let old = lock
            .sources
            .get(name.as_str())
            .map(|p| p.revision.as_str().to_owned());
        if old.as_deref() != Some(pin.revision.as_str()) {
            resolved.push(Event::Resolved {
                source: name.as_str().to_owned(),
                old,
                new: pin.revision.as_str().to_owned(),
            });
        }
        staged.push((name.as_str().to_owned(), pin, files));
    }
    let mut rows = Vec::new();
    let mut mapped = Vec::new();
    let mut unlocated = Vec::new();
    for id in &unmapped {
        match holders.get(id).map(Vec::as_slice) {
            None | Some([]) => unlocated.push(Event::Unlocated { id: id.clone() }),
            Some([one]) => {
                rows.push((id.clone(), one.clone()));
                mapped.push(Event::Mapped {
                    id: id.clone(),
                    source: one.clone(),
                });
            }
            Some(many) => {
                return Err(Error::Ambiguous {
                    id: id.to_string(),
                    sources: many.iter().map(|s| s.to_string()).collect(),
                });
            }
        }
    }
    // Publish: the cache, then the table, then the lock.
    for (name, pin, files) in &staged {
        crate::cache::place(root, name, pin.revision.as_str(), files)?;
    }
    if !rows.is_empty() {
        let text = asv_contracts::table_edit::with_rows(&manifest_text(root)?, &rows)?;
        root.write_file(MANIFEST_FILE, text.as_bytes())?;
    }
    for (name, pin, _) in staged {
        lock.sources.insert(name, pin);
    }
    lock.sources = lock.registered_sources(&repo.manifest);
    let before = match &repo.lock_file {
        asv_contracts::repository::LockFile::Present { bytes, .. } => Some(bytes.clone()),
        asv_contracts::repository::LockFile::Missing => None,
    };
    if before.as_deref() != Some(lock.render().as_bytes()) {
        write_lock(root, &lock)?;
    }
    let mut events = resolved;
    events.extend(mapped);
    events.extend(unlocated);
    warn_if_not_ignored(root, &mut events)?;
    Ok(events)
}

/// Whether the cache holds every text and raw src the table maps to `source` at `revision`.
fn cache_complete(
    root: &Root,
    repo: &Repository<'_>,
    source: &str,
    revision: &str,
) -> Result<bool> {
    if !crate::cache::holds(root, source, revision)? {
        return Ok(false);
    }
    let dir = asv_contracts::cache::revision_dir(source, revision);
    for (_, path) in mapped_texts(repo, source) {
        if root.kind(&format!("{dir}/{path}"))?.is_none() {
            return Ok(false);
        }
    }
    for (src, _) in raw_srcs(repo, source) {
        if root.kind(&format!("{dir}/{src}"))?.is_none() {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `fetch`: fill the cache with exactly what the lock pins (what a clean checkout runs).
///
/// # Errors
/// A source whose registered repository differs from its pin; a refusal of a transport.
pub fn fetch(root: &Root, options: &Options) -> Result<Vec<Event>> {
    let repo = Repository::load(root)?;
    let lock = repo.lock_file.lock();
    if let Some(d) = lock.divergent_sources(&repo.manifest).into_iter().next() {
        return Err(Error::Contracts(asv_contracts::Error::PinnedElsewhere {
            name: d.name,
            pinned: d.pinned.to_string(),
            registered: d.registered.to_string(),
        }));
    }
    for name in repo.manifest.sources.keys() {
        let Some(pin) = lock.sources.get(name.as_str()) else {
            continue;
        };
        if cache_complete(root, &repo, name.as_str(), pin.revision.as_str())? {
            continue;
        }
        let mut t = transport(&pin.repository, options)?;
        let _step = options.progress.step(
            &format!("{}: listing {}", name.as_str(), pin.revision.as_str()),
            None,
        );
        let commit = to_commit(pin);
        let listing = Listing::new(t.list(&commit)?);
        let wanted = mapped_texts(&repo, name.as_str());
        let (files, _) = take_up(
            t.as_mut(),
            name.as_str(),
            &commit,
            &listing,
            &wanted,
            &raw_srcs(&repo, name.as_str()),
            options,
        )?;
        crate::cache::place(root, name.as_str(), pin.revision.as_str(), &files)?;
    }
    let mut events = Vec::new();
    warn_if_not_ignored(root, &mut events)?;
    Ok(events)
}
