//! Colour on a terminal: when a stream gets it (`--color`, `NO_COLOR`, whether it is a
//! terminal), and the few things coloured — the `error:` and `warning:` labels on stderr, the
//! state words of `skill status` and the parts of `skill diff`'s lines.
//!
//! Colour only ever wraps text in escape sequences: with colour off every line is byte for byte
//! what it is without this module, so a pipe, a file or a CI log reads exactly as before. It is
//! put on a part of a line where the renderer makes the line, by what the part is, never by
//! reading a finished line back (issue 28 §2).

use std::ffi::OsStr;
use std::io::IsTerminal;

use anstyle::{AnsiColor, Style};
use asv_skills::status::State;

use crate::cli::ColorChoice;

const RED: Style = AnsiColor::Red.on_default();
const GREEN: Style = AnsiColor::Green.on_default();
const YELLOW: Style = AnsiColor::Yellow.on_default();
const CYAN: Style = AnsiColor::Cyan.on_default();
const BOLD: Style = Style::new().bold();

/// Whether one output stream is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Paint {
    on: bool,
}

/// The parts of `skill diff`'s lines that are coloured, as git colours them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffPart {
    /// A line of a file's header (`diff --git …`, `--- …`, `+++ …`, a mode line): bold.
    Header,
    /// The ranges of a hunk's head (`@@ -1,2 +1,2 @@`, not the heading after them): cyan.
    Ranges,
    /// A removed line, its `-` included: red.
    Removed,
    /// An added line, its `+` included: green.
    Added,
}

/// The labels the binary puts before a message on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Label {
    /// `warning`: worth a look, changes nothing.
    Warning,
    /// `error`: a refusal, the user's to fix.
    Error,
    /// `internal error`: a state this tool should never reach.
    Internal,
}

impl Label {
    fn text(self) -> &'static str {
        match self {
            Label::Warning => "warning",
            Label::Error => "error",
            Label::Internal => "internal error",
        }
    }

    fn style(self) -> Style {
        match self {
            Label::Warning => YELLOW.bold(),
            Label::Error | Label::Internal => RED.bold(),
        }
    }
}

impl Paint {
    /// No colour, whatever the stream (a format other than text).
    pub const OFF: Paint = Paint { on: false };

    /// Decides for one stream: `never` and `always` say it; `auto` colours a terminal unless
    /// `NO_COLOR` is set to something (<https://no-color.org>) or `TERM` is `dumb`.
    pub fn decide(
        choice: ColorChoice,
        no_color: Option<&OsStr>,
        term: Option<&OsStr>,
        is_terminal: bool,
    ) -> Paint {
        let on = match choice {
            ColorChoice::Never => false,
            ColorChoice::Always => true,
            ColorChoice::Auto => {
                is_terminal
                    && no_color.is_none_or(OsStr::is_empty)
                    && term.is_none_or(|t| t != "dumb")
            }
        };
        Paint { on }
    }

    /// [`Paint::decide`] for standard output, from the environment.
    pub fn stdout(choice: ColorChoice) -> Paint {
        Self::from_environment(choice, std::io::stdout().is_terminal())
    }

    /// [`Paint::decide`] for standard error, from the environment.
    pub fn stderr(choice: ColorChoice) -> Paint {
        Self::from_environment(choice, std::io::stderr().is_terminal())
    }

    fn from_environment(choice: ColorChoice, is_terminal: bool) -> Paint {
        // The environment is read only where it can change the answer: for a terminal, under
        // `auto`. What goes into a pipe or a file never depends on it.
        if choice != ColorChoice::Auto || !is_terminal {
            return Self::decide(choice, None, None, is_terminal);
        }
        let no_color = std::env::var_os("NO_COLOR");
        let term = std::env::var_os("TERM");
        Self::decide(choice, no_color.as_deref(), term.as_deref(), is_terminal)
    }

    /// `text` in `style`, or as it is with colour off.
    fn paint(self, style: Style, text: &str) -> String {
        if self.on && !text.is_empty() {
            format!("{style}{text}{style:#}")
        } else {
            text.to_owned()
        }
    }

    /// `error:`, `warning:` or `internal error:`, the word coloured.
    pub fn label(self, label: Label) -> String {
        format!("{}:", self.paint(label.style(), label.text()))
    }

