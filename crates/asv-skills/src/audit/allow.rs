//! `vendor-skills-audit.yaml`: the audit findings a repository accepted after review.
//!
//! An entry names a skill, a rule and the reason, and may narrow itself to files (a path
//! glob, `*` within a directory, `**` across them) and to one matched text (a fingerprint,
//! as `skill audit --format json` prints it), so that the finding fires again as soon as the
//! matched content changes. The file is committed and reviewed like code; nothing else
//! allows a finding for good (`--accept-findings` lasts one run).
//!
//! ```yaml
//! allow:
//!   - skill: pdf
//!     rule: net/url
//!     path: references/*.md
//!     reason: the vendor's documentation server has no TLS
//!   - skill: installer
//!     rule: exec/fetch-pipe
//!     fingerprint: 0f3c…            # only this exact command
//!     reason: reviewed install script of our own CDN
//! ```

use asv_audit::{Finding, Rule};
use asv_fs::Root;
use asv_model::yaml::Yaml;

use crate::error::{AllowProblem, Error};

/// One accepted finding shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowance {
    /// The skill's name (its directory under `skills/`, or a directory's last segment).
    pub skill: String,
    /// The rule.
    pub rule: Rule,
    /// A glob over the path in the skill, when narrowed to files.
    pub path: Option<String>,
    /// The finding's fingerprint, when narrowed to one matched text.
    pub fingerprint: Option<String>,
    /// Why it is accepted.
    pub reason: String,
}

impl Allowance {
    /// Whether this entry allows `finding` of the skill `skill`.
    pub fn allows(&self, skill: &str, finding: &Finding) -> bool {
        self.skill == skill
            && self.rule == finding.rule
            && self
                .fingerprint
                .as_deref()
                .is_none_or(|fp| fp == finding.fingerprint)
            && self.path.as_deref().is_none_or(|glob| {
                gix_glob::wildmatch(
                    glob.as_bytes().into(),
                    finding.path.as_bytes().into(),
                    gix_glob::wildmatch::Mode::NO_MATCH_SLASH_LITERAL,
                )
            })
    }
}

/// Every entry of the allow file, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Allowances {
    /// The entries.
    pub entries: Vec<Allowance>,
}

impl Allowances {
    /// Reads `vendor-skills-audit.yaml` of `root`; no file allows nothing.
    ///
    /// # Errors
    /// The file over the settings limit, not YAML, or not of the shape above (naming the
    /// entry at fault).
    pub fn load(root: &Root) -> Result<Allowances, Error> {
        match root.read_file_capped(
            asv_model::layout::SKILL_AUDIT_ALLOW,
            asv_model::layout::SETTINGS_LIMIT,
            asv_model::layout::SETTINGS_LIMIT_WHAT,
        )? {
            Some(bytes) => Allowances::parse(&String::from_utf8_lossy(&bytes)),
            None => Ok(Allowances::default()),
        }
    }

