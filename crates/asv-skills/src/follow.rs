//! Moving an import to another ref (issue 29 §2): the intent file is the source of truth, so
//! a `ref:` changed in `vendor-skills.yaml` (or given with `skill pull NAME --ref R`) is
//! followed by the next pull, with the same three-way merge as any pull: the old pin is the
//! base, the new ref's commit is upstream, the local copy is ours. The lock records the new
//! ref (and, for a semver range, the tag it picked) only once the pin has moved; a pull that
//! ends in conflicts it does not write leaves the lock as it was.
//!
//! A tag is meant never to move: a pin taken at a tag whose tag names another commit now is
//! refused rather than merged as an update.

use std::collections::BTreeMap;

use asv_fs::Root;

use crate::error::Error;
use crate::intent::Intent;
use crate::lock::{Entry, SkillLock};
use crate::sources::{Reach, Sources};
use crate::upstream::Source;

/// The ref each imported skill is to follow where it is not the one the lock records: the
/// ref `forced` gives its skill (`skill pull NAME --ref R`), else the `ref` of its row in
/// `vendor-skills.yaml`. A row without `ref` follows the default branch, which the lock
/// names: no move.
///
/// # Errors
/// As [`Intent::load`].
pub(crate) fn moves(
    root: &Root,
    lock: &SkillLock,
    forced: Option<(&str, &str)>,
) -> Result<BTreeMap<String, String>, Error> {
    let intent = Intent::load(root)?;
    let mut out = BTreeMap::new();
    for (name, entry) in &lock.skills {
        let asked = match forced {
            Some((forced, reference)) if forced == name => Some(reference.to_owned()),
            _ => intent.skills.get(name).and_then(|w| w.reference.clone()),
        };
        if let Some(asked) = asked
            && entry.reference.as_deref() != Some(asked.as_str())
        {
            out.insert(name.clone(), asked);
        }
    }
    Ok(out)
}

/// `entry` following `to` instead of its own ref: the same pin, which stays the merge's base.
pub(crate) fn following(entry: &Entry, to: Option<&String>) -> Entry {
    match to {
        Some(to) => Entry {
            reference: Some(to.clone()),
            tag: None,
            ..entry.clone()
        },
        None => entry.clone(),
    }
}

/// Records in `e` the ref `followed` follows and the tag upstream was found at (`tag`: a
/// semver range's pick; none for any other ref).
pub(crate) fn record(e: &mut Entry, followed: &Entry, tag: Option<&String>) {
    e.reference = followed.reference.clone();
    e.tag = tag.cloned();
}

/// Refuses a pin whose tag moved: the ref is the one the lock follows, the commit found is
/// not the pinned one, and the tag the pin was taken at (the lock's `tag`, or its `ref` when
/// that is a tag of the source) names that other commit now.
///
/// The tag list is asked for only when the commit moved, so an unmoved pin costs nothing
/// more; a transport that lists no tags has nothing to compare.
///
/// # Errors
/// [`Error::TagMoved`]; as [`tag_of`].
pub(crate) fn refuse_moved_tag(
    root: &Root,
    name: &str,
    entry: &Entry,
    followed: &Entry,
    (revision, picked): (&str, Option<&String>),
    sources: &Sources<'_>,
) -> Result<(), Error> {
    if followed.reference != entry.reference || revision == entry.revision {
        return Ok(());
    }
    let moved = |tag: &str, now: &str| Error::TagMoved {
        name: name.to_owned(),
        tag: tag.to_owned(),
        pinned: entry.revision.clone(),
        now: now.to_owned(),
    };
    // A range picking the very tag the lock pinned, at another commit.
    if let (Some(pinned), Some(picked)) = (&entry.tag, picked)
        && pinned == picked
    {
        return Err(moved(pinned, revision));
    }
    let Some(tag) = entry.tag.as_ref().or(entry.reference.as_ref()) else {
        return Ok(());
    };
    // A full or short commit id names no tag, and cannot move.
    if tag.len() >= 7 && tag.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok(());
    }
    let source = Source::parse(&entry.source)?;
    let Some(now) = tag_of(root, &source, entry.reference.as_deref(), tag, sources)? else {
        return Ok(());
    };
    match now {
        Some(commit) if commit != entry.revision => Err(moved(tag, &commit)),
        _ => Ok(()),
    }
}

/// The commit the tag `name` of `source` names now, through its transport: `Some(None)` when
/// it has no such tag, `None` as [`crate::upstream::tags_of`] answers `None`. What the
/// transport already knows of that tag (issue 30 §3: generic git, from the run's lookup of
/// the name), else the run's tag list, asked once per source as `tags_of` asks it.
///
/// # Errors
/// As [`crate::upstream::take`] for a source that cannot be reached.
fn tag_of(
    root: &Root,
    source: &Source,
    reference: Option<&str>,
    name: &str,
    sources: &Sources<'_>,
) -> Result<Option<Option<String>>, Error> {
    let reach = match (source, reference) {
        (Source::Local(_), None) => return Ok(None),
        (Source::Local(dir), Some(_)) => Reach::LocalGit(dir.clone()),
        (Source::Remote(spec), _) => Reach::Remote(spec.clone()),
    };
    sources.with(root, &reach, |transport| {
        if let Some(known) = transport.known_tag(name)? {
            return Ok(Some(known));
        }
        Ok(transport
            .tags()?
            .map(|tags| tags.into_iter().find(|t| t.name == name).map(|t| t.commit)))
    })
}
