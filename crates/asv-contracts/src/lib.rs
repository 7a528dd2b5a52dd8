//! Contracts: shared documents kept byte-identical across the skills that declare them.
//!
//! placeholder
#![deny(missing_docs)]

pub mod digest;
pub mod document;
pub mod error;
pub mod id;
pub mod ignore;
pub mod json;
pub mod lock;
pub mod yaml;

pub use digest::Digest;
pub use document::CanonicalBody;
pub use error::{Error, Result};
pub use id::ContractId;
