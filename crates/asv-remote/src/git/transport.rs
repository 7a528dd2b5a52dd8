//! The [`Transport`] a git source is read through: refs, tags, listings and files, each one
//! locked-down git conversation of [`Git`]'s.

use super::*;

impl Transport for Git {
    fn default_branch(&mut self) -> Result<String> {
        let what = &Step::DefaultBranch;
        // The branch is looked up next (`resolve`): what `HEAD` names is fetched meanwhile.
        self.start_ahead_of_head();
        let (_, symrefs) = match self.ls_remote(Some("--symref"), &["HEAD".to_owned()], what) {
            Ok(answer) => answer,
            Err(e) => {
                let _ = self.finish_ahead(None);
                return Err(e);
            }
        };
        let target = symrefs
            .iter()
            .find(|(_, name)| name == "HEAD")
            .map(|(target, _)| target.clone());
        match target
            .as_deref()
            .and_then(|t| t.strip_prefix("refs/heads/"))
        {
            Some(branch) if asv_model::source::is_usable_ref(branch) => Ok(branch.to_owned()),
            _ => {
                let _ = self.finish_ahead(None);
                Err(self.error(GitProblem::Ref(RefProblem::NoDefaultBranch {
                    found: target,
                })))
            }
        }
    }

    fn resolve(&mut self, reference: &str) -> Result<Commit> {
        self.dir()?;
        if !asv_model::source::is_usable_ref(reference) {
            return Err(self.error(GitProblem::Ref(RefProblem::Unusable {
                reference: reference.to_owned(),
            })));
        }
        let format_of = |id: &str| {
            if id.len() == 64 {
                ObjectFormat::Sha256
            } else {
                ObjectFormat::Sha1
            }
        };
        let revision = if is_hex_id(reference, 40) || is_hex_id(reference, 64) {
            reference.to_owned()
        } else {
            // The branch of that name, if it is one, fetched while the name is looked up
            // (`ahead`): the lookup below decides alone what the name means.
            self.start_ahead(reference);
            match self.look_up(reference) {
                Ok(Some((revision, true))) => revision,
                Ok(Some((revision, false))) => {
                    // A tag: the branch fetched ahead is none, or another commit.
                    self.finish_ahead(None)?;
                    revision
                }
                Ok(None) => {
                    self.finish_ahead(None)?;
                    return self.resolve_short(reference);
                }
                Err(e) => {
                    // The lookup's refusal is the one to say; a fetch that cannot be
                    // confirmed stopped is said from then on.
                    let _ = self.finish_ahead(None);
                    return Err(e);
                }
            }
        };
        let format = format_of(&revision);
        // A commit a listed annotated tag peels to (a semver range's pick) comes with that
        // tag's object, so a signature check of the tag needs no fetch of its own.
        let tags: Vec<String> = self
            .tag_refs
            .values()
            .flatten()
            .filter(|(direct, peeled)| {
                peeled.as_deref() == Some(revision.as_str()) && !self.hinted.contains(direct)
            })
            .map(|(direct, _)| direct.clone())
            .collect();
        self.hinted.extend(tags);
        self.finish_ahead(Some(&revision))?;
        self.fetch(&revision, format)?;
        Ok(Commit { revision, format })
    }

    fn tags(&mut self) -> Result<Option<Vec<Tag>>> {
        self.dir()?;
        let (refs, _) = self.ls_remote(Some("--tags"), &[], &Step::Tags)?;
        // An annotated tag is listed twice: itself, and peeled (`^{}`) to its commit.
        let mut named: std::collections::BTreeMap<String, (Option<String>, Option<String>)> =
            std::collections::BTreeMap::new();
        for (id, name) in refs {
            let Some(tag) = name.strip_prefix("refs/tags/") else {
                continue;
            };
            match tag.strip_suffix("^{}") {
                Some(tag) => named.entry(tag.to_owned()).or_default().1 = Some(id),
                None => named.entry(tag.to_owned()).or_default().0 = Some(id),
            }
        }
        for (name, (direct, peeled)) in &named {
            if let Some(direct) = direct {
                self.note_tag(name, Some((direct.clone(), peeled.clone())));
            }
        }
        self.tags_listed = true;
        Ok(Some(
            named
                .into_iter()
                .filter_map(|(name, (direct, peeled))| {
                    peeled.or(direct).map(|commit| Tag { name, commit })
                })
                .collect(),
        ))
    }

