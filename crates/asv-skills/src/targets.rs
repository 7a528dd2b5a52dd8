//! The agents `skill install --target` knows: one table, as data, of where each agent reads
//! Agent Skills in a project and in the user's home directory.
//!
//! The table drives `--target` (the names it accepts and the directories they install into),
//! the help that lists them and, through [`distinct_project_dirs`], any projection of one set
//! of skills into several agents' directories. Agents that share a directory (Codex, Amp and
//! the shared `.agents/skills` convention) share it here too, so a projection writes it once.
//! `docs/TARGETS.md` gives the source of every row and the choices made where sources
//! disagree.
//!
//! This crate reads no environment: [`Target::user_dir`] takes the home directory and a
//! lookup of environment variables from its caller.
//!
//! ```
//! use asv_skills::targets::{Target, distinct_project_dirs};
//! let claude = Target::from_name("claude").ok_or("no claude")?;
//! assert_eq!(claude.project_dir(), ".claude/skills");
//! let moved = claude.user_dir("/home/ann".as_ref(), |v| {
//!     (v == "CLAUDE_CONFIG_DIR").then(|| "/cfg/claude".into())
//! });
//! assert_eq!(moved, std::path::Path::new("/cfg/claude/skills"));
//! let codex = Target::from_name("codex").ok_or("no codex")?;
//! let agents = Target::from_name("agents").ok_or("no agents")?;
//! let dirs = distinct_project_dirs(&[codex, claude, agents]);
//! assert_eq!(dirs.len(), 2);
//! assert_eq!(dirs[0], (".agents/skills", vec![codex, agents]));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// An environment variable that moves an agent's user directory: set and non-empty, the
/// agent reads its skills from `$var/under` instead of the home directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnvBase {
    /// The variable's name (`CLAUDE_CONFIG_DIR`).
    pub var: &'static str,
    /// The skills directory relative to the variable's value (`skills`).
    pub under: &'static str,
}

/// One row of the table: an agent and where it reads skills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Agent {
    /// The name typed after `--target`.
    pub name: &'static str,
    /// The agent's own name, for people.
    pub display: &'static str,
    /// The project directory, relative to the repository root.
    pub project: &'static str,
    /// The user directory, relative to the home directory.
    pub user: &'static str,
    /// The variable that moves the user directory, where the agent has one. Its `under`
    /// is always the tail of `user`, so an unset variable and the home directory agree.
    pub env: Option<EnvBase>,
}

/// `$CLAUDE_CONFIG_DIR/skills`.
const CLAUDE_HOME: Option<EnvBase> = Some(EnvBase {
    var: "CLAUDE_CONFIG_DIR",
    under: "skills",
});

/// `$XDG_CONFIG_HOME/<under>`, for agents that keep their configuration in `~/.config`.
const fn xdg(under: &'static str) -> Option<EnvBase> {
    Some(EnvBase {
        var: "XDG_CONFIG_HOME",
        under,
    })
}

/// `$var/<under>`, for agents whose own variable names their home directory
/// (`$VIBE_HOME/skills`).
const fn home_var(var: &'static str, under: &'static str) -> Option<EnvBase> {
    Some(EnvBase { var, under })
}

/// Builds a row (keeps the table one line of meaning per agent).
const fn row(
    name: &'static str,
    display: &'static str,
    project: &'static str,
    user: &'static str,
    env: Option<EnvBase>,
) -> Agent {
    Agent {
        name,
        display,
        project,
        user,
        env,
    }
}

