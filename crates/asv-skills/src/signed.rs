//! Signed rows (issue 33 §1): a row of `vendor-skills.yaml` with `signed-by: FILE` takes only
//! commits signed by a key of `FILE`, an OpenSSH allowed-signers file committed in this
//! repository — or, when the row's ref is a tag or a semver range of tags, only commits whose
//! tag is a signed annotated tag by such a key. `skill add`, `pull`, `sync` (taking a skill up
//! and restoring one) and `outdated` check it; the lock records who signed each pin, and a
//! pull to a commit signed by another key than the pin before it is said once and refused
//! unless accepted.
//!
//! The check is made in process, by `asv-sign`, over the raw commit and tag objects the git
//! transport read in the conversation that fetched them (each checked to hash to its id), not
//! by running `git verify-commit`: git checks an SSH signature by running `ssh-keygen`, with
//! the repository's and the user's configuration in play (`gpg.ssh.program`, an allowed
//! signers file of its own), so the answer would depend on the machine; in process it is the
//! same everywhere, needs no OpenSSH, and costs no process. The signature is checked in
//! namespace `git` at the committer's (or tagger's) time, as git checks it, so a key's
//! `valid-after`/`valid-before` judge when the object was signed.
//!
//! A source read through the GitHub API cannot be checked: the API says whether GitHub found a
//! signature good, and hands out the signature, but not the object bytes it was made over, so
//! nothing it says can be held to this repository's allowed-signers file. A signed row needs
//! a git URL (`https://github.com/OWNER/REPO.git` reads the same repository through git).

use asv_fs::Root;
use asv_sign::AllowedSigners;

use crate::error::{Error, SignatureFound, SignedRefusal};
use crate::lock::SignerRecord;
use crate::sources::{Reach, Sources};
use crate::upstream::{Source, pinned_commit};

/// A skill's signed row: its name and its allowed-signers file, read and parsed.
#[derive(Debug, Clone)]
pub(crate) struct SignedRow {
    /// The skill.
    pub(crate) name: String,
    /// The allowed-signers file, as the row names it (from the repository root).
    pub(crate) file: String,
    allowed: AllowedSigners,
}

impl SignedRow {
    /// The row of `name` signed by `file`, for `source`: refused before any source is reached
    /// when the source cannot show signatures (the GitHub API) or the file cannot be used.
    ///
    /// # Errors
    /// [`SignedRefusal::NeedsGit`], [`SignedRefusal::FileMissing`],
    /// [`SignedRefusal::FileUnusable`]; a guarded-read refusal of the file.
    pub(crate) fn open(
        root: &Root,
        name: &str,
        file: &str,
        source: &Source,
    ) -> Result<SignedRow, Error> {
        if let Source::Remote(spec) = source
            && spec.is_github()
        {
            return Err(SignedRefusal::NeedsGit {
                name: name.to_owned(),
                source: spec.as_str().to_owned(),
                file: file.to_owned(),
            }
            .into());
        }
        if let Err(problem) = asv_skilltree::validate_stored_path(file) {
            return Err(SignedRefusal::FileUnusable {
                file: file.to_owned(),
                problem: format!(
                    "the path {problem}; name a file of this repository from its root"
                ),
            }
            .into());
        }
        let allowed = read_allowed(root, name, file)?;
        Ok(SignedRow {
            name: name.to_owned(),
            file: file.to_owned(),
            allowed,
        })
    }

    /// The signer of `revision` of `source`, which the row's ref `reference` named (and, for a
    /// semver range, the tag `picked`): the tag's signer when the ref is a tag or a range, else
    /// the commit's.
    ///
    /// # Errors
    /// [`SignedRefusal::Refused`] naming what was found; [`SignedRefusal::NoCommit`] for a
    /// local directory read as it stands; [`SignedRefusal::NeedsGit`] for a transport that
    /// hands out no raw objects; a transport refusal.
    pub(crate) fn check(
        &self,
        root: &Root,
        source: &Source,
        reference: Option<&str>,
        picked: Option<&str>,
        revision: &str,
        sources: &Sources<'_>,
    ) -> Result<SignerRecord, Error> {
        let reach = match source {
            _ if crate::lock::is_tree_hash(revision) => None,
            Source::Local(dir) => Some(Reach::LocalGit(dir.clone())),
            Source::Remote(spec) => Some(Reach::Remote(spec.clone())),
        };
        let Some(reach) = reach else {
            return Err(SignedRefusal::NoCommit {
                name: self.name.clone(),
                file: self.file.clone(),
            }
            .into());
        };
        let asked = picked.or(reference);
        let commit = pinned_commit(revision);
        let Some(provenance) = sources.with(root, &reach, |t| Ok(t.provenance(&commit, asked)?))?
        else {
            return Err(SignedRefusal::NeedsGit {
                name: self.name.clone(),
                source: source.as_str().to_owned(),
                file: self.file.clone(),
            }
            .into());
        };
        let refuse = |found: SignatureFound| -> Error {
            SignedRefusal::Refused {
                name: self.name.clone(),
                commit: revision.to_owned(),
                file: self.file.clone(),
                found,
            }
            .into()
        };
        let signer = match (provenance.tag, picked) {
            (None, Some(tag)) => {
                return Err(refuse(SignatureFound::TagGone {
                    tag: tag.to_owned(),
                }));
            }
            (None, None) => asv_sign::git::verify_commit(&provenance.commit, &self.allowed)
                .map_err(|problem| refuse(SignatureFound::Commit(problem)))?,
            (Some(asv_remote::TagObject::Lightweight { name, .. }), _) => {
                return Err(refuse(SignatureFound::Lightweight { tag: name }));
            }
            (
                Some(asv_remote::TagObject::Annotated {
                    name, target, raw, ..
                }),
                _,
            ) => {
                if target != revision {
                    return Err(refuse(SignatureFound::TagElsewhere { tag: name, target }));
                }
                asv_sign::git::verify_tag(&raw, &self.allowed).map_err(|problem| {
                    refuse(SignatureFound::Tag {
                        tag: name.clone(),
                        problem,
                    })
                })?
            }
        };
        Ok(SignerRecord::of(&signer))
    }

