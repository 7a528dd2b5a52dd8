//! A repository as the offline commands see it: skills and their declarations, the table of
//! origins, the lock, and each declared contract's canonical text.

use asv_fs::{EntryKind, Root, join};
use asv_model::declaration;
use asv_model::id::ContractId;
use asv_model::ignore;
use asv_model::source::SourceName;

use crate::digest::Digest;
use crate::document::CanonicalBody;
use crate::error::{Error, Result};
use crate::lock::{LOCK_FILE, Lock, SourcePins};
use crate::manifest::{self, Manifest, Origin};

use asv_model::layout::SKILLS_DIR;

/// The name the lock had in early releases of the TypeScript tool.
pub const LEGACY_LOCK_FILE: &str = "vendor-manifest.json";

/// One skill directory and the ids its SKILL.md declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// The directory name under `skills/`.
    pub name: String,
    /// The declared ids, in declaration order.
    pub declared: Vec<ContractId>,
    /// The line of a `contracts` key at the top level of its SKILL.md's frontmatter, which
    /// declares nothing (see [`declaration::SkillFrontmatter::misplaced_contracts`]).
    pub misplaced_contracts: Option<usize>,
}

impl Skill {
    /// `skills/<name>`.
    pub fn dir(&self) -> String {
        join(SKILLS_DIR, &self.name)
    }

    /// `skills/<name>/references/vendor`.
    pub fn vendor_dir(&self) -> String {
        format!("{SKILLS_DIR}/{}/references/vendor", self.name)
    }

    /// `skills/<name>/references/vendor/<id>.md`.
    pub fn copy_path(&self, id: &ContractId) -> String {
        format!("{}/{id}.md", self.vendor_dir())
    }
}

/// The lock file as found on disk.
#[derive(Debug, Clone, PartialEq)]
pub enum LockFile {
    /// No `vendor-lock.json`.
    Missing,
    /// The file's exact bytes and what they parse to.
    Present {
        /// The exact bytes.
        bytes: Vec<u8>,
        /// The parsed lock, shared with the [`Snapshot`](crate::snapshot::Snapshot) rather than
        /// copied into it (at 100,000 skills a copy is tens of MiB).
        lock: std::sync::Arc<Lock>,
    },
}

impl LockFile {
    /// The parsed lock, or an empty one when the file is missing.
    pub fn lock(&self) -> Lock {
        match self {
            LockFile::Missing => Lock::default(),
            LockFile::Present { lock, .. } => Lock::clone(lock),
        }
    }

    /// The parsed lock shared, not copied (an empty one when the file is missing).
    pub fn shared(&self) -> std::sync::Arc<Lock> {
        match self {
            LockFile::Missing => std::sync::Arc::default(),
            LockFile::Present { lock, .. } => std::sync::Arc::clone(lock),
        }
    }

    /// The lock's source pins (none when the file is missing).
    pub fn sources(&self) -> Option<&SourcePins> {
        match self {
            LockFile::Missing => None,
            LockFile::Present { lock, .. } => Some(&lock.sources),
        }
    }
}

/// A canonical text as a snapshot keeps it: whole, or only its digest once the texts kept
/// whole reach [`KEPT_TEXTS`] between them (issue 15 §3: memory is bounded by the largest
/// text, not by their sum). A text not kept is read again from its path when a copy of it
/// is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Text {
    /// The canonical body itself.
    Held(CanonicalBody),
    /// Only the body's digest.
    Digested(Digest),
}

/// How many bytes of canonical text a snapshot keeps whole, between all its texts.
pub const KEPT_TEXTS: usize = 32 * 1024 * 1024;

/// [`KEPT_TEXTS`], or with the `test-hooks` feature what `ASV_TEST_KEPT_TEXTS` says, so that
/// tests meet texts past it without writing tens of MiB.
pub(crate) fn kept_texts() -> usize {
    #[cfg(feature = "test-hooks")]
    if let Some(n) = std::env::var("ASV_TEST_KEPT_TEXTS")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        return n;
    }
    KEPT_TEXTS
}

impl Text {
    /// The body's digest.
    pub fn digest(&self) -> Digest {
        match self {
            Text::Held(body) => body.digest(),
            Text::Digested(digest) => *digest,
        }
    }

