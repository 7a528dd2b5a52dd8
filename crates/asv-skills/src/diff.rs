//! `skill diff`: a unified diff of two versions of an imported skill (its base, the local
//! copy, upstream now), in the shape `git diff` prints, so it reads familiarly and `git apply`
//! takes it from the repository root.
//!
//! Lines are compared with imara-diff's Myers algorithm and the indent heuristic git uses by
//! default; hunks carry three lines of context and join when fewer than seven unchanged lines
//! stand between two changes, as git's do.
//!
//! The diff is returned line by line, each made as one of its kinds ([`DiffLine`]), so the
//! binary colours a line by what it is, never by reading the finished text back (issue 28 §2).

use std::fmt;

use asv_fs::{EntryKind, WriterLock};
use asv_remote::Options;
use asv_skilltree::merge::is_text;
use asv_skilltree::{FileNode, SkillTree};
use imara_diff::{Algorithm, Diff, InternedInput};

use crate::bases::{keep_base, kept_base};
use crate::error::Error;
use crate::lock::{Entry, SkillLock};
use crate::paths::skill_dir;
use crate::upstream::{base_of, upstream_of};

/// Which version of an imported skill `skill diff` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// The base the lock records.
    Base,
    /// The local copy.
    Local,
    /// Upstream now (reaches the source).
    Upstream,
}

/// One line of a unified diff, as it was made. Its `Display` is the line as `git diff` prints
/// it, without the line break.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffLine {
    /// A line of a file's header: `diff --git …`, a mode line, `--- …`, `+++ …` or `Binary
    /// files … differ`. (A path may hold a line break, which the text then holds too.)
    Header(String),
    /// The head of a hunk: its ranges (`@@ -1,2 +1,2 @@`), then the function line above the
    /// hunk that `git diff` would show, if any.
    Hunk {
        /// `@@ -<start>,<len> +<start>,<len> @@`.
        ranges: String,
        /// The heading after the ranges.
        heading: Option<String>,
    },
    /// A line both versions hold (its text, without the leading space).
    Context(String),
    /// A line only the first version holds (its text, without the `-`).
    Removed(String),
    /// A line only the second version holds (its text, without the `+`).
    Added(String),
    /// `\ No newline at end of file`, after a line that ends without one.
    NoNewline,
}

impl fmt::Display for DiffLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiffLine::Header(text) => f.write_str(text),
            DiffLine::Hunk {
                ranges,
                heading: None,
            } => f.write_str(ranges),
            DiffLine::Hunk {
                ranges,
                heading: Some(heading),
            } => write!(f, "{ranges} {heading}"),
            DiffLine::Context(text) => write!(f, " {text}"),
            DiffLine::Removed(text) => write!(f, "-{text}"),
            DiffLine::Added(text) => write!(f, "+{text}"),
            DiffLine::NoNewline => f.write_str("\\ No newline at end of file"),
        }
    }
}

/// A unified diff, line by line; empty when the versions are equal. Its `Display` is the text
/// `git diff` prints (every line ended by a line break), which `git apply` takes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnifiedDiff {
    lines: Vec<DiffLine>,
}

impl UnifiedDiff {
    /// The lines, in order.
    pub fn lines(&self) -> &[DiffLine] {
        &self.lines
    }

    /// Whether the versions are equal.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }
}

impl fmt::Display for UnifiedDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for line in &self.lines {
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

/// `skill diff`: the unified diff of skill `name` from one version to another.
///
/// # Errors
/// [`Error::Lock`]; [`Error::NotImported`]; [`Error::LinkedSkill`] for a skill directory that
/// is a symbolic link (whichever versions are asked for); a base that cannot be had as recorded
/// ([`Error::BaseUnavailable`] when neither the local copy nor upstream is the lost base,
/// [`Error::BaseMismatch`]); a guarded-read refusal of the local copy; as [`crate::upstream::take`] for
/// [`Version::Upstream`] (or for a base not kept here).
pub fn diff(
    root: &WriterLock<'_>,
    name: &str,
    from: Version,
    to: Version,
    options: &Options,
) -> Result<UnifiedDiff, Error> {
    compare(root, name, from, to, options).map(|c| c.unified)
}

/// As [`diff`], with the capability diff of the same two versions: each audited whole.
///
/// # Errors
/// As [`diff`].
pub fn compare(
    root: &WriterLock<'_>,
    name: &str,
    from: Version,
    to: Version,
    options: &Options,
) -> Result<Compared, Error> {
    let lock = SkillLock::load(root)?;
    let entry = lock.entry(name)?.clone();
    let dir = skill_dir(name);
    let sources = &crate::sources::Sources::new(options);
    // Whichever versions are asked for: a diff may keep a base, and a skill that is a link
    // is refused as every other command refuses it.
    crate::paths::refuse_linked_skill(root, &dir)?;
    let version = |v: Version| -> Result<SkillTree, Error> {
        match v {
            Version::Base => base_for_diff(root, name, &entry, sources),
            Version::Local => Ok(SkillTree::read(root, &dir)?),
            Version::Upstream => Ok(upstream_of(root, &entry, sources)?
                .map(|t| t.tree)
                .unwrap_or_default()),
        }
    };
    let a = version(from)?;
    let b = version(to)?;
    Ok(Compared {
        capabilities: crate::audit::capabilities::between(&a, &b)?,
        unified: unified(&a, &b, &dir)?,
    })
}

/// Two versions of an imported skill compared: their text, and what the second can do that
/// the first could not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compared {
    /// The unified diff.
    pub unified: UnifiedDiff,
    /// The capability diff of the same two versions (issue 32 §3): with `--from base --to
    /// upstream`, what the update a pull would merge changes in what the skill can do.
    pub capabilities: asv_audit::CapabilityDiff,
}

