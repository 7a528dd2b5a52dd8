//! Who owns a dest, and so what `gen` may do there: the ownership rules of raw-byte
//! placements as one pure function.
//!
//! The tool must never overwrite something it cannot show it wrote. [`decide`] weighs what
//! stands at a dest against what the lock records there and what this run would write, and
//! nothing else: no tree, no lock file, so every row of the rules is a line of its tests.

use asv_model::id::ContractId;

use crate::digest::Digest;
use crate::error::PlacementProblem;
use crate::raw::{Files, MARKER};
use crate::report::Event;

use super::observe::{Standing, first_disagreement};

/// Whether a dest is a file or a directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DestKind {
    /// A regular file.
    File,
    /// A directory (its key and its src keep a trailing `/`).
    Directory,
}

impl DestKind {
    /// The kind a trailing-`/` flag names.
    pub fn of(dir: bool) -> DestKind {
        if dir {
            DestKind::Directory
        } else {
            DestKind::File
        }
    }

    /// Whether it is a directory.
    pub fn is_dir(self) -> bool {
        self == DestKind::Directory
    }

    /// `site` as `gen` prints it: a directory keeps its trailing `/`.
    pub fn shown(self, site: &str) -> String {
        match self {
            DestKind::Directory => format!("{site}/"),
            DestKind::File => site.to_owned(),
        }
    }

    /// The file `rel` of a dest at `site`, from the root: a file dest is its own one file.
    pub fn file_at(self, site: &str, rel: &str) -> String {
        match self {
            DestKind::Directory => format!("{site}/{rel}"),
            DestKind::File => site.to_owned(),
        }
    }
}

impl std::fmt::Display for DestKind {
    /// `file` or `directory`, as refusals name it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DestKind::File => "file",
            DestKind::Directory => "directory",
        })
    }
}

/// What the lock records at a dest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The kind the lock records (from the trailing `/` of the record).
    pub kind: DestKind,
    /// The placement digest recorded there.
    pub digest: Digest,
}

/// What this run would write at a dest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    /// A file or a directory.
    pub kind: DestKind,
    /// The files, marker included for a directory (a file dest is one entry named by its
    /// basename).
    pub files: Files,
}

/// What `gen` does at one dest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Nothing stands there: write the planned files.
    Write,
    /// The lock records the dest and it still holds what was recorded: replace it.
    Replace,
    /// The lock records the dest, it still holds what was recorded and already holds exactly
    /// the planned files: nothing to write, so a run with nothing to change writes nothing.
    Keep,
    /// The lock does not show the tool wrote it, but it already holds what this run writes:
    /// take it over (`claimed:`).
    Claim {
        /// Whether it is written all the same: a directory whose marker is missing, the one
        /// file a claim may lack, since the marker is the tool's own.
        rewrite: bool,
    },
    /// Recorded, no longer declared, and still holding what was recorded: remove it
    /// (`cleared:`).
    Clear,
    /// Recorded, no longer declared, and gone already (`cleared: … (<id>; already absent)`).
    AlreadyAbsent,
    /// Neither recorded nor declared: not the tool's business.
    Leave,
}

impl Decision {
    /// Whether the planned files are written at the dest.
    pub fn writes(self) -> bool {
        matches!(
            self,
            Decision::Write | Decision::Replace | Decision::Claim { rewrite: true }
        )
    }

    /// Whether the dest is removed.
    pub fn removes(self) -> bool {
        self == Decision::Clear
    }

    /// The line `gen` prints for it, if any: `claimed` or `cleared`, for contract `id` at
    /// `shown` (see [`DestKind::shown`]).
    pub fn event(self, shown: String, id: ContractId) -> Option<Event> {
        match self {
            Decision::Claim { .. } => Some(Event::Claimed { site: shown, id }),
            Decision::Clear | Decision::AlreadyAbsent => Some(Event::Cleared {
                site: shown,
                id,
                already_absent: self == Decision::AlreadyAbsent,
            }),
            Decision::Write | Decision::Replace | Decision::Keep | Decision::Leave => None,
        }
    }
}

