//! Keeping the table of origins up to date by editing its lines in place.
//!
//! When `vendor-manifest.yaml` exists, `gen` keeps its `contracts` block in step with the
//! declarations: a row no skill declares any more is taken out (`unmapped: <id>`), whether it
//! names `local` or a registered source (raw `files` rows are never taken out; a row whose key
//! is quoted refuses the run, as in the TypeScript tool), and a declared
//! contract found at `contracts/<id>.md` without a row gets a `source: local` row
//! (`mapped: <id> <- local`). A contract with a row — a remote one included — never gets a
//! second one. The file is never re-rendered:
//! rows are added and removed as lines, so comments, order and line endings survive. A block
//! written in flow style leaves nowhere to add a line and is refused.

use asv_fs::{EntryKind, Root};
use asv_model::declaration::is_js_whitespace;
use asv_model::id::ContractId;

use crate::error::{Error, ManifestProblem, Result};
use crate::manifest::{MANIFEST_FILE, Manifest, Origin, standard_path};
use crate::report::Event;
use crate::repository::Repository;

/// The table as `gen` revises it: its new text, what it parses to, and the report lines.
#[derive(Debug)]
pub struct RevisedTable {
    /// The revised text, to be written by `gen`'s write phase.
    pub text: String,
    /// What the revised text parses to.
    pub manifest: Manifest,
    /// `unmapped` lines (sorted), then `mapped` lines (sorted).
    pub events: Vec<Event>,
}

fn refuse(problem: ManifestProblem) -> Error {
    Error::Manifest {
        line: None,
        problem,
    }
}

/// A manifest's lines and the line ending it uses.
struct Lines {
    lines: Vec<String>,
    eol: &'static str,
}

impl Lines {
    fn parse(text: &str) -> Lines {
        let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let body = text
            .strip_suffix("\r\n")
            .or_else(|| text.strip_suffix('\n'))
            .unwrap_or(text);
        let lines = if text.is_empty() {
            Vec::new()
        } else {
            body.split('\n')
                .map(|l| l.strip_suffix('\r').unwrap_or(l).to_owned())
                .collect()
        };
        Lines { lines, eol }
    }

    fn render(&self) -> String {
        let mut out = String::new();
        for line in &self.lines {
            out.push_str(line);
            out.push_str(self.eol);
        }
        out
    }

    /// Rest after `prefix` is whitespace, optionally followed by a `#` comment.
    fn only_comment_after(rest: &str) -> bool {
        let rest = rest.trim_start_matches(is_js_whitespace);
        rest.is_empty() || rest.starts_with('#')
    }

    /// The index of the block-form `contracts:` line, refusing a flow-style one.
    fn block(&self) -> Result<Option<usize>> {
        self.named_block("contracts")
    }

    /// The index of the block-form `<name>:` line, refusing a flow-style one.
    fn named_block(&self, name: &'static str) -> Result<Option<usize>> {
        let key = format!("{name}:");
        let open = self.lines.iter().position(|l| {
            l.strip_prefix(key.as_str())
                .is_some_and(Self::only_comment_after)
        });
        if open.is_none()
            && self.lines.iter().any(|l| {
                l.strip_prefix(key.as_str())
                    .is_some_and(|r| r.is_empty() || r.starts_with(is_js_whitespace))
            })
        {
            return Err(refuse(ManifestProblem::FlowBlock { block: name }));
        }
        Ok(open)
    }

    /// The index one past the block opened at `open`.
    fn block_end(&self, open: usize) -> usize {
        (open + 1..self.lines.len())
            .find(|&i| {
                let l = &self.lines[i];
                !l.trim().is_empty() && !l.trim_start().starts_with('#') && !l.starts_with(' ')
            })
            .unwrap_or(self.lines.len())
    }

    fn with_entry(&mut self, id: &ContractId, source: &str) -> Result<()> {
        let entry = vec![
            format!("  {}:", crate::table_key::key_of(id)),
            format!("    source: {source}"),
        ];
        self.with_block_entry("contracts", entry)
    }