/// The base `skill diff` shows: as [`base_of`], kept when read again; a lost base is found
/// again when the local copy or upstream now still hashes to it.
fn base_for_diff(
    root: &WriterLock<'_>,
    name: &str,
    entry: &Entry,
    sources: &crate::sources::Sources<'_>,
) -> Result<SkillTree, Error> {
    match base_of(
        root,
        name,
        entry,
        kept_base(root, &entry.base_hash)?,
        sources,
    ) {
        Ok((tree, fetched)) => {
            if fetched {
                keep_base(root, &tree)?;
            }
            Ok(tree)
        }
        Err(lost @ Error::BaseUnavailable { .. }) => {
            let dir = skill_dir(name);
            if root.kind(&dir)? == Some(EntryKind::Directory) {
                let local = SkillTree::read(root, &dir)?;
                if local.hash() == entry.base_hash {
                    return Ok(local);
                }
            }
            match upstream_of(root, entry, sources)? {
                Ok(upstream) if upstream.tree.hash() == entry.base_hash => Ok(upstream.tree),
                _ => Err(lost),
            }
        }
        Err(e) => Err(e),
    }
}

/// Lines of context around each change.
const CONTEXT: u32 = 3;

/// The unified diff from `from` to `to`, each path shown under `prefix` (e.g. `skills/pdf`);
/// empty when the trees are equal. Only files that differ are read.
///
/// # Errors
/// A file left on disk that cannot be read again or changed since it was read.
///
/// # Example
/// ```
/// use asv_skilltree::{FileNode, SkillTree};
/// let tree = |data: &str| SkillTree::from_files(vec![FileNode {
///     path: "SKILL.md".into(), data: data.into(), executable: false,
/// }]).expect("held bytes");
/// let diff = asv_skills::diff::unified(&tree("a\nb\n"), &tree("a\nc\n"), "skills/x")?;
/// assert_eq!(diff.to_string(), "diff --git a/skills/x/SKILL.md b/skills/x/SKILL.md\n\
///     --- a/skills/x/SKILL.md\n+++ b/skills/x/SKILL.md\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n");
/// # Ok::<(), asv_skilltree::Error>(())
/// ```
pub fn unified(
    from: &SkillTree,
    to: &SkillTree,
    prefix: &str,
) -> Result<UnifiedDiff, asv_skilltree::Error> {
    let mut out = Vec::new();
    let (mut a, mut b) = (from.files().iter().peekable(), to.files().iter().peekable());
    loop {
        let (left, right) = match (a.peek(), b.peek()) {
            (None, None) => break,
            (Some(l), Some(r)) => match l.path.as_bytes().cmp(r.path.as_bytes()) {
                std::cmp::Ordering::Less => (a.next(), None),
                std::cmp::Ordering::Greater => (None, b.next()),
                std::cmp::Ordering::Equal => (a.next(), b.next()),
            },
            (Some(_), None) => (a.next(), None),
            (None, Some(_)) => (None, b.next()),
        };
        file(&mut out, left, right, prefix)?;
    }
    Ok(UnifiedDiff { lines: out })
}

/// A side's bytes, or none for a side that does not hold the file.
fn read_or_empty(
    side: Option<&FileNode>,
) -> Result<std::borrow::Cow<'_, [u8]>, asv_skilltree::Error> {
    side.map_or(Ok(std::borrow::Cow::Borrowed(&[][..])), |f| f.data.read())
}

fn mode(f: &FileNode) -> &'static str {
    if f.executable { "100755" } else { "100644" }
}

