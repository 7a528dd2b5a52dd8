//! `Root::open`: what stands at the root decides the refusal.

use std::os::unix::fs::PermissionsExt;

use asv_fs::{Error, Root};

use crate::common;

#[test]
fn a_missing_root_a_file_and_an_unreachable_root_are_told_apart() {
    let dir = tempfile::tempdir().unwrap();
    assert!(Root::open(dir.path()).is_ok());
    let missing = dir.path().join("missing");
    assert!(matches!(
        Root::open(&missing),
        Err(Error::RootMissing { .. })
    ));
    let file = dir.path().join("file");
    std::fs::write(&file, "x").unwrap();
    assert!(matches!(
        Root::open(&file),
        Err(Error::RootNotDirectory { .. })
    ));
    // A directory behind one this user may not search: a permission problem, not "missing".
    // Root searches every directory, so the row needs an unprivileged user (.ci/run runs the
    // `open::` tests once more as one).
    if common::is_root() {
        return;
    }
    let locked = dir.path().join("locked");
    std::fs::create_dir_all(locked.join("repo")).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let opened = Root::open(locked.join("repo"));
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    match opened {
        Err(e @ Error::Io { .. }) => {
            let message = e.to_string();
            assert!(message.contains("cannot open the directory"), "{message}");
            assert!(message.contains("ermission denied"), "{message}");
        }
        other => panic!("expected an I/O refusal, got {other:?}"),
    }
}
