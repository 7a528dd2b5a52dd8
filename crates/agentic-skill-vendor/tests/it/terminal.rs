//! What only a person at a terminal gets: colour (`--color`, `NO_COLOR`) on the labels of
//! stderr, the states of `skill status` and the lines of `skill diff`, and the one-line summary
//! after a clean `verify`, `gen` or `skill validate` — and that none of it reaches a pipe, a file
//! or stdout, where every byte stays what it was.

use crate::common::{Repo, Run, assert_run_snapshot, run_bin_env, run_in_terminal, strip_colour};
use asv_test_support::snapshot::labelled;

const ESC: &str = "\u{1b}[";

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| (*s).to_owned()).collect()
}

/// A repository `team/` with the example skill `summarize` imported from `up/` (a local
/// directory) and edited locally, so `skill status` says `modified` and `skill diff` has a
/// hunk.
fn edited_import() -> Repo {
    let repo = Repo::empty();
    let upstream = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/upstream-skills/skills/summarize/SKILL.md");
    let skill_md = std::fs::read_to_string(upstream).expect("the example skill");
    repo.write("up/skills/summarize/SKILL.md", &skill_md);
    repo.write("team/skills/.keep", "");
    let added = team(&repo, &["skill", "add", "../up", "skills/summarize"], &[]);
    assert_eq!(added.code, 0, "{added:?}");
    let local = repo.read_string("team/skills/summarize/SKILL.md");
    repo.write(
        "team/skills/summarize/SKILL.md",
        format!("{local}A local closing line.\n"),
    );
    repo
}

/// Runs the binary in `team/` of `repo`, stdout and stderr piped, with `env` set.
fn team(repo: &Repo, a: &[&str], env: &[(&str, &str)]) -> Run {
    run_bin_env(&args(a), None, Some(&repo.join("team")), env)
}

#[test]
fn color_always_paints_and_the_plain_bytes_stay_underneath() {
    let repo = edited_import();
    // Each command piped (auto: no colour) and with `always`, in one snapshot: the escapes
    // show as `␛`, so what is painted, and in which colour, is asserted whole.
    let mut runs = String::new();
    for command in [&["skill", "status"][..], &["skill", "diff", "summarize"]] {
        let plain = team(&repo, command, &[]);
        runs.push_str(&labelled(&command.join(" "), &plain, repo.path()));
        let never = team(&repo, &[command, &["--color", "never"]].concat(), &[]);
        assert_eq!(never, plain, "--color never is byte-identical");
        // `always` wins over NO_COLOR, into a pipe too.
        let always = team(
            &repo,
            &[command, &["--color=always"]].concat(),
            &[("NO_COLOR", "1")],
        );
        let label = format!("NO_COLOR=1 {} --color=always", command.join(" "));
        runs.push_str(&labelled(&label, &always, repo.path()));
        assert_eq!(strip_colour(&always.stdout), plain.stdout, "{command:?}");
    }
    assert_run_snapshot!(text: "piped_and_always", runs);
    // Before the command as after it.
    let status = team(&repo, &["--color", "always", "skill", "status"], &[]);
    assert_eq!(
        status.stdout,
        format!("summarize: {ESC}33mmodified{ESC}0m\n"),
        "{status:?}"
    );
    // clap's own help follows --color too.
    let help = team(&repo, &["--color", "always", "gen", "-h"], &[]);
    assert!(help.stdout.contains(ESC), "{help:?}");
    assert_eq!(
        strip_colour(&help.stdout),
        team(&repo, &["gen", "-h"], &[]).stdout
    );
    // Other formats are for machines and are never painted.
    let json = team(
        &repo,
        &[
            "skill",
            "diff",
            "summarize",
            "--color",
            "always",
            "--format",
            "json",
        ],
        &[],
    );
    assert_run_snapshot!("diff_json_with_color_always", json, repo);
}

#[test]
fn labels_on_stderr_are_painted_only_when_asked() {
    let repo = edited_import();
    let missing = repo.join("no-such-dir").display().to_string();
    // (arguments, the label that opens stderr)
    let rows: [(Vec<&str>, &str); 3] = [
        (vec!["skill", "pull", "--dry-run"], "warning"),
        (vec!["verify", "--root", &missing], "error"),
        (vec!["gne"], "error"),
    ];
    // Each row piped and with `always`, in one snapshot (escapes shown as `␛`).
    let mut runs = String::new();
    for (argv, label) in rows {
        let plain = team(&repo, &argv, &[]);
        runs.push_str(&labelled(&argv.join(" "), &plain, repo.path()));
        assert!(plain.stderr.starts_with(&format!("{label}: ")), "{plain:?}");
        let never = team(&repo, &[&argv[..], &["--color", "never"]].concat(), &[]);
        assert_eq!(never, plain, "{argv:?}");
        let always = team(&repo, &[&["--color", "always"], &argv[..]].concat(), &[]);
        assert_eq!(always.code, plain.code, "{always:?}");
        assert_eq!(
            always.stdout, plain.stdout,
            "{argv:?}: stdout never changes"
        );
        let shown = format!("--color always {}", argv.join(" "));
        runs.push_str(&labelled(&shown, &always, repo.path()));
        assert_eq!(strip_colour(&always.stderr), plain.stderr, "{argv:?}");
    }
    assert_run_snapshot!(text: "labels_piped_and_always", runs);
}

