//! A commit's recursive listing read from its tree objects (issue 30 §2, fourth step).
//!
//! `git ls-tree -r -t` was a process of its own; the same listing is read here from the tree
//! objects themselves, asked of the source's kept `git cat-file --batch` one level at a time
//! (every tree of a level in one request), and put in the order `ls-tree` writes it: each
//! entry in its tree's order, a tree before what it holds. Each entry is what `ls-tree` would
//! have said of it — its mode read as git reads one (a mode of no known type is a submodule's,
//! as git takes it), its path the names joined by `/` as they are, so every path the
//! listing's readers judge (`..`, an empty name, a name that is not UTF-8) reaches them as
//! before. Each tree's bytes are checked to hash to its id. The listing is held to the cap
//! `ls-tree`'s output had, counted as `ls-tree -z` would have written it.
//!
//! A commit fetched with `--filter=blob:none` always comes with every tree under it (the
//! filter leaves out blobs only, and a server that ignores it sends everything), so a tree is
//! missing only from a repository that is itself a partial clone of another kind. Should one
//! be, the listing is read by `git ls-tree` as before, whose lazy fetch brings it.

use super::conversation::{Found, Heard, Reply};
use super::*;
use crate::{EntryMode, object_id};

/// One entry of a tree object.
pub(super) struct Named {
    /// The mode as git takes it (canonical).
    mode: EntryMode,
    /// The name's bytes.
    name: Vec<u8>,
    /// The object id, lowercase hex.
    oid: String,
}

/// The mode of an entry as git takes it: the octal digits read, a regular file's made 100644
/// or 100755 by its owner-execute bit, and any mode of no type git knows taken for a
/// submodule's (git's `canon_mode`). `None` for no digits, or anything else than octal ones.
fn canon_mode(digits: &[u8]) -> Option<EntryMode> {
    if digits.is_empty() || digits.len() > 7 || !digits.iter().all(|b| matches!(b, b'0'..=b'7')) {
        return None;
    }
    let mut bits = 0u32;
    for digit in digits {
        bits = (bits << 3) | u32::from(digit - b'0');
    }
    Some(match bits & 0o170_000 {
        0o100_000 if bits & 0o100 != 0 => EntryMode::Executable,
        0o100_000 => EntryMode::File,
        0o120_000 => EntryMode::Symlink,
        0o040_000 => EntryMode::Tree,
        _ => EntryMode::Submodule,
    })
}

/// The entries of the tree object `bytes` (`<mode> SP <name> NUL <raw id>`, the id `id_len`
/// bytes); `None` when it is not one.
fn parse_tree(bytes: &[u8], id_len: usize) -> Option<Vec<Named>> {
    let mut entries = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let space = rest.iter().position(|&b| b == b' ')?;
        let mode = canon_mode(&rest[..space])?;
        rest = &rest[space + 1..];
        let nul = rest.iter().position(|&b| b == 0)?;
        let name = rest[..nul].to_vec();
        if name.is_empty() {
            return None;
        }
        rest = &rest[nul + 1..];
        if rest.len() < id_len {
            return None;
        }
        let oid = rest[..id_len].iter().map(|b| format!("{b:02x}")).collect();
        rest = &rest[id_len..];
        entries.push(Named { mode, name, oid });
    }
    Some(entries)
}

/// A tree read by a walk along a path, kept for the run: the mode and id of each entry by its
/// name as the listing spells it, so each step of a walk is one lookup (a pull walks every
/// skill's path at two commits); `None` when a walk cannot answer as the listing would (two
/// entries of one name so spelt, a name holding `/`).
pub(super) type Walk = Option<std::collections::BTreeMap<String, (EntryMode, String)>>;

/// The type `ls-tree` names an entry of `mode` with.
fn kind_of_mode(mode: EntryMode) -> &'static str {
    match mode {
        EntryMode::Tree => "tree",
        EntryMode::Submodule => "commit",
        EntryMode::File | EntryMode::Executable | EntryMode::Symlink => "blob",
    }
}

