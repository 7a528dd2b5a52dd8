//! Why a skill of a signed row is refused (issue 33 §1): its source cannot show signatures,
//! its allowed-signers file cannot be read, or the pinned commit or tag is not signed by a key
//! of it.

use std::fmt;

use asv_error::quote::json_string;
use asv_error::{Location, Side};

use crate::signer::SignerRecord;

/// A refusal of a skill whose row in `vendor-skills.yaml` names an allowed-signers file
/// (`signed-by`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignedRefusal {
    /// The source is read through the GitHub API, which hands out no raw objects.
    NeedsGit {
        /// The skill.
        name: String,
        /// The source as written (`owner/repo`).
        source: String,
        /// The allowed-signers file.
        file: String,
    },
    /// The source is a local directory read as it stands: there is no commit to check.
    NoCommit {
        /// The skill.
        name: String,
        /// The allowed-signers file.
        file: String,
    },
    /// The allowed-signers file is not in the repository.
    FileMissing {
        /// The skill.
        name: String,
        /// The allowed-signers file.
        file: String,
    },
    /// The allowed-signers file is no OpenSSH allowed-signers file (or not UTF-8).
    FileUnusable {
        /// The allowed-signers file.
        file: String,
        /// What is wrong with it.
        problem: String,
    },
    /// The pinned commit (or its tag) is not signed as the file asks.
    Refused {
        /// The skill.
        name: String,
        /// The commit id.
        commit: String,
        /// The allowed-signers file.
        file: String,
        /// What was found.
        found: SignatureFound,
    },
    /// The lock records no signer for a signed row's pin (`skill verify`): it was pinned
    /// before the row named the file.
    Unrecorded {
        /// The skill.
        name: String,
        /// The allowed-signers file.
        file: String,
    },
    /// The allowed-signers file no longer holds the signer the lock records (`skill verify`).
    NotHeld {
        /// The skill.
        name: String,
        /// The allowed-signers file.
        file: String,
        /// The signer the lock records.
        signer: SignerRecord,
    },
    /// The new commit is signed by another key than the pin before it.
    SignerChanged {
        /// The skill.
        name: String,
        /// The new commit id.
        commit: String,
        /// The allowed-signers file.
        file: String,
        /// The signer the lock records.
        was: SignerRecord,
        /// The new commit's signer.
        now: SignerRecord,
    },
}

/// What a signature check found at a commit that is refused.

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignatureFound {
    /// The commit's own signature is missing or not accepted.
    Commit(asv_sign::SignatureProblem),
    /// The tag's signature is missing or not accepted.
    Tag {
        /// The tag.
        tag: String,
        /// Why it is not accepted.
        problem: asv_sign::SignatureProblem,
    },
    /// The tag is a lightweight tag: nothing to sign.
    Lightweight {
        /// The tag.
        tag: String,
    },
    /// The tag names another commit than the one pinned.
    TagElsewhere {
        /// The tag.
        tag: String,
        /// The commit it names.
        target: String,
    },
    /// The tag a semver range picked is no longer in the source.
    TagGone {
        /// The tag.
        tag: String,
    },
}

impl fmt::Display for SignatureFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SignatureFound::Commit(problem) => problem.fmt(f),
            SignatureFound::Tag { tag, problem } => write!(f, "its tag {tag}: {problem}"),
            SignatureFound::Lightweight { tag } => write!(
                f,
                "its tag {tag} is a lightweight tag, which carries no signature (a signed row at a tag needs a signed annotated tag, git tag -s)"
            ),
            SignatureFound::TagElsewhere { tag, target } => write!(
                f,
                "its tag {tag} names commit {} now",
                asv_model::source::short(target)
            ),
            SignatureFound::TagGone { tag } => {
                write!(f, "its tag {tag} is no longer in the source")
            }
        }
    }
}

