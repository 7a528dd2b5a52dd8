//! The three-way merge of one text file, written as it is worked out.
//!
//! gix-merge's text driver takes the three versions whole, interns every line of all three and
//! builds the merged text in one `Vec`: a merge of a 200 MB file cost about 300 MB beyond its
//! three versions (issue 27 §5). This module keeps the driver's output (git's `merge-file
//! --diff3` bytes, checked by `tests/it/merge_vs_git.rs`) and bounds what it holds beside the
//! versions:
//!
//! 1. Each side is diffed against the base alone, after trimming the lines the two share at
//!    the start and at the end (byte comparisons, nothing allocated), so only the changed
//!    middle of a file is interned. [`SLIDE`] equal lines stay on either side of that middle,
//!    so the diff's slider heuristics see the context they would see in the whole file.
//! 2. The changes of both sides are grouped into clusters of base lines that touch (git calls
//!    changes disjoint only when an unchanged line lies between them).
//! 3. Unchanged stretches are copied from the base; a cluster changed by one side only is
//!    copied from that side; a cluster both sides changed is handed to the driver as three
//!    small slices (with [`LEAD`] base lines before it, which the driver reads to choose the
//!    line ending of its markers), and its output written on.
//!
//! A merge holds its three versions and, beside them, the interned middle of one side's diff
//! at a time and the output of one cluster.

use std::io::{self, Write};
use std::ops::Range;

use gix_merge::blob::Resolution;
use gix_merge::blob::builtin_driver::text as merge_driver;
use gix_merge::blob::builtin_driver::text::{self, Conflict as Markers, ConflictStyle, Labels};

/// Equal lines kept on either side of the changed middle of a side's diff, so a change in a
/// run of repeated lines slides through the run as in git's diff of the whole file (a change
/// that would slide further is placed within this many lines: still a valid merge).
const SLIDE: usize = 1000;

/// Base lines handed to the driver before a cluster both sides changed: the driver takes the
/// line ending of a conflict's markers from the last two lines before it.
const LEAD: usize = 2;

/// How a text merge ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Every change merged: what was written is the merged text.
    Clean,
    /// Some changes overlap: what was written holds diff3 conflict markers.
    Conflict,
}

/// One change of one side against the base, in byte offsets of each.
#[derive(Debug, Clone)]
struct Change {
    /// The base bytes replaced (empty for an insertion), whole lines.
    base: Range<usize>,
    /// The side's bytes in their place (empty for a deletion), whole lines.
    side: Range<usize>,
}

