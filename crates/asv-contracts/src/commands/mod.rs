//! The commands built on the model: `gen`, `verify`, `lint-selfcontain`, `self-test`, `init`, and the
//! report values they return.

pub mod generate;
pub mod init;
pub mod lint;
pub mod report;
pub mod selftest;
pub mod verify;
