//! `lint-selfcontain`: can each skill directory be moved on its own?
//!
//! A skill is copied into agents' folders one directory at a time, so anything inside it that
//! points above itself (`../`), at an absolute path, or through a link out of it breaks once
//! moved. The scan is textual and deliberately simple, to agree line for line with the
//! TypeScript tool:
//!
//! - `parent-escape`: the line contains `../` or `..\` anywhere.
//! - `absolute-path`: a token starting at a boundary (line start, JavaScript whitespace, or one
//!   of `"` `'` `` ` `` `=` `(` `[` `,` `;`) that is `/seg/more` (two segments at least, so
//!   prose like `/help` passes), `~/…`, or a drive `X:\…` / `X:/…`; it runs until whitespace or
//!   one of `"` `'` `` ` `` `)` `]`. `:` is not a boundary, which is what keeps URLs out.
//!   A shebang's interpreter on line 1 is exempt.
//! - `symlink-escape`: a link whose target, resolved from its directory, lies outside
//!   `skills/<name>`.
//!
//! The absolute-path rule needs a look-behind, which the `regex` crate does not offer, and
//! JavaScript's `\s`, which differs from Rust's; hence the small hand-written matcher.

use asv_fs::{EntryKind, Root, join};
use asv_model::declaration::is_js_whitespace;
use asv_model::layout::SKILLS_DIR;

use crate::error::{Error, Result};
use crate::report::Violation;

/// Checks every file and link under `skills/` and returns the violations in walk order
/// (entries sorted in UTF-16 order, depth first).
///
/// # Errors
/// `skills/` missing or not a directory; a FIFO, socket or device under it; an I/O failure.
///
/// # Example
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let root = asv_fs::Root::open(dir.path())?;
/// root.write_file("skills/a/SKILL.md", b"See ../shared/notes.md\nRun /usr/local/bin/tool\n")?;
/// let lines: Vec<String> = asv_contracts::lint::lint_selfcontain(&root)?
///     .iter()
///     .map(|v| v.line_text())
///     .collect();
/// assert_eq!(lines, [
///     "parent-escape: skills/a/SKILL.md:1: reference above the skill directory",
///     "absolute-path: skills/a/SKILL.md:2: absolute reference \"/usr/local/bin/tool\"",
/// ]);
/// # Ok(())
/// # }
/// ```
pub fn lint_selfcontain(root: &Root) -> Result<Vec<Violation>> {
    match root.kind(SKILLS_DIR)? {
        Some(EntryKind::Directory) => {}
        Some(EntryKind::Symlink) => {
            return Err(asv_fs::Error::Symlink {
                path: SKILLS_DIR.to_owned(),
            }
            .into());
        }
        _ => return Err(Error::NoSkillsDir),
    }
    let Some(skills_real) = root.real_path(SKILLS_DIR) else {
        return Err(Error::NoSkillsDir);
    };
    let mut out = Vec::new();
    walk(root, &skills_real, SKILLS_DIR, &mut out)?;
    Ok(out)
}

fn walk(
    root: &Root,
    skills_real: &std::path::Path,
    dir: &str,
    out: &mut Vec<Violation>,
) -> Result<()> {
    let mut entries = root.read_dir(dir)?.unwrap_or_default();
    entries.sort_by(|a, b| crate::digest::cmp_utf16(&a.name, &b.name));
    for entry in entries {
        let site = join(dir, &entry.name);
        match entry.kind {
            EntryKind::Symlink => {
                let skill = site.split('/').nth(1).unwrap_or_default();
                let boundary = skills_real.join(skill);
                let resolved = root.resolve_link(&site)?;
                if !resolved.starts_with(&boundary) {
                    out.push(Violation::SymlinkEscape { path: site });
                }
            }
            EntryKind::Directory => walk(root, skills_real, &site, out)?,
            EntryKind::File => lint_file(root, &site, out)?,
            found => {
                return Err(asv_fs::Error::WrongKind {
                    path: site,
                    expected: EntryKind::File,
                    found,
                }
                .into());
            }
        }
    }
    Ok(())
}

/// How many leading bytes are looked at for a NUL, the test git uses to call a file binary.
const BINARY_PROBE: usize = 8000;

