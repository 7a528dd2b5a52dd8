//! Who signed a pinned commit or tag, as the skill lock records it (issue 33 §1): its own
//! module, below both the lock and the error type, which each name it.

use serde::{Deserialize, Serialize};

/// The signer of a pinned commit or tag, as the allowed-signers file accepted it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignerRecord {
    /// The principals of the allowed-signers line that accepted the signature, as written.
    pub principal: String,
    /// The signing key's fingerprint, `SHA256:` and unpadded base64, as `ssh-keygen -l`
    /// prints it.
    pub key: String,
}

impl SignerRecord {
    /// The record of a signer `asv-sign` accepted.
    pub fn of(signer: &asv_sign::Signer) -> SignerRecord {
        SignerRecord {
            principal: signer.principal.clone(),
            key: signer.fingerprint.clone(),
        }
    }
}
