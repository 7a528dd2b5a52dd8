//! The binary's one error type: every refusal a command can end with, by the crate that raised
//! it, so the binary finds its side and place with one exhaustive match instead of asking each
//! crate's type in turn (issue 28 §1).

use std::io;
use std::path::PathBuf;

use asv_error::{Failure, Location, Side};

/// The line after a usage refusal.
pub const USAGE_HINT: &str = "run agentic-skill-vendor --help for the commands and options";

/// A refusal of what the user typed, worded here: printed as `error: <message>`, exit 2. Each
/// carries what it is about (a path as typed, a name, a count, the failure met), never a
/// finished sentence (issue 28 §1).
#[derive(Debug, thiserror::Error)]
pub enum Usage {
    /// `--token-stdin` on a command that reaches no network.
    #[error(
        "--token-stdin is not an option {command} takes: it reaches no network; only add, update, fetch and skill add, pull, diff and outdated do\n{USAGE_HINT}"
    )]
    TokenStdinUnused {
        /// The command as typed (`verify`).
        command: &'static str,
    },
    /// `--format sarif` on a command other than `skill audit` and `skill verify`.
    #[error(
        "--format sarif is a format only skill audit and skill verify print (a code scanning report); use text, json or github for {command}\n{USAGE_HINT}"
    )]
    SarifUnsupported {
        /// The command as typed.
        command: &'static str,
    },
    /// `--root ""`.
    #[error("--root needs a path")]
    EmptyRoot,
    /// The current directory, needed to place a relative `--root`, cannot be read.
    #[error("the current directory cannot be read ({error}); pass --root <absolute path>")]
    CurrentDirectory {
        /// Why: said inside the sentence, so not also a source.
        error: io::Error,
    },
    /// No repository around the current directory.
    #[error(transparent)]
    NoRepository(#[from] NotFound),
    /// `--token-stdin` could not read standard input.
    #[error("--token-stdin could not read standard input")]
    TokenUnread(#[source] io::Error),
    /// The token piped in cannot be used.
    #[error("{0}")]
    Token(asv_remote::token::TokenProblem),
    /// A directory named (or implied) is not there.
    #[error("{}: no such directory{}", dir.display(), role.hint())]
    NoSuchDirectory {
        /// The directory, as named.
        dir: PathBuf,
        /// What it was to be, for the next step.
        role: DirRole,
    },
    /// A directory named (or implied) is a file.
    #[error("{}: not a directory{}", dir.display(), role.hint())]
    NotADirectory {
        /// The path, as named.
        dir: PathBuf,
        /// What it was to be, for the next step.
        role: DirRole,
    },
    /// A directory named (or implied) cannot be opened (a permission on the way), said as the
    /// guarded tree says it.
    #[error(transparent)]
    Unopenable(asv_fs::Error),
    /// A path typed from the current directory cannot be made absolute.
    #[error("{}", typed.display())]
    Unplaceable {
        /// The path as typed.
        typed: PathBuf,
        /// Why.
        #[source]
        error: io::Error,
    },
    /// `/` named where a directory below it is needed.
    #[error("{}: name a directory below /, not / itself", typed.display())]
    FileSystemRoot {
        /// The path as typed.
        typed: PathBuf,
    },
    /// A path typed with a segment that is not UTF-8.
    #[error("{}: a segment of the path is not UTF-8; rename it", typed.display())]
    NotUtf8 {
        /// The path as typed.
        typed: PathBuf,
    },
    /// A `--target` name the table does not hold (clap admits only the table's names; this is
    /// for a caller that skipped it).
    #[error("{}", unknown_target(name, near))]
    UnknownTarget {
        /// The name as given.
        name: String,
        /// The nearest names of the table.
        near: Vec<&'static str>,
    },
    /// `--scope user` for an agent whose variable is unset, without `HOME`.
    #[error("--scope user needs HOME set to your home directory")]
    NoHome,
    /// `skill sync --scope user` without the user intent file.
    #[error(
        "{}: no user intent; write it as a repository's vendor-skills.yaml is written (targets: the agents to mirror into, skills: the skills to take) and run skill sync --scope user again",
        file.display()
    )]
    NoUserIntent {
        /// Where the intent file was looked for.
        file: PathBuf,
    },
    /// `skill install --scope user` could not make the user state directory it records in.
    #[error(
        "{}: cannot make the user state directory ({error}), where skill install --scope user records what it placed; make it, or set XDG_CONFIG_HOME to a directory you can write",
        dir.display()
    )]
    StateDirUnmade {
        /// The state directory.
        dir: PathBuf,
        /// Why not (said in the message itself).
        error: io::Error,
    },
    /// `skill sync --scope user` for an agent whose variable moves its user directory outside
    /// `HOME`, the one tree a user sync writes in.
    #[error(
        "{}: the user directory of {agent} is outside HOME, and skill sync --scope user writes only under HOME; unset the variable that moves it, or place skills there with skill install --scope user",
        dir.display()
    )]
    UserDirOutsideHome {
        /// The agent.
        agent: &'static str,
        /// Its user directory, as the variable makes it.
        dir: PathBuf,
    },
    /// The agents' user directories have no directory in common (one is relative).
    #[error(
        "the agents' user directories share no parent directory (one is relative); set their variables to absolute paths"
    )]
    NoCommonDirectory,
    /// An agent's user directory whose path is not UTF-8.
    #[error("{}: not UTF-8; give the agent's directory a UTF-8 path", dir.display())]
    AgentDirNotUtf8 {
        /// The directory.
        dir: PathBuf,
    },
    /// `HOME` names a directory that does not exist.
    #[error("{}: the home directory does not exist; set HOME", home.display())]
    NoHomeDirectory {
        /// `HOME`.
        home: PathBuf,
    },
    /// `skill pull --ref` with other than one name.
    #[error(
        "skill pull --ref moves one skill, and {named} were named; name the one skill to move: skill pull <NAME> --ref <REF>"
    )]
    RefNeedsOneSkill {
        /// How many names were given.
        named: usize,
    },
    /// `skill audit NAME` of a name with no directory under `skills/`.
    #[error(
        "skills/{name}: no such skill; name a directory under skills/ (skill list shows them), or give a path holding a /"
    )]
    NoSuchSkill {
        /// The name as typed.
        name: String,
    },
    /// A GitHub web address that names a path, and a path given too (issue 31 §1).
    #[error(
        "{address} names a ref and a path ({}) already; give the path once: in the address alone, or as the second argument after https://github.com/{repository} (with --ref for the ref)",
        asv_error::quote::json_string(in_address)
    )]
    PathTwice {
        /// The address as typed.
        address: String,
        /// `owner/repo`.
        repository: String,
        /// The path the address names.
        in_address: String,
    },
    /// `--ref` beside a web address whose ref is another (issue 31 §1).
    #[error(
        "{address} does not start with the ref {} given with --ref; drop --ref (the address names its ref) or give the address of that ref",
        asv_error::quote::json_string(reference)
    )]
    RefNotInAddress {
        /// The address as typed.
        address: String,
        /// `--ref`.
        reference: String,
    },
    /// `skill add` with no path found several skills, and nothing chose among them off a
    /// terminal (issue 31 §1).
    #[error(
        "{source_name} holds {} skills and no terminal is here to ask which: choose with --skill NAME[,NAME…] (globs allowed, such as {}) or --all, or see them with --list:{}",
        found.len(),
        asv_error::quote::json_string(&glob_example(found)),
        found.iter().map(|(name, path)| format!("\n  {name} ({path})")).collect::<String>()
    )]
    ChooseSkills {
        /// The source as recorded.
        source_name: String,
        /// Each skill found: its name and path in the source.
        found: Vec<(String, String)>,
    },
    /// The prompt of `skill add` was left with nothing chosen.
    #[error(
        "no skill of {source_name} was chosen, so nothing was written; run again and press space on each skill to take, then enter"
    )]
    NoneChosen {
        /// The source as recorded.
        source_name: String,
    },
    /// `--name` with other than one skill chosen.
    #[error(
        "--name names one skill, and {chosen} were chosen; choose one with --skill NAME, or drop --name"
    )]
    NameNeedsOneSkill {
        /// How many skills were chosen.
        chosen: usize,
    },
    /// The prompt of `skill add` could not be shown or read.
    #[error(
        "the choice of skills could not be read from the terminal; choose with --skill NAME[,NAME…] or --all"
    )]
    Prompt(#[source] io::Error),
    /// `-o` names no file.
    #[error("{}: not a file name; give -o <file>.zip", path.display())]
    NotAFileName {
        /// `-o` as given.
        path: PathBuf,
    },
    /// The top-level `add`, which registers a repository of contracts, given what names a
    /// skill (issue 31 §3): a local directory, a path inside a repository, or a skill's path
    /// where the source's name goes.
    #[error(
        "{typed}: add registers a repository of contracts, and {}; to take a skill, run {} skill add {}",
        shape.what(name.as_deref()),
        crate::cli::invoked_name(),
        shape.skill_add(typed, name.as_deref())
    )]
    AddOfASkill {
        /// The repository as typed.
        typed: String,
        /// The name as typed, when one was.
        name: Option<String>,
        /// How it names a skill.
        shape: SkillShape,
    },
    /// The directory `man --out` names is not one that can be opened.
    #[error("{}: no such directory; create it or give another --out", dir.display())]
    NoManDirectory {
        /// The directory, as named.
        dir: PathBuf,
    },
    /// `skill pack --sign` names no file.
    #[error("{}: no such file; --sign takes an OpenSSH private key (ssh-keygen -t ed25519 makes one)", path.display())]
    NoSigningKey {
        /// The key file as named.
        path: PathBuf,
    },
    /// `skill pack --sign` names a key that cannot sign here.
    #[error("{}: {error}{}", path.display(), signing_hint(error))]
    SigningKey {
        /// The key file as named.
        path: PathBuf,
        /// Why it cannot sign.
        error: asv_sign::Error,
    },
    /// `skill install --signed-by` names no file.
    #[error("{}: no such file; --signed-by takes an OpenSSH allowed-signers file (one `principal key` a line)", path.display())]
    NoAllowedSigners {
        /// The file as named.
        path: PathBuf,
    },
    /// `skill install --signed-by` names a file that is no allowed-signers file.
    #[error("{}: {error}; fix that line (see ssh-keygen(1), ALLOWED SIGNERS)", path.display())]
    AllowedSigners {
        /// The file as named.
        path: PathBuf,
        /// The line at fault and why.
        error: asv_sign::Error,
    },
    /// `skill audit --allow` with other than one skill name.
    #[error(
        "skill audit --allow writes an entry for one skill, and {named} were named; name it: skill audit <NAME> --allow <RULE> --reason <TEXT>"
    )]
    AllowOneSkill {
        /// How many were named.
        named: usize,
    },
    /// `skill audit --allow` naming a skill by what is not a skill name.
    #[error(
        "{}: not a skill name ({problem}); an entry names the skill as its directory under skills/ is named",
        asv_error::quote::json_string(typed)
    )]
    AllowSkillName {
        /// As typed.
        typed: String,
        /// What is wrong.
        problem: String,
    },
    /// `skill audit --allow` of a rule the audit does not have.
    #[error(
        "{}: not a rule of the audit; give one of {} (docs/AUDIT.md describes each)",
        asv_error::quote::json_string(rule),
        asv_audit::Rule::ALL.iter().map(|r| r.id()).collect::<Vec<_>>().join(", ")
    )]
    UnknownRule {
        /// As typed.
        rule: String,
    },
    /// `skill audit --allow` with an empty `--reason`, `--path` or a fingerprint that is not one.
    #[error("--{option} {}: {problem}", asv_error::quote::json_string(typed))]
    AllowValue {
        /// The option (`reason`, `path`, `fingerprint`).
        option: &'static str,
        /// As typed.
        typed: String,
        /// What is wrong, and what to give.
        problem: &'static str,
    },
    /// The directory `-o` names a file in is not there.
    #[error("{}: no such directory; create it or give another -o", dir.display())]
    NoOutputDirectory {
        /// The directory.
        dir: PathBuf,
    },
}

