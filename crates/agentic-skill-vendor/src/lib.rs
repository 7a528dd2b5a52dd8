//! The program behind both binaries, `agentic-skill-vendor` and its short name `asv`: parse,
//! run, render, pick the exit code. No logic. A library only so the two binaries are one
//! program compiled once (issue 31 §4); it is no interface to build on, and [`main`] is all
//! it offers.

mod cli;
mod commands;
mod error;
mod exit;
mod paths;
mod progress;
mod render;
mod run;
mod settings;
mod style;
mod summary;

use std::io::Write;
use std::process::ExitCode;

/// Runs the program on the process's own command line and returns its exit code: what
/// each binary's `main` does, and all it does.
pub fn main() -> ExitCode {
    // Read once, before anything can fail: the panic hook and a refused command line say
    // their words in the format and colours asked for, as a parsed one does.
    let early = cli::Early::scan(std::env::args_os());
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unexpected failure".to_owned());
        let paint = style::Paint::stderr(early.color);
        let label = paint.label(style::Label::Internal);
        let _ = writeln!(std::io::stderr(), "{label} {message}");
    }));
    match std::panic::catch_unwind(|| run::main(early)) {
        Ok(code) => code,
        Err(_) => ExitCode::from(2),
    }
}
