//! Secrets written into a skill, and secrets a skill sends over the network.
//!
//! Literal secrets are looked for in the text as it stands and in the text with quoted
//! fragments and line continuations joined, so a token written as `"ghp_ab" + "cd…"` is
//! still one token. A secret-named variable on a line that calls the network, outside the
//! places a credential belongs (an authorization header, a user option), is a secret sent
//! away.

use std::sync::LazyLock;

use regex::Regex;

use crate::capabilities::Capabilities;
use crate::finding::{Finding, Lines};
use crate::keywords::{Pattern, Word, Words, regex as re};
use crate::rules::{Rule, Severity};

/// A kind of secret: what it is called in a finding, the words any match holds, its shape.
/// The shape is compiled only once a text holding those words is searched with it.
type Secret = (&'static str, &'static [Word], Pattern);

static SECRETS: LazyLock<Vec<Secret>> = LazyLock::new(|| {
    vec![
        (
            "a private key",
            &[Word::PrivateKey],
            Pattern::new(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"),
        ),
        (
            "an AWS access key id",
            &[Word::AwsKey],
            Pattern::new(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"),
        ),
        (
            "a GitHub token",
            &[Word::GitHubToken],
            Pattern::new(r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b"),
        ),
        (
            "a GitHub fine-grained token",
            &[Word::GitHubPat],
            Pattern::new(r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b"),
        ),
        (
            "an Anthropic key",
            &[Word::SkDash],
            Pattern::new(r"\bsk-ant-[a-z]+[0-9]*-[A-Za-z0-9_-]{40,}"),
        ),
        (
            "an OpenAI key",
            &[Word::SkDash, Word::OpenAiMark],
            Pattern::new(
                r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}",
            ),
        ),
        (
            "an OpenAI key",
            &[Word::SkDash],
            Pattern::new(r"\bsk-[A-Za-z0-9]{48}\b"),
        ),
        (
            "a Slack token",
            &[Word::Slack],
            Pattern::new(r"\bxox[baprs]-[0-9A-Za-z-]{10,}"),
        ),
        (
            "a Google API key",
            &[Word::Google],
            Pattern::new(r"\bAIza[0-9A-Za-z_-]{35}\b"),
        ),
        (
            "a Stripe live key",
            &[Word::Stripe],
            Pattern::new(r"\b[rs]k_live_[0-9A-Za-z]{24,}\b"),
        ),
        (
            "a GitLab token",
            &[Word::GitLab],
            Pattern::new(r"\bglpat-[0-9A-Za-z_-]{20,}\b"),
        ),
        (
            "an npm token",
            &[Word::Npm],
            Pattern::new(r"\bnpm_[A-Za-z0-9]{36}\b"),
        ),
    ]
});

/// Between two quoted fragments of one string written over several pieces: `"ab" + "cd"`,
/// `'ab' . 'cd'`, Python's `"ab"` newline `"cd"`, a shell line continuation.
static JOINER: LazyLock<Regex> =
    LazyLock::new(|| re(r#"["']\s*(?:[+.]\s*)?(?:\\?\r?\n\s*)?(?:[+.]\s*)?["']|\\\r?\n"#));

static NETWORK_CALL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:curl|wget|nc|ncat|netcat|invoke-webrequest|invoke-restmethod|iwr|irm|axios|urlopen)\b|\bfetch\s*\(|\brequests\.(?:get|post|put|patch)\b|\bhttps?\.request\b|https?://",
    )
});

/// The names a secret variable ends in ([`Word::SecretName`]), to find the lines that may
/// hold one.
static SECRET_NAMES: LazyLock<aho_corasick::AhoCorasick> = LazyLock::new(|| {
    aho_corasick::AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .build(Word::SecretName.literals())
        .unwrap_or_else(|e| panic!("audit secret names: {e}"))
});

static SECRET_VAR: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)\$\{?[A-Z_][A-Z0-9_]*(?:TOKEN|KEY|SECRET|PASSWORD|PASSWD|CREDENTIALS?)\}?\b|\bprocess\.env\.[A-Z0-9_]*(?:TOKEN|KEY|SECRET|PASSWORD)\b|\bos\.environ(?:\.get)?\s*[\[(]\s*["'][A-Z0-9_]*(?:TOKEN|KEY|SECRET|PASSWORD)["']|\$env:[A-Z0-9_]*(?:TOKEN|KEY|SECRET|PASSWORD)\b"#,
    )
});

/// Where a credential belongs: an authorization header or a user option.
static AUTH_PLACE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)(?:authorization|api[-_]?key|x-[a-z-]*(?:token|key)|private-token)\s*["']?\s*:|\bbearer\s|\s(?:-u|--user|--oauth2-bearer)\s"#,
    )
});

