//! The entry policy: which entry lists may be written, decided from the names and kinds alone.
//!
//! The policy is the same on every host: a name Windows cannot write is refused on Linux too, so
//! an archive accepted here is accepted everywhere the tool runs, and two names one volume folds
//! together are refused even on a volume that keeps them apart.

use std::collections::HashMap;

use unicode_normalization::UnicodeNormalization;

use crate::entry::{ArchiveEntry, ArchiveEntryKind};
use crate::error::{Detail, Refusal};

/// An entry name as the segments it lands at: a backslash is a separator on every host, and
/// empty and `.` segments are dropped. `..` is kept (the policy refuses it).
///
/// # Example
/// ```
/// assert_eq!(asv_archive::place_of("./a\\b//c/"), vec!["a", "b", "c"]);
/// ```
pub fn place_of(name: &str) -> Vec<&str> {
    name.split(['/', '\\'])
        .filter(|s| !s.is_empty() && *s != ".")
        .collect()
}

/// One path segment as the strictest volume the tool writes onto compares it: trailing dots and
/// spaces cut, NFKD, upper- then lower-cased. Two segments with one fold are one name somewhere.
///
/// # Example
/// ```
/// assert_eq!(asv_archive::folded_segment("Straße. "), asv_archive::folded_segment("STRASSE"));
/// ```
pub fn folded_segment(segment: &str) -> String {
    let cut = segment.trim_end_matches(['.', ' ']);
    let decomposed: String = cut.nfkd().collect();
    decomposed.to_uppercase().to_lowercase()
}

const DEVICE_NAMES: [&str; 4] = ["CON", "PRN", "AUX", "NUL"];

/// Whether a segment is a Windows device name, with or without an extension.
fn is_device_name(segment: &str) -> bool {
    let stem = segment
        .split('.')
        .next()
        .unwrap_or("")
        .trim_end_matches(' ');
    let upper = stem.to_ascii_uppercase();
    if DEVICE_NAMES.contains(&upper.as_str()) {
        return true;
    }
    let mut chars = upper.chars();
    let prefix: String = chars.by_ref().take(3).collect();
    let rest: Vec<char> = chars.collect();
    (prefix == "COM" || prefix == "LPT")
        && rest.len() == 1
        && matches!(rest[0], '1'..='9' | '¹' | '²' | '³')
}

/// Why one name may not be written, if it may not: checked in the order a reader would notice.
pub(crate) fn name_refusal(name: &str, utf8: bool) -> Option<Detail> {
    if !utf8 {
        return Some(Detail::NotUtf8);
    }
    if name.contains('\0') {
        return Some(Detail::Nul);
    }
    if name.starts_with("//") || name.starts_with("\\\\") {
        return Some(Detail::Unc);
    }
    if name.starts_with(['/', '\\']) {
        return Some(Detail::Absolute);
    }
    let bytes = name.as_bytes();
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Some(Detail::DriveRooted);
    }
    for segment in place_of(name) {
        if segment == ".." {
            return Some(Detail::ParentSegment);
        }
        if let Some(found) = segment.chars().find(|c| "<>:\"|?*".contains(*c)) {
            return Some(Detail::ForbiddenChar { found });
        }
        if segment.chars().any(char::is_control) {
            return Some(Detail::ControlChar);
        }
        if segment.ends_with(['.', ' ']) {
            return Some(Detail::TrailingDotOrSpace {
                segment: segment.to_owned(),
            });
        }
        if is_device_name(segment) {
            return Some(Detail::ReservedName {
                segment: segment.to_owned(),
            });
        }
    }
    None
}

/// Why an entry's kind may not be written, if it may not.
fn kind_refusal(kind: &ArchiveEntryKind) -> Option<Detail> {
    match kind {
        ArchiveEntryKind::File | ArchiveEntryKind::Directory => None,
        ArchiveEntryKind::Link => Some(Detail::SymbolicLink),
        ArchiveEntryKind::Hardlink => Some(Detail::HardLink),
        ArchiveEntryKind::Special(what) => Some(Detail::SpecialEntry { what: *what }),
    }
}

/// The entry policy over a list of file paths that come from no archive (a directory about to
/// be installed or packed): the first path that may not be written on every host and why.
/// The same name and clash rules as [`entry_refusal`], so a tree refused as an archive is
/// refused as a directory too.
///
/// # Example
/// ```
/// assert!(asv_archive::path_refusal(&["SKILL.md", "scripts/run.sh"]).is_none());
/// assert!(asv_archive::path_refusal(&["SKILL.md", "skill.MD"]).is_some());
/// assert!(asv_archive::path_refusal(&["aux.txt"]).is_some());
/// ```
pub fn path_refusal(paths: &[&str]) -> Option<Refusal> {
    let entries: Vec<ArchiveEntry> = paths
        .iter()
        .enumerate()
        .map(|(index, path)| ArchiveEntry {
            name: (*path).to_owned(),
            kind: ArchiveEntryKind::File,
            size: 0,
            executable: false,
            index,
            utf8: true,
        })
        .collect();
    entry_refusal(&entries)
}