    /// The state word of a `skill status` line, coloured: green for clean, yellow for
    /// modified, red for what needs a hand. The renderer puts it in its place in the line, so
    /// no finished line is read back to find the word (issue 28 §2).
    pub fn state(self, state: &State) -> String {
        let style = match state {
            State::Clean => GREEN,
            State::Modified => YELLOW,
            State::Missing | State::Invalid(_) | State::Conflicted => RED,
        };
        self.paint(style, state.as_str())
    }

    /// A part of a `skill diff` line, coloured as git colours it ([`DiffPart`]); the renderer
    /// knows which part it is making, so no line is read back to find out.
    pub fn diff(self, part: DiffPart, text: &str) -> String {
        let style = match part {
            DiffPart::Header => BOLD,
            DiffPart::Ranges => CYAN,
            DiffPart::Removed => RED,
            DiffPart::Added => GREEN,
        };
        self.paint(style, text)
    }
}

impl From<ColorChoice> for clap::ColorChoice {
    fn from(choice: ColorChoice) -> clap::ColorChoice {
        match choice {
            ColorChoice::Auto => clap::ColorChoice::Auto,
            ColorChoice::Always => clap::ColorChoice::Always,
            ColorChoice::Never => clap::ColorChoice::Never,
        }
    }
}

/// Writes warnings to stderr, each labelled; a stderr that cannot be written loses only them.
pub fn warn(warnings: &[String], paint: Paint) {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let label = paint.label(Label::Warning);
    for warning in warnings {
        let _ = writeln!(err, "{label} {warning}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn when_a_stream_is_coloured() {
        let set = Some(OsStr::new("1"));
        let empty = Some(OsStr::new(""));
        let dumb = Some(OsStr::new("dumb"));
        let xterm = Some(OsStr::new("xterm-256color"));
        // (choice, NO_COLOR, TERM, terminal, coloured)
        let rows = [
            (ColorChoice::Auto, None, xterm, true, true),
            (ColorChoice::Auto, None, None, true, true),
            (ColorChoice::Auto, None, xterm, false, false),
            (ColorChoice::Auto, set, xterm, true, false),
            (ColorChoice::Auto, empty, xterm, true, true),
            (ColorChoice::Auto, None, dumb, true, false),
            (ColorChoice::Always, set, dumb, false, true),
            (ColorChoice::Never, None, xterm, true, false),
        ];
        for (choice, no_color, term, terminal, want) in rows {
            assert_eq!(
                Paint::decide(choice, no_color, term, terminal).on,
                want,
                "{choice:?} NO_COLOR={no_color:?} TERM={term:?} terminal={terminal}"
            );
        }
    }

    #[test]
    fn colour_off_leaves_every_byte() {
        for part in [
            DiffPart::Header,
            DiffPart::Ranges,
            DiffPart::Removed,
            DiffPart::Added,
        ] {
            assert_eq!(Paint::OFF.diff(part, "--- a/x"), "--- a/x");
        }
        assert_eq!(Paint::OFF.label(Label::Internal), "internal error:");
        assert_eq!(Paint::OFF.state(&State::Clean), "clean");
    }

    #[test]
    fn diff_parts_and_state_words_are_coloured_as_git_colours_them() {
        let on = Paint { on: true };
        assert_eq!(
            on.diff(DiffPart::Header, "--- a/x"),
            format!("{BOLD}--- a/x{BOLD:#}")
        );
        assert_eq!(
            on.diff(DiffPart::Ranges, "@@ -1,2 +1,2 @@"),
            format!("{CYAN}@@ -1,2 +1,2 @@{CYAN:#}")
        );
        assert_eq!(on.diff(DiffPart::Removed, "-a"), format!("{RED}-a{RED:#}"));
        assert_eq!(
            on.diff(DiffPart::Added, "+b"),
            format!("{GREEN}+b{GREEN:#}")
        );
        // An empty part gets no escape sequences.
        assert_eq!(on.diff(DiffPart::Header, ""), "");
        let state = on.state(&State::Invalid(asv_skills::status::Invalid::Linked {
            path: "skills/x".into(),
        }));
        assert_eq!(state, format!("{RED}invalid{RED:#}"));
    }
}
