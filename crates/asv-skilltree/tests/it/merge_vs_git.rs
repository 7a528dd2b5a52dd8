//! Differential test: the text merge against `git merge-file -p --diff3` on generated triples.
//!
//! Whether a merge is clean, and every clean result, must agree with git byte for byte. Where
//! both conflict, the hunks may be cut at different lines (both are valid diff3 output; seen:
//! 1 of 135 conflicting long triples, where the two diffs align a repeated line differently),
//! so conflicted output must agree in at least 99% of the conflicting short triples and 98% of
//! the long ones.

use std::process::Command;

use asv_skilltree::merge::{TextMerge, merge_text};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> usize {
        (self.next() % n) as usize
    }
}

const WORDS: &[&str] = &[
    "alpha", "beta", "gamma", "delta", "", "epsilon", "zeta", "eta",
];

/// A side derived from `base` by up to `edits - 1` random line edits.
fn edit(rng: &mut Rng, base: &[String], edits: u64) -> Vec<String> {
    let mut lines = base.to_vec();
    for _ in 0..rng.below(edits) {
        let at = rng.below(lines.len() as u64 + 1);
        match rng.below(3) {
            0 if at < lines.len() => {
                lines.remove(at);
            }
            1 if at < lines.len() => {
                lines[at] = format!("{}-{}", WORDS[rng.below(8)], rng.below(3))
            }
            _ => lines.insert(at, WORDS[rng.below(8)].to_owned()),
        }
    }
    lines
}

fn text(lines: &[String], trailing_newline: bool) -> Vec<u8> {
    let mut s = lines.join("\n");
    if trailing_newline && !lines.is_empty() {
        s.push('\n');
    }
    s.into_bytes()
}

fn git_merge(dir: &std::path::Path, base: &[u8], local: &[u8], remote: &[u8]) -> (bool, Vec<u8>) {
    std::fs::write(dir.join("local"), local).expect("write");
    std::fs::write(dir.join("base"), base).expect("write");
    std::fs::write(dir.join("remote"), remote).expect("write");
    let out = Command::new("git")
        .args([
            "merge-file",
            "-p",
            "--diff3",
            "-L",
            "local",
            "-L",
            "base",
            "-L",
            "remote",
            "local",
            "base",
            "remote",
        ])
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git merge-file");
    let code = out.status.code().expect("exit code");
    assert!(code >= 0, "git merge-file failed");
    (code == 0, out.stdout)
}

/// Short triples: every line near every change.
#[test]
fn text_merge_agrees_with_git_merge_file() {
    agree_with_git(42, 400, 8, 4, 1);
}

/// Long triples (up to 400 lines of 8 distinct words, up to 7 edits a side): the merge diffs
/// only what each side changed and hands the driver only the stretches both changed, so
/// changes far apart, near the ends and next to each other are held to git too. Seen: every
/// clean/conflict call as git's, conflicts cut where git cuts them in 134 of 135 (gix-merge's
/// driver given the whole files: 1 clean merge called a conflict, 4 of 135 cut otherwise),
/// so up to 2% may differ.
#[test]
fn long_text_merges_agree_with_git_merge_file() {
    agree_with_git(9, 1000, 400, 8, 2);
}

/// `cases` triples of bases under `lines` lines, sides of up to `edits - 1` edits each;
/// conflicted output may be cut otherwise than git's in up to `layout_percent` of the
/// conflicting triples.
fn agree_with_git(seed: u64, cases: usize, lines: u64, edits: u64, layout_percent: usize) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut rng = Rng(seed);
    let mut disagreements = Vec::new();
    let mut conflict_layouts = Vec::new();
    let mut conflicts = 0;
    for case in 0..cases {
        let n = rng.below(lines);
        let base: Vec<String> = (0..n).map(|_| WORDS[rng.below(8)].to_owned()).collect();
        let local = edit(&mut rng, &base, edits);
        let remote = if rng.below(5) == 0 {
            local.clone()
        } else {
            edit(&mut rng, &base, edits)
        };
        let newline = rng.below(6) != 0;
        let (b, l, r) = (
            text(&base, newline),
            text(&local, newline),
            text(&remote, newline),
        );
        let (git_clean, git_out) = git_merge(dir.path(), &b, &l, &r);
        let (ours_clean, ours_out) = match merge_text(&b, &l, &r, ["local", "base", "remote"]) {
            TextMerge::Clean(out) => (true, out),
            TextMerge::Conflict(out) => (false, out),
        };
        if !git_clean {
            conflicts += 1;
        }
        let differs = git_clean != ours_clean || (git_clean && git_out != ours_out);
        if !differs && git_out != ours_out {
            conflict_layouts.push(case);
        }
        if differs {
            disagreements.push(format!(
                "case {case}: base {:?} local {:?} remote {:?}\n  git ({git_clean}): {:?}\n  ours ({ours_clean}): {:?}",
                String::from_utf8_lossy(&b),
                String::from_utf8_lossy(&l),
                String::from_utf8_lossy(&r),
                String::from_utf8_lossy(&git_out),
                String::from_utf8_lossy(&ours_out)
            ));
        }
    }
    assert!(
        conflicts > 20,
        "the generator makes conflicts too ({conflicts})"
    );
    assert!(
        conflict_layouts.len() * 100 <= conflicts * layout_percent,
        "conflicted output differs from git's in {} of {conflicts} conflicting triples: {conflict_layouts:?}",
        conflict_layouts.len()
    );
    assert!(
        disagreements.is_empty(),
        "{} of {cases} triples disagree with git merge-file:\n{}",
        disagreements.len(),
        disagreements
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
