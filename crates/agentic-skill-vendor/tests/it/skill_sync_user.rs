//! `skill sync --scope user` on the real binary, with `HOME` and `XDG_CONFIG_HOME` pointed at
//! temporary directories: the user state directory's skills (one taken from a source, one the
//! user's own) mirrored into two agents' user directories, a second sync with nothing to do,
//! removal, and the refusals: a user directory that is a link out, no user intent, and an
//! agent's directory a variable moves outside `HOME`.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use crate::common::{Repo, Run, assert_run_snapshot, run_bin_env};

const PDF: &str = "---\nname: pdf\ndescription: Reads PDF files.\n---\n# PDF\n";
const OWN: &str = "---\nname: own\ndescription: My own skill.\n---\nmine\n";

/// The user state directory, relative to the home directory (`XDG_CONFIG_HOME` is
/// `<home>/.cfg`).
const STATE: &str = ".cfg/agentic-skill-vendor";

/// A home directory, and an upstream directory holding `skills/pdf`.
struct User {
    home: Repo,
    up: Repo,
}

impl User {
    /// A user whose intent takes pdf from the upstream and mirrors into `targets`, with a
    /// skill of their own in the state directory.
    fn new(targets: &str) -> Self {
        let up = Repo::empty();
        up.write("skills/pdf/SKILL.md", PDF);
        let home = Repo::empty();
        home.write(&format!("{STATE}/skills/own/SKILL.md"), OWN);
        let user = User { home, up };
        user.want(targets, true);
        user
    }

    /// Writes the user intent: `targets`, and pdf unless `pdf` is false.
    fn want(&self, targets: &str, pdf: bool) {
        let source = self.up.path().display().to_string();
        let skills = if pdf {
            format!("skills:\n  pdf:\n    source: {source}\n    path: skills/pdf\n")
        } else {
            "skills: {}\n".to_owned()
        };
        self.home.write(
            &format!("{STATE}/vendor-skills.yaml"),
            format!("targets: [{targets}]\n{skills}"),
        );
    }

    /// `skill sync --scope user <args…>`, run from the home directory, with `env` beside
    /// `HOME` and `XDG_CONFIG_HOME`.
    fn sync_with(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let home = self.home.path().display().to_string();
        let xdg = self.home.join(".cfg").display().to_string();
        let mut all: Vec<(&str, &str)> = vec![("HOME", &home), ("XDG_CONFIG_HOME", &xdg)];
        all.extend(env.iter().copied());
        let mut argv: Vec<String> = ["skill", "sync", "--scope", "user"]
            .iter()
            .map(|a| (*a).to_owned())
            .collect();
        argv.extend(args.iter().map(|a| (*a).to_owned()));
        run_bin_env(&argv, None, Some(self.home.path()), &all)
    }

    fn sync(&self, args: &[&str]) -> Run {
        self.sync_with(args, &[])
    }

    /// Every file under the home directory but the tool's own working directories, with its
    /// bytes: what a run left.
    fn files(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        walk(self.home.path(), "", &mut out);
        out.retain(|(p, _)| !p.split('/').any(|s| s == ".agentic-skill-vendor"));
        out
    }
}

fn walk(base: &std::path::Path, rel: &str, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(base.join(rel))
        .unwrap()
        .map(|e| e.unwrap())
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        let path = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        let kind = e.file_type().unwrap();
        if kind.is_dir() {
            walk(base, &path, out);
        } else if kind.is_symlink() {
            let to = std::fs::read_link(e.path()).unwrap();
            out.push((path, format!("-> {}", to.display())));
        } else {
            out.push((path.clone(), std::fs::read_to_string(e.path()).unwrap()));
        }
    }
}