    /// Parses the file's text.
    ///
    /// # Errors
    /// As [`Allowances::load`].
    pub fn parse(text: &str) -> Result<Allowances, Error> {
        let refuse = |entry: Option<usize>, problem| Error::AuditAllow { entry, problem };
        let top = asv_model::yaml::parse_document(text).map_err(|e| {
            refuse(
                None,
                AllowProblem::NotYaml(
                    e.line
                        .map_or_else(|| e.message.clone(), |l| format!("line {l}: {}", e.message)),
                ),
            )
        })?;
        let items = match top {
            None | Some(Yaml::Null) => return Ok(Allowances::default()),
            Some(Yaml::Map(pairs)) => {
                let mut items = Vec::new();
                for (k, v) in pairs {
                    match (k, v) {
                        (Yaml::String(k), Yaml::Seq(list)) if k == "allow" => items = list,
                        (Yaml::String(k), Yaml::Null) if k == "allow" => {}
                        (Yaml::String(k), other) if k == "allow" => {
                            return Err(refuse(
                                None,
                                AllowProblem::Shape {
                                    found: other.kind(),
                                },
                            ));
                        }
                        (k, _) => {
                            let key = match k {
                                Yaml::String(s) | Yaml::Number(s) => s,
                                other => other.kind().to_owned(),
                            };
                            return Err(refuse(None, AllowProblem::UnknownKey { key }));
                        }
                    }
                }
                items
            }
            Some(other) => {
                return Err(refuse(
                    None,
                    AllowProblem::Shape {
                        found: other.kind(),
                    },
                ));
            }
        };
        let mut entries = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            let n = Some(i + 1);
            let Yaml::Map(pairs) = &item else {
                return Err(refuse(n, AllowProblem::EntryShape { found: item.kind() }));
            };
            for (k, _) in pairs {
                let known = matches!(k, Yaml::String(s) if ["skill", "rule", "path", "fingerprint", "reason"].contains(&s.as_str()));
                if !known {
                    let key = match k {
                        Yaml::String(s) | Yaml::Number(s) => s.clone(),
                        other => other.kind().to_owned(),
                    };
                    return Err(refuse(n, AllowProblem::EntryKey { key }));
                }
            }
            let text = |field: &'static str| match item.get(field) {
                Some(Yaml::String(s)) if !s.trim().is_empty() => Ok(Some(s.clone())),
                None | Some(Yaml::Null) => Ok(None),
                Some(_) => Err(refuse(n, AllowProblem::Field { field })),
            };
            let required = |field: &'static str| {
                text(field)?.ok_or_else(|| refuse(n, AllowProblem::Field { field }))
            };
            let skill = required("skill")?;
            let rule_id = required("rule")?;
            let reason = required("reason")?;
            let rule = Rule::from_id(&rule_id).ok_or_else(|| {
                refuse(
                    n,
                    AllowProblem::UnknownRule {
                        rule: rule_id.clone(),
                    },
                )
            })?;
            let fingerprint = text("fingerprint")?;
            if let Some(fp) = &fingerprint
                && (fp.len() != 64
                    || !fp
                        .bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
            {
                return Err(refuse(
                    n,
                    AllowProblem::Fingerprint {
                        written: fp.clone(),
                    },
                ));
            }
            entries.push(Allowance {
                skill,
                rule,
                path: text("path")?,
                fingerprint,
                reason,
            });
        }
        Ok(Allowances { entries })
    }

    /// The first entry allowing `finding` of `skill`.
    pub fn allowing(&self, skill: &str, finding: &Finding) -> Option<&Allowance> {
        self.entries.iter().find(|a| a.allows(skill, finding))
    }
}

/// The comment a new allow file opens with.
const HEADER: &str = "\
# Audit findings accepted after review. `skill audit`, `skill verify` and the gates of
# `skill add`, `pull`, `sync` and `install` read this file; `skill audit NAME --allow RULE
# --reason TEXT` appends an entry. Each entry names a skill, a rule and why it is safe; a
# path glob or a fingerprint narrows it (docs/AUDIT.md).
";

/// `entry` as the lines of one item of the `allow:` list, each value double-quoted (JSON's
/// quoting, which YAML reads), the item's dash after `indent`.
fn entry_lines(entry: &Allowance, indent: &str) -> String {
    let q = asv_error::quote::json_string;
    let mut out = format!("{indent}- skill: {}\n", q(&entry.skill));
    out.push_str(&format!("{indent}  rule: {}\n", q(entry.rule.id())));
    if let Some(path) = &entry.path {
        out.push_str(&format!("{indent}  path: {}\n", q(path)));
    }
    if let Some(fp) = &entry.fingerprint {
        out.push_str(&format!("{indent}  fingerprint: {fp}\n"));
    }
    out.push_str(&format!("{indent}  reason: {}\n", q(&entry.reason)));
    out
}

