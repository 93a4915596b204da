//! The hasher of the IR's interning tables ([`super::Types`], [`super::Constants`]) and of
//! the emitters' maps.
//!
//! Interning hashes every type and constant a front end builds, and the keys are small
//! (a few ids, an integer, a short name), so a fast non-cryptographic hash matters: SipHash,
//! the standard library's default, cost about 6% of a whole translation. The tables are
//! filled from untrusted input, but a hash-flooding attack is not a concern here: the input
//! is a single shader, whose size already bounds the work, and colliding keys only make
//! one table slower. The seed is fixed, so the tables behave the same in every run.
//!
//! foldhash is already in the dependency tree (hashbrown's default hasher, through
//! cranelift-entity), so this adds no crate to build or audit.

/// The [`std::hash::BuildHasher`] of the interning tables: foldhash with a fixed seed.
pub type InternHasher = foldhash::fast::FixedState;

/// A hash map with the fast fixed-seed hasher, for the emitters' per-module and
/// per-function tables (keys are ids; the same reasoning as above applies). Build one with
/// `HashMap::default()` (`new` belongs to the standard hasher only).
pub type HashMap<K, V> = std::collections::HashMap<K, V, InternHasher>;

/// A hash set with the fast fixed-seed hasher (see [`HashMap`]).
pub type HashSet<K> = std::collections::HashSet<K, InternHasher>;
