//! Reading many files of one commit in one batched conversation (issue 30 §2).
//!
//! One file read alone costs a `git cat-file blob` and, in the blob-less temporary repository,
//! the lazy fetch git starts for its blob: two processes and a round trip to the server per
//! file. A batch asks the server for every blob it lacks in one fetch (`git fetch --stdin`
//! with the blob ids, as git's own lazy fetch asks for one), learns each file's size with one
//! `git cat-file --batch-check`, then reads the bytes with `git cat-file --batch`, a chunk of
//! about [`CHUNK`] bytes per process so memory stays bounded by the chunk, not the batch.
//!
//! Every file is judged as [`Transport::read`] judges one, in the same order: a file over the
//! per-file limit, or past the total, is refused before any byte of it is read (its size is
//! known), and each file's bytes must hash to the blob id its listing gives. What a batch
//! cannot judge as a read would (a blob the fetch did not bring, a path that names something
//! else than the listed blob, a fetch the server refuses) is read alone, so it is refused or
//! read exactly as before.

use super::*;

/// About the most bytes of files one `git cat-file --batch` reads.
const CHUNK: u64 = 8 * 1024 * 1024;

/// What `git cat-file --batch-check` said of one entry.
enum Checked {
    /// The listed blob, of this many bytes.
    Blob(u64),
    /// Anything else: the entry is read alone.
    Alone,
}

impl Git {
    /// Reads `entries` (each an ordinary file at a path inside the repository, with a blob id
    /// of the commit's format, at a path with no line break), handing each to `each` in order.
    /// `false` back from `each` when it stopped early.
    pub(super) fn read_batch(
        &mut self,
        commit: &Commit,
        revision: &str,
        entries: &[TreeEntry],
        each: &mut dyn FnMut(usize, Vec<u8>) -> bool,
    ) -> Result<bool> {
        self.fetch(revision, commit.format)?;
        let what = Step::Files {
            revision: revision.to_owned(),
            count: entries.len(),
        };
        if !self.fetch_blobs(entries, &what)? {
            return self.read_alone(commit, entries, 0, each);
        }
        let Some(checked) = self.check_batch(revision, entries, &what)? else {
            return self.read_alone(commit, entries, 0, each);
        };
        // Entries are read in order; `chunk` holds those waiting for one `cat-file --batch`.
        let mut chunk: Vec<(usize, u64)> = Vec::new();
        let mut pending = 0u64;
        for (i, (entry, checked)) in entries.iter().zip(checked).enumerate() {
            let size = match checked {
                Checked::Blob(size) => size,
                Checked::Alone => {
                    if !self.read_chunk(commit, revision, entries, &mut chunk, each, &what)? {
                        return Ok(false);
                    }
                    pending = 0;
                    if !each(i, self.read(commit, entry)?) {
                        return Ok(false);
                    }
                    continue;
                }
            };
            // The cap `read` reads one file with: the per-file limit, or what is left of the
            // total once the files before it are read.
            let left = self
                .limits
                .total
                .saturating_sub(self.read.saturating_add(pending));
            let cap = self.limits.file.min(left);
            if size > cap {
                if !self.read_chunk(commit, revision, entries, &mut chunk, each, &what)? {
                    return Ok(false);
                }
                let file = FileAt {
                    path: entry.path.clone(),
                    revision: revision.to_owned(),
                };
                let problem = self.over_cap(file, cap);
                return Err(self.stop(problem));
            }
            chunk.push((i, size));
            pending += size;
            if pending >= CHUNK {
                if !self.read_chunk(commit, revision, entries, &mut chunk, each, &what)? {
                    return Ok(false);
                }
                pending = 0;
            }
        }
        self.read_chunk(commit, revision, entries, &mut chunk, each, &what)
    }

