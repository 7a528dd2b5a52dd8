//! Turning report values into output: compatibility lines, JSON lines or GitHub annotations.
//!
//! Every line a command prints is first a [`line::Line`] — its level, kind, path, contract id,
//! line number and message — from which the text form (`<kind>: <message>`) and the GitHub
//! annotation are rendered. In `--format json` a line is one serde serialisation of a record:
//! those five shared fields, then the fields of the command's own ([`records`]; docs/JSON.md
//! lists every kind and its fields, and a test holds the output to that page).
//!
//! By what is rendered: [`line`] (the shared line, its forms and escaping), [`records`] (the
//! JSON fields of each command), [`contracts`] and [`skills`] (each side's lines), [`warnings`]
//! (what goes to stderr beside the report).

mod audit;
pub mod capabilities;
mod contracts;
mod line;
mod records;
pub mod sarif;
mod skills;
pub mod warnings;

pub use audit::{
    AuditTally, allowed_entry, audit_finding, audit_summary, gated_finding, refused_findings,
};
pub use contracts::{checked, event, interrupted, made, refusal, violation, violation_at};
pub use line::grouped;
pub use skills::{
    added, agent_skill, diff, discovered, finding, hash, installed, installed_one, listed,
    outdated, pack_signed, packed, planned, pull_warning, pulled, removed, resolved,
    signature_accepted, skill_problem, status, synced,
};

#[cfg(test)]
mod tests {
    use super::line::{files, size};
    use super::*;
    use crate::cli::Format;
    use asv_contracts::Violation;
    use asv_skills::pull::Pulled;

    #[test]
    fn sizes_and_counts_read_as_english() {
        assert_eq!(size(0), "0 bytes");
        assert_eq!(size(1), "1 byte");
        assert_eq!(size(999), "999 bytes");
        assert_eq!(size(1_000), "1.0 kB (1,000 bytes)");
        assert_eq!(size(13_393_373), "13.4 MB (13,393,373 bytes)");
        assert_eq!(size(2_500_000_000), "2.5 GB (2,500,000,000 bytes)");
        assert_eq!(files(1), "1 file");
        assert_eq!(files(1485), "1,485 files");
    }

    #[test]
    fn github_annotations_escape_what_would_break_them() {
        let v = Violation::Extra {
            path: "skills/a,b/references/vendor/x:y%.md".into(),
        };
        assert_eq!(
            violation(Format::Github, &v),
            "::error file=skills/a%2Cb/references/vendor/x%3Ay%25.md,title=extra::skills/a,b/references/vendor/x:y%25.md answers to no declaration"
        );
    }

    #[test]
    fn json_lines_carry_kind_path_id_message() {
        let v = Violation::Lock { missing: true };
        assert_eq!(
            violation(Format::Json, &v),
            r#"{"kind":"lock","path":"vendor-lock.json","id":null,"line":null,"message":"vendor-lock.json is missing"}"#
        );
    }

    #[test]
    fn diff_lines_are_coloured_by_the_kind_they_were_made_as() {
        use crate::style::{DiffPart, Paint};
        use asv_skilltree::{FileNode, SkillTree};
        let tree = |data: &str| {
            SkillTree::from_files(vec![FileNode {
                path: "SKILL.md".into(),
                data: data.into(),
                executable: false,
            }])
            .unwrap()
        };
        let unified = asv_skills::diff::unified(
            &tree("fn a\n\n\n\nx\n-- y\n"),
            &tree("fn a\n\n\n\nx\n+z"),
            "skills/s",
        )
        .unwrap();
        let unified = asv_skills::diff::Compared {
            unified,
            capabilities: Default::default(),
        };
        // With colour off, the lines are the diff's text, line by line.
        let off = diff(Format::Text, Paint::OFF, "s", "base", "local", &unified);
        assert_eq!(format!("{}\n", off.join("\n")), unified.unified.to_string());
        let on = Paint::decide(crate::cli::ColorChoice::Always, None, None, false);
        let header = |t: &str| on.diff(DiffPart::Header, t);
        assert_eq!(
            diff(Format::Text, on, "s", "base", "local", &unified),
            [
                header("diff --git a/skills/s/SKILL.md b/skills/s/SKILL.md"),
                header("--- a/skills/s/SKILL.md"),
                header("+++ b/skills/s/SKILL.md"),
                format!("{} fn a", on.diff(DiffPart::Ranges, "@@ -3,4 +3,4 @@")),
                " ".to_owned(),
                " ".to_owned(),
                " x".to_owned(),
                // A removed line that reads like a file header is still a removed line.
                on.diff(DiffPart::Removed, "--- y"),
                on.diff(DiffPart::Added, "++z"),
                "\\ No newline at end of file".to_owned(),
            ]
        );
        // Annotations and JSON are never coloured.
        assert_eq!(
            diff(Format::Github, on, "s", "base", "local", &unified),
            off
        );
    }

    #[test]
    fn pulled_lines_say_what_happened() {
        let rows: Vec<(Pulled, Vec<&str>)> = vec![
            (
                Pulled::UpToDate {
                    name: "pdf".to_owned(),
                    revision: "r1".to_owned(),
                },
                vec!["pdf: up to date at r1"],
            ),
            (
                Pulled::Updated {
                    name: "pdf".to_owned(),
                    from: "r1".to_owned(),
                    to: "r2".to_owned(),
                    kept_local: true,
                    lost_base: None,
                    warnings: vec![],
                    capabilities: None,
                },
                vec!["pdf: updated r1 -> r2 (local edits kept)"],
            ),
            (
                Pulled::RemovedUpstream {
                    name: "pdf".to_owned(),
                    revision: "r2".to_owned(),
                    modified: false,
                },
                vec![
                    "pdf: removed upstream at r2; kept skills/pdf — remove it yourself if it should go",
                ],
            ),
        ];
        for (pulled, want) in rows {
            assert_eq!(skills::pulled(Format::Text, &pulled), want);
            assert!(!pulled.is_conflict());
            assert_eq!(skills::pull_warning(&pulled), None);
        }
        let lost = Pulled::Conflicts {
            name: "pdf".to_owned(),
            revision: "r2".to_owned(),
            conflicts: vec![],
            written: true,
            lost_base: Some("BASE".to_owned()),
            capabilities: None,
        };
        assert_eq!(
            skills::pulled(Format::Text, &lost),
            [
                "pdf: 0 conflicts with upstream r2; written with markers: edit them, then run skill resolve pdf"
            ]
        );
        assert_eq!(
            skills::pull_warning(&lost).unwrap(),
            "pdf: the base is not in BASE and its local directory source cannot give it again, so the merge was made without one: a file that differs, or that only one side holds, is a conflict"
        );
    }
}
