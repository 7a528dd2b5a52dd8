//! Progress drawn on stderr while long work runs: the libraries report their steps
//! ([`asv_model::progress::Watch`]), this draws them with indicatif, one line per open step (a
//! bar where the step knows its length, a spinner where it does not), and clears each when its
//! step ends, so a finished run leaves only its report on the screen.
//!
//! Drawn only for a person watching: stderr a terminal, text output, no `--quiet`
//! ([`Bars::wanted`]). A pipe, a log or a JSON consumer never sees a byte of it.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use asv_model::progress::{Progress, Watch};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often a spinner turns without news: often enough to show the run is alive.
const TICK: Duration = Duration::from_millis(120);

/// The bars of the open steps, innermost last.
pub struct Bars {
    multi: MultiProgress,
    open: Mutex<Vec<ProgressBar>>,
}

impl Bars {
    /// Whether progress is drawn: only on a terminal's stderr, in text, without `--quiet`.
    pub fn wanted(quiet: bool, text: bool, stderr_is_terminal: bool) -> bool {
        !quiet && text && stderr_is_terminal
    }

    /// Steps drawn on stderr when [`Bars::wanted`], else reported to nobody.
    pub fn progress(quiet: bool, text: bool, stderr_is_terminal: bool) -> Progress {
        if !Self::wanted(quiet, text, stderr_is_terminal) {
            return Progress::none();
        }
        Progress::new(Arc::new(Bars {
            // indicatif checks for a terminal again and draws nothing to anything else.
            multi: MultiProgress::with_draw_target(ProgressDrawTarget::stderr()),
            open: Mutex::new(Vec::new()),
        }))
    }

    fn open(&self) -> std::sync::MutexGuard<'_, Vec<ProgressBar>> {
        // A panic while a bar was pushed leaves a list still worth drawing from.
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// `{spinner} <what> [bar] 12/500` for a step of known length, `{spinner} <what>` otherwise.
fn style(total: Option<u64>) -> ProgressStyle {
    let template = match total {
        Some(_) => "{spinner} {msg} [{bar:30}] {pos}/{len}",
        None => "{spinner} {msg} ({elapsed})",
    };
    ProgressStyle::with_template(template)
        .unwrap_or_else(|_| ProgressStyle::default_spinner())
        .progress_chars("=> ")
}

impl Watch for Bars {
    fn begin(&self, what: &str, total: Option<u64>) {
        let bar = match total {
            Some(len) => ProgressBar::new(len),
            None => ProgressBar::new_spinner(),
        };
        let bar = self.multi.add(bar);
        bar.set_style(style(total));
        bar.set_message(what.to_owned());
        bar.enable_steady_tick(TICK);
        self.open().push(bar);
    }

    fn advance(&self, done: u64) {
        if let Some(bar) = self.open().last() {
            bar.inc(done);
        }
    }

    fn end(&self) {
        if let Some(bar) = self.open().pop() {
            bar.finish_and_clear();
            self.multi.remove(&bar);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Bars;

    #[test]
    fn drawn_only_for_a_person_watching() {
        // (quiet, text, terminal, drawn)
        let rows = [
            (false, true, true, true),
            (true, true, true, false),
            (false, false, true, false),
            (false, true, false, false),
        ];
        for (quiet, text, terminal, drawn) in rows {
            assert_eq!(
                Bars::wanted(quiet, text, terminal),
                drawn,
                "{quiet} {text} {terminal}"
            );
            assert_eq!(
                Bars::progress(quiet, text, terminal).is_watched(),
                drawn,
                "{quiet} {text} {terminal}"
            );
        }
    }
}
