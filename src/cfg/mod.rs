//! CFG view and analyses.
