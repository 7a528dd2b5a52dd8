//! Finding the skills a source holds, wherever they are (issue 31 §1): what `skill add` with
//! no path lists and offers, and what `skill install` takes from a directory of skills.
//!
//! The rule works on a listing of file paths (a commit's tree, or a directory as git would
//! commit it), so every transport answers it alike and only the `SKILL.md` files found (and
//! at most a few plugin manifests) are read:
//!
//! - a directory holding a `SKILL.md` is a skill, and everything beneath it is its own: a
//!   `SKILL.md` deeper inside a skill (a template, an example) is no second skill. A root
//!   `SKILL.md` therefore makes the whole start directory the one skill;
//! - skills are looked for at any depth up to [`MAX_DEPTH`] directories below the start, so
//!   `skills/*`, `.claude/skills/*`, `plugins/*/skills/*` and other nested layouts are found
//!   without naming them; `.git` and `node_modules` are never looked into;
//! - a Claude Code plugin marketplace (`.claude-plugin/marketplace.json`) names its plugins'
//!   directories, and a plugin (`.claude-plugin/plugin.json`, at the start or in each plugin's
//!   directory) may name skill paths of its own: each plugin's `skills/` and each named path
//!   is searched whatever its depth, and the skills there carry the plugin's name. Only paths
//!   inside the source count (`./…`, no `..`); a plugin kept in another repository is left
//!   out.

use std::collections::{BTreeMap, BTreeSet};

use asv_model::yaml::Yaml;
use asv_skilltree::SKILL_MANIFEST;

/// How many directories below the start a skill directory may lie and still be found without
/// a plugin manifest naming it (`plugins/<plugin>/skills/<skill>` is 4; the peer tool
/// `npx skills` walks 5 levels as well).
pub const MAX_DEPTH: usize = 5;

/// Directory names never looked into: a repository's own database and installed packages,
/// which hold other projects' files, skills included.
pub const SKIPPED_DIRS: [&str; 2] = [".git", "node_modules"];

/// The manifest of a Claude Code plugin marketplace, from the start directory.
pub const MARKETPLACE: &str = ".claude-plugin/marketplace.json";
/// The manifest of one Claude Code plugin, from the plugin's directory.
pub const PLUGIN: &str = ".claude-plugin/plugin.json";

/// A skill directory found, before its `SKILL.md` is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Its path below the start (`.` for the start itself).
    pub dir: String,
    /// The plugin whose manifest led to it, when one did.
    pub plugin: Option<String>,
}

/// A skill found in a source, with what its `SKILL.md` says of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovered {
    /// Its path in the source (from the source's root, `.` for the root itself).
    pub path: String,
    /// The name it would be taken under: its frontmatter `name`, else its directory's name.
    pub name: String,
    /// Its frontmatter `description`, when it has one (on one line).
    pub description: Option<String>,
    /// The plugin whose manifest named it, when one did.
    pub plugin: Option<String>,
}

/// The plugin manifests [`candidates`] reads, by path below the start: the marketplace, the
/// start's own plugin manifest, and (after the marketplace is read) each listed plugin's.
pub fn manifests_wanted(files: &BTreeSet<&str>, marketplace: Option<&[u8]>) -> Vec<String> {
    let mut wanted = Vec::new();
    for path in [MARKETPLACE, PLUGIN] {
        if files.contains(path) {
            wanted.push(path.to_owned());
        }
    }
    if let Some(bytes) = marketplace {
        for plugin in marketplace_plugins(bytes) {
            let path = join_dir(&plugin.dir, PLUGIN);
            if files.contains(path.as_str()) && !wanted.contains(&path) {
                wanted.push(path);
            }
        }
    }
    wanted
}

/// One plugin a marketplace lists: its name and directory below the start.
struct Plugin {
    name: Option<String>,
    dir: String,
    skills: Vec<String>,
}

/// The local plugins of a marketplace manifest (`plugins[].source` a `./…` path, under
/// `metadata.pluginRoot` when given); an unreadable manifest lists none.
fn marketplace_plugins(bytes: &[u8]) -> Vec<Plugin> {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return Vec::new();
    };
    let plugin_root = match value.pointer("/metadata/pluginRoot") {
        None => Some(".".to_owned()),
        Some(serde_json::Value::String(s)) => inside(s),
        Some(_) => None,
    };
    let Some(plugin_root) = plugin_root else {
        return Vec::new();
    };
    let Some(plugins) = value.get("plugins").and_then(|p| p.as_array()) else {
        return Vec::new();
    };
    plugins
        .iter()
        .filter_map(|p| {
            let dir = match p.get("source") {
                None => ".".to_owned(),
                Some(serde_json::Value::String(s)) => inside(s)?,
                // An object names a plugin kept elsewhere (another repository).
                Some(_) => return None,
            };
            Some(Plugin {
                name: p.get("name").and_then(|n| n.as_str()).map(str::to_owned),
                dir: join_dir(&plugin_root, &dir),
                skills: skill_paths(p),
            })
        })
        .collect()
}

