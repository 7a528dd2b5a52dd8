//! Three-way merge of a text file: base, local and remote versions, as git's `merge-file`.
//!
//! gix-merge's built-in text driver does the diff3 work; this module fixes the options (Myers
//! diff, diff3 conflict style with git's labels) so a conflicted file reads as
//! `git merge-file --diff3` would write it.

use gix_merge::blob::Resolution;
use gix_merge::blob::builtin_driver::text as merge_driver;
use gix_merge::blob::builtin_driver::text::{self, Conflict, ConflictStyle, Labels};

/// The outcome of merging one text file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextMerge {
    /// Both sides merged without conflict: the merged bytes.
    Clean(Vec<u8>),
    /// The sides conflict: the bytes with diff3 conflict markers.
    Conflict(Vec<u8>),
}

/// Merges `local` and `remote`, two descendants of `base`, labelling conflict hunks with
/// `labels` (local, base, remote).
///
/// # Example
/// ```
/// use asv_skilltree::merge::{merge_text, TextMerge};
/// let merged = merge_text(b"a\nb\nc\n", b"A\nb\nc\n", b"a\nb\nC\n", ["local", "base", "remote"]);
/// assert_eq!(merged, TextMerge::Clean(b"A\nb\nC\n".to_vec()));
/// ```
pub fn merge_text(base: &[u8], local: &[u8], remote: &[u8], labels: [&str; 3]) -> TextMerge {
    let mut out = Vec::new();
    let mut input = imara_diff::InternedInput::default();
    let options = text::Options {
        diff_algorithm: imara_diff::Algorithm::Myers,
        conflict: Conflict::Keep {
            style: ConflictStyle::Diff3,
            marker_size: Conflict::DEFAULT_MARKER_SIZE
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
    match resolution {
        Resolution::Conflict => TextMerge::Conflict(out),
        Resolution::Complete | Resolution::CompleteWithAutoResolvedConflict => {
            TextMerge::Clean(out)
        }
    }
}
