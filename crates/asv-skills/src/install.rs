//! `skill install`: skills from a directory, a ZIP or a gzipped tar, placed where an agent
//! reads them, all in one transaction.
//!
//! Every skill of the input is found and checked against the Agent Skills rules before
//! anything is written, and all of them are placed by one plan of `asv-fs`'s tree-change layer:
//! either every skill lands or the destination is left as it was. An archive is read by
//! `asv-archive`'s strict reader and judged whole by its entry policy (no link, no special
//! file, no name that escapes or clashes) before a single member is used; nothing is ever
//! extracted by an archive library.
//!
//! With a required signature (`--signed-by`), the archive is read once into memory, its
//! detached `.sig` checked over those bytes against the allowed-signers file, and only then
//! are its entries read — from the same bytes, so what was checked is what is installed.

use std::path::Path;

use asv_archive::{Archive, ArchiveFormat, ArchiveInput, Limits, ReadOptions, place_of};
use asv_fs::{Change, Ownership, Plan, Root, WriterLock, join};
use asv_skilltree::{FileNode, SkillTree, is_ignored_name};

use crate::error::Error;
use crate::naming::{NamedBy, local_name};
use crate::paths::portable;
use crate::placing::fill_of;
use crate::validate::refuse_errors;
use crate::{Finding, Profile, manifest_name, validate_tree_as};

pub use crate::targets::{Scope, Target};

/// The most bytes of files an install from a directory reads, the bound an archive's
/// expanded contents have ([`Limits::DEFAULT`]): what one input path refuses, the other does
/// too, before the file that passes it is read (issue 15 §3).
pub const DIR_LIMIT: u64 = Limits::DEFAULT.max_expanded;
/// How a refusal names [`DIR_LIMIT`].
const DIR_LIMIT_WHAT: &str = "an install takes (as from an archive)";

/// One skill found in an install input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The name it installs under ([`local_name`]): its `SKILL.md` `name` when that is a
    /// skill name, else its directory's name.
    pub name: String,
    /// Where that name came from.
    pub named_by: NamedBy,
    /// The name of the directory (or, for a root skill, the input) it was found in.
    pub upstream: String,
    /// Its files.
    pub tree: SkillTree,
}

/// A signature an install input must carry (`skill install --signed-by`): a detached SSHSIG
/// in namespace [`asv_sign::PACK_NAMESPACE`] over the archive's bytes, by a key the
/// allowed-signers file holds.
#[derive(Debug, Clone, Copy)]
pub struct RequiredSignature<'a> {
    /// The allowed-signers file, parsed.
    pub allowed: &'a asv_sign::AllowedSigners,
    /// The allowed-signers file as messages name it.
    pub allowed_label: &'a str,
    /// The signature file (`<archive>.sig` unless named).
    pub signature: &'a Path,
    /// The signature file as messages name it.
    pub signature_label: &'a str,
}

/// The most bytes a signature file may hold: an SSHSIG is under 2 KiB even for an RSA-8192 key.
const SIGNATURE_LIMIT: u64 = 64 * 1024;

/// What `skill install` did (or, for a dry run, would do).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// Each skill: its name, its destination and its tree hash, by name.
    pub skills: Vec<(String, String, String)>,
    /// The plan: what was (or would be) done at each destination, in destination order.
    pub plan: Vec<asv_fs::PlannedChange>,
    /// Whether nothing was written.
    pub dry_run: bool,
    /// Warnings of the Agent Skills rules.
    pub warnings: Vec<Finding>,
    /// Who signed the archive, when a signature was required.
    pub signer: Option<asv_sign::Signer>,
    /// The input's digest ([`Input::digest`]).
    pub from_digest: String,
}

/// What an install input holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// Its skills ([`find`]).
    pub skills: Vec<Found>,
    /// The input's digest as `sha256:<hex>`: the SHA-256 of an archive's bytes, or the tree
    /// hash of a directory read whole (what a user install records as where its skills came
    /// from).
    pub digest: String,
    /// Who signed the archive, when a signature was required.
    pub signer: Option<asv_sign::Signer>,
}

/// The SHA-256 of `bytes` as `sha256:<hex>`.
fn sha256_text(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let mut text = String::from("sha256:");
    for b in Sha256::digest(bytes).iter() {
        text.push_str(&format!("{b:02x}"));
    }
    text
}

