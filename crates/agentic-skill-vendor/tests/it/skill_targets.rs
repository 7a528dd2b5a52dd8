//! `skill install --target`: the agents table on the real binary — several agents in one
//! transaction, a shared directory written once, unknown names refused with the nearest ones,
//! and the variables that move an agent's user directory.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use asv_skills::targets::AGENTS;

use crate::common::{Repo, Run, assert_run_snapshot, run_bin_env};
use asv_test_support::snapshot::labelled;

fn skill_md(name: &str) -> String {
    format!("---\nname: {name}\ndescription: Does {name} things.\n---\n# {name}\n")
}

/// A repository with the skills `pdf` and `csv` under `skills/`.
fn repo() -> Repo {
    let repo = Repo::empty();
    repo.write("skills/pdf/SKILL.md", skill_md("pdf"));
    repo.write("skills/csv/SKILL.md", skill_md("csv"));
    repo
}

/// The stdout lines without their tree hashes (`installed: pdf -> .claude/skills/pdf`).
fn lines(run: &Run) -> Vec<String> {
    run.stdout
        .lines()
        .map(|l| l.split(" (sha256:").next().unwrap_or(l).to_owned())
        .collect()
}

/// `skill install <repo>/skills <args…> --root <repo>` with exactly the variables `env`.
fn install(repo: &Repo, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut all = vec![
        "skill".to_owned(),
        "install".to_owned(),
        repo.join("skills").display().to_string(),
    ];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    all.extend(["--root".to_owned(), repo.path().display().to_string()]);
    run_bin_env(&all, None, None, env)
}

#[test]
fn one_target_prints_what_it_always_printed() {
    let repo = repo();
    let run = install(&repo, &["--target", "claude"], &[]);
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        lines(&run),
        [
            "installed: csv -> .claude/skills/csv",
            "installed: pdf -> .claude/skills/pdf",
        ]
    );
    assert_eq!(run.stderr, "");
}

#[test]
fn several_targets_install_each_distinct_directory_once() {
    let repo = repo();
    // codex and agents share .agents/skills; claude is named twice
    let run = install(
        &repo,
        &["--target", "claude,codex", "--target", "agents,claude"],
        &[],
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        lines(&run),
        [
            "installed: csv -> .claude/skills/csv",
            "installed: pdf -> .claude/skills/pdf",
            "installed: csv -> .agents/skills/csv",
            "installed: pdf -> .agents/skills/pdf",
        ]
    );
    for dir in [".claude/skills", ".agents/skills"] {
        assert_eq!(
            repo.read_string(&format!("{dir}/pdf/SKILL.md")),
            skill_md("pdf")
        );
    }
    // a dry run plans every directory and writes nothing
    let fresh = self::repo();
    let dry = install(&fresh, &["--target", "gemini,cursor", "--dry-run"], &[]);
    assert_eq!(dry.code, 0, "{dry:?}");
    assert_eq!(
        lines(&dry),
        [
            "plan: create .cursor/skills/csv",
            "plan: create .cursor/skills/pdf",
            "plan: create .gemini/skills/csv",
            "plan: create .gemini/skills/pdf",
        ]
    );
    assert!(!fresh.exists(".cursor") && !fresh.exists(".gemini"));
}

#[test]
fn several_targets_are_all_or_nothing() {
    let repo = repo();
    repo.write(".cursor/skills/pdf/SKILL.md", skill_md("pdf"));
    let run = install(&repo, &["--target", "claude,cursor"], &[]);
    assert_run_snapshot!("install_into_a_taken_target", run, repo);
    assert!(!repo.exists(".claude"), "nothing of the other target lands");
}

#[test]
fn an_unknown_target_names_the_nearest_and_lists_all() {
    let repo = repo();
    // Every refusal in one snapshot, a row each: the nearest name, then every agent.
    let mut refusals = String::new();
    for typed in ["claud", "ocdex", "opencod"] {
        let target = format!("gemini,{typed}");
        let run = install(&repo, &["--target", &target], &[]);
        refusals.push_str(&labelled(&format!("--target {target}"), &run, repo.path()));
    }
    assert_run_snapshot!(text: "unknown_targets", refusals);
    assert!(!repo.exists(".gemini"));
}

