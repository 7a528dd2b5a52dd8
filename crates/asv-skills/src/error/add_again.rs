//! The `skill add` command a refusal suggests for taking an imported skill again.

use std::fmt;

/// The `skill add` that takes an imported skill again, as its lock entry records it: printed
/// as a command to run from the repository root, each argument quoted for a POSIX shell when
/// it needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddAgain {
    /// The source as the lock keeps it.
    pub source: String,
    /// The skill's directory in the source.
    pub path: String,
    /// `--name`, when the local name is not the one `skill add` would choose.
    pub name: Option<String>,
    /// `--ref`, when the lock follows one.
    pub reference: Option<String>,
}

impl fmt::Display for AddAgain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "skill add {} {}",
            shell_word(&self.source),
            shell_word(&self.path)
        )?;
        if let Some(name) = &self.name {
            write!(f, " --name {}", shell_word(name))?;
        }
        if let Some(reference) = &self.reference {
            write!(f, " --ref {}", shell_word(reference))?;
        }
        Ok(())
    }
}

/// `word` as one POSIX shell word: as it is when it holds only characters no shell treats
/// specially, else in single quotes (a single quote inside written as `'\''`).
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./:@%+=,-".contains(&b));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}