/// The longest piece of a line scanned at once: a longer line is cut after its last ASCII
/// whitespace byte within the piece (where no reference or `../` can span the cut), or, with
/// none there, at the piece's length.
const PIECE: usize = 1024 * 1024;

/// How a file's bytes are read as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decoding {
    Utf8,
    Windows1252,
}

/// Scans the file at `site` in chunks: a file holding a NUL in its first 8,000 bytes is binary
/// and skipped; any other is read line by line, never whole, as strict UTF-8, or (when it is
/// not) again from the start as windows-1252, so its lines and matches are exactly those of
/// [`lint_text`] over [`decode_for_scan`] of the whole file (issue 15 §3).
fn lint_file(root: &Root, site: &str, out: &mut Vec<Violation>) -> Result<()> {
    let start = out.len();
    match scan_file(root, site, Decoding::Utf8, PIECE, out)? {
        Scan::Done | Scan::Binary => Ok(()),
        Scan::NotUtf8 => {
            out.truncate(start);
            scan_file(root, site, Decoding::Windows1252, PIECE, out).map(|_| ())
        }
    }
}

/// How one pass over a file ended.
enum Scan {
    Done,
    Binary,
    NotUtf8,
}

fn scan_file(
    root: &Root,
    site: &str,
    decoding: Decoding,
    piece: usize,
    out: &mut Vec<Violation>,
) -> Result<Scan> {
    let Some(reader) = root.open_reader(site)? else {
        return Ok(Scan::Done);
    };
    let mut lines = LineScanner::new(site, decoding, piece, out.len());
    let mut probe = 0usize;
    let mut binary = false;
    reader.for_each_chunk(&mut |chunk| {
        if binary || lines.failed {
            return;
        }
        if probe < BINARY_PROBE {
            let look = &chunk[..chunk.len().min(BINARY_PROBE - probe)];
            probe += look.len();
            if look.contains(&0) {
                binary = true;
                return;
            }
        }
        lines.feed(chunk, out);
    })?;
    if binary {
        return Ok(Scan::Binary);
    }
    lines.finish(out);
    Ok(if lines.failed {
        Scan::NotUtf8
    } else {
        Scan::Done
    })
}

/// Cuts a file's bytes into lines (on LF) and long lines into pieces, and scans each piece.
struct LineScanner<'s> {
    site: &'s str,
    decoding: Decoding,
    /// The longest piece scanned at once ([`PIECE`]; smaller in tests).
    piece: usize,
    /// The bytes of the current line not scanned yet.
    pending: Vec<u8>,
    /// The current line's number, from 1.
    number: usize,
    /// Where the current line's violations begin in the output.
    line_start: usize,
    /// Whether the current line was found to hold `../` or `..\`.
    escapes: bool,
    /// Pieces of the current line scanned so far.
    pieces: usize,
    /// The last characters of the previous piece of the current line, to find a `../` cut
    /// in two.
    carry: String,
    /// A piece that is not UTF-8 met in a UTF-8 pass.
    failed: bool,
}

impl<'s> LineScanner<'s> {
    fn new(site: &'s str, decoding: Decoding, piece: usize, line_start: usize) -> Self {
        LineScanner {
            site,
            decoding,
            piece,
            pending: Vec::new(),
            number: 1,
            line_start,
            escapes: false,
            pieces: 0,
            carry: String::new(),
            failed: false,
        }
    }

    fn feed(&mut self, mut chunk: &[u8], out: &mut Vec<Violation>) {
        while !self.failed {
            match chunk.iter().position(|&b| b == b'\n') {
                Some(at) => {
                    self.pending.extend_from_slice(&chunk[..at]);
                    chunk = &chunk[at + 1..];
                    self.end_line(out);
                }
                None => {
                    self.pending.extend_from_slice(chunk);
                    while self.pending.len() > self.piece && !self.failed {
                        let cut = self.cut();
                        let rest = self.pending.split_off(cut);
                        let piece = std::mem::replace(&mut self.pending, rest);
                        self.scan_piece(&piece, out);
                    }
                    return;
                }
            }
        }
    }