/// The SHA-256 of the file at `path`, read in pieces, as `sha256:<hex>`.
fn file_digest(path: &Path, label: &str) -> Result<String, Error> {
    use sha2::{Digest, Sha256};
    use std::io::Read;
    let unreadable = |_| Error::UnknownInput {
        input: label.to_owned(),
    };
    let mut file = std::fs::File::open(path).map_err(unreadable)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf).map_err(unreadable)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    let mut text = String::from("sha256:");
    for b in hasher.finalize().iter() {
        text.push_str(&format!("{b:02x}"));
    }
    Ok(text)
}

/// Names the archive format of `bytes` by its first bytes.
fn format_of(bytes: &[u8]) -> Option<ArchiveFormat> {
    if bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06") {
        Some(ArchiveFormat::Zip)
    } else if bytes.starts_with(&[0x1f, 0x8b]) {
        Some(ArchiveFormat::TarGz)
    } else {
        None
    }
}

/// The files of an archive, judged whole by the entry policy first; a host's litter
/// (`__MACOSX/`, `.DS_Store`, `Thumbs.db`, `.git`) is left out, as a directory read leaves it.
/// The archive is read from its file by offset and each member handed on in pieces, held in
/// memory while the allowance lasts and written aside past it, so an install's memory does not
/// follow the size of the archive or of its members.
fn archive_files(
    path: &Path,
    label: &str,
    signature: Option<&RequiredSignature<'_>>,
    signer: &mut Option<asv_sign::Signer>,
    held_digest: &mut Option<String>,
) -> Result<Vec<FileNode>, Error> {
    let file = asv_archive::open_archive_file(path, &Limits::DEFAULT)?;
    // The format is told by the first bytes alone.
    let Some(format) = format_of(&file.head(4)?) else {
        return Err(Error::UnknownInput {
            input: label.to_owned(),
        });
    };
    let options = ReadOptions {
        format,
        limits: Limits::DEFAULT,
    };
    let input = match signature {
        None => ArchiveInput::Opened {
            file,
            label: label.to_owned(),
        },
        Some(required) => {
            // Held whole (at most the archive limit) so that the bytes checked are the
            // bytes read: the file may change on disk after the check, the copy cannot.
            let bytes = file.head(usize::MAX)?;
            *signer = Some(check_signature(&bytes, label, required)?);
            *held_digest = Some(sha256_text(&bytes));
            ArchiveInput::Bytes {
                bytes,
                label: label.to_owned(),
            }
        }
    };
    let archive = Archive::open(input, &options)?;
    archive.judge()?;
    let mut files = Vec::new();
    for entry in archive.entries().iter().filter(|e| e.is_file()) {
        let place = place_of(&entry.name);
        if place.first() == Some(&"__MACOSX") || place.iter().any(|s| is_ignored_name(s)) {
            continue;
        }
        let mut receiver = asv_skilltree::FileData::receiver(entry.size)?;
        if let Err(e) = archive.copy_to(entry, &mut receiver) {
            // A write that failed is told by the receiver, whole; anything else by the archive.
            return Err(match receiver.failure() {
                Some(failure) => failure.into(),
                None => e.into(),
            });
        }
        files.push(FileNode {
            path: place.join("/"),
            data: receiver.finish()?,
            executable: entry.executable,
        });
    }
    Ok(files)
}

