//! `Fill::Link`: a destination replaced by a symbolic link, staged and swapped like any other
//! fill, and put back byte for byte when the apply fails at any call.

use crate::common;
use common::ApplyLocked as _;

use asv_fs::apply::FaultPlan;
use asv_fs::{Change, Fill, Ownership, Plan, Root};
use common::{put, snapshot};
use rustix::io::Errno;

#[test]
fn a_link_fill_creates_and_replaces() {
    let dir = tempfile::tempdir().unwrap();
    let root = Root::open(dir.path()).unwrap();
    put(dir.path(), "work/pdf/SKILL.md", b"dev copy\n");
    put(dir.path(), ".claude/skills/old/SKILL.md", b"old\n");
    let plan = Plan::new(
        &root,
        vec![
            Change::replace(
                ".claude/skills/pdf",
                Fill::link("../../work/pdf"),
                Ownership::MustBeFree,
            ),
            Change::replace(
                ".claude/skills/old",
                Fill::link("../../work/pdf"),
                Ownership::Force,
            ),
        ],
    )
    .unwrap();
    assert_eq!(
        plan.describe(),
        "replace .claude/skills/old (forced)\ncreate .claude/skills/pdf\n"
    );
    plan.apply_locked().unwrap();
    for dest in [".claude/skills/pdf", ".claude/skills/old"] {
        let path = dir.path().join(dest);
        assert_eq!(
            std::fs::read_link(&path).unwrap(),
            std::path::Path::new("../../work/pdf")
        );
        assert_eq!(std::fs::read(path.join("SKILL.md")).unwrap(), b"dev copy\n");
    }
    // the tool's own reads still refuse what it made
    assert!(root.read_file(".claude/skills/pdf/SKILL.md").is_err());
    // an empty target is refused at planning
    assert!(
        Plan::new(
            &root,
            vec![Change::replace("x", Fill::link(""), Ownership::Force)]
        )
        .is_err()
    );
}

#[test]
fn a_failing_link_fill_leaves_everything_as_it_was() {
    let mut n = 0;
    loop {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        put(dir.path(), "work/pdf/SKILL.md", b"dev\n");
        put(dir.path(), "skills/pdf/SKILL.md", b"installed\n");
        put(dir.path(), "skills/csv/SKILL.md", b"csv\n");
        let before = snapshot(dir.path());
        let plan = Plan::new(
            &root,
            vec![
                Change::replace("skills/pdf", Fill::link("../work/pdf"), Ownership::Force),
                Change::remove("skills/csv", Ownership::Force),
            ],
        )
        .unwrap()
        .with_faults(FaultPlan::new().fail_call(n, Errno::NOSPC.raw_os_error()));
        match plan.apply_locked() {
            Err(_) => {
                assert_eq!(snapshot(dir.path()), before, "fault at call {n}");
                n += 1;
            }
            Ok(applied) => {
                // past the commit point a fault only leaves a parked entry behind
                if applied.warnings().is_empty() {
                    assert!(n > 3, "the apply made only {n} calls");
                    break;
                }
                n += 1;
            }
        }
        assert!(n < 200, "no clean apply");
    }
}
