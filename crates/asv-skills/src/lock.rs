//! The skill lock: which skills were taken from where, pinned to which commit, with the tree
//! hash of the upstream version the local copy started from (its base).
//!
//! It is a file of its own, [`SKILL_LOCK_FILE`], beside `vendor-lock.json` and never inside it,
//! so the contract lock stays exactly what the TypeScript tool writes and reads.

use std::collections::{BTreeMap, BTreeSet};

use asv_fs::{Change, Disowned, During, EntryKind, Ownership, Root, Verdict};
use serde::{Deserialize, Serialize};

use crate::bases::{base_digests, base_dir};
use crate::error::{Error, ProjectionProblem, SkillLockProblem};
use crate::paths::skill_dir;
pub use crate::signer::SignerRecord;
use crate::targets::Scope;

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
    /// The tag a semver range `ref` picked (issue 29 §2), whose commit is `revision`; absent
    /// for any other ref.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// The commit the base was taken at (for a local directory, the base's tree hash).
    pub revision: String,
    /// The tree hash of the base: the upstream version the local copy started from.
    pub base_hash: String,
    /// The capability digest of the base ([`asv_audit::Capabilities::digest`] of the audit of
    /// the tree `base_hash` names): what the upstream version taken can do, in one value, so a
    /// change of it shows in the lock's diff. Absent in locks written before it was recorded
    /// (the next pull that moves the base writes it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<String>,
    /// While a pull's conflicts wait for `skill resolve`: the upstream version being merged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<Pending>,
    /// Upstream no longer holds the skill: the revision a pull found it gone at (empty for a
    /// local directory read as it stands). The local copy is kept as it is, and `skill
    /// outdated` says so once instead of calling the skill outdated at every run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed_upstream: Option<String>,
    /// Who signed the pinned commit (or the tag it was taken at), for a row of
    /// `vendor-skills.yaml` with `signed-by` (issue 33 §1); absent for any other row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signer: Option<SignerRecord>,
}

/// The upstream version a conflicted pull was merging.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Pending {
    /// The upstream commit.
    pub revision: String,
    /// The upstream tree hash: the base once resolved.
    pub base_hash: String,
    /// The upstream version's capability digest: the entry's once resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<String>,
    /// Who signed the upstream commit, for a signed row: the entry's signer once resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signer: Option<SignerRecord>,
}

impl SkillLock {
    /// Reads the lock of `root`; an absent file is an empty lock.
    ///
    /// # Errors
    /// [`Error::Lock`] for a file that is not this format; a guarded-read refusal.
    pub fn load(root: &Root) -> Result<Self, Error> {
        Self::load_as(root, Scope::Project)
    }

    /// As [`SkillLock::load`], for the lock of `scope`: a project's, whose projections are
    /// agents' project directories, or the user state directory's (`skill sync --scope
    /// user`), whose projections are user directories relative to the home directory.
    ///
    /// # Errors
    /// As [`SkillLock::load`].
    pub fn load_as(root: &Root, scope: Scope) -> Result<Self, Error> {
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
        Self::parse_as(&bytes, scope)
    }

    /// Parses the lock file's bytes: JSON of this format and [`VERSION`], no object holding a
    /// key twice, every name a skill name, every hash a tree hash, every entry's `path` `.` or
    /// a plain relative path with no `.git`, every projection directory the project skills
    /// directory of a known agent ([`crate::targets::AGENTS`]).
    ///
    /// The lock travels through pull requests and can be crafted, and sync removes what its
    /// projections name (with `--force`, whatever stands there): so nothing in it is trusted
    /// to name a path until it is one the tool could have written (issue 27 §3).
    ///
    /// # Errors
    /// [`Error::Lock`] for bytes that are not such a lock, with the line of the key at fault
    /// where it is found.
    pub fn parse(bytes: &[u8]) -> Result<Self, Error> {
        Self::parse_as(bytes, Scope::Project)
    }

