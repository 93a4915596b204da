//! Checkers and test oracles shared by tests, proptest strategies and fuzz targets.

pub mod cfg_compare;
pub mod cfg_oracle;
pub mod gpu_trace;
pub mod layout_match;
pub mod scfg_trace;
pub mod shape_check;
pub use untangle_spirv_tools as spirv_val;
pub mod spirv_interp;
pub mod stage_link;
pub mod structured;
pub mod trace;
pub mod trace_equiv;