    fn known_tag(&mut self, name: &str) -> Result<Option<Option<String>>> {
        // A stopped source refuses this as everything else.
        self.dir()?;
        // The lookup of a name asks for `refs/tags/<name>` and its peeled form, which is what
        // the tag list says of it (the signature check takes a tag so too).
        Ok(self.tag_refs.get(name).map(|known| {
            known
                .as_ref()
                .map(|(direct, peeled)| peeled.as_ref().unwrap_or(direct).clone())
        }))
    }

    fn provenance(
        &mut self,
        commit: &Commit,
        reference: Option<&str>,
    ) -> Result<Option<crate::Provenance>> {
        self.provenance_of(commit, reference).map(Some)
    }

    fn list(&mut self, commit: &Commit) -> Result<Vec<TreeEntry>> {
        let revision = self.listed(commit)?;
        Ok(self.listings.get(&revision).cloned().unwrap_or_default())
    }

    fn list_under(&mut self, commit: &Commit, path: &str) -> Result<Vec<TreeEntry>> {
        if path == "." {
            return self.list(commit);
        }
        self.dir()?;
        let revision = self.revision_of(commit)?.to_owned();
        self.fetch(&revision, commit.format)?;
        let prefix = format!("{path}/");
        let below = |listing: &[TreeEntry]| -> Vec<TreeEntry> {
            listing
                .iter()
                .filter(|e| e.path.starts_with(&prefix))
                .cloned()
                .collect()
        };
        if let Some(listing) = self.listings.get(&revision) {
            return Ok(below(listing));
        }
        let key = (revision, path.to_owned());
        if let Some(entries) = self.subtrees.get(&key) {
            return Ok(entries.clone());
        }
        let what = Step::Listing {
            revision: key.0.clone(),
        };
        // Only the trees along the path and under it are read; where that walk cannot answer
        // as the listing would, the listing does.
        match self.list_below(&key.0, commit.format, path, &what)? {
            Some(entries) => {
                self.subtrees.insert(key, entries.clone());
                Ok(entries)
            }
            None => {
                let revision = self.listed(commit)?;
                Ok(self
                    .listings
                    .get(&revision)
                    .map(|l| below(l))
                    .unwrap_or_default())
            }
        }
    }

    fn tree_id(&mut self, commit: &Commit, path: &str) -> Result<Option<Option<String>>> {
        self.dir()?;
        let revision = self.revision_of(commit)?.to_owned();
        // A pin the server no longer hands out cannot be compared: nothing can be told.
        if !self.fetch_or_not(&revision, commit.format, true)? {
            return Ok(None);
        }
        if path != "." {
            // A commit already listed is looked up in its listing; else only the trees along
            // the path are read.
            if !self.listings.contains_key(&revision) {
                let what = Step::Listing {
                    revision: revision.clone(),
                };
                if let Some(found) = self.tree_at(&revision, commit.format, path, &what)? {
                    return Ok(Some(found));
                }
            }
            // Looked up where the listing is kept, not in a copy of it: a run asks this of
            // every skill, and a copy of a whole listing per skill was most of a pull's time.
            let revision = self.listed(commit)?;
            return Ok(Some(self.listings.get(&revision).and_then(|listing| {
                listing
                    .iter()
                    .find(|e| e.path == path && e.mode == crate::EntryMode::Tree)
                    .map(|e| e.oid.clone())
            })));
        }
        if let Some(root) = self.roots.get(&revision) {
            return Ok(Some(Some(root.clone())));
        }
        // The commit object read when it was fetched names its root tree.
        if let Some(root) = self
            .objects
            .get(&revision)
            .and_then(|raw| trees::root_of(raw, commit.format.hex_len()))
        {
            self.roots.insert(revision, root.clone());
            return Ok(Some(Some(root)));
        }
        self.fetch(&revision, commit.format)?;
        let what = Step::Listing {
            revision: revision.clone(),
        };
        let tree = format!("{revision}^{{tree}}");
        let out = self.git(
            &["rev-parse", "--verify", &tree],
            true,
            SMALL_LIMIT,
            true,
            &what,
        )?;
        let text = String::from_utf8_lossy(&out);
        let id = text.trim_end();
        if !is_hex_id(id, commit.format.hex_len()) {
            return Err(self.malformed(&what, id));
        }
        self.roots.insert(revision, id.to_owned());
        Ok(Some(Some(id.to_owned())))
    }