    /// As [`SkillLock::parse`], for the lock of `scope`. A user state lock's projection
    /// directories are any plain relative path ending in `skills` (an agent's variable can
    /// move its directory anywhere under the home directory); nothing else differs.
    ///
    /// # Errors
    /// As [`SkillLock::parse`].
    pub fn parse_as(bytes: &[u8], scope: Scope) -> Result<Self, Error> {
        let is_agent_dir = |dir: &str| match scope {
            Scope::Project => is_agent_dir(dir),
            Scope::User => is_user_dir(dir),
        };
        let unknown = match scope {
            Scope::Project => ProjectionProblem::UnknownDir,
            Scope::User => ProjectionProblem::NotUserDir,
        };
        let refuse = |line: Option<usize>, problem: SkillLockProblem| Error::Lock {
            path: SKILL_LOCK_FILE.to_owned(),
            line,
            problem,
        };
        let lock: SkillLock = serde_json::from_slice(bytes)
            .map_err(|e| refuse(None, SkillLockProblem::NotValid(e)))?;
        // serde_json has accepted the bytes, so they are UTF-8 (it checks every string, and
        // JSON outside strings is ASCII).
        let text = std::str::from_utf8(bytes).unwrap_or_default();
        if let Some(twice) = asv_model::json::duplicate_key(text) {
            return Err(refuse(
                Some(twice.line),
                SkillLockProblem::Duplicate { path: twice.path },
            ));
        }
        let line = |path: &[&str]| asv_model::json::key_line(text, path);
        if lock.version != VERSION {
            return Err(refuse(
                line(&["version"]),
                SkillLockProblem::Version {
                    found: lock.version,
                    read: VERSION,
                },
            ));
        }
        for (name, entry) in &lock.skills {
            if let Some(p) = crate::name_problem(name) {
                return Err(refuse(
                    line(&["skills", name]),
                    SkillLockProblem::BadName {
                        name: name.clone(),
                        problem: p,
                    },
                ));
            }
            if entry.path != "."
                && let Err(problem) = asv_skilltree::validate_stored_path(&entry.path)
            {
                return Err(refuse(
                    line(&["skills", name, "path"]),
                    SkillLockProblem::BadPath {
                        name: name.clone(),
                        path: entry.path.clone(),
                        problem,
                    },
                ));
            }
            let hashes = std::iter::once((&entry.base_hash, false))
                .chain(entry.pending.as_ref().map(|p| (&p.base_hash, true)));
            for (hash, pending) in hashes {
                if !is_tree_hash(hash) {
                    return Err(refuse(
                        if pending {
                            line(&["skills", name, "pending", "baseHash"])
                        } else {
                            line(&["skills", name, "baseHash"])
                        },
                        SkillLockProblem::BadHash {
                            name: name.clone(),
                            hash: hash.clone(),
                        },
                    ));
                }
            }
            let digests = [
                (entry.capabilities.as_ref(), false),
                (
                    entry.pending.as_ref().and_then(|p| p.capabilities.as_ref()),
                    true,
                ),
            ];
            for (digest, pending) in digests {
                let Some(digest) = digest.filter(|d| !is_tree_hash(d)) else {
                    continue;
                };
                return Err(refuse(
                    if pending {
                        line(&["skills", name, "pending", "capabilities"])
                    } else {
                        line(&["skills", name, "capabilities"])
                    },
                    SkillLockProblem::BadCapabilities {
                        name: name.clone(),
                        digest: digest.clone(),
                    },
                ));
            }
        }
        // A signer is only compared and printed: one the tool could not have written (a
        // control character to the terminal, say) refuses the file.
        for (name, entry) in &lock.skills {
            let signers = [
                (entry.signer.as_ref(), false),
                (entry.pending.as_ref().and_then(|p| p.signer.as_ref()), true),
            ];
            for (signer, pending) in signers {
                if let Some(signer) = signer
                    && !is_signer(signer)
                {
                    let at = if pending {
                        line(&["skills", name, "pending", "signer"])
                    } else {
                        line(&["skills", name, "signer"])
                    };
                    return Err(refuse(
                        at,
                        SkillLockProblem::BadSigner { name: name.clone() },
                    ));
                }
            }
        }
        for (dir, skills) in &lock.projections {
            for (name, hash) in skills {
                let problem = if !is_agent_dir(dir) {
                    Some(unknown)
                } else if let Some(why) = crate::name_problem(name) {
                    Some(ProjectionProblem::BadName(why))
                } else if !is_tree_hash(hash) {
                    Some(ProjectionProblem::BadHash)
                } else {
                    None
                };
                if let Some(problem) = problem {
                    return Err(refuse(
                        line(&["projections", dir, name]),
                        SkillLockProblem::BadProjection {
                            dir: dir.clone(),
                            name: name.clone(),
                            problem,
                        },
                    ));
                }
            }
            if skills.is_empty() && !is_agent_dir(dir) {
                return Err(refuse(
                    line(&["projections", dir]),
                    SkillLockProblem::BadProjection {
                        dir: dir.clone(),
                        name: String::new(),
                        problem: unknown,
                    },
                ));
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

/// Whether `dir` is the project skills directory of a known agent: the only directories
/// sync mirrors skills into, so the only ones a projection it recorded can name. Checking
/// against the table, rather than for a plain relative path, keeps `.git`, `src` and any
/// other directory of the repository out of reach of a crafted lock.
fn is_agent_dir(dir: &str) -> bool {
    crate::targets::AGENTS.iter().any(|a| a.project == dir)
}

/// Whether `dir` can be a user directory sync mirrors into: a plain relative path (no `..`,
/// no `.git`) whose last segment is `skills`, as every row of the table's is.
fn is_user_dir(dir: &str) -> bool {
    asv_skilltree::validate_stored_path(dir).is_ok() && dir.rsplit('/').next() == Some("skills")
}

/// Whether `signer` is one the tool records: a principal of printable characters, and a key
/// fingerprint `SHA256:` with base64 after it.
fn is_signer(signer: &SignerRecord) -> bool {
    let printable = |s: &str| !s.is_empty() && !s.chars().any(char::is_control);
    printable(&signer.principal)
        && signer.key.strip_prefix("SHA256:").is_some_and(|b64| {
            !b64.is_empty()
                && b64
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
        })
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

/// The hashes of the kept bases `lock` refers to: each entry's base and a pending pull's
/// upstream version (the base `skill resolve` records).
pub(crate) fn referenced_bases(lock: &SkillLock) -> BTreeSet<&str> {
    lock.skills
        .values()
        .flat_map(|e| {
            std::iter::once(e.base_hash.as_str())
                .chain(e.pending.as_ref().map(|p| p.base_hash.as_str()))
        })
        .collect()
}

/// The changes that remove each kept base (directory and digest list) that `loaded` refers
/// to and `lock` no longer does: the writer that drops a base's last reference removes it in
/// the same transaction as the lock change, so kept bases do not pile up with every pull
/// (issue 27 §6). A base no entry of `loaded` named is left alone: it may belong to the lock
/// of another branch.
///
/// # Errors
/// A guarded-read failure.
pub(crate) fn dropped_bases(
    root: &Root,
    loaded: &SkillLock,
    lock: &SkillLock,
) -> Result<Vec<Change>, Error> {
    let still = referenced_bases(lock);
    let mut changes = Vec::new();
    for hash in referenced_bases(loaded).difference(&still) {
        for kept in [base_dir(hash), base_digests(hash)] {
            if root.kind(&kept)?.is_some() {
                changes.push(Change::remove(kept, Ownership::ToolState));
            }
        }
    }
    Ok(changes)
}

/// The change that writes `lock` over the lock `loaded` was read from, with the removal of
/// every kept base it no longer refers to ([`dropped_bases`]).
///
/// # Errors
/// A guarded-read failure.
pub(crate) fn lock_changes(
    root: &Root,
    loaded: &SkillLock,
    lock: &SkillLock,
) -> Result<Vec<Change>, Error> {
    let mut changes = dropped_bases(root, loaded, lock)?;
    changes.push(lock_change(loaded, lock));
    Ok(changes)
}

/// The change that writes `lock` over the lock `loaded` was read from. The file must still
/// read as `loaded` when the change is planned, so a lock another run wrote meanwhile is never
/// overwritten.
pub(crate) fn lock_change(loaded: &SkillLock, lock: &SkillLock) -> Change {
    let loaded = loaded.clone();
    Change::replace_file(
        SKILL_LOCK_FILE,
        lock.render().into_bytes(),
        Ownership::tool_made(move |root, dest, kind| {
            if kind != EntryKind::File {
                return Ok(Verdict::NotOurs(Disowned::Kind(kind)));
            }
            let now = root.read_file(dest)?.unwrap_or_default();
            Ok(match serde_json::from_slice::<SkillLock>(&now) {
                Ok(now) if now == loaded => Verdict::Ours,
                _ => Verdict::NotOurs(Disowned::Changed(During::Command)),
            })
        }),
    )
}

/// The names of `names` (each once, in the order given) after checking each is imported: a
/// skill of the repository's own is [`Error::OwnSkill`], anything else not in the lock
/// [`Error::NotImportedAmong`].
pub(crate) fn imported_names(
    root: &Root,
    lock: &SkillLock,
    names: &[String],
) -> Result<Vec<String>, Error> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::with_capacity(names.len());
    for name in names {
        if !seen.insert(name.as_str()) {
            continue;
        }
        if !lock.skills.contains_key(name) {
            // Only a plain skill name can be a directory under skills/.
            if crate::name_problem(name).is_none() {
                let dir = skill_dir(name);
                if root.kind(&dir)? == Some(EntryKind::Directory) {
                    return Err(Error::OwnSkill { path: dir });
                }
            }
            return Err(Error::NotImportedAmong {
                name: name.clone(),
                imported: lock.skills.keys().cloned().collect(),
            });
        }
        out.push(name.clone());
    }
    Ok(out)
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
                tag: None,
                revision: "a".repeat(40),
                base_hash: hash('b'),
                capabilities: Some(hash('d')),
                pending: None,
                removed_upstream: None,
                signer: None,
            },
        );
        let text = lock.render();
        assert_eq!(
            text,
            format!(
                "{{\n  \"version\": 1,\n  \"skills\": {{\n    \"pdf\": {{\n      \"source\": \"acme/skills\",\n      \"path\": \"skills/pdf\",\n      \"ref\": \"main\",\n      \"revision\": \"{}\",\n      \"baseHash\": \"{}\",\n      \"capabilities\": \"{}\"\n    }}\n  }}\n}}\n",
                "a".repeat(40),
                hash('b'),
                hash('d')
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
        let digest = good.replace(
            "\"baseHash\"",
            "\"capabilities\":\"sha256:cap\",\"baseHash\"",
        );
        let pending_digest = good.replace(
            "\"baseHash\"",
            &format!(
                "\"pending\":{{\"revision\":\"r2\",\"baseHash\":\"{}\",\"capabilities\":\"x\"}},\"baseHash\"",
                hash('e')
            ),
        );
        let signed = good.replace(
            "\"baseHash\"",
            "\"signer\":{\"principal\":\"a@b\",\"key\":\"SHA256:x\\u001b[2J\"},\"baseHash\"",
        );
        type Want = fn(&SkillLockProblem) -> bool;
        let rows: [(&str, String, Want); 9] = [
            ("not json", "{".to_owned(), |p| {
                matches!(p, SkillLockProblem::NotValid(_))
            }),
            (
                "other version",
                good.replace("\"version\":1", "\"version\":2"),
                |p| matches!(p, SkillLockProblem::Version { found: 2, read: 1 }),
            ),
            (
                "unknown key",
                good.replace("\"path\"", "\"extra\":1,\"path\""),
                |p| matches!(p, SkillLockProblem::NotValid(_)),
            ),
            (
                "bad name",
                good.replace("\"pdf\"", "\"PDF\""),
                |p| matches!(p, SkillLockProblem::BadName { name, .. } if name == "PDF"),
            ),
            (
                "bad hash",
                good.replace(&hash('c'), "sha256:zz"),
                |p| matches!(p, SkillLockProblem::BadHash { hash, .. } if hash == "sha256:zz"),
            ),
            (
                "bad pending hash",
                pending,
                |p| matches!(p, SkillLockProblem::BadHash { hash, .. } if hash == "sha256:00"),
            ),
            (
                "bad capability digest",
                digest,
                |p| matches!(p, SkillLockProblem::BadCapabilities { digest, .. } if digest == "sha256:cap"),
            ),
            (
                "bad pending capability digest",
                pending_digest,
                |p| matches!(p, SkillLockProblem::BadCapabilities { digest, .. } if digest == "x"),
            ),
            (
                "bad signer",
                signed,
                |p| matches!(p, SkillLockProblem::BadSigner { name } if name == "pdf"),
            ),
        ];
        root.write_file(SKILL_LOCK_FILE, good.as_bytes()).unwrap();
        // A lock written before the capability digest was recorded reads without it.
        assert_eq!(
            SkillLock::load(&root).unwrap().skills["pdf"].capabilities,
            None
        );
        assert!(SkillLock::load(&root).unwrap().projections.is_empty());
        for (name, text, want) in rows {
            root.write_file(SKILL_LOCK_FILE, text.as_bytes()).unwrap();
            match SkillLock::load(&root) {
                Err(Error::Lock { problem, .. }) => assert!(want(&problem), "{name}: {problem:?}"),
                other => panic!("{name}: {other:?}"),
            }
        }
    }
}

#[cfg(test)]
mod hostile {
    //! Issue 27 §3: a crafted lock names nothing the tool could not have written.
    use super::*;
    use asv_error::Failure as _;

    fn hash(c: char) -> String {
        format!("sha256:{}", c.to_string().repeat(64))
    }

    /// A lock as the tool renders it, with `projections` set to `projections` (JSON text).
    fn with_projections(projections: &str) -> String {
        format!(
            "{{\n  \"version\": 1,\n  \"skills\": {{\n    \"pdf\": {{\n      \"source\": \"./up\",\n      \"path\": \"skills/pdf\",\n      \"revision\": \"r\",\n      \"baseHash\": \"{}\"\n    }}\n  }},\n  \"projections\": {projections}\n}}\n",
            hash('a')
        )
    }

    fn refusal(text: &str) -> (Option<usize>, SkillLockProblem) {
        match SkillLock::parse(text.as_bytes()) {
            Err(Error::Lock { line, problem, .. }) => (line, problem),
            other => panic!("{text}: {other:?}"),
        }
    }

    /// The user state lock's projections are user directories relative to the home
    /// directory: any plain relative path ending in `skills` (a variable may move one), and
    /// still nothing that leaves the home directory, names `.git` or is absolute.
    #[test]
    fn user_projections_only_under_the_home_directory() {
        let h = hash('b');
        let lock_of = |dir: &str| {
            let dir_json = serde_json::to_string(dir).unwrap();
            with_projections(&format!(
                "{{\n    {dir_json}: {{\n      \"objects\": \"{h}\"\n    }}\n  }}"
            ))
        };
        for dir in [
            ".copilot/skills",
            ".config/goose/skills",
            "cfg/claude/skills",
        ] {
            let lock = SkillLock::parse_as(lock_of(dir).as_bytes(), Scope::User).unwrap();
            assert_eq!(lock.projections[dir]["objects"], h);
            // The same lock is refused as a project's: these are no project directories.
            assert!(SkillLock::parse(lock_of(dir).as_bytes()).is_err(), "{dir}");
        }
        for dir in [
            "..",
            "../skills",
            "/home/ann/skills",
            "a/../skills",
            ".git/skills",
            ".GIT/skills",
            "",
            ".",
            ".claude",
            ".claude/skills/",
            ".claude//skills",
            ".claude\\skills",
        ] {
            match SkillLock::parse_as(lock_of(dir).as_bytes(), Scope::User) {
                Err(Error::Lock {
                    line: Some(13),
                    problem:
                        SkillLockProblem::BadProjection {
                            problem: ProjectionProblem::NotUserDir,
                            dir: d,
                            ..
                        },
                    ..
                }) if d == dir => {}
                other => panic!("{dir:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn projections_only_under_a_known_agent_directory() {
        let h = hash('b');
        // (dir, name) of one projection; its name on line 13 of the rendering.
        let unknown = [
            ".git",
            ".GIT",
            "..",
            "../outside",
            "/tmp/x",
            "",
            ".",
            "src",
            ".claude/skills/a",
            ".claude//skills",
            ".claude\\skills",
            ".claude/skills/",
            "skills",
        ];
        for dir in unknown {
            let dir_json = serde_json::to_string(dir).unwrap();
            let text = with_projections(&format!(
                "{{\n    {dir_json}: {{\n      \"objects\": \"{h}\"\n    }}\n  }}"
            ));
            let (line, problem) = refusal(&text);
            assert_eq!(line, Some(13), "{dir:?}");
            assert!(
                matches!(&problem, SkillLockProblem::BadProjection { problem: ProjectionProblem::UnknownDir, dir: d, .. } if d == dir),
                "{dir:?}: {problem:?}"
            );
        }
        for name in [".git", "..", ".", "", "a/b", "A", "a\\b"] {
            let name_json = serde_json::to_string(name).unwrap();
            let text = with_projections(&format!(
                "{{\n    \".claude/skills\": {{\n      {name_json}: \"{h}\"\n    }}\n  }}"
            ));
            let (line, problem) = refusal(&text);
            assert_eq!(line, Some(13), "{name:?}");
            assert!(
                matches!(
                    &problem,
                    SkillLockProblem::BadProjection {
                        problem: ProjectionProblem::BadName(_),
                        ..
                    }
                ),
                "{name:?}: {problem:?}"
            );
        }
        let text = with_projections(
            "{\n    \".claude/skills\": {\n      \"pdf\": \"sha256:0\"\n    }\n  }",
        );
        assert!(matches!(
            refusal(&text).1,
            SkillLockProblem::BadProjection {
                problem: ProjectionProblem::BadHash,
                ..
            }
        ));
        // An empty map under an unknown directory names nothing, but is no lock sync wrote.
        let text = with_projections("{\n    \".git\": {}\n  }");
        assert_eq!(refusal(&text).0, Some(12));
        // Every known agent's directory is accepted.
        for agent in crate::targets::AGENTS {
            let text = with_projections(&format!(
                "{{\n    \"{}\": {{\n      \"pdf\": \"{h}\"\n    }}\n  }}",
                agent.project
            ));
            let lock = SkillLock::parse(text.as_bytes()).unwrap();
            assert_eq!(lock.projections[agent.project]["pdf"], h);
        }
    }

    #[test]
    fn a_key_given_twice_is_refused_with_its_line() {
        let h = hash('b');
        let projections = with_projections(&format!(
            "{{\n    \".claude/skills\": {{\n      \"pdf\": \"{h}\",\n      \"pdf\": \"{h}\"\n    }}\n  }}"
        ));
        let (line, problem) = refusal(&projections);
        assert_eq!(line, Some(14));
        assert!(
            matches!(&problem, SkillLockProblem::Duplicate { path } if path == &["projections", ".claude/skills", "pdf"]),
            "{problem:?}"
        );
        let dirs = with_projections(&format!(
            "{{\n    \".claude/skills\": {{}},\n    \".claude/skills\": {{\n      \"pdf\": \"{h}\"\n    }}\n  }}"
        ));
        assert_eq!(refusal(&dirs).0, Some(13));
        let base = with_projections("{}");
        let entry = base
            [base.find("    \"pdf\"").unwrap()..base.find("  },\n  \"projections").unwrap()]
            .to_owned();
        let skills = base.replacen(&entry, &format!("{}  ,\n{entry}", entry.trim_end()), 1);
        let (line, problem) = refusal(&skills);
        assert_eq!(line, Some(10), "{skills}");
        assert!(
            matches!(&problem, SkillLockProblem::Duplicate { path } if path == &["skills", "pdf"]),
            "{problem:?}"
        );
        let fields = base.replacen(
            "\"revision\": \"r\",",
            "\"revision\": \"r\",\n      \"revision\": \"s\",",
            1,
        );
        assert!(matches!(refusal(&fields).1, SkillLockProblem::NotValid(_)));
    }

    #[test]
    fn an_entry_path_stays_inside_its_source() {
        let base = with_projections("{}");
        for path in [
            "..",
            "../x",
            "/etc",
            "a//b",
            ".git",
            "skills/.Git/x",
            "",
            "a\\\\b",
        ] {
            let text = base.replacen("\"skills/pdf\"", &serde_json::to_string(path).unwrap(), 1);
            let (line, problem) = refusal(&text);
            assert_eq!(line, Some(6), "{path:?}");
            assert!(
                matches!(&problem, SkillLockProblem::BadPath { path: p, .. } if p == path),
                "{path:?}: {problem:?}"
            );
        }
        let root = base.replacen("\"skills/pdf\"", "\".\"", 1);
        assert!(SkillLock::parse(root.as_bytes()).is_ok());
    }

    #[test]
    fn refusals_read_as_one_line_that_says_what_to_do() {
        let h = hash('b');
        let text = with_projections(&format!(
            "{{\n    \".git\": {{\n      \"objects\": \"{h}\"\n    }}\n  }}"
        ));
        let e = SkillLock::parse(text.as_bytes()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "vendor-skills-lock.json:13: projections.\".git\".objects: \".git\" is not the project skills directory of an agent skill sync knows (such as .claude/skills or .agents/skills); remove the entry (skill sync records again what it places and claims identical copies)"
        );
        assert_eq!(
            e.location(),
            Some(asv_error::Location::at(SKILL_LOCK_FILE, Some(13)))
        );
    }
}
