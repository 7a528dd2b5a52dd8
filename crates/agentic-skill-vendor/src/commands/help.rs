//! What the binary says about itself: shell completions and the manual page, both generated
//! from the one clap definition so they never drift from `--help`.

use crate::cli;
use crate::commands::Report;

/// `completions <shell>`: the script for `shell`.
pub fn completions(shell: clap_complete::Shell) -> Report {
    let mut command = cli::command();
    let name = command.get_name().to_owned();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, name.clone(), &mut script);
    let mut text = text_without_last_newline(script);
    if shell == clap_complete::Shell::Bash {
        text = bash_state_names_fixed(&text, &name);
    }
    Report::new(vec![text], false)
}

/// The bash script with its case arms spelled as its dispatch loop spells them. For a binary
/// whose name holds a hyphen, clap_complete's loop escapes the name (`a-b` → `a__b`) but its
/// arms escape the whole path at once and turn the name's hyphens into the subcommand
/// separator (`a__subcmd__b`), so no arm below the top level ever matches and nothing after a
/// subcommand completes (clap-rs/clap#6421, open at the time of writing).
fn bash_state_names_fixed(script: &str, bin_name: &str) -> String {
    let arm = bin_name.replace('-', "__subcmd__");
    let state = bin_name.replace('-', "__");
    if arm == state {
        return script.to_owned();
    }
    script.replace(&arm, &state)
}

/// `man`: the manual page in roff.
///
/// # Errors
/// Writing into memory cannot fail; the error is clap_mangen's own signature.
pub fn man() -> crate::error::Result<Report> {
    let mut page = Vec::new();
    clap_mangen::Man::new(cli::command()).render(&mut page)?;
    Ok(Report::new(vec![text_without_last_newline(page)], false))
}

/// A generated text as one report line: the report adds the final line break back.
fn text_without_last_newline(bytes: Vec<u8>) -> String {
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if text.ends_with('\n') {
        text.pop();
    }
    text
}