/// Literal secrets in `text` (`words`: what [`Words::of`] found in it).
pub(crate) fn literals(
    path: &str,
    text: &str,
    words: Words,
    lines: &Lines<'_>,
    out: &mut Vec<Finding>,
) {
    let mut found: Vec<usize> = Vec::new();
    let mut check =
        |view: &str, words: Words, map: &dyn Fn(usize) -> usize, out: &mut Vec<Finding>| {
            for (what, needs, p) in SECRETS.iter() {
                if !words.all_of(needs) {
                    continue;
                }
                for m in p.find_iter(view) {
                    let token = m.as_str();
                    if placeholder(token) {
                        continue;
                    }
                    let at = map(m.start());
                    if found.contains(&at) {
                        continue;
                    }
                    found.push(at);
                    out.push(Finding::new(
                        Rule::SecretLiteral,
                        path,
                        lines.at(at),
                        token,
                        (*what).to_owned(),
                    ));
                }
            }
        };
    check(text, words, &|i| i, out);
    let Some(joined) = Joined::of(text) else {
        return;
    };
    // The joined view is a new text: a literal may only appear once the pieces meet.
    let joined_words = if words == Words::ALL {
        Words::ALL
    } else {
        Words::of(&joined.text)
    };
    check(&joined.text, joined_words, &|i| joined.origin(i), out);
}

/// `text` with every joiner between quoted fragments taken out, and where each kept piece
/// came from.
struct Joined {
    text: String,
    /// For each kept piece, its offset in the joined text and in the original, in order.
    pieces: Vec<(usize, usize)>,
    /// The original text's length, the origin of the joined text's end.
    len: usize,
}

impl Joined {
    /// The joined view of `text`, or `None` when nothing in it joins.
    fn of(text: &str) -> Option<Joined> {
        let mut joiners = JOINER.find_iter(text).peekable();
        joiners.peek()?;
        let mut joined = String::with_capacity(text.len());
        let mut pieces = Vec::new();
        let mut last = 0;
        for m in joiners {
            pieces.push((joined.len(), last));
            joined.push_str(&text[last..m.start()]);
            last = m.end();
        }
        pieces.push((joined.len(), last));
        joined.push_str(&text[last..]);
        Some(Joined {
            text: joined,
            pieces,
            len: text.len(),
        })
    }

    /// The offset in the original text of byte `i` of the joined one.
    fn origin(&self, i: usize) -> usize {
        if i >= self.text.len() {
            return self.len;
        }
        // The last piece starting at or before `i`; an empty piece shares its start with the
        // next, and the later one holds the byte.
        let k = self.pieces.partition_point(|&(at, _)| at <= i);
        let (at, from) = self.pieces[k.saturating_sub(1)];
        from + (i - at)
    }
}

/// A token that is a stand-in, not a secret: an AWS documentation key, or a body of few
/// distinct characters (`ghp_xxxx…`, `sk-ant-api03-XXXX…`).
fn placeholder(token: &str) -> bool {
    // Documentation stand-ins: AWS's own example keys, runs such as `A1B2C3…` or `123456…`,
    // and x-ed out or "your_…" bodies.
    const STAND_INS: [&str; 10] = [
        "EXAMPLE", "example", "A1B2C3", "a1b2c3", "1234567", "abcdefg", "ABCDEFG", "XXXX", "xxxx",
        "0000000",
    ];
    if token.starts_with("-----") {
        return false;
    }
    if STAND_INS.iter().any(|s| token.contains(s)) || token.to_ascii_lowercase().contains("your") {
        return true;
    }
    let tail = token.rsplit(['_', '-']).next().unwrap_or(token);
    let mut distinct: Vec<char> = tail.chars().collect();
    distinct.sort_unstable();
    distinct.dedup();
    distinct.len() < 8
}

