//! The cache of fetched sources: where a remote contract's text and tests are read from.
//!
//! The format is defined here, where it is read; `asv-remote` fills it. Each revision of a
//! source sits whole under `.agentic-skill-vendor/cache/<source>/<revision>/`, holding the
//! source repository's own paths: a contract's text at `<path>` (the row's `path`, or
//! `contracts/<id>.md`), its conformance tests under `<dir of path>/<id>/conformance/`.
//!
//! The cache is disposable and never committed, so its absence is a state rather than a
//! fault: a text the cache does not hold is unknown (`None`), never a closure gap. What is
//! read is read guarded (a link anywhere on the way refuses), and a cached conformance tree is
//! digested without this repository's `.gitignore` rules: the source repository's own rules
//! already decided what its commit holds, and this repository's rules exclude the whole cache.
//!
//! ```
//! use asv_contracts::cache;
//! assert_eq!(
//!     cache::site("workflow", "9f1b7c2d4e5a60718293a4b5c6d7e8f90a1b2c3d", "contracts/tdd.md"),
//!     ".agentic-skill-vendor/cache/workflow/9f1b7c2d4e5a60718293a4b5c6d7e8f90a1b2c3d/contracts/tdd.md"
//! );
//! ```

use asv_fs::Root;
use asv_model::id::ContractId;

use crate::digest::Digest;
use crate::document::CanonicalBody;
use crate::error::Result;

use asv_model::layout::CACHE_DIR;

/// `.agentic-skill-vendor/cache/<source>/<revision>`: where one fetched revision sits whole.
pub fn revision_dir(source: &str, revision: &str) -> String {
    format!("{CACHE_DIR}/{source}/{revision}")
}

/// `.agentic-skill-vendor/cache/<source>/<revision>/<path>`: where the file `path` of that
/// revision of the source sits.
pub fn site(source: &str, revision: &str, path: &str) -> String {
    format!("{}/{path}", revision_dir(source, revision))
}

/// What the cache holds for one remote document contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedText {
    /// The body and its digest.
    pub body: CanonicalBody,
    /// The framed digest of the conformance tree beside it (no `.gitignore` applied), `None`
    /// when there are no files.
    pub conformance: Option<Digest>,
}

/// Reads the text at `site` (a cache path from [`site`]) and the conformance tree beside it;
/// `None` when no file stands at `site`.
///
/// # Errors
/// [`asv_model::Error::NotUtf8`] for a text that is not UTF-8; a guarded-read refusal (a link or a
/// wrong kind of entry on the way, at the text, or anywhere in the conformance tree).
pub fn read_text(root: &Root, site: &str, id: &ContractId) -> Result<Option<CachedText>> {
    let Some(bytes) = root.read_file_capped(
        site,
        crate::document::DOCUMENT_LIMIT,
        crate::document::DOCUMENT_LIMIT_WHAT,
    )?
    else {
        return Ok(None);
    };
    let body = CanonicalBody::from_vec(site, bytes)?;
    let conformance =
        conformance_digest_all_files(root, &crate::manifest::conformance_dir(site, id))?;
    Ok(Some(CachedText { body, conformance }))
}

/// The framed digest of every file under `dir` (no `.gitignore` rules applied); `None` when
/// the directory does not exist or holds no file.
///
/// # Errors
/// A link, FIFO or other special entry under `dir`, or a non-directory on the way.
pub fn conformance_digest_all_files(root: &Root, dir: &str) -> Result<Option<Digest>> {
    let Some(files) = root.walk_files(dir, &mut |_, _| false)? else {
        return Ok(None);
    };
    super::framed::framed_digest(root, dir, files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_text_and_tests_are_read_without_gitignore() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        let rev = "9f1b7c2d4e5a60718293a4b5c6d7e8f90a1b2c3d";
        let id = ContractId::parse("tdd-contract").unwrap();
        let text = site("workflow", rev, "contracts/tdd-contract.md");
        assert_eq!(read_text(&root, &text, &id).unwrap(), None);
        root.write_file(".gitignore", b"/.agentic-skill-vendor/\n*.md\n")
            .unwrap();
        root.write_file(
            &text,
            b"# TDD Contract\n\nWrite the test first, then the code.\n",
        )
        .unwrap();
        let cached = read_text(&root, &text, &id).unwrap().unwrap();
        assert_eq!(cached.conformance, None);
        root.write_file(
            &site(
                "workflow",
                rev,
                "contracts/tdd-contract/conformance/cases/first.md",
            ),
            b"A case the contract has to satisfy.\n",
        )
        .unwrap();
        let cached = read_text(&root, &text, &id).unwrap().unwrap();
        assert_eq!(
            cached.conformance.unwrap().to_string(),
            "sha256:0db72a1f69edeaabea98e6cb01de7218947c0dc6390800d38edf9270a7c88986"
        );
        assert_eq!(
            cached.body.digest().to_string(),
            "sha256:f15b11b0c425eba2ac1f8f976de88c5d79f8dc78315db5336612f3b3a92ef3ff"
        );
    }

    #[test]
    fn links_in_the_cache_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        let id = ContractId::parse("c").unwrap();
        root.write_file("elsewhere/contracts/c.md", b"x\n").unwrap();
        root.create_dir_all(&format!("{CACHE_DIR}/w")).unwrap();
        std::os::unix::fs::symlink(
            dir.path().join("elsewhere"),
            dir.path().join(CACHE_DIR).join("w").join("r"),
        )
        .unwrap();
        assert!(read_text(&root, &site("w", "r", "contracts/c.md"), &id).is_err());
    }
}