/// The `skills` paths a plugin entry or manifest names (a string or a list of strings), each
/// kept only when it stays inside.
fn skill_paths(value: &serde_json::Value) -> Vec<String> {
    match value.get("skills") {
        Some(serde_json::Value::String(s)) => inside(s).into_iter().collect(),
        Some(serde_json::Value::Array(list)) => list
            .iter()
            .filter_map(|s| s.as_str().and_then(inside))
            .collect(),
        _ => Vec::new(),
    }
}

/// A manifest's relative path (`./a/b`, as Claude Code writes them) as a path below the start
/// (`.` for the start); `None` for one that does not start with `./`, or leaves the start.
fn inside(given: &str) -> Option<String> {
    let rest = given.strip_prefix("./")?;
    let mut parts = Vec::new();
    for part in rest.split('/') {
        match part {
            "" | "." => {}
            ".." => return None,
            other => parts.push(other),
        }
    }
    Some(if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    })
}

/// `dir` (`.` for the start) joined with `rel`.
fn join_dir(dir: &str, rel: &str) -> String {
    match (dir, rel) {
        (".", r) => r.to_owned(),
        (d, ".") => d.to_owned(),
        (d, r) => format!("{d}/{r}"),
    }
}

/// The parent of a file path below the start (`.` for a file at the start).
fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or(".", |(p, _)| p)
}

/// Whether `path` (below the start) lies at or under `dir`.
fn under(path: &str, dir: &str) -> bool {
    dir == "." || path == dir || path.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
}

/// The skill directories of a listing, by the rule of this module. `files` are the file
/// paths below the start; `manifests` the plugin manifests read of those
/// [`manifests_wanted`] named (path below the start, bytes). Sorted by path.
pub fn candidates(files: &BTreeSet<&str>, manifests: &BTreeMap<String, Vec<u8>>) -> Vec<Candidate> {
    let skipped = |dir: &str| dir.split('/').any(|s| SKIPPED_DIRS.contains(&s));
    let holding: BTreeSet<&str> = files
        .iter()
        .filter(|p| **p == SKILL_MANIFEST || p.ends_with("/SKILL.md"))
        .map(|p| parent(p))
        .filter(|d| !skipped(d))
        .collect();
    if holding.contains(".") {
        return vec![Candidate {
            dir: ".".to_owned(),
            plugin: None,
        }];
    }
    // The directories manifests name, each with the plugin it belongs to: a directory that
    // is a skill, or whose children are.
    let mut declared: Vec<(String, Option<String>)> = Vec::new();
    if let Some(bytes) = manifests.get(MARKETPLACE) {
        for plugin in marketplace_plugins(bytes) {
            let mut paths = plugin.skills.clone();
            if let Some(own) = manifests.get(&join_dir(&plugin.dir, PLUGIN))
                && let Ok(value) = serde_json::from_slice::<serde_json::Value>(own)
            {
                paths.extend(skill_paths(&value));
            }
            paths.push("skills".to_owned());
            for p in paths {
                declared.push((join_dir(&plugin.dir, &p), plugin.name.clone()));
            }
        }
    }
    if let Some(bytes) = manifests.get(PLUGIN)
        && let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes)
    {
        let name = value
            .get("name")
            .and_then(|n| n.as_str())
            .map(str::to_owned);
        for p in skill_paths(&value) {
            declared.push((p, name.clone()));
        }
    }
    let mut found: BTreeMap<&str, Option<String>> = BTreeMap::new();
    for dir in &holding {
        // A skill named by its own path belongs to that plugin before one whose skills/
        // directory merely holds it (two plugins may share a directory).
        let by_manifest = declared
            .iter()
            .find(|(d, _)| *dir == d)
            .or_else(|| declared.iter().find(|(d, _)| parent(dir) == d))
            .map(|(_, plugin)| plugin.clone());
        let depth = dir.split('/').count();
        match by_manifest {
            Some(plugin) => {
                found.insert(dir, plugin);
            }
            None if depth <= MAX_DEPTH => {
                // A skill under a plugin's own directory carries the plugin's name, however
                // it was found (a plugin at the start's top claims nothing by place).
                let plugin = declared
                    .iter()
                    .find(|(d, p)| p.is_some() && parent(d) != "." && under(dir, parent(d)))
                    .and_then(|(_, p)| p.clone());
                found.insert(dir, plugin);
            }
            None => {}
        }
    }
    // A skill's own files are its own: a `SKILL.md` inside another skill is no second skill.
    let dirs: Vec<&str> = found.keys().copied().collect();
    found
        .into_iter()
        .filter(|(dir, _)| !dirs.iter().any(|other| other != dir && under(dir, other)))
        .map(|(dir, plugin)| Candidate {
            dir: dir.to_owned(),
            plugin,
        })
        .collect()
}

