//! Block labels of a structurized graph for renderings and messages ([`Labels`]): each
//! computed once, never panicking on a malformed graph.

use super::scfg::{Origin, SBlock, Scfg};
use cranelift_entity::EntityRef;
use std::collections::HashMap;

/// Block labels of one graph, each computed once, O(n) to set up and O(label) per block,
/// never panicking: a block the arena lacks is `s7?`, and when the layout names such a
/// block (so copies cannot be counted reliably) original blocks fall back to `s7`.
pub struct Labels<'a> {
    scfg: &'a Scfg,
    layout_ok: bool,
    copy_counts: Vec<u32>,
    cache: std::cell::RefCell<HashMap<SBlock, String>>,
}

impl<'a> Labels<'a> {
    pub fn new(scfg: &'a Scfg) -> Labels<'a> {
        let layout_ok = scfg.layout.iter().all(|&x| scfg.blocks.get(x).is_some());
        Labels { scfg, layout_ok, copy_counts: scfg.copy_counts(), cache: Default::default() }
    }

    pub fn get(&self, b: SBlock) -> String {
        if let Some(l) = self.cache.borrow().get(&b) {
            return l.clone();
        }
        let l = self.compute(b);
        self.cache.borrow_mut().insert(b, l.clone());
        l
    }

    /// [`Labels::get`] without the cache, for callers that ask once per block (emission
    /// names every block once: a cache would only add a hash insert and a copy).
    pub fn compute(&self, b: SBlock) -> String {
        let scfg = self.scfg;
        match scfg.blocks.get(b) {
            None => format!("{b}?"),
            Some(block) => match block.origin {
                Origin::Original(o) if !self.layout_ok || o.index() >= scfg.original_labels.len() => format!("{b}"),
                _ => scfg.label_counted(b, &self.copy_counts),
            },
        }
    }
}