/// What to do when a key cannot sign in process: ssh-keygen writes the same signature file.
fn signing_hint(error: &asv_sign::Error) -> &'static str {
    match error {
        asv_sign::Error::EncryptedKey | asv_sign::Error::SigningKeyType { .. } => {
            "; pack without --sign, then run ssh-keygen -Y sign -n agentic-skill-vendor -f KEY <zip>, which writes the same <zip>.sig"
        }
        asv_sign::Error::AllowedSigners { .. }
        | asv_sign::Error::PrivateKey { .. }
        | asv_sign::Error::Sign { .. } => "",
    }
}

/// How what was typed to the top-level `add` names a skill rather than a repository of
/// contracts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkillShape {
    /// A path on this machine (`./x`, `../x`, `/x`, `.`): skill add takes local directories.
    LocalPath,
    /// `owner/repo/path…`: a repository and a path in it, as one word.
    RepositoryAndPath,
    /// `owner/repo path/with/slashes`: a skill's path where the source's name goes.
    PathAsName,
}

impl SkillShape {
    /// Says what was typed.
    fn what(self, name: Option<&str>) -> String {
        match self {
            SkillShape::LocalPath => "this is a local path".to_owned(),
            SkillShape::RepositoryAndPath => {
                "this is a path inside a repository, not owner/repo".to_owned()
            }
            SkillShape::PathAsName => format!(
                "{} is a path where add takes the name to give the source",
                name.unwrap_or_default()
            ),
        }
    }

