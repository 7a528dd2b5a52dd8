//! The table of hostile archives the reader and the entry policy must refuse, one row per
//! reason and variant, each asserting the exact reason and the entry named.

use crate::support;

use asv_archive::{
    Archive, ArchiveFormat, ArchiveInput, Error, Limits, ReadOptions, ReadProblem, Reason,
};
use asv_error::{Failure as _, Side};
use support::{TarMember, Zip, ZipMember, gzip, tar, tgz};

struct Row {
    what: String,
    format: ArchiveFormat,
    bytes: Vec<u8>,
    limits: Limits,
    reason: Reason,
    entry: Option<String>,
}

fn zip_row(what: &str, zip: Zip, reason: Reason, entry: Option<&str>) -> Row {
    Row {
        what: format!("zip: {what}"),
        format: ArchiveFormat::Zip,
        bytes: zip.build(),
        limits: Limits::DEFAULT,
        reason,
        entry: entry.map(str::to_owned),
    }
}

fn tar_row(what: &str, bytes: Vec<u8>, reason: Reason, entry: Option<&str>) -> Row {
    Row {
        what: format!("tar: {what}"),
        format: ArchiveFormat::TarGz,
        bytes,
        limits: Limits::DEFAULT,
        reason,
        entry: entry.map(str::to_owned),
    }
}

fn ok_file() -> ZipMember {
    ZipMember::file("ok.txt", b"fine\n")
}

/// Names refused as `unsafe-name`, one per variant.
const UNSAFE_NAMES: &[&str] = &[
    "../x",
    "a/../../x",
    "a\\..\\x",
    "/etc/passwd",
    "\\abs",
    "C:/x",
    "c:x",
    "\\\\host\\share\\x",
    "//host/share/x",
    "a\0b",
    "a<b",
    "a>b",
    "ab:c",
    "a\"b",
    "a|b",
    "a?b",
    "a*b",
    "a\x01b",
    "a\x1fb",
    "dir./x",
    "x.",
    "x ",
    "CON",
    "con.txt",
    "Prn",
    "AUX.md",
    "nul",
    "COM1",
    "com9.log",
    "LPT1",
    "lpt9.txt",
    "",
];

/// Entry lists refused as `name-clash`: the names (files unless ending in `/`) and the entry named.
const CLASHES: &[(&[&str], &str)] = &[
    (&["a", "a"], "a"),
    (&["a/b", "./a//b"], "./a//b"),
    (&["a/", "a/"], "a/"),
    (&["a", "a/b"], "a/b"),
    (&["a/b", "a"], "a"),
    (&["README.md", "readme.md"], "readme.md"),
    (&["Docs/a", "docs/b"], "docs/b"),
    (&["caf\u{e9}", "cafe\u{301}"], "cafe\u{301}"),
    (&["\u{fb01}le", "file"], "file"),
    (&["stra\u{df}e", "STRASSE"], "STRASSE"),
    (&["\u{2126}", "\u{3c9}"], "\u{3c9}"),
];

