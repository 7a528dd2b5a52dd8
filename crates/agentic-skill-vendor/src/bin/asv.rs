//! `asv`, the short name of `agentic-skill-vendor` (issue 31 §4): the same program, which
//! tells the user the commands to type next by the name it was run by.

fn main() -> std::process::ExitCode {
    agentic_skill_vendor::main()
}