    /// The arguments of the `skill add` that takes what was typed.
    fn skill_add(self, typed: &str, name: Option<&str>) -> String {
        match self {
            SkillShape::LocalPath => {
                format!("{typed} <path> (the skill's directory in it, . for its root)")
            }
            SkillShape::RepositoryAndPath => {
                let mut parts = typed.splitn(3, '/');
                let (owner, repo, path) = (
                    parts.next().unwrap_or_default(),
                    parts.next().unwrap_or_default(),
                    parts.next().unwrap_or_default(),
                );
                format!("{owner}/{repo} {path}")
            }
            SkillShape::PathAsName => format!("{typed} {}", name.unwrap_or_default()),
        }
    }

    /// How `repository` and `name`, as typed to the top-level `add`, name a skill, if they
    /// do. Only what `add` would refuse anyway is judged so: a local path, three or more
    /// segments where owner/repo has two, a name with a `/` (no source name has one).
    pub fn of(repository: &str, name: Option<&str>) -> Option<SkillShape> {
        let url = repository.contains("://") || repository.contains('@');
        if repository == "."
            || repository == ".."
            || ["./", "../", "/", "~"]
                .iter()
                .any(|p| repository.starts_with(p))
        {
            Some(SkillShape::LocalPath)
        } else if !url && repository.split('/').filter(|s| !s.is_empty()).count() > 2 {
            Some(SkillShape::RepositoryAndPath)
        } else if name.is_some_and(|n| n.contains('/')) {
            Some(SkillShape::PathAsName)
        } else {
            None
        }
    }
}