    /// Adds `entry` (already indented) at the end of the block `name`, creating the block at
    /// the end of the document (after a blank line) when there is none.
    fn with_block_entry(&mut self, name: &'static str, entry: Vec<String>) -> Result<()> {
        match self.named_block(name)? {
            None => {
                if self.lines.last().is_some_and(|l| !l.trim().is_empty()) {
                    self.lines.push(String::new());
                }
                self.lines.push(format!("{name}:"));
                self.lines.extend(entry);
            }
            Some(open) => {
                let end = self.block_end(open);
                let after = (open + 1..end)
                    .rev()
                    .find(|&i| {
                        let l = &self.lines[i];
                        !l.is_empty() && !l.trim_start().starts_with('#')
                    })
                    .unwrap_or(open);
                for (k, line) in entry.into_iter().enumerate() {
                    self.lines.insert(after + 1 + k, line);
                }
            }
        }
        Ok(())
    }

    /// Takes the entry of `id` out; `false` when it is not written in block form with a plain
    /// key.
    ///
    /// A quoted key (`"9":`) is left where it is, so the run is refused as the TypeScript
    /// tool refuses it: its scribe finds only plain keys (issue 29 §6), and a row one tool
    /// takes out while the other stops on it would make `gen` succeed or fail by which tool
    /// ran it.
    fn without_entry(&mut self, id: &ContractId) -> Result<bool> {
        let Some(open) = self.block()? else {
            return Ok(false);
        };
        let end = self.block_end(open);
        let head = format!("  {id}:");
        let Some(start) = (open + 1..end).find(|&i| {
            self.lines[i]
                .strip_prefix(head.as_str())
                .is_some_and(Self::only_comment_after)
        }) else {
            return Ok(false);
        };
        let mut stop = start + 1;
        while stop < end && self.lines[stop].starts_with("    ") {
            stop += 1;
        }
        self.lines.drain(start..stop);
        Ok(true)
    }
}

/// Adds a source registration (`sources:` block) and `source: <name>` rows for `ids` to the
/// table's text (empty text for a table that does not exist yet).
///
/// # Errors
/// A flow-style `sources` or `contracts` block.
pub fn with_source(
    text: &str,
    name: &str,
    repository: &str,
    reference: &str,
    ids: &[ContractId],
) -> Result<String> {
    let mut lines = Lines::parse(text);
    lines.with_block_entry(
        "sources",
        vec![
            format!("  {name}:"),
            format!("    repository: {repository}"),
            format!("    ref: {reference}"),
        ],
    )?;
    for id in ids {
        lines.with_entry(id, name)?;
    }
    Ok(lines.render())
}

/// Adds `source: <source>` rows to the table's text.
///
/// # Errors
/// A flow-style `contracts` block.
pub fn with_rows(text: &str, rows: &[(ContractId, String)]) -> Result<String> {
    let mut lines = Lines::parse(text);
    for (id, source) in rows {
        lines.with_entry(id, source)?;
    }
    Ok(lines.render())
}

