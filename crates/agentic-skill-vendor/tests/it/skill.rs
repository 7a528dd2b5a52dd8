//! `skill validate` and `skill hash` on the real binary.
#![allow(clippy::disallowed_methods)]

use crate::common::{Repo, Run, assert_run_snapshot, run_bin};

#[test]
fn the_demo_skills_are_valid() {
    assert_eq!(
        Repo::demo().run(&["skill", "validate"]),
        Run {
            code: 0,
            stdout: String::new(),
            stderr: String::new()
        }
    );
}

#[test]
fn errors_fail_and_warnings_fail_only_when_strict() {
    let repo = Repo::empty();
    repo.write(
        "skills/good/SKILL.md",
        "---\nname: good\ndescription: Does good.\nextra: 1\n---\n",
    );
    assert_run_snapshot!("validate_warning", repo.run(&["skill", "validate"]));
    assert_eq!(repo.run(&["skill", "validate", "--strict"]).code, 1);
    repo.write("skills/bad/skill.md", "---\nname: bad\n---\n");
    assert_run_snapshot!(
        "validate_error",
        repo.run(&["skill", "validate", "skills/bad"])
    );
}

#[test]
fn hash_matches_the_spec_vector() {
    // vectors.json "exec-bit-counts": run.sh = "#!/bin/sh\n", executable.
    let repo = Repo::empty();
    repo.write("s/run.sh", "#!/bin/sh\n");
    repo.write("s/.DS_Store", "ignored");
    std::fs::set_permissions(
        repo.join("s/run.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    assert_eq!(
        run_bin(
            &[
                "skill".into(),
                "hash".into(),
                repo.join("s").display().to_string()
            ],
            None
        ),
        Run {
            code: 0,
            stdout: "sha256:7c6c667390678e9d67e1b08a9d3e53818cd9bfec97589bee2b8e45dc624c2b16\n"
                .to_owned(),
            stderr: String::new(),
        }
    );
}

/// A finding at a line carries it in every format, and a GitHub annotation's message does not
/// repeat the title.
#[test]
fn findings_carry_their_line_in_every_format() {
    let repo = Repo::empty();
    repo.write(
        "skills/s/SKILL.md",
        "---\nname: s\n--- \ndescription: d\n---\n",
    );
    assert_run_snapshot!("line_in_text", repo.run(&["skill", "validate"]));
    assert_run_snapshot!(
        "line_in_github",
        repo.run(&["skill", "validate", "--format", "github"])
    );
    let json = repo.run(&["skill", "validate", "--format", "json"]);
    assert_run_snapshot!("line_in_json", json);
    let v: serde_json::Value = serde_json::from_str(json.stdout.trim()).expect("json");
    assert_eq!(v["line"], 3);
    assert_eq!(v["path"], "skills/s/SKILL.md");
}