#[test]
fn auto_paints_a_terminal_unless_no_color_says_not_to() {
    let repo = edited_import();
    let root = repo.join("team").display().to_string();
    let status = ["skill", "status", "--root", root.as_str()];
    let Some((code, shown)) = run_in_terminal(&status, "", &[("TERM", "xterm")]) else {
        eprintln!(
            "SKIPPED auto_paints_a_terminal_unless_no_color_says_not_to: no util-linux script"
        );
        return;
    };
    assert_eq!(code, 0, "{shown}");
    assert_eq!(shown, format!("summarize: {ESC}33mmodified{ESC}0m\n"));
    // NO_COLOR set to anything turns auto off; set empty it says nothing.
    let (_, shown) = run_in_terminal(&status, "", &[("NO_COLOR", "1")]).unwrap();
    assert_eq!(shown, "summarize: modified\n");
    let (_, shown) = run_in_terminal(&status, "", &[("NO_COLOR", "")]).unwrap();
    assert!(shown.contains(ESC), "{shown}");
    let never = [&status[..], &["--color", "never"]].concat();
    let (_, shown) = run_in_terminal(&never, "", &[]).unwrap();
    assert_eq!(shown, "summarize: modified\n");
    let (_, shown) = run_in_terminal(&status, "", &[("TERM", "dumb")]).unwrap();
    assert_eq!(shown, "summarize: modified\n");
    let (_, shown) = run_in_terminal(&["gen", "-h", "--color", "never"], "", &[]).unwrap();
    assert!(shown.contains("Usage: ") && !shown.contains(ESC), "{shown}");
    // stdout sent to a file while stderr stays on the terminal: the file gets no escapes.
    let out = tempfile::tempdir().unwrap();
    let file = out.path().join("stdout.txt");
    let redirect = format!("> {}", crate::common::sh_quote(&file.display().to_string()));
    let (_, shown) = run_in_terminal(&status, &redirect, &[]).unwrap();
    assert_eq!(shown, "");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "summarize: modified\n"
    );
}

#[test]
fn a_clean_run_on_a_terminal_ends_with_a_summary_on_stderr_alone() {
    let repo = Repo::demo();
    let root = repo.path().display().to_string();
    let out = tempfile::tempdir().unwrap();
    let stdout_file = out.path().join("stdout.txt");
    let stderr_file = out.path().join("stderr.txt");
    let to_file = |p: &std::path::Path| crate::common::sh_quote(&p.display().to_string());
    let stdout_away = format!("> {}", to_file(&stdout_file));
    let stderr_away = format!("2> {}", to_file(&stderr_file));
    let on_terminal = |command: &[&str], redirect: &str| {
        let argv = [command, &["--root", root.as_str()]].concat();
        run_in_terminal(&argv, redirect, &[])
    };
    let Some((code, shown)) = on_terminal(&["verify"], &stdout_away) else {
        eprintln!(
            "SKIPPED a_clean_run_on_a_terminal_ends_with_a_summary_on_stderr_alone: no util-linux script"
        );
        return;
    };
    assert_eq!(code, 0, "{shown}");
    assert_eq!(shown, "verify: 3 skills, 5 copies, 2 placements — clean\n");
    assert_eq!(
        std::fs::read_to_string(&stdout_file).unwrap(),
        "",
        "never on stdout"
    );
    let rows: [(&[&str], &str); 3] = [
        (
            &["gen"],
            "gen: 3 skills, 5 copies, 2 placements — up to date\n",
        ),
        (&["skill", "validate"], "skill validate: 3 skills — clean\n"),
        (&["verify", "-q"], ""),
    ];
    for (command, want) in rows {
        let (code, shown) = on_terminal(command, &stdout_away).unwrap();
        assert_eq!((code, shown.as_str()), (0, want), "{command:?}");
        // stderr into a file: no summary there, nor anywhere else.
        let (code, shown) = on_terminal(command, &stderr_away).unwrap();
        assert_eq!((code, shown.as_str()), (0, ""), "{command:?}");
        assert_eq!(
            std::fs::read_to_string(&stderr_file).unwrap(),
            "",
            "{command:?}"
        );
    }
    // A gen that writes says how much; a run with violations says nothing more than them.
    let mut text = repo.read_string("contracts/changelog-entry.md");
    text.push_str("\nOne more rule.\n");
    repo.write("contracts/changelog-entry.md", text);
    let (code, shown) = on_terminal(&["verify"], "").unwrap();
    assert_eq!(code, 1, "{shown}");
    assert!(!shown.contains("verify: "), "{shown}");
    let (code, shown) = on_terminal(&["gen"], &stdout_away).unwrap();
    assert_eq!(code, 0, "{shown}");
    assert!(
        shown.starts_with("gen: 3 skills, 5 copies, 2 placements — ")
            && shown.ends_with(" files written or removed\n"),
        "{shown}"
    );
}
