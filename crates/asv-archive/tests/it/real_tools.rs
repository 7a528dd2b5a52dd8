//! Archives written by a real tool (Python's `zipfile`, `tarfile` and `shutil`) are accepted
//! and hold exactly the files written into them; Python reads the ZIPs we write. Skipped,
//! saying so, when `python3` is not installed.

use std::collections::BTreeMap;
use std::process::Command;

use asv_archive::{
    Archive, ArchiveFormat, ArchiveInput, FileEntry, Limits, ReadOptions, zip_files,
};

use crate::support::contents;

/// The files every archive holds: path, bytes, executable.
fn files() -> Vec<(String, Vec<u8>, bool)> {
    let long_dir = "d".repeat(60);
    vec![
        (
            "skill/SKILL.md".into(),
            b"---\nname: skill\n---\nbody\n".repeat(30),
            false,
        ),
        (
            "skill/scripts/run.sh".into(),
            b"#!/bin/sh\necho run\n".to_vec(),
            true,
        ),
        ("skill/empty.txt".into(), Vec::new(), false),
        (
            "skill/caf\u{e9}/\u{65e5}\u{672c}.md".into(),
            "unicode\n".as_bytes().to_vec(),
            false,
        ),
        (
            format!(
                "skill/{long_dir}/{long_dir}/long-name-{}.txt",
                "n".repeat(40)
            ),
            b"long\n".to_vec(),
            false,
        ),
        (
            "skill/blob.bin".into(),
            (0..=255u8).cycle().take(100_000).collect(),
            false,
        ),
    ]
}

const SCRIPT: &str = r#"
import os, shutil, sys, tarfile, zipfile
src, out = sys.argv[1], sys.argv[2]
def walk():
    for root, dirs, names in os.walk(src):
        dirs.sort()
        for d in dirs:
            yield os.path.join(root, d), True
        for n in sorted(names):
            yield os.path.join(root, n), False
with zipfile.ZipFile(os.path.join(out, "deflated.zip"), "w", zipfile.ZIP_DEFLATED) as z:
    for p, _ in walk():
        z.write(p, os.path.relpath(p, src))
with zipfile.ZipFile(os.path.join(out, "stored.zip"), "w", zipfile.ZIP_STORED) as z:
    for p, _ in walk():
        z.write(p, os.path.relpath(p, src))
class Unseekable:
    def __init__(self, f): self.f = f
    def write(self, b): return self.f.write(b)
    def flush(self): self.f.flush()
with open(os.path.join(out, "streamed.zip"), "wb") as raw:
    with zipfile.ZipFile(Unseekable(raw), "w", zipfile.ZIP_DEFLATED) as z:
        for p, is_dir in walk():
            if is_dir:
                continue
            info = zipfile.ZipInfo.from_file(p, os.path.relpath(p, src))
            with open(p, "rb") as f, z.open(info, "w") as w:
                shutil.copyfileobj(f, w)
for fmt, name in [(tarfile.GNU_FORMAT, "gnu"), (tarfile.PAX_FORMAT, "pax")]:
    with tarfile.open(os.path.join(out, name + ".tar.gz"), "w:gz", format=fmt) as t:
        t.add(src, arcname=".")
shutil.make_archive(os.path.join(out, "shutil"), "gztar", src)
shutil.make_archive(os.path.join(out, "shutil"), "zip", src)
"#;

fn python() -> Option<Command> {
    let ok = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then(|| Command::new("python3"))
}

/// The files every archive holds, as [`contents`] reads them.
fn want() -> BTreeMap<String, (Vec<u8>, bool)> {
    files()
        .into_iter()
        .map(|(path, bytes, executable)| (path, (bytes, executable)))
        .collect()
}

#[test]
fn archives_python_writes_are_accepted_and_hold_exactly_their_files() {
    let Some(mut python) = python() else {
        println!("skipped: python3 is not installed");
        return;
    };
    let src = tempfile::tempdir().unwrap();
    let root = asv_fs::Root::open(src.path()).unwrap();
    for (path, bytes, executable) in files() {
        root.write_file_mode(&path, &bytes, executable).unwrap();
    }
    let out = tempfile::tempdir().unwrap();
    let status = python
        .arg("-c")
        .arg(SCRIPT)
        .arg(src.path())
        .arg(out.path())
        .status()
        .unwrap();
    assert!(status.success());
    let rows = [
        ("deflated.zip", ArchiveFormat::Zip),
        ("stored.zip", ArchiveFormat::Zip),
        ("streamed.zip", ArchiveFormat::Zip),
        ("gnu.tar.gz", ArchiveFormat::TarGz),
        ("pax.tar.gz", ArchiveFormat::TarGz),
        ("shutil.tar.gz", ArchiveFormat::TarGz),
        ("shutil.zip", ArchiveFormat::Zip),
    ];
    for (name, format) in rows {
        let options = ReadOptions {
            format,
            limits: Limits::DEFAULT,
        };
        let archive = Archive::open(ArchiveInput::file(out.path().join(name)), &options)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        archive.judge().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(contents(&archive), want(), "{name}");
        // And its re-zip holds the same files.
        let rezip = archive.to_zip(&|_| false).unwrap();
        let again = Archive::open(
            ArchiveInput::bytes(rezip, "rezip"),
            &ReadOptions {
                format: ArchiveFormat::Zip,
                limits: Limits::DEFAULT,
            },
        )
        .unwrap();
        assert_eq!(contents(&again), want(), "{name} re-zipped");
    }
}

#[test]
fn python_reads_the_zips_we_write() {
    let Some(mut python) = python() else {
        println!("skipped: python3 is not installed");
        return;
    };
    let entries: Vec<FileEntry> = files()
        .into_iter()
        .map(|(path, bytes, executable)| FileEntry {
            path,
            bytes,
            executable,
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let root = asv_fs::Root::open(dir.path()).unwrap();
    root.write_file("ours.zip", &zip_files(&entries).unwrap())
        .unwrap();
    let script = r#"
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    assert z.testzip() is None
    for i in z.infolist():
        print("%s %o %d" % (i.filename, i.external_attr >> 16, len(z.read(i))))
"#;
    let output = python
        .arg("-c")
        .arg(script)
        .arg(dir.path().join("ours.zip"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listing = String::from_utf8(output.stdout).unwrap();
    let long_dir = "d".repeat(60);
    let long = format!(
        "skill/{long_dir}/{long_dir}/long-name-{}.txt",
        "n".repeat(40)
    );
    let want = format!(
        "skill/ 40755 0\nskill/SKILL.md 100644 750\nskill/blob.bin 100644 100000\nskill/caf\u{e9}/ 40755 0\nskill/caf\u{e9}/\u{65e5}\u{672c}.md 100644 8\nskill/{long_dir}/ 40755 0\nskill/{long_dir}/{long_dir}/ 40755 0\n{long} 100644 5\nskill/empty.txt 100644 0\nskill/scripts/ 40755 0\nskill/scripts/run.sh 100755 19\n"
    );
    assert_eq!(listing, want);
}