/// The root tree id a commit object's first line names (`tree <id>`).
pub(super) fn root_of(commit: &[u8], hex_len: usize) -> Option<String> {
    let line = commit.split(|&b| b == b'\n').next()?;
    let id = std::str::from_utf8(line.strip_prefix(b"tree ")?).ok()?;
    is_hex_id(id, hex_len).then(|| id.to_owned())
}

impl Git {
    /// Lists `commit` whole, once per run (kept in `listings`), and returns its revision: from
    /// its tree objects, or by `git ls-tree` when a tree is not in the repository.
    pub(super) fn listed(&mut self, commit: &Commit) -> Result<String> {
        self.dir()?;
        let revision = self.revision_of(commit)?.to_owned();
        self.fetch(&revision, commit.format)?;
        // Listed once per run: every skill of a source at one commit reads the same listing.
        if self.listings.contains_key(&revision) {
            return Ok(revision);
        }
        let what = Step::Listing {
            revision: revision.clone(),
        };
        if let Some(entries) = self.list_trees(&revision, commit.format, &what)? {
            self.listings.insert(revision.clone(), entries);
            return Ok(revision);
        }
        // A tree not in the repository (see above): git's own listing, which fetches it.
        let out = self.git(
            &["ls-tree", "-r", "-t", "--full-tree", "-z", &revision],
            true,
            LISTING_LIMIT,
            true,
            &what,
        )?;
        let len = commit.format.hex_len();
        let mut entries = Vec::new();
        for record in out.split(|&b| b == 0).filter(|r| !r.is_empty()) {
            let parsed = parse_entry(record, len);
            let Some(entry) = parsed else {
                let line = String::from_utf8_lossy(record).into_owned();
                return Err(self.malformed(&what, &line));
            };
            entries.push(entry);
        }
        self.listings.insert(revision.clone(), entries);
        Ok(revision)
    }

    /// The recursive listing of the fetched commit `revision`, read from its tree objects
    /// through the kept `git cat-file --batch`; `None` when a tree is not in the repository
    /// (the caller lists it with `git ls-tree`).
    pub(super) fn list_trees(
        &mut self,
        revision: &str,
        format: ObjectFormat,
        what: &Step,
    ) -> Result<Option<Vec<TreeEntry>>> {
        if !self.objects.contains_key(revision) {
            self.read_objects(&[revision.to_owned()], what)?;
        }
        let Some(commit) = self.objects.get(revision) else {
            return Ok(None);
        };
        let Some(root) = root_of(commit, format.hex_len()) else {
            let line = String::from_utf8_lossy(commit.split(|&b| b == b'\n').next().unwrap_or(b""))
                .into_owned();
            return Err(self.malformed(what, &line));
        };
        self.roots.insert(revision.to_owned(), root.clone());
        self.list_from(&root, b"", format, what)
    }

    /// The entries of the listing of the fetched commit `revision` below `path` (not `.`),
    /// read from the trees along the path ([`Git::tree_at`]) and those under it only (issue
    /// 30 §3: a pull of one skill reads its own trees, not the commit's): exactly the entries
    /// of the whole listing whose path starts with `path/`, in its order, since the walk
    /// answers only where its path names one tree as the listing's paths would. `None` when
    /// it cannot (as `tree_at`, or a tree not in the repository); empty when the commit holds
    /// no tree at `path`.
    pub(super) fn list_below(
        &mut self,
        revision: &str,
        format: ObjectFormat,
        path: &str,
        what: &Step,
    ) -> Result<Option<Vec<TreeEntry>>> {
        match self.tree_at(revision, format, path, what)? {
            None => Ok(None),
            Some(None) => Ok(Some(Vec::new())),
            // The walk matched each name of the path as the listing spells it, so the path
            // given is the listing's own prefix for what is under it.
            Some(Some(id)) => self.list_from(&id, path.as_bytes(), format, what),
        }
    }

