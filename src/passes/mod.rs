//! The structurizer's ordered CFG rewrites (one file per pass). Filled by the structurizer work.
