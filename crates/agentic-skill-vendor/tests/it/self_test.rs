//! `self-test` on the real binary.

use crate::common::{Run, run_bin};

fn args(extra: &[&str]) -> Vec<String> {
    ["self-test", "--root", "/nonexistent"]
        .iter()
        .chain(extra)
        .map(|s| (*s).to_owned())
        .collect()
}

const CHECKED: &str = "3 embedded vectors checked (contract digest, conformance framing, vendored copy header); 3 agree";

#[test]
fn passes_without_a_tree_and_says_what_it_checked() {
    // stdout is the TypeScript tool's (nothing when every vector agrees); what was checked is
    // said on stderr.
    assert_eq!(
        run_bin(&args(&[]), None),
        Run {
            code: 0,
            stdout: String::new(),
            stderr: format!("checked: {CHECKED}\n"),
        }
    );
    assert_eq!(
        run_bin(&args(&["-q"]), None),
        Run {
            code: 0,
            stdout: String::new(),
            stderr: String::new(),
        }
    );
}

#[test]
fn says_what_it_checked_as_a_record_in_json_and_github() {
    let json = run_bin(&args(&["--format", "json"]), None);
    assert_eq!((json.code, json.stderr.as_str()), (0, ""));
    let record: serde_json::Value = serde_json::from_str(json.stdout.trim_end()).unwrap();
    assert_eq!(record["kind"], "checked");
    assert_eq!(record["message"], CHECKED);
    assert_eq!(record["failed"], 0);
    assert_eq!(record["vectors"].as_array().map(Vec::len), Some(3));
    assert_eq!(
        run_bin(&args(&["--format", "github"]), None).stdout,
        format!("::notice title=checked::{CHECKED}\n")
    );
}
