//! The words a text must hold before a pattern can match it, found in one pass.
//!
//! Every costly pattern of the text rules needs some literal in any text it matches: a fetch
//! piped into a shell names `curl`, `wget` or another download tool; a GitHub token starts with
//! `ghp_` or a sibling; a credential path holds `.ssh/` or `.aws/` and so on. One
//! Aho-Corasick automaton over all those literals (ASCII case folded) reads a file once and
//! says which [`Word`]s it holds; a pattern whose words are all absent cannot match and is not
//! run. Most files hold few of them, so a clean file costs this one pass instead of one per
//! pattern.
//!
//! The only way a regex's case folding reaches beyond ASCII folding is through the two
//! characters Unicode folds onto ASCII letters (U+017F `ſ` onto `s`, U+212A KELVIN SIGN onto
//! `k`): a text holding either is treated as holding every word, so the gate never hides a
//! match the pattern alone would find. `tests::every_pattern_needs_its_words` and the fuzz
//! target check the gate against the patterns run ungated.

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use regex::Regex;

/// Compiles one of the audit's patterns.
pub(crate) fn regex(pattern: &str) -> Regex {
    // The patterns are constants of this crate, each compiled by the tests; a typo is caught
    // there, never at a user's run.
    Regex::new(pattern).unwrap_or_else(|e| panic!("audit pattern {pattern:?}: {e}"))
}

/// A pattern compiled the first time it is searched with. The gated patterns are searched only
/// in texts holding their words, which most skills' texts do not, and compiling one of these
/// case-folded, Unicode-aware patterns costs more than scanning a whole skill: a run that
/// never needs a pattern never compiles it.
pub(crate) struct Pattern {
    source: String,
    compiled: std::sync::OnceLock<Regex>,
}

impl Pattern {
    /// `source`, to be compiled when first searched with.
    pub(crate) fn new(source: &str) -> Pattern {
        Pattern {
            source: source.to_owned(),
            compiled: std::sync::OnceLock::new(),
        }
    }

    /// Whether it has been compiled (for the tests of the gate).
    #[cfg(test)]
    pub(crate) fn is_compiled(&self) -> bool {
        self.compiled.get().is_some()
    }
}

impl std::ops::Deref for Pattern {
    type Target = Regex;

    fn deref(&self) -> &Regex {
        self.compiled.get_or_init(|| regex(&self.source))
    }
}

/// A family of literals, one of which every match of some pattern holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Word {
    /// A download tool: `curl`, `wget`, PowerShell's `iwr`/`irm` and their long names.
    Download,
    /// PowerShell's `iex` / `Invoke-Expression`.
    InvokeExpression,
    /// `exec` or `eval`.
    ExecEval,
    /// `base64`.
    Base64,
    /// `xxd` or `openssl`: hex and base64 decoders.
    Decoder,
    /// `eval` or `Function`.
    EvalFunction,
    /// `atob`.
    Atob,
    /// `powershell` or `pwsh`.
    PowerShell,
    /// The verbs of an instruction override: `ignore`, `disregard`, `forget`, …
    OverrideVerb,
    /// `user`, which every "do not tell the user" phrase names.
    User,
    /// The `now` of a jailbreak's "you are now developer / DAN / unrestricted …".
    Persona,
    /// `prompt`.
    Prompt,
    /// `PRIVATE` (of `PRIVATE KEY`).
    PrivateKey,
    /// AWS access key id prefixes.
    AwsKey,
    /// GitHub token prefixes (`ghp_`, `gho_`, …).
    GitHubToken,
    /// `_pat_` (of `github_pat_`).
    GitHubPat,
    /// `sk-`: OpenAI and Anthropic keys.
    SkDash,
    /// `T3BlbkFJ`, the base64 of "OpenAI" inside OpenAI's project keys.
    OpenAiMark,
    /// `xox` (of Slack's `xoxb-`, `xoxp-`, …).
    Slack,
    /// `AIza`, Google API keys.
    Google,
    /// `k_live_`, Stripe live keys.
    Stripe,
    /// `glpat-`, GitLab tokens.
    GitLab,
    /// `npm_`, npm tokens.
    Npm,
    /// The names a secret variable ends in: `TOKEN`, `KEY`, `SECRET`, `PASSWORD`, …
    SecretName,
    /// Where an environment variable is read: `$`, `process.env`, `os.environ`.
    EnvRead,
    /// The credential files and directories (`.ssh/`, `.aws/`, `.netrc`, `.env`, …).
    CredPath,
    /// `<!--`.
    HtmlComment,
    /// `://`.
    Url,
    /// `data:`.
    DataUri,
    /// `` !` ``, Claude Code's inline load-time command.
    DynamicInline,
    /// ```` ```! ````, Claude Code's load-time command block.
    DynamicFence,
}