    /// The recursive listing under the tree `top`, whose path is `prefix` (empty for a root),
    /// read one level at a time; `None` when a tree is not in the repository.
    fn list_from(
        &mut self,
        top: &str,
        prefix: &[u8],
        format: ObjectFormat,
        what: &Step,
    ) -> Result<Option<Vec<TreeEntry>>> {
        let hex_len = format.hex_len();
        let mut trees: std::collections::BTreeMap<String, Vec<Named>> =
            std::collections::BTreeMap::new();
        let mut level = vec![top.to_owned()];
        // The bytes of tree objects read, held to the listing's cap.
        let mut read = 0u64;
        while !level.is_empty() {
            let mut input = Vec::new();
            for id in &level {
                input.extend_from_slice(id.as_bytes());
                input.push(b'\n');
            }
            let cap = LISTING_LIMIT.saturating_sub(read);
            let mut answers: Vec<Option<Found>> = Vec::new();
            answers.resize_with(level.len(), || None);
            let heard = self.exchange(
                input,
                conversation::objects_job(level.clone(), cap),
                what,
                &mut |reply| {
                    let Reply::Objects(found) = reply else {
                        return false;
                    };
                    for (i, found) in found {
                        if let Some(slot) = answers.get_mut(i) {
                            *slot = Some(found);
                        }
                    }
                    true
                },
            )?;
            let mut heard = Some(heard);
            let mut next = Vec::new();
            for (id, answer) in level.iter().zip(answers) {
                match answer {
                    Some(Found::Object { kind, bytes }) if kind == "tree" => {
                        read += bytes.len() as u64;
                        let got = object_id(format, "tree", &bytes);
                        if got != *id {
                            return Err(self.stop(GitProblem::ObjectMismatch {
                                id: id.clone(),
                                kind,
                                got,
                            }));
                        }
                        let Some(entries) = parse_tree(&bytes, hex_len / 2) else {
                            return Err(self.malformed(what, &format!("tree {id}")));
                        };
                        for entry in &entries {
                            if entry.mode == EntryMode::Tree
                                && !trees.contains_key(&entry.oid)
                                && !next.contains(&entry.oid)
                                && !level.contains(&entry.oid)
                            {
                                next.push(entry.oid.clone());
                            }
                        }
                        trees.insert(id.clone(), entries);
                    }
                    Some(Found::Missing) => return Ok(None),
                    Some(Found::TooLarge) => {
                        return Err(self.limit_error(Cut::Output, what));
                    }
                    Some(Found::Object { kind, .. }) => {
                        return Err(self.malformed(what, &format!("{id} {kind}")));
                    }
                    Some(Found::Other(line) | Found::Broken(line)) => {
                        return Err(self.answer_failed(heard.take(), what, &line));
                    }
                    None => return Err(self.answer_failed(heard.take(), what, id)),
                }
            }
            if let Some(Heard::Ended(Outcome::Cut(cut))) = heard {
                return Err(self.limit_error(cut, what));
            }
            level = next;
        }
        let mut listing = Vec::new();
        let mut size = 0u64;
        if !self.walk_tree(&trees, top, prefix, hex_len, &mut listing, &mut size) {
            return Err(self.limit_error(Cut::Output, what));
        }
        Ok(Some(listing))
    }

    /// The id of the tree at `path` (not `.`) of the fetched commit `revision`, read from the
    /// trees along that path only (issue 30 §3: a skill's tree compared between two commits
    /// needs two or three trees, not the whole listing): `Some(None)` when the commit holds no
    /// tree there, `None` when this walk cannot tell it as the listing would (a tree not in
    /// the repository, a name holding `/`, two entries of one name) and the caller looks in
    /// the listing instead.
    pub(super) fn tree_at(
        &mut self,
        revision: &str,
        format: ObjectFormat,
        path: &str,
        what: &Step,
    ) -> Result<Option<Option<String>>> {
        if !self.objects.contains_key(revision) && !self.roots.contains_key(revision) {
            self.read_objects(&[revision.to_owned()], what)?;
        }
        let root = match self.roots.get(revision) {
            Some(root) => root.clone(),
            None => match self
                .objects
                .get(revision)
                .and_then(|raw| root_of(raw, format.hex_len()))
            {
                Some(root) => {
                    self.roots.insert(revision.to_owned(), root.clone());
                    root
                }
                None => return Ok(None),
            },
        };
        let mut id = root;
        for component in path.split('/') {
            let Some(Some(by_name)) = self.tree_object(&id, format, what)? else {
                return Ok(None);
            };
            match by_name.get(component) {
                Some((EntryMode::Tree, oid)) => id = oid.clone(),
                _ => return Ok(Some(None)),
            }
        }
        Ok(Some(Some(id)))
    }

