//! The skill lock: which skills were taken from where, pinned to which commit, with the tree
//! hash of the upstream version the local copy started from (its base).
//!
//! It is a file of its own, [`SKILL_LOCK_FILE`], beside `vendor-lock.json` and never inside it,
//! so the contract lock stays exactly what the TypeScript tool writes and reads.

use std::collections::BTreeMap;

use asv_fs::Root;
use serde::{Deserialize, Serialize};

use crate::error::{Error, LockProblem};

/// The skill lock's path, relative to the repository root.
pub const SKILL_LOCK_FILE: &str = asv_model::layout::SKILL_LOCK;

/// The lock format this build writes and reads.
pub const VERSION: u32 = 1;

/// The whole skill lock.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkillLock {
    /// Always [`VERSION`].
    pub version: u32,
    /// Imported skills by local name (the directory under `skills/`).
    pub skills: BTreeMap<String, Entry>,
    /// What `skill sync` placed in the agents' project directories: per directory (from the
    /// root, e.g. `.claude/skills`), per skill, the tree hash of the copy placed. Targets that
    /// share a directory share its entry. Absent from the file while empty.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub projections: BTreeMap<String, BTreeMap<String, String>>,
}

/// One imported skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Entry {
    /// The source as given to `skill add`: `owner/repo`, a git URL, or a local directory
    /// (relative to the repository root).
    pub source: String,
    /// The skill's directory inside the source (`.` for the source's root).
    pub path: String,
    /// The branch, tag or commit followed by `skill pull`; absent for a local directory.
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "ref")]
    pub reference: Option<String>,
    /// The commit the base was taken at (for a local directory, the base's tree hash).
    pub revision: String,
    /// The tree hash of the base: the upstream version the local copy started from.
    pub base_hash: String,
    /// While a pull's conflicts wait for `skill resolve`: the upstream version being merged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<Pending>,
}

/// The upstream version a conflicted pull was merging.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Pending {
    /// The upstream commit.
    pub revision: String,
    /// The upstream tree hash: the base once resolved.
    pub base_hash: String,
}

impl SkillLock {
    /// Reads the lock of `root`; an absent file is an empty lock.
    ///
    /// # Errors
    /// [`Error::Lock`] for a file that is not this format; a guarded-read refusal.
    pub fn load(root: &Root) -> Result<Self, Error> {
        let Some(bytes) = root.read_file_capped(
            SKILL_LOCK_FILE,
            asv_model::layout::LOCK_LIMIT,
            asv_model::layout::LOCK_LIMIT_WHAT,
        )?
        else {
            return Ok(SkillLock {
                version: VERSION,
                ..SkillLock::default()
            });
        };
        Self::parse(&bytes)
    }

    /// Parses the lock file's bytes: JSON of this format and [`VERSION`], every name a skill
    /// name, every hash a tree hash, every projection directory a plain relative path.
    ///
    /// # Errors
    /// [`Error::Lock`] for bytes that are not such a lock.
    pub fn parse(bytes: &[u8]) -> Result<Self, Error> {
        let problem = |problem: LockProblem| Error::Lock {
            path: SKILL_LOCK_FILE.to_owned(),
            problem,
        };
        let lock: SkillLock =
            serde_json::from_slice(bytes).map_err(|e| problem(LockProblem::NotValid(e)))?;
        if lock.version != VERSION {
            return Err(problem(LockProblem::Version {
                found: lock.version,
                read: VERSION,
            }));
        }
        for (name, entry) in &lock.skills {
            if let Some(p) = crate::name_problem(name) {
                return Err(problem(LockProblem::BadName {
                    name: name.clone(),
                    problem: p,
                }));
            }
            let hashes = std::iter::once(&entry.base_hash)
                .chain(entry.pending.as_ref().map(|p| &p.base_hash));
            for hash in hashes {
                if !is_tree_hash(hash) {
                    return Err(problem(LockProblem::BadHash {
                        name: name.clone(),
                        hash: hash.clone(),
                    }));
                }
            }
        }
        for (dir, skills) in &lock.projections {
            for (name, hash) in skills {
                if crate::name_problem(name).is_some() || !is_tree_hash(hash) || !is_plain_dir(dir)
                {
                    return Err(problem(LockProblem::BadProjection {
                        dir: dir.clone(),
                        name: name.clone(),
                    }));
                }
            }
        }
        Ok(lock)
    }

