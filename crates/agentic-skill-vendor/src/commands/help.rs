//! What the binary says about itself: shell completions and the manual page, both generated
//! from the one clap definition so they never drift from `--help`.

use std::path::Path;

use crate::cli;
use crate::commands::Report;
use crate::error::Usage;

/// `completions <shell>`: the script for `shell`, completing the name the program was run
/// by: `asv completions bash` completes `asv`, `agentic-skill-vendor completions bash` the
/// long name, so each installed name can have its own.
pub fn completions(shell: clap_complete::Shell) -> Report {
    let name = cli::invoked_name();
    let mut command = cli::command().name(name).bin_name(name);
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, name, &mut script);
    let mut text = text_without_last_newline(script);
    if shell == clap_complete::Shell::Bash {
        text = bash_state_names_fixed(&text, name);
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

/// `man`: the manual page in roff; with `--out DIR`, every command's page written into `DIR`
/// as `<name>.1` (`agentic-skill-vendor-skill-pull.1`), one line per page written.
///
/// The top page lists each command as a page of its own (`agentic-skill-vendor-skill(1)`), so
/// only the set of them all is a manual whose references lead somewhere (issue 31 §4).
///
/// # Errors
/// `out` is not a directory that can be opened; a page cannot be written there.
pub fn man(out: Option<&Path>) -> crate::error::Result<Report> {
    let Some(out) = out else {
        let mut page = Vec::new();
        clap_mangen::Man::new(cli::command()).render(&mut page)?;
        return Ok(Report::new(vec![text_without_last_newline(page)], false));
    };
    let dir = asv_fs::Root::open(out).map_err(|_| Usage::NoManDirectory {
        dir: out.to_path_buf(),
    })?;
    let mut written = Vec::new();
    for (name, page) in man_pages()? {
        let file = format!("{name}.1");
        dir.write_file(&file, &page)?;
        written.push(format!("wrote: {}", out.join(file).display()));
    }
    Ok(Report::new(written, false))
}

/// Every command's manual page, by the page's name: the program's own, then each command's
/// below it (hidden ones and clap's `help` left out, as they have no help of their own).
///
/// # Errors
/// Rendering into memory cannot fail; the error is clap_mangen's own signature.
pub fn man_pages() -> crate::error::Result<Vec<(String, Vec<u8>)>> {
    // Built once, so each command knows its full name (`agentic-skill-vendor-skill-pull`)
    // and the usage line its page shows (`agentic-skill-vendor skill pull`).
    let mut top = cli::command().disable_help_subcommand(true);
    top.build();
    let mut pages = Vec::new();
    let mut todo = vec![top];
    while let Some(command) = todo.pop() {
        // Each page's footer names the program and its version, as the top page's does
        // (clap_mangen would name a command's page by its last word alone: `pull `).
        let man = clap_mangen::Man::new(command.clone()).source(format!(
            "{} {}",
            cli::NAME,
            env!("CARGO_PKG_VERSION")
        ));
        let mut page = Vec::new();
        man.render(&mut page)?;
        let name = man
            .get_filename()
            .strip_suffix(".1")
            .map(str::to_owned)
            .unwrap_or_else(|| man.get_filename());
        pages.push((name, page));
        todo.extend(
            command
                .get_subcommands()
                .filter(|c| !c.is_hide_set())
                .cloned(),
        );
    }
    pages.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(pages)
}

/// A generated text as one report line: the report adds the final line break back.
fn text_without_last_newline(bytes: Vec<u8>) -> String {
    let mut text = String::from_utf8_lossy(&bytes).into_owned();
    if text.ends_with('\n') {
        text.pop();
    }
    text
}
