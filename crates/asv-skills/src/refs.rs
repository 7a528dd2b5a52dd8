//! The `ref:` an import follows, read as a semver range over the source's tags (issue 29 §2):
//! which refs are ranges, which tags are versions, and which tag a range picks.
//!
//! A branch, a tag and a full or short commit id are asked of the transport as they are; a
//! range is resolved here, from the source's tag list, so the transports stay ignorant of
//! versions. The `semver` crate reads versions and ranges (its rules, Cargo's: `^1.2`,
//! `~1.2`, `>=1.0, <2`, `=1.2.3`; a prerelease matches only a range that names a prerelease of
//! the same version); which tags count and which one wins is ours.

use asv_remote::Tag;
use semver::{Version, VersionReq};

/// The range `reference` states, when it reads as one: an operator first (`^`, `~`, `=`,
/// `>`, `<`) and the rest a semver range. A plain name (`main`, `v1`, `1.2.3`) is no range
/// here: a bare version is a range only once no branch or tag of that name exists
/// ([`bare_version`]).
pub fn range(reference: &str) -> Option<VersionReq> {
    if !reference.starts_with(['^', '~', '=', '>', '<']) {
        return None;
    }
    VersionReq::parse(reference).ok()
}

/// The exact range `=<reference>` when `reference` is a bare version (`1.2.3`, `1.2`, `1`,
/// a prerelease like `2.1.0-rc.1`), which the caller tries once no branch or tag of that name
/// exists. (`semver` alone would read `1.2.3` as `^1.2.3`; a bare version asks for itself.)
pub fn bare_version(reference: &str) -> Option<VersionReq> {
    if !reference.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    VersionReq::parse(&format!("={reference}")).ok()
}

/// Whether `reference` is a range, either way [`range`] and [`bare_version`] read one.
pub fn is_range(reference: &str) -> bool {
    range(reference).is_some() || bare_version(reference).is_some()
}

/// The version a tag names: its name read as semver, one leading `v` allowed (`v1.2.3` and
/// `1.2.3` alike); `None` for any other tag.
pub fn version_of(tag: &str) -> Option<Version> {
    Version::parse(tag.strip_prefix('v').unwrap_or(tag)).ok()
}

/// The tag `range` picks from `tags`: the highest version that matches. Two tags of one
/// version (`v1.2.3` and `1.2.3`) are told apart by name, so the pick never depends on the
/// order the source listed them in.
///
/// # Example
/// ```
/// use asv_remote::Tag;
/// use asv_skills::refs::{pick, range};
///
/// let tag = |name: &str| Tag { name: name.to_owned(), commit: "c".repeat(40) };
/// let tags = [tag("v1.1.0"), tag("v1.4.2"), tag("v2.0.0"), tag("v1.5.0-rc.1")];
/// let req = range("^1.2").ok_or("a range")?;
/// assert_eq!(pick(&tags, &req).map(|t| t.name.as_str()), Some("v1.4.2"));
/// # Ok::<(), &str>(())
/// ```
pub fn pick<'t>(tags: &'t [Tag], range: &VersionReq) -> Option<&'t Tag> {
    tags.iter()
        .filter_map(|t| version_of(&t.name).map(|v| (v, t)))
        .filter(|(v, _)| range.matches(v))
        .max_by(|(a, ta), (b, tb)| a.cmp(b).then_with(|| ta.name.cmp(&tb.name)))
        .map(|(_, t)| t)
}

/// The newest release among `tags`: the highest version that is no prerelease (a prerelease
/// is news only to a range that asks for one).
pub fn newest(tags: &[Tag]) -> Option<&Tag> {
    tags.iter()
        .filter_map(|t| version_of(&t.name).map(|v| (v, t)))
        .filter(|(v, _)| v.pre.is_empty())
        .max_by(|(a, ta), (b, tb)| a.cmp(b).then_with(|| ta.name.cmp(&tb.name)))
        .map(|(_, t)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(names: &[&str]) -> Vec<Tag> {
        names
            .iter()
            .enumerate()
            .map(|(i, n)| Tag {
                name: (*n).to_owned(),
                commit: format!("{i:040}"),
            })
            .collect()
    }

    #[test]
    fn ranges_pick_the_highest_matching_tag() {
        let all = tags(&[
            "v1.0.0",
            "v1.1.0",
            "1.2.3",
            "v1.2.5",
            "v2.0.0",
            "v2.1.0-rc.1",
            "latest",
            "v3",
        ]);
        let cases: &[(&str, Option<&str>)] = &[
            ("^1", Some("v1.2.5")),
            ("^1.2", Some("v1.2.5")),
            ("~1.1", Some("v1.1.0")),
            (">=1.0", Some("v2.0.0")),
            (">=1.0, <2", Some("v1.2.5")),
            ("=1.2.3", Some("1.2.3")),
            ("^2.1.0-rc.1", Some("v2.1.0-rc.1")),
            (">=2.1.0-rc.0", Some("v2.1.0-rc.1")),
            ("^4", None),
        ];
        for (given, expected) in cases {
            let req = range(given).unwrap_or_else(|| panic!("{given} is a range"));
            assert_eq!(
                pick(&all, &req).map(|t| t.name.as_str()),
                *expected,
                "{given}"
            );
        }
        assert_eq!(newest(&all).map(|t| t.name.as_str()), Some("v2.0.0"));
    }

    #[test]
    fn only_operators_and_bare_versions_are_ranges() {
        for plain in [
            "main",
            "v1",
            "v1.2.3",
            "release/1.0",
            "c0ffee1",
            "feature-2",
        ] {
            assert!(!is_range(plain), "{plain}");
        }
        assert!(range("1.2.3").is_none());
        let exact = bare_version("1.2.3").unwrap();
        assert!(exact.matches(&Version::new(1, 2, 3)));
        assert!(!exact.matches(&Version::new(1, 2, 4)));
        assert!(is_range("^1.2") && is_range(">=1.0, <2") && is_range("2.1.0-rc.1"));
        // Two tags of one version: the pick is by name, whatever the listing order.
        let twins = tags(&["v1.2.3", "1.2.3"]);
        let mut reversed = twins.clone();
        reversed.reverse();
        let req = range("^1").unwrap();
        assert_eq!(pick(&twins, &req), pick(&reversed, &req));
    }
}
