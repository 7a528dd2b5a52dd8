//! The user install record: what `skill install --scope user` placed in the agents' user
//! directories, kept in the user state directory beside the user lock.
//!
//! A project needs no such record: what `skill install` places there is in the repository,
//! under review like any file. A user directory (`~/.claude/skills`) is not, and `skill sync
//! --scope user` writes into the same directories; the record lets `skill list --target
//! --scope user` say which skills this tool placed, and a user sync leave them alone instead
//! of taking them for someone else's. It is a file of its own, [`INSTALLED_FILE`], so the
//! skill lock's format (shared with every project) stays as it is.
//!
//! ```
//! use asv_skills::installed::{InstalledRecord, Install};
//! let mut record = InstalledRecord::default();
//! let hash = format!("sha256:{}", "a".repeat(64));
//! record.insert(".claude/skills", "pdf", Install {
//!     from: "/home/ann/pdf.zip".into(),
//!     from_digest: hash.clone(),
//!     tree_hash: hash.clone(),
//! });
//! let text = record.render();
//! let back = InstalledRecord::parse(text.as_bytes(), "installed.json")?;
//! assert_eq!(back, record);
//! assert_eq!(back.get(".claude/skills", "pdf").map(|i| i.from.as_str()), Some("/home/ann/pdf.zip"));
//! # Ok::<(), asv_skills::Error>(())
//! ```

use std::collections::BTreeMap;

use asv_fs::{Change, Disowned, During, EntryKind, Ownership, Root, Verdict};
use serde::{Deserialize, Serialize};

use crate::error::{Error, InstalledProblem};
use crate::lock::is_tree_hash;

/// The record's file name, in the user state directory.
pub const INSTALLED_FILE: &str = "vendor-skills-installed.json";

/// The record format this build writes and reads.
pub const VERSION: u32 = 1;

/// The whole record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstalledRecord {
    /// Always [`VERSION`].
    pub version: u32,
    /// Per directory (relative to the home directory, `.claude/skills`, or absolute where an
    /// agent's variable moved it out of the home directory), per skill, what was installed.
    #[serde(default)]
    pub installed: BTreeMap<String, BTreeMap<String, Install>>,
}

impl Default for InstalledRecord {
    fn default() -> Self {
        InstalledRecord {
            version: VERSION,
            installed: BTreeMap::new(),
        }
    }
}

/// One skill `skill install --scope user` placed in one directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Install {
    /// The input it came from, as an absolute path: an archive or a directory.
    pub from: String,
    /// The input's digest when it was installed: the SHA-256 of an archive's bytes, or the
    /// tree hash of a directory input as a whole (`sha256:<hex>` either way).
    pub from_digest: String,
    /// The tree hash of the skill placed.
    pub tree_hash: String,
}

impl InstalledRecord {
    /// Reads the record of `root` (the user state directory); an absent file is an empty
    /// record. `shown` is how a refusal names the file.
    ///
    /// # Errors
    /// [`Error::InstalledRecord`] for a file that is not this format; a guarded-read refusal.
    pub fn load(root: &Root, shown: &str) -> Result<Self, Error> {
        match root.read_file_capped(
            INSTALLED_FILE,
            asv_model::layout::LOCK_LIMIT,
            asv_model::layout::LOCK_LIMIT_WHAT,
        )? {
            None => Ok(InstalledRecord::default()),
            Some(bytes) => Self::parse(&bytes, shown),
        }
    }

    /// Parses the record's bytes: JSON of this format and [`VERSION`], no object holding a
    /// key twice, every directory a plain path ending in `skills`, every name a skill name,
    /// every digest `sha256:` and 64 lowercase hex digits. `shown` names the file.
    ///
    /// # Errors
    /// [`Error::InstalledRecord`], with the line of the key at fault where it is found.
    pub fn parse(bytes: &[u8], shown: &str) -> Result<Self, Error> {
        let refuse = |line: Option<usize>, problem: InstalledProblem| Error::InstalledRecord {
            path: shown.to_owned(),
            line,
            problem,
        };
        let record: InstalledRecord = serde_json::from_slice(bytes)
            .map_err(|e| refuse(None, InstalledProblem::NotValid(e)))?;
        // Accepted by serde_json, so UTF-8.
        let text = std::str::from_utf8(bytes).unwrap_or_default();
        if let Some(twice) = asv_model::json::duplicate_key(text) {
            return Err(refuse(
                Some(twice.line),
                InstalledProblem::Duplicate { path: twice.path },
            ));
        }
        let line = |path: &[&str]| asv_model::json::key_line(text, path);
        if record.version != VERSION {
            return Err(refuse(
                line(&["version"]),
                InstalledProblem::Version {
                    found: record.version,
                    read: VERSION,
                },
            ));
        }
        for (dir, skills) in &record.installed {
            if !is_record_dir(dir) {
                return Err(refuse(
                    line(&["installed", dir]),
                    InstalledProblem::BadDir { dir: dir.clone() },
                ));
            }
            for (name, install) in skills {
                if let Some(problem) = crate::name_problem(name) {
                    return Err(refuse(
                        line(&["installed", dir, name]),
                        InstalledProblem::BadName {
                            dir: dir.clone(),
                            name: name.clone(),
                            problem,
                        },
                    ));
                }
                for (field, value) in [
                    ("treeHash", &install.tree_hash),
                    ("fromDigest", &install.from_digest),
                ] {
                    if !is_tree_hash(value) {
                        return Err(refuse(
                            line(&["installed", dir, name, field]),
                            InstalledProblem::BadHash {
                                dir: dir.clone(),
                                name: name.clone(),
                                field,
                            },
                        ));
                    }
                }
            }
        }
        Ok(record)
    }