/// Merges `local` and `remote`, two descendants of `base`, writing the result to `out` as it
/// goes, with diff3 conflict markers labelled `labels` (local, base, remote) where the changes
/// overlap: the bytes `git merge-file -p --diff3` writes, within the alignment choices of two
/// Myers diffs (the changes of each side placed as git places them; inside a stretch both
/// sides changed, as gix-merge's driver does).
///
/// # Errors
/// What `out` returns for a write.
///
/// # Example
/// ```
/// use asv_skilltree::merge::{Outcome, merge_text_into};
/// let mut out = Vec::new();
/// let outcome = merge_text_into(b"a\nb\nc\n", b"A\nb\nc\n", b"a\nb\nC\n", ["l", "b", "r"], &mut out)?;
/// assert_eq!((outcome, out.as_slice()), (Outcome::Clean, &b"A\nb\nC\n"[..]));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn merge_text_into(
    base: &[u8],
    local: &[u8],
    remote: &[u8],
    labels: [&str; 3],
    out: &mut dyn Write,
) -> io::Result<Outcome> {
    let ours = changes(base, local);
    let theirs = changes(base, remote);
    let mut outcome = Outcome::Clean;
    // How far the base has been written, and each side's offset from the base after the
    // changes taken so far (an unchanged stretch stands at base offset + delta in a side).
    let mut written = 0;
    let (mut ours_delta, mut theirs_delta) = (0isize, 0isize);
    let (mut o, mut t) = (0, 0);
    while o < ours.len() || t < theirs.len() {
        // The cluster: from the earliest change left, every change of either side that starts
        // at or before the cluster's end so far.
        let start = match (ours.get(o), theirs.get(t)) {
            (Some(a), Some(b)) => a.base.start.min(b.base.start),
            (Some(a), None) => a.base.start,
            (None, Some(b)) => b.base.start,
            (None, None) => break,
        };
        let mut end = start;
        let (o0, t0) = (o, t);
        loop {
            if let Some(c) = ours.get(o).filter(|c| c.base.start <= end) {
                end = end.max(c.base.end);
                o += 1;
            } else if let Some(c) = theirs.get(t).filter(|c| c.base.start <= end) {
                end = end.max(c.base.end);
                t += 1;
            } else {
                break;
            }
        }
        let (ours_in, theirs_in) = (&ours[o0..o], &theirs[t0..t]);
        let ours_after = ours_in.last().map_or(ours_delta, delta);
        let theirs_after = theirs_in.last().map_or(theirs_delta, delta);
        if theirs_in.is_empty() || ours_in.is_empty() {
            // One side alone changed these lines: its bytes for them, as they stand.
            let (before, after, side) = if theirs_in.is_empty() {
                (ours_delta, ours_after, local)
            } else {
                (theirs_delta, theirs_after, remote)
            };
            out.write_all(&base[written..start])?;
            out.write_all(&side[at(start, before)..at(end, after)])?;
            written = end;
        } else {
            // Both sides changed them: the driver merges the cluster with a few base lines
            // before it (unchanged on both sides, so the same bytes in each).
            let lead = lead_start(base, written, start);
            out.write_all(&base[written..lead])?;
            let cluster = driver(
                &base[lead..end],
                &local[at(lead, ours_delta)..at(end, ours_after)],
                &remote[at(lead, theirs_delta)..at(end, theirs_after)],
                labels,
            );
            if cluster.1 == Outcome::Conflict {
                outcome = Outcome::Conflict;
            }
            out.write_all(&cluster.0)?;
            written = end;
        }
        ours_delta = ours_after;
        theirs_delta = theirs_after;
    }
    out.write_all(&base[written..])?;
    Ok(outcome)
}

/// A side's offset from the base after `change`.
fn delta(change: &Change) -> isize {
    change.side.end as isize - change.base.end as isize
}

/// The side offset of base offset `base` in an unchanged stretch `delta` away.
fn at(base: usize, delta: isize) -> usize {
    base.saturating_add_signed(delta)
}

/// Where the [`LEAD`] base lines before `start` begin, not before `floor` (what is already
/// written).
fn lead_start(base: &[u8], floor: usize, start: usize) -> usize {
    let mut at = start;
    for _ in 0..LEAD {
        if at <= floor {
            break;
        }
        // The line before `at` ends at `at - 1`; it starts after the newline before that.
        at = memchr::memrchr(b'\n', &base[floor..at - 1]).map_or(floor, |i| floor + i + 1);
    }
    at
}

/// gix-merge's text driver on one cluster, with the options that make its output git's:
/// Myers diffs and diff3 markers of the default size.
fn driver(base: &[u8], local: &[u8], remote: &[u8], labels: [&str; 3]) -> (Vec<u8>, Outcome) {
    let mut out = Vec::with_capacity(local.len().max(remote.len()).saturating_add(256));
    let mut input = imara_diff::InternedInput::default();
    let options = text::Options {
        diff_algorithm: imara_diff::Algorithm::Myers,
        conflict: Markers::Keep {
            style: ConflictStyle::Diff3,
            marker_size: Markers::DEFAULT_MARKER_SIZE
                .try_into()
                .unwrap_or(std::num::NonZeroU8::MIN),
        },
    };
    let resolution = merge_driver(
        &mut out,
        &mut input,
        Labels {
            current: Some(labels[0].into()),
            ancestor: Some(labels[1].into()),
            other: Some(labels[2].into()),
        },
        local,
        base,
        remote,
        options,
    );
    let outcome = match resolution {
        Resolution::Conflict => Outcome::Conflict,
        Resolution::Complete | Resolution::CompleteWithAutoResolvedConflict => Outcome::Clean,
    };
    (out, outcome)
}

