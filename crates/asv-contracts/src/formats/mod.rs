//! The file formats: canonical bodies and digests, the lock, the table of origins and its
//! line edits, `.gitignore` rules, and JSON rendered as the TypeScript tool renders it. Each
//! is read and written here byte for byte; nothing in this group touches the tree.

pub mod digest;
pub mod document;
pub mod json;
pub mod lock;
pub mod manifest;
pub mod table_edit;
pub mod table_key;
pub mod typos;
