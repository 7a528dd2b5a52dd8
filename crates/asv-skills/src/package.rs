//! `skill pack`: a skill as the reproducible ZIP the skill upload surfaces take.
//!
//! The ZIP holds one folder named for the skill with the skill's files inside (`pdf/SKILL.md`,
//! `pdf/scripts/run.sh`), which is the layout claude.ai's upload and the Skills API read. The
//! bytes depend only on the files: entries sorted, fixed timestamps, fixed modes (`0644`, or
//! `0755` for an executable file), so the same skill packs to the same ZIP on every machine.

use asv_archive::{FileEntry, zip_files_owned};
use asv_fs::Root;
use asv_model::progress::Progress;
use asv_skilltree::SkillTree;

use crate::error::Error;
use crate::validate::refuse_errors;
use crate::{Finding, Problem, Rule, validate_tree};

/// Past this size a ZIP is over what a claude.ai upload takes (8 MiB, the figure the
/// claude.ai surface has been documented with): packing warns.
pub const UPLOAD_LIMIT: u64 = 8 * 1024 * 1024;
/// Past this many bytes of files (all files combined, uncompressed) a skill is over what the
/// Skills API accepts (30 MB): packing refuses.
pub const API_LIMIT: u64 = 30 * 1024 * 1024;
/// How a refusal names [`API_LIMIT`].
const API_LIMIT_WHAT: &str = "the Skills API accepts";

/// A packed skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packed {
    /// The skill's name (its directory's name).
    pub name: String,
    /// The ZIP.
    pub zip: Vec<u8>,
    /// How many files it holds.
    pub files: usize,
    /// The skill's tree hash.
    pub hash: String,
    /// Warnings: of the Agent Skills rules, and a size past [`UPLOAD_LIMIT`].
    pub warnings: Vec<Finding>,
}

/// Packs the skill directory `dir` of `root`: reads it as [`SkillTree::read`] does, checks it
/// against the Agent Skills rules, and zips it under a folder of its name, telling `progress`
/// as the files are read and while they are compressed.
///
/// # Errors
/// [`Error::Missing`] when nothing stands at `dir`, [`Error::Fs`] when a link or another kind
/// of entry does; [`Error::SkillTree`] for a link or special file in the skill;
/// [`Error::Invalid`] for a skill that breaks the rules; [`Error::TooLarge`] when its files
/// hold more than [`API_LIMIT`] bytes; [`Error::Archive`] for a ZIP the writer refuses.
///
/// # Example
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let root = asv_fs::Root::open(dir.path())?;
/// root.write_file("skills/pdf/SKILL.md", b"---\nname: pdf\ndescription: Reads PDFs.\n---\n")?;
/// let none = asv_model::progress::Progress::none();
/// let packed = asv_skills::package::pack(&root, "skills/pdf", &none)?;
/// assert_eq!(packed.zip, asv_skills::package::pack(&root, "skills/pdf", &none)?.zip);
/// # Ok(())
/// # }
/// ```
pub fn pack(root: &Root, dir: &str, progress: &Progress) -> Result<Packed, Error> {
    let dir = dir.trim_end_matches('/');
    crate::paths::require_dir(root, dir)?;
    // Refused before a file past the limit is read, so packing never holds more than the
    // Skills API takes (issue 15 §3).
    let tree =
        SkillTree::read_capped(root, dir, API_LIMIT, API_LIMIT_WHAT).map_err(|e| match e {
            asv_skilltree::Error::TooLarge { size, limit, .. } => Error::TooLarge {
                path: dir.to_owned(),
                size,
                limit,
            },
            other => other.into(),
        })?;
    crate::paths::refuse_residue(tree.files().iter().map(|f| f.path.as_str()), dir)?;
    let mut warnings = refuse_errors(validate_tree(&tree, dir)?, crate::error::Remedy::FixLocal)?;
    let name = dir.rsplit('/').next().unwrap_or(dir).to_owned();
    let hash = tree.hash();
    // The files move into the entries: a skill's bytes are held once, not twice (issue 16);
    // files the read left on disk are read here, the pack being capped at the Skills API's
    // limit.
    let step = progress.step(
        &format!("{dir}: reading {} files", tree.files().len()),
        Some(tree.files().len() as u64),
    );
    let entries = tree
        .into_files()
        .into_iter()
        .map(|f| {
            step.advance(1);
            Ok(FileEntry {
                path: format!("{name}/{}", f.path),
                bytes: f.data.into_bytes()?,
                executable: f.executable,
            })
        })
        .collect::<Result<Vec<FileEntry>, asv_skilltree::Error>>()?;
    let total: u64 = entries.iter().map(|e| e.bytes.len() as u64).sum();
    if total > API_LIMIT {
        return Err(Error::TooLarge {
            path: dir.to_owned(),
            size: total,
            limit: API_LIMIT,
        });
    }
    drop(step);
    let files = entries.len();
    // Compression is the bulk of a large pack, and its length cannot be told ahead.
    let step = progress.step(&format!("{dir}: compressing {files} files"), None);
    // Each file's bytes are let go once its entry is in the ZIP, so the skill and its ZIP are
    // not held whole side by side (issue 15 §3).
    let zip = zip_files_owned(entries)?;
    drop(step);
    let size = zip.len() as u64;
    if size > UPLOAD_LIMIT {
        warnings.push(Finding::new(
            Rule::UploadTooLarge,
            dir,
            None,
            Problem::UploadTooLarge {
                size,
                upload_limit: UPLOAD_LIMIT,
                api_limit: API_LIMIT,
            },
        ));
    }
    Ok(Packed {
        name,
        files,
        hash,
        zip,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes no compressor shrinks (xorshift), so the ZIP is as large as the file.
    fn noise(len: usize) -> Vec<u8> {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    #[test]
    fn a_pack_over_the_upload_limit_warns_with_its_rule() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        root.write_file(
            "skills/big/SKILL.md",
            b"---\nname: big\ndescription: Large.\n---\n",
        )
        .unwrap();
        root.write_file("skills/big/data.bin", &noise(UPLOAD_LIMIT as usize + 1024))
            .unwrap();
        let packed = pack(&root, "skills/big", &Progress::none()).unwrap();
        assert!(packed.zip.len() as u64 > UPLOAD_LIMIT);
        let rules: Vec<(Rule, &str)> = packed
            .warnings
            .iter()
            .map(|f| (f.rule, f.path.as_str()))
            .collect();
        assert_eq!(rules, [(Rule::UploadTooLarge, "skills/big")]);
        assert_eq!(packed.warnings[0].severity, crate::Severity::Warning);
    }
}