impl Word {
    /// Every word, in the order of its bit.
    const ALL: [Word; 31] = [
        Word::Download,
        Word::InvokeExpression,
        Word::ExecEval,
        Word::Base64,
        Word::Decoder,
        Word::EvalFunction,
        Word::Atob,
        Word::PowerShell,
        Word::OverrideVerb,
        Word::User,
        Word::Persona,
        Word::Prompt,
        Word::PrivateKey,
        Word::AwsKey,
        Word::GitHubToken,
        Word::GitHubPat,
        Word::SkDash,
        Word::OpenAiMark,
        Word::Slack,
        Word::Google,
        Word::Stripe,
        Word::GitLab,
        Word::Npm,
        Word::SecretName,
        Word::EnvRead,
        Word::CredPath,
        Word::HtmlComment,
        Word::Url,
        Word::DataUri,
        Word::DynamicInline,
        Word::DynamicFence,
    ];

    /// The literals of the family; a text holds the word when it holds any of them, ASCII
    /// letters matched in either case.
    pub(crate) fn literals(self) -> &'static [&'static str] {
        match self {
            // `invoke-` stands for PowerShell's long names; fewer and shorter literals keep
            // the automaton small enough to stay in cache.
            Word::Download => &["curl", "wget", "iwr", "irm", "invoke-"],
            Word::InvokeExpression => &["iex", "invoke-"],
            Word::ExecEval => &["exec", "eval"],
            Word::Base64 => &["base64"],
            Word::Decoder => &["xxd", "openssl"],
            Word::EvalFunction => &["eval", "function"],
            Word::Atob => &["atob"],
            Word::PowerShell => &["powershell", "pwsh"],
            Word::OverrideVerb => &["ignore", "disregard", "forget", "override", "bypass"],
            Word::User => &["user"],
            // The `now` of "you are now …".
            Word::Persona => &["now"],
            Word::Prompt => &["prompt"],
            // Not "PRIVATE KEY": it holds `key`, and no literal may hold another.
            Word::PrivateKey => &["private"],
            Word::AwsKey => &["akia", "asia", "abia", "acca"],
            Word::GitHubToken => &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
            Word::GitHubPat => &["_pat_"],
            Word::SkDash => &["sk-"],
            Word::OpenAiMark => &["t3blbkfj"],
            Word::Slack => &["xox"],
            Word::Google => &["aiza"],
            Word::Stripe => &["k_live_"],
            Word::GitLab => &["glpat-"],
            Word::Npm => &["npm_"],
            Word::SecretName => &["token", "key", "secret", "passw", "credential"],
            // `process.env` holds `.env`, which CredPath names too.
            Word::EnvRead => &["$", ".env", "environ"],
            Word::CredPath => &[
                ".ssh/",
                ".aws/",
                ".netrc",
                // `.git-credentials` holds `credential`, which SecretName names too.
                "credential",
                ".docker/",
                ".kube/",
                "gh/hosts",
                ".npmrc",
                ".pypirc",
                ".gnupg",
                ".env",
            ],
            Word::HtmlComment => &["<!--"],
            Word::Url => &["://"],
            Word::DataUri => &["data:"],
            Word::DynamicInline => &["!`"],
            Word::DynamicFence => &["```!"],
        }
    }

    fn bit(self) -> u64 {
        1 << (self as u8)
    }
}

/// The automaton over every word's literals, and for each literal the bits of the words
/// that name it.
struct Automaton {
    searcher: AhoCorasick,
    bits: Vec<u64>,
}

/// Every distinct literal (ASCII lowercased) with the bits of the words naming it.
fn literal_bits() -> Vec<(String, u64)> {
    let mut literals: Vec<(String, u64)> = Vec::new();
    for word in Word::ALL {
        for literal in word.literals() {
            let literal = literal.to_ascii_lowercase();
            match literals.iter_mut().find(|(l, _)| *l == literal) {
                Some((_, bits)) => *bits |= word.bit(),
                None => literals.push((literal, word.bit())),
            }
        }
    }
    literals
}

