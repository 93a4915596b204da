//! Work-graph node properties (entry property tags 13–22 of SM 6.8 libraries).
//!
//! Layout (DXC `DxilMDHelper`, `docs/DXIL.rst` "Node shader metadata"): the entry's
//! tag/value list holds 13 launch type (i32: 1 broadcasting, 2 coalescing, 3 thread), 14
//! is-program-entry (i1), 15 node id (`{name, index}`), 16 local-root-arguments table index
//! (i32, -1: none), 17 share-input-of (`{name, index}`), 18 dispatch grid and 22 max
//! dispatch grid (`{x, y, z}`), 19 max recursion depth (i32), 20 inputs and 21 outputs
//! (lists of node IO tag/value lists). A node IO list holds 0 output id (`{name, index}`),
//! 1 `DXIL::NodeIOFlags` (i32), 2 record type (a tag/value list: 0 size, 1
//! `SV_DispatchGrid` `{byte offset, DXIL::ComponentType, components}`, 2 alignment), 3 max
//! records, 4 max-records-shared-with (the index of another output), 5 output array size,
//! 6 allow sparse nodes (i1).
//!
//! Every shape error is a typed [`Error::Metadata`] naming the metadata path; nothing here
//! panics. Cost: linear in the metadata read.

use super::error::{Error, Result};
use super::md::Tuple;
use serde::Serialize;

/// `DXIL::NodeIOFlags` bits.
pub mod io_flags {
    pub const INPUT: u32 = 0x1;
    pub const OUTPUT: u32 = 0x2;
    pub const READ_WRITE: u32 = 0x4;
    pub const EMPTY_RECORD: u32 = 0x8;
    pub const NODE_ARRAY: u32 = 0x10;
    pub const THREAD_RECORD: u32 = 0x20;
    pub const GROUP_RECORD: u32 = 0x40;
    pub const DISPATCH_RECORD: u32 = 0x60;
    pub const RECORD_GRANULARITY_MASK: u32 = 0x60;
    pub const TRACK_RW_INPUT_SHARING: u32 = 0x100;
    pub const GLOBALLY_COHERENT: u32 = 0x200;
}

/// `[NodeLaunch]`.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeLaunch {
    Broadcasting,
    Coalescing,
    Thread,
}

/// A node id: `[NodeID("name", index)]` (array index 0 unless given).
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct NodeId {
    pub name: String,
    pub index: u32,
}

/// The `SV_DispatchGrid` field of a record.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Serialize)]
pub struct DispatchGridField {
    /// Byte offset in the record.
    pub offset: u32,
    /// `u32` or `u16`.
    pub component_type: &'static str,
    /// 1 to 3.
    pub components: u32,
}

/// A record type: its size, alignment and `SV_DispatchGrid` field.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Serialize)]
pub struct NodeRecordType {
    pub size: u32,
    pub alignment: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dispatch_grid: Option<DispatchGridField>,
}

/// One node input or output declaration.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct NodeIo {
    /// `DXIL::NodeIOFlags`.
    pub flags: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record: Option<NodeRecordType>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_records: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_records_shared_with: Option<u32>,
    /// Outputs: the target node id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_id: Option<NodeId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub array_size: Option<u32>,
    pub allow_sparse_nodes: bool,
}

impl NodeIo {
    pub fn is_empty_record(&self) -> bool {
        self.flags & io_flags::EMPTY_RECORD != 0
    }
    pub fn is_array(&self) -> bool {
        self.flags & io_flags::NODE_ARRAY != 0
    }
    /// `[UnboundedSparseNodes]`: an array output without a size (DXIL writes `0xFFFFFFFF`).
    pub fn is_unbounded(&self) -> bool {
        self.array_size == Some(u32::MAX)
    }
    /// `DXIL::NodeIOKind` as the report spells it.
    pub fn kind_name(&self) -> &'static str {
        use io_flags::*;
        let rw = self.flags & READ_WRITE != 0;
        if self.flags & INPUT != 0 {
            if self.is_empty_record() {
                return "empty_node_input";
            }
            return match (self.flags & RECORD_GRANULARITY_MASK, rw) {
                (DISPATCH_RECORD, false) => "dispatch_node_input_record",
                (DISPATCH_RECORD, true) => "rw_dispatch_node_input_record",
                (GROUP_RECORD, false) => "group_node_input_records",
                (GROUP_RECORD, true) => "rw_group_node_input_records",
                (THREAD_RECORD, false) => "thread_node_input_record",
                (THREAD_RECORD, true) => "rw_thread_node_input_record",
                _ => "invalid",
            };
        }
        match (self.is_empty_record(), self.is_array()) {
            (true, false) => "empty_node_output",
            (true, true) => "empty_node_output_array",
            (false, false) => "node_output",
            (false, true) => "node_output_array",
        }
    }
}

