//! The sweep: recorded dests no declaration places any more are cleared, but only while they
//! still hold what the lock records the tool wrote there.

use std::collections::{BTreeMap, BTreeSet};

use asv_fs::Root;
use asv_model::layout::SKILLS_DIR;

use crate::error::{PlacementProblem, Result};
use crate::lock::Placements;
use crate::manifest::paths_overlap;

use super::RawPlan;
use super::decide::{DestKind, Recorded, decide};
use super::observe::{dest_rules, observe};

/// Adds to `out` the removal and the `cleared` line of every recorded dest in `old` that this
/// run neither places (`planned`: skill → dests without `/`) nor hands to a migration
/// (`migrated`: skill and lock key), in recorded skill and dest order.
///
/// # Errors
/// A recorded dest nesting with one this run writes (ownership moves between nested dests
/// only by a migration); one that was edited or changed kind; a dest `.gitignore` excludes.
pub(super) fn sweep(
    root: &Root,
    old: &Placements,
    planned: &BTreeMap<String, Vec<String>>,
    migrated: &BTreeSet<(String, String)>,
    out: &mut RawPlan,
) -> Result<()> {
    for (skill, dests) in old {
        let planned = planned.get(skill);
        for (key, record) in dests {
            let bare = key.strip_suffix('/').unwrap_or(key);
            if planned.is_some_and(|p| p.iter().any(|d| d == bare))
                || migrated.contains(&(skill.clone(), key.clone()))
            {
                continue;
            }
            let site = format!("{SKILLS_DIR}/{skill}/{bare}");
            if let Some(other) = planned.and_then(|p| p.iter().find(|d| paths_overlap(d, bare))) {
                return Err(PlacementProblem::NestsWithPlanned {
                    site,
                    planned: format!("{SKILLS_DIR}/{skill}/{other}"),
                }
                .into());
            }
            out.touches_dests = true;
            // The key's trailing `/` is what the lock says was written there.
            let kind = DestKind::of(key.ends_with('/'));
            let rules = dest_rules(root, &site, kind)?;
            let standing = observe(root, &site, kind, &rules)?;
            let recorded = Recorded {
                kind,
                digest: record.digest,
            };
            let decision = decide(&site, standing.as_ref(), Some(&recorded), None)?;
            if decision.removes() {
                out.removals.push(site.clone());
            }
            out.events
                .extend(decision.event(kind.shown(&site), record.contract.clone()));
        }
    }
    Ok(())
}