/// The changes that turn `base` into `side`, in order, as the driver's diff finds them (Myers,
/// then the line heuristics), interning only the middle the two do not share.
fn changes(base: &[u8], side: &[u8]) -> Vec<Change> {
    let head = shared_head(base, side);
    let tail = shared_tail(&base[head..], &side[head..]);
    if head == base.len() && head == side.len() {
        return Vec::new();
    }
    // The middle, widened by up to SLIDE equal lines on each side.
    let from = lines_back(base, head, SLIDE);
    let base_to = lines_forward(base, base.len() - tail, SLIDE);
    let side_to = base_to + side.len() - base.len();
    let (b, s) = (&base[from..base_to], &side[from..side_to]);
    let input = imara_diff::InternedInput::new(imara_diff::sources::byte_lines(b), {
        imara_diff::sources::byte_lines(s)
    });
    let mut diff = imara_diff::Diff::compute(imara_diff::Algorithm::Myers, &input);
    // git's merge-file slides an ambiguous change as far down as it goes, with no indent
    // heuristic (gix-merge's driver uses one, and so cuts some merges otherwise: measured in
    // tests/it/merge_vs_git.rs, 1 clean merge of 1,000 long triples called a conflict).
    diff.postprocess_no_heuristic(&input);
    // Token indices to byte offsets: the interned lines, in order, are the slices' lines.
    let offsets = |tokens: &[imara_diff::Token]| {
        let mut at = Vec::with_capacity(tokens.len() + 1);
        let mut pos = from;
        at.push(pos);
        for &token in tokens {
            pos += input.interner[token].len();
            at.push(pos);
        }
        at
    };
    let (base_at, side_at) = (offsets(&input.before), offsets(&input.after));
    diff.hunks()
        .map(|h| Change {
            base: base_at[h.before.start as usize]..base_at[h.before.end as usize],
            side: side_at[h.after.start as usize]..side_at[h.after.end as usize],
        })
        .collect()
}

/// The length in bytes of the whole lines `a` and `b` begin with alike.
fn shared_head(a: &[u8], b: &[u8]) -> usize {
    let same = mismatch(a, b);
    if same == a.len() && same == b.len() {
        return same;
    }
    // A line is shared only through its newline (a last line without one is shared only when
    // both end there, handled above).
    memchr::memrchr(b'\n', &a[..same]).map_or(0, |i| i + 1)
}

/// The length in bytes of the whole lines `a` and `b` end with alike.
fn shared_tail(a: &[u8], b: &[u8]) -> usize {
    let same = mismatch_back(a, b);
    let (pa, pb) = (a.len() - same, b.len() - same);
    let starts_line = |s: &[u8], p: usize| p == 0 || s[p - 1] == b'\n';
    if starts_line(a, pa) && starts_line(b, pb) {
        return same;
    }
    // The shared bytes begin mid-line: the shared lines begin after the first newline in them.
    memchr::memchr(b'\n', &a[pa..]).map_or(0, |i| a.len() - (pa + i + 1))
}

/// How many bytes `a` and `b` begin with alike (compared a block at a time).
fn mismatch(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 4096;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + BLOCK <= n && a[i..i + BLOCK] == b[i..i + BLOCK] {
        i += BLOCK;
    }
    i + a[i..n]
        .iter()
        .zip(&b[i..n])
        .take_while(|(x, y)| x == y)
        .count()
}

