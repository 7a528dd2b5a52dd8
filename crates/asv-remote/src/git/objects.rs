//! The raw commit and tag objects a signature check reads (issue 33 §1).
//!
//! A signed commit carries its SSH signature in a `gpgsig` header, a signed tag after its
//! message; both are checked over the object's own bytes, so the check needs the objects
//! exactly as git stores them. They are read in the conversation that already asks git what
//! a fetched commit is (the source's kept `git cat-file --batch`, in [`Git::kind_of`]): the pin, the commits fetched beside it and the tag object a tag ref
//! names, fetched in the same `git fetch` as its commit. A commit or tag object is small;
//! reading its bytes with its type costs no process more. Each object read is checked to hash
//! to its id before it is kept.

use super::conversation::{Found, Heard, Reply};
use super::*;
use crate::{Provenance, TagObject, object_id};

/// The most bytes of one commit or tag object kept (its message included).
const OBJECT_LIMIT: u64 = 1024 * 1024;

impl Git {
    /// The types of `ids` (`None` where git answered anything but an object), in order,
    /// asked of the source's kept `git cat-file --batch` (`conversation`). The bytes of every
    /// commit and tag answered are checked against their id and kept for
    /// [`Transport::provenance`]. A failing git answers `None` for the rest, so a caller asks
    /// again its own way.
    pub(super) fn read_objects(
        &mut self,
        ids: &[String],
        what: &Step,
    ) -> Result<Vec<Option<String>>> {
        let mut input = Vec::new();
        for id in ids {
            input.extend_from_slice(id.as_bytes());
            input.push(b'\n');
        }
        let cap = ids.len() as u64 * (OBJECT_LIMIT + 256);
        let mut found: Vec<Option<(String, Vec<u8>)>> = vec![None; ids.len()];
        let mut too_large = false;
        let heard = self.exchange(
            input,
            conversation::objects_job(ids.to_vec(), cap),
            what,
            &mut |reply| {
                let Reply::Objects(answers) = reply else {
                    return false;
                };
                for (i, answer) in answers {
                    match answer {
                        Found::Object { kind, bytes } => {
                            if let Some(slot) = found.get_mut(i) {
                                *slot = Some((kind, bytes));
                            }
                        }
                        Found::TooLarge => too_large = true,
                        _ => {}
                    }
                }
                true
            },
        )?;
        if let Heard::Ended(Outcome::Cut(cut)) = heard {
            return Err(self.limit_error(cut, what));
        }
        if too_large {
            return Err(self.limit_error(Cut::Output, what));
        }
        let mut kinds = Vec::with_capacity(ids.len());
        for (id, found) in ids.iter().zip(found) {
            let Some((kind, bytes)) = found else {
                kinds.push(None);
                continue;
            };
            if matches!(kind.as_str(), "commit" | "tag") {
                let format = if id.len() == 64 {
                    ObjectFormat::Sha256
                } else {
                    ObjectFormat::Sha1
                };
                let got = object_id(format, &kind, &bytes);
                if got != *id {
                    return Err(self.stop(GitProblem::ObjectMismatch {
                        id: id.clone(),
                        kind,
                        got,
                    }));
                }
                self.objects.insert(id.clone(), bytes);
            }
            kinds.push(matches!(kind.as_str(), "commit" | "tree" | "blob" | "tag").then_some(kind));
        }
        Ok(kinds)
    }

    /// The tag `name` as the server lists it: its own id and, for an annotated tag, the
    /// commit it peels to; `None` when the server has no such tag. Known from an earlier
    /// lookup or tag listing of the run, else asked with one `git ls-remote`.
    fn tag_ref(&mut self, name: &str) -> Result<Option<(String, Option<String>)>> {
        if let Some(known) = self.tag_refs.get(name) {
            return Ok(known.clone());
        }
        if self.tags_listed || !asv_model::source::is_usable_ref(name) {
            return Ok(None);
        }
        let what = Step::LookUp {
            reference: name.to_owned(),
        };
        let tag = format!("refs/tags/{name}");
        let peeled = format!("refs/tags/{name}^{{}}");
        let (refs, _) = self.ls_remote(None, &[tag.clone(), peeled.clone()], &what)?;
        let find = |wanted: &str| {
            refs.iter()
                .find(|(_, n)| n == wanted)
                .map(|(id, _)| id.clone())
        };
        let known = find(&tag).map(|direct| (direct, find(&peeled)));
        self.tag_refs.insert(name.to_owned(), known.clone());
        Ok(known)
    }

    /// Records what a lookup or tag listing said of the name `name`: the tag's own id and the
    /// commit it peels to, or `None` when it is no tag.
    pub(super) fn note_tag(&mut self, name: &str, tag: Option<(String, Option<String>)>) {
        self.tag_refs.insert(name.to_owned(), tag);
    }

    /// Fetches the object `id` alone (a tag object the commit's fetch did not bring).
    fn fetch_object(&mut self, id: &str, what: &Step) -> Result<()> {
        let args = shallow_fetch(id);
        self.git(&args, true, SMALL_LIMIT, true, what).map(|_| ())
    }

    /// [`Transport::provenance`] for a git source.
    pub(super) fn provenance_of(
        &mut self,
        commit: &Commit,
        reference: Option<&str>,
    ) -> Result<Provenance> {
        self.dir()?;
        let revision = self.revision_of(commit)?.to_owned();
        let what = Step::Objects {
            revision: revision.clone(),
        };
        let tag = match reference {
            Some(r) if !is_hex_id(r, 40) && !is_hex_id(r, 64) => self
                .tag_ref(r)?
                .map(|(direct, peeled)| (r.to_owned(), direct, peeled)),
            _ => None,
        };
        // An annotated tag's object is asked for in the commit's own fetch when that is
        // still to come.
        if let Some((_, direct, Some(_))) = &tag
            && !self.objects.contains_key(direct)
            && !self.fetched.contains(&revision)
            && !self.hinted.contains(direct)
        {
            self.hinted.push(direct.clone());
        }
        self.fetch(&revision, commit.format)?;
        let mut missing = Vec::new();
        if !self.objects.contains_key(&revision) {
            missing.push(revision.clone());
        }
        if let Some((_, direct, Some(_))) = &tag
            && !self.objects.contains_key(direct)
        {
            if !self.present.contains(direct) {
                self.fetch_object(direct, &what)?;
            }
            missing.push(direct.clone());
        }
        if !missing.is_empty() {
            self.read_objects(&missing, &what)?;
        }
        let Some(raw_commit) = self.objects.get(&revision).cloned() else {
            return Err(self.malformed(&what, &revision));
        };
        let tag = match tag {
            None => None,
            Some((name, target, None)) => Some(TagObject::Lightweight { name, target }),
            Some((name, id, Some(target))) => {
                let Some(raw) = self.objects.get(&id).cloned() else {
                    return Err(self.malformed(&what, &id));
                };
                // The commit the tag object names is read from the object itself, not the
                // server's listing: the signature covers that line.
                let named = raw
                    .split(|&b| b == b'\n')
                    .next()
                    .and_then(|line| line.strip_prefix(b"object "))
                    .map(|id| String::from_utf8_lossy(id).into_owned())
                    .unwrap_or(target);
                Some(TagObject::Annotated {
                    name,
                    id,
                    target: named,
                    raw,
                })
            }
        };
        Ok(Provenance {
            commit: raw_commit,
            tag,
        })
    }
}
