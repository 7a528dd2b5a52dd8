//! Reading object ids, modes and paths out of a listing, and showing them in messages; shared
//! by both transports.

use crate::error::{EntryProblem, FileAt, ListedKind};
use crate::take::is_inside;
use crate::{EntryMode, TreeEntry};

/// Refuses to read an entry that is not an ordinary file at a path inside the repository;
/// `file` names the entry in the refusal.
pub(crate) fn check_readable(file: &FileAt, entry: &TreeEntry) -> Result<(), EntryProblem> {
    if let Some(kind) = ListedKind::of(entry.mode) {
        return Err(EntryProblem::NotAFile {
            file: file.clone(),
            kind,
        });
    }
    if !is_inside(&entry.path) {
        return Err(EntryProblem::Outside { file: file.clone() });
    }
    Ok(())
}

/// `len` lowercase hex digits.
pub(crate) fn is_hex_id(text: &str, len: usize) -> bool {
    text.len() == len && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A listed mode, read the way git reads one (any regular file is 100644 or 100755 by its
/// owner-execute bit); `None` for anything that is not a mode.
pub(crate) fn mode_of(mode: &str) -> Option<EntryMode> {
    if !(5..=6).contains(&mode.len()) || !mode.bytes().all(|b| matches!(b, b'0'..=b'7')) {
        return None;
    }
    let bits = u32::from_str_radix(mode, 8).ok()?;
    match bits & 0o170_000 {
        0o100_000 if bits & 0o100 != 0 => Some(EntryMode::Executable),
        0o100_000 => Some(EntryMode::File),
        0o120_000 => Some(EntryMode::Symlink),
        0o160_000 => Some(EntryMode::Submodule),
        0o040_000 => Some(EntryMode::Tree),
        _ => None,
    }
}

/// Text from elsewhere, quoted and escaped onto one line, and cut short if long.
pub(crate) fn shown(text: &str) -> String {
    const MAX: usize = 120;
    if text.chars().count() > MAX {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut:?}…")
    } else {
        format!("{text:?}")
    }
}

/// A listed path as written when it is plain, quoted and escaped when it is not.
pub(crate) fn shown_path(path: &str) -> String {
    if !path.is_empty()
        && path
            .chars()
            .all(|c| c.is_ascii_graphic() || c == ' ' || (!c.is_ascii() && !c.is_control()))
    {
        path.to_owned()
    } else {
        shown(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_and_ids() {
        assert_eq!(mode_of("100644"), Some(EntryMode::File));
        assert_eq!(mode_of("100664"), Some(EntryMode::File));
        assert_eq!(mode_of("100755"), Some(EntryMode::Executable));
        assert_eq!(mode_of("120000"), Some(EntryMode::Symlink));
        assert_eq!(mode_of("160000"), Some(EntryMode::Submodule));
        assert_eq!(mode_of("40000"), Some(EntryMode::Tree));
        assert_eq!(mode_of("100648"), None);
        assert!(is_hex_id(&"a".repeat(40), 40));
        assert!(!is_hex_id(&"A".repeat(40), 40));
    }
}