    /// Where to cut the pending bytes: after the last ASCII whitespace byte of the first
    /// [`PIECE`] bytes, else at [`PIECE`] (moved back to a character's first byte in UTF-8).
    fn cut(&self) -> usize {
        let head = &self.pending[..self.piece];
        if let Some(at) = head
            .iter()
            .rposition(|b| matches!(b, b' ' | b'\t' | b'\r' | 0x0b | 0x0c))
        {
            return at + 1;
        }
        let mut cut = self.piece;
        if self.decoding == Decoding::Utf8 {
            while cut > 1 && self.pending[cut] & 0xC0 == 0x80 {
                cut -= 1;
            }
        }
        cut
    }

    fn end_line(&mut self, out: &mut Vec<Violation>) {
        let piece = std::mem::take(&mut self.pending);
        self.scan_piece(&piece, out);
        self.number += 1;
        self.line_start = out.len();
        self.escapes = false;
        self.pieces = 0;
        self.carry.clear();
    }

    fn finish(&mut self, out: &mut Vec<Violation>) {
        if !self.failed {
            let piece = std::mem::take(&mut self.pending);
            self.scan_piece(&piece, out);
        }
    }

    fn scan_piece(&mut self, bytes: &[u8], out: &mut Vec<Violation>) {
        let text = match self.decoding {
            Decoding::Utf8 => match std::str::from_utf8(bytes) {
                Ok(text) => std::borrow::Cow::Borrowed(text),
                Err(_) => {
                    self.failed = true;
                    return;
                }
            },
            Decoding::Windows1252 => {
                std::borrow::Cow::Owned(bytes.iter().map(|&b| windows_1252(b)).collect())
            }
        };
        let first = self.pieces == 0;
        let mut text: &str = &text;
        if first && self.number == 1 && self.decoding == Decoding::Utf8 {
            text = text.strip_prefix('\u{feff}').unwrap_or(text);
        }
        if !self.escapes {
            let joined;
            let seen = if self.carry.is_empty() {
                text
            } else {
                let head: String = text.chars().take(2).collect();
                joined = format!("{}{head}", self.carry);
                &joined
            };
            if escapes_parent(seen) || escapes_parent(text) {
                self.escapes = true;
                out.insert(
                    self.line_start,
                    Violation::ParentEscape {
                        path: self.site.to_owned(),
                        line: self.number,
                    },
                );
            }
        }
        let chars: Vec<char> = if first && self.number == 1 && text.starts_with("#!") {
            mask_shebang(text)
        } else {
            text.chars().collect()
        };
        for found in absolute_references(&chars) {
            out.push(Violation::AbsolutePath {
                path: self.site.to_owned(),
                line: self.number,
                text: found,
            });
        }
        let tail = chars.len().saturating_sub(2);
        self.carry = chars[tail..].iter().collect();
        self.pieces += 1;
    }
}

/// Whether text holds `../` or `..\`.
fn escapes_parent(text: &str) -> bool {
    text.contains("../") || text.contains("..\\")
}

/// Decodes bytes for scanning: strict UTF-8 (one BOM dropped), else windows-1252, so a file
/// that is not UTF-8 is still scanned to its last line.
pub fn decode_for_scan(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.strip_prefix('\u{feff}').unwrap_or(text).to_owned(),
        Err(_) => bytes.iter().map(|&b| windows_1252(b)).collect(),
    }
}

fn windows_1252(b: u8) -> char {
    const HIGH: [u16; 32] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
        0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
        0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
    ];
    match b {
        0x80..=0x9F => char::from_u32(u32::from(HIGH[usize::from(b - 0x80)])).unwrap_or('\u{fffd}'),
        _ => char::from(b),
    }
}

/// Scans one file's text line by line (lines split on LF only).
pub fn lint_text(site: &str, text: &str, out: &mut Vec<Violation>) {
    for (index, original) in text.split('\n').enumerate() {
        let number = index + 1;
        if original.contains("../") || original.contains("..\\") {
            out.push(Violation::ParentEscape {
                path: site.to_owned(),
                line: number,
            });
        }
        let chars: Vec<char> = if number == 1 && original.starts_with("#!") {
            mask_shebang(original)
        } else {
            original.chars().collect()
        };
        for found in absolute_references(&chars) {
            out.push(Violation::AbsolutePath {
                path: site.to_owned(),
                line: number,
                text: found,
            });
        }
    }
}