/// How many bytes `a` and `b` end with alike (compared a block at a time).
fn mismatch_back(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 4096;
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut i = 0;
    while i + BLOCK <= n && a[n - i - BLOCK..n - i] == b[n - i - BLOCK..n - i] {
        i += BLOCK;
    }
    i + a[..n - i]
        .iter()
        .rev()
        .zip(b[..n - i].iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// The start of the line `lines` lines before the line starting at `at` (or 0).
fn lines_back(data: &[u8], at: usize, lines: usize) -> usize {
    let mut pos = at;
    for _ in 0..lines {
        if pos == 0 {
            break;
        }
        pos = memchr::memrchr(b'\n', &data[..pos - 1]).map_or(0, |i| i + 1);
    }
    pos
}

/// The end of the `lines` lines after the line boundary `at` (or the end of `data`).
fn lines_forward(data: &[u8], at: usize, lines: usize) -> usize {
    let mut pos = at;
    for _ in 0..lines {
        match memchr::memchr(b'\n', &data[pos..]) {
            Some(i) => pos += i + 1,
            None => return data.len(),
        }
    }
    pos
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(base: &[u8], local: &[u8], remote: &[u8]) -> (Vec<u8>, Outcome) {
        driver(base, local, remote, ["l", "b", "r"])
    }

    fn streamed(base: &[u8], local: &[u8], remote: &[u8]) -> (Vec<u8>, Outcome) {
        let mut out = Vec::new();
        let outcome = merge_text_into(base, local, remote, ["l", "b", "r"], &mut out).unwrap();
        (out, outcome)
    }

    #[test]
    fn shared_lines_are_whole_lines() {
        assert_eq!(shared_head(b"ab\ncd\n", b"ab\ncx\n"), 3);
        assert_eq!(shared_head(b"ab\ncd", b"ab\ncd"), 5);
        assert_eq!(shared_head(b"ab\ncd", b"ab\ncd\n"), 3);
        assert_eq!(shared_head(b"", b"x\n"), 0);
        assert_eq!(shared_tail(b"ab\ncd\n", b"xb\ncd\n"), 3);
        assert_eq!(shared_tail(b"cd\n", b"ab\ncd\n"), 3);
        assert_eq!(shared_tail(b"d\n", b"ab\ncd\n"), 0);
        assert_eq!(shared_tail(b"ab\ncd", b"ab\ncd\n"), 0);
    }

    #[test]
    fn leads_stop_at_what_is_written() {
        let base = b"a\nb\nc\nd\n";
        assert_eq!(lead_start(base, 0, 6), 2);
        assert_eq!(lead_start(base, 4, 6), 4);
        assert_eq!(lead_start(base, 0, 2), 0);
        assert_eq!(lead_start(base, 6, 6), 6);
    }

    /// Far-apart changes on both sides, clusters both changed, CRLF endings, missing final
    /// newlines: the streamed merge writes what the driver writes for the whole file.
    #[test]
    fn streams_what_the_driver_writes_whole() {
        let lines: Vec<String> = (0..400).map(|i| format!("line {i}\n")).collect();
        let base = lines.concat();
        let edit = |at: &[(usize, &str)], s: &str| {
            let mut v = lines.clone();
            for (i, t) in at.iter().rev() {
                v[*i] = (*t).to_owned();
            }
            let mut s0 = v.concat();
            s0.push_str(s);
            s0
        };
        let cases = [
            (edit(&[(3, "L\n")], ""), edit(&[(390, "R\n")], "")),
            (
                edit(&[(3, "L\n"), (200, "L2\n")], ""),
                edit(&[(3, "R\n")], ""),
            ),
            (edit(&[(10, "X\n")], ""), edit(&[(10, "X\n")], "")),
            (edit(&[(10, "L\n")], ""), edit(&[(11, "R\n")], "")),
            (
                edit(&[(50, "L\r\n")], "tail"),
                edit(&[(50, "R\r\n")], "other"),
            ),
            (edit(&[], "end"), edit(&[(0, "first\n")], "")),
        ];
        for (local, remote) in &cases {
            let (b, l, r) = (base.as_bytes(), local.as_bytes(), remote.as_bytes());
            assert_eq!(streamed(b, l, r), whole(b, l, r));
        }
        let crlf = base.replace('\n', "\r\n");
        let (l, r) = (
            crlf.replace("line 7\r\n", "L\r\n"),
            crlf.replace("line 7\r\n", "R\r\n"),
        );
        let (b, l, r) = (crlf.as_bytes(), l.as_bytes(), r.as_bytes());
        assert_eq!(streamed(b, l, r), whole(b, l, r));
        assert_eq!(streamed(b"", b"a\n", b"b\n"), whole(b"", b"a\n", b"b\n"));
        assert_eq!(streamed(b"x", b"x", b"x"), (b"x".to_vec(), Outcome::Clean));
    }
}
