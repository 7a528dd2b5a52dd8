//! Reading object ids, modes and paths out of a listing (an API answer's or a `git ls-tree`
//! record), and judging an entry before it is read; shared by both transports.

use crate::error::{EntryProblem, FileAt, ListedKind};
use crate::{EntryMode, TreeEntry};

/// Whether a path from a listing stays inside the repository: no empty, `.` or `..` segment,
/// no backslash.
pub fn is_inside(path: &str) -> bool {
    !path.is_empty()
        && !path.contains('\\')
        && path
            .split('/')
            .all(|seg| !seg.is_empty() && seg != "." && seg != "..")
}

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

/// One `git ls-tree -z` record: `<mode> SP <type> SP <oid> TAB <path>`.
pub(crate) fn parse_entry(record: &[u8], len: usize) -> Option<TreeEntry> {
    let tab = record.iter().position(|&b| b == b'\t')?;
    let (head, path) = (&record[..tab], &record[tab + 1..]);
    let head = std::str::from_utf8(head).ok()?;
    let mut fields = head.split(' ');
    let (mode, kind, oid) = (fields.next()?, fields.next()?, fields.next()?);
    if fields.next().is_some() || !is_hex_id(oid, len) || path.is_empty() {
        return None;
    }
    let mode = mode_of(mode)?;
    let expected = match mode {
        EntryMode::File | EntryMode::Executable | EntryMode::Symlink => "blob",
        EntryMode::Submodule => "commit",
        EntryMode::Tree => "tree",
    };
    if kind != expected {
        return None;
    }
    Some(TreeEntry {
        // A path that is not UTF-8 stays listed, its odd bytes replaced, rather than vanish.
        path: String::from_utf8_lossy(path).into_owned(),
        mode,
        oid: oid.to_owned(),
    })
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

    #[test]
    fn tree_records_read_as_git_writes_them() {
        let blob = "ce013625030ba8dba906f756967f9e9ca394464a";
        assert_eq!(
            parse_entry(format!("100755 blob {blob}\tbin/run.sh").as_bytes(), 40),
            Some(TreeEntry {
                path: "bin/run.sh".to_owned(),
                mode: EntryMode::Executable,
                oid: blob.to_owned(),
            })
        );
        assert_eq!(
            parse_entry(format!("040000 tree {blob}\tdir with space").as_bytes(), 40)
                .map(|e| (e.mode, e.path)),
            Some((EntryMode::Tree, "dir with space".to_owned()))
        );
        assert_eq!(
            parse_entry(format!("160000 commit {blob}\tsub").as_bytes(), 40).map(|e| e.mode),
            Some(EntryMode::Submodule)
        );
        // A type that does not go with the mode, a short id, no path: not a record.
        assert_eq!(
            parse_entry(format!("100644 tree {blob}\tx").as_bytes(), 40),
            None
        );
        assert_eq!(
            parse_entry(format!("100644 blob {blob}\tx").as_bytes(), 64),
            None
        );
        assert_eq!(
            parse_entry(format!("100644 blob {blob}\t").as_bytes(), 40),
            None
        );
        assert_eq!(parse_entry(b"100644 blob", 40), None);
    }
}