    /// Reads `entries[from..]` one at a time, as [`Transport::read`] does.
    fn read_alone(
        &mut self,
        commit: &Commit,
        entries: &[TreeEntry],
        from: usize,
        each: &mut dyn FnMut(usize, Vec<u8>) -> bool,
    ) -> Result<bool> {
        for (i, entry) in entries.iter().enumerate().skip(from) {
            if !each(i, self.read(commit, entry)?) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Fetches every blob of `entries` the repository lacks in one `git fetch`. `false` when
    /// the fetch failed (the files are then read alone, each refused as a read would be).
    fn fetch_blobs(&mut self, entries: &[TreeEntry], what: &Step) -> Result<bool> {
        let wanted: std::collections::BTreeSet<&str> = entries
            .iter()
            .map(|e| e.oid.as_str())
            .filter(|oid| !self.blobs.contains(*oid))
            .collect();
        if wanted.is_empty() {
            return Ok(true);
        }
        let mut input = Vec::new();
        for oid in &wanted {
            input.extend_from_slice(oid.as_bytes());
            input.push(b'\n');
        }
        let wanted: Vec<String> = wanted.into_iter().map(str::to_owned).collect();
        let progress = self.progress.clone();
        let _step = progress.step(
            &format!("{}: fetching {} files", self.url, wanted.len()),
            None,
        );
        // The fetch git's own lazy fetch makes for a missing blob, for all of them at once.
        let args = [
            "-c",
            "fetch.negotiationAlgorithm=noop",
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-recurse-submodules",
            "--filter=blob:none",
            "--stdin",
            REMOTE,
        ];
        match self.run_with(&args, Some(input), true, SMALL_LIMIT, true, what)? {
            Outcome::Ended(finished) if finished.status.success() => {
                self.blobs.extend(wanted);
                Ok(true)
            }
            Outcome::Ended(_) => Ok(false),
            Outcome::Cut(cut) => Err(self.limit_error(cut, what)),
        }
    }

    /// The size of each entry's blob, from one `git cat-file --batch-check` of `<rev>:<path>`
    /// (the object at the path, as `read` asks for it). `None` when git failed: the files are
    /// then read alone.
    fn check_batch(
        &mut self,
        revision: &str,
        entries: &[TreeEntry],
        what: &Step,
    ) -> Result<Option<Vec<Checked>>> {
        let mut input = Vec::new();
        for e in entries {
            input.extend_from_slice(format!("{revision}:{}\n", e.path).as_bytes());
        }
        // An answer line is at most the object name asked for and a few words.
        let cap = input.len() as u64 + entries.len() as u64 * 128;
        let args = [
            "cat-file",
            "--batch-check=%(objectname) %(objecttype) %(objectsize)",
        ];
        let out = match self.run_with(&args, Some(input), true, cap, true, what)? {
            Outcome::Ended(finished) if finished.status.success() => finished.stdout,
            Outcome::Ended(_) => return Ok(None),
            Outcome::Cut(cut) => return Err(self.limit_error(cut, what)),
        };
        let text = String::from_utf8_lossy(&out);
        let lines: Vec<&str> = text.lines().collect();
        if lines.len() != entries.len() {
            return Ok(None);
        }
        Ok(Some(
            entries
                .iter()
                .zip(lines)
                .map(|(e, line)| {
                    let mut fields = line.split(' ');
                    match (fields.next(), fields.next(), fields.next(), fields.next()) {
                        (Some(oid), Some("blob"), Some(size), None) if oid == e.oid => {
                            size.parse::<u64>().map_or(Checked::Alone, Checked::Blob)
                        }
                        _ => Checked::Alone,
                    }
                })
                .collect(),
        ))
    }

    /// Reads the entries of `chunk` (index and size, all checked to fit) with one
    /// `git cat-file --batch`, each checked against its blob id and handed to `each`; empties
    /// `chunk`. `false` when `each` stopped.
    fn read_chunk(
        &mut self,
        commit: &Commit,
        revision: &str,
        entries: &[TreeEntry],
        chunk: &mut Vec<(usize, u64)>,
        each: &mut dyn FnMut(usize, Vec<u8>) -> bool,
        what: &Step,
    ) -> Result<bool> {
        if chunk.is_empty() {
            return Ok(true);
        }
        let taken = std::mem::take(chunk);
        let mut input = Vec::new();
        let mut expected = 0u64;
        for &(i, size) in &taken {
            input.extend_from_slice(format!("{revision}:{}\n", entries[i].path).as_bytes());
            // `<oid> blob <size>\n<bytes>\n`
            let head = format!("{} blob {size}\n", entries[i].oid);
            expected += head.len() as u64 + size + 1;
        }
        let out = match self.run_with(
            &["cat-file", "--batch"],
            Some(input),
            true,
            expected,
            true,
            what,
        )? {
            Outcome::Ended(finished) if finished.status.success() => finished.stdout,
            Outcome::Ended(finished) => {
                let (first, _) = taken[0];
                return Err(self.stop(GitProblem::ReadFailed {
                    file: FileAt {
                        path: entries[first].path.clone(),
                        revision: revision.to_owned(),
                    },
                    failure: GitFailure::from_stderr(&finished.stderr, finished.status),
                }));
            }
            Outcome::Cut(cut) => return Err(self.limit_error(cut, what)),
        };
        let mut rest = out.as_slice();
        for (i, size) in taken {
            let entry = &entries[i];
            let head = format!("{} blob {size}\n", entry.oid);
            let Some(after) = rest.strip_prefix(head.as_bytes()) else {
                let line = rest.split(|&b| b == b'\n').next().unwrap_or_default();
                let line = String::from_utf8_lossy(line).into_owned();
                return Err(self.malformed(what, &line));
            };
            let len = usize::try_from(size).unwrap_or(usize::MAX);
            if after.len() < len + 1 || after[len] != b'\n' {
                return Err(self.malformed(what, &head));
            }
            let bytes = after[..len].to_vec();
            rest = &after[len + 1..];
            self.read += size;
            let got = blob_id(commit.format, &bytes);
            if got != entry.oid {
                return Err(self.error(GitProblem::BlobMismatch {
                    file: FileAt {
                        path: entry.path.clone(),
                        revision: revision.to_owned(),
                    },
                    listed: entry.oid.clone(),
                    got,
                }));
            }
            if !each(i, bytes) {
                return Ok(false);
            }
        }
        Ok(true)
    }
}