/// Decides what `gen` does at the dest `site`: write, replace, keep or claim a declared dest;
/// clear a recorded one no declaration places any more; or refuse.
///
/// `standing` is what stands there (`None`: nothing), `recorded` what the lock records there
/// and `planned` what this run would write (`None`: no declaration places anything there).
///
/// | standing | recorded | planned | decision |
/// |---|---|---|---|
/// | nothing | any | some | [`Decision::Write`] |
/// | as recorded (kind and digest) | some | some | [`Decision::Replace`], or [`Decision::Keep`] when already exactly the planned files |
/// | the other kind | not as standing | some | refused: [`PlacementProblem::UnownedKind`] |
/// | other files | not as standing | some | refused: [`PlacementProblem::Unowned`], naming the first differing file |
/// | the planned files (a directory's marker may be missing) | not as standing | some | [`Decision::Claim`] |
/// | nothing | some | none | [`Decision::AlreadyAbsent`] |
/// | the other kind | some | none | refused: [`PlacementProblem::ClearWrongKind`] |
/// | another digest | some | none | refused: [`PlacementProblem::ClearEdited`] |
/// | as recorded | some | none | [`Decision::Clear`] |
/// | any | none | none | [`Decision::Leave`] |
///
/// # Errors
/// The refusals of the table: something stands where this run writes that the lock does not
/// record as the tool's and that is not what this run would write; a recorded dest to clear
/// that was edited or changed kind.
///
/// # Example
/// ```
/// use asv_contracts::Digest;
/// use asv_contracts::error::PlacementProblem;
/// use asv_contracts::placement::{Decision, DestKind, Planned, Standing, decide};
/// use asv_contracts::raw::Blob;
///
/// let site = "skills/writer/run.sh";
/// let run = |bytes: &[u8]| vec![("run.sh".to_owned(), Blob::of(bytes))];
/// let planned = Planned { kind: DestKind::File, files: run(b"echo hi\n") };
/// // The digest only matters against a record; there is none here.
/// let standing = |bytes: &[u8]| Standing { kind: DestKind::File, digest: Digest::of(b""), files: run(bytes) };
///
/// // Not recorded, but already what this run writes: taken over.
/// let same = standing(b"echo hi\n");
/// assert_eq!(decide(site, Some(&same), None, Some(&planned)), Ok(Decision::Claim { rewrite: false }));
///
/// // Not recorded and something else: refused, naming what differs.
/// let mine = standing(b"echo mine\n");
/// assert_eq!(
///     decide(site, Some(&mine), None, Some(&planned)),
///     Err(PlacementProblem::Unowned { site: site.to_owned(), differs: site.to_owned() })
/// );
/// ```
pub fn decide(
    site: &str,
    standing: Option<&Standing>,
    recorded: Option<&Recorded>,
    planned: Option<&Planned>,
) -> Result<Decision, PlacementProblem> {
    let as_recorded =
        |s: &Standing| recorded.is_some_and(|r| r.kind == s.kind && r.digest == s.digest);
    match (standing, planned) {
        (None, Some(_)) => Ok(Decision::Write),
        (Some(s), Some(p)) => {
            let identical =
                s.kind == p.kind && first_disagreement(&s.files, &p.files, None).is_none();
            if as_recorded(s) {
                return Ok(if identical {
                    Decision::Keep
                } else {
                    Decision::Replace
                });
            }
            if s.kind != p.kind {
                return Err(PlacementProblem::UnownedKind {
                    site: site.to_owned(),
                    found: s.kind,
                    planned: p.kind,
                });
            }
            // The marker is the tool's own, so a copy that lacks only the marker is still
            // exactly what this run writes.
            let optional = p.kind.is_dir().then_some(MARKER);
            if let Some(first) = first_disagreement(&s.files, &p.files, optional) {
                let site = site.to_owned();
                let differs = p.kind.file_at(&site, &first);
                // The lock records this dest as the tool's: what stands there was edited.
                return Err(if recorded.is_some_and(|r| r.kind == s.kind) {
                    PlacementProblem::Edited { site, differs }
                } else {
                    PlacementProblem::Unowned { site, differs }
                });
            }
            Ok(Decision::Claim {
                rewrite: !identical,
            })
        }
        (None, None) => Ok(if recorded.is_some() {
            Decision::AlreadyAbsent
        } else {
            Decision::Leave
        }),
        (Some(s), None) => match recorded {
            None => Ok(Decision::Leave),
            Some(r) if r.kind != s.kind => Err(PlacementProblem::ClearWrongKind {
                site: site.to_owned(),
                recorded: r.kind,
                found: s.kind,
            }),
            Some(r) if r.digest != s.digest => Err(PlacementProblem::ClearEdited {
                site: site.to_owned(),
            }),
            Some(_) => Ok(Decision::Clear),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raw::Blob;

    const SITE: &str = "skills/a/tools";

    /// Files from `path=bytes` pairs.
    fn files(spec: &[&str]) -> Files {
        spec.iter()
            .map(|s| {
                let (p, b) = s.split_once('=').unwrap_or((s, ""));
                (p.to_owned(), Blob::of(b.as_bytes()))
            })
            .collect()
    }

    fn dir(digest: &str, spec: &[&str]) -> Option<Standing> {
        Some(Standing {
            kind: DestKind::Directory,
            digest: Digest::of(digest.as_bytes()),
            files: files(spec),
        })
    }

    fn file(digest: &str, bytes: &str) -> Option<Standing> {
        Some(Standing {
            kind: DestKind::File,
            digest: Digest::of(digest.as_bytes()),
            files: files(&[&format!("tools={bytes}")]),
        })
    }

    fn recorded(kind: DestKind, digest: &str) -> Option<Recorded> {
        Some(Recorded {
            kind,
            digest: Digest::of(digest.as_bytes()),
        })
    }

    fn planned(kind: DestKind, spec: &[&str]) -> Option<Planned> {
        Some(Planned {
            kind,
            files: files(spec),
        })
    }

    use DestKind::{Directory as D, File as F};

    /// One row of the rules: its name, what stands, what the lock records, what this run
    /// writes, and the decision.
    type Row = (
        &'static str,
        Option<Standing>,
        Option<Recorded>,
        Option<Planned>,
        Result<Decision, PlacementProblem>,
    );

    #[test]
    fn decide_table() {
        // The planned directory: one script and its marker.
        let plan = &["run.sh=new", ".vendored=mark"];
        let site = SITE.to_owned();
        #[rustfmt::skip]
        let rows: Vec<Row> = vec![
            ("empty dest: write",
                None, None, planned(D, plan), Ok(Decision::Write)),
            ("empty recorded dest: write",
                None, recorded(D, "x"), planned(D, plan), Ok(Decision::Write)),
            ("recorded and intact: replace",
                dir("x", &["run.sh=old", ".vendored=mark"]), recorded(D, "x"), planned(D, plan), Ok(Decision::Replace)),
            ("recorded, intact, already the planned files: keep",
                dir("x", plan), recorded(D, "x"), planned(D, plan), Ok(Decision::Keep)),
            ("recorded intact, ignored file beside: still replaced",
                dir("x", &["run.sh=new", ".vendored=mark", "cache.pyc=1"]), recorded(D, "x"), planned(D, plan), Ok(Decision::Replace)),
            ("recorded as a file, a directory stands: not intact, claimed when identical",
                dir("x", plan), recorded(F, "x"), planned(D, plan), Ok(Decision::Claim { rewrite: false })),
            ("unrecorded, identical: claim",
                dir("y", plan), None, planned(D, plan), Ok(Decision::Claim { rewrite: false })),
            ("unrecorded, identical but for the marker: claim and write",
                dir("y", &["run.sh=new"]), None, planned(D, plan), Ok(Decision::Claim { rewrite: true })),
            ("recorded but edited back to the planned files: claim",
                dir("edited", plan), recorded(D, "x"), planned(D, plan), Ok(Decision::Claim { rewrite: false })),
            ("unrecorded file, planned file: claim",
                file("y", "new"), None, planned(F, &["tools=new"]), Ok(Decision::Claim { rewrite: false })),
            ("unrecorded directory where a file is planned: refuse",
                dir("y", plan), None, planned(F, &["tools=new"]),
                Err(PlacementProblem::UnownedKind { site: site.clone(), found: D, planned: F })),
            ("edited file where a directory is planned: refuse",
                file("edited", "new"), recorded(D, "x"), planned(D, plan),
                Err(PlacementProblem::UnownedKind { site: site.clone(), found: F, planned: D })),
            ("foreign file inside: refuse, naming it",
                dir("y", &[".vendored=mark", "notes.txt=mine", "run.sh=new"]), None, planned(D, plan),
                Err(PlacementProblem::Unowned { site: site.clone(), differs: format!("{SITE}/notes.txt") })),
            ("foreign marker: refuse, naming it",
                dir("y", &[".vendored=other", "run.sh=new"]), None, planned(D, plan),
                Err(PlacementProblem::Unowned { site: site.clone(), differs: format!("{SITE}/.vendored") })),
            ("a planned file missing: refuse, naming it",
                dir("y", &[".vendored=mark"]), None, planned(D, plan),
                Err(PlacementProblem::Unowned { site: site.clone(), differs: format!("{SITE}/run.sh") })),
            ("edited directory: refuse, naming the edited file",
                dir("edited", &["run.sh=mine", ".vendored=mark"]), recorded(D, "x"), planned(D, plan),
                Err(PlacementProblem::Edited { site: site.clone(), differs: format!("{SITE}/run.sh") })),
            ("foreign file dest: refuse, naming the dest",
                file("y", "mine"), None, planned(F, &["tools=new"]),
                Err(PlacementProblem::Unowned { site: site.clone(), differs: site.clone() })),
            ("recorded, undeclared, intact: clear",
                dir("x", &["run.sh=old"]), recorded(D, "x"), None, Ok(Decision::Clear)),
            ("recorded, undeclared, gone: already absent",
                None, recorded(D, "x"), None, Ok(Decision::AlreadyAbsent)),
            ("recorded, undeclared, edited: refuse",
                dir("edited", &["run.sh=mine"]), recorded(D, "x"), None,
                Err(PlacementProblem::ClearEdited { site: site.clone() })),
            ("recorded directory, undeclared, a file stands: refuse",
                file("x", "old"), recorded(D, "x"), None,
                Err(PlacementProblem::ClearWrongKind { site: site.clone(), recorded: D, found: F })),
            ("neither recorded nor declared, something stands: leave",
                file("y", "mine"), None, None, Ok(Decision::Leave)),
            ("neither recorded nor declared, nothing stands: leave",
                None, None, None, Ok(Decision::Leave)),
        ];
        for (name, standing, recorded, planned, want) in rows {
            let got = decide(SITE, standing.as_ref(), recorded.as_ref(), planned.as_ref());
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn decision_effects() {
        let id = ContractId::parse("tools").unwrap();
        let shown = || format!("{SITE}/");
        #[rustfmt::skip]
        let rows: Vec<(Decision, bool, bool, Option<Event>)> = vec![
            (Decision::Write, true, false, None),
            (Decision::Replace, true, false, None),
            (Decision::Keep, false, false, None),
            (Decision::Claim { rewrite: false }, false, false,
                Some(Event::Claimed { site: shown(), id: id.clone() })),
            (Decision::Claim { rewrite: true }, true, false,
                Some(Event::Claimed { site: shown(), id: id.clone() })),
            (Decision::Clear, false, true,
                Some(Event::Cleared { site: shown(), id: id.clone(), already_absent: false })),
            (Decision::AlreadyAbsent, false, false,
                Some(Event::Cleared { site: shown(), id: id.clone(), already_absent: true })),
            (Decision::Leave, false, false, None),
        ];
        for (decision, writes, removes, event) in rows {
            assert_eq!(decision.writes(), writes, "{decision:?} writes");
            assert_eq!(decision.removes(), removes, "{decision:?} removes");
            assert_eq!(
                decision.event(shown(), id.clone()),
                event,
                "{decision:?} event"
            );
        }
    }

    #[test]
    fn dest_kind_words() {
        assert_eq!(D.to_string(), "directory");
        assert_eq!(F.to_string(), "file");
        assert_eq!(D.shown(SITE), "skills/a/tools/");
        assert_eq!(F.shown(SITE), SITE);
        assert_eq!(D.file_at(SITE, "x"), "skills/a/tools/x");
        assert_eq!(F.file_at(SITE, "tools"), SITE);
        assert_eq!(DestKind::of(true), D);
    }
}
