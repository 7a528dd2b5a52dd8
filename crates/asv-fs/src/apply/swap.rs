//! Swapping: each staged entry moved into place with what stood there parked, and the
//! rollback that moves everything back.

use super::names::{parked_name, staged_name};
use super::{Applier, Track, base_name, is_exists};
use crate::error::{Error, Result, StrandedEntry};
use crate::plan::{Entry, Ownership};
use crate::platform;
use crate::root::parent_of;

impl Applier<'_, '_> {
    /// Moves `from` to a fresh parked name beside `dest`; the name.
    fn park(&self, from: &str, dest: &str) -> Result<String> {
        loop {
            let parked = parked_name(dest, &self.run);
            match self.rename_noreplace(from, &parked, "park the previous entry") {
                Ok(()) => return Ok(parked),
                Err(Error::Io { error: source, .. }) if is_exists(&source) => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Exchanges `a` and `b` in one step; `false` (nothing done) where the file system
    /// cannot. Where the platform has no such call at all (`platform::HAS_EXCHANGE`), no call
    /// is made or counted.
    fn exchange(&self, a: &str, b: &str) -> Result<bool> {
        if self.no_exchange || !platform::HAS_EXCHANGE {
            return Ok(false);
        }
        let (a_abs, b_abs) = (self.root.abs(a), self.root.abs(b));
        self.op(b, "exchange into place", || {
            platform::exchange(&a_abs, &b_abs)
        })
    }

    /// Puts the staged new entry of `track` in place and parks the previous one. `held` is
    /// the directory last held open, kept for the next track in the same directory.
    fn swap(&self, track: &mut Track, held: &mut Option<(String, platform::Dir)>) -> Result<()> {
        let dest = track.dest.clone();
        match (track.old_at.clone(), track.new_at.clone()) {
            (Some(_), Some(staged)) => {
                if self.exchange(&staged, &dest)? {
                    track.old_at = Some(staged.clone());
                    track.new_at = Some(dest.clone());
                    track.old_at = Some(self.park(&staged, &dest)?);
                } else {
                    track.old_at = Some(self.park(&dest, &dest)?);
                    self.rename_noreplace(&staged, &dest, "move into place")?;
                    track.new_at = Some(dest);
                }
            }
            // Made in place (a new file in a directory this run made): nothing to move.
            (None, Some(staged)) if staged == dest => {}
            (None, Some(staged)) => {
                let parent = parent_of(&dest);
                let dir = match held.take() {
                    Some((rel, dir)) if rel == parent => dir,
                    _ => self.open_dir(parent)?,
                };
                let dir = &held.insert((parent.to_owned(), dir)).1;
                self.op(&dest, "move into place", || {
                    dir.rename_noreplace(base_name(&staged), base_name(&dest))
                })?;
                track.new_at = Some(dest);
            }
            (Some(_), None) => {
                track.old_at = Some(self.park(&dest, &dest)?);
            }
            (None, None) => {}
        }
        Ok(())
    }

    /// Undoes one track as far as it can: the previous entry back at its destination, the
    /// new one removed. What it cannot undo is recorded.
    pub(super) fn undo(
        &self,
        track: &Track,
        stranded: &mut Vec<StrandedEntry>,
        leftovers: &mut Vec<String>,
    ) {
        let dest = &track.dest;
        let mut new_at = track.new_at.clone();
        if let Some(old) = &track.old_at
            && old != dest
        {
            let restored = if new_at.as_deref() == Some(dest.as_str()) {
                // Both moved: swap them back in one step, or move the new one aside first.
                match self.exchange(old, dest) {
                    Ok(true) => {
                        new_at = Some(old.clone());
                        true
                    }
                    Ok(false) => {
                        let aside = staged_name(dest, &self.run);
                        match self.rename_noreplace(dest, &aside, "move aside") {
                            Ok(()) => {
                                new_at = Some(aside);
                                self.rename_noreplace(old, dest, "move back").is_ok()
                            }
                            Err(_) => false,
                        }
                    }
                    Err(_) => false,
                }
            } else {
                self.rename_noreplace(old, dest, "move back").is_ok()
            };
            if !restored {
                stranded.push(StrandedEntry {
                    dest: dest.clone(),
                    parked: old.clone(),
                });
                // The new entry stays where it is rather than risk the last copy of anything.
                if let Some(new) = new_at
                    && new != *dest
                {
                    leftovers.push(new);
                }
                return;
            }
        } else if track.old_at.is_none() && new_at.as_deref() == Some(dest.as_str()) {
            // A created entry: move it off the destination in one step, then remove it.
            let aside = staged_name(dest, &self.run);
            if self.rename_noreplace(dest, &aside, "move aside").is_err() {
                leftovers.push(dest.clone());
                return;
            }
            new_at = Some(aside);
        }
        if let Some(new) = new_at
            && self.remove_tree(&new).is_err()
        {
            leftovers.push(new);
        }
    }
}

/// Swaps every staged entry into place, in track order, each destination looked at once
/// more first: one that changed since the plan saw it (and is not still the tool's) stops the
/// change before its swap.
pub(super) fn swap_all(
    applier: &Applier<'_, '_>,
    entries: &[Entry],
    tracks: &mut [Track],
) -> Result<()> {
    // What stood at each destination when the change was decided, to look at once more just
    // before its swap: an edit saved while staging ran refuses the change instead of being
    // parked and removed with what it edited.
    // A destination whose marks moved but whose recogniser still calls it the tool's (a file
    // touched, or edited and put back) goes on: the recogniser looks at the content, where the
    // marks only say that something happened.
    type Seen<'e> = (
        &'e crate::plan::seen::Seen,
        Option<&'e crate::plan::Recogniser>,
    );
    let seen: std::collections::HashMap<&str, Seen<'_>> = entries
        .iter()
        .filter_map(|e| {
            let recogniser = match &e.change.ownership {
                Ownership::ToolMade(recogniser) => Some(recogniser),
                _ => None,
            };
            e.seen
                .as_ref()
                .map(|seen| (e.planned.dest(), (seen, recogniser)))
        })
        .collect();
    applier.calls.pause_before_swap();
    // Swap each into place, parking what was there. Each swap is one write of the tree's
    // write budget, so a caller injecting faults with `Root::fail_writes_after` sees a plan
    // stop (and roll back) between destinations.
    let mut held = None;
    for track in tracks.iter_mut() {
        applier.root.spend_write(&track.dest)?;
        if let Some((seen, recogniser)) = seen.get(track.dest.as_str()) {
            let now = applier
                .calls
                .step()
                .map_err(|e| Error::io(&track.dest, "inspect", e))
                .and_then(|()| crate::plan::seen::Seen::take(applier.root, &track.dest))?;
            if let Some(path) = seen.first_change(&track.dest, now.as_ref()) {
                let still_ours = match (recogniser, now.as_ref().and_then(|n| n.kind())) {
                    (Some(recogniser), Some(kind)) => matches!(
                        (recogniser.0)(applier.root, &track.dest, kind)?,
                        crate::plan::Verdict::Ours
                    ),
                    _ => false,
                };
                if !still_ours {
                    return Err(Error::ChangedDuringRun { path });
                }
            }
        }
        applier.swap(track, &mut held)?;
    }
    drop(held);
    Ok(())
}