fn file(
    out: &mut Vec<DiffLine>,
    left: Option<&FileNode>,
    right: Option<&FileNode>,
    prefix: &str,
) -> Result<(), asv_skilltree::Error> {
    let Some(any) = left.or(right) else {
        return Ok(());
    };
    let path = if prefix.is_empty() {
        any.path.clone()
    } else {
        format!("{prefix}/{}", any.path)
    };
    if let (Some(l), Some(r)) = (left, right)
        && l == r
    {
        return Ok(());
    }
    let header = |text: String| DiffLine::Header(text);
    out.push(header(format!("diff --git a/{path} b/{path}")));
    match (left, right) {
        (None, Some(r)) => out.push(header(format!("new file mode {}", mode(r)))),
        (Some(l), None) => out.push(header(format!("deleted file mode {}", mode(l)))),
        (Some(l), Some(r)) if l.executable != r.executable => {
            out.push(header(format!("old mode {}", mode(l))));
            out.push(header(format!("new mode {}", mode(r))));
        }
        _ => {}
    }
    let (before, after) = match (left, right) {
        (Some(l), Some(r)) if l.data == r.data => return Ok(()),
        (l, r) => (read_or_empty(l)?, read_or_empty(r)?),
    };
    let (before, after) = (before.as_ref(), after.as_ref());
    if before == after {
        return Ok(());
    }
    let old_name = if left.is_some() {
        format!("a/{path}")
    } else {
        "/dev/null".to_owned()
    };
    let new_name = if right.is_some() {
        format!("b/{path}")
    } else {
        "/dev/null".to_owned()
    };
    if !is_text(before) || !is_text(after) {
        out.push(header(format!(
            "Binary files {old_name} and {new_name} differ"
        )));
        return Ok(());
    }
    out.push(header(format!("--- {old_name}")));
    out.push(header(format!("+++ {new_name}")));
    hunks(out, before, after);
    Ok(())
}

/// `start,len` as git prints a hunk range: `,1` left out, an empty range at the line before.
fn range(start: u32, len: u32) -> String {
    match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{len}", start + 1),
    }
}

/// A line of a hunk, of the kind `kind` makes (`DiffLine::Context`, `Removed`, `Added`),
/// followed by [`DiffLine::NoNewline`] when it ends without a line break.
fn line(out: &mut Vec<DiffLine>, kind: fn(String) -> DiffLine, text: &[u8]) {
    let text = String::from_utf8_lossy(text);
    match text.strip_suffix('\n') {
        Some(whole) => out.push(kind(whole.to_owned())),
        None => {
            out.push(kind(text.into_owned()));
            out.push(DiffLine::NoNewline);
        }
    }
}

/// Whether a line would head a hunk as git's default function-line rule picks one: it opens
/// with a letter, `_` or `$`.
fn is_heading(line: &[u8]) -> bool {
    line.first()
        .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_' || b == b'$')
}

/// A heading line as git shows it after `@@`: at most 80 bytes, trailing whitespace cut.
fn heading_text(line: &[u8]) -> String {
    let cut = &line[..line.len().min(80)];
    String::from_utf8_lossy(cut).trim_end().to_owned()
}