#[test]
fn help_lists_every_target_with_its_directories() {
    let run = run_bin_env(
        &["skill".into(), "install".into(), "--help".into()],
        None,
        None,
        &[],
    );
    assert_run_snapshot!("install_help", run);
    // Beside the snapshot, each agent's line is checked against the table itself, so an agent
    // added to the table cannot be left out of the help.
    for a in AGENTS {
        let line = run
            .stdout
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("- {}:", a.name)))
            .unwrap_or_else(|| panic!("{} missing from help", a.name));
        assert!(line.contains(a.project), "{line}");
        assert!(line.contains(a.user), "{line}");
        if let Some(env) = a.env {
            assert!(
                line.contains(&format!("${}/{}", env.var, env.under)),
                "{line}"
            );
        }
    }
}

#[test]
fn user_scope_honours_the_agents_variable() {
    let repo = repo();
    let home = Repo::empty();
    let config = Repo::empty();
    let home_s = home.path().display().to_string();
    let config_s = config.path().display().to_string();
    // set: the skills go under the variable's directory, shown in full
    let run = install(
        &repo,
        &["--target", "claude", "--scope", "user"],
        &[("HOME", &home_s), ("CLAUDE_CONFIG_DIR", &config_s)],
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        lines(&run),
        [
            format!("installed: csv -> {config_s}/skills/csv"),
            format!("installed: pdf -> {config_s}/skills/pdf"),
        ]
    );
    assert!(config.exists("skills/pdf/SKILL.md"));
    assert!(!home.exists(".claude"));
    // empty: as if unset, under HOME
    let run = install(
        &repo,
        &["--target", "claude", "--scope", "user"],
        &[("HOME", &home_s), ("CLAUDE_CONFIG_DIR", "")],
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        lines(&run),
        [
            "installed: csv -> ~/.claude/skills/csv",
            "installed: pdf -> ~/.claude/skills/pdf",
        ]
    );
    // XDG_CONFIG_HOME moves the agents that live in ~/.config
    let xdg = Repo::empty();
    let xdg_s = xdg.path().display().to_string();
    let run = install(
        &repo,
        &["--target", "goose", "--scope", "user"],
        &[("HOME", &home_s), ("XDG_CONFIG_HOME", &xdg_s)],
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(xdg.exists("goose/skills/pdf/SKILL.md"));
    assert!(!home.exists(".config/goose"));
    // without the variable and without HOME there is nowhere to go
    let run = install(&repo, &["--target", "goose", "--scope", "user"], &[]);
    assert_run_snapshot!("install_for_a_user_without_home", run, repo);
    // with the variable, HOME is not needed
    let vibe = Repo::empty();
    let vibe_s = vibe.path().display().to_string();
    let run = install(
        &repo,
        &["--target", "vibe", "--scope", "user"],
        &[("VIBE_HOME", &vibe_s)],
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert!(vibe.exists("skills/csv/SKILL.md"));
}

#[test]
fn user_scope_with_a_moved_and_a_home_agent_is_one_transaction() {
    let repo = repo();
    let home = Repo::empty();
    home.write("elsewhere/.keep", "");
    let home_s = home.path().display().to_string();
    let config_s = home.join("elsewhere/claude").display().to_string();
    home.write("elsewhere/claude/.keep", "");
    // cursor's directory is taken: claude's must not land either
    home.write(".cursor/skills/csv/SKILL.md", skill_md("csv"));
    let env = [("HOME", home_s.as_str()), ("CLAUDE_CONFIG_DIR", &config_s)];
    let run = install(
        &repo,
        &["--target", "claude,cursor", "--scope", "user"],
        &env,
    );
    assert_eq!(run.code, 2, "{run:?}");
    assert!(!home.exists("elsewhere/claude/skills"));
    home.remove(".cursor");
    let run = install(
        &repo,
        &["--target", "claude,cursor", "--scope", "user"],
        &env,
    );
    assert_eq!(run.code, 0, "{run:?}");
    assert_eq!(
        lines(&run),
        [
            "installed: csv -> ~/elsewhere/claude/skills/csv",
            "installed: pdf -> ~/elsewhere/claude/skills/pdf",
            "installed: csv -> ~/.cursor/skills/csv",
            "installed: pdf -> ~/.cursor/skills/pdf",
        ]
    );
    assert!(home.exists("elsewhere/claude/skills/pdf/SKILL.md"));
    assert!(home.exists(".cursor/skills/pdf/SKILL.md"));
}