/// The skills of `whole` (paths relative to the input's root), found as `skill add` finds
/// them in a source ([`crate::discover`]): the whole input when it has a root `SKILL.md`,
/// else every directory holding one at any depth up to the bound (or named by a Claude Code
/// plugin manifest), what is beneath a skill being its own. `fallback` names a root skill
/// whose `SKILL.md` gives no name.
fn skills_of(whole: SkillTree, fallback: &str) -> Result<Vec<Found>, Error> {
    use crate::discover::{MARKETPLACE, candidates, manifests_wanted};
    if whole.has_manifest() {
        let (name, named_by) = local_name(None, manifest_name(&whole).as_deref(), fallback)?;
        return Ok(vec![Found {
            name,
            named_by,
            upstream: fallback.to_owned(),
            tree: whole,
        }]);
    }
    let dirs = {
        let files: std::collections::BTreeSet<&str> =
            whole.files().iter().map(|f| f.path.as_str()).collect();
        let read = |path: &str| {
            whole
                .get(path)
                .and_then(|f| f.data.read().ok())
                .map(|b| b.into_owned())
        };
        let mut manifests = std::collections::BTreeMap::new();
        for path in manifests_wanted(&files, None) {
            if let Some(bytes) = read(&path) {
                manifests.insert(path, bytes);
            }
        }
        let marketplace = manifests.get(MARKETPLACE).cloned();
        for path in manifests_wanted(&files, marketplace.as_deref()) {
            if let Some(bytes) = read(&path) {
                manifests.insert(path, bytes);
            }
        }
        candidates(&files, &manifests)
            .into_iter()
            .map(|c| c.dir)
            .collect::<Vec<String>>()
    };
    // Each file moves into the group of the skill it lies in: the input is never held twice.
    let mut groups: std::collections::BTreeMap<&str, Vec<FileNode>> = Default::default();
    for f in whole.into_files() {
        let Some(dir) = dirs.iter().find(|d| {
            f.path
                .strip_prefix(d.as_str())
                .is_some_and(|r| r.starts_with('/'))
        }) else {
            continue;
        };
        groups.entry(dir.as_str()).or_default().push(FileNode {
            path: f.path[dir.len() + 1..].to_owned(),
            data: f.data,
            executable: f.executable,
        });
    }
    let mut found = Vec::new();
    for (dir, files) in groups {
        let tree = SkillTree::from_files(files)?;
        let upstream = dir.rsplit('/').next().unwrap_or(dir);
        let (name, named_by) = local_name(None, manifest_name(&tree).as_deref(), upstream)?;
        found.push(Found {
            name,
            named_by,
            upstream: upstream.to_owned(),
            tree,
        });
    }
    Ok(found)
}

/// Checks `required`'s signature file over the archive `bytes`.
fn check_signature(
    bytes: &[u8],
    label: &str,
    required: &RequiredSignature<'_>,
) -> Result<asv_sign::Signer, Error> {
    let missing = || Error::SignatureMissing {
        input: label.to_owned(),
        signature: required.signature_label.to_owned(),
    };
    let name = required
        .signature
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(missing)?;
    let parent = match required.signature.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let dir = Root::open(parent).map_err(|_| missing())?;
    let armored = dir
        .read_file_capped(name, SIGNATURE_LIMIT, "a signature file holds")?
        .ok_or_else(missing)?;
    let detached =
        asv_sign::Detached::parse(&armored).map_err(|problem| Error::SignatureRefused {
            input: label.to_owned(),
            signature: required.signature_label.to_owned(),
            allowed: required.allowed_label.to_owned(),
            problem: Box::new(problem),
        })?;
    let mut hasher = detached.hasher();
    hasher.update(bytes);
    // Checked at the current time, as `ssh-keygen -Y verify` checks a file: a pack names no
    // time of its own, so a key past its `valid-before` no longer vouches for it.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .and_then(|d| i64::try_from(d.as_secs()).ok());
    detached
        .verify(required.allowed, asv_sign::PACK_NAMESPACE, hasher, now)
        .map_err(|problem| Error::SignatureRefused {
            input: label.to_owned(),
            signature: required.signature_label.to_owned(),
            allowed: required.allowed_label.to_owned(),
            problem: Box::new(problem),
        })
}

/// Finds the skills of `input` (a directory, a ZIP or a gzipped tar); `label` is how the
/// input is named in messages.
///
/// # Errors
/// [`Error::NoInput`] for nothing at `input`; [`Error::LinkInput`] for a link there;
/// [`Error::UnknownInput`] for anything but a directory, a ZIP or a gzipped tar;
/// [`Error::Archive`] for an archive refused (unreadable, unsafe entries, past the limits);
/// [`Error::SkillTree`] or [`Error::Fs`] for a link or special file in a directory;
/// [`Error::NoSkill`] for an input that holds no skill.
pub fn find(input: &Path, label: &str) -> Result<Vec<Found>, Error> {
    Ok(read_input(input, label, None)?.skills)
}

