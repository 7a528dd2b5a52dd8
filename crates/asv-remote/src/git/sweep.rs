//! The temporary directories killed runs left: told by the process id in their names, swept
//! by the next source of this user.

use std::path::{Path, PathBuf};

use super::{GROUP_MARK, TEMP_PREFIX};
use crate::platform;

/// The process id a temporary directory's name holds (`agentic-skill-git-<pid>-<random>`);
/// `None` for another name (one made by an earlier version, without the id).
pub(super) fn creator_of(name: &str) -> Option<u32> {
    let (pid, random) = name.strip_prefix(TEMP_PREFIX)?.split_once('-')?;
    if random.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// Whether the temporary directory `dir` holds a [`GROUP_MARK`] of a process group that may
/// still run (or cannot be listed, which keeps it too).
#[allow(clippy::disallowed_methods)]
fn marked_live(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return true;
    };
    entries.flatten().any(|entry| {
        entry
            .file_name()
            .to_str()
            .and_then(|n| n.strip_prefix(GROUP_MARK))
            .and_then(|group| group.parse::<u32>().ok())
            .is_some_and(platform::group_lives)
    })
}

/// Removes from `parent` (the OS temporary directory) every temporary directory of this
/// transport that a killed run left: named `agentic-skill-git-<pid>-<random>`, a directory
/// (not a link), owned by the user this process runs as, whose creator process `<pid>` is
/// gone, and not kept for a process group that may still write in it ([`GROUP_MARK`]). A
/// run that ends normally removes its own directory; one killed cannot, and without this
/// each such run would leave a repository of up to [`REPOSITORY_LIMIT`] behind (issue 27
/// §6). Names without a process id (an earlier version's) are left alone: nothing tells
/// whether their run still goes on. Best effort: what cannot be listed or removed stays, and
/// the new run goes on. Returns the directories removed.
// The OS temporary directory is no user tree: asv_fs::Root, which guards a repository, does
// not apply. `remove_dir_all` removes links, never what they point at.
#[allow(clippy::disallowed_methods)]
pub(crate) fn sweep_stale(parent: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(parent) else {
        return removed;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(creator_of) else {
            continue;
        };
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_dir()
            || !platform::is_own(&meta)
            || pid == platform::this_process()
            || platform::process_lives(pid)
            || marked_live(&path)
        {
            continue;
        }
        if std::fs::remove_dir_all(&path).is_ok() {
            removed.push(path);
        }
    }
    removed
}
