//! The rename `skill add --name` makes, kept as the tool's own edit.
//!
//! `--name` sets the `name:` line of the skill's `SKILL.md` to the local name and keeps
//! upstream's version as the base. That one line is not the user's edit: a pull takes it out
//! before merging (so an upstream change beside it, in the description, is no conflict) and
//! puts it back after, and `skill status`, `skill remove` and sync's drop do not count it as a
//! local edit. A copy carries the rename when its `name:` is the local name, the base's is
//! another, and setting the copy's `name:` back to the base's gives the base's tree hash
//! exactly ([`is_clean`]); nothing in the lock has to say so, and a lock written before this
//! rule reads the same.

use asv_fs::Root;
use asv_skilltree::{SKILL_MANIFEST, SkillTree};

use crate::bases::base_dir;
use crate::error::Error;
use crate::manifest_name;

/// `tree` with the `name:` line of its SKILL.md frontmatter set to `name`, the rest of the
/// file byte for byte as it was (its line ending kept).
///
/// # Errors
/// [`Error::Rename`] when SKILL.md has no frontmatter with a one-line `name:` at its top level.
pub(crate) fn renamed(tree: &SkillTree, name: &str) -> Result<SkillTree, Error> {
    let refuse = || Error::Rename {
        name: name.to_owned(),
    };
    let manifest = tree.get(SKILL_MANIFEST).ok_or_else(refuse)?;
    let bytes = manifest.data.read()?;
    let text = std::str::from_utf8(&bytes).map_err(|_| refuse())?;
    let mut out = String::with_capacity(text.len() + name.len());
    let mut replaced = false;
    let mut in_frontmatter = false;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let content = line.trim_end_matches(['\n', '\r']);
        let bare = if i == 0 {
            content.strip_prefix('\u{feff}').unwrap_or(content)
        } else {
            content
        };
        if bare == "---" {
            if i == 0 {
                in_frontmatter = true;
            } else if in_frontmatter {
                in_frontmatter = false;
            }
        } else if in_frontmatter && !replaced && content.starts_with("name:") {
            out.push_str("name: ");
            out.push_str(name);
            out.push_str(&line[content.len()..]);
            replaced = true;
            continue;
        }
        out.push_str(line);
    }
    let mut files = tree.files().to_vec();
    for f in &mut files {
        if f.path == SKILL_MANIFEST {
            f.data = out.clone().into();
        }
    }
    let result = SkillTree::from_files(files)?;
    // The edit must read back as exactly this name (a folded or multi-line value would not).
    if !replaced || manifest_name(&result).as_deref() != Some(name) {
        return Err(refuse());
    }
    Ok(result)
}

/// The `name:` of the kept base with tree hash `base_hash`, read from its `SKILL.md` alone;
/// `None` when the base is not kept or gives no name.
///
/// # Errors
/// A guarded-read refusal.
fn kept_base_name(root: &Root, base_hash: &str) -> Result<Option<String>, Error> {
    let path = asv_fs::join(&base_dir(base_hash), SKILL_MANIFEST);
    let Some(bytes) = root.read_file_capped(
        &path,
        asv_model::layout::SKILL_MANIFEST_LIMIT,
        asv_model::layout::SKILL_MANIFEST_LIMIT_WHAT,
    )?
    else {
        return Ok(None);
    };
    Ok(name_in(&bytes))
}

/// The `name:` a `SKILL.md`'s bytes give, when it parses and gives one as text.
fn name_in(bytes: &[u8]) -> Option<String> {
    let front = asv_model::declaration::read_frontmatter(SKILL_MANIFEST, bytes).ok()??;
    match front.root.get("name")? {
        asv_model::yaml::Yaml::String(name) => Some(name.clone()),
        _ => None,
    }
}

/// `local` without the rename to `name`, as a pull merges it: its `name:` set back to
/// `base_name` when it carries the rename (its `name:` is `name`, the base's is another).
/// `None` when it does not carry one, or the line cannot be set.
pub(crate) fn unrenamed(
    local: &SkillTree,
    name: &str,
    base_name: Option<&str>,
) -> Option<SkillTree> {
    let base_name = base_name.filter(|b| *b != name)?;
    if manifest_name(local).as_deref() != Some(name) {
        return None;
    }
    renamed(local, base_name).ok()
}

/// Whether the local copy `local` of the imported skill `name` holds no edit of the user's:
/// it hashes to the base, or differs from it only by the tool's rename.
///
/// Only a copy that differs and whose `name:` is the local name costs a read: the kept base's
/// `SKILL.md`. A base that is not kept says "edited", the safe answer.
///
/// # Errors
/// A guarded-read refusal of the kept base's `SKILL.md`.
pub(crate) fn is_clean(
    root: &Root,
    name: &str,
    base_hash: &str,
    local: &SkillTree,
) -> Result<bool, Error> {
    let hash = local.hash();
    if hash == base_hash {
        return Ok(true);
    }
    if manifest_name(local).as_deref() != Some(name) {
        return Ok(false);
    }
    let base_name = kept_base_name(root, base_hash)?;
    Ok(unrenamed(local, name, base_name.as_deref()).is_some_and(|t| t.hash() == base_hash))
}