/// A network call on a line that carries a secret-named variable outside the places a
/// credential belongs.
pub(crate) fn exfil(
    path: &str,
    text: &str,
    words: Words,
    lines: &Lines<'_>,
    runs: &dyn Fn(usize) -> bool,
    caps: &mut Capabilities,
    out: &mut Vec<Finding>,
) {
    // Most files name no secret variable at all: the words say so without a scan.
    if !words.all_of(&[Word::SecretName, Word::EnvRead]) || !SECRET_VAR.is_match(text) {
        return;
    }
    // Every match holds a secret name and lies within one line: only the lines holding a
    // name are read, each once, in order. With every word open (a text whose case folding
    // reaches past ASCII, or the fuzz target's reference run), every line is.
    let starts = lines.starts();
    let candidates: Box<dyn Iterator<Item = usize>> = if words == Words::ALL {
        Box::new(0..starts.len())
    } else {
        Box::new(SECRET_NAMES.find_iter(text).map(|name| {
            starts
                .partition_point(|&s| s <= name.start())
                .saturating_sub(1)
        }))
    };
    let mut last_line = None;
    for k in candidates {
        if last_line == Some(k) {
            continue;
        }
        last_line = Some(k);
        let here = starts[k];
        let end = starts.get(k + 1).copied().unwrap_or(text.len());
        let line = &text[here..end];
        let vars: Vec<_> = SECRET_VAR.find_iter(line).collect();
        if vars.is_empty() {
            continue;
        }
        for v in &vars {
            caps.secret_variables.insert(v.as_str().to_owned());
        }
        if !NETWORK_CALL.is_match(line) {
            continue;
        }
        let auth_ends: Vec<usize> = AUTH_PLACE.find_iter(line).map(|m| m.end()).collect();
        for v in vars {
            // A variable right after `Authorization:` (or inside the same quoted header) is a
            // credential used as intended.
            let in_auth = auth_ends.iter().any(|&end| {
                end <= v.start() && {
                    let between = &line[end..v.start()];
                    between.len() <= 40 && !between.contains(" -") && !between.contains("://")
                }
            });
            if in_auth {
                continue;
            }
            let at = here + v.start();
            let severity = if runs(at) {
                Severity::Error
            } else {
                Severity::Warning
            };
            out.push(Finding::with_severity(
                Rule::ExfilSecretToNetwork,
                severity,
                path,
                lines.at(at),
                line.trim_end(),
                format!("{} is sent over the network", v.as_str()),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles_and_needs_a_word() {
        assert!(SECRETS.iter().all(|(_, needs, _)| !needs.is_empty()));
        for r in [&*JOINER, &*NETWORK_CALL, &*SECRET_VAR, &*AUTH_PLACE] {
            assert!(!r.as_str().is_empty());
        }
    }

    #[test]
    fn the_joined_view_maps_each_byte_back_to_where_it_was_written() {
        let text = "t = \"gh\" + \"p_x\"\\\nend";
        let joined = Joined::of(text).unwrap();
        assert_eq!(joined.text, "t = \"ghp_x\"end");
        for (i, c) in joined.text.char_indices() {
            let from = joined.origin(i);
            assert_eq!(text[from..].chars().next(), Some(c), "byte {i}");
        }
        assert_eq!(joined.origin(joined.text.len()), text.len());
        assert!(Joined::of("no joiner here").is_none());
    }

    #[test]
    fn a_token_split_inside_its_prefix_is_found_at_its_first_piece() {
        let token = "ghp_Zq3vR8xK2mN7pL4tY9wB1cD6fH0jS5aE8uIo";
        let text = format!("x = 1\nT = \"g\" + \"{}\"\n", &token[1..]);
        let lines = Lines::new(&text);
        let mut out = Vec::new();
        literals("a.py", &text, Words::of(&text), &lines, &mut out);
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!((out[0].line, out[0].column), (2, 6));
    }
}