/// As [`find`], with the input's digest ([`Input`]); the input required to be an archive
/// signed as `signature` says when it is given (checked before any entry is read).
///
/// # Errors
/// As [`find`]; [`Error::SignedDirectory`] for a directory input with a required signature;
/// [`Error::SignatureMissing`] and [`Error::SignatureRefused`] for an archive without an
/// accepted signature.
pub fn read_input(
    input: &Path,
    label: &str,
    signature: Option<&RequiredSignature<'_>>,
) -> Result<Input, Error> {
    let mut signer = None;
    let meta = std::fs::symlink_metadata(input).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::NoInput {
            input: label.to_owned(),
        },
        _ => Error::UnknownInput {
            input: label.to_owned(),
        },
    })?;
    let fallback = input
        .file_name()
        .and_then(|n| n.to_str())
        .map(|n| {
            n.trim_end_matches(".zip")
                .trim_end_matches(".tar.gz")
                .trim_end_matches(".tgz")
                .to_owned()
        })
        .unwrap_or_default();
    if meta.file_type().is_symlink() {
        return Err(Error::LinkInput {
            input: label.to_owned(),
        });
    }
    let (found, digest) = if meta.is_dir() {
        if signature.is_some() {
            return Err(Error::SignedDirectory {
                input: label.to_owned(),
            });
        }
        let root = Root::open(input)?;
        let whole = SkillTree::read_capped(&root, "", DIR_LIMIT, DIR_LIMIT_WHAT).map_err(|e| {
            match e {
                // Named as the input was given, as every other refusal of it is.
                asv_skilltree::Error::TooLarge {
                    size, limit, what, ..
                } => asv_skilltree::Error::TooLarge {
                    path: label.to_owned(),
                    size,
                    limit,
                    what,
                },
                other => other,
            }
        })?;
        // Read whole (capped) so that a link or special file anywhere in the input refuses it;
        // the skills are then found in it wherever they lie, each file moved to its skill.
        let digest = whole.hash();
        (skills_of(whole, &fallback)?, digest)
    } else if meta.is_file() {
        let mut held_digest = None;
        let skills = skills_of(
            SkillTree::from_files(archive_files(
                input,
                label,
                signature,
                &mut signer,
                &mut held_digest,
            )?)?,
            &fallback,
        )?;
        // Read after the archive was judged, so a refused input costs no second pass; an
        // archive held in memory for its signature is hashed from those bytes.
        let digest = match held_digest {
            Some(digest) => digest,
            None => file_digest(input, label)?,
        };
        (skills, digest)
    } else {
        return Err(Error::UnknownInput {
            input: label.to_owned(),
        });
    };
    for skill in &found {
        crate::paths::refuse_residue(
            skill.tree.files().iter().map(|f| f.path.as_str()),
            &asv_fs::join(label, &skill.name),
        )?;
    }
    if found.is_empty() {
        return Err(Error::NoSkill {
            input: label.to_owned(),
        });
    }
    Ok(Input {
        skills: found,
        digest,
        signer,
    })
}

/// What `skill install` is asked to install, where, and whether it writes.
#[derive(Debug, Clone, Copy)]
pub struct InstallOptions<'a> {
    /// The directories of the destination every skill lands under, in the order reported (a
    /// directory named twice is written once).
    pub into: &'a [&'a str],
    /// The input: a skill directory, a directory of skills, a ZIP or a `.tar.gz`.
    pub input: &'a Path,
    /// The input as refusals and reports name it.
    pub label: &'a str,
    /// `--force`: what already stands at a skill's destination is replaced; without it, it
    /// refuses the whole install.
    pub force: bool,
    /// The writer lock of the destination, the proof that this run may write; `None` is a dry
    /// run, which plans and writes nothing.
    pub writer: Option<&'a WriterLock<'a>>,
    /// The signature the input must carry (`--signed-by`), checked before its entries are
    /// read; `None` takes it unsigned.
    pub signature: Option<&'a RequiredSignature<'a>>,
    /// The audit gate every skill passes before anything is written (a dry run too);
    /// `None` audits nothing.
    pub gate: Option<&'a crate::gate::Gate>,
}

/// Installs every skill of [`InstallOptions::input`] under each directory of
/// [`InstallOptions::into`] (all of `dest`) in one transaction: one plan, so either every
/// skill lands in every directory or none does. Without [`InstallOptions::force`], anything
/// already standing at a skill's destination refuses the whole install; with it, what stands
/// there is replaced. It writes under [`InstallOptions::writer`], the writer lock of `dest`;
/// without one (a dry run) it plans and writes nothing. The skills are reported directory by
/// directory, in the order given, by name within each.
///
/// # Errors
/// As [`find`]; [`Error::NoTarget`] for no directory at all; [`Error::DuplicateSkill`];
/// [`Error::Unwritable`] for a path some host cannot write; [`Error::BadName`] for a skill
/// name that is not one; [`Error::Invalid`] for any skill that breaks the rules;
/// [`Error::AlreadyInstalled`] for a destination already taken (without `force`); another
/// plan refusal (a link on the way); a write failure, after which every destination is as it
/// was. Under [`InstallOptions::gate`], [`Error::AuditRefused`] for an error finding the gate
/// does not let through.
pub fn install(dest: &Root, opts: &InstallOptions<'_>) -> Result<Installed, Error> {
    let (installed, plan) = prepare(dest, opts)?;
    if let Some(writer) = opts.writer {
        writer.apply(plan)?;
    }
    Ok(installed)
}

