//! SSH signatures for agentic-skill-vendor: who made what is imported.
//!
//! A lock's digest proves a copy matches its pin; a signature says who made the pinned
//! content. Git signs commits and tags with SSH keys (`gpg.format=ssh`) and checks them
//! against an OpenSSH allowed-signers file; ssh-keygen signs and checks any file the same way
//! (`ssh-keygen -Y sign|verify`). This crate does both, in process:
//!
//! - [`AllowedSigners`]: an allowed-signers file parsed (principals, `namespaces`,
//!   `valid-after`/`valid-before`, keys).
//! - [`verify`] and [`sign`]: SSHSIG over bytes (a pack's `.sig`), compatible with
//!   `ssh-keygen -Y verify|sign` both ways.
//! - [`git::verify_commit`] and [`git::verify_tag`]: the signature of a raw commit or tag
//!   object, checked as `git verify-commit`/`verify-tag` check it (namespace `git`, at the
//!   time the object names).
//!
//! Why in process rather than through `git verify-commit` and `ssh-keygen`: the objects are
//! already in hand (the git transport reads them in its one `cat-file --batch` conversation),
//! a check then costs no process per commit, works where ssh-keygen is missing, and cannot be
//! steered by any configuration (no `gpg.ssh.program`, no `gpg.ssh.allowedSignersFile` of the
//! repository, no agent). The cryptography is RustCrypto's `ssh-key`; what this crate adds is
//! the file format, the policy (which line accepts which signature) and git's object
//! layout. Signatures made with SSH certificates are not checked (a `cert-authority` line
//! accepts none); nor is a key revocation list.
//!
//! ```
//! let allowed = asv_sign::AllowedSigners::parse("# nobody yet\n").unwrap();
//! let problem = asv_sign::verify(&allowed, "file", b"hello", b"not a signature", None).unwrap_err();
//! assert!(problem.to_string().contains("cannot be read"));
//! ```
#![deny(missing_docs)]

mod allowed;
mod error;
#[doc(hidden)]
pub mod fuzz;
pub mod git;
mod pattern;
mod sshsig;
mod time;

pub use allowed::{AllowedSigner, AllowedSigners, fingerprint};
pub use error::{Error, SignatureProblem};
pub use sshsig::{Detached, MessageHasher, Signer, private_key_fingerprint, sign, verify};

/// The namespace of this tool's own signatures (a pack's `.sig`): a signature made for git or
/// for another program is never taken for one of ours.
pub const PACK_NAMESPACE: &str = "agentic-skill-vendor";
