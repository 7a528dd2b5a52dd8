//! The SSH signatures of git commits and annotated tags, checked from their raw objects (the
//! bytes `git cat-file commit|tag <id>` prints), with no git process and no configuration.
//!
//! A commit carries its signature in a `gpgsig` header (`gpgsig-sha256` in a SHA-256
//! repository), continued on lines that start with a space; what was signed is the object
//! with every signature header taken out. A tag carries it at the end of its message; what
//! was signed is everything before it. Git checks an SSH signature in namespace `git` and
//! at the time the object names (committer or tagger), which is what makes a check of the
//! same object give the same answer years later: this module does the same.

use crate::allowed::AllowedSigners;
use crate::error::SignatureProblem;
use crate::sshsig::{Signer, verify};

/// The namespace git signs in.
pub const NAMESPACE: &str = "git";

const SSH_BEGIN: &[u8] = b"-----BEGIN SSH SIGNATURE-----";
const PGP_BEGIN: &[u8] = b"-----BEGIN PGP SIGNATURE-----";
const X509_BEGIN: &[u8] = b"-----BEGIN SIGNED MESSAGE-----";

/// Verifies the signature of a raw commit object against `allowed` (namespace `git`, at the
/// committer time).
///
/// # Errors
/// Why the commit is not accepted: unsigned, signed otherwise than with SSH, a signature that
/// does not verify, a key not allowed or outside its validity.
pub fn verify_commit(raw: &[u8], allowed: &AllowedSigners) -> Result<Signer, SignatureProblem> {
    let (payload, signature) = split_commit(raw);
    let signature = signature.ok_or(SignatureProblem::Unsigned)?;
    let at = header_time(&payload, b"committer ");
    check(allowed, &payload, &signature, at)
}

/// Verifies the signature of a raw annotated tag object against `allowed` (namespace `git`,
/// at the tagger time).
///
/// # Errors
/// As [`verify_commit`].
pub fn verify_tag(raw: &[u8], allowed: &AllowedSigners) -> Result<Signer, SignatureProblem> {
    let (payload, signature) = split_tag(raw).ok_or(SignatureProblem::Unsigned)?;
    let at = header_time(payload, b"tagger ");
    check(allowed, payload, signature, at)
}

fn check(
    allowed: &AllowedSigners,
    payload: &[u8],
    signature: &[u8],
    at: Option<i64>,
) -> Result<Signer, SignatureProblem> {
    if signature.starts_with(PGP_BEGIN) {
        return Err(SignatureProblem::NotSsh { kind: "OpenPGP" });
    }
    if signature.starts_with(X509_BEGIN) {
        return Err(SignatureProblem::NotSsh { kind: "X.509" });
    }
    if !signature.starts_with(SSH_BEGIN) {
        return Err(SignatureProblem::Malformed(
            "the signature is of no kind git writes".into(),
        ));
    }
    verify(allowed, NAMESPACE, payload, signature, at)
}

/// A commit object split into what was signed and its signature (`None`: unsigned).
///
/// The signature header is `gpgsig` in a SHA-1 repository and `gpgsig-sha256` in a SHA-256
/// one (told by the length of the `tree` id); the other one, if a repository carries both,
/// is left out of the payload too, as git leaves it out.
pub fn split_commit(raw: &[u8]) -> (Vec<u8>, Option<Vec<u8>>) {
    let sha256 = raw
        .strip_prefix(b"tree ")
        .and_then(|rest| rest.iter().position(|&b| b == b'\n'))
        .is_some_and(|len| len == 64);
    let own: &[u8] = if sha256 {
        b"gpgsig-sha256 "
    } else {
        b"gpgsig "
    };
    let mut payload = Vec::with_capacity(raw.len());
    let mut signature: Option<Vec<u8>> = None;
    // What the current continuation lines (` …`) belong to.
    enum Continuing {
        Own,
        Other,
        Kept,
    }
    let mut continuing = Continuing::Kept;
    let mut rest = raw;
    while !rest.is_empty() {
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .map_or(rest.len(), |i| i + 1);
        let line = &rest[..end];
        if line == b"\n" {
            // The headers end here; the message is signed as it is.
            payload.extend_from_slice(rest);
            break;
        }
        match (line.first(), &continuing) {
            (Some(b' '), Continuing::Own) => {
                if let Some(sig) = signature.as_mut() {
                    sig.extend_from_slice(&line[1..]);
                }
            }
            (Some(b' '), Continuing::Other) => {}
            _ if line.starts_with(own) => {
                signature = Some(line[own.len()..].to_vec());
                continuing = Continuing::Own;
            }
            _ if line.starts_with(b"gpgsig") => continuing = Continuing::Other,
            _ => {
                payload.extend_from_slice(line);
                continuing = Continuing::Kept;
            }
        }
        rest = &rest[end..];
    }
    (payload, signature)
}

