//! OpenSSH allowed-signers files: who may sign, with which key, for what, and when.
//!
//! The format is ssh-keygen's (`ssh-keygen(1)`, "ALLOWED SIGNERS"), one signer a line:
//!
//! ```text
//! # principals        options                                   key
//! alice@example.com   namespaces="git",valid-after="20240101Z"  ssh-ed25519 AAAAC3Nz… alice's laptop
//! "bob, ci"           ssh-ed25519 AAAAC3Nz…
//! ```
//!
//! Principals are a comma-separated list of patterns (quoted when they hold spaces). The
//! options are `namespaces="…"` (a pattern list the signature's namespace must match),
//! `valid-after="…"` and `valid-before="…"` (`YYYYMMDD[HHMM[SS]]`, read as UTC with or without
//! the trailing `Z`) and `cert-authority` (the key signs certificates; this crate does not
//! verify signatures made with certificates, so such a line never accepts one). Any other
//! option refuses the file, as it does in ssh-keygen.

use ssh_key::{HashAlg, PublicKey};

use crate::error::Error;

/// One line of an allowed-signers file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedSigner {
    /// The line, from 1.
    pub line: usize,
    /// The principals as written (a comma-separated pattern list).
    pub principals: String,
    /// The `namespaces="…"` pattern list, when the line restricts them.
    pub namespaces: Option<String>,
    /// `valid-after`, in seconds since 1970 (UTC).
    pub valid_after: Option<i64>,
    /// `valid-before`, in seconds since 1970 (UTC).
    pub valid_before: Option<i64>,
    /// Whether the key is a certificate authority's (`cert-authority`).
    pub cert_authority: bool,
    /// The key.
    pub key: PublicKey,
    /// The key's `SHA256:` fingerprint, as ssh-keygen prints it.
    pub fingerprint: String,
}

impl AllowedSigner {
    /// Whether the line allows a signature made at `at` (no time: every time is allowed).
    pub fn valid_at(&self, at: Option<i64>) -> bool {
        let Some(at) = at else { return true };
        self.valid_after.is_none_or(|after| at >= after)
            && self.valid_before.is_none_or(|before| at <= before)
    }

    /// Whether the line allows signatures in `namespace`.
    pub fn allows_namespace(&self, namespace: &str) -> bool {
        self.namespaces
            .as_deref()
            .is_none_or(|list| crate::pattern::matches_list(namespace, list))
    }

    /// Whether `principal` is one the line names (or matches by pattern).
    pub fn names(&self, principal: &str) -> bool {
        crate::pattern::matches_list(principal, &self.principals)
    }
}

/// An allowed-signers file, parsed: its signers in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowedSigners {
    /// The signers, one per line that holds one.
    pub signers: Vec<AllowedSigner>,
}

impl AllowedSigners {
    /// Parses the text of an allowed-signers file (blank lines and `#` comments skipped).
    ///
    /// # Errors
    /// The first line that is not of the form above: no key, a key that does not decode, an
    /// unknown option, a time that is no date, `valid-after` later than `valid-before`.
    pub fn parse(text: &str) -> Result<AllowedSigners, Error> {
        let mut signers = Vec::new();
        for (index, raw) in text.lines().enumerate() {
            let line = raw.trim_start();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let signer = parse_line(index + 1, line.trim_end_matches('\r')).map_err(|problem| {
                Error::AllowedSigners {
                    line: index + 1,
                    problem,
                }
            })?;
            signers.push(signer);
        }
        Ok(AllowedSigners { signers })
    }

    /// The lines holding `key` (never a `cert-authority` line: such a key signs certificates,
    /// not content), in file order.
    pub fn lines_for<'a>(&'a self, key: &'a PublicKey) -> impl Iterator<Item = &'a AllowedSigner> {
        self.signers
            .iter()
            .filter(move |s| !s.cert_authority && s.key.key_data() == key.key_data())
    }

    /// Whether a line still holds the key of `fingerprint` for `principal`: what a recorded
    /// signer is checked against offline (no time, no namespace).
    pub fn holds(&self, principal: &str, fingerprint: &str) -> bool {
        self.signers.iter().any(|s| {
            !s.cert_authority
                && s.fingerprint == fingerprint
                && (s.principals == principal || s.names(principal))
        })
    }
}

/// The `SHA256:` fingerprint of a key, as `ssh-keygen -l` prints it.
pub fn fingerprint(key: &PublicKey) -> String {
    key.fingerprint(HashAlg::Sha256).to_string()
}

/// Reads one non-comment line: principals, then options unless the next word is a key type,
/// then the key (type and base64; a comment may follow).
fn parse_line(number: usize, line: &str) -> Result<AllowedSigner, String> {
    let (principals, rest) = take_word(line)?;
    if principals.is_empty() {
        return Err("it names no principal".into());
    }
    let rest = rest.trim_start();
    let (options, rest) = if looks_like_key_type(first_word(rest)) {
        (None, rest)
    } else {
        let (options, rest) = take_word(rest)?;
        (Some(options), rest.trim_start())
    };
    let mut words = rest.split_whitespace();
    let (Some(kind), Some(data)) = (words.next(), words.next()) else {
        return Err("it has no key (a key type and its base64 data)".into());
    };
    if !looks_like_key_type(kind) {
        return Err(format!("{kind:?} is not an SSH key type"));
    }
    let key = PublicKey::from_openssh(&format!("{kind} {data}"))
        .map_err(|e| format!("its {kind} key does not decode ({e})"))?;
    let mut signer = AllowedSigner {
        line: number,
        principals,
        namespaces: None,
        valid_after: None,
        valid_before: None,
        cert_authority: false,
        fingerprint: fingerprint(&key),
        key,
    };
    if let Some(options) = options {
        apply_options(&mut signer, &options)?;
    }
    if let (Some(after), Some(before)) = (signer.valid_after, signer.valid_before)
        && after > before
    {
        return Err("its valid-after is later than its valid-before".into());
    }
    Ok(signer)
}

