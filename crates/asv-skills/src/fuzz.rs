//! The bodies of the `skill_md`, `skill_lock` and `intent` fuzz targets (`fuzz/` at the
//! repository root), kept here so the cargo-fuzz targets and the stable replay of their
//! committed corpora run the same code. Not part of the crate's interface.

use asv_skilltree::{FileNode, SKILL_MANIFEST, SkillTree};

use crate::intent::{Intent, Wanted, with_row, without_row};
use crate::lock::SkillLock;

/// Arbitrary bytes as a skill's `SKILL.md`: the frontmatter split and declarations as every
/// command reads them ([`asv_model::fuzz::frontmatter`]), then every rule `skill validate`
/// applies. A finding is fine, a panic is a bug.
///
/// # Panics
/// As [`asv_model::fuzz::frontmatter`].
pub fn skill_md(data: &[u8]) {
    asv_model::fuzz::frontmatter(data);
    // Bytes in memory: neither making the tree nor judging it reads anything.
    let Ok(tree) = SkillTree::from_files(vec![FileNode {
        path: SKILL_MANIFEST.to_owned(),
        data: data.into(),
        executable: false,
    }]) else {
        return;
    };
    for finding in crate::validate_tree(&tree, "skills/fuzz").unwrap_or_default() {
        let _ = finding.location();
    }
    let _ = crate::manifest_name(&tree);
}

/// Arbitrary bytes as `vendor-skills-lock.json`.
///
/// # Panics
/// When an accepted lock, written out as the skill commands write it, does not read back as
/// the same lock.
pub fn skill_lock(data: &[u8]) {
    let Ok(lock) = SkillLock::parse(data) else {
        return;
    };
    let text = lock.render();
    match SkillLock::parse(text.as_bytes()) {
        Ok(again) => assert_eq!(again, lock, "the written lock reads back differently"),
        Err(e) => panic!("the written lock is refused: {e}\n{text}"),
    }
}

/// The row the `intent` target adds to and takes out of every accepted file.
const ROW: &str = "fuzz-row";

/// Arbitrary bytes as `vendor-skills.yaml`.
///
/// # Panics
/// When a line edit of an accepted file (`skill add` recording a row, `skill remove` taking it
/// out) leaves a file that does not read back as the edit meant: the row there (or gone) as
/// given, every other row and the targets as they were.
pub fn intent(data: &[u8]) {
    let Ok(before) = Intent::parse(data) else {
        return;
    };
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let wanted = Wanted {
        source: "owner/repo".to_owned(),
        path: "skills/fuzz".to_owned(),
        reference: Some("main".to_owned()),
        signed_by: None,
    };
    let mut others = before.skills.clone();
    others.remove(ROW);
    if let Ok(added) = with_row(Some(text), ROW, &wanted) {
        let after = match Intent::parse(added.as_bytes()) {
            Ok(after) => after,
            Err(e) => panic!("the file with a row added is refused: {e}\n{added}"),
        };
        assert_eq!(
            after.skills.get(ROW),
            Some(&wanted),
            "the added row\n{added}"
        );
        let mut rest = after.skills.clone();
        rest.remove(ROW);
        assert_eq!(rest, others, "the other rows after an add\n{added}");
        assert_eq!(
            after.targets, before.targets,
            "the targets after an add\n{added}"
        );
    }
    if let Ok(removed) = without_row(text, ROW) {
        let after = match Intent::parse(removed.as_bytes()) {
            Ok(after) => after,
            Err(e) => panic!("the file with a row taken out is refused: {e}\n{removed}"),
        };
        assert_eq!(after.skills, others, "the rows after a removal\n{removed}");
        assert_eq!(
            after.targets, before.targets,
            "the targets after a removal\n{removed}"
        );
    }
}

#[cfg(test)]
mod tests {
    /// Every committed corpus file of the `skill_md`, `skill_lock` and `intent` targets, replayed: none may panic (fuzz/README.md).
    #[test]
    fn fuzz_corpora_replay_without_panic() {
        asv_fs::corpus::replay_fuzz_corpus("skill_md", &super::skill_md);
        asv_fs::corpus::replay_fuzz_corpus("skill_lock", &super::skill_lock);
        asv_fs::corpus::replay_fuzz_corpus("intent", &super::intent);
    }
}