/// What a directory the user named (or the environment implied) was to be: the next step a
/// refusal of it ends with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirRole {
    /// `--root`, or the current directory: the repository.
    Repository,
    /// The directory `skill hash` reads.
    Skill,
    /// `HOME`, where agents' user directories are.
    Home,
    /// The directory an agent's variable points at.
    AgentDir,
    /// Where a path typed outside the repository is read: no next step beyond the path.
    Parent,
}

impl DirRole {
    /// The `; …` that ends a refusal of such a directory (empty for [`DirRole::Parent`]).
    fn hint(self) -> &'static str {
        match self {
            DirRole::Repository => "; pass --root <path> naming the repository",
            DirRole::Skill => "; name a skill directory",
            DirRole::Home => "; set HOME",
            DirRole::AgentDir => "; create it or unset the agent's variable that points there",
            DirRole::Parent => "",
        }
    }
}

/// The refusal of a `--target` name: the nearest names, then all.
fn unknown_target(name: &str, near: &[&str]) -> String {
    use asv_skills::targets::Target;
    let all: Vec<&str> = Target::all().map(Target::name).collect();
    let tip = if near.is_empty() {
        String::new()
    } else {
        format!("did you mean {}? ", near.join(" or "))
    };
    format!(
        "unknown target: {name}; {tip}give one of {}",
        all.join(", ")
    )
}

