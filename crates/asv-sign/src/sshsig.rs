//! SSHSIG signatures (OpenSSH's `PROTOCOL.sshsig`, what `ssh-keygen -Y sign` writes): made
//! with a private key, checked against an allowed-signers file.

use signature::Verifier;
use ssh_key::sha2::{Digest, Sha256, Sha512};
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
    let detached = Detached::parse(armored)?;
    let mut hasher = detached.hasher();
    hasher.update(message);
    detached.verify(allowed, namespace, hasher, at)
}

/// A detached signature read (a `.sig` file), waiting for the message it signs to be hashed
/// as it is read: [`Detached::hasher`], then [`Detached::verify`].
#[derive(Debug, Clone)]
pub struct Detached {
    sig: SshSig,
}

/// The message of a [`Detached`] signature being hashed, with the hash its signature names.
#[derive(Debug, Clone)]
pub struct MessageHasher(Hasher);

#[derive(Debug, Clone)]
enum Hasher {
    Sha256(Sha256),
    Sha512(Sha512),
}

impl MessageHasher {
    /// Hashes the next bytes of the message.
    pub fn update(&mut self, bytes: &[u8]) {
        match &mut self.0 {
            Hasher::Sha256(h) => h.update(bytes),
            Hasher::Sha512(h) => h.update(bytes),
        }
    }

    fn finish(self) -> Vec<u8> {
        match self.0 {
            Hasher::Sha256(h) => h.finalize().to_vec(),
            Hasher::Sha512(h) => h.finalize().to_vec(),
        }
    }
}

impl Detached {
    /// Reads an armored SSHSIG.
    ///
    /// # Errors
    /// [`SignatureProblem::Malformed`] for bytes that are no SSH signature.
    pub fn parse(armored: &[u8]) -> Result<Detached, SignatureProblem> {
        let sig = SshSig::from_pem(armored)
            .map_err(|e| SignatureProblem::Malformed(format!("not an SSH signature ({e})")))?;
        Ok(Detached { sig })
    }

    /// The `SHA256:` fingerprint of the key the signature names (not yet trusted).
    pub fn fingerprint(&self) -> String {
        fingerprint(&PublicKey::from(self.sig.public_key().clone()))
    }

    /// A hasher for the message, of the hash the signature was made over.
    pub fn hasher(&self) -> MessageHasher {
        MessageHasher(match self.sig.hash_alg() {
            HashAlg::Sha256 => Hasher::Sha256(Sha256::new()),
            _ => Hasher::Sha512(Sha512::new()),
        })
    }

    /// Checks the signature over the message `hashed` holds, as [`verify`] does.
    ///
    /// # Errors
    /// Why the signature is not accepted ([`SignatureProblem`]).
    pub fn verify(
        &self,
        allowed: &AllowedSigners,
        namespace: &str,
        hashed: MessageHasher,
        at: Option<i64>,
    ) -> Result<Signer, SignatureProblem> {
        let sig = &self.sig;
        if sig.namespace() != namespace {
            return Err(SignatureProblem::WrongNamespace {
                expected: namespace.to_string(),
                found: sig.namespace().to_string(),
            });
        }
        let key = PublicKey::from(sig.public_key().clone());
        let fingerprint = fingerprint(&key);
        let bad = || SignatureProblem::BadSignature {
            fingerprint: fingerprint.clone(),
        };
        let signed = signed_data(sig, &hashed.finish()).ok_or_else(bad)?;
        Verifier::verify(&key, &signed, sig.signature()).map_err(|_| bad())?;
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
}

/// The bytes an SSHSIG signs (`PROTOCOL.sshsig`): the preamble `SSHSIG`, then the namespace,
/// the reserved field, the hash's name and the message's hash, each as an SSH string (a
/// 32-bit big-endian length, then the bytes). `None` past 4 GiB, which no field reaches.
fn signed_data(sig: &SshSig, hash: &[u8]) -> Option<Vec<u8>> {
    let fields: [&[u8]; 4] = [
        sig.namespace().as_bytes(),
        sig.reserved(),
        sig.hash_alg().as_str().as_bytes(),
        hash,
    ];
    let mut out = Vec::with_capacity(6 + fields.iter().map(|f| 4 + f.len()).sum::<usize>());
    out.extend_from_slice(b"SSHSIG");
    for field in fields {
        out.extend_from_slice(&u32::try_from(field.len()).ok()?.to_be_bytes());
        out.extend_from_slice(field);
    }
    Some(out)
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