/// Every agent, in the order help lists them: the seven `--target` first knew, then the
/// others by name. Sources and choices: `docs/TARGETS.md`. A row is never renamed nor moved
/// to another directory once published: users' `vendor-skills.yaml` names rows, and the lock
/// records the directories they placed copies in.
pub const AGENTS: &[Agent] = &[
    row(
        "claude",
        "Claude Code",
        ".claude/skills",
        ".claude/skills",
        CLAUDE_HOME,
    ),
    // Codex's current docs name `.agents/skills` for both scopes; `$CODEX_HOME/skills` is
    // the older user location (docs/TARGETS.md says why we follow the current one).
    row("codex", "Codex", ".agents/skills", ".agents/skills", None),
    row(
        "copilot",
        "GitHub Copilot",
        ".github/skills",
        ".copilot/skills",
        None,
    ),
    row(
        "gemini",
        "Gemini CLI",
        ".gemini/skills",
        ".gemini/skills",
        None,
    ),
    row("cursor", "Cursor", ".cursor/skills", ".cursor/skills", None),
    row(
        "windsurf",
        "Windsurf",
        ".windsurf/skills",
        ".codeium/windsurf/skills",
        None,
    ),
    row(
        "agents",
        "the shared .agents convention",
        ".agents/skills",
        ".agents/skills",
        None,
    ),
    row("adal", "AdaL", ".adal/skills", ".adal/skills", None),
    row(
        "aider-desk",
        "AiderDesk",
        ".aider-desk/skills",
        ".aider-desk/skills",
        None,
    ),
    row(
        "amp",
        "Amp",
        ".agents/skills",
        ".config/agents/skills",
        xdg("agents/skills"),
    ),
    row(
        "antigravity",
        "Antigravity",
        ".agents/skills",
        ".gemini/antigravity/skills",
        None,
    ),
    row(
        "antigravity-cli",
        "Antigravity CLI",
        ".agents/skills",
        ".gemini/antigravity-cli/skills",
        None,
    ),
    row(
        "astrbot",
        "AstrBot",
        "data/skills",
        ".astrbot/data/skills",
        None,
    ),
    row(
        "augment",
        "Augment",
        ".augment/skills",
        ".augment/skills",
        None,
    ),
    row(
        "autohand-code",
        "Autohand Code CLI",
        ".autohand/skills",
        ".autohand/skills",
        home_var("AUTOHAND_HOME", "skills"),
    ),
    row("bob", "IBM Bob", ".bob/skills", ".bob/skills", None),
    row("cline", "Cline", ".cline/skills", ".cline/skills", None),
    row(
        "codearts-agent",
        "CodeArts Agent",
        ".codeartsdoer/skills",
        ".codeartsdoer/skills",
        None,
    ),
    row(
        "codebuddy",
        "CodeBuddy",
        ".codebuddy/skills",
        ".codebuddy/skills",
        None,
    ),
    row(
        "codemaker",
        "Codemaker",
        ".codemaker/skills",
        ".codemaker/skills",
        None,
    ),
    row(
        "codestudio",
        "Code Studio",
        ".codestudio/skills",
        ".codestudio/skills",
        None,
    ),
    row(
        "codewhale",
        "CodeWhale",
        ".codewhale/skills",
        ".codewhale/skills",
        home_var("CODEWHALE_HOME", "skills"),
    ),
    row(
        "command-code",
        "Command Code",
        ".commandcode/skills",
        ".commandcode/skills",
        None,
    ),
    row(
        "continue",
        "Continue",
        ".continue/skills",
        ".continue/skills",
        None,
    ),
    row(
        "cortex",
        "Cortex Code",
        ".cortex/skills",
        ".snowflake/cortex/skills",
        None,
    ),
    row(
        "crush",
        "Crush",
        ".crush/skills",
        ".config/crush/skills",
        xdg("crush/skills"),
    ),
    row(
        "deepagents",
        "Deep Agents",
        ".agents/skills",
        ".deepagents/agent/skills",
        None,
    ),
    row(
        "devin",
        "Devin for Terminal",
        ".devin/skills",
        ".config/devin/skills",
        xdg("devin/skills"),
    ),
    row("dexto", "Dexto", ".agents/skills", ".agents/skills", None),
    row(
        "droid",
        "Factory Droid",
        ".factory/skills",
        ".factory/skills",
        None,
    ),
    row(
        "firebender",
        "Firebender",
        ".agents/skills",
        ".firebender/skills",
        None,
    ),
    row(
        "forgecode",
        "ForgeCode",
        ".forge/skills",
        ".forge/skills",
        None,
    ),
    row("fx", "fx", ".fx/skills", ".fx/skills", None),
    row(
        "goose",
        "goose",
        ".agents/skills",
        ".config/goose/skills",
        xdg("goose/skills"),
    ),
    row(
        "grok",
        "Grok Build",
        ".grok/skills",
        ".grok/skills",
        home_var("GROK_HOME", "skills"),
    ),
    row(
        "hermes-agent",
        "Hermes Agent",
        ".hermes/skills",
        ".hermes/skills",
        home_var("HERMES_HOME", "skills"),
    ),
    row(
        "iflow-cli",
        "iFlow CLI",
        ".iflow/skills",
        ".iflow/skills",
        None,
    ),
    row(
        "inference-sh",
        "inference.sh",
        ".inferencesh/skills",
        ".inferencesh/skills",
        None,
    ),
    row("jazz", "Jazz", ".jazz/skills", ".jazz/skills", None),
    row("junie", "Junie", ".junie/skills", ".junie/skills", None),
    row("kilo", "Kilo Code", ".kilo/skills", ".kilo/skills", None),
    row(
        "kimchi",
        "Kimchi",
        ".kimchi/skills",
        ".config/kimchi/harness/skills",
        None,
    ),
    row(
        "kimi-code-cli",
        "Kimi Code CLI",
        ".agents/skills",
        ".config/agents/skills",
        None,
    ),
    row("kiro", "Kiro", ".kiro/skills", ".kiro/skills", None),
    row("kode", "Kode", ".kode/skills", ".kode/skills", None),
    row("lingma", "Lingma", ".lingma/skills", ".lingma/skills", None),
    row("loaf", "Loaf", ".agents/skills", ".agents/skills", None),
    row("mcpjam", "MCPJam", ".mcpjam/skills", ".mcpjam/skills", None),
    row(
        "minimax-code",
        "MiniMax Code",
        ".minimax/skills",
        ".minimax/skills",
        None,
    ),
    row("moxby", "Moxby", ".moxby/skills", ".moxby/skills", None),
    row("mux", "Mux", ".mux/skills", ".mux/skills", None),
    row(
        "neovate",
        "Neovate",
        ".neovate/skills",
        ".neovate/skills",
        None,
    ),
    row("ona", "Ona", ".ona/skills", ".ona/skills", None),
    row(
        "opencode",
        "OpenCode",
        ".opencode/skills",
        ".config/opencode/skills",
        xdg("opencode/skills"),
    ),
    row(
        "openhands",
        "OpenHands",
        ".agents/skills",
        ".openhands/skills",
        None,
    ),
    row("pi", "Pi", ".pi/skills", ".pi/agent/skills", None),
    row("pochi", "Pochi", ".pochi/skills", ".pochi/skills", None),
    row(
        "posit-assistant",
        "Posit Assistant",
        ".posit/assistant/skills",
        ".posit/assistant/skills",
        None,
    ),
    row("qoder", "Qoder", ".qoder/skills", ".qoder/skills", None),
    row(
        "qoder-cn",
        "Qoder CN",
        ".qodercn/skills",
        ".qoder-cn/skills",
        None,
    ),
    row("qwen", "Qwen Code", ".qwen/skills", ".qwen/skills", None),
    row(
        "reasonix",
        "Reasonix",
        ".reasonix/skills",
        ".reasonix/skills",
        None,
    ),
    row(
        "replit",
        "Replit",
        ".agents/skills",
        ".config/agents/skills",
        xdg("agents/skills"),
    ),
    row("roo", "Roo Code", ".roo/skills", ".roo/skills", None),
    row(
        "rovodev",
        "Rovo Dev",
        ".rovodev/skills",
        ".rovodev/skills",
        None,
    ),
    row(
        "sarvam-code",
        "Sarvam Code",
        ".agents/skills",
        ".agents/skills",
        None,
    ),
    row(
        "tabnine-cli",
        "Tabnine CLI",
        ".tabnine/agent/skills",
        ".tabnine/agent/skills",
        None,
    ),
    row(
        "terramind",
        "Terramind",
        ".terramind/skills",
        ".terramind/skills",
        None,
    ),
    row(
        "tinycloud",
        "Tinycloud",
        ".tinycloud/skills",
        ".tinycloud/skills",
        None,
    ),
    row("trae", "Trae", ".trae/skills", ".trae/skills", None),
    row(
        "trae-cn",
        "Trae CN",
        ".trae/skills",
        ".trae-cn/skills",
        None,
    ),
    row(
        "vibe",
        "Mistral Vibe",
        ".vibe/skills",
        ".vibe/skills",
        home_var("VIBE_HOME", "skills"),
    ),
    row("warp", "Warp", ".agents/skills", ".agents/skills", None),
    row("zcode", "ZCode", ".zcode/skills", ".zcode/skills", None),
    row("zed", "Zed", ".agents/skills", ".agents/skills", None),
    row(
        "zencoder",
        "Zencoder",
        ".zencoder/skills",
        ".zencoder/skills",
        None,
    ),
    row(
        "zenflow",
        "Zenflow",
        ".zencoder/skills",
        ".zencoder/skills",
        None,
    ),
];