/// Replaces `#!` + optional whitespace + the interpreter token with spaces.
fn mask_shebang(line: &str) -> Vec<char> {
    let mut chars: Vec<char> = line.chars().collect();
    let mut end = 2;
    while end < chars.len() && is_js_whitespace(chars[end]) {
        end += 1;
    }
    while end < chars.len() && !is_js_whitespace(chars[end]) {
        end += 1;
    }
    for c in chars.iter_mut().take(end) {
        *c = ' ';
    }
    chars
}

fn is_boundary(c: char) -> bool {
    is_js_whitespace(c) || matches!(c, '"' | '\'' | '`' | '=' | '(' | '[' | ',' | ';')
}

/// A character that ends a reference.
fn is_stop(c: char) -> bool {
    is_js_whitespace(c) || matches!(c, '"' | '\'' | '`' | ')' | ']')
}

/// Every absolute reference on a line, left to right, non-overlapping.
fn absolute_references(chars: &[char]) -> Vec<String> {
    let mut found = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let at_boundary = i == 0 || is_boundary(chars[i - 1]);
        if let Some(end) = at_boundary.then(|| match_at(chars, i)).flatten() {
            found.push(chars[i..end].iter().collect());
            i = end;
        } else {
            i += 1;
        }
    }
    found
}

