//! Archives read from a file by offset and members handed on in pieces: a tarball whose
//! inflated stream is spooled to a temporary file, the bound on long-name and pax headers,
//! and a writer that fails.

use std::io::Write;

use crate::support;

use asv_archive::{
    Archive, ArchiveFormat, ArchiveInput, Detail, Error, Limits, ReadOptions, Reason,
    open_archive_file,
};
use asv_error::{Failure as _, Side};
use support::{TarMember, Zip, ZipMember, tgz};

fn options(format: ArchiveFormat) -> ReadOptions {
    ReadOptions {
        format,
        limits: Limits::DEFAULT,
    }
}

/// `bytes` written to `name` in a new temporary directory.
fn file_of(bytes: &[u8], name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::File::create(&path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
    (dir, path)
}

/// Bytes no compressor shrinks much, the same on every run.
fn noise(len: usize, mut state: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect()
}

#[test]
fn a_tarball_past_the_spool_in_memory_reads_back_whole_from_a_file_and_from_bytes() {
    // 6 MiB inflated: past the 4 MiB a spool keeps in memory, so it moves to a temporary file.
    let big = noise(5 * 1024 * 1024 + 7, 1);
    let small = b"after the big one\n".to_vec();
    let tgz = tgz(&[
        TarMember::dir("s/"),
        TarMember::file("s/big.bin", &big),
        TarMember::long_name("s/a-long-name-after-the-spool-moved-to-a-file.md"),
        TarMember::file("ignored", &small),
        TarMember::file("s/tail", &[9; 1_000_000]),
    ]);
    let (_dir, path) = file_of(&tgz, "big.tgz");
    for input in [
        ArchiveInput::file(&path),
        ArchiveInput::bytes(tgz.clone(), "big.tgz"),
    ] {
        let archive = Archive::open(input, &options(ArchiveFormat::TarGz)).unwrap();
        let names: Vec<&str> = archive.entries().iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "s/",
                "s/big.bin",
                "s/a-long-name-after-the-spool-moved-to-a-file.md",
                "s/tail"
            ]
        );
        let got = support::contents(&archive);
        assert_eq!(got["s/big.bin"].0, big);
        assert_eq!(
            got["s/a-long-name-after-the-spool-moved-to-a-file.md"].0,
            small
        );
        assert_eq!(got["s/tail"].0, vec![9; 1_000_000]);
        // Handed on in pieces: the same bytes, and their count.
        let mut out = Vec::new();
        assert_eq!(
            archive.copy_to(&archive.entries()[1], &mut out).unwrap(),
            big.len() as u64
        );
        assert_eq!(out, big);
    }
}

#[test]
fn data_after_the_end_marker_of_a_spooled_tarball_is_refused() {
    let mut tar = support::tar(&[TarMember::file("a", &noise(5 * 1024 * 1024, 2))]);
    tar.extend_from_slice(&[0; 200_000]);
    let (_dir, path) = file_of(&support::gzip(&tar), "zeros.tgz");
    let archive = Archive::open(ArchiveInput::file(&path), &options(ArchiveFormat::TarGz)).unwrap();
    assert_eq!(archive.entries().len(), 1);
    tar.push(1);
    tar.extend_from_slice(&[0; 100]);
    let (_dir, path) = file_of(&support::gzip(&tar), "after.tgz");
    let e = Archive::open(ArchiveInput::file(&path), &options(ArchiveFormat::TarGz)).unwrap_err();
    assert_eq!(e.reason(), Some(Reason::Unsupported));
    assert!(
        e.to_string().contains("data follows the tar end marker"),
        "{e}"
    );
}

