//! The reproducible ZIP writer: byte-equal runs, the layout it promises, round trips through
//! the reader, and the re-zip of an accepted archive.

use crate::support;

use asv_archive::{
    Archive, ArchiveEntryKind, ArchiveFormat, ArchiveInput, Detail, Error, FileEntry, Limits,
    ReadOptions, zip_dir, zip_files, zip_of_archive,
};
use asv_error::{Failure as _, Side};
use support::{TarMember, Zip, ZipMember, contents, tgz};

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn file(path: &str, bytes: &[u8], executable: bool) -> FileEntry {
    FileEntry {
        path: path.into(),
        bytes: bytes.to_vec(),
        executable,
    }
}

fn sample() -> Vec<FileEntry> {
    vec![
        file("skill/scripts/run.sh", b"#!/bin/sh\necho hi\n", true),
        file(
            "skill/SKILL.md",
            &b"---\nname: skill\n---\nhello\n".repeat(40),
            false,
        ),
        file("skill/a-b", b"x", false),
        file("top.txt", b"", false),
    ]
}

fn options(format: ArchiveFormat) -> ReadOptions {
    ReadOptions {
        format,
        limits: Limits::DEFAULT,
    }
}

/// The central directory records of a ZIP: (name, made by, method, time, date, extra len,
/// comment len, external attributes).
/// One central record's fields, as [`central`] returns them.
type Central = (String, u16, u16, u16, u16, u16, u16, u32);

fn central(zip: &[u8]) -> Vec<Central> {
    let end = zip.len() - 22;
    assert_eq!(u32_at(zip, end), 0x0605_4b50);
    assert_eq!(u16_at(zip, end + 20), 0, "no archive comment");
    let mut at = u32_at(zip, end + 16) as usize;
    let mut out = Vec::new();
    for _ in 0..u16_at(zip, end + 10) {
        assert_eq!(u32_at(zip, at), 0x0201_4b50);
        let name_len = u16_at(zip, at + 28) as usize;
        let name = String::from_utf8(zip[at + 46..at + 46 + name_len].to_vec()).unwrap();
        out.push((
            name,
            u16_at(zip, at + 4),
            u16_at(zip, at + 10),
            u16_at(zip, at + 12),
            u16_at(zip, at + 14),
            u16_at(zip, at + 30),
            u16_at(zip, at + 32),
            u32_at(zip, at + 38),
        ));
        at += 46 + name_len;
    }
    out
}

#[test]
fn the_same_files_give_the_same_bytes_in_any_order() {
    let one = zip_files(&sample()).unwrap();
    let mut reversed = sample();
    reversed.reverse();
    assert_eq!(one, zip_files(&sample()).unwrap());
    assert_eq!(one, zip_files(&reversed).unwrap());
}

#[test]
fn layout_is_sorted_unix_made_and_dated_at_the_dos_epoch() {
    let zip = zip_files(&sample()).unwrap();
    let records = central(&zip);
    let names: Vec<&str> = records.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        names,
        [
            "skill/",
            "skill/SKILL.md",
            "skill/a-b",
            "skill/scripts/",
            "skill/scripts/run.sh",
            "top.txt"
        ]
    );
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    for (name, made_by, method, time, date, extra, comment, external) in &records {
        assert_eq!(*made_by, 3 << 8 | 20, "{name}");
        assert_eq!((*time, *date), (0, 1 << 5 | 1), "{name}");
        assert_eq!((*extra, *comment), (0, 0), "{name}");
        let mode = external >> 16;
        let want = match name.as_str() {
            n if n.ends_with('/') => 0o040_755,
            "skill/scripts/run.sh" => 0o100_755,
            _ => 0o100_644,
        };
        assert_eq!(mode, want, "{name}");
        let want_method = if name == "skill/SKILL.md" { 8 } else { 0 };
        assert_eq!(*method, want_method, "{name}: deflate only when smaller");
    }
    // No extra field in any local header either, and the first local header is at offset 0.
    assert_eq!(&zip[..4], b"PK\x03\x04");
    assert_eq!(u16_at(&zip, 28), 0);
}