    /// The lock as written: two-space JSON, keys in a fixed order, one final newline.
    pub fn render(&self) -> String {
        // This cannot fail, so there is no error to return: serde_json refuses only a map key
        // that is not a string, a value whose `Serialize` reports an error, or a writer that
        // fails. The lock's maps are keyed by `String`, its values are derived `Serialize`
        // impls over strings, a `u32` and options of them, and the writer is a `Vec`. (It
        // used to fall back to an empty text, which would have written an empty lock.)
        let mut text =
            serde_json::to_string_pretty(self).expect("a skill lock always renders as JSON");
        text.push('\n');
        text
    }

    /// Writes the lock into `root` (atomically).
    ///
    /// # Errors
    /// A guarded-write failure.
    pub fn store(&self, root: &Root) -> Result<(), Error> {
        root.write_file(SKILL_LOCK_FILE, self.render().as_bytes())?;
        Ok(())
    }

    /// The entry of `name`.
    ///
    /// # Errors
    /// [`Error::NotImported`] when the lock does not hold it.
    pub fn entry(&self, name: &str) -> Result<&Entry, Error> {
        self.skills.get(name).ok_or_else(|| Error::NotImported {
            name: name.to_owned(),
        })
    }
}

/// Whether `dir` is a plain relative path (no empty, `.` or `..` segment, no backslash).
fn is_plain_dir(dir: &str) -> bool {
    !dir.is_empty()
        && !dir.contains('\\')
        && dir
            .split('/')
            .all(|s| !s.is_empty() && s != "." && s != "..")
}

/// Whether `text` is a tree hash as printed: `sha256:` and 64 lowercase hex digits.
pub fn is_tree_hash(text: &str) -> bool {
    text.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(c: char) -> String {
        format!("sha256:{}", c.to_string().repeat(64))
    }

    #[test]
    fn renders_and_reads_back() {
        let mut lock = SkillLock {
            version: VERSION,
            ..SkillLock::default()
        };
        lock.skills.insert(
            "pdf".to_owned(),
            Entry {
                source: "acme/skills".to_owned(),
                path: "skills/pdf".to_owned(),
                reference: Some("main".to_owned()),
                revision: "a".repeat(40),
                base_hash: hash('b'),
                pending: None,
            },
        );
        let text = lock.render();
        assert_eq!(
            text,
            format!(
                "{{\n  \"version\": 1,\n  \"skills\": {{\n    \"pdf\": {{\n      \"source\": \"acme/skills\",\n      \"path\": \"skills/pdf\",\n      \"ref\": \"main\",\n      \"revision\": \"{}\",\n      \"baseHash\": \"{}\"\n    }}\n  }}\n}}\n",
                "a".repeat(40),
                hash('b')
            )
        );
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        lock.store(&root).unwrap();
        assert_eq!(SkillLock::load(&root).unwrap(), lock);
    }

    #[test]
    fn refuses_what_it_did_not_write() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        assert!(SkillLock::load(&root).unwrap().skills.is_empty());
        let good = format!(
            r#"{{"version":1,"skills":{{"pdf":{{"source":"s","path":"p","revision":"r","baseHash":"{}"}}}}}}"#,
            hash('c')
        );
        let pending = good.replace(
            "\"baseHash\"",
            "\"pending\":{\"revision\":\"r2\",\"baseHash\":\"sha256:00\"},\"baseHash\"",
        );
        type Want = fn(&LockProblem) -> bool;
        let rows: [(&str, String, Want); 6] = [
            ("not json", "{".to_owned(), |p| {
                matches!(p, LockProblem::NotValid(_))
            }),
            (
                "other version",
                good.replace("\"version\":1", "\"version\":2"),
                |p| matches!(p, LockProblem::Version { found: 2, read: 1 }),
            ),
            (
                "unknown key",
                good.replace("\"path\"", "\"extra\":1,\"path\""),
                |p| matches!(p, LockProblem::NotValid(_)),
            ),
            (
                "bad name",
                good.replace("\"pdf\"", "\"PDF\""),
                |p| matches!(p, LockProblem::BadName { name, .. } if name == "PDF"),
            ),
            (
                "bad hash",
                good.replace(&hash('c'), "sha256:zz"),
                |p| matches!(p, LockProblem::BadHash { hash, .. } if hash == "sha256:zz"),
            ),
            (
                "bad pending hash",
                pending,
                |p| matches!(p, LockProblem::BadHash { hash, .. } if hash == "sha256:00"),
            ),
        ];
        root.write_file(SKILL_LOCK_FILE, good.as_bytes()).unwrap();
        assert!(SkillLock::load(&root).is_ok());
        for (name, text, want) in rows {
            root.write_file(SKILL_LOCK_FILE, text.as_bytes()).unwrap();
            match SkillLock::load(&root) {
                Err(Error::Lock { problem, .. }) => assert!(want(&problem), "{name}: {problem:?}"),
                other => panic!("{name}: {other:?}"),
            }
        }
    }
}
