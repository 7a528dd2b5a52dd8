//! What is wrong with `vendor-skills.yaml`.

use std::fmt;

use asv_error::quote::json_string;

/// What is wrong with `vendor-skills.yaml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IntentProblem {
    /// Not UTF-8.
    NotUtf8,
    /// Not YAML; the parser's words.
    NotYaml(String),
    /// May be valid YAML but goes over a reading limit (too deep or too large).
    TooLarge(asv_model::yaml::YamlLimit),
    /// The top level, `skills` or a row is not a mapping, or `targets` not a list.
    Shape(&'static str),
    /// A row lacks `source` or `path`, or one of its values is not a string.
    Field {
        /// The skill.
        name: String,
        /// The field.
        field: &'static str,
    },
    /// A skill name that is not one.
    BadName {
        /// The name as written.
        name: String,
        /// Why not.
        problem: &'static str,
    },
    /// A row's `path` that is not `.` or a plain relative path inside the source.
    BadPath {
        /// The skill.
        name: String,
        /// The path as written.
        path: String,
        /// Why not.
        problem: asv_skilltree::PathProblem,
    },
    /// A `signed-by` that is no plain relative path in this repository (issue 33 §1).
    BadSignedBy {
        /// The skill.
        name: String,
        /// The path as written.
        file: String,
        /// Why not.
        problem: asv_skilltree::PathProblem,
    },
    /// A target that names no agent.
    UnknownTarget {
        /// As written.
        name: String,
        /// The nearest agent names.
        nearest: Vec<&'static str>,
        /// Every agent name.
        known: Vec<&'static str>,
    },
    /// `skills:` written in flow style (`{…}`), which a line edit cannot extend.
    FlowSkills,
    /// A file laid out so that the line edit adding or removing a row would not read back as
    /// meant: broken YAML, or another row or the targets changed with it.
    EditMisread {
        /// The skill whose row was being added or removed.
        name: String,
    },
}

impl fmt::Display for IntentProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IntentProblem::NotUtf8 => f.write_str("is not valid UTF-8; save it as UTF-8"),
            IntentProblem::NotYaml(message) => write!(f, "is not YAML: {message}"),
            IntentProblem::TooLarge(limit) => write!(f, "is {limit}; {}", limit.advice()),
            IntentProblem::Shape(what) => f.write_str(what),
            IntentProblem::Field { name, field } => write!(
                f,
                "the skill {} needs {field}: as a string (source: owner/repo, a git URL or a local directory; path: the skill's directory in it)",
                asv_error::quote::json_string(name)
            ),
            IntentProblem::BadName { name, problem } => write!(
                f,
                "the skill name {} {problem}",
                asv_error::quote::json_string(name)
            ),
            IntentProblem::BadPath {
                name,
                path,
                problem,
            } => write!(
                f,
                "the path {} of the skill {} {problem}; give . or the skill's directory inside its source as a plain relative path",
                json_string(path),
                json_string(name)
            ),
            IntentProblem::BadSignedBy {
                name,
                file,
                problem,
            } => write!(
                f,
                "the signed-by {} of the skill {} {problem}; give the allowed-signers file's path in this repository, from its root",
                json_string(file),
                json_string(name)
            ),
            IntentProblem::UnknownTarget {
                name,
                nearest,
                known,
            } => {
                write!(f, "the target {} names no agent", asv_error::quote::json_string(name))?;
                if !nearest.is_empty() {
                    write!(f, "; did you mean {}?", nearest.join(" or "))?;
                }
                write!(f, " (the agents: {})", known.join(", "))
            }
            IntentProblem::FlowSkills => f.write_str(
                "skills: is written on one line ({…}); write it as a block, one skill a key, so the tool can add and remove rows",
            ),
            IntentProblem::EditMisread { name } => write!(
                f,
                "adding or removing the row of {} would change more than that row, as the file is laid out; write skills: at the left edge with each skill two spaces in and its fields four, or edit the row by hand",
                json_string(name)
            ),
        }
    }
}
