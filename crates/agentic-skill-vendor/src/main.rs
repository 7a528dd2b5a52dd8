//! `agentic-skill-vendor`: the whole program is the library of this package, shared with the
//! short name `asv` (`src/bin/asv.rs`).

fn main() -> std::process::ExitCode {
    agentic_skill_vendor::main()
}