fn first_word(text: &str) -> &str {
    text.split_whitespace().next().unwrap_or("")
}

/// Key types as OpenSSH names them, certificates and security keys included (so that a line
/// with such a key is read as a key, not as options).
fn looks_like_key_type(word: &str) -> bool {
    word.starts_with("ssh-")
        || word.starts_with("ecdsa-sha2-")
        || word.starts_with("sk-ssh-")
        || word.starts_with("sk-ecdsa-")
}

/// One word up to whitespace outside double quotes; a word wholly quoted loses its quotes.
fn take_word(text: &str) -> Result<(String, &str), String> {
    if let Some(quoted) = text.strip_prefix('"') {
        let end = quoted
            .find('"')
            .ok_or_else(|| "a quote is not closed".to_string())?;
        return Ok((quoted[..end].to_string(), &quoted[end + 1..]));
    }
    let mut in_quotes = false;
    for (i, c) in text.char_indices() {
        match c {
            '"' => in_quotes = !in_quotes,
            c if c.is_whitespace() && !in_quotes => return Ok((text[..i].to_string(), &text[i..])),
            _ => {}
        }
    }
    if in_quotes {
        return Err("a quote is not closed".into());
    }
    Ok((text.to_string(), ""))
}

/// The comma-separated options (commas inside quotes belong to a value).
fn apply_options(signer: &mut AllowedSigner, options: &str) -> Result<(), String> {
    let mut parts = Vec::new();
    let (mut start, mut in_quotes) = (0, false);
    for (i, c) in options.char_indices() {
        match c {
            '"' => in_quotes = !in_quotes,
            ',' if !in_quotes => {
                parts.push(&options[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&options[start..]);
    for part in parts {
        let (name, value) = match part.split_once('=') {
            Some((name, value)) => (name, Some(dequote(value)?)),
            None => (part, None),
        };
        match (name.to_ascii_lowercase().as_str(), value) {
            ("cert-authority", None) => signer.cert_authority = true,
            ("namespaces", Some(v)) => signer.namespaces = Some(v.to_string()),
            ("valid-after", Some(v)) => {
                signer.valid_after = Some(
                    crate::time::parse(v).ok_or_else(|| format!("valid-after {v:?} is no time"))?,
                );
            }
            ("valid-before", Some(v)) => {
                signer.valid_before = Some(
                    crate::time::parse(v)
                        .ok_or_else(|| format!("valid-before {v:?} is no time"))?,
                );
            }
            _ => {
                return Err(format!(
                    "{part:?} is not an option of allowed-signers files"
                ));
            }
        }
    }
    Ok(())
}

fn dequote(value: &str) -> Result<&str, String> {
    value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .ok_or_else(|| format!("the value {value:?} is not in double quotes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str =
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKPt9iMLIBE6lOsZDJaZuHhMMMidrSCv73GnWkfCDKsW";

    #[test]
    fn lines_with_and_without_options() {
        let text = format!(
            "# team\n\nalice@example.com {KEY} laptop\n\"bob, ci\" namespaces=\"git,file\",valid-after=\"20240101Z\",valid-before=\"20250101\" {KEY}\n"
        );
        let allowed = AllowedSigners::parse(&text).unwrap();
        assert_eq!(allowed.signers.len(), 2);
        let (a, b) = (&allowed.signers[0], &allowed.signers[1]);
        assert_eq!((a.line, a.principals.as_str()), (3, "alice@example.com"));
        assert!(a.namespaces.is_none() && a.valid_after.is_none());
        assert_eq!(b.principals, "bob, ci");
        assert_eq!(b.namespaces.as_deref(), Some("git,file"));
        assert_eq!(b.valid_after, Some(1_704_067_200));
        assert_eq!(b.valid_before, Some(1_735_689_600));
        assert!(b.allows_namespace("git") && !b.allows_namespace("agentic-skill-vendor"));
        assert!(b.valid_at(Some(1_704_067_200)) && !b.valid_at(Some(1_704_067_199)));
        assert!(a.fingerprint.starts_with("SHA256:"));
        assert!(allowed.holds("alice@example.com", &a.fingerprint));
        assert!(!allowed.holds("carol", &a.fingerprint));
    }

    #[test]
    fn bad_lines_are_named() {
        for (text, says) in [
            ("alice\n", "no key"),
            (&format!("alice restrict {KEY}") as &str, "not an option"),
            ("alice ssh-ed25519 AAAAnotbase64!!", "does not decode"),
            (&format!("alice valid-after=\"2024\" {KEY}"), "no time"),
            (
                &format!("alice valid-after=20240101 {KEY}"),
                "double quotes",
            ),
            (
                &format!("alice valid-after=\"20250101\",valid-before=\"20240101\" {KEY}"),
                "later than",
            ),
            (&format!("\"alice {KEY}"), "not closed"),
        ] {
            let err = AllowedSigners::parse(&format!("# x\n{text}")).unwrap_err();
            let Error::AllowedSigners { line, problem } = &err else {
                panic!("{err:?}")
            };
            assert_eq!(*line, 2, "{text}");
            assert!(problem.contains(says), "{text}: {problem}");
        }
    }

    #[test]
    fn a_cert_authority_line_holds_no_plain_key() {
        let allowed =
            AllowedSigners::parse(&format!("*@example.com cert-authority {KEY}")).unwrap();
        let key = PublicKey::from_openssh(KEY).unwrap();
        assert_eq!(allowed.lines_for(&key).count(), 0);
    }
}
