//! How a library says, while it works, what it is doing and how far it has got: a network
//! read, an import of many skills, a sync, a pull, a pack. The libraries only report steps;
//! whoever watches (the binary, on a terminal's stderr) decides how to show them, so no
//! library draws anything or knows whether anyone looks.

use std::sync::Arc;

/// Someone told about long work as it goes. Steps nest: a step begun while another is open
/// is part of it (each skill's file read inside an import of many skills), and ends first.
pub trait Watch: Send + Sync {
    /// A step begins: `what` it does, and how many units it will take when that is known
    /// (files, skills, bytes; `None` for a step that cannot tell, such as a git fetch).
    fn begin(&self, what: &str, total: Option<u64>);
    /// `done` more units of the innermost open step are done.
    fn advance(&self, done: u64);
    /// The innermost open step is over.
    fn end(&self);
}

/// Where a library reports its steps: a [`Watch`], or nobody (the default), in which case
/// every call costs a branch and nothing more.
#[derive(Clone, Default)]
pub struct Progress(Option<Arc<dyn Watch>>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Progress(watched)"
        } else {
            "Progress(none)"
        })
    }
}

impl Progress {
    /// Steps reported to `watch`.
    pub fn new(watch: Arc<dyn Watch>) -> Self {
        Progress(Some(watch))
    }

    /// Steps reported to nobody.
    pub fn none() -> Self {
        Progress(None)
    }

    /// Begins a step ([`Watch::begin`]); it ends when the returned guard is dropped, so an
    /// early return or a refusal part-way ends it too.
    #[must_use = "the step ends when the guard is dropped"]
    pub fn step(&self, what: &str, total: Option<u64>) -> Step<'_> {
        if let Some(watch) = &self.0 {
            watch.begin(what, total);
        }
        Step { progress: self }
    }

    /// Whether anyone watches: a caller may skip making a message nobody reads.
    pub fn is_watched(&self) -> bool {
        self.0.is_some()
    }
}

/// An open step of a [`Progress`]; dropping it ends the step.
pub struct Step<'p> {
    progress: &'p Progress,
}

impl Step<'_> {
    /// `done` more units of this step are done.
    pub fn advance(&self, done: u64) {
        if let Some(watch) = &self.progress.0 {
            watch.advance(done);
        }
    }
}

impl Drop for Step<'_> {
    fn drop(&mut self) {
        if let Some(watch) = &self.progress.0 {
            watch.end();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Writes down every call, to compare with what a caller did.
    #[derive(Default)]
    struct Log(Mutex<Vec<String>>);

    impl Watch for Log {
        fn begin(&self, what: &str, total: Option<u64>) {
            self.0
                .lock()
                .expect("log")
                .push(format!("begin {what} {total:?}"));
        }
        fn advance(&self, done: u64) {
            self.0.lock().expect("log").push(format!("advance {done}"));
        }
        fn end(&self) {
            self.0.lock().expect("log").push("end".to_owned());
        }
    }

    #[test]
    fn steps_nest_and_end_when_dropped() {
        let log = Arc::new(Log::default());
        let progress = Progress::new(log.clone());
        {
            let outer = progress.step("importing", Some(2));
            for _ in 0..2 {
                let inner = progress.step("reading", None);
                inner.advance(3);
                drop(inner);
                outer.advance(1);
            }
        }
        assert_eq!(
            *log.0.lock().expect("log"),
            [
                "begin importing Some(2)",
                "begin reading None",
                "advance 3",
                "end",
                "advance 1",
                "begin reading None",
                "advance 3",
                "end",
                "advance 1",
                "end",
            ]
        );
        // Nobody watching: nothing to call, and nothing fails.
        let none = Progress::none();
        assert!(!none.is_watched());
        none.step("x", Some(1)).advance(1);
    }
}