/// The end of an absolute reference starting at `start`, if one does.
fn match_at(chars: &[char], start: usize) -> Option<usize> {
    let run = |from: usize, extra_stop: Option<char>| {
        let mut end = from;
        while end < chars.len() && !is_stop(chars[end]) && Some(chars[end]) != extra_stop {
            end += 1;
        }
        end
    };
    match chars.get(start)? {
        '/' => {
            let seg_end = run(start + 1, Some('/'));
            if seg_end == start + 1 || chars.get(seg_end) != Some(&'/') {
                return None;
            }
            let end = run(seg_end + 1, None);
            (end > seg_end + 1).then_some(end)
        }
        '~' => (chars.get(start + 1) == Some(&'/')).then(|| run(start + 2, None)),
        c if c.is_ascii_alphabetic() => {
            if chars.get(start + 1) != Some(&':')
                || !matches!(chars.get(start + 2), Some('\\' | '/'))
            {
                return None;
            }
            let end = run(start + 3, None);
            (end > start + 3).then_some(end)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs(line: &str) -> Vec<String> {
        let chars: Vec<char> = line.chars().collect();
        absolute_references(&chars)
    }

    #[test]
    fn absolute_reference_table() {
        let rows: &[(&str, &[&str])] = &[
            ("/usr/bin/env", &["/usr/bin/env"]),
            ("see /help for more", &[]),
            ("https://example.com/guide/x", &[]),
            ("file:///etc/passwd", &[]),
            ("path=/etc/hosts,", &["/etc/hosts,"]),
            ("(/a/b) [/c/d]", &["/a/b", "/c/d"]),
            ("\"/a/b\" '/c/d' `/e/f`", &["/a/b", "/c/d", "/e/f"]),
            ("~/", &["~/"]),
            ("cd ~/notes.", &["~/notes."]),
            ("a~/b", &[]),
            ("C:\\Users\\me", &["C:\\Users\\me"]),
            ("d:/x", &["d:/x"]),
            ("C:\\", &[]),
            ("//double/slash", &[]),
            ("/a/", &[]),
            ("x/a/b", &[]),
            (";/a/b;/c/d", &["/a/b;/c/d"]),
            ("\u{a0}/a/b", &["/a/b"]),
            ("\u{85}/a/b", &[]),
            ("\u{feff}/a/b", &["/a/b"]),
            ("</a/b>", &[]),
            ("=/a/b>", &["/a/b>"]),
        ];
        for (line, want) in rows {
            assert_eq!(refs(line), *want, "{line:?}");
        }
    }

    #[test]
    fn shebang_interpreter_is_exempt_but_the_rest_is_not() {
        let mut out = Vec::new();
        lint_text(
            "skills/a/run.sh",
            "#!/usr/bin/env python3 /opt/x/y\n#!/bin/sh is text here\nexec /bin/sh\n",
            &mut out,
        );
        let lines: Vec<String> = out.iter().map(Violation::line_text).collect();
        assert_eq!(
            lines,
            [
                "absolute-path: skills/a/run.sh:1: absolute reference \"/opt/x/y\"",
                "absolute-path: skills/a/run.sh:3: absolute reference \"/bin/sh\"",
            ]
        );
    }

    #[test]
    fn parent_escape_comes_first_and_once_per_line() {
        let mut out = Vec::new();
        lint_text("s/f", "../a ../b /x/y ..\\c\r\nok\n", &mut out);
        let kinds: Vec<&str> = out.iter().map(Violation::kind).collect();
        assert_eq!(kinds, ["parent-escape", "absolute-path"]);
    }

    /// The chunked scan finds exactly what a scan of the whole decoded text finds, with pieces
    /// cut after whitespace, cut mid-word, or cut inside a UTF-8 character.
    #[test]
    fn chunked_scan_agrees_with_the_whole_text() {
        let long_word = format!("x{}../y /a/b", "w".repeat(40));
        let rows: &[&[u8]] = &[
            b"",
            b"\n",
            b"plain\nsee ../x\n/usr/bin/env\n",
            b"#!/usr/bin/env sh\nexec /bin/sh ../up\n",
            "\u{feff}#!/bin/sh /opt/a/b\n".as_bytes(),
            b"words words words words ../a words /usr/local/bin/tool words ../b /c/d",
            long_word.as_bytes(),
            "\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}\u{e9} /a/b ..\\c".as_bytes(),
            b"\x80 /a/b\xff ../x\nnext /c/d\n",
            b"a/b/c/d/e/f/g/h/i/j/k ../ /x/y\r\n",
        ];
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        for (i, bytes) in rows.iter().enumerate() {
            let site = format!("f{i}");
            root.write_file(&site, bytes).unwrap();
            let mut whole = Vec::new();
            lint_text(&site, &decode_for_scan(bytes), &mut whole);
            for piece in [7, 8, 16, PIECE] {
                let mut chunked = Vec::new();
                let mut decoding = Decoding::Utf8;
                loop {
                    chunked.clear();
                    match scan_file(&root, &site, decoding, piece, &mut chunked).unwrap() {
                        Scan::NotUtf8 => decoding = Decoding::Windows1252,
                        _ => break,
                    }
                }
                // A cut mid-word may split a reference; only a cut after whitespace is exact.
                let exact = piece == PIECE
                    || !bytes.split(|&b| b == b'\n').any(|line| {
                        line.len() > piece
                            && line
                                .windows(piece)
                                .any(|w| !w.iter().any(|b| b.is_ascii_whitespace()))
                    });
                if exact {
                    assert_eq!(chunked, whole, "row {i}, piece {piece}");
                } else {
                    let escapes = |v: &[Violation]| {
                        v.iter()
                            .filter(|x| x.kind() == "parent-escape")
                            .cloned()
                            .collect::<Vec<_>>()
                    };
                    assert_eq!(escapes(&chunked), escapes(&whole), "row {i}, piece {piece}");
                }
            }
        }
    }

    #[test]
    fn a_file_with_a_nul_up_front_is_binary_and_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        root.write_file("bin", b"\x00\x01 ../x /a/b\n").unwrap();
        let mut late = vec![b'a'; BINARY_PROBE];
        late.extend_from_slice(b"\x00 ../x\n");
        root.write_file("late", &late).unwrap();
        let mut out = Vec::new();
        lint_file(&root, "bin", &mut out).unwrap();
        assert!(out.is_empty(), "{out:?}");
        lint_file(&root, "late", &mut out).unwrap();
        let kinds: Vec<&str> = out.iter().map(Violation::kind).collect();
        assert_eq!(kinds, ["parent-escape"], "a NUL past the probe is text");
    }

    #[test]
    fn non_utf8_is_scanned_as_windows_1252() {
        assert_eq!(decode_for_scan(b"\x80 /a/b\xff"), "\u{20ac} /a/b\u{ff}");
        assert_eq!(decode_for_scan("\u{feff}x".as_bytes()), "x");
    }
}
