//! A repository on this machine read in place: its objects, not a copy of them.
//!
//! A source given as a path ([`Git::local`]) is looked up as any other (`git ls-remote`, which
//! runs `git upload-pack` in it), but its objects need not travel: git can read them where
//! they lie when the source's object directory is named to it as an alternate
//! (`GIT_ALTERNATE_OBJECT_DIRECTORIES`). The fetch — `git upload-pack` packing the commit's
//! whole tree, `git index-pack` unpacking it again — was a third of a `skill add --all` from
//! such a repository (issue 30 §2).
//!
//! What makes this safe is that every object is named by its hash and every one read is
//! checked against its name (commits and tags in `objects`, trees in `trees`, blobs in
//! `batch` and `transport`): a directory that is not the one `git upload-pack` used can only
//! lack an object, never give other bytes for it. A commit not found there is fetched as
//! before. Only the processes that read objects by name (`git cat-file`, `git rev-parse
//! --verify`) are given the alternate; a fetch, and `rev-parse --disambiguate` resolving a
//! short commit id among what was fetched, see the temporary repository alone, so what they
//! find is what they found before. The source's own configuration, hooks and working tree are
//! never read; git reads no configuration from an object directory.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use super::Git;
use crate::Result;
use crate::error::Step;

/// The environment variable naming object directories git reads beside a repository's own.
pub(super) const ALTERNATES: &str = "GIT_ALTERNATE_OBJECT_DIRECTORIES";

/// The object directory of the repository at the absolute path `path`, when it is laid out
/// plainly: `path/.git` a directory holding `HEAD`, `objects/` and `refs/` (a work tree's
/// repository), or `path` itself holding them (a bare one), neither a linked work tree's
/// (`commondir`). `None` for any other layout — a `.git` file, a linked work tree, a path git
/// would find by adding `.git` — and for a directory whose name the variable cannot carry
/// (a `:` separates entries there, a leading `"` quotes one, a line break ends it): such a
/// source is fetched as before.
// The user's own repository, only looked at (never written) to name its objects to git.
#[allow(clippy::disallowed_methods)]
pub(super) fn object_directory(path: &str) -> Option<OsString> {
    if !path.starts_with('/') || path.contains([':', '"', '\n', '\r']) {
        return None;
    }
    let top = Path::new(path);
    let dot_git = top.join(".git");
    let git_dir: PathBuf = match std::fs::symlink_metadata(&dot_git) {
        Ok(meta) if meta.is_dir() => dot_git,
        Ok(_) => return None,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => top.to_owned(),
        Err(_) => return None,
    };
    let is = |name: &str, dir: bool| {
        std::fs::symlink_metadata(git_dir.join(name))
            .map(|m| if dir { m.is_dir() } else { m.is_file() })
            .unwrap_or(false)
    };
    let commondir = std::fs::symlink_metadata(git_dir.join("commondir")).is_ok();
    if !is("HEAD", false) || !is("objects", true) || !is("refs", true) || commondir {
        return None;
    }
    Some(git_dir.join("objects").into_os_string())
}

/// Whether a git command run with `args` reads objects by their names, and so may be given
/// the source's object directory: `cat-file` in every form, and `rev-parse --verify`.
pub(super) fn reads_by_name<S: AsRef<OsStr>>(args: &[S]) -> bool {
    match args.first().map(AsRef::as_ref) {
        Some(first) if first == "cat-file" => true,
        Some(first) if first == "rev-parse" => args.iter().any(|a| a.as_ref() == "--verify"),
        _ => false,
    }
}

impl Git {
    /// Whether `revision` can be read in place from the source's object directory: asked of
    /// the kept `git cat-file --batch` (which also checks a commit against its id); its type
    /// is kept for the caller, as a fetch's check would have found it. `false` — and nothing
    /// kept — when the source is not read in place or the object is not there.
    pub(super) fn borrowed(&mut self, revision: &str, what: &Step) -> Result<bool> {
        if self.borrow.is_none() {
            return Ok(false);
        }
        let kinds = self.read_objects(&[revision.to_owned()], what)?;
        match kinds.into_iter().next().flatten() {
            Some(kind) => {
                self.kinds.insert(revision.to_owned(), kind);
                Ok(true)
            }
            None => Ok(false),
        }
    }
}

