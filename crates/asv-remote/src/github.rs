//! The GitHub API transport.
