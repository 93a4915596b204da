//! Checkers and test oracles shared by tests, proptest strategies and fuzz targets.

pub mod cfg_compare;
pub mod cfg_oracle;
