//! Saying much in few lines, two ways.
//!
//! The one line a person at a terminal reads after a clean `verify`, `gen` or `skill
//! validate`: how much was looked at, so that silence is not mistaken for nothing done.
//! Printed on stderr only, only to a terminal, never with `--quiet` (see
//! [`crate::settings::Settings::summary`]); stdout stays what the TypeScript tool prints.
//!
//! And the one line per kind that stands for many of a run's lines in text ([`collapse`]):
//! a `skill sync` that mirrors 28 skills into 3 agents' directories says `projected: 84
//! copies of 28 skills into 3 agent directories`, not 84 lines, unless `--verbose` asks
//! for each. A kind keeps its lines while there are at most [`LISTED`] of them: a run over a
//! few skills reads best item by item (as `cargo` names each crate it builds), one over many
//! by its totals (as `npx skills` and `gh skill` report a large install). Only what went as
//! asked is summarized: a problem, a conflict or a skill left out keeps its own line. JSON and
//! GitHub annotations keep one record per item, always.

use asv_contracts::Repository;

use crate::render::grouped;

/// What a repository distributes, counted from its declarations and table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// Skills under `skills/`.
    pub skills: usize,
    /// Copies of document contracts: one per declaration of a contract without a `files` row.
    pub copies: usize,
    /// Raw files and directories placed: one per `files` mapping of each declared raw contract.
    pub placements: usize,
}

impl Tally {
    /// Counts `repo`. After a clean `verify` or a `gen` these are exactly the copies and
    /// placements the tree holds.
    pub fn of(repo: &Repository<'_>) -> Tally {
        let mut tally = Tally {
            skills: repo.skills.len(),
            copies: 0,
            placements: 0,
        };
        for id in repo.skills.iter().flat_map(|s| &s.declared) {
            match repo.manifest.raw(id) {
                Some(row) => tally.placements += row.mappings.len(),
                None => tally.copies += 1,
            }
        }
        tally
    }

    fn counts(self) -> String {
        format!(
            "{}, {}, {}",
            counted(self.skills, "skill", "skills"),
            counted(self.copies, "copy", "copies"),
            counted(self.placements, "placement", "placements")
        )
    }
}

/// `1 skill`, `1,930 copies`.
fn counted(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{} {many}", grouped(n))
    }
}

/// `verify: 3 skills, 5 copies, 2 placements — clean`.
pub fn verify(tally: Tally) -> String {
    format!("verify: {} — clean", tally.counts())
}

/// `gen: 3 skills, 5 copies, 2 placements — 7 files written or removed` (`— up to date`
/// when nothing changed).
pub fn gen_(tally: Tally, writes: usize) -> String {
    let outcome = if writes == 0 {
        "up to date".to_owned()
    } else {
        format!("{} written or removed", counted(writes, "file", "files"))
    };
    format!("gen: {} — {outcome}", tally.counts())
}

/// `skill validate: 12 skills — clean`, or `… 12 skills, 2 warnings — no errors`.
pub fn validate(skills: usize, warnings: usize) -> String {
    let skills = counted(skills, "skill", "skills");
    if warnings == 0 {
        format!("skill validate: {skills} — clean")
    } else {
        format!(
            "skill validate: {skills}, {} — no errors",
            counted(warnings, "warning", "warnings")
        )
    }
}

/// How many items of one kind a text report still lists one per line; more are said in one
/// line unless `--verbose`. Five: a handful reads at a glance, and the names of a few skills
/// are worth seeing; past that a list scrolls what matters (a problem, a conflict) away.
pub const LISTED: usize = 5;

