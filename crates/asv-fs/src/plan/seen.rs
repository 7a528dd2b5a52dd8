//! What stood at a destination when its change was decided, so that the apply can tell, just
//! before it swaps the new entry in, whether anything changed there since (issue 27 §4).
//!
//! Staging a large change takes time, and a person may save a file meanwhile: without a
//! second look, the swap would park their edit with the entry it replaces and delete it. A
//! recogniser looks at the content once, while planning; this is the cheap look that follows
//! it, by the file system's own marks (identity, size, mode and modification time of every
//! entry, without following a link), taken before the recogniser reads and compared again
//! just before the swap. The change time is left out on purpose: an apply may hard-link the
//! files of a directory it replaces into the new one, which changes their change time and
//! nothing else.

use std::fs;
use std::time::SystemTime;

use crate::error::{EntryKind, Error, Result};
use crate::platform;
use crate::root::{Root, join, kind_of};

/// The marks of one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mark {
    kind: EntryKind,
    identity: (u64, u64),
    len: u64,
    mode: u32,
    modified: Option<SystemTime>,
}

impl Mark {
    fn of(meta: &fs::Metadata) -> Mark {
        Mark {
            kind: kind_of(meta.file_type()),
            identity: platform::identity_of(meta),
            len: meta.len(),
            mode: platform::mode_of(meta),
            modified: meta.modified().ok(),
        }
    }
}

/// The marks of a destination and, for a directory, of everything below it, by path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Seen(Vec<(String, Mark)>);

impl Seen {
    /// The marks of what stands at `dest` now (`None`: nothing does).
    ///
    /// # Errors
    /// [`Error::Io`] when an entry cannot be looked at or a directory listed.
    pub(crate) fn take(root: &Root, dest: &str) -> Result<Option<Seen>> {
        let meta = match fs::symlink_metadata(root.abs(dest)) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(dest, "inspect", e)),
        };
        let mut marks = vec![(String::new(), Mark::of(&meta))];
        let mut dirs = Vec::new();
        if meta.file_type().is_dir() {
            dirs.push(String::new());
        }
        while let Some(dir) = dirs.pop() {
            let at = below(dest, &dir);
            let mut names: Vec<_> = fs::read_dir(root.abs(&at))
                .map_err(|e| Error::io(&at, "list", e))?
                .map(|e| e.map(|e| e.file_name()))
                .collect::<std::io::Result<_>>()
                .map_err(|e| Error::io(&at, "list", e))?;
            names.sort();
            for name in names {
                let rel = join(&dir, &name.to_string_lossy());
                let path = join(dest, &rel);
                let meta = fs::symlink_metadata(root.abs(&path))
                    .map_err(|e| Error::io(&path, "inspect", e))?;
                if meta.file_type().is_dir() {
                    dirs.push(rel.clone());
                }
                marks.push((rel, Mark::of(&meta)));
            }
        }
        marks.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(Some(Seen(marks)))
    }

    /// What stands at the destination itself.
    pub(crate) fn kind(&self) -> Option<EntryKind> {
        self.0
            .iter()
            .find(|(rel, _)| rel.is_empty())
            .map(|(_, mark)| mark.kind)
    }

    /// The first path (relative to the root, below `dest`) whose marks differ from `now`'s,
    /// or that only one of them has: what changed since.
    pub(crate) fn first_change(&self, dest: &str, now: Option<&Seen>) -> Option<String> {
        let Some(now) = now else {
            return Some(dest.to_owned());
        };
        let (mut a, mut b) = (self.0.iter().peekable(), now.0.iter().peekable());
        loop {
            match (a.peek(), b.peek()) {
                (None, None) => return None,
                (Some((pa, ma)), Some((pb, mb))) if pa == pb => {
                    if ma != mb {
                        return Some(below(dest, pa));
                    }
                    a.next();
                    b.next();
                }
                (Some((pa, _)), Some((pb, _))) => {
                    return Some(below(dest, if pa < pb { pa } else { pb }));
                }
                (Some((p, _)), None) | (None, Some((p, _))) => return Some(below(dest, p)),
            }
        }
    }
}

/// `rel` below `dest` (`dest` itself for `""`).
fn below(dest: &str, rel: &str) -> String {
    if rel.is_empty() {
        dest.to_owned()
    } else {
        join(dest, rel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_an_added_and_a_removed_entry_show() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        root.write_file("d/a.md", b"a\n").unwrap();
        root.write_file("d/sub/b.md", b"b\n").unwrap();
        let seen = Seen::take(&root, "d").unwrap().unwrap();
        let again = Seen::take(&root, "d").unwrap();
        assert_eq!(seen.first_change("d", again.as_ref()), None);
        // A hard link to a file changes its change time only: not a change.
        fs::hard_link(dir.path().join("d/a.md"), dir.path().join("elsewhere")).unwrap();
        assert_eq!(
            seen.first_change("d", Seen::take(&root, "d").unwrap().as_ref()),
            None
        );
        // Same size, new bytes, written in place: the modification time moves.
        std::thread::sleep(std::time::Duration::from_millis(20));
        fs::write(dir.path().join("d/sub/b.md"), b"B\n").unwrap();
        assert_eq!(
            seen.first_change("d", Seen::take(&root, "d").unwrap().as_ref()),
            Some("d/sub/b.md".to_owned())
        );
        let seen = Seen::take(&root, "d").unwrap().unwrap();
        fs::write(dir.path().join("d/new.md"), b"n\n").unwrap();
        let changed = seen.first_change("d", Seen::take(&root, "d").unwrap().as_ref());
        // The directory itself gained an entry: its own marks move first.
        assert_eq!(changed, Some("d".to_owned()));
        fs::remove_dir_all(dir.path().join("d")).unwrap();
        assert_eq!(seen.first_change("d", None), Some("d".to_owned()));
    }
}
