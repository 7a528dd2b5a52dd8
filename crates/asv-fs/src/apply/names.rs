//! The names an apply gives the entries it makes beside a destination, and how a listing
//! knows them again.

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::tree::{join, parent_of};

/// Whether a directory entry's name is one an apply makes beside a destination — a staged
/// new entry (`.<name>.asv-staged-<random>`) or a parked previous one (the same with
/// `.previous`) — which a listing beside a destination must skip.
///
/// # Example
/// ```
/// use asv_fs::is_tree_change_residue;
/// assert!(is_tree_change_residue(".a.asv-staged-0123456789ab"));
/// assert!(is_tree_change_residue(".a.asv-staged-0123456789ab.previous"));
/// assert!(!is_tree_change_residue("a.asv-staged-0123456789ab"));
/// assert!(!is_tree_change_residue(".a"));
/// ```
pub fn is_tree_change_residue(name: &str) -> bool {
    let body = name.strip_suffix(".previous").unwrap_or(name).as_bytes();
    const MARK: &[u8] = b".asv-staged-";
    if !name.starts_with('.') || body.len() < 1 + MARK.len() + SUFFIX_LEN {
        return false;
    }
    let (head, suffix) = body.split_at(body.len() - SUFFIX_LEN);
    head.ends_with(MARK)
        && suffix
            .iter()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
}

/// Whether a directory entry's name is a parked previous entry
/// (`.<name>.asv-staged-<random>.previous`): the residue a sweep may remove, since a staged
/// entry may be another run's change in flight.
pub fn is_parked_tree_entry(name: &str) -> bool {
    name.ends_with(".previous") && is_tree_change_residue(name)
}

const SUFFIX_LEN: usize = 12;
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

/// A fresh sibling name for `dest`: `<dir>/.<name>.asv-staged-<random>`.
pub(super) fn staged_name(dest: &str) -> String {
    let base = &dest[dest.rfind('/').map_or(0, |i| i + 1)..];
    let end = kept_len(base);
    join(
        parent_of(dest),
        &format!(".{}.asv-staged-{}", &base[..end], random_suffix()),
    )
}

/// Whether `name` is a staged or parked sibling this tool makes for an entry named `base`
/// (the part of `base` a staged name keeps, then the mark and a random suffix).
pub(super) fn is_residue_of(base: &str, name: &str) -> bool {
    let kept = &base[..kept_len(base)];
    is_tree_change_residue(name)
        && name[1..].strip_prefix(kept).is_some_and(|rest| {
            rest.starts_with(".asv-staged-")
                && rest.len() <= ".asv-staged-".len() + SUFFIX_LEN + ".previous".len()
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

pub(super) fn parked_name(dest: &str) -> String {
    format!("{}.previous", staged_name(dest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn residue_names() {
        let staged = staged_name("skills/a");
        let name = &staged["skills/".len()..];
        assert!(is_tree_change_residue(name), "{name}");
        assert!(!is_parked_tree_entry(name));
        let parked = parked_name("x");
        assert!(is_tree_change_residue(&parked) && is_parked_tree_entry(&parked));
        let long = "é".repeat(150);
        let staged = staged_name(&long);
        assert!(staged.len() < 255 && is_tree_change_residue(&staged));
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