/// A tag object split into what was signed and its signature (`None`: unsigned): the
/// signature is the last line-start of a signature's armor and everything after it.
pub fn split_tag(raw: &[u8]) -> Option<(&[u8], &[u8])> {
    let mut found = None;
    let mut at = 0;
    while at < raw.len() {
        let line = &raw[at..];
        if [SSH_BEGIN, PGP_BEGIN, X509_BEGIN]
            .iter()
            .any(|begin| line.starts_with(begin))
        {
            found = Some(at);
        }
        at += line
            .iter()
            .position(|&b| b == b'\n')
            .map_or(line.len(), |i| i + 1);
    }
    found.map(|i| raw.split_at(i))
}

/// The time of the header line starting with `name` (`committer A <a@x> 1700000000 +0100`).
fn header_time(object: &[u8], name: &[u8]) -> Option<i64> {
    let mut rest = object;
    while !rest.is_empty() && !rest.starts_with(b"\n") {
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .map_or(rest.len(), |i| i + 1);
        let line = &rest[..end];
        if let Some(value) = line.strip_prefix(name) {
            let value = std::str::from_utf8(value).ok()?;
            let mut words = value.trim_end().rsplit(' ');
            let _zone = words.next()?;
            return words.next()?.parse().ok();
        }
        rest = &rest[end..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commit_loses_its_signature_header_and_keeps_the_rest() {
        let raw = b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@x> 1700000000 +0000\ncommitter A <a@x> 1700000001 +0100\ngpgsig -----BEGIN SSH SIGNATURE-----\n U1NIU0lH\n -----END SSH SIGNATURE-----\n\nmessage\n \n";
        let (payload, sig) = split_commit(raw);
        assert_eq!(
            payload,
            b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@x> 1700000000 +0000\ncommitter A <a@x> 1700000001 +0100\n\nmessage\n \n"
        );
        assert_eq!(
            sig.unwrap(),
            b"-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n"
        );
        assert_eq!(header_time(&payload, b"committer "), Some(1_700_000_001));
    }

    #[test]
    fn a_sha256_commit_signs_with_its_own_header_and_drops_the_other() {
        let tree = "a".repeat(64);
        let raw = format!(
            "tree {tree}\ngpgsig -----BEGIN SSH SIGNATURE-----\n old\n -----END SSH SIGNATURE-----\ngpgsig-sha256 -----BEGIN SSH SIGNATURE-----\n new\n -----END SSH SIGNATURE-----\ncommitter A <a@x> 5 +0000\n\nm\n"
        );
        let (payload, sig) = split_commit(raw.as_bytes());
        assert_eq!(
            payload,
            format!("tree {tree}\ncommitter A <a@x> 5 +0000\n\nm\n").as_bytes()
        );
        assert_eq!(
            sig.unwrap(),
            b"-----BEGIN SSH SIGNATURE-----\nnew\n-----END SSH SIGNATURE-----\n"
        );
    }

    #[test]
    fn unsigned_and_otherwise_signed_objects() {
        let allowed = AllowedSigners::default();
        let raw =
            b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ncommitter A <a@x> 1 +0000\n\nm\n";
        assert_eq!(
            verify_commit(raw, &allowed),
            Err(SignatureProblem::Unsigned)
        );
        let pgp = b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ncommitter A <a@x> 1 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n x\n -----END PGP SIGNATURE-----\n\nm\n";
        assert_eq!(
            verify_commit(pgp, &allowed),
            Err(SignatureProblem::NotSsh { kind: "OpenPGP" })
        );
        let tag = b"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype commit\ntag v1\ntagger A <a@x> 1 +0000\n\nv1\n";
        assert_eq!(verify_tag(tag, &allowed), Err(SignatureProblem::Unsigned));
    }

    #[test]
    fn a_tag_is_cut_at_its_last_armor_line() {
        let tag = b"object 4b825dc642cb6eb9a060e54bf8d69288fbee4904\ntype commit\ntag v1\ntagger A <a@x> 1 +0000\n\nv1\n-----BEGIN SSH SIGNATURE-----\nx\n-----END SSH SIGNATURE-----\n";
        let (payload, sig) = split_tag(tag).unwrap();
        assert!(payload.ends_with(b"\n\nv1\n"));
        assert!(sig.starts_with(SSH_BEGIN));
        assert_eq!(header_time(payload, b"tagger "), Some(1));
    }
}