/// A node's dispatch limits: its fixed or maximum grid (broadcasting launch) and its
/// recursion depth. The metadata's node properties and the library report's node object
/// both carry them, flattened into their JSON.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default, Serialize)]
pub struct NodeDispatch {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dispatch_grid: Option<[u32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_dispatch_grid: Option<[u32; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_recursion_depth: Option<u32>,
}

/// Everything the metadata says about a node.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct NodeProperties {
    pub launch: NodeLaunch,
    pub program_entry: bool,
    pub id: NodeId,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_root_arguments_table_index: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub share_input_of: Option<NodeId>,
    #[serde(flatten)]
    pub dispatch: NodeDispatch,
    pub inputs: Vec<NodeIo>,
    pub outputs: Vec<NodeIo>,
}

/// The node tags as read from an entry's property list, before they are checked.
#[derive(Default, Debug)]
pub(crate) struct NodeTags {
    launch: Option<u32>,
    program_entry: bool,
    id: Option<NodeId>,
    local_root_arguments_table_index: Option<u32>,
    share_input_of: Option<NodeId>,
    dispatch: NodeDispatch,
    inputs: Vec<NodeIo>,
    outputs: Vec<NodeIo>,
    any: bool,
    /// The first node tag that did not read.
    error: Option<Error>,
}

fn node_id(t: &Tuple<'_>) -> Result<NodeId> {
    Ok(NodeId { name: t.string(0)?.to_string(), index: t.u32(1)? })
}

fn grid(t: &Tuple<'_>) -> Result<[u32; 3]> {
    Ok([t.u32(0)?, t.u32(1)?, t.u32(2)?])
}

/// A value that is either inline or a one-element tuple (DXC writes both forms).
fn inline_u32(p: &Tuple<'_>, at: usize) -> Result<u32> {
    p.u32(at).or_else(|_| p.tuple(at)?.u32(0))
}

impl NodeTags {
    /// Reads tag `tag` (13–22) at operand `at` of property list `p`; `false` for other tags.
    /// A node tag that does not read (a wrong shape, an unknown IO or record tag, which
    /// DXC's validator rejects) is kept as the error [`Self::finish`] returns, so the module
    /// still loads and `untangle info` describes it.
    pub(crate) fn read(&mut self, p: &Tuple<'_>, tag: u32, at: usize) -> Result<bool> {
        if !(13..=22).contains(&tag) {
            return Ok(false);
        }
        if let Err(e) = self.read_tag(p, tag, at) {
            self.any = true;
            self.error.get_or_insert(e);
        }
        Ok(true)
    }

    fn read_tag(&mut self, p: &Tuple<'_>, tag: u32, at: usize) -> Result<bool> {
        match tag {
            13 => self.launch = Some(inline_u32(p, at)?),
            14 => self.program_entry = inline_u32(p, at)? != 0,
            15 => self.id = Some(node_id(&p.tuple(at)?)?),
            16 => {
                let v = inline_u32(p, at)? as i32;
                self.local_root_arguments_table_index = u32::try_from(v).ok();
            }
            17 => self.share_input_of = Some(node_id(&p.tuple(at)?)?),
            18 => self.dispatch.dispatch_grid = Some(grid(&p.tuple(at)?)?),
            19 => self.dispatch.max_recursion_depth = Some(inline_u32(p, at)?),
            20 => self.inputs = io_list(&p.tuple(at)?)?,
            21 => self.outputs = io_list(&p.tuple(at)?)?,
            22 => self.dispatch.max_dispatch_grid = Some(grid(&p.tuple(at)?)?),
            _ => return Ok(false),
        }
        self.any = true;
        Ok(true)
    }