#[test]
fn empty_list_is_an_empty_zip_the_reader_takes() {
    let zip = zip_files(&[]).unwrap();
    assert_eq!(zip.len(), 22);
    let archive = Archive::open(
        ArchiveInput::bytes(zip, "empty.zip"),
        &options(ArchiveFormat::Zip),
    )
    .unwrap();
    assert!(archive.entries().is_empty());
}

#[test]
fn names_the_policy_refuses_are_not_zipped() {
    let rows: &[(&[&str], Detail)] = &[
        (&["../x"], Detail::ParentSegment),
        (
            &["a/CON"],
            Detail::ReservedName {
                segment: "CON".into(),
            },
        ),
        (&["a", "a"], Detail::Duplicate),
        (&["a", "a/b"], Detail::UnderFile { file: "a".into() }),
        (
            &["Read", "read"],
            Detail::Folded {
                other: "Read".into(),
            },
        ),
        (&[""], Detail::EmptyName),
    ];
    for (paths, detail) in rows {
        let files: Vec<FileEntry> = paths.iter().map(|p| file(p, b"x", false)).collect();
        match zip_files(&files) {
            Err(Error::Unzippable { detail: got, .. }) => assert_eq!(&got, detail, "{paths:?}"),
            other => panic!("{paths:?}: {other:?}"),
        }
    }
}

#[test]
fn zip_dir_round_trips_through_the_reader() {
    let src = tempfile::tempdir().unwrap();
    let root = asv_fs::Root::open(src.path()).unwrap();
    let files = [
        ("s/SKILL.md", b"---\nname: s\n---\n".repeat(50), false),
        ("s/scripts/run.sh", b"#!/bin/sh\nexit 0\n".to_vec(), true),
        (
            "s/data/blob.bin",
            (0..=255u8).cycle().take(70_000).collect(),
            false,
        ),
        ("s/empty", Vec::new(), false),
    ];
    for (path, bytes, executable) in &files {
        root.write_file_mode(path, bytes, *executable).unwrap();
    }
    let zip = zip_dir(&root, "s", &Limits::DEFAULT).unwrap();
    assert_eq!(zip, zip_dir(&root, "s", &Limits::DEFAULT).unwrap());

    let archive = Archive::open(
        ArchiveInput::bytes(zip, "s.zip"),
        &options(ArchiveFormat::Zip),
    )
    .unwrap();
    let got = contents(&archive);
    let want: std::collections::BTreeMap<String, (Vec<u8>, bool)> = files
        .iter()
        .map(|(path, bytes, executable)| {
            (
                path.strip_prefix("s/").unwrap().to_owned(),
                (bytes.clone(), *executable),
            )
        })
        .collect();
    assert_eq!(got, want);
    let listed: Vec<&str> = got.keys().map(String::as_str).collect();
    assert_eq!(
        listed,
        ["SKILL.md", "data/blob.bin", "empty", "scripts/run.sh"]
    );
}

#[test]
fn zip_dir_refuses_links_and_limits() {
    let src = tempfile::tempdir().unwrap();
    let root = asv_fs::Root::open(src.path()).unwrap();
    root.write_file("s/a", b"12345").unwrap();
    root.write_file("s/b", b"12345").unwrap();
    let few = Limits {
        max_entries: 1,
        ..Limits::DEFAULT
    };
    let e = zip_dir(&root, "s", &few).unwrap_err();
    assert!(
        matches!(
            e,
            Error::ZipTooLarge {
                detail: Detail::TooManyEntries { limit: 1 },
                ..
            }
        ),
        "{e}"
    );
    let small = Limits {
        max_expanded: 9,
        ..Limits::DEFAULT
    };
    let e = zip_dir(&root, "s", &small).unwrap_err();
    assert!(matches!(e, Error::ZipTooLarge { .. }), "{e}");
    std::os::unix::fs::symlink("/etc/passwd", src.path().join("s/link")).unwrap();
    let e = zip_dir(&root, "s", &Limits::DEFAULT).unwrap_err();
    assert!(matches!(e, Error::Fs(asv_fs::Error::Symlink { .. })), "{e}");
}

