//! What a refusal of a skill that breaks the rules tells the user to do.

/// What to do about a skill that breaks the rules, by where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Remedy {
    /// Taken from upstream (`skill add`, `skill pull`): the fix belongs there.
    FixUpstream,
    /// The user's own files (`skill pack`, `skill resolve`): fix them and run again.
    FixLocal,
    /// An input to install: fix it, or install another.
    FixInput,
}

impl std::fmt::Display for Remedy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Remedy::FixUpstream => "fix the skill upstream or take another one",
            Remedy::FixLocal => {
                "fix the skill (skill validate lists every finding) and run the command again"
            }
            Remedy::FixInput => {
                "fix the skill in the input (skill validate lists every finding) or install another"
            }
        })
    }
}
