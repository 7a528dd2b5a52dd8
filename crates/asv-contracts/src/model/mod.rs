//! The repository model: what the offline commands see in a tree — skills and their
//! declarations joined with each contract's canonical side, raw-byte contracts, the cache of
//! fetched sources, and where each raw contract is placed.

pub mod cache;
mod framed;
pub mod placement;
pub mod raw;
pub mod repository;
pub mod snapshot;
pub mod warnings;