/// The allow file's `text` (`None`: no file yet) with `entry` appended to its `allow:` list,
/// every byte before it kept (its comments included), the item indented as the list's first
/// item is. A new file opens with a short comment saying what it is.
///
/// # Errors
/// [`Error::AuditAllow`] for a file that cannot be read as it stands;
/// [`Error::AuditAllowAppend`] when the result would not read back as the file's entries and
/// then this one (an `allow:` written in flow style, `allow: []`), naming the entry to add by
/// hand.
pub fn appended(text: Option<&str>, entry: &Allowance) -> Result<String, Error> {
    let (mut out, had) = match text {
        None => (format!("{HEADER}allow:\n"), 0),
        Some(text) => {
            let had = Allowances::parse(text)?.entries.len();
            let mut out = text.to_owned();
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            if !out.lines().any(|l| l.starts_with("allow:")) {
                out.push_str("allow:\n");
            }
            (out, had)
        }
    };
    // The list's own indentation: that of its first item, else two spaces.
    let indent = out
        .lines()
        .skip_while(|l| !l.starts_with("allow:"))
        .skip(1)
        .find_map(|l| {
            let body = l.trim_start_matches(' ');
            (body.starts_with("- ") || body == "-").then(|| l[..l.len() - body.len()].to_owned())
        })
        .unwrap_or_else(|| "  ".to_owned());
    let lines = entry_lines(entry, &indent);
    out.push_str(&lines);
    let refuse = |why: String| Error::AuditAllowAppend {
        why,
        entry: entry_lines(entry, "  ").trim_end().to_owned(),
    };
    match Allowances::parse(&out) {
        Ok(read) if read.entries.len() == had + 1 && read.entries.last() == Some(entry) => Ok(out),
        Ok(_) => Err(refuse(
            "the entry appended does not read back as the list's last".to_owned(),
        )),
        Err(e) => Err(refuse(e.to_string())),
    }
}