fn hunks(out: &mut Vec<DiffLine>, before: &[u8], after: &[u8]) {
    let input = InternedInput::new(before, after);
    let mut diff = Diff::compute(Algorithm::Myers, &input);
    diff.postprocess_lines(&input);
    let changes: Vec<imara_diff::Hunk> = diff.hunks().collect();
    let token = |t: imara_diff::Token| -> &[u8] { input.interner[t] };
    let (n_before, n_after) = (input.before.len() as u32, input.after.len() as u32);
    let mut i = 0;
    while i < changes.len() {
        // Join changes separated by at most twice the context.
        let mut j = i;
        while j + 1 < changes.len()
            && changes[j + 1].before.start - changes[j].before.end <= 2 * CONTEXT
        {
            j += 1;
        }
        let first = &changes[i];
        let last = &changes[j];
        let lead = first.before.start.min(CONTEXT);
        let start_before = first.before.start - lead;
        let start_after = first.after.start - lead;
        let end_before = (last.before.end + CONTEXT).min(n_before);
        let trail = end_before - last.before.end;
        let end_after = (last.after.end + trail).min(n_after);
        let ranges = format!(
            "@@ -{} +{} @@",
            range(start_before, end_before - start_before),
            range(start_after, end_after - start_after)
        );
        let above = input.before[..start_before as usize].iter().rev();
        let heading = above.map(|t| token(*t)).find(|l| is_heading(l));
        out.push(DiffLine::Hunk {
            ranges,
            heading: heading.map(heading_text),
        });
        let mut pos = start_before;
        for change in &changes[i..=j] {
            for t in &input.before[pos as usize..change.before.start as usize] {
                line(out, DiffLine::Context, token(*t));
            }
            for t in &input.before[change.before.start as usize..change.before.end as usize] {
                line(out, DiffLine::Removed, token(*t));
            }
            for t in &input.after[change.after.start as usize..change.after.end as usize] {
                line(out, DiffLine::Added, token(*t));
            }
            pos = change.before.end;
        }
        for t in &input.before[pos as usize..end_before as usize] {
            line(out, DiffLine::Context, token(*t));
        }
        i = j + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &[u8], bool)]) -> SkillTree {
        SkillTree::from_files(
            files
                .iter()
                .map(|(p, d, x)| FileNode {
                    path: (*p).to_owned(),
                    data: d.to_vec().into(),
                    executable: *x,
                })
                .collect(),
        )
        .unwrap()
    }

    #[test]
    fn kinds_of_change() {
        let from = tree(&[
            ("gone.md", b"bye\n", false),
            ("run.sh", b"#!/bin/sh\n", false),
            ("img.bin", b"\0\x01", false),
            ("same.md", b"same\n", false),
        ]);
        let to = tree(&[
            ("new.md", b"hi", false),
            ("run.sh", b"#!/bin/sh\n", true),
            ("img.bin", b"\0\x02", false),
            ("same.md", b"same\n", false),
        ]);
        assert_eq!(
            unified(&from, &to, "skills/s").unwrap().to_string(),
            "diff --git a/skills/s/gone.md b/skills/s/gone.md\n\
             deleted file mode 100644\n\
             --- a/skills/s/gone.md\n\
             +++ /dev/null\n\
             @@ -1 +0,0 @@\n\
             -bye\n\
             diff --git a/skills/s/img.bin b/skills/s/img.bin\n\
             Binary files a/skills/s/img.bin and b/skills/s/img.bin differ\n\
             diff --git a/skills/s/new.md b/skills/s/new.md\n\
             new file mode 100644\n\
             --- /dev/null\n\
             +++ b/skills/s/new.md\n\
             @@ -0,0 +1 @@\n\
             +hi\n\
             \\ No newline at end of file\n\
             diff --git a/skills/s/run.sh b/skills/s/run.sh\n\
             old mode 100644\n\
             new mode 100755\n"
        );
        assert!(unified(&from, &from, "x").unwrap().is_empty());
    }

    /// Writes both versions to disk and compares with `git diff --no-index` (hunks only).
    #[allow(clippy::disallowed_methods)]
    #[test]
    fn hunks_agree_with_git_diff() {
        let dir = tempfile::tempdir().unwrap();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut checked = 0;
        for case in 0..120 {
            let lines: Vec<String> = (0..(5 + next() % 40))
                .map(|i| format!("line {}\n", (i * 7 + next() % 3) % 23))
                .collect();
            let mut after = lines.clone();
            for _ in 0..(1 + next() % 5) {
                let at = (next() as usize) % (after.len() + 1);
                match next() % 3 {
                    0 => after.insert(at, format!("new {case}\n")),
                    1 if at < after.len() => {
                        after.remove(at);
                    }
                    _ if at < after.len() => after[at] = format!("changed {case}\n"),
                    _ => {}
                }
            }
            let (a, b) = (lines.concat(), after.concat());
            let pa = dir.path().join("a");
            let pb = dir.path().join("b");
            std::fs::write(&pa, &a).unwrap();
            std::fs::write(&pb, &b).unwrap();
            let git = std::process::Command::new("git")
                .args([
                    "diff",
                    "--no-index",
                    "--no-color",
                    "--diff-algorithm=myers",
                    "a",
                    "b",
                ])
                .current_dir(dir.path())
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .output()
                .unwrap();
            let git_out = String::from_utf8(git.stdout).unwrap();
            let git_hunks: String = git_out
                .lines()
                .skip_while(|l| !l.starts_with("@@"))
                .map(|l| format!("{l}\n"))
                .collect();
            let mut lines = Vec::new();
            if a != b {
                hunks(&mut lines, a.as_bytes(), b.as_bytes());
            }
            let ours = UnifiedDiff { lines }.to_string();
            // Two minimal diffs may place an ambiguous change differently; both must at least
            // change the same number of lines.
            let count = |s: &str, c: char| s.lines().filter(|l| l.starts_with(c)).count();
            assert_eq!(
                count(&ours, '+'),
                count(&git_hunks, '+'),
                "case {case}\n{ours}\n{git_hunks}"
            );
            assert_eq!(count(&ours, '-'), count(&git_hunks, '-'), "case {case}");
            if ours == git_hunks {
                checked += 1;
            } else if std::env::var("SHOW_DIFF").is_ok() {
                eprintln!("=== case {case}\nOURS\n{ours}GIT\n{git_hunks}");
            }
        }
        // Every generated case agrees with git byte for byte, function-line headings included.
        assert!(
            checked == 120,
            "only {checked} of 120 agreed with git byte for byte"
        );
    }
}