impl fmt::Display for SignedRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SignedRefusal::NeedsGit { name, source, file } => write!(
                f,
                "{name}: signed-by {file} needs a git URL, and {source} is read through the GitHub API, which says whether GitHub found a signature good but not which bytes were signed, so nothing can be checked against {file}; write the source as https://github.com/{source}.git"
            ),
            SignedRefusal::NoCommit { name, file } => write!(
                f,
                "{name}: signed-by {file} checks commits, and a local directory read as it stands has none; take it from its git repository at a ref, or drop signed-by"
            ),
            SignedRefusal::FileMissing { name, file } => write!(
                f,
                "{file}: not found, and {name}'s row names it as its allowed-signers file (signed-by); commit the file, or correct the path"
            ),
            SignedRefusal::FileUnusable { file, problem } => write!(
                f,
                "{file}: {problem}; an allowed-signers line is `principals [options] key-type base64-key` (see ssh-keygen(1), ALLOWED SIGNERS)"
            ),
            SignedRefusal::Refused {
                name,
                commit,
                file,
                found,
            } => {
                let advice = match found {
                    SignatureFound::Commit(asv_sign::SignatureProblem::KeyNotAllowed {
                        ..
                    })
                    | SignatureFound::Tag {
                        problem: asv_sign::SignatureProblem::KeyNotAllowed { .. },
                        ..
                    } => format!(
                        "add that key to {file} only if you trust its holder, or pin a commit signed by a key it holds"
                    ),
                    SignatureFound::Commit(_) => format!(
                        "pin a commit signed by a key of {file} (signed-by), or ask upstream to sign with one"
                    ),
                    _ => format!(
                        "follow a tag signed (git tag -s) by a key of {file} (signed-by), or ask upstream to sign its tags with one"
                    ),
                };
                write!(
                    f,
                    "{name}: commit {} is refused: {found}; {advice}",
                    asv_model::source::short(commit)
                )
            }
            SignedRefusal::Unrecorded { name, file } => write!(
                f,
                "{name}: its row names {file} (signed-by), but the lock records no signer for its pin (pinned before signed-by was set); run skill pull {name} to check the pin and record its signer"
            ),
            SignedRefusal::NotHeld { name, file, signer } => write!(
                f,
                "{name}: the lock records its pin as signed by {} (key {}), which {file} no longer holds for that principal; if the key was withdrawn, pin a commit signed by a key the file holds (skill pull {name}); else put its line back",
                json_string(&signer.principal),
                signer.key
            ),
            SignedRefusal::SignerChanged {
                name,
                commit,
                file,
                was,
                now,
            } => write!(
                f,
                "{name}: commit {} is signed by {} (key {}), and the pin before it by {} (key {}); both keys are in {file}, but a new signer is said once: check that upstream changed keys on purpose, then run again with --accept-signer-change",
                asv_model::source::short(commit),
                json_string(&now.principal),
                now.key,
                json_string(&was.principal),
                was.key
            ),
        }
    }
}

impl SignedRefusal {
    /// Which side the refusal lies with: the file and the row are the user's input; what the
    /// source signed (or did not) is the environment's.
    pub fn side(&self) -> Side {
        match self {
            SignedRefusal::NeedsGit { .. }
            | SignedRefusal::NoCommit { .. }
            | SignedRefusal::FileMissing { .. }
            | SignedRefusal::FileUnusable { .. }
            | SignedRefusal::Unrecorded { .. }
            | SignedRefusal::NotHeld { .. } => Side::Input,
            SignedRefusal::Refused { .. } | SignedRefusal::SignerChanged { .. } => {
                Side::Environment
            }
        }
    }

    /// The file the refusal is about.
    pub fn location(&self) -> Option<Location> {
        match self {
            SignedRefusal::NeedsGit { .. } | SignedRefusal::NoCommit { .. } => {
                Some(Location::file(asv_model::layout::SKILL_INTENT))
            }
            SignedRefusal::FileMissing { file, .. }
            | SignedRefusal::FileUnusable { file, .. }
            | SignedRefusal::Refused { file, .. }
            | SignedRefusal::NotHeld { file, .. } => Some(Location::file(file.clone())),
            SignedRefusal::SignerChanged { .. } | SignedRefusal::Unrecorded { .. } => {
                Some(Location::file(asv_model::layout::SKILL_LOCK))
            }
        }
    }
}

impl std::error::Error for SignedRefusal {}