#[test]
fn sync_mirrors_the_user_state_into_two_agents_then_nothing_then_removes() {
    let user = User::new("claude, goose");
    let before = user.files();
    // A dry run says what it would do and writes nothing.
    let dry = user.sync(&["--dry-run"]);
    assert_eq!(dry.code, 0, "{dry:?}");
    assert_eq!(user.files(), before);

    let run = user.sync(&[]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(run.stdout, dry.stdout);
    assert_run_snapshot!("user_sync_first", run, user.home);
    for dir in [".claude/skills", ".cfg/goose/skills"] {
        assert_eq!(user.home.read_string(&format!("{dir}/pdf/SKILL.md")), PDF);
        assert_eq!(user.home.read_string(&format!("{dir}/own/SKILL.md")), OWN);
    }
    assert_eq!(
        user.home
            .read_string(&format!("{STATE}/skills/pdf/SKILL.md")),
        PDF
    );
    // The home directory is the tree written in, never a repository: no skills/, no lock,
    // no intent of its own.
    for never in ["skills", "vendor-skills-lock.json", "vendor-skills.yaml"] {
        assert!(!user.home.exists(never), "{never}");
    }
    let lock = user
        .home
        .read_string(&format!("{STATE}/vendor-skills-lock.json"));
    assert!(lock.contains("\"projections\""), "{lock}");
    assert!(lock.contains("\".claude/skills\""), "{lock}");
    assert!(lock.contains("\".cfg/goose/skills\""), "{lock}");

    // The user directory's list reads the user lock: what sync placed, and what changed since.
    user.home.write(".claude/skills/own/extra.md", "mine too\n");
    let home = user.home.path().display().to_string();
    let xdg = user.home.join(".cfg").display().to_string();
    let list = run_bin_env(
        &["skill", "list", "--target", "claude", "--scope", "user"].map(str::to_owned),
        None,
        Some(user.home.path()),
        &[("HOME", &home), ("XDG_CONFIG_HOME", &xdg)],
    );
    assert_run_snapshot!("user_list", list, user.home);
    user.home.remove(".claude/skills/own/extra.md");

    // Nothing to change: nothing said, nothing written.
    let placed = user.files();
    let again = user.sync(&[]);
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!((again.stdout.as_str(), again.stderr.as_str()), ("", ""));
    assert_eq!(user.files(), placed);

    // The user drops pdf from the intent and deletes their own skill: both go from every
    // agent's directory, and from the lock's record.
    user.want("claude, goose", false);
    user.home.remove(&format!("{STATE}/skills/own"));
    let run = user.sync(&[]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_run_snapshot!("user_sync_removes", run, user.home);
    for dir in [".claude/skills", ".cfg/goose/skills"] {
        assert!(!user.home.exists(&format!("{dir}/pdf")), "{dir}");
        assert!(!user.home.exists(&format!("{dir}/own")), "{dir}");
    }
    let lock = user
        .home
        .read_string(&format!("{STATE}/vendor-skills-lock.json"));
    assert!(!lock.contains("projections"), "{lock}");
}

#[test]
fn a_copy_edited_in_a_user_directory_is_refused_and_nothing_is_written() {
    let user = User::new("claude, goose");
    assert_eq!(user.sync(&[]).code, 0);
    user.home.write(".claude/skills/own/SKILL.md", "edited\n");
    user.home.write(
        &format!("{STATE}/skills/own/SKILL.md"),
        OWN.replace("mine", "new"),
    );
    let before = user.files();
    let run = user.sync(&[]);
    assert_run_snapshot!("user_sync_edited_copy", run, user.home);
    assert_eq!(user.files(), before);
    // --force replaces it, as in a project.
    let run = user.sync(&["--force"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        user.home.read_string(".claude/skills/own/SKILL.md"),
        OWN.replace("mine", "new")
    );
}

#[test]
fn a_user_directory_that_links_out_is_refused_as_in_a_project() {
    let user = User::new("goose, claude");
    let outside = Repo::empty();
    outside.write("keep", "");
    user.home.write(".claude/.keep", "");
    std::os::unix::fs::symlink(outside.path(), user.home.join(".claude/skills")).unwrap();
    let before = user.files();
    let run = user.sync(&[]);
    assert_run_snapshot!("user_sync_linked_dir", run, user.home);
    // Nothing anywhere: not through the link, not in goose's directory, not in the state.
    assert_eq!(user.files(), before);
    assert!(!outside.exists("own"));
    assert!(!user.home.exists(&format!("{STATE}/skills/pdf")));

    // A link on the way (the agent's own directory) is refused too.
    user.home.remove(".claude");
    std::os::unix::fs::symlink(outside.path(), user.home.join(".claude")).unwrap();
    let run = user.sync(&[]);
    assert_eq!(run.code, 2, "{run:?}");
    assert!(!outside.exists("skills"));
    assert!(!user.home.exists(".cfg/goose/skills"));
}

#[test]
fn user_sync_refusals_name_the_file_and_what_to_do() {
    // No intent at all.
    let none_home = User::new("claude");
    none_home
        .home
        .remove(&format!("{STATE}/vendor-skills.yaml"));
    let none = none_home.sync(&[]);
    // A variable that moves an agent's directory outside HOME.
    let user = User::new("claude");
    let elsewhere = Repo::empty();
    let elsewhere_s = elsewhere.path().display().to_string();
    let outside = user.sync_with(&[], &[("CLAUDE_CONFIG_DIR", &elsewhere_s)]);
    assert!(!elsewhere.exists("skills"));
    assert!(!user.home.exists(".claude"));
    // Each run's home directory is its [ROOT].
    let text = format!(
        "{}{}",
        asv_test_support::snapshot::labelled("no intent", &none, none_home.home.path()),
        asv_test_support::snapshot::labelled(
            "claude moved outside HOME",
            &outside,
            user.home.path()
        ),
    )
    .replace(&elsewhere_s, "[ELSEWHERE]");
    assert_run_snapshot!(text: "user_sync_refusals", text);
}

#[test]
fn the_state_directory_may_lie_outside_home() {
    // XDG_CONFIG_HOME elsewhere: the state is read there, the copies still go under HOME.
    let user = User::new("claude");
    let config = Repo::empty();
    config.write(
        "agentic-skill-vendor/vendor-skills.yaml",
        user.home
            .read_string(&format!("{STATE}/vendor-skills.yaml")),
    );
    config.write("agentic-skill-vendor/skills/own/SKILL.md", OWN);
    let config_s = config.path().display().to_string();
    let run = user.sync_with(&[], &[("XDG_CONFIG_HOME", &config_s)]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(user.home.read_string(".claude/skills/own/SKILL.md"), OWN);
    assert_eq!(user.home.read_string(".claude/skills/pdf/SKILL.md"), PDF);
    assert!(config.exists("agentic-skill-vendor/vendor-skills-lock.json"));
    assert!(
        !user
            .home
            .exists(&format!("{STATE}/vendor-skills-lock.json"))
    );
}

/// The files of a user's home directory with the upstream's path made `[UP]`: the same for two
/// users given the same intent.
fn normalized(user: &User) -> Vec<(String, String)> {
    let up = user.up.path().display().to_string();
    user.files()
        .into_iter()
        .map(|(p, bytes)| (p, bytes.replace(&up, "[UP]")))
        .collect()
}

/// A user sync is three changes of two trees: killed before any file system call of any of
/// them (a real SIGKILL, `ASV_TEST_KILL_AT_CALL`), then run again, it ends as one
/// uninterrupted run ends, every file the same.
#[test]
fn a_user_sync_killed_anywhere_then_run_again_ends_as_one_run() {
    let clean = User::new("claude, goose");
    let run = clean.sync(&[]);
    assert_eq!(run.code, 0, "{run:?}");
    let after = normalized(&clean);
    let mut killed_runs = 0;
    for n in 0.. {
        assert!(n < 2_000, "the run never ends");
        let user = User::new("claude, goose");
        let at = n.to_string();
        let first = user.sync_with(&[], &[("ASV_TEST_KILL_AT_CALL", &at)]);
        // A signal shows as no exit code (-1 here).
        if first.code != -1 {
            assert_eq!(first.code, 0, "at {n}: {first:?}");
            assert_eq!(normalized(&user), after, "at {n}");
            break;
        }
        killed_runs += 1;
        let again = user.sync(&[]);
        assert_eq!(again.code, 0, "killed at {n}, then: {again:?}");
        assert_eq!(normalized(&user), after, "killed at {n}, then run again");
    }
    // The kill must have cut each of the three changes, not only the first.
    assert!(killed_runs > 20, "{killed_runs}");
}
