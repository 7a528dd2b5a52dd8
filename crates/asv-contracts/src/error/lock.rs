//! What is wrong with `vendor-lock.json`.

use asv_error::quote::DisplayPath;

/// What is wrong with `vendor-lock.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LockProblem {
    /// The bytes are not UTF-8.
    NotUtf8,
    /// The text is not JSON.
    NotJson {
        /// 1-based line of the parse failure.
        line: usize,
        /// The parser's description.
        message: String,
    },
    /// The top level is not an object.
    NotObject,
    /// A required top-level key is missing.
    Missing(&'static str),
    /// An object of the lock holds one key twice (a JSON reader keeps one of them without a
    /// word; which one differs between readers).
    DuplicateKey {
        /// 1-based line of the second occurrence.
        line: usize,
        /// The keys from the top level down to the repeated one, it last.
        path: Vec<String>,
    },
    /// A top-level key holds something other than an object.
    NotAnObject(&'static str),
    /// A `resolutions` key is not an id.
    BadResolutionId(String),
    /// A `dependencies` key that does not name one skill directory (`..`, a path, empty).
    BadDependency(String),
    /// A resolution is not an object.
    ResolutionNotObject(String),
    /// A digest field is missing or not `sha256:<64 lowercase hex>`.
    BadDigest {
        /// The id.
        id: String,
        /// `digest` or `conformance`.
        field: &'static str,
    },
    /// A `placements` entry is malformed.
    BadPlacement {
        /// Where in the lock.
        at: String,
        /// What is wrong.
        what: &'static str,
    },
    /// `kind` is not `"raw"`.
    BadKind(String),
    /// A `sources` entry is malformed.
    BadSource {
        /// The source name as the lock spells it.
        name: String,
        /// What is wrong, and with which field.
        problem: PinProblem,
    },
}

/// What is wrong with a `sources` entry of `vendor-lock.json` (a source's pin).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PinProblem {
    /// The entry is not an object.
    NotObject,
    /// `objectFormat` is there and is not `"sha256"`.
    ObjectFormat,
    /// `repository` is missing or not text.
    NoRepository,
    /// `repository` is text that names no repository this tool reaches.
    Repository(asv_model::source::RepositoryProblem),
    /// `revision` is missing, or not a commit id of the object format.
    Revision(asv_model::source::ObjectFormat),
}

impl PinProblem {
    /// The field at fault (`repository`, `revision`, `objectFormat`), `None` for the entry
    /// itself.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            PinProblem::NotObject => None,
            PinProblem::ObjectFormat => Some("objectFormat"),
            PinProblem::NoRepository | PinProblem::Repository(_) => Some("repository"),
            PinProblem::Revision(_) => Some("revision"),
        }
    }
}

impl std::fmt::Display for PinProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use asv_model::source::ObjectFormat;
        match self {
            PinProblem::NotObject => f.write_str("is not an object"),
            PinProblem::ObjectFormat => {
                f.write_str("is not \"sha256\" (the only value written; leave it out for SHA-1)")
            }
            PinProblem::NoRepository => f.write_str("is missing or not text"),
            PinProblem::Repository(problem) => write!(f, "is not usable: {problem}"),
            PinProblem::Revision(ObjectFormat::Sha1) => {
                f.write_str("is not a commit id of 40 lowercase hex digits")
            }
            PinProblem::Revision(ObjectFormat::Sha256) => {
                f.write_str("is not a commit id of 64 lowercase hex digits (objectFormat sha256)")
            }
        }
    }
}

impl std::fmt::Display for LockProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockProblem::NotUtf8 => f.write_str("is not valid UTF-8"),
            LockProblem::NotJson { line, message } => {
                write!(f, "line {line}: is not valid JSON ({message})")
            }
            LockProblem::NotObject => f.write_str("is not a JSON object"),
            LockProblem::DuplicateKey { line, path } => {
                let (key, within) = path
                    .split_last()
                    .map_or(("", &[][..]), |(k, w)| (k.as_str(), w));
                write!(
                    f,
                    "line {line}: the key {} appears twice",
                    asv_error::quote::json_string(key)
                )?;
                if !within.is_empty() {
                    write!(f, " in {}", asv_model::json::display_path(within))?;
                }
                Ok(())
            }
            LockProblem::Missing(key) => write!(f, "has no \"{key}\" object"),
            LockProblem::NotAnObject(key) => write!(f, "\"{key}\" is not an object"),
            LockProblem::BadResolutionId(id) => write!(
                f,
                "resolutions has the key {}, which is not a contract id",
                asv_error::quote::json_string(id)
            ),
            LockProblem::BadDependency(skill) => write!(
                f,
                "dependencies has the key {}, which does not name one skill directory",
                asv_error::quote::json_string(skill)
            ),
            LockProblem::ResolutionNotObject(id) => write!(f, "resolutions.{id} is not an object"),
            LockProblem::BadDigest { id, field } => write!(
                f,
                "resolutions.{id}.{field} is not a digest of the form sha256:<64 lowercase hex digits>"
            ),
            LockProblem::BadPlacement { at, what } => write!(f, "{at} {what}"),
            LockProblem::BadKind(id) => {
                write!(f, "resolutions.{id}.kind is not \"raw\"")
            }
            LockProblem::BadSource { name, problem } => {
                write!(f, "sources.{}", DisplayPath(name))?;
                if let Some(field) = problem.field() {
                    write!(f, ".{field}")?;
                }
                write!(f, " {problem}")
            }
        }
    }
}
