//! The `agentic-skill-vendor` binary: parse, run, render, pick the exit code. No logic.

mod cli;
mod commands;
mod exit;
mod paths;
mod render;
mod run;
mod settings;

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unexpected failure".to_owned());
        let _ = writeln!(std::io::stderr(), "internal error: {message}");
    }));
    match std::panic::catch_unwind(run::main) {
        Ok(code) => code,
        Err(_) => ExitCode::from(2),
    }
}