/// An agent whose skills directory `skill install --target` names: a row of [`AGENTS`].
#[derive(Debug, Clone, Copy)]
pub struct Target(&'static Agent);

impl PartialEq for Target {
    fn eq(&self, other: &Self) -> bool {
        self.0.name == other.0.name
    }
}

impl Eq for Target {}

/// Where a target's skills live: in the project, or in the user's home directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Relative to the repository root.
    Project,
    /// Relative to the home directory.
    User,
}

impl Target {
    /// Every target, in the order help lists them.
    pub fn all() -> impl Iterator<Item = Target> {
        AGENTS.iter().map(Target)
    }

    /// The target named `name` (exactly as typed), if any.
    pub fn from_name(name: &str) -> Option<Target> {
        AGENTS.iter().find(|a| a.name == name).map(Target)
    }

    /// The known names nearest to `typed` by `distance` (smallest first, ties in table
    /// order), those no farther than `max`. The caller brings the measure, so this crate
    /// takes no string-distance dependency.
    pub fn nearest(
        typed: &str,
        max: usize,
        distance: impl Fn(&str, &str) -> usize,
    ) -> Vec<&'static str> {
        let mut near: Vec<(usize, usize, &'static str)> = AGENTS
            .iter()
            .enumerate()
            .map(|(i, a)| (distance(typed, a.name), i, a.name))
            .filter(|(d, _, _)| *d <= max)
            .collect();
        near.sort();
        let best = near.first().map(|(d, _, _)| *d);
        near.into_iter()
            .filter(|(d, _, _)| Some(*d) == best)
            .map(|(_, _, n)| n)
            .collect()
    }