/// Revises the table against the declarations; `None` when there is no table or nothing to
/// change.
///
/// # Errors
/// A row to take out that is not written in a form this tool can take out; a flow-style
/// `contracts` block where a row must be added; a link or wrong kind at a canonical text.
pub fn revise(repo: &Repository<'_>) -> Result<Option<RevisedTable>> {
    let root: &Root = repo.root;
    let Some(bytes) = root.read_file_capped(
        MANIFEST_FILE,
        asv_model::layout::SETTINGS_LIMIT,
        asv_model::layout::SETTINGS_LIMIT_WHAT,
    )?
    else {
        return Ok(None);
    };
    let before = String::from_utf8(bytes).map_err(|_| Error::not_utf8(MANIFEST_FILE))?;
    let mut lines = Lines::parse(&before);
    let declared: std::collections::BTreeSet<&ContractId> =
        repo.skills.iter().flat_map(|s| s.declared.iter()).collect();
    let mut unmapped = Vec::new();
    for (id, origin) in &repo.manifest.contracts {
        if declared.contains(id) || matches!(origin, Origin::Raw(_)) {
            continue;
        }
        if !lines.without_entry(id)? {
            return Err(refuse(ManifestProblem::RowNotRemovable { id: id.clone() }));
        }
        unmapped.push(Event::Unmapped { id: id.clone() });
    }
    let mut mapped = Vec::new();
    for id in declared {
        if repo.manifest.contracts.contains_key(id) {
            continue;
        }
        let path = standard_path(id);
        match root.kind(&path)? {
            Some(EntryKind::File) => {}
            None => continue,
            Some(EntryKind::Symlink) => return Err(asv_fs::Error::Symlink { path }.into()),
            Some(found) => {
                return Err(asv_fs::Error::WrongKind {
                    path,
                    expected: EntryKind::File,
                    found,
                }
                .into());
            }
        }
        lines.with_entry(id, "local")?;
        mapped.push(Event::Mapped {
            id: id.clone(),
            source: "local".to_owned(),
        });
    }
    let text = lines.render();
    if unmapped.is_empty() && mapped.is_empty() {
        return Ok(None);
    }
    let manifest = Manifest::parse(&text)?;
    let mut events = unmapped;
    events.extend(mapped);
    Ok(Some(RevisedTable {
        text,
        manifest,
        events,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> ContractId {
        ContractId::parse(s).unwrap()
    }

    fn add(text: &str, i: &str) -> String {
        let mut l = Lines::parse(text);
        l.with_entry(&id(i), "local").unwrap();
        l.render()
    }

    fn remove(text: &str, i: &str) -> Option<String> {
        let mut l = Lines::parse(text);
        l.without_entry(&id(i)).unwrap().then(|| l.render())
    }

    #[test]
    fn adding_rows() {
        let rows: &[(&str, &str)] = &[
            (
                "contracts:\r\n  report-format:\r\n    source: local\r\n",
                "contracts:\r\n  report-format:\r\n    source: local\r\n  x:\r\n    source: local\r\n",
            ),
            (
                "sources:\n  w:\n    repository: o/r\n    ref: main\n",
                "sources:\n  w:\n    repository: o/r\n    ref: main\n\ncontracts:\n  x:\n    source: local\n",
            ),
            ("", "contracts:\n  x:\n    source: local\n"),
            (
                "# just a comment",
                "# just a comment\n\ncontracts:\n  x:\n    source: local\n",
            ),
            (
                "contracts:\n  a:\n    source: local\n\n# trailing comment\nignore: []\n",
                "contracts:\n  a:\n    source: local\n  x:\n    source: local\n\n# trailing comment\nignore: []\n",
            ),
            ("contracts:\n", "contracts:\n  x:\n    source: local\n"),
            (
                "contracts:   # ours\n",
                "contracts:   # ours\n  x:\n    source: local\n",
            ),
        ];
        for (before, after) in rows {
            assert_eq!(add(before, "x"), *after, "{before:?}");
        }
        // Issue 29 §6: plain where the TypeScript tool reads the key back as the id, quoted
        // where it would read another (`007` as 7).
        let keys = [
            ("123", "  123:"),
            ("true", "  true:"),
            ("null", "  null:"),
            ("007", "  \"007\":"),
            ("1e3", "  \"1e3\":"),
        ];
        for (i, head) in keys {
            assert_eq!(
                add("contracts:\n", i),
                format!("contracts:\n{head}\n    source: local\n"),
                "{i}"
            );
            let text = add("contracts:\n", i);
            assert!(
                Manifest::parse(&text)
                    .unwrap()
                    .contracts
                    .contains_key(&id(i)),
                "{i}"
            );
        }
    }

    #[test]
    fn removing_rows() {
        let text = "contracts:\n  # kept\n  a:   # goes\n    source: local\n    # indented goes\n  b:\n    source: local\n# column 0 kept\n  c:\n    source: local\n";
        assert_eq!(
            remove(text, "a").unwrap(),
            "contracts:\n  # kept\n  b:\n    source: local\n# column 0 kept\n  c:\n    source: local\n"
        );
        assert_eq!(
            remove(text, "c").unwrap(),
            "contracts:\n  # kept\n  a:   # goes\n    source: local\n    # indented goes\n  b:\n    source: local\n# column 0 kept\n"
        );
        assert_eq!(remove("contracts:\n  a: {source: local}\n", "a"), None);
        // Issue 29 §6: only a plain key is taken out, as the TypeScript tool takes out only
        // those; a quoted one is left for the run to refuse.
        assert_eq!(
            remove("contracts:\n  \"a\":\n    source: local\n", "a"),
            None
        );
        assert_eq!(remove("contracts:\n  '9':\n    source: local\n", "9"), None);
        assert_eq!(
            remove(
                "contracts:\n  9:\n    source: local\n  007:\n    source: local\n",
                "007"
            )
            .unwrap(),
            "contracts:\n  9:\n    source: local\n"
        );
        assert_eq!(remove("sources:\n  a:\n    ref: x\n", "a"), None);
        assert_eq!(
            remove("contracts:\n  a:\n    source: local\n", "a").unwrap(),
            "contracts:\n"
        );
    }

    #[test]
    fn remote_rows_are_kept_while_declared_and_taken_out_after() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::open(dir.path()).unwrap();
        let table = "sources:\n  w:\n    repository: o/r\n    ref: main\n\ncontracts:\n  remote-one:\n    source: w\n  gone:\n    source: w\n";
        root.write_file(MANIFEST_FILE, table.as_bytes()).unwrap();
        // A local text by the same id does not earn a local row while the remote row stands.
        root.write_file("contracts/remote-one.md", b"x\n").unwrap();
        root.write_file(
            "skills/s/SKILL.md",
            b"---\nmetadata:\n  contracts: [remote-one]\n---\n",
        )
        .unwrap();
        let repo = Repository::load(&root).unwrap();
        let revised = revise(&repo).unwrap().unwrap();
        assert_eq!(
            revised.text,
            "sources:\n  w:\n    repository: o/r\n    ref: main\n\ncontracts:\n  remote-one:\n    source: w\n"
        );
        let lines: Vec<String> = revised.events.iter().map(Event::line_text).collect();
        assert_eq!(lines, ["unmapped: gone"]);
        assert!(matches!(
            revised.manifest.contracts[&id("remote-one")],
            Origin::Remote { .. }
        ));
    }

    #[test]
    fn a_source_and_its_rows_are_added() {
        assert_eq!(
            with_source(
                "",
                "workflow",
                "ba0918/agentic-workflow",
                "main",
                &[id("tdd-contract")]
            )
            .unwrap(),
            "sources:\n  workflow:\n    repository: ba0918/agentic-workflow\n    ref: main\n\ncontracts:\n  tdd-contract:\n    source: workflow\n"
        );
        assert_eq!(
            with_source(
                "contracts:\n  a:\n    source: local\n",
                "w",
                "o/r",
                "main",
                &[]
            )
            .unwrap(),
            "contracts:\n  a:\n    source: local\n\nsources:\n  w:\n    repository: o/r\n    ref: main\n"
        );
    }

    #[test]
    fn flow_blocks_are_refused() {
        let mut l = Lines::parse("contracts: {a: {source: local}}\n");
        assert!(matches!(
            l.with_entry(&id("x"), "local"),
            Err(Error::Manifest {
                line: None,
                problem: ManifestProblem::FlowBlock { block: "contracts" },
            })
        ));
    }
}
