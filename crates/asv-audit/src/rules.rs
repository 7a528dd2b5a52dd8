//! The rule set: every rule's stable id, its severity and the words that explain it.
//!
//! Ids are part of the tool's interface (allow entries, SARIF `ruleId`, scripts matching on
//! JSON) and never change meaning once released; a rule that must behave differently gets a
//! new id.

/// How much a finding weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Printed, never refuses anything.
    Warning,
    /// Refuses an import unless allowed.
    Error,
}

impl Severity {
    /// `error` or `warning`, as printed and as SARIF's `level` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One audit rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// Unicode tag characters (U+E0000–E007F) outside an emoji flag sequence.
    UnicodeTag,
    /// Bidirectional embeddings, overrides and isolates (Trojan Source).
    UnicodeBidi,
    /// Variation selectors U+E0100–E01EF outside one ideographic variation sequence.
    UnicodeVariationSupplement,
    /// An invisible or format character inside `SKILL.md`'s frontmatter.
    UnicodeInvisibleFrontmatter,
    /// Other invisible characters in text.
    UnicodeInvisible,
    /// Machine code or compiled bytecode.
    FileBinary,
    /// An archive inside a skill.
    FileArchive,
    /// Bytes that are neither UTF-8 text nor a known asset format.
    FileNotText,
    /// A file too large to audit.
    FileTooLarge,
    /// Long runs of blank lines or spaces.
    FilePadding,
    /// Code fetched from the network and run at once.
    ExecFetchPipe,
    /// Encoded code decoded and run.
    ExecDecodeRun,
    /// A private key or an access token written into a file.
    SecretLiteral,
    /// A secret-named environment variable sent over the network.
    ExfilSecretToNetwork,
    /// A read of a credential file.
    CredPath,
    /// A phrase that tells the agent to set aside its instructions or keep the user unaware.
    PromptOverride,
    /// A directive hidden in an HTML comment.
    PromptHiddenComment,
    /// A plain-HTTP URL, an IP-literal host or a `data:` URI.
    NetUrl,
    /// `allowed-tools` granting a tool without a scope.
    ToolsBroad,
    /// A Claude Code command that runs when the skill loads.
    ExecDynamicContext,
}

impl Rule {
    /// Every rule, in the order documented (docs/AUDIT.md).
    pub const ALL: [Rule; 20] = [
        Rule::UnicodeTag,
        Rule::UnicodeBidi,
        Rule::UnicodeVariationSupplement,
        Rule::UnicodeInvisibleFrontmatter,
        Rule::UnicodeInvisible,
        Rule::FileBinary,
        Rule::FileArchive,
        Rule::FileNotText,
        Rule::FileTooLarge,
        Rule::FilePadding,
        Rule::ExecFetchPipe,
        Rule::ExecDecodeRun,
        Rule::SecretLiteral,
        Rule::ExfilSecretToNetwork,
        Rule::CredPath,
        Rule::PromptOverride,
        Rule::PromptHiddenComment,
        Rule::NetUrl,
        Rule::ToolsBroad,
        Rule::ExecDynamicContext,
    ];