    /// The signer of the pin `entry` records: offline, when the pin's files came from its kept
    /// base (`fetched` false) and the lock records a signer the file still holds; else checked
    /// from the source as [`SignedRow::check`] checks a new pin.
    ///
    /// # Errors
    /// As [`SignedRow::check`].
    pub(crate) fn check_pinned(
        &self,
        root: &Root,
        entry: &crate::lock::Entry,
        sources: &Sources<'_>,
        fetched: bool,
    ) -> Result<SignerRecord, Error> {
        if !fetched
            && let Some(signer) = &entry.signer
            && self.holds(signer)
        {
            return Ok(signer.clone());
        }
        let source = Source::parse(&entry.source)?;
        self.check(
            root,
            &source,
            entry.reference.as_deref(),
            entry.tag.as_deref(),
            &entry.revision,
            sources,
        )
    }

    /// Whether the allowed-signers file still holds `signer`'s key for its principal: what
    /// `skill verify` can check offline.
    pub(crate) fn holds(&self, signer: &SignerRecord) -> bool {
        self.allowed.holds(&signer.principal, &signer.key)
    }
}

/// Reads and parses the allowed-signers file `file` of `name`'s row.
fn read_allowed(root: &Root, name: &str, file: &str) -> Result<AllowedSigners, Error> {
    let Some(bytes) = root.read_file_capped(
        file,
        asv_model::layout::SETTINGS_LIMIT,
        asv_model::layout::SETTINGS_LIMIT_WHAT,
    )?
    else {
        return Err(SignedRefusal::FileMissing {
            name: name.to_owned(),
            file: file.to_owned(),
        }
        .into());
    };
    let unusable = |problem: String| -> Error {
        SignedRefusal::FileUnusable {
            file: file.to_owned(),
            problem,
        }
        .into()
    };
    let text = std::str::from_utf8(&bytes).map_err(|_| unusable("not UTF-8".to_owned()))?;
    AllowedSigners::parse(text).map_err(|e| unusable(e.to_string()))
}

/// Refuses `now` when it is signed by another key than `was` (the signer the lock records for
/// the pin before), unless `accept` (`--accept-signer-change`, for one run).
///
/// # Errors
/// [`SignedRefusal::SignerChanged`] naming both keys.
pub(crate) fn refuse_change(
    row: &SignedRow,
    commit: &str,
    was: Option<&SignerRecord>,
    now: &SignerRecord,
    accept: bool,
) -> Result<(), Error> {
    match was {
        Some(was) if was.key != now.key && !accept => Err(SignedRefusal::SignerChanged {
            name: row.name.clone(),
            commit: commit.to_owned(),
            file: row.file.clone(),
            was: was.clone(),
            now: now.clone(),
        }
        .into()),
        _ => Ok(()),
    }
}

/// What `skill verify` finds wrong, offline, with the pin of `name`'s row signed by `file`
/// (`None`: nothing): the file cannot be used, the lock records no signer for the pin, or the
/// file no longer holds the signer's key for its principal. Whether the pin's signature is
/// good was judged when it was taken; its bytes are not at hand offline.
pub(crate) fn recheck(
    root: &Root,
    name: &str,
    file: &str,
    entry: &crate::lock::Entry,
) -> Option<Error> {
    let source = match Source::parse(&entry.source) {
        Ok(source) => source,
        Err(e) => return Some(e),
    };
    let row = match SignedRow::open(root, name, file, &source) {
        Ok(row) => row,
        Err(e) => return Some(e),
    };
    match &entry.signer {
        None => Some(
            SignedRefusal::Unrecorded {
                name: name.to_owned(),
                file: file.to_owned(),
            }
            .into(),
        ),
        Some(signer) if !row.holds(signer) => Some(
            SignedRefusal::NotHeld {
                name: name.to_owned(),
                file: file.to_owned(),
                signer: signer.clone(),
            }
            .into(),
        ),
        Some(_) => None,
    }
}
