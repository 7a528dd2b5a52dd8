//! What a file is, from its first bytes and its name: machine code, an archive, a known asset
//! (image, font, PDF), or text — and, for text, whether it is a script that runs.

/// What a file's bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Machine code or bytecode: named by format.
    Executable(&'static str),
    /// An archive or a compressed stream: named by format.
    Archive(&'static str),
    /// An image, font or document format that skills carry as assets.
    Asset(&'static str),
    /// UTF-8 text.
    Text,
    /// Anything else.
    Unknown,
}

/// Judges `bytes` (named `path`).
pub fn shape(path: &str, bytes: &[u8]) -> Shape {
    let lower = path.to_ascii_lowercase();
    let starts = |magic: &[u8]| bytes.starts_with(magic);
    if starts(b"\x7fELF") {
        return Shape::Executable("ELF");
    }
    if is_pe(bytes) {
        return Shape::Executable("PE (Windows)");
    }
    if starts(&[0xFE, 0xED, 0xFA, 0xCE])
        || starts(&[0xFE, 0xED, 0xFA, 0xCF])
        || starts(&[0xCE, 0xFA, 0xED, 0xFE])
        || starts(&[0xCF, 0xFA, 0xED, 0xFE])
    {
        return Shape::Executable("Mach-O");
    }
    if starts(&[0xCA, 0xFE, 0xBA, 0xBE]) {
        // Both a Mach-O universal binary and a Java class file begin so; either is code.
        return Shape::Executable("Mach-O universal or Java class");
    }
    if starts(b"\0asm") {
        return Shape::Executable("WebAssembly");
    }
    if has_ext(&lower, &["pyc", "pyo"]) {
        return Shape::Executable("Python bytecode");
    }
    if has_ext(&lower, &["so", "dylib", "dll", "exe", "class", "o", "a"])
        && std::str::from_utf8(bytes).is_err()
    {
        return Shape::Executable("compiled object");
    }
    if starts(b"PK\x03\x04") || starts(b"PK\x05\x06") || starts(b"PK\x07\x08") {
        return Shape::Archive("ZIP (or a format built on it: JAR, docx, xlsx)");
    }
    if starts(&[0x1F, 0x8B]) {
        return Shape::Archive("gzip");
    }
    if bytes.len() > 262 && &bytes[257..262] == b"ustar" {
        return Shape::Archive("tar");
    }
    for (magic, name) in [
        (&[0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C][..], "7z"),
        (b"Rar!\x1a\x07", "RAR"),
        (&[0xFD, b'7', b'z', b'X', b'Z', 0][..], "xz"),
        (b"BZh", "bzip2"),
        (&[0x28, 0xB5, 0x2F, 0xFD][..], "zstd"),
    ] {
        if starts(magic) {
            return Shape::Archive(name);
        }
    }
    if std::str::from_utf8(bytes).is_ok() {
        return Shape::Text;
    }
    for (magic, name) in [
        (&b"\x89PNG\r\n\x1a\n"[..], "PNG"),
        (&[0xFF, 0xD8, 0xFF][..], "JPEG"),
        (b"GIF87a", "GIF"),
        (b"GIF89a", "GIF"),
        (b"%PDF-", "PDF"),
        (b"wOFF", "WOFF"),
        (b"wOF2", "WOFF2"),
        (b"OTTO", "OpenType"),
        (&[0, 1, 0, 0][..], "TrueType"),
        (&[0, 0, 1, 0][..], "ICO"),
        (b"BM", "BMP"),
    ] {
        if starts(magic) {
            return Shape::Asset(name);
        }
    }
    if starts(b"RIFF") && bytes.get(8..12) == Some(b"WEBP") {
        return Shape::Asset("WebP");
    }
    Shape::Unknown
}

/// Whether a text file is a script: executable, or named or headed like one.
pub fn is_script(path: &str, bytes: &[u8], executable: bool) -> bool {
    let lower = path.to_ascii_lowercase();
    executable
        || bytes.starts_with(b"#!")
        || has_ext(
            &lower,
            &[
                "sh", "bash", "zsh", "fish", "ksh", "py", "js", "mjs", "cjs", "ts", "rb", "pl",
                "php", "ps1", "psm1", "bat", "cmd", "lua", "go", "rs",
            ],
        )
}

/// Whether a file is Markdown (where HTML comments and Claude Code's `!` commands mean
/// something).
pub fn is_markdown(path: &str) -> bool {
    has_ext(&path.to_ascii_lowercase(), &["md", "markdown", "mdx"])
}

fn has_ext(lower: &str, exts: &[&str]) -> bool {
    let name = lower.rsplit('/').next().unwrap_or(lower);
    name.rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && exts.contains(&ext))
}

/// A PE file: `MZ`, and the offset at 0x3C pointing at `PE\0\0` (a text file that merely
/// begins with "MZ" is not one).
fn is_pe(bytes: &[u8]) -> bool {
    if !bytes.starts_with(b"MZ") || bytes.len() < 0x40 {
        return false;
    }
    let at = u32::from_le_bytes([bytes[0x3C], bytes[0x3D], bytes[0x3E], bytes[0x3F]]) as usize;
    bytes.get(at..at + 4) == Some(b"PE\0\0")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_told_apart_by_their_bytes() {
        assert_eq!(shape("x", b"\x7fELF\x02\x01"), Shape::Executable("ELF"));
        let mut pe = vec![0u8; 0x80];
        pe[..2].copy_from_slice(b"MZ");
        pe[0x3C] = 0x40;
        pe[0x40..0x44].copy_from_slice(b"PE\0\0");
        assert_eq!(shape("tool.bin", &pe), Shape::Executable("PE (Windows)"));
        assert_eq!(shape("notes.txt", b"MZ is a prefix here"), Shape::Text);
        assert!(matches!(
            shape("a/b.pyc", b"\x55\x0d\x0d\x0a"),
            Shape::Executable(_)
        ));
        assert!(matches!(
            shape("lib.zip", b"PK\x03\x04rest"),
            Shape::Archive(_)
        ));
        assert_eq!(
            shape("logo.png", b"\x89PNG\r\n\x1a\n\xff\xfe"),
            Shape::Asset("PNG")
        );
        assert_eq!(shape("blob", b"\xff\xfe\xfd"), Shape::Unknown);
        assert_eq!(shape("README.md", "héllo".as_bytes()), Shape::Text);
    }

    #[test]
    fn scripts_are_known_by_bit_header_or_name() {
        assert!(is_script("run", b"#!/bin/sh\n", false));
        assert!(is_script("scripts/x.py", b"print(1)", false));
        assert!(is_script("tool", b"echo", true));
        assert!(!is_script("SKILL.md", b"# x", false));
        assert!(!is_script(".sh", b"x", false));
    }
}