    /// The tree `id` as a walk reads it, read through the kept process once and kept for the
    /// run; `None` when it is not in the repository.
    fn tree_object(
        &mut self,
        id: &str,
        format: ObjectFormat,
        what: &Step,
    ) -> Result<Option<&Walk>> {
        if !self.trees.contains_key(id) {
            let mut answer = None;
            let heard = self.exchange(
                format!("{id}\n").into_bytes(),
                conversation::objects_job(vec![id.to_owned()], LISTING_LIMIT),
                what,
                &mut |reply| {
                    if let Reply::Objects(found) = reply {
                        answer = found.into_iter().next().map(|(_, f)| f);
                    }
                    true
                },
            )?;
            match answer {
                Some(Found::Object { kind, bytes }) if kind == "tree" => {
                    let got = object_id(format, "tree", &bytes);
                    if got != id {
                        return Err(self.stop(GitProblem::ObjectMismatch {
                            id: id.to_owned(),
                            kind,
                            got,
                        }));
                    }
                    let Some(entries) = parse_tree(&bytes, format.hex_len() / 2) else {
                        return Err(self.malformed(what, &format!("tree {id}")));
                    };
                    let mut by_name = std::collections::BTreeMap::new();
                    let walkable = !entries.iter().any(|e| e.name.contains(&b'/'))
                        && entries.into_iter().all(|e| {
                            let name = String::from_utf8_lossy(&e.name).into_owned();
                            by_name.insert(name, (e.mode, e.oid)).is_none()
                        });
                    self.trees
                        .insert(id.to_owned(), walkable.then_some(by_name));
                }
                Some(Found::Missing) => return Ok(None),
                Some(Found::TooLarge) => return Err(self.limit_error(Cut::Output, what)),
                Some(Found::Object { kind, .. }) => {
                    return Err(self.malformed(what, &format!("{id} {kind}")));
                }
                Some(Found::Other(line) | Found::Broken(line)) => {
                    return Err(self.answer_failed(Some(heard), what, &line));
                }
                None => return Err(self.answer_failed(Some(heard), what, id)),
            }
        }
        Ok(self.trees.get(id))
    }

    /// The refusal of an exchange whose answers ended at `line`: the failure of a git that
    /// ended badly, in its own words, else an answer not in git's form.
    fn answer_failed(&mut self, heard: Option<Heard>, what: &Step, line: &str) -> Error {
        match heard {
            Some(Heard::Ended(Outcome::Cut(cut))) => self.limit_error(cut, what),
            Some(Heard::Ended(Outcome::Ended(finished))) if !finished.status.success() => self
                .stop(GitProblem::Failed {
                    step: what.clone(),
                    failure: GitFailure::from_stderr(&finished.stderr, finished.status),
                }),
            _ => self.malformed(what, line),
        }
    }