#[cfg(test)]
// The tests lay out repositories of their own.
#[allow(clippy::disallowed_methods)]
mod tests {
    use super::*;
    use crate::Transport as _;
    use asv_model::source::ObjectFormat;
    use asv_test_support::git_server::{Fixture, README};

    #[test]
    fn a_commit_not_in_the_object_directory_is_fetched() {
        let fixture = Fixture::new(ObjectFormat::Sha1);
        let mut git = Git::local(fixture.bare().to_str().expect("a UTF-8 path")).expect("a source");
        assert_eq!(
            git.borrow,
            Some(fixture.bare().join("objects").into_os_string()),
            "a bare repository is read in place"
        );
        // An object directory that holds nothing: every object is missing there.
        let empty = tempfile::tempdir().expect("a directory");
        git.borrow = Some(empty.path().as_os_str().to_owned());
        let head = git.resolve("trunk").expect("the branch");
        let listed = git.list(&head).expect("the listing");
        let readme = listed
            .iter()
            .find(|e| e.path == "README.md")
            .expect("README.md listed");
        assert_eq!(git.read(&head, readme).expect("README.md"), README);
        let packs = std::fs::read_dir(
            git.dir()
                .expect("a directory")
                .join("repository.git/objects/pack"),
        )
        .expect("the pack directory")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "pack"))
        })
        .count();
        // The commit, and its blobs when the fixture's server filtered them out.
        assert!(packs >= 1, "the commit was fetched");
    }

    #[test]
    fn only_object_reads_are_given_the_alternate() {
        assert!(reads_by_name(&["cat-file", "--batch"]));
        assert!(reads_by_name(&["cat-file", "-t", "abc"]));
        assert!(reads_by_name(&["rev-parse", "--verify", "abc^{tree}"]));
        assert!(!reads_by_name(&["rev-parse", "--disambiguate=abc"]));
        assert!(!reads_by_name(&["fetch", "--", "cat-file"]));
        assert!(!reads_by_name::<&str>(&[]));
    }

    #[test]
    fn plain_layouts_are_named_and_others_are_not() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let make = |dir: &Path| {
            for sub in ["objects", "refs"] {
                std::fs::create_dir_all(dir.join(sub)).expect("mkdir");
            }
            std::fs::write(dir.join("HEAD"), "ref: refs/heads/main\n").expect("HEAD");
        };
        let bare = tmp.path().join("bare.git");
        make(&bare);
        let work = tmp.path().join("work");
        make(&work.join(".git"));
        let text = |p: &Path| p.to_str().expect("utf-8").to_owned();
        assert_eq!(
            object_directory(&text(&bare)),
            Some(bare.join("objects").into_os_string())
        );
        assert_eq!(
            object_directory(&text(&work)),
            Some(work.join(".git/objects").into_os_string())
        );
        // A linked work tree's repository, a `.git` file, a plain directory, a relative path
        // and names the variable cannot carry are all fetched instead.
        let linked = tmp.path().join("linked");
        make(&linked);
        std::fs::write(linked.join("commondir"), "../bare.git\n").expect("commondir");
        assert_eq!(object_directory(&text(&linked)), None);
        let gitfile = tmp.path().join("gitfile");
        std::fs::create_dir_all(&gitfile).expect("mkdir");
        std::fs::write(gitfile.join(".git"), "gitdir: ../bare.git\n").expect(".git");
        assert_eq!(object_directory(&text(&gitfile)), None);
        assert_eq!(object_directory(&text(tmp.path())), None);
        assert_eq!(object_directory("bare.git"), None);
        let colon = tmp.path().join("a:b");
        make(&colon);
        assert_eq!(object_directory(&text(&colon)), None);
    }
}
