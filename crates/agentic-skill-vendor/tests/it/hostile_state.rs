//! State files are input (issue 27 §3): `vendor-skills-lock.json`, the digest lists of kept
//! bases and `vendor-lock.json` travel through pull requests and can be crafted by anyone.
//! For a table of crafted files, every command that reads the file is run on the real binary
//! and must refuse (or, for `skill verify`, report) with the exact text naming the file, and
//! leave a canary directory outside the repository and the repository's `.git` exactly as
//! they were. The regression that opened the issue: a `projections` entry at `.git` made
//! `skill sync --force` delete `.git/objects`.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::common::{Run, run_bin_in, tree_bytes};

const LOCK: &str = "vendor-skills-lock.json";
const PDF: &str = "---\nname: pdf\ndescription: Reads PDF files.\n---\n# PDF\n\none\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n";

/// A temporary directory holding the repository (`repo/`, with a `.git` of its own), a
/// canary directory beside it (`outside/`) and an upstream (`up/`) the repository took
/// `skills/pdf` from.
struct World {
    dir: tempfile::TempDir,
}

impl World {
    fn new() -> World {
        let world = World {
            dir: tempfile::tempdir().unwrap(),
        };
        world.write("outside/pdf/SKILL.md", PDF);
        world.write("outside/objects/keep", "canary\n");
        world.write("up/skills/pdf/SKILL.md", PDF);
        // A `.git` as a repository holds one: its objects are what the sync deleted.
        world.write("repo/.git/HEAD", "ref: refs/heads/main\n");
        world.write("repo/.git/config", "[core]\n\tbare = false\n");
        world.write("repo/.git/objects/ab/cdef0123", "blob\n");
        world.write("repo/.git/objects/pdf/SKILL.md", PDF);
        world.write("repo/src/pdf/SKILL.md", PDF);
        world.write(
            "repo/skills/own/SKILL.md",
            "---\nname: own\ndescription: Ours.\n---\n",
        );
        let up = world.path("up").display().to_string();
        let added = world.run(&["skill", "add", &up, "skills/pdf"]);
        assert_eq!(added.code, 0, "{added:?}");
        world
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes a new file at `rel` (as an editor saves one: a copy taken from a local source
    /// and its kept base may share the old file's inode).
    fn write(&self, rel: &str, text: impl AsRef<[u8]>) {
        let p = self.path(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        let _ = fs::remove_file(&p);
        fs::write(p, text).unwrap();
    }

    fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.path(rel)).unwrap()
    }

    /// Runs the binary on `repo/`, from there.
    fn run(&self, args: &[&str]) -> Run {
        let root = self.path("repo");
        let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        all.push("--root".into());
        all.push(root.display().to_string());
        run_bin_in(&all, None, Some(&root))
    }

    /// What must never change: every file, link and directory of the canary and of the
    /// repository's `.git`, with its bytes.
    fn guarded(&self) -> BTreeMap<String, Vec<u8>> {
        let mut out = BTreeMap::new();
        for rel in ["outside", "repo/.git", "repo/src"] {
            tree_bytes(&self.path(rel), rel, &mut out);
        }
        out
    }

    /// The tree hash of the repository's `skills/pdf`.
    fn pdf_hash(&self) -> String {
        let out = self.run(&["skill", "hash", "skills/pdf"]);
        assert_eq!(out.code, 0, "{out:?}");
        out.stdout.trim().to_owned()
    }
}

/// The lock `skill add` wrote, with `projections` set to the JSON text `projections`.
fn with_projections(world: &World, projections: &str) -> String {
    let lock = world.read(&format!("repo/{LOCK}"));
    let body = lock.trim_end().strip_suffix('}').unwrap().trim_end();
    format!("{body},\n  \"projections\": {projections}\n}}\n")
}

/// `projections` of one entry: `dir` → `name` → `hash`, laid out as the tool writes it
/// (the entry's name on line `ENTRY_LINE`).
fn one_projection(dir: &str, name: &str, hash: &str) -> String {
    format!(
        "{{\n    {}: {{\n      {}: \"{hash}\"\n    }}\n  }}",
        serde_json::to_string(dir).unwrap(),
        serde_json::to_string(name).unwrap()
    )
}

/// The line of a projection's name in a lock of one skill and one projection.
const ENTRY_LINE: usize = 14;

/// `skill sync --force` and every other command that reads the lock: each refuses with
/// exactly `says` (stderr, exit 2), `skill verify` reports it (stdout, exit 1), and nothing
/// guarded changes — nor the repository's own files.
fn all_refuse(world: &World, says: &str) -> Result<(), String> {
    let before = world.guarded();
    let lock_before = world.read(&format!("repo/{LOCK}"));
    let pdf_before = world.read("repo/skills/pdf/SKILL.md");
    let writers: &[&[&str]] = &[
        &["skill", "sync"],
        &["skill", "sync", "--force"],
        &["skill", "sync", "--force", "--dry-run"],
        &["skill", "remove", "pdf", "--force"],
        &["skill", "pull"],
        &["skill", "pull", "pdf"],
        &["skill", "status"],
        &["skill", "list"],
    ];
    for args in writers {
        let out = world.run(args);
        let want = (2, String::new(), format!("error: {says}\n"));
        if (out.code, out.stdout.clone(), out.stderr.clone()) != want {
            return Err(format!("{args:?}: {out:?}\nwanted stderr: error: {says}"));
        }
        if world.guarded() != before {
            return Err(format!("{args:?} changed what is guarded"));
        }
    }
    let verify = world.run(&["skill", "verify"]);
    let reported = format!("lock: {says}\n");
    if (verify.code, verify.stdout.as_str(), verify.stderr.as_str()) != (1, &reported, "") {
        return Err(format!(
            "skill verify: {verify:?}\nwanted stdout: {reported}"
        ));
    }
    if world.guarded() != before
        || world.read(&format!("repo/{LOCK}")) != lock_before
        || world.read("repo/skills/pdf/SKILL.md") != pdf_before
    {
        return Err("the tree changed".to_owned());
    }
    Ok(())
}

/// Makes one crafted lock in a world: its text, and the refusal every reader must give.
type Craft = Box<dyn Fn(&World) -> (String, String)>;

/// Runs every row (label, crafted lock, refusal) in a fresh world and reports every failure.
fn table(rows: Vec<(String, Craft)>) {
    let mut failed = Vec::new();
    for (label, craft) in rows {
        let world = World::new();
        // The targets sync mirrors into, so both the targeted and the untargeted paths of sync
        // read the crafted entries.
        let intent = world.read("repo/vendor-skills.yaml");
        world.write(
            "repo/vendor-skills.yaml",
            format!("targets: [claude]\n{intent}"),
        );
        let (lock, says) = craft(&world);
        world.write(&format!("repo/{LOCK}"), lock);
        if let Err(e) = all_refuse(&world, &says) {
            failed.push(format!("{label}: {e}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

const UNKNOWN_DIR: &str = "is not the project skills directory of an agent skill sync knows (such as .claude/skills or .agents/skills); remove the entry (skill sync records again what it places and claims identical copies)";

#[test]
fn a_projection_outside_a_known_agent_directory_is_refused_by_every_command() {
    // (dir, name): where sync --force used to remove `<dir>/<name>`.
    let mut rows: Vec<(&str, String)> = vec![
        (".git", "objects".to_owned()),
        (".GIT", "objects".to_owned()),
        (".git/objects", "pdf".to_owned()),
        ("..", "outside".to_owned()),
        ("../outside", "pdf".to_owned()),
        ("/tmp/x", "pdf".to_owned()),
        ("", "pdf".to_owned()),
        (".", "src".to_owned()),
        ("src", "pdf".to_owned()),
        (".claude/skills/a", "b".to_owned()),
        ("skills", "own".to_owned()),
    ];
    rows.push(("ABSOLUTE", "pdf".to_owned()));
    let rows = rows
        .into_iter()
        .map(|(dir, name)| {
            let label = format!("{dir:?}/{name}");
            let craft: Craft = Box::new(move |world| {
                // The canary's own absolute path: a crafted lock naming it directly.
                let dir = if dir == "ABSOLUTE" {
                    world.path("outside").display().to_string()
                } else {
                    dir.to_owned()
                };
                let hash = world.pdf_hash();
                let lock = with_projections(world, &one_projection(&dir, &name, &hash));
                let at = asv_model::json::display_path(&["projections", &dir, &name]);
                let says = format!(
                    "{LOCK}:{ENTRY_LINE}: {at}: {} {UNKNOWN_DIR}",
                    asv_error::quote::json_string(&dir)
                );
                (lock, says)
            });
            (label, craft)
        })
        .collect();
    table(rows);
}

#[test]
fn a_projection_whose_name_is_not_a_skill_name_is_refused_by_every_command() {
    let rows = [
        (".git", "may hold only lowercase letters a-z, digits and hyphens"),
        ("..", "may hold only lowercase letters a-z, digits and hyphens"),
        (".", "may hold only lowercase letters a-z, digits and hyphens"),
        ("", "is empty"),
        ("a/b", "may hold only lowercase letters a-z, digits and hyphens"),
        ("../../outside", "may hold only lowercase letters a-z, digits and hyphens"),
    ]
    .into_iter()
    .map(|(name, why)| {
        let craft: Craft = Box::new(move |world| {
            let hash = world.pdf_hash();
            let lock = with_projections(world, &one_projection(".claude/skills", name, &hash));
            let at = asv_model::json::display_path(&["projections", ".claude/skills", name]);
            let says = format!(
                "{LOCK}:{ENTRY_LINE}: {at}: the skill name {} {why}; remove the entry (skill sync records again what it places and claims identical copies)",
                asv_error::quote::json_string(name)
            );
            (lock, says)
        });
        (format!(".claude/skills/{name:?}"), craft)
    })
    .collect();
    table(rows);
}

#[test]
fn a_key_given_twice_in_the_skill_lock_is_refused_by_every_command() {
    let mut rows: Vec<(String, Craft)> = Vec::new();
    rows.push((
        "a projection given twice".to_owned(),
        Box::new(|world| {
            let hash = world.pdf_hash();
            let twice = format!(
                "{{\n    \".claude/skills\": {{\n      \"pdf\": \"{hash}\",\n      \"pdf\": \"{hash}\"\n    }}\n  }}"
            );
            let says = format!(
                "{LOCK}:15: the key \"pdf\" appears twice in projections.\".claude/skills\"; keep one of them and remove the other"
            );
            (with_projections(world, &twice), says)
        }),
    ));
    rows.push((
        "a projection directory given twice".to_owned(),
        Box::new(|world| {
            let hash = world.pdf_hash();
            let twice = format!(
                "{{\n    \".claude/skills\": {{}},\n    \".claude/skills\": {{\n      \"pdf\": \"{hash}\"\n    }}\n  }}"
            );
            let says = format!(
                "{LOCK}:14: the key \".claude/skills\" appears twice in projections; keep one of them and remove the other"
            );
            (with_projections(world, &twice), says)
        }),
    ));
    rows.push((
        "a skill given twice".to_owned(),
        Box::new(|world| {
            let lock = world.read(&format!("repo/{LOCK}"));
            let start = lock.find("    \"pdf\": {").unwrap();
            let end = lock[start..].find("\n    }").unwrap() + start + "\n    }".len();
            let entry = &lock[start..end];
            // The second copy pins another revision: the one a reader of the file would miss.
            let other = entry.replacen("\"revision\": \"", "\"revision\": \"0", 1);
            let twice = format!("{},\n{other}{}", &lock[..end], &lock[end..]);
            let line = twice[..twice.rfind("    \"pdf\": {").unwrap()].lines().count() + 1;
            let says = format!(
                "{LOCK}:{line}: the key \"pdf\" appears twice in skills; keep one of them and remove the other"
            );
            (twice, says)
        }),
    ));
    table(rows);
}

#[test]
fn a_digest_list_naming_paths_outside_its_base_is_not_used() {
    for hostile in [
        "../x",
        "/etc/passwd",
        "../../outside/pdf/SKILL.md",
        ".git/config",
    ] {
        let world = World::new();
        let lock: serde_json::Value =
            serde_json::from_str(&world.read(&format!("repo/{LOCK}"))).unwrap();
        let base = lock["skills"]["pdf"]["baseHash"]
            .as_str()
            .unwrap()
            .to_owned();
        let hex = base.strip_prefix("sha256:").unwrap();
        let list_path = format!("repo/.agentic-skill-vendor/skill-bases/{hex}.json");
        let list = world.read(&list_path);
        assert!(list.contains("\"path\":\"SKILL.md\""), "{list}");
        world.write(
            &list_path,
            list.replace(
                "\"path\":\"SKILL.md\"",
                &format!("\"path\":{}", serde_json::to_string(hostile).unwrap()),
            ),
        );
        // Upstream moves and the copy holds a local edit: the pull needs its base.
        world.write(
            "up/skills/pdf/SKILL.md",
            PDF.replace("eight\n", "EIGHT (theirs)\n"),
        );
        world.write(
            "repo/skills/pdf/SKILL.md",
            PDF.replace("one\n", "ONE (ours)\n"),
        );
        let before = world.guarded();
        for args in [&["skill", "status"][..], &["skill", "verify"]] {
            let out = world.run(args);
            assert_eq!(out.stderr, "", "{hostile}: {args:?}: {out:?}");
            assert_eq!(world.guarded(), before, "{hostile}: {args:?}");
        }
        let pulled = world.run(&["skill", "pull", "pdf"]);
        assert_eq!(pulled.code, 0, "{hostile}: {pulled:?}");
        assert_eq!(world.guarded(), before, "{hostile}: skill pull");
        // The merge took the base read whole: both sides' edits are in.
        let merged = world.read("repo/skills/pdf/SKILL.md");
        assert!(
            merged.contains("ONE (ours)") && merged.contains("EIGHT (theirs)"),
            "{hostile}: {merged}"
        );
    }
}

#[test]
fn a_valid_lock_with_projections_still_works_unchanged() {
    let world = World::new();
    let intent = world.read("repo/vendor-skills.yaml");
    world.write(
        "repo/vendor-skills.yaml",
        format!("targets: [claude, codex]\n{intent}"),
    );
    let synced = world.run(&["skill", "sync"]);
    assert_eq!(synced.code, 0, "{synced:?}");
    let lock = world.read(&format!("repo/{LOCK}"));
    assert!(lock.contains("\".claude/skills\"") && lock.contains("\".agents/skills\""));
    let before = world.guarded();
    for args in [
        &["skill", "sync"][..],
        &["skill", "sync", "--force"],
        &["skill", "verify"],
        &["skill", "status"],
        &["skill", "pull"],
    ] {
        let out = world.run(args);
        assert_eq!(
            (out.code, out.stderr.as_str()),
            (0, ""),
            "{args:?}: {out:?}"
        );
        assert_eq!(world.read(&format!("repo/{LOCK}")), lock, "{args:?}");
    }
    assert_eq!(world.guarded(), before);
    // Removing the skill removes its copies, and only them.
    let removed = world.run(&["skill", "remove", "pdf", "--force"]);
    assert_eq!(removed.code, 0, "{removed:?}");
    assert!(!world.path("repo/.claude/skills/pdf").exists());
    assert!(world.path("repo/.claude/skills/own").exists());
    assert_eq!(world.guarded(), before);
}

// ---------------------------------------------------------------------------------------------
// vendor-lock.json
// ---------------------------------------------------------------------------------------------

const CONTRACT_LOCK: &str = "vendor-lock.json";
const CONTRACT_ADVICE: &str = "; fix it by hand or delete it and run gen to write it again";

/// A copy of the demo repository as `repo/` of a world, beside a canary.
fn demo_world() -> World {
    let world = World {
        dir: tempfile::tempdir().unwrap(),
    };
    world.write("outside/scripts/word-count.sh", "canary\n");
    copy(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/demo"),
        &world.path("repo"),
    );
    world.write("repo/.git/HEAD", "ref: refs/heads/main\n");
    world.write("repo/.git/objects/ab/cdef0123", "blob\n");
    world.write("repo/.git/scripts/word-count.sh", "blob\n");
    world
}

fn copy(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy(&e.path(), &to.join(e.file_name()));
        } else {
            fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn a_crafted_contract_lock_is_refused_by_gen_and_verify() {
    let demo = demo_world().read(&format!("repo/{CONTRACT_LOCK}"));
    let dest = "\"scripts/word-count.sh\": {";
    assert!(demo.contains(dest));
    let line_of = |text: &str, needle: &str| text[..text.find(needle).unwrap()].lines().count();
    let mut rows: Vec<(String, String, String)> = Vec::new();
    for hostile in [
        "..",
        "../../../outside/scripts/word-count.sh",
        ".git",
        "../../.git/objects/",
        ".GIT/x",
    ] {
        let text = demo.replacen(
            dest,
            &format!("{}: {{", serde_json::to_string(hostile).unwrap()),
            1,
        );
        let says = format!(
            "{CONTRACT_LOCK}: placements.style-editor.{hostile} is not a path inside the skill{CONTRACT_ADVICE}"
        );
        rows.push((format!("dest {hostile:?}"), text, says));
    }
    for skill in [".git", ".."] {
        let text = demo.replacen(
            "\"style-editor\": {\n      \"scripts",
            &format!("\"{skill}\": {{\n      \"scripts"),
            1,
        );
        let says = format!(
            "{CONTRACT_LOCK}: placements.{} does not name one skill directory{CONTRACT_ADVICE}",
            asv_error::quote::json_string(skill)
        );
        rows.push((format!("skill {skill:?}"), text, says));
    }
    // A placement given twice: the second (hostile) copy is the one serde would keep.
    let start = demo.find(dest).unwrap();
    let end = start + demo[start..].find("\n      }").unwrap() + "\n      }".len();
    let twice = format!(
        "{},\n{}{}",
        &demo[..end],
        &demo[start - 6..end],
        &demo[end..]
    );
    let line = line_of(
        &twice,
        "\n      \"scripts/word-count.sh\": {\n        \"contract\": \"word-count\",\n        \"digest\": \"sha256:8ffa3a944633d5f0014957d12867780a587f97ccb7c13d85a40a601d786ec6d3\",\n        \"src\": \"tools/scripts/word-count.sh\"\n      },",
    ) + 6;
    rows.push((
        "a placement given twice".to_owned(),
        twice,
        format!(
            "{CONTRACT_LOCK}: line {line}: the key \"scripts/word-count.sh\" appears twice in placements.style-editor{CONTRACT_ADVICE}"
        ),
    ));
    let resolutions = demo.replacen(
        "\"resolutions\": {",
        "\"resolutions\": {},\n  \"resolutions\": {",
        1,
    );
    let line = line_of(&resolutions, "\"resolutions\": {\n");
    rows.push((
        "resolutions given twice".to_owned(),
        resolutions,
        format!(
            "{CONTRACT_LOCK}: line {line}: the key \"resolutions\" appears twice{CONTRACT_ADVICE}"
        ),
    ));
    let mut failed = Vec::new();
    for (label, text, says) in rows {
        let world = demo_world();
        world.write(&format!("repo/{CONTRACT_LOCK}"), &text);
        let before = world.guarded();
        let skills_before = {
            let mut m = BTreeMap::new();
            tree_bytes(&world.path("repo/skills"), "repo/skills", &mut m);
            m
        };
        for command in ["gen", "verify"] {
            let out = world.run(&[command]);
            let want = (2, String::new(), format!("error: {says}\n"));
            if (out.code, out.stdout.clone(), out.stderr.clone()) != want {
                failed.push(format!(
                    "{label}: {command}: {out:?}\nwanted: error: {says}"
                ));
            }
        }
        let mut skills_after = BTreeMap::new();
        tree_bytes(&world.path("repo/skills"), "repo/skills", &mut skills_after);
        if world.guarded() != before
            || skills_after != skills_before
            || world.read(&format!("repo/{CONTRACT_LOCK}")) != text
        {
            failed.push(format!("{label}: the tree changed"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

#[test]
fn an_intent_row_whose_path_leaves_its_source_is_refused_and_reported() {
    for (path, why) in [
        ("../../outside", "has a `.` or `..` segment"),
        ("/etc", "is absolute"),
        (".git/objects", "has a .git segment (in some case)"),
    ] {
        let world = World::new();
        let intent = world.read("repo/vendor-skills.yaml");
        let text = intent.replacen("path: skills/pdf", &format!("path: {path}"), 1);
        assert_ne!(text, intent);
        world.write("repo/vendor-skills.yaml", &text);
        let line = text[..text.find("path:").unwrap()].lines().count();
        let says = format!(
            "vendor-skills.yaml:{line}: the path {} of the skill \"pdf\" {why}; give . or the skill's directory inside its source as a plain relative path",
            asv_error::quote::json_string(path)
        );
        let before = world.guarded();
        for args in [
            &["skill", "sync", "--force"][..],
            &["skill", "remove", "pdf", "--force"],
        ] {
            let out = world.run(args);
            assert_eq!(
                (out.code, out.stdout.as_str(), out.stderr.clone()),
                (2, "", format!("error: {says}\n")),
                "{path}: {args:?}"
            );
        }
        let verify = world.run(&["skill", "verify"]);
        assert_eq!(
            (verify.code, verify.stdout.clone(), verify.stderr.as_str()),
            (1, format!("intent: {says}\n"), ""),
            "{path}"
        );
        assert_eq!(world.guarded(), before, "{path}");
        assert_eq!(world.read("repo/vendor-skills.yaml"), text);
    }
}