    fn hint(&mut self, revisions: &[String]) {
        for revision in revisions {
            if (is_hex_id(revision, 40) || is_hex_id(revision, 64))
                && !self.hinted.contains(revision)
            {
                self.hinted.push(revision.clone());
            }
        }
    }

    fn read_each(
        &mut self,
        commit: &Commit,
        entries: &[TreeEntry],
        each: &mut dyn FnMut(usize, Vec<u8>) -> bool,
    ) -> Result<()> {
        self.dir()?;
        let revision = self.revision_of(commit)?.to_owned();
        // Runs of entries a batch can take (judged as `read` judges them, at a path a line of
        // git's batch input can name) are read together; any other entry is read alone, so
        // it is refused exactly as `read` refuses it, in its turn.
        let batchable = |e: &TreeEntry| {
            let file = FileAt {
                path: e.path.clone(),
                revision: revision.clone(),
            };
            check_readable(&file, e).is_ok()
                && is_hex_id(&e.oid, commit.format.hex_len())
                && !e.path.contains(['\n', '\r'])
        };
        let mut at = 0;
        while at < entries.len() {
            let run = entries[at..].iter().take_while(|e| batchable(e)).count();
            if run < 2 {
                if !each(at, self.read(commit, &entries[at])?) {
                    return Ok(());
                }
                at += 1;
                continue;
            }
            let part = &entries[at..at + run];
            let offset = at;
            let go_on = self.read_batch(commit, &revision, part, &mut |i, bytes| {
                each(offset + i, bytes)
            })?;
            if !go_on {
                return Ok(());
            }
            at += run;
        }
        // The read is done: the kept `git cat-file --batch` is ended, and must end well.
        self.end_conversation(&Step::Files {
            revision,
            count: entries.len(),
        })
    }

    fn read(&mut self, commit: &Commit, entry: &TreeEntry) -> Result<Vec<u8>> {
        self.dir()?;
        let revision = self.revision_of(commit)?.to_owned();
        let path = &entry.path;
        let file = FileAt {
            path: path.clone(),
            revision: revision.clone(),
        };
        check_readable(&file, entry).map_err(|e| self.error(GitProblem::Entry(e)))?;
        if !is_hex_id(&entry.oid, commit.format.hex_len()) {
            return Err(self.error(GitProblem::BadBlobId {
                file,
                oid: entry.oid.clone(),
                format: commit.format,
            }));
        }
        self.fetch(&revision, commit.format)?;
        let left = self.limits.total.saturating_sub(self.read);
        let cap = self.limits.file.min(left);
        let object = format!("{revision}:{path}");
        let what = Step::File(file.clone());
        let bytes = match self.run(&["cat-file", "blob", &object], true, cap, true, &what)? {
            Outcome::Ended(finished) if finished.status.success() => finished.stdout,
            Outcome::Ended(finished) => {
                return Err(self.stop(GitProblem::ReadFailed {
                    file,
                    failure: GitFailure::from_stderr(&finished.stderr, finished.status),
                }));
            }
            Outcome::Cut(Cut::Output) => {
                let problem = self.over_cap(file, cap);
                return Err(self.stop(problem));
            }
            Outcome::Cut(cut) => return Err(self.limit_error(cut, &what)),
        };
        self.read += bytes.len() as u64;
        let got = blob_id(commit.format, &bytes);
        if got != entry.oid {
            return Err(self.error(GitProblem::BlobMismatch {
                file,
                listed: entry.oid.clone(),
                got,
            }));
        }
        Ok(bytes)
    }
}

