//! What a skill reaches or does, gathered while its files are audited.

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};

/// What a skill can reach or do, as far as its text says: the facts a capability diff
/// compares between two versions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Capabilities {
    /// Hosts named in URLs (lowercased).
    pub hosts: BTreeSet<String>,
    /// Secret-named environment variables read (`$GITHUB_TOKEN`, `process.env.X_KEY`).
    pub secret_variables: BTreeSet<String>,
    /// Credential paths read (`~/.ssh/id_rsa`, `.env`).
    pub cred_paths: BTreeSet<String>,
    /// Commands Claude Code runs when the skill loads.
    pub dynamic_commands: BTreeSet<String>,
    /// The `allowed-tools` tokens of `SKILL.md`.
    pub allowed_tools: BTreeSet<String>,
    /// Files that run: scripts by name or header, and every file with the executable bit.
    pub scripts: BTreeSet<String>,
    /// Files with the executable bit set.
    pub executables: BTreeSet<String>,
    /// Machine code and bytecode files.
    pub binaries: BTreeSet<String>,
    /// Archives.
    pub archives: BTreeSet<String>,
    /// Invisible characters by class (`tag`, `bidi`, `variation-supplement`, `invisible`).
    pub hidden: BTreeMap<String, u64>,
}

impl Capabilities {
    /// Adds what `other` holds: every set's members, every hidden class's count. In any
    /// order the result is the same, so files scanned apart merge to what one pass gathers.
    pub(crate) fn absorb(&mut self, other: Capabilities) {
        let Capabilities {
            hosts,
            secret_variables,
            cred_paths,
            dynamic_commands,
            allowed_tools,
            scripts,
            executables,
            binaries,
            archives,
            hidden,
        } = other;
        self.hosts.extend(hosts);
        self.secret_variables.extend(secret_variables);
        self.cred_paths.extend(cred_paths);
        self.dynamic_commands.extend(dynamic_commands);
        self.allowed_tools.extend(allowed_tools);
        self.scripts.extend(scripts);
        self.executables.extend(executables);
        self.binaries.extend(binaries);
        self.archives.extend(archives);
        for (class, n) in hidden {
            *self.hidden.entry(class).or_insert(0) += n;
        }
    }

    /// Every fact as one `kind value` line, sorted: what the digest covers and what a diff
    /// compares.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (kind, set) in [
            ("allowed-tool", &self.allowed_tools),
            ("archive", &self.archives),
            ("binary", &self.binaries),
            ("credential-path", &self.cred_paths),
            ("dynamic-command", &self.dynamic_commands),
            ("executable", &self.executables),
            ("host", &self.hosts),
            ("script", &self.scripts),
            ("secret-variable", &self.secret_variables),
        ] {
            out.extend(
                set.iter()
                    .map(|v| format!("{kind} {}", crate::finding::escape(v))),
            );
        }
        out.extend(self.hidden.iter().map(|(k, n)| format!("hidden {k} {n}")));
        out
    }

    /// `sha256:` and the hex digest of [`Capabilities::lines`], each ending in a newline.
    pub fn digest(&self) -> String {
        let mut h = Sha256::new();
        for l in self.lines() {
            h.update(l.as_bytes());
            h.update(b"\n");
        }
        let mut out = String::from("sha256:");
        for b in h.finalize() {
            out.push_str(&format!("{b:02x}"));
        }
        out
    }
}
