//! The names an apply gives the entries it makes beside a destination, and how a listing
//! knows them again.

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::root::{join, parent_of};

/// Whether a directory entry's name is one an apply makes beside a destination — a staged
/// new entry (`.<name>.asv-staged-<run><sequence>`, 20 lowercase hex digits; 12 in names an
/// earlier version made) or a parked previous one (the same with `.previous`) — which a
/// listing beside a destination must skip.
///
/// # Example
/// ```
/// use asv_fs::is_tree_change_residue;
/// assert!(is_tree_change_residue(".a.asv-staged-0123456789ab"));
/// assert!(is_tree_change_residue(".a.asv-staged-0123456789ab.previous"));
/// assert!(is_tree_change_residue(".a.asv-staged-0123456789ab01234567"));
/// assert!(!is_tree_change_residue("a.asv-staged-0123456789ab"));
/// assert!(!is_tree_change_residue(".a"));
/// ```
pub fn is_tree_change_residue(name: &str) -> bool {
    residue_suffix(name).is_some()
}

/// The hex suffix of a staged or parked name (`None`: not one).
fn residue_suffix(name: &str) -> Option<&str> {
    let body = name.strip_suffix(".previous").unwrap_or(name);
    if !name.starts_with('.') {
        return None;
    }
    [RUN_SUFFIX_LEN, SUFFIX_LEN].into_iter().find_map(|len| {
        let at = body.len().checked_sub(len)?;
        let (head, suffix) = (body.get(..at)?, body.get(at..)?);
        (head.len() > MARK.len()
            && head.ends_with(MARK)
            && suffix
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
        .then_some(suffix)
    })
}

/// Whether a directory entry's name is a parked previous entry
/// (`.<name>.asv-staged-<random>.previous`): the residue a sweep may remove, since a staged
/// entry may be another run's change in flight.
pub fn is_parked_tree_entry(name: &str) -> bool {
    name.ends_with(".previous") && is_tree_change_residue(name)
}

/// What stands between a destination's kept name and the suffix.
const MARK: &str = ".asv-staged-";
/// The suffix of a name an earlier version made: 12 random hex digits.
const SUFFIX_LEN: usize = 12;
/// The suffix of a name this version makes: the run id (12 hex digits, also in the run's
/// journal) then a sequence number (8), so recovery can tell its run's entries from any other.
const RUN_SUFFIX_LEN: usize = RUN_ID_LEN + 8;
/// How long a run id is, in hex digits.
pub(super) const RUN_ID_LEN: usize = 12;
/// Longest part of a destination's name kept in a staged name, so the sibling's name stays
/// within the usual 255-byte limit.
const NAME_KEPT: usize = 100;

pub(super) fn random_suffix() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    // Asked once: `process::id` is a system call each time, and a fresh `gen` names tens of
    // thousands of staged entries.
    static PID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    let mut hasher = std::hash::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_u32(*PID.get_or_init(std::process::id));
    format!("{:012x}", hasher.finish() & 0xffff_ffff_ffff)
}

/// A fresh id for one apply: 12 lowercase hex digits, in its journal's name and record and in
/// every name it stages.
pub(super) fn new_run_id() -> String {
    random_suffix()
}

/// Whether `id` has the shape of a run id.
pub(super) fn is_run_id(id: &str) -> bool {
    id.len() == RUN_ID_LEN
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A fresh sibling name for `dest` in the run `run`:
/// `<dir>/.<name>.asv-staged-<run><sequence>`.
pub(super) fn staged_name(dest: &str, run: &str) -> String {
    static SEQUENCE: AtomicU64 = AtomicU64::new(0);
    let base = &dest[dest.rfind('/').map_or(0, |i| i + 1)..];
    let end = kept_len(base);
    let seq = SEQUENCE.fetch_add(1, Ordering::Relaxed) & 0xffff_ffff;
    join(
        parent_of(dest),
        &format!(".{}{MARK}{run}{seq:08x}", &base[..end]),
    )
}

/// Whether `name` is a staged or parked sibling the run `run` made for an entry named `base`
/// (the part of `base` a staged name keeps, then the mark, the run id and a sequence number):
/// what recovery may move or remove, and nothing else.
pub(super) fn is_residue_of_run(base: &str, name: &str, run: &str) -> bool {
    let kept = &base[..kept_len(base)];
    residue_suffix(name).is_some_and(|suffix| {
        suffix.len() == RUN_SUFFIX_LEN
            && suffix.starts_with(run)
            && name[1..]
                .strip_prefix(kept)
                .is_some_and(|rest| rest.starts_with(MARK))
            && name.len()
                == 1 + kept.len()
                    + MARK.len()
                    + RUN_SUFFIX_LEN
                    + if name.ends_with(".previous") {
                        ".previous".len()
                    } else {
                        0
                    }
    })
}

/// How much of a destination's name a staged name keeps: at most [`NAME_KEPT`] bytes, cut at
/// a character boundary.
fn kept_len(base: &str) -> usize {
    let mut end = base.len().min(NAME_KEPT);
    while !base.is_char_boundary(end) {
        end -= 1;
    }
    end
}

pub(super) fn parked_name(dest: &str, run: &str) -> String {
    format!("{}.previous", staged_name(dest, run))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn residue_names() {
        let run = new_run_id();
        assert!(is_run_id(&run));
        let staged = staged_name("skills/a", &run);
        let name = &staged["skills/".len()..];
        assert!(is_tree_change_residue(name), "{name}");
        assert!(!is_parked_tree_entry(name));
        assert!(is_residue_of_run("a", name, &run));
        assert!(!is_residue_of_run("a", name, &new_run_id()));
        assert!(!is_residue_of_run("ab", name, &run));
        let parked = parked_name("x", &run);
        assert!(is_tree_change_residue(&parked) && is_parked_tree_entry(&parked));
        assert!(is_residue_of_run("x", &parked, &run));
        // A name an earlier version made is residue, but of no run this version knows.
        assert!(!is_residue_of_run(
            "a",
            ".a.asv-staged-0123456789ab",
            "0123456789ab"
        ));
        let long = "é".repeat(150);
        let staged = staged_name(&long, &run);
        assert!(staged.len() < 255 && is_tree_change_residue(&staged));
        assert!(is_residue_of_run(&long, &staged, &run));
        let rows: &[(&str, bool)] = &[
            (".a.asv-staged-0123456789ab", true),
            (".a.asv-staged-0123456789ab.previous", true),
            ("..asv-staged-0123456789ab", true),
            (".a.asv-staged-0123456789AB", false),
            (".a.asv-staged-0123456789a", false),
            ("a.asv-staged-0123456789ab", false),
            (".a.asv-staged-0123456789ab.prev", false),
            (".asv-tmp-abc", false),
            ("", false),
        ];
        for (name, want) in rows {
            assert_eq!(is_tree_change_residue(name), *want, "{name}");
        }
    }

    #[test]
    fn suffixes_differ() {
        let a: HashSet<String> = (0..100).map(|_| random_suffix()).collect();
        assert_eq!(a.len(), 100);
    }
}
