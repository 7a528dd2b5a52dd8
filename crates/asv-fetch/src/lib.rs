//! The fetching commands: `add`, `update` and `fetch` take contracts from other repositories
//! through `asv-remote`'s transports and fill the cache `asv-contracts` reads ([`cache`]).
//!
//! Each acquires first and publishes last: sources are resolved and every file is fetched and
//! checked into the cache before the table of origins and the lock are touched.
#![deny(missing_docs)]

pub mod cache;
pub mod commands;
pub mod error;

pub use error::{Error, Result};
