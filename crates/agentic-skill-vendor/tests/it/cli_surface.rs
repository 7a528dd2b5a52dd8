//! What a newcomer meets first: `init`, `help <command>`, shell completions and the manual page,
//! each through the real binary.

use std::process::Command;

use crate::common::{self, Repo, Run, assert_run_snapshot, ok, run_bin};

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn init_makes_what_is_missing_and_says_so() {
    let repo = Repo::empty();
    assert_eq!(
        repo.run(&["init"]),
        ok(
            "created: contracts/\ncreated: skills/\ncreated: .gitignore (/.agentic-skill-vendor/)\n"
        )
    );
    assert_eq!(repo.read_string(".gitignore"), "/.agentic-skill-vendor/\n");
    assert!(repo.join("contracts").is_dir() && repo.join("skills").is_dir());
    // The second run finds everything in place and makes nothing.
    let before = repo.snapshot();
    assert_eq!(repo.run(&["init"]), ok(""));
    assert_eq!(repo.snapshot(), before);
    // The laid-out repository is one the other commands accept: gen writes the first lock.
    assert_eq!(repo.run(&["gen"]), ok(""));
    assert_eq!(repo.run(&["verify"]), ok(""));
}

#[test]
fn init_keeps_an_existing_gitignore_and_its_line_endings() {
    let repo = Repo::empty();
    repo.write("contracts/style.md", "Plain.\n");
    // CRLF and no line break at the end: the rule goes on a line of its own, in CRLF.
    repo.write(".gitignore", "target/\r\n*.log");
    assert_eq!(
        repo.run(&["init"]),
        ok("created: skills/\nignored: /.agentic-skill-vendor/ (added to .gitignore)\n")
    );
    assert_eq!(
        repo.read_string(".gitignore"),
        "target/\r\n*.log\r\n/.agentic-skill-vendor/\r\n"
    );
    assert_eq!(repo.read_string("contracts/style.md"), "Plain.\n");
    // A rule that already keeps the directory out is left as it is.
    let other = Repo::empty();
    other.write(".gitignore", "node_modules/\n.agentic-skill-vendor\n");
    assert_eq!(
        other.run(&["init"]),
        ok("created: contracts/\ncreated: skills/\n")
    );
    assert_eq!(
        other.read_string(".gitignore"),
        "node_modules/\n.agentic-skill-vendor\n"
    );
}

