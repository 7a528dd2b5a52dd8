//! The body of the `audit_scanner` fuzz target (fuzz/), kept here so its corpus replays on
//! stable with this crate's tests.

use crate::scan::{Gate, SkillFile, scan_skill, scan_skill_with};

/// Audits `data` as `SKILL.md`, as a script and as Markdown, checking what must hold for
/// any input: no panic, findings sorted, every position inside the text, excerpts bounded,
/// and the same report with every pattern run as with each run only where its words are.
pub fn audit(data: &[u8]) {
    for (path, executable) in [
        ("SKILL.md", false),
        ("run.sh", true),
        ("docs/notes.md", false),
    ] {
        let file = SkillFile {
            path,
            bytes: data,
            executable,
        };
        let report = scan_skill([file]);
        assert_eq!(
            report,
            scan_skill_with([file], Gate::Open),
            "the keyword gate changed the report"
        );
        let lines = data.iter().filter(|&&b| b == b'\n').count() + 1;
        let mut sorted = report.findings.clone();
        sorted.sort();
        assert_eq!(sorted, report.findings);
        for f in &report.findings {
            assert!(
                f.line >= 1 && f.line as usize <= lines,
                "line {} of {lines}",
                f.line
            );
            assert!(f.column >= 1);
            assert!(f.excerpt.chars().count() <= crate::finding::EXCERPT_CHARS * 10 + 40);
            assert_eq!(f.fingerprint.len(), 64);
        }
    }
}

#[cfg(test)]
mod tests {
    /// Every committed input of the `audit_scanner` target's corpus replays (fuzz/README.md).
    #[test]
    fn the_fuzz_corpus_replays() {
        asv_fs::corpus::replay_fuzz_corpus("audit_scanner", &super::audit);
    }
}
