//! Random input generators shared by tests, proptest and cargo-fuzz.

pub mod bitcode;
pub mod mutate;
pub mod cfg_gen;
pub mod synthetic;
pub mod cfg_rewrite;
pub mod structured_gen;