/// The entry policy alone, pure: the first entry (in archive order) that may not be written and
/// why, or `None` when every entry may be.
///
/// Refused: a link, a hard link, a device, FIFO or unmodelled type; an unsafe name
/// ([`Detail`]'s unsafe-name variants); one name listed twice; a file with an entry beneath it;
/// two names that are one under [`folded_segment`]. An entry naming the archive's own root (`./`)
/// as a directory is allowed and writes nothing.
pub fn entry_refusal(entries: &[ArchiveEntry]) -> Option<Refusal> {
    /// What one folded path is, and the first entry that made it so.
    struct Seen {
        spelled: String,
        is_dir: bool,
        listed: bool,
        by: String,
    }
    let mut seen: HashMap<String, Seen> = HashMap::new();
    for entry in entries {
        if let Some(detail) = kind_refusal(&entry.kind) {
            return Some(Refusal::at(&entry.name, detail));
        }
        if let Some(detail) = name_refusal(&entry.name, entry.utf8) {
            return Some(Refusal::at(&entry.name, detail));
        }
        let place = place_of(&entry.name);
        if place.is_empty() {
            if entry.is_dir() {
                continue;
            }
            return Some(Refusal::at(&entry.name, Detail::EmptyName));
        }
        let mut folded = String::new();
        let mut spelled = String::new();
        for (i, segment) in place.iter().enumerate() {
            if i > 0 {
                folded.push('/');
                spelled.push('/');
            }
            folded.push_str(&folded_segment(segment));
            spelled.push_str(segment);
            let last = i + 1 == place.len();
            match seen.get_mut(&folded) {
                Some(prior) if prior.spelled != spelled => {
                    return Some(Refusal::at(
                        &entry.name,
                        Detail::Folded {
                            other: prior.by.clone(),
                        },
                    ));
                }
                Some(prior) if !last => {
                    if !prior.is_dir {
                        return Some(Refusal::at(
                            &entry.name,
                            Detail::UnderFile {
                                file: prior.by.clone(),
                            },
                        ));
                    }
                }
                Some(prior) => {
                    if prior.listed {
                        return Some(Refusal::at(&entry.name, Detail::Duplicate));
                    }
                    // A directory made by the entries beneath it, listed now.
                    if !entry.is_dir() {
                        return Some(Refusal::at(
                            &entry.name,
                            Detail::FileOverDirectory {
                                other: prior.by.clone(),
                            },
                        ));
                    }
                    prior.listed = true;
                }
                None => {
                    seen.insert(
                        folded.clone(),
                        Seen {
                            spelled: spelled.clone(),
                            is_dir: !last || entry.is_dir(),
                            listed: last,
                            by: entry.name.clone(),
                        },
                    );
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str) -> ArchiveEntry {
        ArchiveEntry {
            name: name.to_owned(),
            kind: ArchiveEntryKind::File,
            size: 0,
            executable: false,
            index: 0,
            utf8: true,
        }
    }

    fn dir(name: &str) -> ArchiveEntry {
        ArchiveEntry {
            kind: ArchiveEntryKind::Directory,
            ..file(name)
        }
    }

    #[test]
    fn names() {
        let rows: &[(&str, Option<Detail>)] = &[
            ("a/b.txt", None),
            ("./a/./b", None),
            ("a\\b", None),
            ("dir.with.dots/x.y", None),
            ("console.txt", None),
            ("COM0", None),
            ("COM10", None),
            ("café", None),
            ("", None), // empty names are judged by the entry policy (nothing to land at)
            ("a\0b", Some(Detail::Nul)),
            ("/etc/passwd", Some(Detail::Absolute)),
            ("\\windows", Some(Detail::Absolute)),
            ("//host/share", Some(Detail::Unc)),
            ("\\\\host\\share", Some(Detail::Unc)),
            ("C:/x", Some(Detail::DriveRooted)),
            ("c:x", Some(Detail::DriveRooted)),
            ("../x", Some(Detail::ParentSegment)),
            ("a/../../x", Some(Detail::ParentSegment)),
            ("a\\..\\x", Some(Detail::ParentSegment)),
            ("ab:c", Some(Detail::ForbiddenChar { found: ':' })),
            ("a<b", Some(Detail::ForbiddenChar { found: '<' })),
            ("a>b", Some(Detail::ForbiddenChar { found: '>' })),
            ("a\"b", Some(Detail::ForbiddenChar { found: '"' })),
            ("a|b", Some(Detail::ForbiddenChar { found: '|' })),
            ("a?b", Some(Detail::ForbiddenChar { found: '?' })),
            ("a*b", Some(Detail::ForbiddenChar { found: '*' })),
            ("a\x01b", Some(Detail::ControlChar)),
            ("a\x7fb", Some(Detail::ControlChar)),
            ("a\nb", Some(Detail::ControlChar)),
            (
                "dir./x",
                Some(Detail::TrailingDotOrSpace {
                    segment: "dir.".into(),
                }),
            ),
            (
                "x ",
                Some(Detail::TrailingDotOrSpace {
                    segment: "x ".into(),
                }),
            ),
            (
                "CON",
                Some(Detail::ReservedName {
                    segment: "CON".into(),
                }),
            ),
            (
                "a/con.txt",
                Some(Detail::ReservedName {
                    segment: "con.txt".into(),
                }),
            ),
            (
                "Prn.tar.gz",
                Some(Detail::ReservedName {
                    segment: "Prn.tar.gz".into(),
                }),
            ),
            (
                "aux",
                Some(Detail::ReservedName {
                    segment: "aux".into(),
                }),
            ),
            (
                "nul.md",
                Some(Detail::ReservedName {
                    segment: "nul.md".into(),
                }),
            ),
            (
                "com1",
                Some(Detail::ReservedName {
                    segment: "com1".into(),
                }),
            ),
            (
                "LPT9.log",
                Some(Detail::ReservedName {
                    segment: "LPT9.log".into(),
                }),
            ),
            (
                "com¹",
                Some(Detail::ReservedName {
                    segment: "com¹".into(),
                }),
            ),
        ];
        for (name, want) in rows {
            assert_eq!(&name_refusal(name, true), want, "{name:?}");
        }
        assert_eq!(name_refusal("x", false), Some(Detail::NotUtf8));
    }

    #[test]
    fn clashes() {
        let rows: Vec<(Vec<ArchiveEntry>, Option<Refusal>)> = vec![
            (vec![file("a"), file("b")], None),
            (
                vec![dir("a/"), file("a/b"), dir("a/c/"), file("a/c/d")],
                None,
            ),
            (vec![file("a/b"), dir("a/")], None),
            (vec![dir("./"), file("./x")], None),
            (
                vec![file("a"), file("a")],
                Some(Refusal::at("a", Detail::Duplicate)),
            ),
            (
                vec![file("a/b"), file("./a//b")],
                Some(Refusal::at("./a//b", Detail::Duplicate)),
            ),
            (
                vec![dir("a/"), dir("a")],
                Some(Refusal::at("a", Detail::Duplicate)),
            ),
            (
                vec![file("a"), file("a/b")],
                Some(Refusal::at("a/b", Detail::UnderFile { file: "a".into() })),
            ),
            (
                vec![file("a/b"), file("a")],
                Some(Refusal::at(
                    "a",
                    Detail::FileOverDirectory {
                        other: "a/b".into(),
                    },
                )),
            ),
            (
                vec![file("README"), file("readme")],
                Some(Refusal::at(
                    "readme",
                    Detail::Folded {
                        other: "README".into(),
                    },
                )),
            ),
            (
                vec![file("A/x"), file("a/y")],
                Some(Refusal::at(
                    "a/y",
                    Detail::Folded {
                        other: "A/x".into(),
                    },
                )),
            ),
            (
                vec![file("caf\u{e9}"), file("cafe\u{301}")],
                Some(Refusal::at(
                    "cafe\u{301}",
                    Detail::Folded {
                        other: "caf\u{e9}".into(),
                    },
                )),
            ),
            (
                vec![file("\u{fb01}le"), file("file")],
                Some(Refusal::at(
                    "file",
                    Detail::Folded {
                        other: "\u{fb01}le".into(),
                    },
                )),
            ),
            (
                vec![file("stra\u{df}e"), file("STRASSE")],
                Some(Refusal::at(
                    "STRASSE",
                    Detail::Folded {
                        other: "stra\u{df}e".into(),
                    },
                )),
            ),
            (vec![file(".")], Some(Refusal::at(".", Detail::EmptyName))),
            (vec![file("")], Some(Refusal::at("", Detail::EmptyName))),
        ];
        for (entries, want) in rows {
            assert_eq!(entry_refusal(&entries), want, "{entries:?}");
        }
    }
}
