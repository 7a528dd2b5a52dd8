//! The one line a person at a terminal reads after a clean `verify`, `gen` or `skill
//! validate`: how much was looked at, so that silence is not mistaken for nothing done.
//! Printed on stderr only, only to a terminal, never with `--quiet` (see
//! [`crate::settings::Settings::summary`]); stdout stays what the TypeScript tool prints.

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

#[cfg(test)]
mod tests {
    use super::*;

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