    /// The row this target stands for.
    pub fn agent(self) -> &'static Agent {
        self.0
    }

    /// The target as typed after `--target`.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// The agent's own name, for people.
    pub fn display_name(self) -> &'static str {
        self.0.display
    }

    /// The project directory, relative to the repository root.
    pub fn project_dir(self) -> &'static str {
        self.0.project
    }

    /// The user directory relative to the home directory, as it is when no variable moves
    /// it.
    pub fn user_dir_in_home(self) -> &'static str {
        self.0.user
    }

    /// The variable that moves the user directory, if the agent has one.
    pub fn user_env(self) -> Option<EnvBase> {
        self.0.env
    }

    /// The directory of `scope`, relative to the repository root ([`Scope::Project`]) or to
    /// the home directory with no variable set ([`Scope::User`]).
    pub fn dir(self, scope: Scope) -> &'static str {
        match scope {
            Scope::Project => self.0.project,
            Scope::User => self.0.user,
        }
    }

    /// Where the user directory is: `(the directory it is relative to, the path under it)`.
    /// The agent's variable, looked up with `env`, wins when it is set and non-empty;
    /// otherwise the path is under `home`.
    pub fn user_base(
        self,
        home: &Path,
        env: impl Fn(&str) -> Option<OsString>,
    ) -> (PathBuf, &'static str) {
        if let Some(base) = self.0.env
            && let Some(value) = env(base.var).filter(|v| !v.is_empty())
        {
            return (PathBuf::from(value), base.under);
        }
        (home.to_path_buf(), self.0.user)
    }

    /// The user directory: `$VAR/<under>` when the agent's variable is set and non-empty
    /// (looked up with `env`), else `<home>/<user dir>`.
    pub fn user_dir(self, home: &Path, env: impl Fn(&str) -> Option<OsString>) -> PathBuf {
        let (base, under) = self.user_base(home, env);
        base.join(under)
    }
}

