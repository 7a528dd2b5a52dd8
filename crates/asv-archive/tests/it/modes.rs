//! Extracted modes under several umasks. The umask is the process's, so this binary holds ONE
//! test that walks its table in turn (`cargo test` runs a binary's tests on threads).

use crate::support;

use std::os::unix::fs::PermissionsExt;

use asv_archive::{Error, Format, Limits, ReadOptions, Source, extract};
use rustix::fs::Mode;
use support::{TarMember, Zip, ZipMember, tgz};

fn mode_of(tree: &asv_fs::Tree, rel: &str) -> u32 {
    tree.open_file(rel)
        .unwrap()
        .unwrap()
        .metadata()
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

fn archives() -> Vec<(Format, Vec<u8>)> {
    vec![
        (
            Format::Zip,
            Zip::of(vec![
                ZipMember::file("plain", b"p").mode(0o100_666),
                ZipMember::file("exec", b"e").mode(0o100_777),
                ZipMember::file("setuid", b"s").mode(0o104_755),
                ZipMember::file("sticky", b"t").mode(0o101_644),
                ZipMember::file("group-exec", b"g").mode(0o100_610),
            ])
            .build(),
        ),
        (
            Format::TarGz,
            tgz(&[
                TarMember::file("plain", b"p").mode(0o666),
                TarMember::file("exec", b"e").mode(0o777),
                TarMember::file("setuid", b"s").mode(0o4755),
                TarMember::file("sticky", b"t").mode(0o1644),
                TarMember::file("group-exec", b"g").mode(0o610),
            ]),
        ),
    ]
}

#[test]
fn modes_are_0644_or_0755_narrowed_by_the_umask_and_links_in_the_way_are_refused() {
    // (umask, plain, executable)
    let rows = [
        (0o022, 0o644, 0o755),
        (0o077, 0o600, 0o700),
        (0o027, 0o640, 0o750),
        (0o002, 0o644, 0o755),
    ];
    for (umask, plain, executable) in rows {
        let old = rustix::process::umask(Mode::from_raw_mode(umask));
        for (format, bytes) in archives() {
            let into = tempfile::tempdir().unwrap();
            let options = ReadOptions {
                format,
                limits: Limits::DEFAULT,
            };
            extract(
                Source::bytes(bytes, "modes"),
                &options,
                into.path(),
                &|_| false,
            )
            .unwrap();
            let tree = asv_fs::Tree::open(into.path()).unwrap();
            let want = [
                ("plain", plain),
                ("exec", executable),
                ("setuid", executable),
                ("sticky", plain),
                ("group-exec", plain),
            ];
            for (name, mode) in want {
                assert_eq!(
                    mode_of(&tree, name),
                    mode,
                    "{format:?} {name} under umask {umask:03o}"
                );
            }
        }
        rustix::process::umask(old);
    }

    // Something already in the destination is never written through or over.
    let outside = tempfile::tempdir().unwrap();
    let zip = Zip::of(vec![ZipMember::file("d/x", b"x")]).build();
    let options = ReadOptions {
        format: Format::Zip,
        limits: Limits::DEFAULT,
    };
    let into = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), into.path().join("d")).unwrap();
    let e = extract(
        Source::bytes(zip.clone(), "z"),
        &options,
        into.path(),
        &|_| false,
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::InTheWay { path, .. } if path == "d"),
        "{e}"
    );
    assert_eq!(e.side(), asv_archive::Side::Destination);
    assert!(
        asv_fs::Tree::open(outside.path())
            .unwrap()
            .read_dir("")
            .unwrap()
            .unwrap()
            .is_empty()
    );

    let into = tempfile::tempdir().unwrap();
    asv_fs::Tree::open(into.path())
        .unwrap()
        .write_file("d", b"file")
        .unwrap();
    let e = extract(
        Source::bytes(zip.clone(), "z"),
        &options,
        into.path(),
        &|_| false,
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::InTheWay { path, .. } if path == "d"),
        "{e}"
    );

    let into = tempfile::tempdir().unwrap();
    let tree = asv_fs::Tree::open(into.path()).unwrap();
    tree.create_dir_all("d").unwrap();
    std::os::unix::fs::symlink(outside.path().join("target"), into.path().join("d/x")).unwrap();
    let e = extract(Source::bytes(zip, "z"), &options, into.path(), &|_| false).unwrap_err();
    assert!(
        matches!(&e, Error::InTheWay { path, .. } if path == "d/x"),
        "{e}"
    );
    assert!(
        asv_fs::Tree::open(outside.path())
            .unwrap()
            .read_dir("")
            .unwrap()
            .unwrap()
            .is_empty()
    );
}
