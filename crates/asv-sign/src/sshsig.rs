//! SSHSIG signatures (OpenSSH's `PROTOCOL.sshsig`, what `ssh-keygen -Y sign` writes): made
//! with a private key, checked against an allowed-signers file.

use ssh_key::{HashAlg, LineEnding, PrivateKey, PublicKey, SshSig};

use crate::allowed::{AllowedSigners, fingerprint};
use crate::error::{Error, SignatureProblem};

/// Who made a signature that was accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signer {
    /// The principals of the allowed-signers line that accepted it, as written there.
    pub principal: String,
    /// The key's `SHA256:` fingerprint, as `ssh-keygen -l` prints it.
    pub fingerprint: String,
}

/// Checks the armored SSHSIG `armored` over `message`: made in `namespace`, verifying with
/// the key it names, that key held by a line of `allowed` that allows `namespace` and (when
/// `at` is given, in seconds since 1970) was valid at that time.
///
/// The order is ssh-keygen's: the signature is checked first, so a changed message is
/// reported as such even when its key is also unknown.
///
/// # Errors
/// Why the signature is not accepted ([`SignatureProblem`]).
pub fn verify(
    allowed: &AllowedSigners,
    namespace: &str,
    message: &[u8],
    armored: &[u8],
    at: Option<i64>,
) -> Result<Signer, SignatureProblem> {
    let sig = SshSig::from_pem(armored)
        .map_err(|e| SignatureProblem::Malformed(format!("not an SSH signature ({e})")))?;
    if sig.namespace() != namespace {
        return Err(SignatureProblem::WrongNamespace {
            expected: namespace.to_string(),
            found: sig.namespace().to_string(),
        });
    }
    let key = PublicKey::from(sig.public_key().clone());
    let fingerprint = fingerprint(&key);
    key.verify(namespace, message, &sig)
        .map_err(|_| SignatureProblem::BadSignature {
            fingerprint: fingerprint.clone(),
        })?;
    let mut first_problem = None;
    for line in allowed.lines_for(&key) {
        if !line.allows_namespace(namespace) {
            first_problem.get_or_insert(SignatureProblem::NamespaceNotAllowed {
                principal: line.principals.clone(),
                fingerprint: fingerprint.clone(),
                namespace: namespace.to_string(),
            });
        } else if !line.valid_at(at) {
            first_problem.get_or_insert(SignatureProblem::OutsideValidity {
                principal: line.principals.clone(),
                fingerprint: fingerprint.clone(),
                at: at.unwrap_or_default(),
            });
        } else {
            return Ok(Signer {
                principal: line.principals.clone(),
                fingerprint,
            });
        }
    }
    Err(first_problem.unwrap_or(SignatureProblem::KeyNotAllowed { fingerprint }))
}

/// Signs `message` in `namespace` with the OpenSSH private key `private_key` (the text of
/// its file), SHA-512 as ssh-keygen does, armored with `\n` line ends: the bytes of a `.sig`
/// file `ssh-keygen -Y verify` accepts.
///
/// # Errors
/// A key that is not an unencrypted OpenSSH private key ([`Error::EncryptedKey`] for one with
/// a passphrase), or an RSA key ([`Error::SigningKeyType`]).
pub fn sign(private_key: &[u8], namespace: &str, message: &[u8]) -> Result<String, Error> {
    let key = PrivateKey::from_openssh(private_key).map_err(|e| Error::PrivateKey {
        problem: e.to_string(),
    })?;
    if key.is_encrypted() {
        return Err(Error::EncryptedKey);
    }
    // ssh-key 0.6 rebuilds an RSA private key from p twice instead of p and q, so every RSA
    // signature it makes fails; RSA signatures made elsewhere verify.
    if matches!(key.algorithm(), ssh_key::Algorithm::Rsa { .. }) {
        return Err(Error::SigningKeyType {
            algorithm: key.algorithm().as_str().to_string(),
        });
    }
    let sig = key
        .sign(namespace, HashAlg::Sha512, message)
        .map_err(|e| Error::Sign {
            problem: e.to_string(),
        })?;
    sig.to_pem(LineEnding::LF).map_err(|e| Error::Sign {
        problem: e.to_string(),
    })
}

/// The `SHA256:` fingerprint of the public half of an OpenSSH private key (unencrypted or
/// not: the public half is stored in the clear).
///
/// # Errors
/// Text that is no OpenSSH private key.
pub fn private_key_fingerprint(private_key: &[u8]) -> Result<String, Error> {
    let key = PrivateKey::from_openssh(private_key).map_err(|e| Error::PrivateKey {
        problem: e.to_string(),
    })?;
    Ok(fingerprint(key.public_key()))
}