fn rows() -> Vec<Row> {
    let mut rows = Vec::new();

    // ---- unreadable
    rows.push(Row {
        what: "zip: empty".into(),
        format: ArchiveFormat::Zip,
        bytes: Vec::new(),
        limits: Limits::DEFAULT,
        reason: Reason::Unreadable,
        entry: None,
    });
    rows.push(Row {
        what: "zip: text".into(),
        format: ArchiveFormat::Zip,
        bytes: b"this is not a zip at all, just some words".to_vec(),
        limits: Limits::DEFAULT,
        reason: Reason::Unreadable,
        entry: None,
    });
    rows.push(tar_row(
        "not gzip",
        tar(&[TarMember::file("a", b"x")]),
        Reason::Unreadable,
        None,
    ));
    rows.push(tar_row(
        "gzip of text",
        gzip(&[b'x'; 2000]),
        Reason::Unreadable,
        None,
    ));
    rows.push(tar_row("empty", Vec::new(), Reason::Unreadable, None));
    {
        let mut bad = tgz(&[TarMember::file("a", b"x")]);
        let n = bad.len();
        bad[n - 5] ^= 0xff; // the gzip trailer's CRC
        rows.push(tar_row("gzip crc", bad, Reason::Unreadable, None));
    }

    // ---- links, hard links, special
    rows.push(zip_row(
        "symlink",
        Zip::of(vec![
            ok_file(),
            ZipMember::file("ln", b"/etc/passwd").mode(0o120_777),
        ]),
        Reason::Link,
        Some("ln"),
    ));
    rows.push(zip_row(
        "fifo",
        Zip::of(vec![ZipMember::file("p", b"").mode(0o010_644)]),
        Reason::Special,
        Some("p"),
    ));
    rows.push(zip_row(
        "char device",
        Zip::of(vec![ZipMember::file("c", b"").mode(0o020_644)]),
        Reason::Special,
        Some("c"),
    ));
    rows.push(zip_row(
        "socket",
        Zip::of(vec![ZipMember::file("s", b"").mode(0o140_644)]),
        Reason::Special,
        Some("s"),
    ));
    for (flag, reason) in [
        (b'1', Reason::Hardlink),
        (b'2', Reason::Link),
        (b'3', Reason::Special),
        (b'4', Reason::Special),
        (b'6', Reason::Special),
        (b'7', Reason::Special),
        (b'S', Reason::Special),
        (b'M', Reason::Special),
        (b'V', Reason::Special),
        (b'Z', Reason::Special),
    ] {
        rows.push(tar_row(
            &format!("type {}", char::from(flag)),
            tgz(&[TarMember::file("ok", b"x"), TarMember::of_type("odd", flag)]),
            reason,
            Some("odd"),
        ));
    }
    // An omitted entry is still judged: covered in `omit_still_judges` below.

    // ---- unsafe names, in both formats
    for name in UNSAFE_NAMES {
        rows.push(zip_row(
            &format!("name {name:?}"),
            Zip::of(vec![ok_file(), ZipMember::file(name, b"x")]),
            Reason::UnsafeName,
            Some(name),
        ));
        if !name.contains('\0') && !name.is_empty() {
            rows.push(tar_row(
                &format!("name {name:?}"),
                tgz(&[TarMember::file("ok", b"x"), TarMember::file(name, b"x")]),
                Reason::UnsafeName,
                Some(name),
            ));
        }
    }
    rows.push(zip_row(
        "name not utf-8",
        Zip::of(vec![ZipMember::file("x", b"x").raw_name(b"caf\xe9")]),
        Reason::UnsafeName,
        Some("caf\u{fffd}"),
    ));
    rows.push(tar_row(
        "name not utf-8",
        tgz(&[TarMember::new(b"caf\xe9", b'0', b"x")]),
        Reason::UnsafeName,
        Some("caf\u{fffd}"),
    ));
    rows.push(tar_row(
        "pax path escapes",
        tgz(&[
            TarMember::pax(&[("path", "../evil")]),
            TarMember::file("harmless", b"x"),
        ]),
        Reason::UnsafeName,
        Some("../evil"),
    ));
    rows.push(tar_row(
        "long name escapes",
        tgz(&[
            TarMember::long_name("../evil"),
            TarMember::file("harmless", b"x"),
        ]),
        Reason::UnsafeName,
        Some("../evil"),
    ));
    {
        let mut m = TarMember::file("x", b"x");
        m.prefix = b"/abs".to_vec();
        rows.push(tar_row(
            "ustar prefix absolute",
            tgz(&[m]),
            Reason::UnsafeName,
            Some("/abs/x"),
        ));
    }

    // ---- name clashes, in both formats
    for (names, entry) in CLASHES {
        let members: Vec<ZipMember> = names
            .iter()
            .map(|n| {
                if n.ends_with('/') {
                    ZipMember::dir(n)
                } else {
                    ZipMember::file(n, b"x")
                }
            })
            .collect();
        rows.push(zip_row(
            &format!("clash {names:?}"),
            Zip::of(members),
            Reason::NameClash,
            Some(entry),
        ));
        let members: Vec<TarMember> = names
            .iter()
            .map(|n| {
                if n.ends_with('/') {
                    TarMember::dir(n)
                } else {
                    TarMember::file(n, b"x")
                }
            })
            .collect();
        rows.push(tar_row(
            &format!("clash {names:?}"),
            tgz(&members),
            Reason::NameClash,
            Some(entry),
        ));
    }

    // ---- ZIP frames two readers would read differently
    let two = || vec![ZipMember::file("a", b"aaaa"), ZipMember::file("b", b"bbbb")];
    {
        let mut m = ZipMember::file("big", b"x");
        m.size = u32::MAX;
        rows.push(zip_row(
            "zip64 size",
            Zip::of(vec![m]),
            Reason::Unsupported,
            Some("big"),
        ));
        let mut m = ZipMember::file("big", b"x");
        m.compressed = u32::MAX;
        rows.push(zip_row(
            "zip64 compressed size",
            Zip::of(vec![m]),
            Reason::Unsupported,
            Some("big"),
        ));
        let mut m = ZipMember::file("big", b"x");
        m.offset = Some(u32::MAX);
        rows.push(zip_row(
            "zip64 offset",
            Zip::of(vec![m]),
            Reason::Unsupported,
            Some("big"),
        ));
        let mut m = ZipMember::file("big", b"x");
        m.central_extra = vec![1, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        rows.push(zip_row(
            "zip64 extra field",
            Zip::of(vec![m]),
            Reason::Unsupported,
            Some("big"),
        ));
        let mut z = Zip::of(two());
        z.counts = Some((u16::MAX, u16::MAX));
        rows.push(zip_row("zip64 count", z, Reason::Unsupported, None));
        let mut z = Zip::of(two());
        let mut locator = 0x0706_4b50u32.to_le_bytes().to_vec();
        locator.extend_from_slice(&[0; 16]);
        z.before_end = locator;
        z.cd_size_delta = 20;
        rows.push(zip_row("zip64 locator", z, Reason::Unsupported, None));
    }
    {
        let mut z = Zip::of(two());
        z.stub = b"#!/bin/sh\nexec unzip \"$0\"\n".to_vec();
        rows.push(zip_row(
            "stub, offsets adjusted",
            z,
            Reason::Unsupported,
            None,
        ));
        let mut z = Zip::of(two());
        z.stub = b"MZ self-extractor".to_vec();
        z.unadjusted = true;
        rows.push(zip_row(
            "stub, offsets unadjusted",
            z,
            Reason::Unsupported,
            None,
        ));
    }
    {
        let mut z = Zip::of(two());
        z.trailing = b"tail".to_vec();
        rows.push(zip_row("trailing data", z, Reason::Unsupported, None));
        let mut z = Zip::of(two());
        z.comment = b"hello".to_vec();
        z.comment_len = Some(2);
        rows.push(zip_row(
            "comment shorter than declared bytes",
            z,
            Reason::Unsupported,
            None,
        ));
        let mut z = Zip::of(two());
        let mut fake = 0x0605_4b50u32.to_le_bytes().to_vec();
        fake.extend_from_slice(&[0; 18]);
        z.comment = fake;
        rows.push(zip_row(
            "end record in comment",
            z,
            Reason::Unsupported,
            None,
        ));
    }
    {
        let mut z = Zip::of(two());
        z.counts = Some((1, 2));
        rows.push(zip_row("count mismatch", z, Reason::Unsupported, None));
        let mut z = Zip::of(two());
        z.counts = Some((1, 1));
        rows.push(zip_row(
            "counts fewer than records",
            z,
            Reason::Unsupported,
            None,
        ));
        let mut z = Zip::of(two());
        z.cd_size_delta = -1;
        rows.push(zip_row(
            "directory size short",
            z,
            Reason::Unsupported,
            None,
        ));
        let mut z = Zip::of(two());
        z.before_end = b"gap".to_vec();
        rows.push(zip_row(
            "gap before end record",
            z,
            Reason::Unsupported,
            None,
        ));
    }
    {
        let mut members = two();
        members[1].offset = Some(0);
        rows.push(zip_row(
            "central offset at another entry",
            Zip::of(members),
            Reason::Unsupported,
            Some("b"),
        ));
        let mut members = two();
        members[1].local_name = Some(b"c".to_vec());
        rows.push(zip_row(
            "local name differs",
            Zip::of(members),
            Reason::Unsupported,
            Some("b"),
        ));
        let mut members = two();
        members.insert(1, ZipMember::file("hidden", b"secret"));
        members[1].unlisted = true;
        rows.push(zip_row(
            "unlisted local entry",
            Zip::of(members),
            Reason::Unsupported,
            None,
        ));
        let mut members = two();
        members[0].flags = 1;
        rows.push(zip_row(
            "encrypted",
            Zip::of(members),
            Reason::Unsupported,
            Some("a"),
        ));
        let mut members = two();
        members[0].method = 12;
        rows.push(zip_row(
            "bzip2 method",
            Zip::of(members),
            Reason::Unsupported,
            Some("a"),
        ));
        let mut members = two();
        members[0].local_size = Some(3);
        rows.push(zip_row(
            "local and central disagree",
            Zip::of(members),
            Reason::Unsupported,
            Some("a"),
        ));
        let mut d = ZipMember::dir("d/");
        d.size = 1;
        d.stored = b"x".to_vec();
        d.compressed = 1;
        rows.push(zip_row(
            "directory with data",
            Zip::of(vec![d]),
            Reason::Unsupported,
            Some("d/"),
        ));
    }

    // ---- tar streams cut short or layered
    {
        let full = tar(&[
            TarMember::file("a", &[b'a'; 600]),
            TarMember::file("b", &[b'b'; 100]),
        ]);
        rows.push(tar_row(
            "cut in data",
            gzip(&full[..512 + 300]),
            Reason::Unsupported,
            Some("a"),
        ));
        rows.push(tar_row(
            "cut in header",
            gzip(&full[..1536 + 100]),
            Reason::Unsupported,
            None,
        ));
        let mut lying = TarMember::file("a", b"short");
        lying.size = Some(5000);
        rows.push(tar_row(
            "declared size past the end",
            tgz(&[lying]),
            Reason::Unsupported,
            Some("a"),
        ));
        rows.push(tar_row(
            "double gzip",
            gzip(&tgz(&[TarMember::file("a", b"x")])),
            Reason::Unsupported,
            None,
        ));
        let mut zstd = vec![0x28, 0xb5, 0x2f, 0xfd];
        zstd.extend_from_slice(&[0; 600]);
        rows.push(tar_row(
            "zstd inside gzip",
            gzip(&zstd),
            Reason::Unsupported,
            None,
        ));
        let mut xz = vec![0xfd, b'7', b'z', b'X', b'Z', 0];
        xz.extend_from_slice(&[0; 600]);
        rows.push(tar_row(
            "xz inside gzip",
            gzip(&xz),
            Reason::Unsupported,
            None,
        ));
        let mut two_members = tgz(&[TarMember::file("a", b"x")]);
        two_members.extend(tgz(&[TarMember::file("b", b"y")]));
        rows.push(tar_row(
            "second gzip member",
            two_members,
            Reason::Unsupported,
            None,
        ));
        let mut after = tar(&[TarMember::file("a", b"x")]);
        after.extend_from_slice(&TarMember::file("b", b"y").header());
        rows.push(tar_row(
            "header after end marker",
            gzip(&after),
            Reason::Unsupported,
            None,
        ));
        let mut bad = TarMember::file("b", b"y");
        bad.bad_checksum = true;
        rows.push(tar_row(
            "bad checksum",
            tgz(&[TarMember::file("a", b"x"), bad]),
            Reason::Unsupported,
            None,
        ));
        let mut b256 = TarMember::file("a", b"x");
        let mut raw = [0u8; 12];
        raw[0] = 0x80;
        raw[11] = 1;
        b256.size_field = Some(raw);
        rows.push(tar_row(
            "base-256 size",
            tgz(&[b256]),
            Reason::Unsupported,
            Some("a"),
        ));
        rows.push(tar_row(
            "dangling long name",
            tgz(&[TarMember::file("a", b"x"), TarMember::long_name("zzz")]),
            Reason::Unsupported,
            None,
        ));
        let mut pax = TarMember::pax(&[("path", "x")]);
        pax.data = b"99 path=x\n".to_vec();
        rows.push(tar_row(
            "bad pax",
            tgz(&[pax, TarMember::file("a", b"x")]),
            Reason::Unsupported,
            None,
        ));
        let mut dir = TarMember::dir("d/");
        dir.data = b"data".to_vec();
        rows.push(tar_row(
            "directory with data",
            tgz(&[dir]),
            Reason::Unsupported,
            Some("d/"),
        ));
    }

    // ---- limits
    let few = Limits {
        max_entries: 2,
        ..Limits::DEFAULT
    };
    let small = Limits {
        max_expanded: 1000,
        ..Limits::DEFAULT
    };
    let tiny_archive = Limits {
        max_archive: 100,
        ..Limits::DEFAULT
    };
    let three_zip = Zip::of(vec![
        ZipMember::file("a", b"a"),
        ZipMember::file("b", b"b"),
        ZipMember::file("c", b"c"),
    ]);
    let three_tar = tgz(&[
        TarMember::file("a", b"a"),
        TarMember::file("b", b"b"),
        TarMember::file("c", b"c"),
    ]);
    rows.push(Row {
        limits: few,
        ..zip_row(
            "three entries over two",
            three_zip.clone(),
            Reason::TooManyEntries,
            None,
        )
    });
    rows.push(Row {
        limits: few,
        ..tar_row(
            "three entries over two",
            three_tar,
            Reason::TooManyEntries,
            None,
        )
    });
    {
        // Declared sizes over the limit: refused from the directory, before inflating anything.
        let mut a = ZipMember::deflated("a", &[0u8; 600]);
        a.size = 600;
        let b = ZipMember::deflated("b", &[0u8; 600]);
        rows.push(Row {
            limits: small,
            ..zip_row(
                "declared sizes over limit",
                Zip::of(vec![a, b]),
                Reason::TooLarge,
                Some("b"),
            )
        });
        rows.push(Row {
            limits: small,
            ..tar_row(
                "inflated stream over limit",
                tgz(&[TarMember::file("a", &[0u8; 2000])]),
                Reason::TooLarge,
                None,
            )
        });
        rows.push(Row {
            limits: tiny_archive,
            ..zip_row(
                "archive bytes over limit",
                three_zip,
                Reason::TooLarge,
                None,
            )
        });
    }
    rows
}

/// The two ways an archive reaches the reader: bytes in hand, and a file read by offset.
#[derive(Clone, Copy, Debug)]
enum Way {
    Bytes,
    File,
}

const WAYS: [Way; 2] = [Way::Bytes, Way::File];

/// `bytes` as an input the `way` says, named `label` (the file's path for a file, kept alive
/// by the returned directory), and the name messages give it.
fn input_of(
    way: Way,
    bytes: &[u8],
    label: &str,
) -> (ArchiveInput, String, Option<tempfile::TempDir>) {
    match way {
        Way::Bytes => (
            ArchiveInput::bytes(bytes.to_vec(), label),
            label.to_owned(),
            None,
        ),
        Way::File => {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(label);
            std::fs::File::create(&path)
                .and_then(|mut f| std::io::Write::write_all(&mut f, bytes))
                .unwrap();
            let shown = path.display().to_string();
            (ArchiveInput::file(path), shown, Some(dir))
        }
    }
}

#[test]
fn hostile_archives_are_refused() {
    let rows = rows();
    let mut failures = Vec::new();
    for way in WAYS {
        for row in &rows {
            let options = ReadOptions {
                format: row.format,
                limits: row.limits,
            };
            let (input, shown, _dir) = input_of(way, &row.bytes, "hostile");
            // What every caller does before it uses a member: open (structure, limits), then
            // judge the whole entry list.
            let got = Archive::open(input, &options).and_then(|archive| archive.judge());
            match got {
                Err(e @ Error::Refused { .. }) => {
                    if e.reason() != Some(row.reason) || e.entry().map(str::to_owned) != row.entry {
                        failures.push(format!(
                            "{} ({way:?}): want {} {:?}, got {} {:?} ({e})",
                            row.what,
                            row.reason,
                            row.entry,
                            e.reason().unwrap(),
                            e.entry()
                        ));
                    }
                    assert_eq!(e.side(), Side::Input);
                    let text = e.to_string();
                    assert!(
                        text.starts_with(&format!("archive {shown} refused (")),
                        "{text}"
                    );
                    assert!(!text.contains('\n') && !text.ends_with('.'), "{text}");
                }
                other => failures.push(format!(
                    "{} ({way:?}): want {}, got {other:?}",
                    row.what, row.reason
                )),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} rows:\n{}",
        failures.len(),
        rows.len() * WAYS.len(),
        failures.join("\n")
    );
    // Every reason has at least one row.
    for reason in Reason::ALL {
        assert!(
            rows.iter().any(|r| r.reason == reason),
            "no row for {reason}"
        );
    }
}

/// The same refusal, with the same message, for the same bytes whichever way they come.
#[test]
fn a_file_and_its_bytes_get_the_same_answer() {
    for row in rows() {
        let options = ReadOptions {
            format: row.format,
            limits: row.limits,
        };
        let answers: Vec<String> = WAYS
            .iter()
            .map(|way| {
                let (input, shown, _dir) = input_of(*way, &row.bytes, "archive-under-test");
                let got = Archive::open(input, &options).and_then(|archive| archive.judge());
                format!(
                    "{:?}",
                    got.map_err(|e| e.to_string().replace(&shown, "<archive>"))
                )
            })
            .collect();
        assert_eq!(answers[0], answers[1], "{}", row.what);
    }
}

#[test]
fn omit_still_judges() {
    let zip = Zip::of(vec![ok_file(), ZipMember::file("ln", b"x").mode(0o120_777)]).build();
    let options = ReadOptions {
        format: ArchiveFormat::Zip,
        limits: Limits::DEFAULT,
    };
    let archive = Archive::open(ArchiveInput::bytes(zip, "z"), &options).unwrap();
    let e = archive.to_zip(&|e| e.name == "ln").unwrap_err();
    assert_eq!(e.reason(), Some(Reason::Link));
}

#[test]
fn open_judges_nothing_but_structure() {
    let zip = Zip::of(vec![
        ZipMember::file("../x", b"x"),
        ZipMember::file("ln", b"y").mode(0o120_777),
    ])
    .build();
    let options = ReadOptions {
        format: ArchiveFormat::Zip,
        limits: Limits::DEFAULT,
    };
    let archive = Archive::open(ArchiveInput::bytes(zip, "z"), &options).unwrap();
    let names: Vec<_> = archive.entries().iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["../x", "ln"]);
    assert_eq!(
        archive.judge().unwrap_err().reason(),
        Some(Reason::UnsafeName)
    );
}

fn zip_options() -> ReadOptions {
    ReadOptions {
        format: ArchiveFormat::Zip,
        limits: Limits::DEFAULT,
    }
}

#[test]
fn members_that_lie_fail_when_read_not_at_open() {
    let bomb_data = vec![0u8; 10 * 1024 * 1024];
    let mut bomb = ZipMember::deflated("bomb", &bomb_data);
    bomb.size = 10;
    bomb.crc = crc32fast::hash(&bomb_data[..10]);
    let mut short = ZipMember::deflated("short", b"hello world");
    short.size = 100;
    let mut crc = ZipMember::file("crc", b"hello");
    crc.crc ^= 0xdead;
    let mut stored_short = ZipMember::file("stored", b"hello");
    stored_short.size = 4;
    let mut garbage = ZipMember::file("garbage", b"");
    garbage.method = 8;
    garbage.stored = vec![0xff; 16];
    garbage.compressed = 16;
    garbage.size = 16;
    let rows: Vec<(ZipMember, ReadProblem)> = vec![
        (
            bomb,
            ReadProblem::SizeMismatch {
                declared: 10,
                found: 11,
            },
        ),
        (
            short,
            ReadProblem::SizeMismatch {
                declared: 100,
                found: 11,
            },
        ),
        (
            crc,
            ReadProblem::CrcMismatch {
                declared: crc32fast::hash(b"hello") ^ 0xdead,
                found: crc32fast::hash(b"hello"),
            },
        ),
        (
            stored_short,
            ReadProblem::SizeMismatch {
                declared: 4,
                found: 5,
            },
        ),
        (garbage, ReadProblem::DoesNotInflate),
    ];
    for ((member, problem), way) in rows
        .into_iter()
        .flat_map(|row| WAYS.map(|way| (row.clone(), way)))
    {
        let name = String::from_utf8(member.name.clone()).unwrap();
        let zip = Zip::of(vec![ok_file(), member]).build();
        let (input, _, _dir) = input_of(way, &zip, "lying.zip");
        let archive = Archive::open(input, &zip_options()).unwrap();
        archive.judge().unwrap();
        let entry = &archive.entries()[1];
        match archive.read(entry) {
            Err(Error::EntryRead {
                entry,
                problem: got,
                ..
            }) => {
                assert_eq!(entry, name);
                assert_eq!(got, problem, "{name} ({way:?})");
            }
            other => panic!("{name} ({way:?}): {other:?}"),
        }
        // The good member still reads.
        assert_eq!(archive.read(&archive.entries()[0]).unwrap(), b"fine\n");
        // A re-zip meets it as it reads it.
        let e = archive.to_zip(&|_| false).unwrap_err();
        assert!(matches!(e, Error::EntryRead { .. }), "{e}");
        assert_eq!(e.side(), Side::Input);
        assert!(
            e.to_string()
                .ends_with("the archive is damaged, rebuild it"),
            "{e}"
        );
        // Leaving the member out of what is written avoids reading it.
        archive.to_zip(&|e| e.name == name).unwrap();
    }
}

#[test]
fn zip_bomb_by_declared_total_is_too_large_at_open() {
    let members: Vec<ZipMember> = (0..5)
        .map(|i| {
            let mut m = ZipMember::deflated(&format!("f{i}"), b"x");
            m.size = 100 * 1024 * 1024;
            m
        })
        .collect();
    let e = Archive::open(
        ArchiveInput::bytes(Zip::of(members).build(), "bomb.zip"),
        &zip_options(),
    )
    .unwrap_err();
    assert_eq!(e.reason(), Some(Reason::TooLarge));
    assert_eq!(e.entry(), Some("f2"));
}

#[test]
fn truncated_archives_are_errors_never_panics() {
    let zip = asv_archive::zip_files(&[
        asv_archive::FileEntry {
            path: "a/b.txt".into(),
            bytes: b"hello hello hello hello".to_vec(),
            executable: false,
        },
        asv_archive::FileEntry {
            path: "c".into(),
            bytes: vec![7; 3000],
            executable: true,
        },
    ])
    .unwrap();
    let tgz = tgz(&[
        TarMember::dir("a/"),
        TarMember::file("a/b", &[1; 700]),
        TarMember::file("c", b"x"),
    ]);
    for (format, bytes) in [(ArchiveFormat::Zip, zip), (ArchiveFormat::TarGz, tgz)] {
        let options = ReadOptions {
            format,
            limits: Limits::DEFAULT,
        };
        assert!(Archive::open(ArchiveInput::bytes(bytes.clone(), "whole"), &options).is_ok());
        for (cut, way) in (0..bytes.len()).flat_map(|cut| WAYS.map(|way| (cut, way))) {
            let (input, _, _dir) = input_of(way, &bytes[..cut], "cut");
            let got = Archive::open(input, &options).and_then(|a| {
                a.judge()?;
                for e in a.entries() {
                    a.read(e)?;
                }
                Ok(())
            });
            assert!(
                got.is_err(),
                "{format:?} cut at {cut} of {} was accepted ({way:?})",
                bytes.len()
            );
        }
    }
}

/// A stable stand-in for the fuzz targets: seeds mutated byte by byte (a fixed pseudo-random
/// sequence) must open, judge and read without a panic.
#[test]
fn mutated_archives_never_panic() {
    let zip = asv_archive::zip_files(&[
        asv_archive::FileEntry {
            path: "a/b.txt".into(),
            bytes: b"hello hello hello hello".repeat(20),
            executable: false,
        },
        asv_archive::FileEntry {
            path: "c".into(),
            bytes: vec![7; 300],
            executable: true,
        },
    ])
    .unwrap();
    let tar = tar(&[
        TarMember::pax(&[("path", "p/long")]),
        TarMember::file("x", b"pax"),
        TarMember::long_name("gnu/long"),
        TarMember::file("y", &[1; 700]),
        TarMember::dir("d/"),
    ]);
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let limits = Limits {
        max_entries: 100,
        max_expanded: 1 << 20,
        max_archive: 1 << 20,
    };
    for (format, seed) in [(ArchiveFormat::Zip, zip), (ArchiveFormat::TarGz, tar)] {
        for _ in 0..1500 {
            let mut bytes = seed.clone();
            for _ in 0..=(next() % 4) {
                let at = (next() as usize) % bytes.len();
                bytes[at] = next() as u8;
            }
            // The tar seed is mutated before its gzip layer, so the mutation reaches the headers.
            let bytes = if format == ArchiveFormat::TarGz {
                gzip(&bytes)
            } else {
                bytes
            };
            let options = ReadOptions { format, limits };
            if let Ok(archive) = Archive::open(ArchiveInput::bytes(bytes, "mutated"), &options) {
                let _ = archive.judge();
                for entry in archive.entries() {
                    let _ = archive.read(entry);
                }
                if archive.judge().is_ok() {
                    let _ = archive.to_zip(&|_| false);
                }
            }
        }
    }
}