#[test]
fn init_refuses_a_file_where_a_directory_belongs_and_makes_nothing() {
    let repo = Repo::empty();
    repo.write("skills", "not a directory\n");
    let before = repo.snapshot();
    let run = repo.run(&["init"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(run.stdout.is_empty(), "{run:?}");
    assert!(
        run.stderr.starts_with("error: ") && run.stderr.contains("skills"),
        "{run:?}"
    );
    assert_eq!(repo.snapshot(), before);
}

#[test]
fn help_names_a_command_as_in_cargo_and_git() {
    for (help, flag) in [
        (args(&["help", "gen"]), args(&["gen", "--help"])),
        (
            args(&["help", "skill", "pull"]),
            args(&["skill", "pull", "--help"]),
        ),
        (
            args(&["skill", "help", "install"]),
            args(&["skill", "install", "--help"]),
        ),
    ] {
        let by_help = run_bin(&help, None);
        let by_flag = run_bin(&flag, None);
        assert_eq!(by_help.code, 0, "{help:?}: {by_help:?}");
        assert!(
            by_help.stdout.contains("Usage: agentic-skill-vendor "),
            "{by_help:?}"
        );
        assert_eq!(by_help.stdout, by_flag.stdout, "{help:?}");
    }
}

/// Completes `line` (the words typed so far) with the bash script the binary prints, in a real
/// bash, and returns the candidates.
fn bash_complete(script: &std::path::Path, words: &[&str]) -> Vec<String> {
    let program = format!(
        r#"source "$1"
fn=$(complete -p agentic-skill-vendor | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
COMP_WORDS=({words})
COMP_CWORD={cword}
COMP_LINE="{line}"
COMP_POINT=${{#COMP_LINE}}
"$fn" agentic-skill-vendor "${{COMP_WORDS[$COMP_CWORD]}}" "${{COMP_WORDS[$COMP_CWORD-1]}}"
printf '%s\n' "${{COMPREPLY[@]}}""#,
        words = words.join(" "),
        cword = words.len() - 1,
        line = words.join(" "),
    );
    let out = Command::new("bash")
        .args(["-c", &program, "bash"])
        .arg(script)
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn bash_completes_commands_and_options_from_the_printed_script() {
    let run = run_bin(&args(&["completions", "bash"]), None);
    assert_eq!(run.code, 0, "{run:?}");
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("asv.bash");
    std::fs::write(&script, &run.stdout).unwrap();
    assert_eq!(
        bash_complete(&script, &["agentic-skill-vendor", "sk"]),
        ["skill"]
    );
    assert_eq!(
        bash_complete(&script, &["agentic-skill-vendor", "skill", "pu"]),
        ["pull"]
    );
    let options = bash_complete(
        &script,
        &["agentic-skill-vendor", "skill", "install", "--dr"],
    );
    assert_eq!(options, ["--dry-run"]);
}

#[test]
fn every_shell_gets_a_script_naming_the_binary() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let run = run_bin(&args(&["completions", shell]), None);
        assert_eq!(run.code, 0, "{shell}: {run:?}");
        assert!(run.stdout.contains("agentic-skill-vendor"), "{shell}");
        assert!(run.stdout.contains("lint-selfcontain"), "{shell}");
    }
    let unknown = run_bin(&args(&["completions", "tcsh"]), None);
    assert_eq!(unknown.code, 2, "{unknown:?}");
}

#[test]
fn the_manual_page_renders() {
    let run = run_bin(&args(&["man"]), None);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(
        run.stdout.contains("\n.TH agentic-skill-vendor 1 "),
        "no title line"
    );
    assert!(run.stdout.contains(".SH NAME"), "no NAME section");
    assert!(
        run.stdout.contains("lint\\-selfcontain"),
        "the commands are listed"
    );
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("agentic-skill-vendor.1");
    std::fs::write(&page, &run.stdout).unwrap();
    match Command::new("man")
        .arg("-l")
        .arg(&page)
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .output()
    {
        Ok(out) => {
            assert!(out.status.success(), "{out:?}");
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                text.contains("SYNOPSIS") && text.contains("agentic-skill-vendor"),
                "{text}"
            );
        }
        Err(e) => eprintln!(
            "SKIPPED part of the_manual_page_renders: `man -l` could not run here ({e}); the roff was checked for its sections only"
        ),
    }
}

fn in_dir(repo: &Repo, rel: &str, a: &[&str]) -> Run {
    common::run_bin_in(&args(a), None, Some(&repo.join(rel)))
}

/// A repository inside a git work tree, so a search for it never looks above the test's own
/// directory.
fn git_repo(repo: &Repo) {
    let status = Command::new("git")
        .args(["init", "-q"])
        .current_dir(repo.path())
        .status()
        .expect("git runs");
    assert!(status.success());
}

#[test]
fn without_root_the_repository_is_found_above_the_current_directory() {
    let repo = Repo::demo();
    git_repo(&repo);
    let skill = std::fs::read_dir(repo.join("skills"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .file_name()
        .into_string()
        .unwrap();
    let inside = format!("skills/{skill}/references");
    let before = repo.snapshot();
    // From deep inside a skill: the demo is found, clean, and nothing stray is written there.
    assert_eq!(in_dir(&repo, &inside, &["verify"]), ok(""));
    assert_eq!(in_dir(&repo, &inside, &["gen"]), ok(""));
    assert_eq!(repo.snapshot(), before);
    // A change made from inside is a change to the repository found.
    repo.write(
        &format!("skills/{skill}/references/vendor/stray.md"),
        "not declared\n",
    );
    let drift = in_dir(&repo, &inside, &["verify"]);
    assert_eq!(drift.code, 1, "{drift:?}");
    assert!(drift.stdout.starts_with("extra: "), "{drift:?}");
}

#[test]
fn without_root_and_without_a_repository_the_run_is_refused_naming_where_it_looked() {
    let repo = Repo::empty();
    git_repo(&repo);
    repo.write("notes/readme.txt", "x\n");
    let before = repo.snapshot();
    let top = repo.path().canonicalize().unwrap();
    for command in [
        &["gen"][..],
        &["verify"],
        &["lint-selfcontain"],
        &["skill", "validate"],
        &["skill", "status"],
    ] {
        let run = in_dir(&repo, "notes", command);
        assert_eq!(run.code, 2, "{command:?}: {run:?}");
        assert_eq!(
            run.stderr,
            format!(
                "error: no repository found: looked in {}/notes and each directory above it up to {} for vendor-lock.json, vendor-manifest.yaml, vendor-skills-lock.json, vendor-skills.yaml or skills/; run agentic-skill-vendor init to start one here, or pass --root <path>\n",
                top.display(),
                top.display()
            ),
            "{command:?}"
        );
    }
    assert_eq!(repo.snapshot(), before);
    // Commands that need no repository still run there.
    assert_eq!(in_dir(&repo, "notes", &["self-test"]).code, 0);
    repo.write(
        "notes/s/SKILL.md",
        "---\nname: s\ndescription: d\n---\nBody\n",
    );
    assert_eq!(in_dir(&repo, "notes", &["skill", "validate", "s"]).code, 0);
    assert_eq!(in_dir(&repo, "notes", &["skill", "hash", "s"]).code, 0);
    // --root keeps its meaning: the directory named is the repository, markers or not.
    let run = in_dir(&repo, "notes", &["verify", "--root", "."]);
    assert_eq!(run.stdout, "lock: vendor-lock.json is missing\n", "{run:?}");
}

#[test]
fn typos_in_the_table_and_misplaced_declarations_are_warned_about_and_change_nothing() {
    let setup = |table: &str, stray: &str| {
        let repo = Repo::empty();
        repo.write("contracts/note.md", "Note.\n");
        repo.write(
            "skills/uses/SKILL.md",
            "---\nname: uses\ndescription: d\nmetadata:\n  contracts:\n    - note\n---\nBody\n",
        );
        repo.write(
            "skills/stray/SKILL.md",
            format!("---\nname: stray\ndescription: d\n{stray}---\nBody\n"),
        );
        repo.write("vendor-manifest.yaml", table);
        repo
    };
    let clean = setup("contracts:\n  note:\n    source: local\n", "");
    let clean_gen = clean.run(&["gen"]);
    assert_eq!(clean_gen.code, 0, "{clean_gen:?}");
    assert_eq!(clean_gen.stderr, "");
    let repo = setup(
        "sorces: {}\ncontracts:\n  note:\n    source: local\n    pth: elsewhere.md\n",
        "contracts:\n  - note\n",
    );
    let warnings = "warning: vendor-manifest.yaml:1: unknown key \"sorces\"; did you mean \"sources\"?\n\
         warning: vendor-manifest.yaml:5: unknown key \"pth\" in contract \"note\"; did you mean \"path\"?\n\
         warning: skills/stray/SKILL.md:4: \"contracts\" at the top level of the frontmatter declares nothing; list the ids under metadata.contracts\n";
    // gen does exactly what it does without the slips, and says what it noticed on stderr.
    let gen_run = repo.run(&["gen"]);
    assert_eq!(gen_run.code, clean_gen.code, "{gen_run:?}");
    assert_eq!(gen_run.stdout, clean_gen.stdout);
    assert_eq!(gen_run.stderr, warnings);
    assert_eq!(
        repo.read_string("vendor-lock.json"),
        clean.read_string("vendor-lock.json")
    );
    let verify = repo.run(&["verify"]);
    assert_eq!((verify.code, verify.stdout.as_str()), (0, ""), "{verify:?}");
    assert_eq!(verify.stderr, warnings);
    // -q keeps stderr for refusals alone.
    assert_eq!(repo.run(&["verify", "-q"]), ok(""));
    assert_eq!(repo.run(&["--quiet", "gen"]), ok(""));
    let validate = repo.run(&["skill", "validate"]);
    assert_run_snapshot!("validate_of_a_stray_contracts_key", validate, repo);
}

/// A mistake on the command line gets clap's whole story (the missing names, a "did you mean",
/// the usage line) after the compatibility line, and ends naming the `--help` to read, which
/// this test then runs.
#[test]
fn argument_errors_say_everything_and_point_at_a_help_that_works() {
    let rows: [(&[&str], &[&str]); 4] = [
        (
            &["gne"],
            &[
                "error: unknown command: gne",
                "  tip: a similar command exists: 'gen'",
                "Usage: agentic-skill-vendor [OPTIONS] <COMMAND>",
                "run agentic-skill-vendor --help for the commands and options",
            ],
        ),
        (
            &["skill", "pul"],
            &[
                "error: unknown command: pul",
                "  tip: a similar subcommand exists: 'pull'",
                "Usage: agentic-skill-vendor skill [OPTIONS] <COMMAND>",
                "run agentic-skill-vendor skill --help for its arguments and options",
            ],
        ),
        (
            &["skill", "add"],
            &[
                "error: the following required arguments were not provided:",
                "  <REPOSITORY>",
                // The path is optional since issue 31 §1: without it the skills are found.
                "Usage: agentic-skill-vendor skill add <REPOSITORY> [PATH]",
                "run agentic-skill-vendor skill add --help for its arguments and options",
            ],
        ),
        (
            &["skill", "install", "x.zip", "--scope", "user"],
            &[
                "error: the following required arguments were not provided:",
                "  --target <TARGET>",
                "Usage: agentic-skill-vendor skill install --target <TARGET> --scope <SCOPE> <INPUT>",
                "run agentic-skill-vendor skill install --help for its arguments and options",
            ],
        ),
    ];
    for (argv, want) in rows {
        let run = run_bin(&args(argv), None);
        assert_eq!(run.code, 2, "{argv:?}: {run:?}");
        assert_eq!(run.stdout, "", "{argv:?}");
        assert_eq!(run.stderr, format!("{}\n", want.join("\n")), "{argv:?}");
        // The step it names works.
        let hint = want.last().unwrap();
        let help: Vec<&str> = hint
            .strip_prefix("run agentic-skill-vendor ")
            .unwrap()
            .split(" for ")
            .next()
            .unwrap()
            .split(' ')
            .collect();
        let helped = run_bin(&args(&help), None);
        assert_eq!(helped.code, 0, "{help:?}: {helped:?}");
        assert!(
            helped.stdout.contains("Usage: agentic-skill-vendor"),
            "{helped:?}"
        );
    }
}

#[test]
fn gen_dry_run_shows_the_plan_and_writes_nothing() {
    let repo = Repo::demo();
    assert_eq!(repo.run(&["gen", "--dry-run"]), ok(""));
    repo.write(
        "contracts/changelog-entry.md",
        "Write plainly, and briefly.\n",
    );
    std::fs::remove_file(repo.join("vendor-lock.json")).unwrap();
    let before = repo.snapshot();
    let planned = repo.run(&["gen", "--dry-run"]);
    assert_eq!(planned.code, 0, "{planned:?}");
    assert_eq!(repo.snapshot(), before, "a dry run writes nothing");
    assert!(
        planned.stdout.ends_with("plan: create vendor-lock.json\n"),
        "{planned:?}"
    );
    // Every path it names is one gen then changes, and gen changes no other.
    let lines: Vec<&str> = planned.stdout.lines().collect();
    assert!(lines.len() >= 2, "{planned:?}");
    let gen_run = repo.run(&["gen"]);
    assert_eq!(gen_run.code, 0, "{gen_run:?}");
    let after = repo.snapshot();
    let mut changed: Vec<String> = after
        .iter()
        .filter(|(path, bytes)| before.get(*path) != Some(*bytes))
        .map(|(path, _)| path.clone())
        .collect();
    changed.sort();
    let mut named: Vec<String> = lines
        .iter()
        .map(|l| l.rsplit(' ').next().unwrap().to_owned())
        .collect();
    named.sort();
    assert_eq!(named, changed);
    // A closure stops the dry run as it stops gen.
    repo.write(
        "skills/needs/SKILL.md",
        "---\nname: needs\ndescription: d\nmetadata:\n  contracts:\n    - nowhere\n---\nB\n",
    );
    let stopped = repo.run(&["gen", "--dry-run"]);
    assert_eq!(stopped.code, 1, "{stopped:?}");
    assert!(stopped.stdout.starts_with("closure: "), "{stopped:?}");
}

/// A skill that breaks the rules is refused with English counts and a remedy that fits where
/// the skill came from: the user's own files for pack.
#[test]
fn an_invalid_skill_is_refused_with_a_remedy_that_fits() {
    let repo = Repo::empty();
    repo.write(
        "skills/Bad_Name/SKILL.md",
        "---\nname: Bad_Name\n---\nBody\n",
    );
    let run = repo.run(&["skill", "pack", "skills/Bad_Name", "-o", "out.zip"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.ends_with(
            " (and 1 more error); nothing was written — fix the skill (skill validate lists every finding) and run the command again\n"
        ),
        "{run:?}"
    );
    assert!(!repo.exists("out.zip"));
    // The step it names works: skill validate lists both.
    let listed = repo.run(&["skill", "validate", "skills/Bad_Name"]);
    assert_eq!(listed.code, 1, "{listed:?}");
    assert_eq!(
        listed
            .stdout
            .lines()
            .filter(|l| l.starts_with("error: "))
            .count(),
        2,
        "{listed:?}"
    );
}

/// An emptied table leaves a raw contract without its row: the refusal says so instead of
/// naming a row that is not there. (A file with no document at all is refused before that,
/// issue 29 §6: `refusals.rs`.)
#[test]
fn an_emptied_table_is_named_as_missing_rows() {
    let repo = Repo::demo();
    repo.write("vendor-manifest.yaml", "contracts:\n");
    let run = repo.run(&["verify"]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(
        run.stderr.contains(" has no row in vendor-manifest.yaml, so it reads as a document contract, but vendor-lock.json resolves it as raw-byte; put its files row back"),
        "{run:?}"
    );
}

#[test]
fn skill_pull_dry_run_says_what_a_pull_would_do_and_writes_nothing() {
    let repo = Repo::empty();
    let upstream_src = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/upstream-skills/skills/summarize/SKILL.md");
    let skill_md = std::fs::read_to_string(upstream_src).unwrap();
    repo.write("up/skills/summarize/SKILL.md", &skill_md);
    repo.write("team/skills/.keep", "");
    let team = |a: &[&str]| in_dir(&repo, "team", a);
    let added = team(&["skill", "add", "../up", "skills/summarize"]);
    assert_eq!(added.code, 0, "{added:?}");
    // Upstream moves on, and the local copy has an edit of its own.
    repo.write(
        "up/skills/summarize/SKILL.md",
        format!("{skill_md}\nUpstream's new closing line.\n"),
    );
    let local = repo.read_string("team/skills/summarize/SKILL.md");
    let body = local.find("\n---\n").unwrap() + "\n---\n".len();
    repo.write(
        "team/skills/summarize/SKILL.md",
        format!(
            "{}A local opening line.\n{}",
            &local[..body],
            &local[body..]
        ),
    );
    let before = repo.snapshot();
    let planned = team(&["skill", "pull", "--dry-run"]);
    assert_eq!(planned.code, 0, "{planned:?}");
    assert!(
        planned.stdout.starts_with("summarize: updated ")
            && planned.stdout.ends_with(" (local edits kept)\n"),
        "{planned:?}"
    );
    assert_eq!(
        planned.stderr,
        "warning: dry run: the lines say what a pull would do; nothing was written\n"
    );
    assert_eq!(repo.snapshot(), before, "a dry run writes nothing");
    // The pull itself does what the dry run said.
    let pulled = team(&["skill", "pull"]);
    assert_eq!(
        (pulled.code, pulled.stdout.as_str()),
        (0, planned.stdout.as_str()),
        "{pulled:?}"
    );
    assert_ne!(repo.snapshot(), before);
}

/// gen puts a hand-edited copy back, as the TypeScript tool does (stdout unchanged), and says
/// so on stderr, naming the copy.
#[test]
fn gen_says_which_hand_edited_copies_it_put_back() {
    let repo = Repo::demo();
    let copy = "skills/release-notes/references/vendor/changelog-entry.md";
    let original = repo.read_string(copy);
    repo.write(copy, format!("{original}My own extra line.\n"));
    let run = repo.run(&["gen"]);
    assert_eq!(
        run,
        Run {
            code: 0,
            stdout: String::new(),
            stderr: format!(
                "warning: {copy}: put back — it was edited by hand; a copy is written from its canonical text, so edit that instead\n"
            ),
        }
    );
    assert_eq!(repo.read_string(copy), original);
    assert_eq!(repo.run(&["gen"]), ok(""));
}

/// Issue 29 §6: the switch-over steps uninstall the TypeScript tool by its npm name,
/// `@ba0918-dev/agentic-skill-vendor` (its `package.json`), in both places that give them.
#[test]
fn the_switch_over_steps_uninstall_the_typescript_package_by_its_name() {
    for page in ["../../README.md", "../../packaging/npm/README.md"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(page);
        let text = std::fs::read_to_string(&path).unwrap();
        let uninstalls: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("npm uninstall "))
            .collect();
        assert_eq!(
            uninstalls,
            ["npm uninstall @ba0918-dev/agentic-skill-vendor"],
            "{page}"
        );
    }
}
