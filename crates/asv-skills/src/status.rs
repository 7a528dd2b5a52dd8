//! `skill status`: the state of every imported skill, judged offline from the skill lock, the
//! local copy and its kept base.

use std::collections::BTreeSet;
use std::sync::Arc;

use asv_fs::{EntryKind, Root};
use asv_skilltree::SkillTree;

use crate::error::Error;
use crate::lock::SkillLock;
use crate::paths::skill_dir;
use crate::{Finding, Profile, Severity, validate_tree_as};

/// The state of one imported skill, judged offline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// The local copy is its base, unchanged.
    Clean,
    /// The local copy has edits.
    Modified,
    /// `skills/<name>` is gone.
    Missing,
    /// The local copy cannot be read as a skill or breaks the rules: why.
    Invalid(Invalid),
    /// A pull wrote conflicts that wait for `skill resolve`.
    Conflicted,
}

impl State {
    /// The state as printed: `clean`, `modified`, `missing`, `invalid`, `conflicted`.
    pub fn as_str(&self) -> &'static str {
        match self {
            State::Clean => "clean",
            State::Modified => "modified",
            State::Missing => "missing",
            State::Invalid(_) => "invalid",
            State::Conflicted => "conflicted",
        }
    }
}

/// Why a skill is invalid (its `Display` is the reason `status` and `list` print).
#[derive(Debug, Clone)]
pub enum Invalid {
    /// Its directory is a link, which no command follows.
    Linked {
        /// The skill's directory.
        path: String,
    },
    /// It could not be read as a skill tree.
    Unreadable(Arc<asv_skilltree::Error>),
    /// It breaks a rule: the first error found.
    Breaks(Box<Finding>),
}

impl Invalid {
    /// [`Invalid::Unreadable`] of `error`.
    pub fn unreadable(error: asv_skilltree::Error) -> Self {
        Invalid::Unreadable(Arc::new(error))
    }
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Invalid::Linked { path } => write!(f, "{}", Error::LinkedSkill { path: path.clone() }),
            Invalid::Unreadable(error) => write!(f, "{error}"),
            Invalid::Breaks(finding) => write!(f, "{}: {}", finding.path, finding.problem),
        }
    }
}

/// Two read failures are the same reason when they say the same (an I/O error has no
/// equality of its own); the other reasons compare by their facts.
impl PartialEq for Invalid {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Invalid::Linked { path: a }, Invalid::Linked { path: b }) => a == b,
            (Invalid::Unreadable(a), Invalid::Unreadable(b)) => a.to_string() == b.to_string(),
            (Invalid::Breaks(a), Invalid::Breaks(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Invalid {}

/// One line of `skill status`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// The local name.
    pub name: String,
    /// Its state.
    pub state: State,
    /// The source as recorded.
    pub source: String,
    /// The locked revision.
    pub revision: String,
    /// The revision a pull found the skill gone upstream at, when it did (empty for a local
    /// directory): the copy is kept as it is.
    pub removed_upstream: Option<String>,
}

/// `skill status`: the state of every imported skill, by name, offline.
///
/// # Errors
/// A lock that cannot be read; a guarded-read failure other than a refusal of the skill's
/// own content (which is [`State::Invalid`]).
pub fn status(root: &Root) -> Result<Vec<Status>, Error> {
    status_of(root, &[])
}

/// `skill status <name>…`: [`status`] of the named imported skills only (every one when
/// `names` is empty; a name given twice counts once), by name. Only the named skills are read,
/// so a look at one skill costs one skill, not the repository.
///
/// # Errors
/// As [`status`]; [`Error::OwnSkill`] or [`Error::NotImportedAmong`] for a name given that is
/// not imported, as `skill pull`, `outdated` and `remove` refuse it.
pub fn status_of(root: &Root, names: &[String]) -> Result<Vec<Status>, Error> {
    let lock = SkillLock::load(root)?;
    let chosen: BTreeSet<String> = crate::lock::imported_names(root, &lock, names)?
        .into_iter()
        .collect();
    let mut out = Vec::with_capacity(lock.skills.len());
    for (name, entry) in &lock.skills {
        if !names.is_empty() && !chosen.contains(name) {
            continue;
        }
        let dir = skill_dir(name);
        let kind = root.kind(&dir)?;
        let state = if kind.is_none() {
            State::Missing
        } else if kind == Some(EntryKind::Symlink) {
            // Said as every command says it, not as the read's refusal.
            State::Invalid(Invalid::Linked { path: dir })
        } else if entry.pending.is_some() {
            State::Conflicted
        } else {
            match SkillTree::read(root, &dir)
                // An import is judged as it was taken: by the consumer's rules.
                .and_then(|tree| {
                    validate_tree_as(&tree, &dir, Profile::Consumer).map(|found| (tree, found))
                }) {
                Err(e) => State::Invalid(Invalid::unreadable(e)),
                Ok((tree, findings)) => {
                    match findings.into_iter().find(|f| f.severity == Severity::Error) {
                        Some(f) => State::Invalid(Invalid::Breaks(Box::new(f))),
                        None if crate::rename::is_clean(root, name, &entry.base_hash, &tree)? => {
                            State::Clean
                        }
                        None => State::Modified,
                    }
                }
            }
        };
        out.push(Status {
            name: name.clone(),
            state,
            source: entry.source.clone(),
            revision: entry.revision.clone(),
            removed_upstream: entry.removed_upstream.clone(),
        });
    }
    Ok(out)
}
