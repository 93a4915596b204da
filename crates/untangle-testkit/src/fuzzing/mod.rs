//! Random input generators shared by tests, proptest and cargo-fuzz.

pub mod bitcode;
pub mod bitstream;
pub mod cfg_gen;
pub mod mutate;
pub mod shader_gen;
pub mod shape_text;
pub mod structure;
pub mod structured_gen;
pub mod synthetic;
pub mod translate;