/// The `name` and `description` of a `SKILL.md`'s frontmatter, each when it is a string; a
/// file whose frontmatter cannot be read gives neither (taking the skill then says why).
pub fn name_and_description(bytes: &[u8]) -> (Option<String>, Option<String>) {
    let Ok(Some(front)) = asv_model::declaration::read_frontmatter(SKILL_MANIFEST, bytes) else {
        return (None, None);
    };
    let field = |key: &str| match front.root.get(key) {
        Some(Yaml::String(s)) => Some(s.split_whitespace().collect::<Vec<_>>().join(" ")),
        _ => None,
    };
    (field("name"), field("description"))
}

/// The name a skill found at `dir` is taken under: its frontmatter `name` when that is a
/// skill name, else the directory's last segment (`fallback` for the start itself), as
/// [`crate::naming::local_name`] decides it.
pub fn name_of(dir: &str, own: Option<&str>, fallback: &str) -> String {
    let upstream = if dir == "." {
        fallback
    } else {
        dir.rsplit('/').next().unwrap_or(dir)
    };
    crate::naming::local_name(None, own, upstream)
        .map_or_else(|_| upstream.to_owned(), |(name, _)| name)
}

/// Whether `name` is chosen by `pattern`: a glob (`*`, `?`, `[…]`) matched on the whole name,
/// without regard to case, as the peer tool matches names.
pub fn matches(pattern: &str, name: &str) -> bool {
    use gix_glob::wildmatch::Mode;
    gix_glob::wildmatch(
        pattern.as_bytes().into(),
        name.as_bytes().into(),
        Mode::IGNORE_CASE | Mode::NO_MATCH_SLASH_LITERAL,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(files: &[&str], manifests: &[(&str, &str)]) -> Vec<(String, Option<String>)> {
        let files: BTreeSet<&str> = files.iter().copied().collect();
        let manifests = manifests
            .iter()
            .map(|(p, b)| ((*p).to_owned(), b.as_bytes().to_vec()))
            .collect();
        candidates(&files, &manifests)
            .into_iter()
            .map(|c| (c.dir, c.plugin))
            .collect()
    }

    fn dirs(list: &[(String, Option<String>)]) -> Vec<&str> {
        list.iter().map(|(d, _)| d.as_str()).collect()
    }

    #[test]
    fn skills_are_found_at_any_depth_up_to_the_bound() {
        let list = found(
            &[
                "README.md",
                "skills/pdf/SKILL.md",
                "skills/pdf/examples/SKILL.md",
                ".claude/skills/review/SKILL.md",
                "a/b/c/d/e/SKILL.md",
                "a/b/c/d/e/f/SKILL.md",
                "node_modules/x/SKILL.md",
                "vendor/node_modules/y/SKILL.md",
            ],
            &[],
        );
        assert_eq!(
            dirs(&list),
            [".claude/skills/review", "a/b/c/d/e", "skills/pdf"]
        );
    }

    #[test]
    fn a_root_skill_is_the_only_skill() {
        let list = found(&["SKILL.md", "skills/pdf/SKILL.md"], &[]);
        assert_eq!(dirs(&list), ["."]);
    }

    #[test]
    fn a_marketplace_names_plugins_and_their_skills_whatever_the_depth() {
        let market = r#"{"metadata":{"pluginRoot":"./deep/er/still"},"plugins":[
            {"name":"alpha","source":"./alpha"},
            {"name":"beta","source":"./beta","skills":["./extra/one"]},
            {"name":"remote","source":{"source":"github","repo":"o/r"}},
            {"name":"escape","source":"../outside"}]}"#;
        let list = found(
            &[
                "deep/er/still/alpha/skills/a1/SKILL.md",
                "deep/er/still/beta/extra/one/SKILL.md",
                "deep/er/still/beta/skills/b1/SKILL.md",
                "top/SKILL.md",
            ],
            &[(MARKETPLACE, market)],
        );
        assert_eq!(
            list,
            [
                (
                    "deep/er/still/alpha/skills/a1".to_owned(),
                    Some("alpha".to_owned())
                ),
                (
                    "deep/er/still/beta/extra/one".to_owned(),
                    Some("beta".to_owned())
                ),
                (
                    "deep/er/still/beta/skills/b1".to_owned(),
                    Some("beta".to_owned())
                ),
                ("top".to_owned(), None),
            ]
        );
    }

    #[test]
    fn a_plugin_manifest_names_skill_directories() {
        let list = found(
            &["x/y/z/w/v/u/s1/SKILL.md", "x/y/z/w/v/u/t/SKILL.md"],
            &[(PLUGIN, r#"{"name":"p","skills":"./x/y/z/w/v/u"}"#)],
        );
        assert_eq!(dirs(&list), ["x/y/z/w/v/u/s1", "x/y/z/w/v/u/t"]);
        assert!(list.iter().all(|(_, p)| p.as_deref() == Some("p")));
    }

    #[test]
    fn names_are_matched_as_globs_without_case() {
        assert!(matches("pdf", "PDF"));
        assert!(matches("audit-*", "audit-context"));
        assert!(!matches("audit-*", "context-audit"));
        assert!(matches("?df", "pdf"));
    }
}
