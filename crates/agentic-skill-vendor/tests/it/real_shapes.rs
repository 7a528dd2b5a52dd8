//! Skills shaped as the best-known public repositories hold them, which the Agent Skills
//! specification forbids but agents load: a description over 1,024 characters (anthropics/skills'
//! `claude-api`), a `name:` that differs from its directory (vercel-labs/agent-skills),
//! Claude Code's own frontmatter keys, metadata values that are not text, an empty
//! `compatibility`. The commands that take content from elsewhere take them with a warning
//! naming the skill and the rule; `skill validate`, for authors, keeps every rule an error.

use crate::common::{Repo, assert_run_snapshot};

fn source(up: &Repo) -> String {
    up.path().display().to_string()
}

/// A `SKILL.md` named `name` with a description and the extra frontmatter lines given.
fn md(name: &str, description: &str, extra: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n{extra}---\n\n# {name}\n\nBody\n")
}

/// An upstream of the shapes real repositories have, every one of them loadable by agents.
fn real_upstream() -> Repo {
    let up = Repo::empty();
    // anthropics/skills: claude-api's description is 1,068 characters.
    up.write(
        "skills/claude-api/SKILL.md",
        md("claude-api", &"x".repeat(1068), ""),
    );
    // vercel-labs/agent-skills: the name is the directory's with a prefix.
    up.write(
        "skills/composition-patterns/SKILL.md",
        md("vercel-composition-patterns", "Patterns.", ""),
    );
    // Claude Code's keys beside the specification's, and metadata that is not all text.
    up.write(
        "skills/review/SKILL.md",
        md(
            "review",
            "Reviews code.",
            "argument-hint: \"[file]\"\ndisable-model-invocation: true\nmetadata:\n  version: 2\ncompatibility: \"\"\n",
        ),
    );
    up
}

#[test]
fn add_all_takes_what_agents_load_and_warns() {
    let up = real_upstream();
    let me = Repo::empty();
    let out = me.run(&["skill", "add", &source(&up), "skills", "--all"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_run_snapshot!("real_shapes_add_all", out, me);
    for name in ["claude-api", "vercel-composition-patterns", "review"] {
        assert!(me.exists(&format!("skills/{name}/SKILL.md")), "{name}");
    }
    // The upstream path stays the directory's, the local name is the skill's own.
    let intent = me.read_string("vendor-skills.yaml");
    assert!(
        intent.contains("  vercel-composition-patterns:\n")
            && intent.contains("    path: skills/composition-patterns\n"),
        "{intent}"
    );
    // What was taken verifies, and reads as clean.
    let verify = me.run(&["skill", "verify"]);
    assert_eq!(verify.code, 0, "{verify:?}");
    let status = me.run(&["skill", "status"]);
    assert_run_snapshot!("real_shapes_status", status, me);
    // The author's rules still say every one.
    let validate = me.run(&["skill", "validate", "skills/claude-api", "skills/review"]);
    assert_run_snapshot!("real_shapes_validate", validate, me);
}

#[test]
fn one_add_and_install_name_a_skill_as_add_all_does() {
    let up = real_upstream();
    let me = Repo::empty();
    let out = me.run(&["skill", "add", &source(&up), "skills/composition-patterns"]);
    assert_run_snapshot!("real_shapes_named_by_manifest", out, me);
    assert!(me.exists("skills/vercel-composition-patterns/SKILL.md"));
    // --name still wins, and says nothing more.
    let other = Repo::empty();
    let out = other.run(&[
        "skill",
        "add",
        &source(&up),
        "skills/composition-patterns",
        "--name",
        "patterns",
    ]);
    // Not "named by": --name names it.
    assert_run_snapshot!("real_shapes_named_by_the_flag", out, other);
    assert!(other.exists("skills/patterns/SKILL.md"));
    // install names it by the same rule.
    let dest = Repo::empty();
    let input = up.join("skills");
    let out = dest.run(&[
        "skill",
        "install",
        input.to_str().expect("utf-8"),
        "--into",
        ".claude/skills",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(dest.exists(".claude/skills/vercel-composition-patterns/SKILL.md"));
    assert!(dest.exists(".claude/skills/claude-api/SKILL.md"));
}

#[test]
fn a_name_that_is_no_skill_name_falls_back_to_the_directory() {
    let up = Repo::empty();
    up.write(
        "skills/pdf-tools/SKILL.md",
        md("PDF Tools", "Reads PDFs.", ""),
    );
    up.write(
        "skills/Bad_Dir/SKILL.md",
        md("Also Bad", "Nothing usable.", ""),
    );
    let me = Repo::empty();
    let out = me.run(&["skill", "add", &source(&up), "skills/pdf-tools"]);
    assert_run_snapshot!("real_shapes_named_after_directory", out, me);
    assert!(me.exists("skills/pdf-tools/SKILL.md"));
    // Neither the manifest nor the directory gives a name: refused, saying both.
    let before = me.snapshot();
    let out = me.run(&["skill", "add", &source(&up), "skills/Bad_Dir"]);
    assert_run_snapshot!("real_shapes_unnamed", out, me);
    assert_eq!(me.snapshot(), before);
    let out = me.run(&[
        "skill",
        "add",
        &source(&up),
        "skills/Bad_Dir",
        "--name",
        "fine",
    ]);
    assert_eq!(out.code, 0, "{out:?}");
}

#[test]
fn an_invalid_upstream_update_is_taken_with_warnings_and_a_conflict_on_it_resolves() {
    let up = Repo::empty();
    let skill = "skills/claude-api/SKILL.md";
    up.write(skill, md("claude-api", "Short.", ""));
    let me = Repo::empty();
    let out = me.run(&["skill", "add", &source(&up), "skills/claude-api"]);
    assert_eq!(out.code, 0, "{out:?}");
    // Upstream grows the description past the limit: the pull takes it, warning.
    let long = "y".repeat(1100);
    up.write(skill, md("claude-api", &long, ""));
    let out = me.run(&["skill", "pull"]);
    assert_run_snapshot!("real_shapes_invalid_update_taken", out, me);
    // Both sides change the description: the conflict written, resolved with upstream's
    // (still too long) text, is accepted.
    let local = me
        .read_string(skill)
        .replace(&long, &format!("{long} mine"));
    me.write(skill, &local);
    up.write(skill, md("claude-api", &format!("{long} theirs"), ""));
    let out = me.run(&["skill", "pull", "--write-conflicts"]);
    assert_eq!(out.code, 1, "{out:?}");
    me.write(skill, md("claude-api", &format!("{long} theirs"), ""));
    let out = me.run(&["skill", "resolve", "claude-api"]);
    assert_eq!(out.code, 0, "{out:?}");
    let status = me.run(&["skill", "status"]);
    assert!(
        status.stdout.starts_with("claude-api: clean"),
        "{}",
        status.stdout
    );
}

#[test]
fn what_breaks_an_agent_is_still_refused_listing_every_skill() {
    let up = real_upstream();
    up.write("skills/no-name/SKILL.md", "---\ndescription: d\n---\n");
    up.write("skills/not-yaml/SKILL.md", "---\nname: [\n---\n");
    up.write("skills/no-frontmatter/SKILL.md", "# just text\n");
    let me = Repo::empty();
    let before = me.snapshot();
    let out = me.run(&["skill", "add", &source(&up), "skills", "--all"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert_eq!(me.snapshot(), before);
    assert_run_snapshot!("real_shapes_refused", out, me);
}
