//! lint

use asv_fs::Tree;

use crate::error::Result;
use crate::report::Violation;

/// Checks that no skill points outside its own directory.
///
/// # Errors
/// A guarded-read refusal.
pub fn lint_selfcontain(_tree: &Tree) -> Result<Vec<Violation>> {
    Ok(Vec::new())
}
