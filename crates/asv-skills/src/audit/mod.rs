//! `skill audit`: every file of each skill read (never following a link, as every read of a
//! skill is) and handed whole to the audit rules (`asv-audit`), the skills on every core.
//!
//! Findings come back in the order the skills were named and, within a skill, sorted by path
//! and place, so a run prints the same lines whatever the scheduling.

pub mod allow;
pub mod capabilities;

use asv_audit::{Report, SkillFile};
use asv_fs::Root;
use asv_skilltree::SkillTree;
use rayon::prelude::*;

use crate::error::Error;

/// One skill's audit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Audited {
    /// The skill's directory under the root (`skills/pdf`).
    pub dir: String,
    /// What the rules found, each finding's path relative to `dir`.
    pub report: Report,
}

/// Audits the skill at `dir` of `root`: every file read whole (a file over
/// [`asv_audit::MAX_SCANNED_BYTES`] is a `file/too-large` finding and is not read).
///
/// # Errors
/// A refusal of the read: a link, FIFO or device in the skill, a file that changed while read.
pub fn audit_dir(root: &Root, dir: &str) -> Result<Report, Error> {
    let tree = SkillTree::read(root, dir)?;
    audit_tree(&tree)
}

/// Audits a skill already read.
///
/// # Errors
/// A file the read left on disk that changed since.
pub fn audit_tree(tree: &SkillTree) -> Result<Report, Error> {
    let mut too_large = Vec::new();
    let mut held = Vec::with_capacity(tree.files().len());
    for f in tree.files() {
        if f.data.len() > asv_audit::MAX_SCANNED_BYTES {
            too_large.push(asv_audit::too_large(&f.path, f.data.len()));
            continue;
        }
        held.push((f.path.as_str(), f.data.read()?, f.executable));
    }
    let mut report =
        asv_audit::scan_skill(held.iter().map(|(path, bytes, executable)| SkillFile {
            path,
            bytes,
            executable: *executable,
        }));
    if !too_large.is_empty() {
        report
            .files
            .extend(too_large.iter().map(|f| f.path.clone()));
        report.findings.extend(too_large);
        report.findings.sort();
    }
    Ok(report)
}

/// The directory of every skill under `skills/` (`skills/<name>`), by name.
///
/// # Errors
/// A refusal of the read of `skills/`.
pub fn every_skill_dir(root: &Root) -> Result<Vec<String>, Error> {
    let mut names = crate::paths::skill_names(root)?;
    names.sort();
    Ok(names.iter().map(|n| crate::skill_dir(n)).collect())
}

/// Audits every skill of `dirs` (directories under `root`), on every core, in the order
/// given.
///
/// # Errors
/// The first refusal in that order.
pub fn audit_dirs(root: &Root, dirs: &[String]) -> Result<Vec<Audited>, Error> {
    dirs.par_iter()
        .map(|dir| {
            audit_dir(root, dir).map(|report| Audited {
                dir: dir.clone(),
                report,
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skill_on_disk_is_audited_file_by_file_in_the_order_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        root.write_file(
            "skills/a/SKILL.md",
            b"---\nname: a\ndescription: A.\n---\nSee http://10.1.2.3/x\n",
        )
        .unwrap();
        root.write_file(
            "skills/b/SKILL.md",
            b"---\nname: b\ndescription: B.\n---\nclean\n",
        )
        .unwrap();
        let got = audit_dirs(&root, &["skills/b".into(), "skills/a".into()]).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].dir, "skills/b");
        assert!(got[0].report.findings.is_empty());
        let rules: Vec<&str> = got[1].report.findings.iter().map(|f| f.rule.id()).collect();
        assert_eq!(rules, ["net/url"]);
        assert!(got[1].report.capabilities.hosts.contains("10.1.2.3"));
    }
}