/// `targets` grouped by the project directory they read, each directory once, in the order
/// its first target was given; a target given twice counts once.
pub fn distinct_project_dirs(targets: &[Target]) -> Vec<(&'static str, Vec<Target>)> {
    let mut groups: Vec<(&'static str, Vec<Target>)> = Vec::new();
    for &t in targets {
        match groups.iter_mut().find(|(dir, _)| *dir == t.project_dir()) {
            Some((_, group)) if group.contains(&t) => {}
            Some((_, group)) => group.push(t),
            None => groups.push((t.project_dir(), vec![t])),
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A relative path of plain components: no empty, `.`, `..` or absolute part, no
    /// backslash, no trailing slash.
    fn plain(path: &str) -> bool {
        !path.is_empty()
            && !path.contains('\\')
            && path
                .split('/')
                .all(|c| !c.is_empty() && c != "." && c != "..")
    }

    #[test]
    fn at_least_twenty_agents_with_unique_names() {
        assert!(AGENTS.len() >= 20, "{}", AGENTS.len());
        let mut names: Vec<&str> = AGENTS.iter().map(|a| a.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), AGENTS.len(), "a name appears twice");
        for a in AGENTS {
            assert!(
                !a.name.is_empty()
                    && a.name
                        .chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{}: names are typed: lowercase ASCII, digits and '-'",
                a.name
            );
            assert!(!a.name.contains(','), "{}: ',' separates names", a.name);
            assert!(!a.display.is_empty(), "{}", a.name);
        }
    }

    #[test]
    fn every_dir_is_relative_and_plain() {
        for a in AGENTS {
            assert!(plain(a.project), "{}: project {}", a.name, a.project);
            assert!(plain(a.user), "{}: user {}", a.name, a.user);
            assert!(a.project.ends_with("skills"), "{}", a.name);
            assert!(a.user.ends_with("skills"), "{}", a.name);
            if let Some(env) = a.env {
                assert!(plain(env.under), "{}: under {}", a.name, env.under);
                assert!(
                    a.user.ends_with(&format!("/{}", env.under)),
                    "{}: {} is not the tail of {}",
                    a.name,
                    env.under,
                    a.user
                );
                assert!(!env.var.is_empty() && !env.var.contains('='), "{}", a.name);
            }
        }
    }

    #[test]
    fn the_first_seven_keep_their_directories() {
        let first: Vec<(&str, &str, &str)> = AGENTS[..7]
            .iter()
            .map(|a| (a.name, a.project, a.user))
            .collect();
        assert_eq!(
            first,
            [
                ("claude", ".claude/skills", ".claude/skills"),
                ("codex", ".agents/skills", ".agents/skills"),
                ("copilot", ".github/skills", ".copilot/skills"),
                ("gemini", ".gemini/skills", ".gemini/skills"),
                ("cursor", ".cursor/skills", ".cursor/skills"),
                ("windsurf", ".windsurf/skills", ".codeium/windsurf/skills"),
                ("agents", ".agents/skills", ".agents/skills"),
            ]
        );
    }

    /// The rows published before the table grew (issue 31 §4): their names and directories
    /// are what users' intent files and locks already hold, so none may change.
    #[test]
    fn published_rows_keep_their_names_and_directories() {
        let published: [(&str, &str, &str, Option<&str>); 24] = [
            (
                "claude",
                ".claude/skills",
                ".claude/skills",
                Some("CLAUDE_CONFIG_DIR"),
            ),
            ("codex", ".agents/skills", ".agents/skills", None),
            ("copilot", ".github/skills", ".copilot/skills", None),
            ("gemini", ".gemini/skills", ".gemini/skills", None),
            ("cursor", ".cursor/skills", ".cursor/skills", None),
            (
                "windsurf",
                ".windsurf/skills",
                ".codeium/windsurf/skills",
                None,
            ),
            ("agents", ".agents/skills", ".agents/skills", None),
            (
                "amp",
                ".agents/skills",
                ".config/agents/skills",
                Some("XDG_CONFIG_HOME"),
            ),
            (
                "antigravity",
                ".agents/skills",
                ".gemini/antigravity/skills",
                None,
            ),
            ("augment", ".augment/skills", ".augment/skills", None),
            ("cline", ".cline/skills", ".cline/skills", None),
            (
                "crush",
                ".crush/skills",
                ".config/crush/skills",
                Some("XDG_CONFIG_HOME"),
            ),
            ("droid", ".factory/skills", ".factory/skills", None),
            (
                "goose",
                ".agents/skills",
                ".config/goose/skills",
                Some("XDG_CONFIG_HOME"),
            ),
            ("junie", ".junie/skills", ".junie/skills", None),
            ("kilo", ".kilo/skills", ".kilo/skills", None),
            ("kiro", ".kiro/skills", ".kiro/skills", None),
            (
                "opencode",
                ".opencode/skills",
                ".config/opencode/skills",
                Some("XDG_CONFIG_HOME"),
            ),
            ("openhands", ".agents/skills", ".openhands/skills", None),
            ("pi", ".pi/skills", ".pi/agent/skills", None),
            ("qwen", ".qwen/skills", ".qwen/skills", None),
            ("roo", ".roo/skills", ".roo/skills", None),
            ("trae", ".trae/skills", ".trae/skills", None),
            ("vibe", ".vibe/skills", ".vibe/skills", Some("VIBE_HOME")),
        ];
        for (name, project, user, var) in published {
            let t = Target::from_name(name).unwrap_or_else(|| panic!("{name} is gone"));
            assert_eq!(
                (
                    t.project_dir(),
                    t.user_dir_in_home(),
                    t.user_env().map(|e| e.var)
                ),
                (project, user, var),
                "{name}"
            );
        }
    }

    /// No agent's project directory may be `skills/` or lie in it: `skill sync` mirrors
    /// `skills/` into the project directories, so such a row would mirror it into itself.
    #[test]
    fn no_project_dir_lies_in_the_skills_directory() {
        for a in AGENTS {
            assert!(
                a.project != asv_model::layout::SKILLS_DIR
                    && !a
                        .project
                        .starts_with(&format!("{}/", asv_model::layout::SKILLS_DIR)),
                "{}: {}",
                a.name,
                a.project
            );
        }
    }

    /// As many agents as the best-kept peer table (issue 31 §4): vercel-labs/skills lists 80
    /// rows; three have no place here (docs/TARGETS.md says why) and its `universal` is our
    /// `agents`, so the 76 others, with `agents`, are 77.
    #[test]
    fn the_table_covers_the_peers() {
        assert!(AGENTS.len() >= 77, "{}", AGENTS.len());
    }

    #[test]
    fn names_round_trip() {
        for t in Target::all() {
            assert_eq!(Target::from_name(t.name()), Some(t));
        }
        assert_eq!(Target::from_name("Claude"), None);
        assert_eq!(Target::from_name(""), None);
    }

    /// A stand-in for the environment: a variable's value, if set.
    type Lookup<'a> = &'a dyn Fn(&str) -> Option<OsString>;

    #[test]
    fn user_dir_honours_a_set_non_empty_variable() {
        let home = Path::new("/home/ann");
        let claude = Target::from_name("claude").unwrap();
        let none = |_: &str| None;
        let empty = |_: &str| Some(OsString::new());
        let set = |v: &str| (v == "CLAUDE_CONFIG_DIR").then(|| OsString::from("/c"));
        let other = |v: &str| (v == "CODEX_HOME").then(|| OsString::from("/x"));
        let cases: [(Lookup<'_>, &str); 4] = [
            (&none, "/home/ann/.claude/skills"),
            (&empty, "/home/ann/.claude/skills"),
            (&set, "/c/skills"),
            (&other, "/home/ann/.claude/skills"),
        ];
        for (env, want) in cases {
            assert_eq!(claude.user_dir(home, env), Path::new(want));
        }
        let goose = Target::from_name("goose").unwrap();
        let xdg = |v: &str| (v == "XDG_CONFIG_HOME").then(|| OsString::from("/xdg"));
        assert_eq!(goose.user_dir(home, xdg), Path::new("/xdg/goose/skills"));
        assert_eq!(
            goose.user_dir(home, none),
            Path::new("/home/ann/.config/goose/skills")
        );
        // an agent without a variable ignores them all
        let cursor = Target::from_name("cursor").unwrap();
        assert_eq!(
            cursor.user_dir(home, |_| Some(OsString::from("/z"))),
            Path::new("/home/ann/.cursor/skills")
        );
    }

    #[test]
    fn distinct_project_dirs_groups_in_order_given() {
        let t = |n| Target::from_name(n).unwrap();
        let groups = distinct_project_dirs(&[t("claude"), t("codex"), t("amp"), t("claude")]);
        assert_eq!(
            groups,
            vec![
                (".claude/skills", vec![t("claude")]),
                (".agents/skills", vec![t("codex"), t("amp")]),
            ]
        );
        assert!(distinct_project_dirs(&[]).is_empty());
    }

    #[test]
    fn nearest_names_the_closest() {
        let d = |a: &str, b: &str| {
            // a stand-in measure: count differing positions plus the length difference
            let diff = a.chars().zip(b.chars()).filter(|(x, y)| x != y).count();
            diff + a.len().abs_diff(b.len())
        };
        assert_eq!(Target::nearest("claud", 2, d), ["claude"]);
        assert!(Target::nearest("zzzzzzzzzz", 2, d).is_empty());
    }
}
