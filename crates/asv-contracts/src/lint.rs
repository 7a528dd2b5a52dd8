//! lint
