//! Runs as snapshot texts: exit code, stdout and stderr in one text, with the paths that
//! differ between machines filtered out.

use crate::repo::Run;

/// A run as one text for a snapshot: the exit code, then stdout and stderr, each closed by the
/// next marker line so that nothing at the end of a stream is lost to insta's trimming: a
/// stream not ending in a line feed says so, and a CR shows as `␍` (insta would turn CRLF into
/// LF). An escape shows as `␛`, so a coloured run (`--color always`) reads in a review as the
/// codes it holds, `␛[33mmodified␛[0m`, instead of painting the reviewer's terminal.
pub fn render(run: &Run) -> String {
    fn stream(text: &str) -> String {
        let mut shown = text.replace('\r', "␍").replace('\u{1b}', "␛");
        if !shown.is_empty() && !shown.ends_with('\n') {
            shown.push_str("\n[no line feed at the end]\n");
        }
        shown
    }
    format!(
        "exit: {}\n----- stdout -----\n{}----- stderr -----\n{}----- end -----\n",
        run.code,
        stream(&run.stdout),
        stream(&run.stderr)
    )
}

/// One row of a table of runs for `assert_run_snapshot!(text: ...)`: a `$ ` line naming what
/// was run (`label`), then the run as [`render`] shows it, with `root` (the repository the row
/// ran in, made afresh for each row) shown as `[ROOT]` in both.
pub fn labelled(label: &str, run: &Run, root: &std::path::Path) -> String {
    let root = root.display().to_string();
    format!("$ {label}\n{}", render(run)).replace(&root, "[ROOT]")
}

/// The insta filter for what differs between machines and runs: every directory `tempfile` made
/// below the system's temporary directory (upstream repositories, scratch trees) shows as
/// `[TEMP]`.
pub fn temp_filter() -> (String, &'static str) {
    let tmp = std::env::temp_dir().display().to_string();
    let escaped: String = tmp
        .trim_end_matches('/')
        .chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$#&-~".contains(c);
            special.then_some('\\').into_iter().chain([c])
        })
        .collect();
    (format!(r"{escaped}/\.tmp[0-9A-Za-z]+"), "[TEMP]")
}

/// The insta filter for the port a test server listens on: the system picks a free one each
/// run, so `127.0.0.1:<port>` (the git server's and the fake GitHub's URLs) shows as
/// `127.0.0.1:[PORT]`.
pub fn port_filter() -> (&'static str, &'static str) {
    (r"127\.0\.0\.1:[0-9]+", "127.0.0.1:[PORT]")
}

/// Snapshots a [`Run`] (exit code, stdout and stderr in one text, see [`render`]) under
/// `tests/it/snapshots/`, named `it__<module>__<name>.snap`. With a repository as third
/// argument its root shows as `[ROOT]`; any other temporary directory shows as `[TEMP]`, and
/// a local server's port as `[PORT]`.
///
/// `assert_run_snapshot!(text: name, text)` snapshots a text made of several runs (a table of
/// refusals, one [`labelled`](crate::snapshot::labelled) run a row), with the same filters, so a table is asserted whole
/// in one file rather than one fragment a row.
///
/// Review a changed snapshot with `cargo insta review` (crates/README.md, "Tests").
#[macro_export]
macro_rules! assert_run_snapshot {
    (text: $name:expr, $text:expr $(,)?) => {{
        let text: String = $text;
        $crate::assert_run_snapshot!(@filtered $name, text, stringify!($text));
    }};
    (@filtered $name:expr, $text:expr, $expression:expr) => {{
        let mut settings = $crate::insta::Settings::clone_current();
        let (regex, replacement) = $crate::snapshot::temp_filter();
        settings.add_filter(&regex, replacement);
        let (regex, replacement) = $crate::snapshot::port_filter();
        settings.add_filter(regex, replacement);
        settings.bind(|| $crate::insta::assert_snapshot!($name, $text, $expression));
    }};
    ($name:expr, $run:expr $(,)?) => {{
        let text = $crate::snapshot::render(&$run);
        $crate::assert_run_snapshot!(@filtered $name, text, stringify!($run));
    }};
    ($name:expr, $run:expr, $repo:expr $(,)?) => {{
        let root = $repo.path().display().to_string();
        let text = $crate::snapshot::render(&$run).replace(&root, "[ROOT]");
        $crate::assert_run_snapshot!(@filtered $name, text, stringify!($run));
    }};
}

/// What insta trims or normalises (trailing line feeds, CRLF) still shows in [`render`], so a
/// snapshot holds a run as exactly as comparing its fields did.
#[cfg(test)]
#[test]
fn render_keeps_what_insta_would_trim() {
    let run = |stdout: &str| Run {
        code: 0,
        stdout: stdout.to_owned(),
        stderr: String::new(),
    };
    let texts: Vec<String> = ["a", "a\n", "a\n\n", "a\r\n", "", "\u{1b}[33ma\u{1b}[0m"]
        .iter()
        .map(|s| render(&run(s)).trim_end().replace("\r\n", "\n"))
        .collect();
    for (i, a) in texts.iter().enumerate() {
        for b in &texts[i + 1..] {
            assert_ne!(a, b);
        }
    }
    assert!(texts[5].contains("␛[33ma␛[0m"), "{}", texts[5]);
    let (regex, _) = temp_filter();
    assert!(regex.ends_with(r"/\.tmp[0-9A-Za-z]+"), "{regex}");
}