#[test]
fn zip_of_archive_keeps_only_judged_entries_under_their_places() {
    let zip = Zip::of(vec![
        ZipMember::dir("./"),
        ZipMember::file("./skill\\SKILL.md", b"body"),
        ZipMember::file("skill//run.sh", b"#!/bin/sh\n").mode(0o104_755),
        ZipMember::file(".DS_Store", b"litter"),
    ])
    .build();
    let out = zip_of_archive(
        ArchiveInput::bytes(zip, "in.zip"),
        &options(ArchiveFormat::Zip),
        &|e| e.name == ".DS_Store",
    )
    .unwrap();
    let records = central(&out);
    let got: Vec<(&str, u32)> = records.iter().map(|r| (r.0.as_str(), r.7 >> 16)).collect();
    assert_eq!(
        got,
        [("skill/SKILL.md", 0o100_644), ("skill/run.sh", 0o100_755)]
    );
    // A tarball re-zipped the same way.
    let tar = tgz(&[
        TarMember::dir("pkg/"),
        TarMember::file("pkg/a", b"a"),
        TarMember::file("pkg/x.sh", b"x").mode(0o755),
    ]);
    let out = zip_of_archive(
        ArchiveInput::bytes(tar, "in.tgz"),
        &options(ArchiveFormat::TarGz),
        &|_| false,
    )
    .unwrap();
    let archive = Archive::open(
        ArchiveInput::bytes(out, "out.zip"),
        &options(ArchiveFormat::Zip),
    )
    .unwrap();
    let got: Vec<(&str, ArchiveEntryKind, bool)> = archive
        .entries()
        .iter()
        .map(|e| (e.name.as_str(), e.kind.clone(), e.executable))
        .collect();
    assert_eq!(
        got,
        [
            ("pkg/", ArchiveEntryKind::Directory, false),
            ("pkg/a", ArchiveEntryKind::File, false),
            ("pkg/x.sh", ArchiveEntryKind::File, true)
        ]
    );
    // A refused archive is not re-zipped.
    let bad = Zip::of(vec![ZipMember::file("../x", b"x")]).build();
    let e = zip_of_archive(
        ArchiveInput::bytes(bad, "bad.zip"),
        &options(ArchiveFormat::Zip),
        &|_| false,
    )
    .unwrap_err();
    assert_eq!(e.reason(), Some(asv_archive::Reason::UnsafeName));
}

#[test]
fn archive_files_are_read_bounded_and_must_be_regular() {
    let dir = tempfile::tempdir().unwrap();
    let root = asv_fs::Root::open(dir.path()).unwrap();
    root.write_file("a.zip", &zip_files(&sample()).unwrap())
        .unwrap();
    let archive = Archive::open(
        ArchiveInput::file(dir.path().join("a.zip")),
        &options(ArchiveFormat::Zip),
    )
    .unwrap();
    assert!(archive.label().ends_with("a.zip"));
    assert_eq!(archive.entries().len(), 6);
    let tiny = ReadOptions {
        format: ArchiveFormat::Zip,
        limits: Limits {
            max_archive: 10,
            ..Limits::DEFAULT
        },
    };
    let e = Archive::open(ArchiveInput::file(dir.path().join("a.zip")), &tiny).unwrap_err();
    assert_eq!(e.reason(), Some(asv_archive::Reason::TooLarge));
    let e =
        Archive::open(ArchiveInput::file(dir.path()), &options(ArchiveFormat::Zip)).unwrap_err();
    assert!(matches!(e, Error::NotAFile { .. }), "{e}");
    let e = Archive::open(
        ArchiveInput::file(dir.path().join("missing.zip")),
        &options(ArchiveFormat::Zip),
    )
    .unwrap_err();
    assert!(matches!(e, Error::ReadArchive { .. }), "{e}");
    assert_eq!(e.side(), Side::Input);
}

