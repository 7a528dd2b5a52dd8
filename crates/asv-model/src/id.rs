//! Contract ids: the names skills declare and files are named after.

use std::collections::HashSet;
use std::fmt;
use std::sync::{Arc, RwLock};

/// The longest id accepted.
pub const MAX_ID_LEN: usize = 64;

/// A contract id: `^[a-z0-9][a-z0-9._-]*$`, at most 64 characters, no `..`.
///
/// An id becomes a path component (`contracts/<id>.md`, `references/vendor/<id>.md`), so the
/// rule keeps it from naming anything but one plain file.
///
/// The text is shared: a repository names a few ids many times over (every skill declares
/// them and the lock lists them per skill), so equal ids parsed anywhere in the process hold one
/// allocation ([`ContractId::parse`]). At 100,000 skills of ten ids each that is two million
/// ids in 16 bytes each instead of a string each.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContractId(Arc<str>);

/// How many distinct ids the process shares. Past it, ids are still correct, just not shared:
/// input naming more distinct ids than any repository does cannot make the set grow for ever.
const SHARED_IDS: usize = 4096;

/// The ids parsed so far, each held once.
static KNOWN: RwLock<Option<HashSet<Arc<str>>>> = RwLock::new(None);

/// `text` (a valid id) as a shared allocation: the one already known, else a new one, kept
/// while the set has room.
fn shared(text: &str) -> Arc<str> {
    let found = KNOWN
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .as_ref()
        .and_then(|known| known.get(text).cloned());
    if let Some(id) = found {
        return id;
    }
    let mut known = KNOWN
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let known = known.get_or_insert_with(HashSet::new);
    if let Some(id) = known.get(text) {
        return Arc::clone(id);
    }
    let id: Arc<str> = Arc::from(text);
    if known.len() < SHARED_IDS {
        known.insert(Arc::clone(&id));
    }
    id
}

/// Why a text is not a contract id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdProblem {
    /// Empty text.
    Empty,
    /// Longer than [`MAX_ID_LEN`].
    TooLong,
    /// A character outside `a-z0-9._-`, or a first character outside `a-z0-9`.
    BadCharacter,
    /// Contains `..`.
    DotDot,
}

impl fmt::Display for IdProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IdProblem::Empty => "it is empty",
            IdProblem::TooLong => "it is longer than 64 characters",
            IdProblem::BadCharacter => {
                "an id starts with a-z or 0-9 and holds only a-z, 0-9, '.', '_' and '-'"
            }
            IdProblem::DotDot => "it contains \"..\"",
        })
    }
}

impl ContractId {
    /// Checks `text` against the id rule.
    ///
    /// # Errors
    /// The [`IdProblem`] that rules it out.
    ///
    /// # Example
    /// ```
    /// use asv_model::id::ContractId;
    /// assert!(ContractId::parse("tdd-contract").is_ok());
    /// assert!(ContractId::parse("a..b").is_err());
    /// assert!(ContractId::parse("Upper").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Self, IdProblem> {
        let bytes = text.as_bytes();
        let Some(&first) = bytes.first() else {
            return Err(IdProblem::Empty);
        };
        if !(first.is_ascii_lowercase() || first.is_ascii_digit()) {
            return Err(IdProblem::BadCharacter);
        }
        if !bytes.iter().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-')
        }) {
            return Err(IdProblem::BadCharacter);
        }
        if bytes.len() > MAX_ID_LEN {
            return Err(IdProblem::TooLong);
        }
        if text.contains("..") {
            return Err(IdProblem::DotDot);
        }
        Ok(ContractId(shared(text)))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ContractId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for ContractId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_table() {
        let ok = ["a", "0", "a.b", "a_b-c", "x".repeat(64).as_str(), "9lives"].map(str::to_owned);
        for id in ok {
            assert!(ContractId::parse(&id).is_ok(), "{id}");
        }
        let bad: &[(&str, IdProblem)] = &[
            ("", IdProblem::Empty),
            ("-a", IdProblem::BadCharacter),
            (".a", IdProblem::BadCharacter),
            ("_a", IdProblem::BadCharacter),
            ("A", IdProblem::BadCharacter),
            ("a/b", IdProblem::BadCharacter),
            ("a b", IdProblem::BadCharacter),
            ("é", IdProblem::BadCharacter),
            ("a..b", IdProblem::DotDot),
            ("a..", IdProblem::DotDot),
        ];
        for (id, problem) in bad {
            assert_eq!(ContractId::parse(id), Err(*problem), "{id}");
        }
        assert_eq!(ContractId::parse(&"x".repeat(65)), Err(IdProblem::TooLong));
    }

    #[test]
    fn equal_ids_share_their_text_and_compare_by_it() {
        let a = ContractId::parse("shared-id-test").unwrap();
        let b = ContractId::parse(&String::from("shared-id-test")).unwrap();
        assert!(Arc::ptr_eq(&a.0, &b.0));
        assert_eq!(a, b);
        let c = ContractId::parse("shared-id-test2").unwrap();
        assert!(a < c);
        assert_eq!(c.as_str(), "shared-id-test2");
    }
}