    /// The record as written: two-space JSON, keys in a fixed order, one final newline.
    pub fn render(&self) -> String {
        // Cannot fail: string-keyed maps of derived `Serialize` structs of strings and a
        // `u32`, written to a `Vec` (as the skill lock's `render` explains).
        let mut text =
            serde_json::to_string_pretty(self).expect("an install record always renders as JSON");
        text.push('\n');
        text
    }

    /// What was installed as `name` in `dir`, if recorded.
    pub fn get(&self, dir: &str, name: &str) -> Option<&Install> {
        self.installed.get(dir).and_then(|d| d.get(name))
    }

    /// Records `install` as `name` in `dir`, over any earlier record of it.
    pub fn insert(&mut self, dir: &str, name: &str, install: Install) {
        self.installed
            .entry(dir.to_owned())
            .or_default()
            .insert(name.to_owned(), install);
    }

    /// Forgets `name` in `dir` (a directory left empty goes too); whether it was recorded.
    pub fn remove(&mut self, dir: &str, name: &str) -> bool {
        let Some(skills) = self.installed.get_mut(dir) else {
            return false;
        };
        let removed = skills.remove(name).is_some();
        if skills.is_empty() {
            self.installed.remove(dir);
        }
        removed
    }

    /// The change that writes this record over the one `loaded` was read as. The file must
    /// still read as `loaded` when the change is planned (or be absent, if `loaded` came from
    /// no file), so a record another run wrote meanwhile is never overwritten.
    pub fn change(&self, loaded: &InstalledRecord) -> Change {
        let loaded = loaded.clone();
        Change::replace_file(
            INSTALLED_FILE,
            self.render().into_bytes(),
            Ownership::tool_made(move |root, dest, kind| {
                if kind != EntryKind::File {
                    return Ok(Verdict::NotOurs(Disowned::Kind(kind)));
                }
                let now = root.read_file(dest)?.unwrap_or_default();
                Ok(match serde_json::from_slice::<InstalledRecord>(&now) {
                    Ok(now) if now == loaded => Verdict::Ours,
                    _ => Verdict::NotOurs(Disowned::Changed(During::Command)),
                })
            }),
        )
    }
}

/// Whether `dir` can be a directory `skill install --scope user` wrote into: a plain
/// relative path (under the home directory) or an absolute path of plain components, its last
/// segment `skills`, as every row of the agents' table's is.
fn is_record_dir(dir: &str) -> bool {
    use std::path::{Component, Path};
    let path = Path::new(dir);
    if !path.is_absolute() {
        return asv_skilltree::validate_stored_path(dir).is_ok()
            && dir.rsplit('/').next() == Some("skills");
    }
    path.components().all(|c| {
        matches!(
            c,
            Component::Prefix(_) | Component::RootDir | Component::Normal(_)
        )
    }) && path.file_name().and_then(|n| n.to_str()) == Some("skills")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(c: char) -> String {
        format!("sha256:{}", c.to_string().repeat(64))
    }

    fn one() -> InstalledRecord {
        let mut r = InstalledRecord::default();
        r.insert(
            ".claude/skills",
            "pdf",
            Install {
                from: "/tmp/pdf.zip".to_owned(),
                from_digest: hash('a'),
                tree_hash: hash('b'),
            },
        );
        r
    }

    #[test]
    fn renders_and_reads_back() {
        let r = one();
        let text = r.render();
        assert!(text.contains("\"fromDigest\""), "{text}");
        assert_eq!(InstalledRecord::parse(text.as_bytes(), "f").ok(), Some(r));
    }

    #[test]
    fn remove_forgets_and_drops_an_empty_directory() {
        let mut r = one();
        assert!(!r.remove(".claude/skills", "other"));
        assert!(r.remove(".claude/skills", "pdf"));
        assert!(r.installed.is_empty());
    }

    /// Every way the file can be wrong is refused, naming the file given and the line.
    #[test]
    fn refuses_what_is_not_a_record() {
        let good = one().render();
        let cases: Vec<(String, &str, Option<usize>)> = vec![
            ("{".to_owned(), "not valid", None),
            (
                good.replace("\"version\": 1", "\"version\": 2"),
                "version 2",
                Some(2),
            ),
            (
                good.replace(".claude/skills", "../skills"),
                "is not a skills directory",
                Some(4),
            ),
            (
                good.replace(".claude/skills", ".claude/other"),
                "is not a skills directory",
                Some(4),
            ),
            (
                good.replace("\"pdf\"", "\"PDF\""),
                "the skill name",
                Some(5),
            ),
            (good.replace(&hash('b'), "sha256:zz"), "treeHash", Some(8)),
            (good.replace(&hash('a'), "md5:00"), "fromDigest", Some(7)),
            (
                good.replace("\"from\"", "\"extra\": 1, \"from\""),
                "not valid",
                None,
            ),
        ];
        for (text, says, line) in cases {
            let e = InstalledRecord::parse(text.as_bytes(), "/cfg/x.json")
                .err()
                .unwrap_or_else(|| panic!("accepted {text}"));
            let Error::InstalledRecord { path, line: at, .. } = &e else {
                panic!("{e:?}");
            };
            assert_eq!(path, "/cfg/x.json");
            assert_eq!(*at, line, "{text}");
            let message = e.to_string();
            assert!(message.contains(says), "{message}");
            assert!(message.starts_with("/cfg/x.json"), "{message}");
            assert!(message.contains("delete it"), "{message}");
        }
    }

    #[test]
    fn absolute_directories_are_admitted_when_plain() {
        assert!(is_record_dir("/opt/claude/skills"));
        assert!(!is_record_dir("/opt/../skills"));
        assert!(is_record_dir(".config/goose/skills"));
        assert!(!is_record_dir(""));
    }
}
