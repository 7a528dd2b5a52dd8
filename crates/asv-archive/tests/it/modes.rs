//! What an archive member's mode comes to: its owner-execute bit alone. Setuid, setgid,
//! sticky, group and world bits are never carried on, by the reader nor by a re-zip, so a
//! caller writing the files (0644 or 0755 by that bit, through `asv-fs`) cannot be handed one.

use crate::support;

use asv_archive::{Archive, ArchiveFormat, ArchiveInput, Limits, ReadOptions};
use support::{TarMember, Zip, ZipMember, contents, tgz};

fn archives() -> Vec<(ArchiveFormat, Vec<u8>)> {
    vec![
        (
            ArchiveFormat::Zip,
            Zip::of(vec![
                ZipMember::file("plain", b"p").mode(0o100_666),
                ZipMember::file("exec", b"e").mode(0o100_777),
                ZipMember::file("setuid", b"s").mode(0o104_755),
                ZipMember::file("sticky", b"t").mode(0o101_644),
                ZipMember::file("group-exec", b"g").mode(0o100_610),
                ZipMember::file("owner-exec-only", b"o").mode(0o100_700),
            ])
            .build(),
        ),
        (
            ArchiveFormat::TarGz,
            tgz(&[
                TarMember::file("plain", b"p").mode(0o666),
                TarMember::file("exec", b"e").mode(0o777),
                TarMember::file("setuid", b"s").mode(0o4755),
                TarMember::file("sticky", b"t").mode(0o1644),
                TarMember::file("group-exec", b"g").mode(0o610),
                TarMember::file("owner-exec-only", b"o").mode(0o700),
            ]),
        ),
    ]
}

#[test]
fn a_member_is_executable_by_its_owner_execute_bit_alone() {
    let want = [
        ("exec", true),
        ("group-exec", false),
        ("owner-exec-only", true),
        ("plain", false),
        ("setuid", true),
        ("sticky", false),
    ];
    for (format, bytes) in archives() {
        let options = ReadOptions {
            format,
            limits: Limits::DEFAULT,
        };
        let archive = Archive::open(ArchiveInput::bytes(bytes, "modes"), &options).unwrap();
        let got: Vec<(String, bool)> = contents(&archive)
            .into_iter()
            .map(|(name, (_, executable))| (name, executable))
            .collect();
        let want: Vec<(String, bool)> = want.iter().map(|(n, x)| (n.to_string(), *x)).collect();
        assert_eq!(got, want, "{format:?}");
        // A re-zip carries the bit and nothing else of the mode.
        let rezip = archive.to_zip(&|_| false).unwrap();
        let again = Archive::open(
            ArchiveInput::bytes(rezip, "rezip"),
            &ReadOptions {
                format: ArchiveFormat::Zip,
                limits: Limits::DEFAULT,
            },
        )
        .unwrap();
        let again: Vec<(String, bool)> = contents(&again)
            .into_iter()
            .map(|(name, (_, executable))| (name, executable))
            .collect();
        assert_eq!(again, want, "{format:?} re-zipped");
    }
}