/// Appends `entry` to `vendor-skills-audit.yaml` of the tree `root` locks ([`appended`]),
/// making the file when there is none; the file must still hold what was read when the
/// change is applied.
///
/// # Errors
/// As [`appended`]; a file over the settings limit or not UTF-8; a guarded-write refusal or
/// failure.
pub fn append(root: &asv_fs::WriterLock<'_>, entry: &Allowance) -> Result<(), Error> {
    let file = asv_model::layout::SKILL_AUDIT_ALLOW;
    let before = root.read_file_capped(
        file,
        asv_model::layout::SETTINGS_LIMIT,
        asv_model::layout::SETTINGS_LIMIT_WHAT,
    )?;
    let text = match &before {
        Some(bytes) => Some(std::str::from_utf8(bytes).map_err(|_| Error::AuditAllow {
            entry: None,
            problem: AllowProblem::NotYaml("it is not UTF-8".to_owned()),
        })?),
        None => None,
    };
    let new = appended(text, entry)?;
    let ownership = match before {
        None => asv_fs::Ownership::MustBeFree,
        // Another edit since it was read is never overwritten.
        Some(before) => asv_fs::Ownership::tool_made(move |root, dest, kind| {
            if kind != asv_fs::EntryKind::File {
                return Ok(asv_fs::Verdict::NotOurs(asv_fs::Disowned::Kind(kind)));
            }
            Ok(
                if root.read_file(dest)?.as_deref() == Some(before.as_slice()) {
                    asv_fs::Verdict::Ours
                } else {
                    asv_fs::Verdict::NotOurs(asv_fs::Disowned::Changed(asv_fs::During::Command))
                },
            )
        }),
    };
    let change = asv_fs::Change::replace_file(file, new.into_bytes(), ownership);
    root.apply(asv_fs::Plan::new(root, vec![change])?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(path: &str, rule: Rule, matched: &str) -> Finding {
        let text = format!("{matched}\n");
        let report = asv_audit::scan_skill([asv_audit::SkillFile {
            path,
            bytes: text.as_bytes(),
            executable: false,
        }]);
        report
            .findings
            .into_iter()
            .find(|f| f.rule == rule)
            .expect("the finding")
    }

    #[test]
    fn entries_narrow_by_skill_rule_path_and_fingerprint() {
        let f = finding(
            "references/api.md",
            Rule::NetUrl,
            "http://docs.vendor.dev/x",
        );
        let fp = f.fingerprint.clone();
        let text = format!(
            "allow:\n  - skill: pdf\n    rule: net/url\n    path: references/*.md\n    reason: no TLS there\n  - skill: other\n    rule: net/url\n    fingerprint: {fp}\n    reason: pinned\n"
        );
        let allow = Allowances::parse(&text).unwrap();
        assert_eq!(
            allow.allowing("pdf", &f).map(|a| a.reason.as_str()),
            Some("no TLS there")
        );
        assert!(
            allow
                .allowing(
                    "pdf",
                    &finding("scripts/x.md", Rule::NetUrl, "http://docs.vendor.dev/x")
                )
                .is_none()
        );
        assert!(allow.allowing("other", &f).is_some());
        // Another matched text has another fingerprint: the entry no longer applies.
        assert!(
            allow
                .allowing(
                    "other",
                    &finding(
                        "references/api.md",
                        Rule::NetUrl,
                        "http://docs.vendor.dev/y"
                    )
                )
                .is_none()
        );
    }

    #[test]
    fn an_entry_is_appended_keeping_every_byte_before_it() {
        let entry = Allowance {
            skill: "pdf".into(),
            rule: Rule::NetUrl,
            path: Some("references/*.md".into()),
            fingerprint: None,
            reason: "no TLS: \"legacy\" host".into(),
        };
        // No file: a header comment, then the list.
        let made = appended(None, &entry).unwrap();
        assert!(made.starts_with("# Audit findings accepted after review."));
        assert_eq!(
            Allowances::parse(&made).unwrap().entries,
            std::slice::from_ref(&entry)
        );
        // The list's own indentation and comments kept.
        let text = "# ours\nallow:\n    - skill: a   # kept\n      rule: net/url\n      reason: r\n# tail\n";
        let out = appended(Some(text), &entry).unwrap();
        assert!(out.starts_with(text), "{out}");
        assert!(out.ends_with("    - skill: \"pdf\"\n      rule: \"net/url\"\n      path: \"references/*.md\"\n      reason: \"no TLS: \\\"legacy\\\" host\"\n"), "{out}");
        assert_eq!(Allowances::parse(&out).unwrap().entries.len(), 2);
        // Only comments, or no final newline: the list is opened.
        let out = appended(Some("# nothing yet"), &entry).unwrap();
        assert_eq!(
            out,
            format!("# nothing yet\nallow:\n{}", entry_lines(&entry, "  "))
        );
        // A flow list cannot take a block item: refused, the entry given to add by hand.
        let e = appended(Some("allow: []\n"), &entry)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("vendor-skills-audit.yaml: cannot append an entry"),
            "{e}"
        );
        assert!(e.contains("- skill: \"pdf\""), "{e}");
    }

    #[test]
    fn a_broken_file_is_refused_naming_the_entry() {
        let cases = [
            (
                "allow: 3\n",
                "vendor-skills-audit.yaml: holds a number, not a mapping",
            ),
            (
                "allowed: []\n",
                "vendor-skills-audit.yaml: has a key \"allowed\"",
            ),
            (
                "allow:\n  - skill: a\n    rule: net/url\n",
                "vendor-skills-audit.yaml: entry 1: has no reason text",
            ),
            (
                "allow:\n  - {skill: a, rule: net/urls, reason: x}\n",
                "vendor-skills-audit.yaml: entry 1: names the rule \"net/urls\"",
            ),
            (
                "allow:\n  - {skill: a, rule: net/url, reason: x}\n  - {skill: a, rule: net/url, reason: x, fingerprint: abc}\n",
                "vendor-skills-audit.yaml: entry 2: has the fingerprint \"abc\"",
            ),
            (
                "allow:\n  - {skill: a, rule: net/url, reason: x, why: y}\n",
                "vendor-skills-audit.yaml: entry 1: has a key \"why\"",
            ),
        ];
        for (text, want) in cases {
            let e = Allowances::parse(text).unwrap_err().to_string();
            assert!(e.starts_with(want), "{text}: {e}");
        }
        assert_eq!(
            Allowances::parse("# nothing yet\n").unwrap(),
            Allowances::default()
        );
    }
}