impl Git {
    /// The one commit the short id `prefix` starts (issue 29 §2). A server hands out no
    /// commit by a short id, so every branch and tag is fetched (history without blobs, the
    /// temporary repository watched against its limit as any fetch is) and git is asked
    /// which objects the id starts; those that are not commits do not count.
    fn resolve_short(&mut self, prefix: &str) -> Result<Commit> {
        // The object format is the one the source's refs are written in.
        let what = Step::FetchAll {
            prefix: prefix.to_owned(),
        };
        let (refs, _) = self.ls_remote(None, &["HEAD".to_owned()], &what)?;
        let format = match refs.first() {
            Some((id, _)) if id.len() == 64 => ObjectFormat::Sha256,
            _ => ObjectFormat::Sha1,
        };
        self.repository(format)?;
        let progress = self.progress.clone();
        let _step = progress.step(
            &format!("{}: fetching every branch and tag", self.url),
            None,
        );
        self.git(
            &[
                "fetch",
                "--quiet",
                "--no-tags",
                "--no-recurse-submodules",
                "--filter=blob:none",
                "--",
                REMOTE,
                "+refs/heads/*:refs/asv/heads/*",
                "+refs/tags/*:refs/asv/tags/*",
            ],
            true,
            SMALL_LIMIT,
            true,
            &what,
        )?;
        let disambiguate = format!("--disambiguate={prefix}");
        // `rev-parse --disambiguate` fails when nothing matches: no candidate, not a failure.
        let candidates =
            match self.run(&["rev-parse", &disambiguate], true, REFS_LIMIT, true, &what)? {
                Outcome::Ended(finished) if finished.status.success() => finished.stdout,
                Outcome::Ended(_) => Vec::new(),
                Outcome::Cut(cut) => return Err(self.limit_error(cut, &what)),
            };
        let text = String::from_utf8_lossy(&candidates).into_owned();
        let mut commits = Vec::new();
        for id in text.lines().filter(|l| is_hex_id(l, format.hex_len())) {
            let kind = self.git(&["cat-file", "-t", id], true, SMALL_LIMIT, true, &what)?;
            if String::from_utf8_lossy(&kind).trim_end() == "commit" {
                commits.push(id.to_owned());
            }
        }
        commits.sort();
        match commits.as_slice() {
            [one] => {
                let revision = one.clone();
                self.fetched.push(revision.clone());
                Ok(Commit { revision, format })
            }
            [] => Err(self.error(GitProblem::Ref(RefProblem::ShortUnknown {
                prefix: prefix.to_owned(),
            }))),
            many => Err(self.error(GitProblem::Ref(RefProblem::ShortAmbiguous {
                prefix: prefix.to_owned(),
                commits: many.iter().take(5).cloned().collect(),
            }))),
        }
    }
}

impl Git {
    /// The commit the name `reference` (not a commit id) stands for, from one `git ls-remote`
    /// of its branch, its tag and the tag peeled, and whether the branch of that name is at it:
    /// `None` when it names no branch or tag but could be a short commit id. A branch and a tag
    /// of that name at different commits are refused, as is a name that is neither.
    fn look_up(&mut self, reference: &str) -> Result<Option<(String, bool)>> {
        let what = Step::LookUp {
            reference: reference.to_owned(),
        };
        let branch = format!("refs/heads/{reference}");
        let tag = format!("refs/tags/{reference}");
        let peeled = format!("refs/tags/{reference}^{{}}");
        let (refs, _) =
            self.ls_remote(None, &[branch.clone(), tag.clone(), peeled.clone()], &what)?;
        let find = |name: &str| {
            refs.iter()
                .find(|(_, n)| n == name)
                .map(|(id, _)| id.clone())
        };
        let on_branch = find(&branch);
        let named = find(&tag).map(|direct| (direct, find(&peeled)));
        // An annotated tag's object comes in its commit's fetch: a signature check reads
        // it (issue 33 §1). A name that is no tag is remembered as such too.
        if let Some((direct, Some(_))) = &named
            && !self.hinted.contains(direct)
        {
            self.hinted.push(direct.clone());
        }
        self.note_tag(reference, named);
        let on_tag = find(&peeled).or_else(|| find(&tag));
        match (on_branch, on_tag) {
            (Some(branch), Some(tag)) if branch != tag => {
                Err(self.error(GitProblem::Ref(RefProblem::Ambiguous {
                    reference: reference.to_owned(),
                    branch,
                    tag,
                })))
            }
            (Some(id), _) => Ok(Some((id, true))),
            (None, Some(id)) => Ok(Some((id, false))),
            // A branch or tag of that name wins, as it does for git itself.
            (None, None) if crate::is_short_id(reference) => Ok(None),
            (None, None) => Err(self.error(GitProblem::Ref(RefProblem::Unknown {
                reference: reference.to_owned(),
            }))),
        }
    }
}