#[test]
fn long_name_and_pax_headers_past_one_mib_are_refused() {
    let limit = 1024 * 1024;
    let pax_value = "p".repeat(limit);
    let long = "l".repeat(limit + 1);
    let just_under = "n".repeat(limit - 1);
    let rows: Vec<(&str, Vec<TarMember>)> = vec![
        (
            "pax",
            vec![
                TarMember::pax(&[("comment", &pax_value)]),
                TarMember::file("x", b"x"),
            ],
        ),
        (
            "global pax",
            vec![
                TarMember {
                    typeflag: b'g',
                    ..TarMember::pax(&[("comment", &pax_value)])
                },
                TarMember::file("x", b"x"),
            ],
        ),
        (
            "long name",
            vec![TarMember::long_name(&long), TarMember::file("x", b"x")],
        ),
    ];
    for (what, members) in rows {
        let tgz = tgz(&members);
        let (_dir, path) = file_of(&tgz, "meta.tgz");
        for input in [
            ArchiveInput::file(&path),
            ArchiveInput::bytes(tgz.clone(), "meta.tgz"),
        ] {
            let e = Archive::open(input, &options(ArchiveFormat::TarGz)).unwrap_err();
            match &e {
                Error::Refused { refusal, .. } => {
                    assert_eq!(
                        refusal.detail,
                        Detail::MetaHeaderTooLarge { limit: 1 << 20 }
                    );
                }
                other => panic!("{what}: {other:?}"),
            }
            assert_eq!(e.reason(), Some(Reason::Unsupported), "{what}");
            assert!(
                e.to_string()
                    .contains("a long-name or pax header holds more than 1048576 bytes"),
                "{e}"
            );
        }
    }
    // At the bound (a name of 1 MiB less one byte, and its NUL) it is still read.
    let tgz = tgz(&[
        TarMember::long_name(&just_under),
        TarMember::file("x", b"x"),
    ]);
    let archive = Archive::open(
        ArchiveInput::bytes(tgz, "at.tgz"),
        &options(ArchiveFormat::TarGz),
    )
    .unwrap();
    assert_eq!(archive.entries()[0].name, just_under);
}

/// A writer that takes `room` bytes, then fails.
struct Full {
    room: usize,
}

impl Write for Full {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if buf.len() > self.room {
            return Err(std::io::Error::other("no room left"));
        }
        self.room -= buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failing_writer_is_its_own_error_naming_archive_and_entry() {
    let zip = Zip::of(vec![
        ZipMember::deflated("a/big", &[3; 300_000]),
        ZipMember::file("a/stored", &[4; 200_000]),
    ])
    .build();
    let tgz = tgz(&[TarMember::file("a/big", &[3; 300_000])]);
    for (format, bytes) in [(ArchiveFormat::Zip, zip), (ArchiveFormat::TarGz, tgz)] {
        let (_dir, path) = file_of(&bytes, "w");
        let archive = Archive::open(ArchiveInput::file(&path), &options(format)).unwrap();
        for entry in archive.entries() {
            let e = archive
                .copy_to(entry, &mut Full { room: 100_000 })
                .unwrap_err();
            match &e {
                Error::WriteEntry {
                    archive: named,
                    entry: name,
                    error: source,
                } => {
                    assert_eq!(named, &path.display().to_string());
                    assert_eq!(name, &entry.name);
                    assert_eq!(source.to_string(), "no room left");
                }
                other => panic!("{format:?}: {other:?}"),
            }
            assert_eq!(e.side(), Side::Environment);
            assert_eq!(e.entry(), Some(entry.name.as_str()));
            // Room enough: the whole member, counted.
            assert_eq!(
                archive.copy_to(entry, &mut Full { room: 300_000 }).unwrap(),
                entry.size
            );
        }
    }
}

#[test]
fn an_opened_file_is_named_by_its_label_and_its_head_tells_the_format() {
    let zip = Zip::of(vec![ZipMember::file("a", b"a")]).build();
    let (_dir, path) = file_of(&zip, "z.zip");
    let file = open_archive_file(&path, &Limits::DEFAULT).unwrap();
    assert_eq!(file.len(), zip.len() as u64);
    assert_eq!(file.head(4).unwrap(), b"PK\x03\x04");
    assert_eq!(file.head(1 << 20).unwrap(), zip);
    // Opened under other limits than it is read with: still held to these.
    let tiny = ReadOptions {
        format: ArchiveFormat::Zip,
        limits: Limits {
            max_archive: 10,
            ..Limits::DEFAULT
        },
    };
    let e = Archive::open(
        ArchiveInput::Opened {
            file: file.clone(),
            label: "upload".into(),
        },
        &tiny,
    )
    .unwrap_err();
    assert_eq!(e.reason(), Some(Reason::TooLarge));
    assert!(e.to_string().starts_with("archive upload refused ("), "{e}");
    let archive = Archive::open(
        ArchiveInput::Opened {
            file,
            label: "upload".into(),
        },
        &options(ArchiveFormat::Zip),
    )
    .unwrap();
    assert_eq!(archive.label(), "upload");
    assert_eq!(archive.read(&archive.entries()[0]).unwrap(), b"a");
}
