//! Every call of this crate that depends on the operating system: how a git process is put in
//! a group of its own, watched, and killed with everything it started (docs/PORTABILITY.md).
//!
//! On Linux the process also makes itself a child subreaper, so that git's own children,
//! orphaned when their group is killed, come back to it to be reaped; elsewhere, and on Linux
//! with the cargo feature `portable` (so that the code a macOS user runs is the code tested
//! here), it does not, and orphans go to the system's init, which reaps them. On Windows
//! (`cfg(not(unix))`, never compiled on this project's machines) there are no process groups:
//! git alone is watched and killed.

use std::process::{Child, Command};
use std::time::Instant;

/// Marks this process a child subreaper (Linux), once: children of a killed git are handed
/// back here to be reaped, so their process group can be seen to end.
#[cfg(all(
    any(target_os = "linux", target_os = "android"),
    not(feature = "portable")
))]
pub(crate) fn become_subreaper() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // Failing leaves orphans to PID 1; a group that then lingers is reported, not hidden.
        let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    });
}

/// No subreaper here: orphans of a killed git go to the system's init.
#[cfg(not(all(
    any(target_os = "linux", target_os = "android"),
    not(feature = "portable")
)))]
pub(crate) fn become_subreaper() {}

/// Starts the command's process in a new process group of its own (its id is the process's).
#[cfg(unix)]
pub(crate) fn in_own_group(command: &mut Command) {
    use std::os::unix::process::CommandExt as _;
    command.process_group(0);
}

/// Whether `child` has ended, without reaping it: while the leader is unreaped its id cannot
/// be reused, so its group can be signalled safely. `Err` when it cannot be watched.
#[cfg(unix)]
pub(crate) fn has_ended(child: &mut Child) -> Result<bool, ()> {
    use rustix::io::Errno;
    use rustix::process::{Pid, WaitId, WaitIdOptions};
    match rustix::process::waitid(
        WaitId::Pid(Pid::from_child(&*child)),
        WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT,
    ) {
        Ok(Some(_)) => Ok(true),
        Ok(None) | Err(Errno::INTR) => Ok(false),
        Err(_) => Err(()),
    }
}

/// Blocks until the process `pid` (a child of this process) has ended, without reaping it;
/// returns at once when it cannot be waited for (already reaped, say).
#[cfg(unix)]
pub(crate) fn wait_ended(pid: u32) {
    use rustix::io::Errno;
    use rustix::process::{Pid, WaitId, WaitIdOptions};
    let Some(pid) = i32::try_from(pid).ok().and_then(Pid::from_raw) else {
        return;
    };
    loop {
        match rustix::process::waitid(
            WaitId::Pid(pid),
            WaitIdOptions::EXITED | WaitIdOptions::NOWAIT,
        ) {
            Err(Errno::INTR) => {}
            _ => return,
        }
    }
}

/// Nothing to block on here: the caller looks again after a nap.
#[cfg(not(unix))]
pub(crate) fn wait_ended(_pid: u32) {}

/// Kills `child`'s whole process group (the leader is still running or an unreaped zombie, so
/// the group id is still this group's).
#[cfg(unix)]
pub(crate) fn kill_group(child: &mut Child) {
    let _ = rustix::process::kill_process_group(
        rustix::process::Pid::from_child(&*child),
        rustix::process::Signal::KILL,
    );
}

/// Kills the process group `group` (a signal is ending the run: see `interrupt`).
#[cfg(unix)]
pub(crate) fn kill_group_id(group: u32) {
    if let Some(group) = i32::try_from(group)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
}

/// Whether the process group of `child` (its leader already reaped) is gone by `deadline`:
/// what is left of it that was handed to this process is reaped here until no member answers.
#[cfg(unix)]
pub(crate) fn group_gone(child: &Child, deadline: Instant) -> bool {
    use rustix::io::Errno;
    use rustix::process::{Pid, WaitId, WaitIdOptions};
    let group = Pid::from_child(child);
    loop {
        // Reap members orphaned to this process; only this group's, never another child.
        while let Ok(Some(_)) = rustix::process::waitid(
            WaitId::Pgid(Some(group)),
            WaitIdOptions::EXITED | WaitIdOptions::NOHANG,
        ) {}
        match rustix::process::test_kill_process_group(group) {
            Err(Errno::SRCH) => return true,
            _ if Instant::now() >= deadline => return false,
            _ => std::thread::sleep(std::time::Duration::from_millis(5)),
        }
    }
}

/// Whether the process `pid` may still run: `kill(pid, 0)` finds it (or is not allowed to
/// signal it, which also means it is there). A sweep of stale temporary directories removes
/// only what a process that is surely gone left.
#[cfg(unix)]
pub(crate) fn process_lives(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        // Not a process id at all: no process of it can run.
        return false;
    };
    !matches!(
        rustix::process::test_kill_process(pid),
        Err(rustix::io::Errno::SRCH)
    )
}

/// Whether a process of the group `group` may still run (as [`process_lives`]).
#[cfg(unix)]
pub(crate) fn group_lives(group: u32) -> bool {
    let Some(group) = i32::try_from(group)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    !matches!(
        rustix::process::test_kill_process_group(group),
        Err(rustix::io::Errno::SRCH)
    )
}

/// Whether the entry `meta` describes belongs to the user this process runs as.
#[cfg(unix)]
pub(crate) fn is_own(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    meta.uid() == rustix::process::geteuid().as_raw()
}

/// This process's id, as temporary directories are named with it.
pub(crate) fn this_process() -> u32 {
    std::process::id()
}

/// Without `kill(pid, 0)` no process can be known gone: every one may still run.
#[cfg(not(unix))]
pub(crate) fn process_lives(_pid: u32) -> bool {
    true
}

/// As [`process_lives`], for a process group.
#[cfg(not(unix))]
pub(crate) fn group_lives(_group: u32) -> bool {
    true
}

/// No owner to compare on Windows: nothing is taken for one's own.
#[cfg(not(unix))]
pub(crate) fn is_own(_meta: &std::fs::Metadata) -> bool {
    false
}

/// No process groups on Windows: the command runs as it is.
#[cfg(not(unix))]
pub(crate) fn in_own_group(_command: &mut Command) {}

/// Whether `child` has ended (on Windows its handle keeps its id from reuse even once reaped).
#[cfg(not(unix))]
pub(crate) fn has_ended(child: &mut Child) -> Result<bool, ()> {
    child.try_wait().map(|s| s.is_some()).map_err(|_| ())
}

/// Kills `child` (what it started itself is not reached on Windows).
#[cfg(not(unix))]
pub(crate) fn kill_group(child: &mut Child) {
    let _ = child.kill();
}

/// Git alone is watched on Windows: once it is reaped, it is gone.
#[cfg(not(unix))]
pub(crate) fn group_gone(_child: &Child, _deadline: Instant) -> bool {
    true
}

#[cfg(test)]
mod tests {
    /// The CI runs the suite twice and says which build it expects: this proves the feature
    /// really reached this crate in the `portable` run (`.ci/run`).
    #[test]
    fn the_build_is_the_one_ci_asked_for() {
        let expected = match std::env::var("ASV_EXPECT_PORTABLE").as_deref() {
            Ok("1") => true,
            Ok("0") => false,
            _ => return,
        };
        assert_eq!(cfg!(feature = "portable"), expected, "the portable feature");
    }
}