#[test]
fn reading_an_entry_of_another_archive_is_refused() {
    let a = Archive::open(
        ArchiveInput::bytes(zip_files(&sample()).unwrap(), "a"),
        &options(ArchiveFormat::Zip),
    )
    .unwrap();
    let b = Archive::open(
        ArchiveInput::bytes(zip_files(&[file("other", b"o", false)]).unwrap(), "b"),
        &options(ArchiveFormat::Zip),
    )
    .unwrap();
    let e = a.read(&b.entries()[0]).unwrap_err();
    assert!(matches!(e, Error::NotAnEntry { .. }), "{e}");
}

/// A SplitMix64 stream, so the varied skill below is the same on every host.
struct Stream(u64);

impl Stream {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn noise(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }

    fn prose(&mut self, len: usize) -> Vec<u8> {
        const WORDS: &[&str] = &[
            "skill",
            "review",
            "the",
            "contract",
            "line",
            "of",
            "zip",
            "entry",
            "deflate",
            "stored",
            "name",
            "Ünïcode",
            "tab\t",
            "\n",
            "## heading\n",
            "0123456789",
        ];
        let mut out = Vec::with_capacity(len + 16);
        while out.len() < len {
            out.extend_from_slice(WORDS[self.below(WORDS.len())].as_bytes());
            out.push(b' ');
        }
        out.truncate(len);
        out
    }
}

/// A skill of every kind of entry the writer treats differently: empty files, one byte, text
/// that deflates, random bytes that deflating makes larger (stored), bytes that deflate
/// enormously, text just past the 32 KiB window and a few hundred KiB long, executables,
/// nested and non-ASCII names, and more files than a machine has cores.
fn varied_skill() -> Vec<FileEntry> {
    let mut s = Stream(16);
    let mut files = vec![
        file(
            "varied/SKILL.md",
            b"---\nname: varied\ndescription: All kinds.\n---\n",
            false,
        ),
        file("varied/empty", b"", false),
        file("varied/one", b"x", true),
        file("varied/zeros.bin", &vec![0u8; 700 * 1024], false),
        file("varied/docs/ünïcode-ñame.md", &s.prose(3000), false),
        file("varied/docs/long.md", &s.prose(400 * 1024), false),
        file("varied/docs/window.md", &s.prose(32 * 1024 + 7), false),
        file("varied/tiny-noise", &s.noise(5), false),
    ];
    for i in 0..150 {
        let len = s.below(20 * 1024);
        let bytes = if i % 4 == 3 {
            s.noise(len)
        } else {
            s.prose(len)
        };
        files.push(file(
            &format!("varied/part-{}/deep/er/file-{i:03}.txt", i % 7),
            &bytes,
            i % 5 == 0,
        ));
    }
    files
}

/// The writer's bytes for the varied skill, pinned: the SHA-256 of `zip_files(varied_skill())`,
/// the same however many threads deflate the entries (pools of 1, 2 and 5) and on every run.
///
/// Written with libdeflate 1.26 at level 8 (issue 30 §4). The digest before it was that of
/// miniz_oxide at level 9 (issue 16, `ec90b97d…`, 665,889 bytes): a new compressor, or a new
/// version of it, changes the bytes, and this test is where that is seen and made on purpose.
#[test]
fn the_varied_skill_packs_to_the_pinned_bytes_on_any_number_of_threads() {
    use sha2::Digest;

    let files = varied_skill();
    for threads in [1, 2, 5, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let zip = pool.install(|| zip_files(&files)).unwrap();
        let digest: String = sha2::Sha256::digest(&zip)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            (zip.len(), digest.as_str()),
            (
                668_208,
                "bf57fdbb81e3e9a61c0379140a361dd60aa3ac9a3bf3d8eb2110b3153abc78a7"
            ),
            "{threads} threads"
        );
    }
}