static AUTOMATON: LazyLock<Automaton> = LazyLock::new(|| {
    let (literals, bits): (Vec<String>, Vec<u64>) = literal_bits().into_iter().unzip();
    let searcher = AhoCorasick::builder()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .kind(Some(AhoCorasickKind::DFA))
        .prefilter(false)
        .build(&literals)
        .unwrap_or_else(|e| panic!("audit keywords: {e}"));
    Automaton { searcher, bits }
});

/// The words a text holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Words(u64);

impl Words {
    /// Every word: what the patterns run ungated see.
    pub(crate) const ALL: Words = Words(u64::MAX);

    /// The words `text` holds, in one pass over it.
    pub(crate) fn of(text: &str) -> Words {
        // U+017F and U+212A fold onto ASCII `s` and `k` in a regex's case-insensitive match
        // and would slip past ASCII folding here.
        if !text.is_ascii() && (text.contains('\u{17F}') || text.contains('\u{212A}')) {
            return Words::ALL;
        }
        let automaton = &*AUTOMATON;
        let every = Word::ALL.iter().fold(0, |acc, w| acc | w.bit());
        let mut held = 0u64;
        // The standard match kind reports the match that ends first. The next search starts
        // one byte after that match's start, not after its end, so a literal overlapping it
        // is still seen; as no literal holds another (`tests::no_literal_holds_another`),
        // every occurrence of every literal is reached this way, and the automaton keeps its
        // prefilter, which an overlapping search gives up.
        let mut from = 0;
        while from < text.len() {
            let input = aho_corasick::Input::new(text).range(from..);
            let Some(m) = automaton.searcher.find(input) else {
                break;
            };
            held |= automaton.bits[m.pattern().as_usize()];
            if held == every {
                break;
            }
            from = m.start() + 1;
        }
        Words(held)
    }

    /// Whether the text holds `word`.
    pub(crate) fn has(self, word: Word) -> bool {
        self.0 & word.bit() != 0
    }

    /// Whether the text holds every word of `words` (a pattern needs one literal of each).
    pub(crate) fn all_of(self, words: &[Word]) -> bool {
        words.iter().all(|w| self.has(*w))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pattern_is_compiled_when_first_searched_with_and_then_kept() {
        let p = Pattern::new(r"(?i)\bcurl\b");
        assert!(!p.is_compiled());
        assert_eq!(p.as_str(), r"(?i)\bcurl\b");
        assert!(p.is_compiled());
        let first: *const Regex = &*p;
        assert!(p.is_match("run CURL now"));
        assert!(std::ptr::eq(first, &*p), "compiled once, then kept");
    }

    #[test]
    fn each_word_has_its_bit_and_is_found_in_either_case() {
        for (i, w) in Word::ALL.iter().enumerate() {
            assert_eq!(*w as usize, i);
            for literal in w.literals() {
                assert!(Words::of(literal).has(*w), "{literal}");
                assert!(
                    Words::of(&literal.to_ascii_uppercase()).has(*w),
                    "{literal}"
                );
            }
        }
        let words = Words::of("run curl, then read ~/.ssh/id_rsa");
        assert!(words.has(Word::Download) && words.has(Word::CredPath));
        assert!(!words.has(Word::Base64) && !words.has(Word::Url));
    }

    #[test]
    fn overlapping_literals_are_each_seen() {
        // `exec` and `credential` share a `c`; `token` and `npm_` share an `n`.
        let words = Words::of("execredential");
        assert!(words.has(Word::ExecEval) && words.has(Word::SecretName));
        let words = Words::of("tokenpm_");
        assert!(words.has(Word::Npm) && words.has(Word::SecretName));
        let words = Words::of("process.env.X");
        assert!(words.has(Word::EnvRead) && words.has(Word::CredPath));
    }

    #[test]
    fn no_literal_holds_another() {
        let literals = literal_bits();
        for (a, _) in &literals {
            for (b, _) in &literals {
                assert!(a == b || !a.contains(b.as_str()), "{a:?} holds {b:?}");
            }
        }
    }

    #[test]
    fn the_characters_unicode_folds_onto_ascii_open_every_gate() {
        assert_eq!(Words::of("diſregard"), Words::ALL);
        assert_eq!(Words::of("\u{212A}ey"), Words::ALL);
        assert_ne!(Words::of("café"), Words::ALL);
    }
}