    /// The body, when it is kept whole.
    pub fn held(&self) -> Option<&CanonicalBody> {
        match self {
            Text::Held(body) => Some(body),
            Text::Digested(_) => None,
        }
    }
}

/// What the canonical side of one contract holds now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Canonical {
    /// Where the text is read from (repository-relative): for a remote contract, its place in
    /// the cache at the pinned commit, or — when the lock pins no commit for its source — its
    /// path inside the source.
    pub path: String,
    /// The body and its digest, or `None` when no text stands at `path`. For a remote
    /// contract `None` means the text is unknown here (not fetched, or no pin), not absent.
    pub body: Option<Text>,
    /// The conformance tree's digest, when it has files (for a remote contract, known only
    /// when its text is).
    pub conformance: Option<Digest>,
    /// The registered source the contract is taken from; `None` for this repository's own.
    pub remote: Option<SourceName>,
}

/// Everything the offline commands read, loaded once.
#[derive(Debug)]
pub struct Repository<'t> {
    /// The guarded tree.
    pub root: &'t Root,
    /// Skills sorted by name.
    pub skills: Vec<Skill>,
    /// The table of origins.
    pub manifest: Manifest,
    /// The lock as found.
    pub lock_file: LockFile,
}

impl<'t> Repository<'t> {
    /// Reads the skills' declarations, the manifest and the lock.
    ///
    /// # Errors
    /// A refusal of a declaration, the manifest or the lock; a guarded-read refusal.
    pub fn load(root: &'t Root) -> Result<Self> {
        let skills = load_skills(root)?;
        let manifest = Manifest::load(root)?;
        let lock_file = match root.read_file_capped(
            LOCK_FILE,
            asv_model::layout::LOCK_LIMIT,
            asv_model::layout::LOCK_LIMIT_WHAT,
        )? {
            None if root.kind(LEGACY_LOCK_FILE)?.is_some() => {
                return Err(Error::LegacyLock);
            }
            None => LockFile::Missing,
            Some(bytes) => {
                let lock = std::sync::Arc::new(Lock::parse(&bytes)?);
                LockFile::Present { bytes, lock }
            }
        };
        if let LockFile::Present { lock, .. } = &lock_file {
            // A set, not a scan of the skills per entry: the lock names every skill, so a
            // scan made loading quadratic (a fifth of `verify` at 30,000 skills).
            let present: std::collections::HashSet<&str> =
                skills.iter().map(|s| s.name.as_str()).collect();
            for name in lock.dependencies.keys() {
                let dir = join(SKILLS_DIR, name);
                if !present.contains(name.as_str())
                    && matches!(root.kind(&dir)?, Some(k) if k != EntryKind::Directory)
                {
                    return Err(Error::SkillNotDirectory { path: dir });
                }
            }
        }
        Ok(Repository {
            root,
            skills,
            manifest,
            lock_file,
        })
    }

    /// `dependencies` as the declarations give it, borrowed: skill → the ids it declares, for
    /// a [`LockView`](crate::lock::LockView) (which sorts them and leaves out a skill with none).
    pub fn dependencies_list(&self) -> Vec<(&str, &[ContractId])> {
        self.skills
            .iter()
            .map(|s| (s.name.as_str(), s.declared.as_slice()))
            .collect()
    }

    /// Every declared id, once.
    pub fn declared_ids(&self) -> std::collections::BTreeSet<ContractId> {
        self.skills
            .iter()
            .flat_map(|s| s.declared.iter().cloned())
            .collect()
    }

    /// The skills declaring `id`, in UTF-16 order of their names (a skill that declares it
    /// twice is named twice). Asked only when a message names them, so no map of every id to
    /// every skill is held (at 100,000 skills of ten ids, a million names).
    pub fn declarers(&self, id: &ContractId) -> Vec<String> {
        let mut names: Vec<String> = self
            .skills
            .iter()
            .flat_map(|s| {
                s.declared
                    .iter()
                    .filter(|d| *d == id)
                    .map(|_| s.name.clone())
            })
            .collect();
        names.sort_by(|a, b| crate::digest::cmp_utf16(a, b));
        names
    }