    /// The checked properties (`None` when no node tag was present). `entry` names the
    /// entry in errors.
    pub(crate) fn finish(self, entry: &str) -> Result<Option<NodeProperties>> {
        if !self.any {
            return Ok(None);
        }
        if let Some(e) = self.error {
            return Err(e);
        }
        let bad = |problem: String| Error::Node { entry: entry.to_string(), problem };
        let launch = match self.launch {
            Some(1) => NodeLaunch::Broadcasting,
            Some(2) => NodeLaunch::Coalescing,
            Some(3) => NodeLaunch::Thread,
            Some(other) => return Err(bad(format!("launch type {other} (1, 2 or 3 expected)"))),
            None => return Err(bad("no launch type (tag 13)".into())),
        };
        if self.inputs.len() > 1 {
            return Err(bad(format!("{} inputs (at most one)", self.inputs.len())));
        }
        for (k, i) in self.inputs.iter().enumerate() {
            if i.flags & io_flags::INPUT == 0 || i.flags & io_flags::OUTPUT != 0 {
                return Err(bad(format!("input {k} has flags {:#x}, not an input kind", i.flags)));
            }
        }
        for (k, o) in self.outputs.iter().enumerate() {
            if o.flags & io_flags::OUTPUT == 0 || o.flags & io_flags::INPUT != 0 {
                return Err(bad(format!("output {k} has flags {:#x}, not an output kind", o.flags)));
            }
            if o.output_id.is_none() {
                return Err(bad(format!("output {k} has no node id (tag 0)")));
            }
            if !o.is_empty_record() && o.record.is_none() {
                return Err(bad(format!("output {k} has no record type (tag 2)")));
            }
            if let Some(s) = o.max_records_shared_with {
                if s as usize >= self.outputs.len() || s as usize == k {
                    return Err(bad(format!(
                        "output {k} shares max records with output {s}, which is not another output"
                    )));
                }
            }
        }
        if let Some(i) = self.inputs.first() {
            if !i.is_empty_record() && i.record.is_none() {
                return Err(bad("the input has no record type (tag 2)".into()));
            }
        }
        let mut dispatch = self.dispatch;
        if launch == NodeLaunch::Broadcasting {
            match (dispatch.dispatch_grid, dispatch.max_dispatch_grid) {
                (Some(_), Some(_)) => return Err(bad("both a dispatch grid and a max dispatch grid".into())),
                // HLSL requires one of them; DXC's own tests omit both now and then. One
                // group per record is what such a node can mean.
                (None, None) => dispatch.dispatch_grid = Some([1, 1, 1]),
                (None, Some(_)) => {
                    let field = self.inputs.first().and_then(|i| i.record).and_then(|r| r.dispatch_grid);
                    if field.is_none() {
                        return Err(bad("a max dispatch grid without an SV_DispatchGrid input field".into()));
                    }
                }
                _ => {}
            }
        }
        let id = self.id.unwrap_or_else(|| NodeId { name: entry.to_string(), index: 0 });
        Ok(Some(NodeProperties {
            launch,
            program_entry: self.program_entry,
            id,
            local_root_arguments_table_index: self.local_root_arguments_table_index,
            share_input_of: self.share_input_of,
            dispatch,
            inputs: self.inputs,
            outputs: self.outputs,
        }))
    }
}

fn io_list(t: &Tuple<'_>) -> Result<Vec<NodeIo>> {
    (0..t.len()).map(|k| node_io(&t.tuple(k)?)).collect()
}

fn node_io(t: &Tuple<'_>) -> Result<NodeIo> {
    let mut io = NodeIo {
        flags: 0,
        record: None,
        max_records: None,
        max_records_shared_with: None,
        output_id: None,
        array_size: None,
        allow_sparse_nodes: false,
    };
    for (tag, at) in t.tag_pairs()? {
        match tag {
            0 => io.output_id = Some(node_id(&t.tuple(at)?)?),
            1 => io.flags = inline_u32(t, at)?,
            2 => io.record = Some(record_type(&t.tuple(at)?)?),
            3 => io.max_records = Some(inline_u32(t, at)?),
            4 => io.max_records_shared_with = Some(inline_u32(t, at)?),
            5 => io.array_size = Some(inline_u32(t, at)?),
            6 => io.allow_sparse_nodes = inline_u32(t, at)? != 0,
            other => return Err(Error::Metadata { path: t.path(), problem: format!("unknown node IO tag {other}") }),
        }
    }
    Ok(io)
}

fn record_type(t: &Tuple<'_>) -> Result<NodeRecordType> {
    let mut r = NodeRecordType { size: 0, alignment: 0, dispatch_grid: None };
    for (tag, at) in t.tag_pairs()? {
        match tag {
            0 => r.size = inline_u32(t, at)?,
            1 => {
                let g = t.tuple(at)?;
                let component_type = match g.u32(1)? {
                    5 => "u32",
                    3 => "u16",
                    other => {
                        return Err(Error::Metadata {
                            path: g.path(),
                            problem: format!("SV_DispatchGrid component type {other} (u32 or u16 expected)"),
                        })
                    }
                };
                let components = g.u32(2)?;
                if !(1..=3).contains(&components) {
                    return Err(Error::Metadata {
                        path: g.path(),
                        problem: format!("SV_DispatchGrid with {components} components"),
                    });
                }
                r.dispatch_grid = Some(DispatchGridField { offset: g.u32(0)?, component_type, components });
            }
            2 => r.alignment = inline_u32(t, at)?,
            other => {
                return Err(Error::Metadata { path: t.path(), problem: format!("unknown node record tag {other}") })
            }
        }
    }
    if r.alignment == 0 {
        r.alignment = 4;
    }
    if !r.alignment.is_power_of_two() || r.alignment > 256 {
        return Err(Error::Metadata { path: t.path(), problem: format!("record alignment {}", r.alignment) });
    }
    if let Some(g) = r.dispatch_grid {
        let bytes = if g.component_type == "u16" { 2 } else { 4 };
        if g.offset.checked_add(bytes * g.components).is_none_or(|end| end > r.size) {
            return Err(Error::Metadata {
                path: t.path(),
                problem: format!("SV_DispatchGrid lies outside the {}-byte record", r.size),
            });
        }
    }
    Ok(r)
}
