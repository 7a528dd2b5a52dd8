//! `skill pack` and `skill install` on the real binary: round trips, all-or-nothing installs,
//! hostile archives (written by Python's zipfile and tarfile, which write what they are told)
//! and the hostile names table against every sink.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use crate::common::{Repo, Run, assert_run_snapshot, run_bin, run_bin_env, short_ids};
use asv_test_support::snapshot::labelled;

fn skill_md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: Does {name} things.\n---\n# {name}\n")
}

/// A repository with skills `pdf` (with an executable script) and `csv`.
fn repo() -> Repo {
    let repo = Repo::empty();
    repo.write("skills/pdf/SKILL.md", skill_md("pdf"));
    repo.write("skills/pdf/scripts/run.sh", "#!/bin/sh\necho pdf\n");
    std::fs::set_permissions(
        repo.join("skills/pdf/scripts/run.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    repo.write("skills/pdf/references/guide.md", "# Guide\n");
    repo.write("skills/csv/SKILL.md", skill_md("csv"));
    repo
}

fn hash(dir: &Path) -> String {
    run_bin(
        &["skill".into(), "hash".into(), dir.display().to_string()],
        None,
    )
    .stdout
    .trim()
    .to_owned()
}

/// Runs python3 with `script`, `args` given as sys.argv[1:].
fn python(script: &str, args: &[&str]) {
    let status = Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(args)
        .status()
        .expect("python3 runs");
    assert!(status.success(), "python3 failed");
}

/// Writes a ZIP of (name, data) members with Python's zipfile (which takes any name).
fn python_zip(path: &Path, members: &[(&str, &str)]) {
    let mut script = String::from("import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w')\n");
    for (name, data) in members {
        script.push_str(&format!("z.writestr({name:?}, {data:?})\n"));
    }
    script.push_str("z.close()\n");
    python(&script, &[path.to_str().unwrap()]);
}

fn without_tool_state(repo: &Repo) -> BTreeMap<String, String> {
    repo.snapshot()
        .into_iter()
        .filter(|(k, _)| !k.starts_with(".agentic-skill-vendor/"))
        .collect()
}

#[test]
fn pack_is_reproducible_and_round_trips_through_install() {
    let repo = repo();
    let out1 = repo.join("one.zip");
    let out2 = repo.join("two.zip");
    let packed = repo.run(&["skill", "pack", "skills/pdf", "-o", out1.to_str().unwrap()]);
    assert_eq!(packed.code, 0, "{packed:?}");
    let want = hash(&repo.join("skills/pdf"));
    let len = std::fs::metadata(&out1).unwrap().len();
    assert!(
        len < 1000,
        "a size under a kilobyte is said in bytes: {len}"
    );
    let sum = std::process::Command::new("sha256sum")
        .arg(&out1)
        .output()
        .expect("sha256sum runs");
    let sum = String::from_utf8(sum.stdout).unwrap();
    let zip = sum.split_whitespace().next().unwrap();
    assert_eq!(
        packed.stdout,
        short_ids(&format!(
            "packed: pdf -> {} (3 files, {len} bytes; tree {want}, zip sha256:{zip})\n",
            out1.display(),
        ))
    );
    // the same bytes on a second run, and after the files' times change
    std::thread::sleep(std::time::Duration::from_millis(20));
    repo.write("skills/pdf/references/guide.md", "# Guide\n");
    assert_eq!(
        repo.run(&["skill", "pack", "skills/pdf", "-o", out2.to_str().unwrap()])
            .code,
        0
    );
    assert_eq!(std::fs::read(&out1).unwrap(), std::fs::read(&out2).unwrap());
    // the ZIP holds one folder named for the skill, as the upload surfaces expect
    let listing = Command::new("python3")
        .args([
            "-c",
            "import sys,zipfile;print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))",
        ])
        .arg(&out1)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(listing.stdout).unwrap(),
        "pdf/\npdf/SKILL.md\npdf/references/\npdf/references/guide.md\npdf/scripts/\npdf/scripts/run.sh\n"
    );
    // install into another repository gives the same tree hash, exec bit included
    let other = Repo::empty();
    let installed = other.run(&["skill", "install", out1.to_str().unwrap()]);
    assert_eq!(installed.code, 0, "{installed:?}");
    assert_eq!(
        installed.stdout,
        short_ids(&format!("installed: pdf -> skills/pdf ({want})\n"))
    );
    assert_eq!(hash(&other.join("skills/pdf")), want);
}

/// A skill of every kind of file the ZIP writer treats differently, the same on every host
/// (a SplitMix64 stream): text that deflates, random bytes it stores, an empty file, one byte,
/// executables, nested and non-ASCII names, and more files than a machine has cores.
fn varied_skill(repo: &Repo) {
    let mut state: u64 = 16;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    const WORDS: &[&str] = &[
        "pack", "the", "skill", "entry", "deflate", "ünï", "line\n", "42",
    ];
    repo.write("skills/varied/SKILL.md", skill_md("varied"));
    repo.write("skills/varied/empty", "");
    repo.write("skills/varied/one", "x");
    repo.write("skills/varied/zeros.bin", vec![0u8; 300 * 1024]);
    for i in 0..120 {
        let len = (next() % (12 * 1024)) as usize;
        let bytes: Vec<u8> = if i % 4 == 3 {
            (0..len).map(|_| next() as u8).collect()
        } else {
            let mut text = Vec::new();
            while text.len() < len {
                text.extend_from_slice(WORDS[(next() % WORDS.len() as u64) as usize].as_bytes());
                text.push(b' ');
            }
            text
        };
        let path = format!("skills/varied/part-{}/ñame-{i:03}.md", i % 5);
        repo.write(&path, bytes);
        if i % 7 == 0 {
            std::fs::set_permissions(repo.join(&path), std::fs::Permissions::from_mode(0o755))
                .unwrap();
        }
    }
}

/// `skill pack` of [`varied_skill`] writes the pinned bytes, whatever the number of threads
/// deflating its files (`RAYON_NUM_THREADS` 1, 2 and 7) and on every run.
///
/// The digest is that of the ZIP written with libdeflate 1.26 at level 8 (issue 30 §4); it
/// replaced the one miniz_oxide at level 9 wrote (issue 16, `e37a9418…`, 313,199 bytes). A
/// change of it is a change of what `skill pack` writes: make it on purpose, and say so
/// (a pack's ZIP digest may change between versions of the tool; its tree hash never does).
#[test]
fn pack_of_a_varied_skill_is_the_pinned_zip_on_any_number_of_threads() {
    let repo = Repo::empty();
    varied_skill(&repo);
    let mut zips = Vec::new();
    for threads in ["1", "2", "7", "2"] {
        let out = repo.join(&format!("varied-{threads}-{}.zip", zips.len()));
        let args: Vec<String> = ["skill", "pack", "skills/varied", "-o"]
            .iter()
            .map(|s| s.to_string())
            .chain([out.to_str().unwrap().to_owned(), "--root".into()])
            .chain([repo.path().display().to_string()])
            .collect();
        let packed = run_bin_env(
            &args,
            None,
            Some(repo.path()),
            &[("RAYON_NUM_THREADS", threads)],
        );
        assert_eq!(packed.code, 0, "{threads} threads: {packed:?}");
        let sum = Command::new("sha256sum").arg(&out).output().unwrap();
        let sum = String::from_utf8(sum.stdout).unwrap();
        zips.push((
            threads,
            std::fs::read(&out).unwrap().len(),
            sum.split_whitespace().next().unwrap().to_owned(),
        ));
    }
    for (threads, len, sum) in &zips {
        assert_eq!(
            (*len, sum.as_str()),
            (
                314_424,
                "d0d13798297c7aa60311b5dcc7a06dc31ad9a8c67463976338051fb35bfb9f3b"
            ),
            "{threads} threads"
        );
    }
}

#[test]
fn pack_refuses_an_invalid_skill_and_writes_nothing() {
    let repo = repo();
    repo.write(
        "skills/pdf/SKILL.md",
        "---\nname: other\ndescription: x\n---\n",
    );
    let out = repo.join("pdf.zip");
    let run = repo.run(&["skill", "pack", "skills/pdf", "-o", out.to_str().unwrap()]);
    assert_run_snapshot!("pack_of_a_misnamed_skill", run, repo);
    assert!(!out.exists());
    repo.symlink("../../outside", "skills/csv/link");
    let run = repo.run(&["skill", "pack", "skills/csv", "-o", out.to_str().unwrap()]);
    assert_run_snapshot!("pack_of_a_skill_holding_a_link", run, repo);
    assert!(!out.exists());
}

#[test]
fn pack_warns_past_the_upload_limit_and_refuses_past_the_api_limit() {
    let repo = repo();
    // incompressible bytes: 9 MiB of a xorshift stream
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let noise: Vec<u8> = (0..9 * 1024 * 1024)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    repo.write("skills/pdf/assets/big.bin", &noise);
    let out = repo.join("pdf.zip");
    let run = repo.run(&["skill", "pack", "skills/pdf", "-o", out.to_str().unwrap()]);
    assert_run_snapshot!("pack_past_the_upload_limit", run, repo);
    for i in 0..3 {
        repo.write(&format!("skills/pdf/assets/big{i}.bin"), &noise);
    }
    std::fs::remove_file(&out).unwrap();
    let run = repo.run(&["skill", "pack", "skills/pdf", "-o", out.to_str().unwrap()]);
    assert_run_snapshot!("pack_past_the_api_limit", run, repo);
    assert!(!out.exists());
}

#[test]
fn install_finds_every_skill_and_is_all_or_nothing() {
    let src = repo();
    // a directory of skills: every top-level directory with a SKILL.md, nothing else
    src.write("skills/notes.txt", "not a skill\n");
    src.write("skills/empty/readme.md", "no SKILL.md here\n");
    let dest = Repo::empty();
    let from = src.join("skills");
    let run = dest.run(&["skill", "install", from.to_str().unwrap(), "--dry-run"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        run.stdout,
        "plan: create skills/csv\nplan: create skills/pdf\n"
    );
    assert!(!dest.exists("skills"), "a dry run writes nothing");
    let run = dest.run(&["skill", "install", from.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(dest.exists("skills/csv/SKILL.md") && dest.exists("skills/pdf/scripts/run.sh"));
    assert!(!dest.exists("skills/empty") && !dest.exists("skills/notes.txt"));

    // again without --force: refused, nothing touched, and the dry run says the same
    dest.write("skills/pdf/SKILL.md", skill_md("pdf") + "local\n");
    let before = without_tool_state(&dest);
    let run = dest.run(&["skill", "install", from.to_str().unwrap()]);
    assert_run_snapshot!("install_over_installed_skills", run, dest);
    assert_eq!(without_tool_state(&dest), before);
    assert_eq!(
        dest.run(&["skill", "install", from.to_str().unwrap(), "--dry-run"])
            .code,
        2
    );
    // with --force every skill is replaced
    let run = dest.run(&["skill", "install", from.to_str().unwrap(), "--force"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(dest.read_string("skills/pdf/SKILL.md"), skill_md("pdf"));

    // one invalid skill among valid ones: nothing is installed
    src.write("skills/bad/SKILL.md", "---\nname: bad\n---\n");
    let fresh = Repo::empty();
    let run = fresh.run(&["skill", "install", from.to_str().unwrap()]);
    assert_run_snapshot!("install_of_one_invalid_skill_among_valid_ones", run, fresh);
    assert!(!fresh.exists("skills"));

    // an input that is not there is named as such
    let missing = src.join("nothing.zip");
    let run = fresh.run(&["skill", "install", missing.to_str().unwrap()]);
    assert_run_snapshot!("install_of_a_missing_input", run, fresh);
}

#[test]
fn install_from_a_tarball_into_an_agent_directory() {
    let src = repo();
    let tarball = src.join("skills.tar.gz");
    let status = Command::new("tar")
        .args([
            "-czf",
            tarball.to_str().unwrap(),
            "-C",
            src.join("skills").to_str().unwrap(),
            "pdf",
            "csv",
        ])
        .status()
        .unwrap();
    assert!(status.success());
    let dest = Repo::empty();
    let run = dest.run(&[
        "skill",
        "install",
        tarball.to_str().unwrap(),
        "--target",
        "claude",
    ]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        hash(&dest.join(".claude/skills/pdf")),
        hash(&src.join("skills/pdf"))
    );
    // user scope goes under HOME
    let home = Repo::empty();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentic-skill-vendor"));
    let out = cmd
        .args([
            "skill",
            "install",
            tarball.to_str().unwrap(),
            "--target",
            "windsurf",
            "--scope",
            "user",
            "--root",
        ])
        .arg(dest.path())
        .env_clear()
        .env("HOME", home.path())
        .output()
        .unwrap();
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert_run_snapshot!("install_into_a_user_agent_directory", run, dest);
    assert!(home.exists(".codeium/windsurf/skills/pdf/SKILL.md"));
    // --into and --target do not go together; --scope needs --target
    let both = dest.run(&[
        "skill",
        "install",
        tarball.to_str().unwrap(),
        "--target",
        "claude",
        "--into",
        "x",
    ]);
    assert_eq!(both.code, 2, "{both:?}");
    let scope = dest.run(&[
        "skill",
        "install",
        tarball.to_str().unwrap(),
        "--scope",
        "user",
    ]);
    assert_eq!(scope.code, 2, "{scope:?}");
}

/// Hostile archives: each refused with its reason, nothing written.
#[test]
fn hostile_archives_install_nothing() {
    let work = Repo::empty();
    let good = skill_md("pdf");
    let link = "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w')\n\
        z.writestr('pdf/SKILL.md', sys.argv[2])\n\
        i = zipfile.ZipInfo('pdf/link'); i.external_attr = (0o120777 << 16); i.create_system = 3\n\
        z.writestr(i, '../../etc/passwd')\nz.close()\n";
    let tar_link = "import sys, tarfile, io\nt = tarfile.open(sys.argv[1], 'w:gz')\n\
        d = sys.argv[2].encode()\ni = tarfile.TarInfo('pdf/SKILL.md'); i.size = len(d); t.addfile(i, io.BytesIO(d))\n\
        l = tarfile.TarInfo('pdf/evil'); l.type = tarfile.SYMTYPE; l.linkname = '/etc'; t.addfile(l)\nt.close()\n";
    type Build<'a> = Box<dyn Fn(&Path) + 'a>;
    let rows: Vec<(&str, Build<'_>)> = vec![
        (
            "parent segment",
            Box::new(|p: &Path| python_zip(p, &[("pdf/SKILL.md", &good), ("pdf/../../evil", "x")])),
        ),
        (
            "absolute",
            Box::new(|p: &Path| python_zip(p, &[("/pdf/SKILL.md", &good)])),
        ),
        (
            "reserved name",
            Box::new(|p: &Path| python_zip(p, &[("pdf/SKILL.md", &good), ("pdf/CON.txt", "x")])),
        ),
        (
            "case clash",
            Box::new(|p: &Path| {
                python_zip(
                    p,
                    &[
                        ("pdf/SKILL.md", &good),
                        ("pdf/a.md", "1"),
                        ("pdf/A.md", "2"),
                    ],
                )
            }),
        ),
        (
            "listed twice",
            Box::new(|p: &Path| python_zip(p, &[("pdf/SKILL.md", &good), ("pdf/SKILL.md", &good)])),
        ),
        (
            "zip symlink",
            Box::new(|p: &Path| python(link, &[p.to_str().unwrap(), &good])),
        ),
        (
            "tar symlink",
            Box::new(|p: &Path| python(tar_link, &[p.to_str().unwrap(), &good])),
        ),
        (
            "not an archive",
            Box::new(|p: &Path| std::fs::write(p, "just text").unwrap()),
        ),
        (
            "truncated zip",
            Box::new(|p: &Path| {
                python_zip(p, &[("pdf/SKILL.md", &good)]);
                let bytes = std::fs::read(p).unwrap();
                std::fs::write(p, &bytes[..bytes.len() - 10]).unwrap();
            }),
        ),
    ];
    // Every refusal in one snapshot, a row each: each must still be refused, with its reason.
    let mut refusals = String::new();
    for (name, build) in rows {
        let archive = work.join(&format!("{}.bin", name.replace(' ', "-")));
        build(&archive);
        let dest = Repo::empty();
        let run: Run = dest.run(&["skill", "install", archive.to_str().unwrap()]);
        refusals.push_str(&labelled(name, &run, dest.path()));
        assert!(dest.snapshot().is_empty(), "{name}: something was written");
    }
    assert_run_snapshot!(text: "hostile_archives", refusals);
}

/// Names some host cannot write, against every sink that writes or packs a skill.
#[test]
fn hostile_names_are_refused_by_every_sink() {
    let names = [
        "CON",
        "aux.md",
        "lpt1.txt",
        "a:b.md",
        "q?.md",
        "pipe|.md",
        "trail.",
        "trail ",
        "tab\tname",
    ];
    // Every sink's run for every name in one snapshot: each must still be refused, saying why.
    let mut refusals = String::new();
    for bad in names {
        let src = Repo::empty();
        src.write("skills/pdf/SKILL.md", skill_md("pdf"));
        src.write(&format!("skills/pdf/{bad}"), "x\n");
        // pack
        let out = src.join("pdf.zip");
        let run = src.run(&["skill", "pack", "skills/pdf", "-o", out.to_str().unwrap()]);
        refusals.push_str(&labelled(&format!("pack {bad:?}"), &run, src.path()));
        assert!(!out.exists(), "pack {bad:?}");
        // install from the directory
        let dest = Repo::empty();
        let run = dest.run(&["skill", "install", src.join("skills").to_str().unwrap()]);
        refusals.push_str(&labelled(&format!("install {bad:?}"), &run, dest.path()));
        assert!(dest.snapshot().is_empty(), "install {bad:?}");
        // skill add from a local directory
        let run = dest.run(&["skill", "add", src.path().to_str().unwrap(), "skills/pdf"]);
        refusals.push_str(&labelled(&format!("add {bad:?}"), &run, dest.path()));
        assert!(
            !dest.exists("skills") && !dest.exists("vendor-skills-lock.json"),
            "add {bad:?}"
        );
        // install from a ZIP that spells it
        let zip = src.join("bad.zip");
        python_zip(
            &zip,
            &[
                ("pdf/SKILL.md", &skill_md("pdf")),
                (&format!("pdf/{bad}"), "x"),
            ],
        );
        let run = dest.run(&["skill", "install", zip.to_str().unwrap()]);
        refusals.push_str(&labelled(&format!("zip {bad:?}"), &run, dest.path()));
    }
    assert_run_snapshot!(text: "hostile_names", refusals);
}

fn running_as_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// The hostile tree fixture: each row one hostile thing in (or as) `skills/pdf`, run through
/// every sink that reads a skill directory — pack, install from a directory, skill add.
#[test]
fn hostile_trees_against_every_sink() {
    type Setup = fn(&Repo);
    let rows: &[(&str, Setup, Option<&str>)] = &[
        (
            "link out",
            |r| r.symlink("../../../outside.md", "skills/pdf/out.md"),
            Some("symbolic link"),
        ),
        (
            "link in",
            |r| r.symlink("SKILL.md", "skills/pdf/again.md"),
            Some("symbolic link"),
        ),
        (
            "dangling link",
            |r| r.symlink("nowhere.md", "skills/pdf/gone.md"),
            Some("symbolic link"),
        ),
        (
            "link loop",
            |r| r.symlink("loop", "skills/pdf/loop"),
            Some("symbolic link"),
        ),
        (
            "linked directory",
            |r| r.symlink("../../elsewhere", "skills/pdf/refs"),
            Some("symbolic link"),
        ),
        (
            "root alias",
            |r| {
                std::fs::rename(r.join("skills/pdf"), r.join("real-pdf")).unwrap();
                r.symlink("../real-pdf", "skills/pdf");
            },
            Some("symlink is not allowed|found a symbolic link"),
        ),
        ("fifo", |r| r.fifo("skills/pdf/pipe"), Some("named pipe")),
        (
            "unreadable directory",
            |r| {
                r.write("skills/pdf/locked/a.md", "x\n");
                std::fs::set_permissions(
                    r.join("skills/pdf/locked"),
                    std::fs::Permissions::from_mode(0o000),
                )
                .unwrap();
            },
            Some("locked"),
        ),
        (
            "200-character name",
            |r| r.write(&format!("skills/pdf/{}.md", "n".repeat(197)), "long\n"),
            None,
        ),
        (
            "dot-dot-prefixed name",
            |r| r.write("skills/pdf/..foo", "dots\n"),
            None,
        ),
        (
            "trailing-dot name",
            |r| r.write("skills/pdf/...", "dots\n"),
            Some("ending in a dot or space"),
        ),
    ];
    for (name, setup, refusal) in rows {
        if *name == "unreadable directory" && running_as_root() {
            eprintln!("skipped {name}: root reads every directory");
            continue;
        }
        let src = Repo::empty();
        src.write("outside.md", "secret\n");
        src.write("elsewhere/x.md", "x\n");
        src.write("skills/pdf/SKILL.md", skill_md("pdf"));
        setup(&src);
        let zip = src.join("pdf.zip");
        let packed = src.run(&["skill", "pack", "skills/pdf", "-o", zip.to_str().unwrap()]);
        let dest = Repo::empty();
        let installed = dest.run(&["skill", "install", src.join("skills").to_str().unwrap()]);
        let adder = Repo::empty();
        let added = adder.run(&["skill", "add", src.path().to_str().unwrap(), "skills/pdf"]);
        match refusal {
            Some(want) => {
                for (sink, run) in [("pack", &packed), ("install", &installed), ("add", &added)] {
                    assert_eq!(run.code, 2, "{name} / {sink}: {run:?}");
                    // Fragments, not a snapshot: a root alias is refused in other words by
                    // the Linux calls and by the portable fallback (`--features portable`,
                    // crates/README.md), and an unreadable directory is no refusal as root.
                    assert!(
                        want.split('|').any(|w| run.stderr.contains(w)),
                        "{name} / {sink}: {}",
                        run.stderr
                    );
                }
                assert!(!zip.exists(), "{name}: pack wrote");
                assert!(dest.snapshot().is_empty(), "{name}: install wrote");
                assert!(
                    !adder.exists("skills") && !adder.exists("vendor-skills-lock.json"),
                    "{name}: add wrote"
                );
                assert_eq!(src.read_string("outside.md"), "secret\n");
            }
            None => {
                for (sink, run) in [("pack", &packed), ("install", &installed), ("add", &added)] {
                    assert_eq!(run.code, 0, "{name} / {sink}: {run:?}");
                }
                let want = hash(&src.join("skills/pdf"));
                assert_eq!(hash(&dest.join("skills/pdf")), want, "{name}: install");
                assert_eq!(hash(&adder.join("skills/pdf")), want, "{name}: add");
                let again = Repo::empty();
                let run = again.run(&["skill", "install", zip.to_str().unwrap()]);
                assert_eq!(run.code, 0, "{name}: install of the pack: {run:?}");
                assert_eq!(
                    hash(&again.join("skills/pdf")),
                    want,
                    "{name}: pack round trip"
                );
            }
        }
    }
}