    /// The stable id, e.g. `unicode/tag`.
    pub fn id(self) -> &'static str {
        match self {
            Rule::UnicodeTag => "unicode/tag",
            Rule::UnicodeBidi => "unicode/bidi",
            Rule::UnicodeVariationSupplement => "unicode/variation-supplement",
            Rule::UnicodeInvisibleFrontmatter => "unicode/invisible-frontmatter",
            Rule::UnicodeInvisible => "unicode/invisible",
            Rule::FileBinary => "file/binary",
            Rule::FileArchive => "file/archive",
            Rule::FileNotText => "file/not-text",
            Rule::FileTooLarge => "file/too-large",
            Rule::FilePadding => "file/padding",
            Rule::ExecFetchPipe => "exec/fetch-pipe",
            Rule::ExecDecodeRun => "exec/decode-run",
            Rule::SecretLiteral => "secret/literal",
            Rule::ExfilSecretToNetwork => "exfil/secret-to-network",
            Rule::CredPath => "cred/path",
            Rule::PromptOverride => "prompt/override",
            Rule::PromptHiddenComment => "prompt/hidden-comment",
            Rule::NetUrl => "net/url",
            Rule::ToolsBroad => "tools/broad",
            Rule::ExecDynamicContext => "exec/dynamic-context",
        }
    }

    /// The rule with this id.
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.id() == id)
    }

    /// The severity a finding of this rule has unless the place it was found decides
    /// otherwise (`exec/fetch-pipe` and `exfil/secret-to-network` are warnings in prose).
    pub fn default_severity(self) -> Severity {
        match self {
            Rule::UnicodeTag
            | Rule::UnicodeBidi
            | Rule::UnicodeVariationSupplement
            | Rule::UnicodeInvisibleFrontmatter
            | Rule::FileBinary
            | Rule::FileTooLarge
            | Rule::ExecFetchPipe
            | Rule::ExecDecodeRun
            | Rule::SecretLiteral
            | Rule::ExfilSecretToNetwork => Severity::Error,
            Rule::UnicodeInvisible
            | Rule::FileArchive
            | Rule::FileNotText
            | Rule::FilePadding
            | Rule::CredPath
            | Rule::PromptOverride
            | Rule::PromptHiddenComment
            | Rule::NetUrl
            | Rule::ToolsBroad
            | Rule::ExecDynamicContext => Severity::Warning,
        }
    }

    /// One line saying what the rule finds.
    pub fn title(self) -> &'static str {
        match self {
            Rule::UnicodeTag => "Unicode tag characters, which can spell text no reader sees",
            Rule::UnicodeBidi => {
                "bidirectional control characters, which reorder what a reader sees"
            }
            Rule::UnicodeVariationSupplement => {
                "supplementary variation selectors, which can carry hidden bytes"
            }
            Rule::UnicodeInvisibleFrontmatter => {
                "an invisible character in SKILL.md's frontmatter, which agents read first"
            }
            Rule::UnicodeInvisible => "invisible characters in text",
            Rule::FileBinary => "machine code or compiled bytecode inside a skill",
            Rule::FileArchive => "an archive inside a skill, whose content is not reviewable",
            Rule::FileNotText => "bytes that are neither UTF-8 text nor a known asset format",
            Rule::FileTooLarge => "a file too large to audit",
            Rule::FilePadding => {
                "a long run of blank lines or spaces, which can push text out of view"
            }
            Rule::ExecFetchPipe => "code downloaded and run in one step",
            Rule::ExecDecodeRun => "encoded code decoded and run",
            Rule::SecretLiteral => "a private key or access token written into the skill",
            Rule::ExfilSecretToNetwork => "a secret-named variable sent over the network",
            Rule::CredPath => "a read of a credential file",
            Rule::PromptOverride => {
                "words telling the agent to drop its instructions or keep the user unaware"
            }
            Rule::PromptHiddenComment => "a directive inside an HTML comment, hidden when rendered",
            Rule::NetUrl => "a plain-HTTP URL, an IP-address host or a data: URI",
            Rule::ToolsBroad => "allowed-tools grants a tool without a scope",
            Rule::ExecDynamicContext => "a command Claude Code runs when the skill loads",
        }
    }

    /// What to do about a finding: how to check it and how to fix it.
    pub fn help(self) -> &'static str {
        match self {
            Rule::UnicodeTag => {
                "Tag characters (U+E0000-E007F) are invisible and map one to one onto ASCII, so a line can carry a whole instruction nobody reviewing it sees. Only emoji flag sequences use them legitimately. Remove them."
            }
            Rule::UnicodeBidi => {
                "Embedding, override and isolate characters (U+202A-202E, U+2066-2069) make text display in another order than it is read by a program or a model (Trojan Source). Remove them; right-to-left text displays correctly without them."
            }
            Rule::UnicodeVariationSupplement => {
                "Variation selectors U+E0100-E01EF select glyph variants of CJK ideographs; anywhere else, or several in a row, they can encode hidden bytes. Remove them."
            }
            Rule::UnicodeInvisibleFrontmatter => {
                "The frontmatter (name, description, allowed-tools) is what agents read to decide when to load a skill and what it may do. No invisible or format character belongs there. Remove it."
            }
            Rule::UnicodeInvisible => {
                "Zero-width and other invisible characters hide text from review and can split words that filters look for. Remove them unless the script of the text needs them."
            }
            Rule::FileBinary => {
                "A skill's scripts should be source that a reviewer can read. A compiled executable, shared library or bytecode file cannot be reviewed; ship its source instead."
            }
            Rule::FileArchive => {
                "An archive's members are not reviewed with the skill. Unpack what the skill needs into plain files."
            }
            Rule::FileNotText => {
                "The file is not UTF-8 text and not an image, font or PDF, so its content was only searched for secrets. Check what it is."
            }
            Rule::FileTooLarge => {
                "The file is larger than the audit reads (64 MiB), so nothing in it was checked. Remove it, or allow it after checking it by other means."
            }
            Rule::FilePadding => {
                "Hundreds of spaces or dozens of blank lines push what follows out of a reviewer's view while an agent still reads it. Remove the padding and look at what follows it."
            }
            Rule::ExecFetchPipe => {
                "Piping a download into a shell or interpreter runs whatever the server sends at that moment, which no review has seen. Pin the file in the skill, or download, check a digest, then run."
            }
            Rule::ExecDecodeRun => {
                "Decoding base64 or hex and running the result hides the code from review. Ship the code as plain source."
            }
            Rule::SecretLiteral => {
                "A private key or token in a skill is published with it. Revoke it now, remove it, and read it from the environment or a secret store."
            }
            Rule::ExfilSecretToNetwork => {
                "A variable named like a secret is sent to a network address outside an authorization header. Check where it goes; send credentials only in the header of the service they belong to."
            }
            Rule::CredPath => {
                "The skill reads a file that holds credentials (SSH keys, cloud credentials, .netrc, .env). Check that it needs to."
            }
            Rule::PromptOverride => {
                "Instructions that tell the agent to ignore its other instructions, or to keep something from the user, are the shape of prompt injection. Reword or remove them."
            }
            Rule::PromptHiddenComment => {
                "HTML comments are hidden when Markdown is rendered but read by agents. Put instructions in visible text."
            }
            Rule::NetUrl => {
                "Plain HTTP can be altered in transit, IP-address hosts hide who is reached, and data: URIs embed content that is not reviewed as text. Use https:// with a host name."
            }
            Rule::ToolsBroad => {
                "allowed-tools lets an agent use the named tools without asking. A bare Bash, Bash(*), unscoped Write or a wildcard MCP grant allows everything of that kind; scope it, e.g. Bash(git diff:*)."
            }
            Rule::ExecDynamicContext => {
                "Claude Code runs !`command` lines and ```! blocks when the skill loads, before the user sees anything. Check each command."
            }
        }
    }
}
