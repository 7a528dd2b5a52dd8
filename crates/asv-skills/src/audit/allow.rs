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
