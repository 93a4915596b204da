//! SPIR-V emission (rspirv). Filled by the emission work.

pub mod shape;