    /// Reads `id`'s canonical text and conformance tree.
    ///
    /// # Errors
    /// [`asv_model::Error::NotUtf8`] for a text that is not UTF-8; a guarded-read refusal.
    pub fn canonical(&self, id: &ContractId) -> Result<Canonical> {
        let path = self.manifest.canonical_path(id);
        if let Some(Origin::Remote { source, .. }) = self.manifest.contracts.get(id) {
            return self.cached(id, source, path);
        }
        let body = match self.root.read_file_capped(
            &path,
            crate::document::DOCUMENT_LIMIT,
            crate::document::DOCUMENT_LIMIT_WHAT,
        )? {
            None => None,
            Some(bytes) => Some(Text::Held(CanonicalBody::from_vec(&path, bytes)?)),
        };
        let conformance =
            conformance_digest_gitignored(self.root, &manifest::conformance_dir(&path, id))?;
        Ok(Canonical {
            path,
            body,
            conformance,
            remote: None,
        })
    }

    /// A remote contract's text and tests, read from the cache at the commit the lock pins
    /// for `source`: unknown (`body: None`) without a pin or without the file.
    fn cached(&self, id: &ContractId, source: &SourceName, path: String) -> Result<Canonical> {
        let pin = self
            .lock_file
            .sources()
            .and_then(|pins| pins.get(source.as_str()));
        let Some(pin) = pin else {
            return Ok(Canonical {
                path,
                body: None,
                conformance: None,
                remote: Some(source.clone()),
            });
        };
        let site = crate::cache::site(source.as_str(), pin.revision.as_str(), &path);
        let cached = crate::cache::read_text(self.root, &site, id)?;
        let (body, conformance) = match cached {
            Some(c) => (Some(Text::Held(c.body)), c.conformance),
            None => (None, None),
        };
        Ok(Canonical {
            path: site,
            body,
            conformance,
            remote: Some(source.clone()),
        })
    }
}

/// The framed digest of the files under `dir` that `.gitignore` does not exclude; `None` when
/// there are none.
///
/// # Errors
/// A guarded-read refusal (a link or special file in the tree).
pub fn conformance_digest_gitignored(root: &Root, dir: &str) -> Result<Option<Digest>> {
    let Some(files) = ignore::unignored_files(root, dir)? else {
        return Ok(None);
    };
    super::framed::framed_digest(root, dir, files)
}

fn load_skills(root: &Root) -> Result<Vec<Skill>> {
    use rayon::prelude::*;

    let Some(entries) = root.read_dir(SKILLS_DIR)? else {
        return Ok(Vec::new());
    };
    let mut dirs = Vec::new();
    for entry in entries {
        // A staged or parked entry of an interrupted tree change (`.<name>.asv-staged-…`) is
        // this tool's residue, never a skill.
        if asv_fs::is_tree_change_residue(&entry.name) {
            continue;
        }
        let dir = join(SKILLS_DIR, &entry.name);
        match entry.kind {
            EntryKind::Directory => dirs.push(entry.name),
            EntryKind::Symlink => return Err(asv_fs::Error::Symlink { path: dir }.into()),
            _ => continue,
        }
    }
    // Each SKILL.md is read and parsed on its own; the first refusal in name order wins, so
    // the message does not depend on how the work was spread over threads.
    let mut skills = dirs
        .into_par_iter()
        .map(|name| {
            let skill_md = format!("{SKILLS_DIR}/{name}/{}", asv_model::layout::SKILL_MANIFEST);
            let front = match root.read_file_capped(
                &skill_md,
                asv_model::layout::SKILL_MANIFEST_LIMIT,
                asv_model::layout::SKILL_MANIFEST_LIMIT_WHAT,
            )? {
                None => None,
                Some(bytes) => declaration::read_frontmatter(&skill_md, &bytes)?,
            };
            let (declared, misplaced_contracts) = match front {
                None => (Vec::new(), None),
                Some(f) => (f.declared, f.misplaced_contracts),
            };
            Ok(Skill {
                name,
                declared,
                misplaced_contracts,
            })
        })
        .collect::<Vec<Result<Skill>>>()
        .into_iter()
        .collect::<Result<Vec<Skill>>>()?;
    skills.sort_by(|a, b| crate::digest::cmp_utf16(&a.name, &b.name));
    Ok(skills)
}