/// The lines of `items`, each rendered by `render`; unless `each` (which `--verbose`, or a
/// format other than text, asks for), the items of a kind (`kind`: `None` for one never
/// summarized) that has more than [`LISTED`] are said in the one line `say` makes of them,
/// where the first of them stood.
pub fn collapse<T>(
    items: &[T],
    each: bool,
    kind: impl Fn(&T) -> Option<&'static str>,
    render: impl Fn(&T) -> Vec<String>,
    say: impl Fn(&'static str, &[&T]) -> String,
) -> Vec<String> {
    let mut counts: Vec<(&'static str, Vec<&T>)> = Vec::new();
    for item in items {
        if let Some(k) = kind(item) {
            match counts.iter_mut().find(|(c, _)| *c == k) {
                Some((_, group)) => group.push(item),
                None => counts.push((k, vec![item])),
            }
        }
    }
    let mut said: Vec<&'static str> = Vec::new();
    let mut lines = Vec::with_capacity(items.len());
    for item in items {
        let group = kind(item).and_then(|k| counts.iter().find(|(c, _)| *c == k));
        match group {
            Some((k, group)) if !each && group.len() > LISTED => {
                if !said.contains(k) {
                    said.push(k);
                    lines.push(say(k, group));
                }
            }
            _ => lines.extend(render(item)),
        }
    }
    lines
}

/// What ends a line that stands for many: where to find each.
const EACH: &str = "(-v lists each)";

/// How many distinct values `values` holds.
fn distinct<'a>(values: impl Iterator<Item = &'a str>) -> usize {
    values.collect::<std::collections::BTreeSet<_>>().len()
}

/// `<dir>/<name>` split into its directory and the skill's name.
fn dir_and_name(path: &str) -> (&str, &str) {
    path.rsplit_once('/').unwrap_or(("", path))
}

/// The line standing for the many `skill sync` lines of `kind`.
pub fn synced(kind: &'static str, items: &[&asv_skills::sync::Synced]) -> String {
    use asv_skills::sync::Synced;
    let n = items.len();
    let paths: Vec<String> = items.iter().map(|s| s.path()).collect();
    let copies = |into: &str| {
        let skills = distinct(paths.iter().map(|p| dir_and_name(p).1));
        let dirs = distinct(paths.iter().map(|p| dir_and_name(p).0));
        format!(
            "{kind}: {} of {} {into} {} {EACH}",
            counted(n, "copy", "copies"),
            counted(skills, "skill", "skills"),
            counted(dirs, "agent directory", "agent directories")
        )
    };
    match items.first() {
        Some(Synced::Projected { .. }) => copies("into"),
        Some(Synced::Unprojected { .. }) => copies("from"),
        Some(Synced::Taken { .. }) => {
            let sources = distinct(items.iter().filter_map(|s| match s {
                Synced::Taken { source, .. } => Some(source.as_str()),
                _ => None,
            }));
            format!(
                "{kind}: {} from {} {EACH}",
                counted(n, "skill", "skills"),
                counted(sources, "source", "sources")
            )
        }
        _ => format!("{kind}: {} {EACH}", counted(n, "skill", "skills")),
    }
}

/// The line standing for the many `added:` lines of `skill add --all`: how many, from where
/// and at what (short) revision when they share one.
pub fn added(all: &[&asv_skills::add::Added]) -> String {
    let n = counted(all.len(), "skill", "skills");
    let source = all.first().map_or("", |a| a.source.as_str());
    let pins = distinct(all.iter().map(|a| a.pin.as_str()));
    match all.first() {
        Some(first) if pins == 1 => format!(
            "added: {n} from {source} at {} {EACH}",
            asv_model::source::short(first.pin.as_str())
        ),
        _ => format!("added: {n} from {source} {EACH}"),
    }
}

/// The line standing for the many lines of `skill pull` of `kind` (`up-to-date` or
/// `updated`).
pub fn pulled(kind: &'static str, items: &[&asv_skills::pull::Pulled]) -> String {
    use asv_skills::pull::Pulled;
    let n = counted(items.len(), "skill", "skills");
    if kind == "updated" {
        let kept = items
            .iter()
            .filter(|p| {
                matches!(
                    p,
                    Pulled::Updated {
                        kept_local: true,
                        ..
                    }
                )
            })
            .count();
        if kept > 0 {
            return format!("updated: {n}, {kept} with local edits kept {EACH}");
        }
        return format!("updated: {n} {EACH}");
    }
    format!("up to date: {n} {EACH}")
}

/// The line standing for the many `installed:` lines of `skill install` (`shown_root`
/// prefixes each destination).
pub fn installed(items: &[&(String, String, String)], shown_root: &str) -> String {
    let n = counted(items.len(), "skill", "skills");
    let dirs: std::collections::BTreeSet<&str> = items
        .iter()
        .map(|(_, dest, _)| dir_and_name(dest).0)
        .collect();
    match dirs.iter().next() {
        Some(dir) if dirs.len() == 1 => format!("installed: {n} into {shown_root}{dir}/ {EACH}"),
        _ => format!(
            "installed: {n} into {} {EACH}",
            counted(dirs.len(), "directory", "directories")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_past_the_limit_is_said_once_where_it_began() {
        // (kind, item): kind None is never summarized.
        let items: Vec<(Option<&'static str>, usize)> = (0..8)
            .map(|i| (Some("many"), i))
            .chain([(None, 100), (Some("few"), 200)])
            .chain((8..10).map(|i| (Some("many"), i)))
            .collect();
        let run = |each| {
            collapse(
                &items,
                each,
                |(k, _)| *k,
                |(_, i)| vec![format!("item {i}")],
                |k, group| format!("{k}: {}", group.len()),
            )
        };
        assert_eq!(run(false), ["many: 10", "item 100", "item 200"]);
        let every = run(true);
        assert_eq!(every.len(), items.len());
        assert_eq!(every[0], "item 0");
        // Exactly LISTED of a kind keep their lines.
        let five: Vec<(Option<&'static str>, usize)> =
            (0..LISTED).map(|i| (Some("k"), i)).collect();
        let kept = collapse(
            &five,
            false,
            |(k, _)| *k,
            |(_, i)| vec![i.to_string()],
            |_, _| "summary".to_owned(),
        );
        assert_eq!(kept.len(), LISTED);
    }

    #[test]
    fn summaries_read_as_english() {
        let tally = Tally {
            skills: 214,
            copies: 1930,
            placements: 1,
        };
        assert_eq!(
            verify(tally),
            "verify: 214 skills, 1,930 copies, 1 placement — clean"
        );
        assert_eq!(
            gen_(tally, 0),
            "gen: 214 skills, 1,930 copies, 1 placement — up to date"
        );
        assert_eq!(
            gen_(tally, 1),
            "gen: 214 skills, 1,930 copies, 1 placement — 1 file written or removed"
        );
        assert_eq!(validate(1, 0), "skill validate: 1 skill — clean");
        assert_eq!(
            validate(3, 2),
            "skill validate: 3 skills, 2 warnings — no errors"
        );
    }
}