/// Where a search for the repository ended without finding one.
#[derive(Debug)]
pub struct NotFound {
    /// The directory the search started in.
    pub from: PathBuf,
    /// The last directory looked at: the top of the enclosing git work tree, or `/`.
    pub top: PathBuf,
    /// The entries looked for, any of which marks a repository.
    pub markers: &'static [&'static str],
}

impl std::fmt::Display for NotFound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names = self
            .markers
            .iter()
            .map(|m| {
                if *m == asv_model::layout::SKILLS_DIR {
                    format!("{m}/")
                } else {
                    (*m).to_owned()
                }
            })
            .collect::<Vec<_>>();
        let looked = if self.from == self.top {
            format!("in {}", self.from.display())
        } else {
            format!(
                "in {} and each directory above it up to {}",
                self.from.display(),
                self.top.display()
            )
        };
        let (last, rest) = names
            .split_last()
            .map_or(("", &[][..]), |(l, r)| (l.as_str(), r));
        write!(
            f,
            "no repository found: looked {looked} for {} or {last}; run agentic-skill-vendor init to start one here, or pass --root <path>",
            rest.join(", "),
        )
    }
}

impl std::error::Error for NotFound {}

/// The command being run had already made its change in full when it was killed, and taking
/// the writer lock finished the clean-up: there is nothing left to do (the run ends clean).
#[derive(Debug)]
pub struct Finished(pub String);