    /// Appends the entries under the tree `id` (its path `prefix`) to `listing` in `ls-tree`
    /// order, `size` counting what `ls-tree -r -t -z` would have written; `false` once that
    /// passes the listing's cap.
    #[allow(clippy::only_used_in_recursion)]
    fn walk_tree(
        &self,
        trees: &std::collections::BTreeMap<String, Vec<Named>>,
        id: &str,
        prefix: &[u8],
        hex_len: usize,
        listing: &mut Vec<TreeEntry>,
        size: &mut u64,
    ) -> bool {
        let Some(entries) = trees.get(id) else {
            return true;
        };
        for entry in entries {
            let mut path = prefix.to_vec();
            if !path.is_empty() {
                path.push(b'/');
            }
            path.extend_from_slice(&entry.name);
            // `<mode> SP <type> SP <id> TAB <path> NUL`
            let kind = kind_of_mode(entry.mode);
            *size += (6 + 1 + kind.len() + 1 + hex_len + 1 + path.len() + 1) as u64;
            if *size > LISTING_LIMIT {
                return false;
            }
            listing.push(TreeEntry {
                // A path that is not UTF-8 stays listed, its odd bytes replaced, as
                // `parse_entry` keeps an `ls-tree` record's.
                path: String::from_utf8_lossy(&path).into_owned(),
                mode: entry.mode,
                oid: entry.oid.clone(),
            });
            if entry.mode == EntryMode::Tree
                && !self.walk_tree(trees, &entry.oid, &path, hex_len, listing, size)
            {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
// The tests plant objects in the source's own temporary repository.
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;

    /// A source whose temporary repository (in `format`) holds what `plant` writes there,
    /// the commit it returns taken as fetched: what a fetch would have brought, written
    /// directly, so trees no server would send can be read. Its remote is a path that does
    /// not exist.
    fn planted(
        format: ObjectFormat,
        plant: impl FnOnce(&dyn Fn(&str, &[u8]) -> String, &Path) -> String,
    ) -> (Git, Commit) {
        let mut git = Git::local("/nonexistent/asv-upstream.git").expect("a source");
        git.repository(format).expect("the repository");
        let repository = git.dir().expect("a directory").join(REPOSITORY);
        let write = |kind: &str, bytes: &[u8]| -> String {
            use std::io::Write as _;
            let mut child = Command::new("git")
                .arg(format!("--git-dir={}", repository.display()))
                .args(["hash-object", "--literally", "-w", "--stdin", "-t", kind])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .expect("git hash-object");
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(bytes)
                .expect("write");
            let out = child.wait_with_output().expect("git hash-object ends");
            assert!(out.status.success());
            String::from_utf8_lossy(&out.stdout).trim().to_owned()
        };
        let revision = plant(&write, &repository);
        git.fetched.push(revision.clone());
        (git, Commit { revision, format })
    }

    /// The bytes of a tree of `entries` (mode, name, id in hex).
    fn tree(entries: &[(&str, &[u8], &str)]) -> Vec<u8> {
        let mut bytes = Vec::new();
        for (mode, name, id) in entries {
            bytes.extend_from_slice(mode.as_bytes());
            bytes.push(b' ');
            bytes.extend_from_slice(name);
            bytes.push(0);
            for pair in id.as_bytes().chunks(2) {
                let hex = std::str::from_utf8(pair).expect("hex");
                bytes.push(u8::from_str_radix(hex, 16).expect("hex"));
            }
        }
        bytes
    }

    fn commit_of(tree: &str) -> Vec<u8> {
        format!(
            "tree {tree}\nauthor A <a@example.com> 0 +0000\ncommitter A <a@example.com> 0 +0000\n\nplanted\n"
        )
        .into_bytes()
    }

    /// What `git ls-tree -r -t --full-tree -z` lists of `commit`, read as `list` used to.
    fn ls_tree(git: &Git, commit: &Commit) -> Vec<TreeEntry> {
        let repository = git.dir().expect("a directory").join(REPOSITORY);
        let out = Command::new("git")
            .arg(format!("--git-dir={}", repository.display()))
            .args(["ls-tree", "-r", "-t", "--full-tree", "-z", &commit.revision])
            .output()
            .expect("git ls-tree");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
            .split(|&b| b == 0)
            .filter(|r| !r.is_empty())
            .map(|r| crate::ids::parse_entry(r, commit.format.hex_len()).expect("a record"))
            .collect()
    }

    fn problem(error: &Error) -> &GitProblem {
        match error {
            Error::Git { problem, .. } => problem,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn odd_trees_list_exactly_as_ls_tree_lists_them() {
        for format in [ObjectFormat::Sha1, ObjectFormat::Sha256] {
            let (mut git, commit) = planted(format, |write, _| {
                let blob = write("blob", b"hello\n");
                let script = write("blob", b"#!/bin/sh\n");
                let absent = "ab".repeat(format.hex_len() / 2);
                let inner = write(
                    "tree",
                    &tree(&[
                        ("100644", b"SKILL.md", &blob),
                        ("100755", b"run.sh", &script),
                    ]),
                );
                let root = write(
                    "tree",
                    &tree(&[
                        // Out of git's order, names git would refuse to check out, a link, a
                        // submodule, a group-writable file, a mode of no type git knows, a
                        // name that is not UTF-8: each listed as `ls-tree` lists it.
                        ("40000", b"skill", &inner),
                        ("100644", b"..", &blob),
                        ("120000", b"link", &blob),
                        ("160000", b"sub", &absent),
                        ("100664", b"shared.md", &blob),
                        ("170000", b"odd", &absent),
                        ("100644", b"caf\xe9.md", &blob),
                        ("40000", b"again", &inner),
                        ("100644", b"a", &blob),
                    ]),
                );
                write("commit", &commit_of(&root))
            });
            let expected = ls_tree(&git, &commit);
            assert_eq!(expected.len(), 13, "{format:?}");
            assert_eq!(
                git.list(&commit).expect("the listing"),
                expected,
                "{format:?}"
            );
            // The link is refused when read, as before.
            let link = expected.iter().find(|e| e.path == "link").expect("listed");
            let error = git.read(&commit, link).expect_err("a link");
            assert!(
                matches!(problem(&error), GitProblem::Entry(_)),
                "{format:?}: {error}"
            );
        }
    }

    #[test]
    fn a_tree_id_walked_along_its_path_is_the_one_the_listing_gives() {
        for format in [ObjectFormat::Sha1, ObjectFormat::Sha256] {
            let (mut git, commit) = planted(format, |write, _| {
                let blob = write("blob", b"hello\n");
                let inner = write("tree", &tree(&[("100644", b"SKILL.md", &blob)]));
                let deeper = write("tree", &tree(&[("40000", b"s1", &inner)]));
                let twice = write(
                    "tree",
                    &tree(&[("40000", b"x", &inner), ("40000", b"x", &deeper)]),
                );
                let slashed = write("tree", &tree(&[("40000", b"a/b", &inner)]));
                let root = write(
                    "tree",
                    &tree(&[
                        ("40000", b"skills", &deeper),
                        ("40000", b"..", &inner),
                        ("120000", b"link", &blob),
                        ("40000", b"twice", &twice),
                        ("40000", b"slashed", &slashed),
                    ]),
                );
                write("commit", &commit_of(&root))
            });
            let listing = ls_tree(&git, &commit);
            let expected = |path: &str| {
                listing
                    .iter()
                    .find(|e| e.path == path && e.mode == EntryMode::Tree)
                    .map(|e| e.oid.clone())
            };
            for path in [
                "skills",
                "skills/s1",
                "skills/s1/SKILL.md",
                "skills/none",
                "..",
                "link",
                "link/x",
                "",
                "skills//s1",
            ] {
                assert_eq!(
                    git.tree_id(&commit, path).expect("a tree id"),
                    Some(expected(path)),
                    "{format:?} {path:?}"
                );
            }
            // Each of those came from the trees along its path: nothing was listed.
            assert!(!git.listings.contains_key(&commit.revision));
            // Where the walk cannot tell as the listing would (two entries `x`, a name
            // holding `/`), the listing answers.
            for path in ["twice/x", "slashed/a/b"] {
                assert_eq!(
                    git.tree_id(&commit, path).expect("a tree id"),
                    Some(expected(path)),
                    "{format:?} {path:?}"
                );
            }
            assert!(git.listings.contains_key(&commit.revision));
        }
    }

    #[test]
    fn a_listing_below_a_path_is_that_part_of_the_whole_listing() {
        // Issue 30 §3: a skill taken alone reads only the trees along its path and under it,
        // and gets exactly the entries the whole listing holds below it, in its order, for
        // every path: plain ones, a prefix of another name (`s1` beside `s10`), a path that is
        // no tree, odd names below, and where the walk cannot answer (two entries `x`, a name
        // holding `/`) the listing's own answer.
        for format in [ObjectFormat::Sha1, ObjectFormat::Sha256] {
            let plant = |write: &dyn Fn(&str, &[u8]) -> String, _: &Path| {
                let blob = write("blob", b"hello\n");
                let other = write("blob", b"other\n");
                let inner = write(
                    "tree",
                    &tree(&[
                        ("100644", b"SKILL.md", &blob),
                        ("100755", b"run.sh", &other),
                        ("100644", b"caf\xe9.md", &blob),
                        ("120000", b"link", &blob),
                    ]),
                );
                let nested = write(
                    "tree",
                    &tree(&[("40000", b"refs", &inner), ("100644", b"a.md", &other)]),
                );
                let skills = write(
                    "tree",
                    &tree(&[
                        ("40000", b"s1", &nested),
                        ("40000", b"s10", &inner),
                        ("100644", b"s2", &blob),
                    ]),
                );
                let slashed = write("tree", &tree(&[("40000", b"a/b", &inner)]));
                let twice = write(
                    "tree",
                    &tree(&[("40000", b"x", &inner), ("40000", b"x", &nested)]),
                );
                let root = write(
                    "tree",
                    &tree(&[
                        ("40000", b"skills", &skills),
                        ("40000", b"twice", &twice),
                        ("40000", b"slashed", &slashed),
                        ("40000", b"plain", &nested),
                        ("100644", b"README.md", &blob),
                    ]),
                );
                write("commit", &commit_of(&root))
            };
            let (mut git, commit) = planted(format, plant);
            let listing = ls_tree(&git, &commit);
            // The paths the walk answers first (nothing is listed whole for them), then those
            // the whole listing answers.
            for (path, whole) in [
                ("plain", false),
                ("plain/refs", false),
                ("skills/s1", false),
                ("skills/s10", false),
                ("skills/s1/refs", false),
                ("skills/s2", false),
                ("skills/none", false),
                ("README.md", false),
                ("skills", false),
                ("twice/x", true),
                ("slashed/a/b", true),
                ("skills/s1", true),
                (".", true),
            ] {
                let prefix = format!("{path}/");
                let expected: Vec<TreeEntry> = listing
                    .iter()
                    .filter(|e| path == "." || e.path.starts_with(&prefix))
                    .cloned()
                    .collect();
                assert_eq!(
                    git.list_under(&commit, path).expect("a listing"),
                    expected,
                    "{format:?} {path:?}"
                );
                assert_eq!(
                    git.listings.contains_key(&commit.revision),
                    whole,
                    "{format:?} {path:?}"
                );
            }
            assert!(
                listing
                    .iter()
                    .any(|e| e.path == "skills/s1/refs/caf\u{fffd}.md")
            );
        }
    }

    #[test]
    fn a_tree_cut_short_is_refused() {
        let (mut git, commit) = planted(ObjectFormat::Sha1, |write, _| {
            let blob = write("blob", b"hello\n");
            let mut bytes = tree(&[("100644", b"a.md", &blob)]);
            bytes.truncate(bytes.len() - 3);
            let root = write("tree", &bytes);
            write("commit", &commit_of(&root))
        });
        let dir = git.temporary_directory().expect("a directory").to_owned();
        let error = git.list(&commit).expect_err("a tree cut short");
        assert!(
            matches!(problem(&error), GitProblem::Malformed { .. }),
            "{error}"
        );
        assert!(!dir.exists(), "the source stopped");
    }

    #[test]
    fn a_tree_entry_naming_a_blob_is_refused() {
        let (mut git, commit) = planted(ObjectFormat::Sha1, |write, _| {
            let blob = write("blob", b"hello\n");
            let root = write("tree", &tree(&[("40000", b"dir", &blob)]));
            write("commit", &commit_of(&root))
        });
        let error = git.list(&commit).expect_err("a blob for a tree");
        assert!(
            matches!(problem(&error), GitProblem::Malformed { .. }),
            "{error}"
        );
    }

    #[test]
    fn a_tree_whose_bytes_are_another_trees_is_refused() {
        let (mut git, commit) = planted(ObjectFormat::Sha1, |write, dir| {
            let blob = write("blob", b"hello\n");
            let real = write("tree", &tree(&[("100644", b"a.md", &blob)]));
            let named = write("tree", &tree(&[("100644", b"b.md", &blob)]));
            let root = write("tree", &tree(&[("40000", b"dir", &named)]));
            // The object stored under `named`'s id holds `real`'s bytes.
            let path = |id: &str| dir.join("objects").join(&id[..2]).join(&id[2..]);
            std::fs::remove_file(path(&named)).expect("remove");
            std::fs::copy(path(&real), path(&named)).expect("copy");
            write("commit", &commit_of(&root))
        });
        let error = git.list(&commit).expect_err("a tree that is another's");
        assert!(
            matches!(problem(&error), GitProblem::ObjectMismatch { .. }),
            "{error}"
        );
    }

    #[test]
    fn a_tree_not_in_the_repository_is_listed_by_ls_tree() {
        let (mut git, commit) = planted(ObjectFormat::Sha1, |write, _| {
            let absent = "ab".repeat(20);
            let root = write("tree", &tree(&[("40000", b"dir", &absent)]));
            write("commit", &commit_of(&root))
        });
        // `git ls-tree` asks the source for the tree, and the source is not there.
        let error = git.list(&commit).expect_err("no such source");
        assert!(
            matches!(
                problem(&error),
                GitProblem::Failed {
                    step: Step::Listing { .. },
                    ..
                }
            ),
            "{error}"
        );
    }

    #[test]
    fn modes_are_taken_as_git_takes_them() {
        assert_eq!(canon_mode(b"100644"), Some(EntryMode::File));
        assert_eq!(canon_mode(b"100664"), Some(EntryMode::File));
        assert_eq!(canon_mode(b"100755"), Some(EntryMode::Executable));
        assert_eq!(canon_mode(b"40000"), Some(EntryMode::Tree));
        assert_eq!(canon_mode(b"120000"), Some(EntryMode::Symlink));
        assert_eq!(canon_mode(b"160000"), Some(EntryMode::Submodule));
        // A mode of no type git knows is a submodule's to git.
        assert_eq!(canon_mode(b"170000"), Some(EntryMode::Submodule));
        assert_eq!(canon_mode(b""), None);
        assert_eq!(canon_mode(b"100648"), None);
    }

    #[test]
    fn tree_objects_are_read_entry_by_entry() {
        let mut tree = b"100644 a.md\0".to_vec();
        tree.extend_from_slice(&[0xab; 20]);
        tree.extend_from_slice(b"40000 dir\0");
        tree.extend_from_slice(&[0x01; 20]);
        let entries = parse_tree(&tree, 20).expect("a tree");
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].name, b"a.md");
        assert_eq!(entries[0].oid, "ab".repeat(20));
        assert_eq!(entries[1].mode, EntryMode::Tree);
        // Cut short, an empty name, no space: not a tree.
        assert!(parse_tree(&tree[..tree.len() - 1], 20).is_none());
        assert!(parse_tree(b"100644 \0aaaaaaaaaaaaaaaaaaaa", 20).is_none());
        assert!(parse_tree(b"100644", 20).is_none());
        // A SHA-256 tree's ids are 32 bytes.
        let mut long = b"100755 run.sh\0".to_vec();
        long.extend_from_slice(&[0xff; 32]);
        assert_eq!(
            parse_tree(&long, 32).expect("a tree")[0].oid,
            "ff".repeat(32)
        );
        assert!(parse_tree(&long, 20).is_none());
    }

    #[test]
    fn a_commits_root_tree_is_its_first_line() {
        let id = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
        assert_eq!(
            root_of(format!("tree {id}\nauthor x\n").as_bytes(), 40),
            Some(id.to_owned())
        );
        assert_eq!(root_of(b"parent x\n", 40), None);
        assert_eq!(root_of(format!("tree {id}\n").as_bytes(), 64), None);
    }
}
