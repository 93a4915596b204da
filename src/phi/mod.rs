//! SSA repair after CFG rewrites. Filled by the structurizer work.
