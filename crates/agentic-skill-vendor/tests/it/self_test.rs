//! `self-test` on the real binary.

use crate::common::{Run, run_bin};

#[test]
fn passes_quietly_without_a_tree() {
    assert_eq!(
        run_bin(
            &[
                "self-test".to_owned(),
                "--root".to_owned(),
                "/nonexistent".to_owned()
            ],
            None
        ),
        Run {
            code: 0,
            stdout: String::new(),
            stderr: String::new()
        }
    );
}