impl std::fmt::Display for Finished {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` had made its change before it was killed; nothing is left to do",
            self.0
        )
    }
}

impl std::error::Error for Finished {}

/// Why a command stopped.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The contract side refused.
    #[error(transparent)]
    Contracts(#[from] asv_contracts::Error),
    /// The skill side refused.
    #[error(transparent)]
    Skills(#[from] asv_skills::Error),
    /// A guarded access to the tree refused or failed.
    #[error(transparent)]
    Fs(#[from] asv_fs::Error),
    /// A skill tree could not be read, hashed or merged.
    #[error(transparent)]
    SkillTree(#[from] asv_skilltree::Error),
    /// The shared model refused a text (a SKILL.md declaration, a `.gitignore`).
    #[error(transparent)]
    Model(#[from] asv_model::Error),
    /// `add`, `update` or `fetch` refused.
    #[error(transparent)]
    Fetch(#[from] asv_fetch::Error),
    /// A transport refused or failed.
    #[error(transparent)]
    Remote(#[from] asv_remote::Error),
    /// A refusal worded here, of what the user typed (input side, no file of its own).
    #[error(transparent)]
    Usage(#[from] Usage),
    /// A killed run of this command had made its change in full: nothing is left to do.
    #[error(transparent)]
    Finished(#[from] Finished),
    /// Writing the report failed (a closed pipe ends the run quietly).
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl Error {
    /// Whether writing to a closed pipe ended the run (`… | head`): not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Io(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

impl Failure for Error {
    /// Which side the failure lies with, as the crate that raised it says.
    fn side(&self) -> Side {
        match self {
            Error::Contracts(e) => e.side(),
            Error::Skills(e) => e.side(),
            Error::Fs(e) => e.side(),
            Error::SkillTree(e) => e.side(),
            Error::Model(e) => e.side(),
            Error::Fetch(e) => e.side(),
            Error::Remote(e) => e.side(),
            Error::Usage(_) | Error::Finished(_) => Side::Input,
            // Where nothing says otherwise, a failure is the input's, as before this type.
            Error::Io(_) => Side::Input,
        }
    }

    /// The file (and line) the failure is about, when there is one.
    fn location(&self) -> Option<Location> {
        match self {
            Error::Contracts(e) => e.location(),
            Error::Skills(e) => e.location(),
            Error::Fs(e) => e.location(),
            Error::SkillTree(e) => e.location(),
            Error::Model(e) => e.location(),
            Error::Fetch(e) => e.location(),
            Error::Remote(e) => e.location(),
            Error::Usage(_) | Error::Finished(_) | Error::Io(_) => None,
        }
    }
}

/// A glob that would choose the first skills of `found`, for a refusal to show: the first
/// name's leading part before a `-`, then `*`.
fn glob_example(found: &[(String, String)]) -> String {
    let first = found.first().map_or("pdf", |(n, _)| n.as_str());
    match first.split_once('-') {
        Some((head, _)) => format!("{head}-*"),
        None => first.to_owned(),
    }
}

/// The result type of the binary's commands.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_side_comes_from_the_crate_that_raised_the_error() {
        let internal = Error::from(asv_contracts::Error::Model(asv_model::Error::Gitignore {
            path: ".gitignore".into(),
            problem: asv_model::error::GitignoreProblem::Unplaceable(io::Error::other("x")),
        }));
        assert_eq!(internal.side(), asv_error::Side::Internal);
        let input = Error::from(asv_contracts::Error::NoSkillsDir);
        assert_eq!(input.side(), asv_error::Side::Input);
        let destination = Error::from(asv_skills::Error::Occupied {
            path: "skills/a".into(),
        });
        assert_eq!(destination.side(), asv_error::Side::Destination);
        // A transport's refusal says its own side, through asv-fetch or directly.
        let ambiguous = || asv_remote::Error::Git {
            url: "https://git.example.com/c.git".into(),
            problem: Box::new(asv_remote::error::GitProblem::Ref(
                asv_remote::error::RefProblem::Unknown {
                    reference: "main".into(),
                },
            )),
        };
        assert_eq!(Error::from(ambiguous()).side(), asv_error::Side::Input);
        let fetched = Error::from(asv_fetch::Error::Remote(ambiguous()));
        assert_eq!(fetched.side(), asv_error::Side::Input);
        let limit = Error::from(asv_remote::Error::GitHub {
            owner: "o".into(),
            repo: "r".into(),
            problem: Box::new(asv_remote::error::GitHubProblem::Truncated {
                request: asv_remote::error::Request::Repository,
            }),
        });
        assert_eq!(limit.side(), asv_error::Side::Environment);
        let fetch_input = Error::from(asv_fetch::Error::NoSourceName);
        assert_eq!(fetch_input.side(), asv_error::Side::Input);
        let worded_here = Error::from(Usage::EmptyRoot);
        assert_eq!(worded_here.side(), asv_error::Side::Input);
    }

    /// Each usage refusal, with its source joined as the binary joins it, reads as the
    /// sentence the binary printed when it was worded in place (issue 28 §1).
    #[test]
    fn usage_refusals_read_as_before() {
        let chain = |e: &Usage| {
            let mut text = e.to_string();
            let mut cause = std::error::Error::source(e);
            while let Some(c) = cause {
                text.push_str(&format!(": {c}"));
                cause = c.source();
            }
            text
        };
        let p = PathBuf::from;
        let rows: Vec<(Usage, String)> = vec![
            (
                Usage::TokenStdinUnused { command: "verify" },
                format!("--token-stdin is not an option verify takes: it reaches no network; only add, update, fetch and skill add, pull, diff and outdated do\n{USAGE_HINT}"),
            ),
            (
                Usage::SarifUnsupported { command: "verify" },
                format!("--format sarif is a format only skill audit and skill verify print (a code scanning report); use text, json or github for verify\n{USAGE_HINT}"),
            ),
            (Usage::EmptyRoot, "--root needs a path".into()),
            (
                Usage::CurrentDirectory { error: io::Error::other("gone") },
                "the current directory cannot be read (gone); pass --root <absolute path>".into(),
            ),
            (
                Usage::NoRepository(NotFound {
                    from: p("/r/a"),
                    top: p("/r"),
                    markers: &["vendor-lock.json", "skills"],
                }),
                "no repository found: looked in /r/a and each directory above it up to /r for vendor-lock.json or skills/; run agentic-skill-vendor init to start one here, or pass --root <path>".into(),
            ),
            (
                Usage::TokenUnread(io::Error::other("closed")),
                "--token-stdin could not read standard input: closed".into(),
            ),
            (
                Usage::Token(asv_remote::token::TokenProblem::TooLong(9)),
                asv_remote::token::TokenProblem::TooLong(9).to_string(),
            ),
            (
                Usage::NoSuchDirectory { dir: p("x"), role: DirRole::Repository },
                "x: no such directory; pass --root <path> naming the repository".into(),
            ),
            (
                Usage::NotADirectory { dir: p("x"), role: DirRole::Skill },
                "x: not a directory; name a skill directory".into(),
            ),
            (
                Usage::NoSuchDirectory { dir: p("/h"), role: DirRole::Home },
                "/h: no such directory; set HOME".into(),
            ),
            (
                Usage::NoSuchDirectory { dir: p("/a"), role: DirRole::AgentDir },
                "/a: no such directory; create it or unset the agent's variable that points there".into(),
            ),
            (
                Usage::NotADirectory { dir: p("/up"), role: DirRole::Parent },
                "/up: not a directory".into(),
            ),
            (
                Usage::Unplaceable { typed: p("./s"), error: io::Error::other("gone") },
                "./s: gone".into(),
            ),
            (
                Usage::FileSystemRoot { typed: p("/") },
                "/: name a directory below /, not / itself".into(),
            ),
            (
                Usage::NotUtf8 { typed: p("./s") },
                "./s: a segment of the path is not UTF-8; rename it".into(),
            ),
            (
                Usage::UnknownTarget { name: "ocdex".into(), near: vec!["codex"] },
                {
                    use asv_skills::targets::Target;
                    let all: Vec<&str> = Target::all().map(Target::name).collect();
                    format!("unknown target: ocdex; did you mean codex? give one of {}", all.join(", "))
                },
            ),
            (Usage::NoHome, "--scope user needs HOME set to your home directory".into()),
            (
                Usage::NoCommonDirectory,
                "the agents' user directories share no parent directory (one is relative); set their variables to absolute paths".into(),
            ),
            (
                Usage::AgentDirNotUtf8 { dir: p("/a") },
                "/a: not UTF-8; give the agent's directory a UTF-8 path".into(),
            ),
            (
                Usage::NoHomeDirectory { home: p("/h") },
                "/h: the home directory does not exist; set HOME".into(),
            ),
            (
                Usage::NoUserIntent { file: p("/c/vendor-skills.yaml") },
                "/c/vendor-skills.yaml: no user intent; write it as a repository's vendor-skills.yaml is written (targets: the agents to mirror into, skills: the skills to take) and run skill sync --scope user again".into(),
            ),
            (
                Usage::StateDirUnmade { dir: p("/c/agentic-skill-vendor"), error: io::Error::other("denied") },
                "/c/agentic-skill-vendor: cannot make the user state directory (denied), where skill install --scope user records what it placed; make it, or set XDG_CONFIG_HOME to a directory you can write".into(),
            ),
            (
                Usage::UserDirOutsideHome { agent: "claude", dir: p("/c/skills") },
                "/c/skills: the user directory of claude is outside HOME, and skill sync --scope user writes only under HOME; unset the variable that moves it, or place skills there with skill install --scope user".into(),
            ),
            (
                Usage::RefNeedsOneSkill { named: 2 },
                "skill pull --ref moves one skill, and 2 were named; name the one skill to move: skill pull <NAME> --ref <REF>".into(),
            ),
            (
                Usage::NoSuchSkill { name: "pdf".into() },
                "skills/pdf: no such skill; name a directory under skills/ (skill list shows them), or give a path holding a /".into(),
            ),
            (
                Usage::NotAFileName { path: p("..") },
                "..: not a file name; give -o <file>.zip".into(),
            ),
            (
                Usage::NoOutputDirectory { dir: p("out") },
                "out: no such directory; create it or give another -o".into(),
            ),
            (
                Usage::NoManDirectory { dir: p("pages") },
                "pages: no such directory; create it or give another --out".into(),
            ),
        ];
        for (usage, want) in rows {
            assert_eq!(chain(&usage), want, "{usage:?}");
        }
    }
}