/// Everything [`install`] does short of writing: every check and refusal, and the plan that
/// places the skills, for a caller that writes something else first (a user install records
/// what it places before placing it). [`InstallOptions::writer`] only says whether the
/// report is a dry run's.
///
/// # Errors
/// As [`install`], short of a write failure.
pub fn prepare<'r>(
    dest: &'r Root,
    opts: &InstallOptions<'_>,
) -> Result<(Installed, Plan<'r>), Error> {
    let InstallOptions {
        into: intos,
        input,
        label,
        force,
        writer,
        signature,
        gate,
    } = *opts;
    let dry_run = writer.is_none();
    let mut dirs: Vec<&str> = Vec::with_capacity(intos.len());
    for into in intos {
        let into = into.trim_end_matches('/');
        if !dirs.contains(&into) {
            dirs.push(into);
        }
    }
    if dirs.is_empty() {
        return Err(Error::NoTarget);
    }
    let Input {
        skills: mut found,
        digest: from_digest,
        signer,
    } = read_input(input, label, signature)?;
    found.sort_by(|a, b| a.name.cmp(&b.name));
    if let Some(w) = found.windows(2).find(|w| w[0].name == w[1].name) {
        return Err(Error::DuplicateSkill {
            input: label.to_owned(),
            name: w[0].name.clone(),
        });
    }
    // Directories and archives answer to one name policy: what an archive may not hold, a
    // directory may not install either (a name Windows cannot write, two names one on a
    // case-folding volume).
    let paths: Vec<String> = found
        .iter()
        .flat_map(|s| {
            s.tree
                .files()
                .iter()
                .map(move |f| format!("{}/{}", s.name, f.path))
        })
        .collect();
    portable(label, &paths)?;
    let mut warnings = Vec::new();
    let mut changes = Vec::with_capacity(found.len() * dirs.len());
    let mut skills = Vec::with_capacity(found.len() * dirs.len());
    let ownership = if force {
        Ownership::Force
    } else {
        Ownership::MustBeFree
    };
    // Each skill is judged once, where it lands first; the other directories get the same
    // bytes.
    // Every name is a skill name already ([`local_name`]).
    for skill in &found {
        warnings.extend(refuse_errors(
            validate_tree_as(&skill.tree, &join(dirs[0], &skill.name), Profile::Consumer)?,
            crate::error::Remedy::FixInput,
        )?);
        skill.tree.check_paths()?;
    }
    if let Some(gate) = gate {
        let incoming: Vec<_> = found
            .iter()
            .map(|s| (s.name.as_str(), join(dirs[0], &s.name), &s.tree))
            .collect();
        gate.check(&incoming)?;
    }
    let hashes: Vec<String> = found.iter().map(|s| s.tree.hash()).collect();
    let (last, others) = dirs.split_last().ok_or(Error::NoTarget)?;
    for into in others {
        for (skill, hash) in found.iter().zip(&hashes) {
            let dir = join(into, &skill.name);
            changes.push(Change::replace(
                dir.clone(),
                fill_of(dest, &skill.tree),
                ownership.clone(),
            ));
            skills.push((skill.name.clone(), dir, hash.clone()));
        }
    }
    // The last directory takes the trees themselves: an install into one directory holds
    // each file once.
    for (skill, hash) in found.into_iter().zip(hashes) {
        let dir = join(last, &skill.name);
        changes.push(Change::replace(
            dir.clone(),
            fill_of(dest, &skill.tree),
            ownership.clone(),
        ));
        skills.push((skill.name, dir, hash));
    }
    let plan = Plan::new(dest, changes).map_err(|e| match e {
        asv_fs::Error::DestOccupied { dest, .. } => Error::AlreadyInstalled { path: dest },
        other => Error::Fs(other),
    })?;
    let description: Vec<asv_fs::PlannedChange> = plan.changes().cloned().collect();
    Ok((
        Installed {
            skills,
            plan: description,
            dry_run,
            warnings,
            from_digest,
            signer,
        },
        plan,
    ))
}
