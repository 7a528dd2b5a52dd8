//! The one error type of `asv-sign`, and why a signature is not accepted.

use std::fmt;

use asv_error::{Failure, Location, Side};

/// A failure to read an allowed-signers file or a key, or to make a signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A line of an allowed-signers file that is not of the OpenSSH form.
    AllowedSigners {
        /// The line, from 1.
        line: usize,
        /// What is wrong with it.
        problem: String,
    },
    /// A private key that is not an OpenSSH private key this crate can use.
    PrivateKey {
        /// What is wrong with it.
        problem: String,
    },
    /// A private key protected by a passphrase: signing in process would need to ask for it.
    EncryptedKey,
    /// A key type this crate verifies but does not sign with (RSA: the signing library
    /// version in use rebuilds RSA private keys wrongly).
    SigningKeyType {
        /// The key's algorithm as OpenSSH names it.
        algorithm: String,
    },
    /// The signature could not be made (or written out) with a key that did read.
    Sign {
        /// What the signing library said.
        problem: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::AllowedSigners { line, problem } => {
                write!(f, "line {line} is not an allowed signer: {problem}")
            }
            Error::PrivateKey { problem } => {
                write!(f, "not an OpenSSH private key ({problem})")
            }
            Error::EncryptedKey => f.write_str(
                "the key is protected by a passphrase, which this tool does not ask for",
            ),
            Error::SigningKeyType { algorithm } => write!(
                f,
                "{algorithm} keys are checked here but cannot sign here; sign with an Ed25519 or ECDSA key"
            ),
            Error::Sign { problem } => write!(f, "the signature could not be made: {problem}"),
        }
    }
}

impl std::error::Error for Error {}

impl Failure for Error {
    fn side(&self) -> Side {
        match self {
            Error::AllowedSigners { .. }
            | Error::PrivateKey { .. }
            | Error::EncryptedKey
            | Error::SigningKeyType { .. } => Side::Input,
            Error::Sign { .. } => Side::Environment,
        }
    }

    fn location(&self) -> Option<Location> {
        // The caller knows the file's name; it wraps this error with it.
        None
    }
}

/// Why a signed object (a pack's signature, a git commit or tag) is not accepted. Its
/// `Display` is a clause a caller puts after the object's name ("commit 1a2b3c4d5e6f: …").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignatureProblem {
    /// There is no signature at all.
    Unsigned,
    /// A signature of another kind (OpenPGP, X.509) where an SSH signature is required.
    NotSsh {
        /// `OpenPGP` or `X.509`.
        kind: &'static str,
    },
    /// Bytes that are no SSH signature, or an object whose signature cannot be found in it.
    Malformed(String),
    /// A signature made for another purpose (`file` where `git` is checked, say).
    WrongNamespace {
        /// The namespace required.
        expected: String,
        /// The namespace the signature carries.
        found: String,
    },
    /// A signature that does not verify with the key it names: the content or the signature
    /// was changed after signing.
    BadSignature {
        /// The key's `SHA256:` fingerprint.
        fingerprint: String,
    },
    /// A good signature by a key the allowed-signers file does not hold.
    KeyNotAllowed {
        /// The key's `SHA256:` fingerprint.
        fingerprint: String,
    },
    /// A good signature by an allowed key, made outside the key's `valid-after`/`valid-before`.
    OutsideValidity {
        /// The principals of the file's line.
        principal: String,
        /// The key's `SHA256:` fingerprint.
        fingerprint: String,
        /// The time the signature was checked at (seconds since 1970, UTC).
        at: i64,
    },
    /// A good signature by an allowed key whose line restricts it to other namespaces.
    NamespaceNotAllowed {
        /// The principals of the file's line.
        principal: String,
        /// The key's `SHA256:` fingerprint.
        fingerprint: String,
        /// The signature's namespace.
        namespace: String,
    },
}

impl fmt::Display for SignatureProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SignatureProblem::Unsigned => f.write_str("it is not signed"),
            SignatureProblem::NotSsh { kind } => {
                write!(f, "it carries an {kind} signature, not an SSH one")
            }
            SignatureProblem::Malformed(why) => write!(f, "its signature cannot be read: {why}"),
            SignatureProblem::WrongNamespace { expected, found } => write!(
                f,
                "its signature was made for namespace {found:?}, not {expected:?}"
            ),
            SignatureProblem::BadSignature { fingerprint } => write!(
                f,
                "its signature by key {fingerprint} does not match the content (changed after signing)"
            ),
            SignatureProblem::KeyNotAllowed { fingerprint } => write!(
                f,
                "it is signed by key {fingerprint}, which the allowed-signers file does not hold"
            ),
            SignatureProblem::OutsideValidity {
                principal,
                fingerprint,
                at,
            } => write!(
                f,
                "it is signed by {principal} (key {fingerprint}) at {}, outside the key's validity in the allowed-signers file",
                crate::time::format_utc(*at)
            ),
            SignatureProblem::NamespaceNotAllowed {
                principal,
                fingerprint,
                namespace,
            } => write!(
                f,
                "it is signed by {principal} (key {fingerprint}), whose line in the allowed-signers file does not allow namespace {namespace:?}"
            ),
        }
    }
}

impl std::error::Error for SignatureProblem {}
