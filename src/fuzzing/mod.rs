//! Random input generators shared by tests, proptest and cargo-fuzz.

pub mod mutate;
