//! The remapping callbacks of a converter, asked at most once per query.
//!
//! vkd3d-proton's callbacks are not all pure functions: its stage-output remapper records
//! each output it is asked about and fails when asked twice about the same semantic. So a
//! callback is called once per distinct query; the answer is recorded ([`Exchange`]) and any
//! later identical query (from the delegate, from untangle, from both in one run) gets the
//! recorded answer. The recorded exchanges are also what the record mode writes.
//!
//! A query's key is everything the callback is given: the D3D structure (semantic strings by
//! content) and, for stage I/O, the Vulkan structure as prefilled before the call (dxil-spirv
//! prefills location, component and flags with its own choice; the other kinds start zeroed).
//!
//! With no callback set, a query gets dxil-spirv's default answer (what `dxil_spirv_c.cpp`
//! does with a NULL callback): resources at `set = register_space`, `binding =
//! register_index` (a UAV counter at `set = register_space + 1`), descriptor type identity;
//! a vertex input at `location = start_row`; stage I/O and stream output as prefilled. Those
//! are recorded too, marked as defaults.
//!
//! Note for the untangle path: dxil-spirv gives the stage-I/O callbacks only `semantic` and
//! `semantic_index`; `start_row` and `rows` are 0 there.
//!
//! A *sealed* remapper (the shadow run, [`crate::shadow`]) never calls the application and
//! records nothing: a query not asked before gets the recorded answer about the same
//! resource or semantic ([`Query::same_target`]: dxil-spirv fills range size, alignment,
//! the counter flag and the stage-I/O prefill in differently from untangle, and asks about
//! some things untangle does not), else the default answer. The application's callbacks
//! then see exactly the queries of untangle's run, whatever dxil-spirv asks.

use crate::ffi::*;
use serde_json::{json, Value};
use std::ffi::{c_void, CStr};

/// The kinds of remapping callback.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Srv,
    Sampler,
    Uav,
    Cbv,
    VertexInput,
    StreamOutput,
    StageInput,
    StageOutput,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Srv => "srv",
            Kind::Sampler => "sampler",
            Kind::Uav => "uav",
            Kind::Cbv => "cbv",
            Kind::VertexInput => "vertex_input",
            Kind::StreamOutput => "stream_output",
            Kind::StageInput => "stage_input",
            Kind::StageOutput => "stage_output",
        }
    }

    pub const ALL: [Kind; 8] = [
        Kind::Srv,
        Kind::Sampler,
        Kind::Uav,
        Kind::Cbv,
        Kind::VertexInput,
        Kind::StreamOutput,
        Kind::StageInput,
        Kind::StageOutput,
    ];
}

/// A semantic and its index, as a callback sees it (`semantic` copied; NULL reads as None).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Semantic {
    pub name: Option<String>,
    pub index: u32,
}

/// # Safety
/// `p` is NULL or a NUL-terminated string.
unsafe fn semantic(p: *const std::ffi::c_char, index: u32) -> Semantic {
    let name = if p.is_null() { None } else { Some(CStr::from_ptr(p).to_string_lossy().into_owned()) };
    Semantic { name, index }
}

/// A question to a callback.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Query {
    Srv(dxil_spv_d3d_binding),
    Sampler(dxil_spv_d3d_binding),
    Uav(dxil_spv_uav_d3d_binding),
    Cbv(dxil_spv_d3d_binding),
    VertexInput { semantic: Semantic, start_row: u32, rows: u32 },
    StreamOutput { semantic: Semantic },
    StageInput { semantic: Semantic, start_row: u32, rows: u32, prefill: dxil_spv_vulkan_shader_stage_io },
    StageOutput { semantic: Semantic, start_row: u32, rows: u32, prefill: dxil_spv_vulkan_shader_stage_io },
}

/// Whether two bindings name the same register of the same kind in the same stage.
fn same_register(a: &dxil_spv_d3d_binding, b: &dxil_spv_d3d_binding) -> bool {
    (a.stage, a.kind, a.register_space, a.register_index) == (b.stage, b.kind, b.register_space, b.register_index)
}

impl Query {
    /// Whether `self` and `other` ask about the same resource (stage, kind, register) or the
    /// same semantic of the same callback, whatever else they differ in.
    pub fn same_target(&self, other: &Query) -> bool {
        use Query::*;
        match (self, other) {
            (Srv(a), Srv(b)) | (Sampler(a), Sampler(b)) | (Cbv(a), Cbv(b)) => same_register(a, b),
            (Uav(a), Uav(b)) => same_register(&a.d3d_binding, &b.d3d_binding),
            (VertexInput { semantic: a, .. }, VertexInput { semantic: b, .. })
            | (StreamOutput { semantic: a }, StreamOutput { semantic: b })
            | (StageInput { semantic: a, .. }, StageInput { semantic: b, .. })
            | (StageOutput { semantic: a, .. }, StageOutput { semantic: b, .. }) => a == b,
            _ => false,
        }
    }

    pub fn kind(&self) -> Kind {
        match self {
            Query::Srv(_) => Kind::Srv,
            Query::Sampler(_) => Kind::Sampler,
            Query::Uav(_) => Kind::Uav,
            Query::Cbv(_) => Kind::Cbv,
            Query::VertexInput { .. } => Kind::VertexInput,
            Query::StreamOutput { .. } => Kind::StreamOutput,
            Query::StageInput { .. } => Kind::StageInput,
            Query::StageOutput { .. } => Kind::StageOutput,
        }
    }
}

/// A callback's answer (the Vulkan structure it filled).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Answer {
    Srv(dxil_spv_srv_vulkan_binding),
    Sampler(dxil_spv_vulkan_binding),
    Uav(dxil_spv_uav_vulkan_binding),
    Cbv(dxil_spv_cbv_vulkan_binding),
    VertexInput(dxil_spv_vulkan_vertex_input),
    StreamOutput(dxil_spv_vulkan_stream_output),
    StageIo(dxil_spv_vulkan_shader_stage_io),
}

/// One query and its answer.
#[derive(Clone, Debug)]
pub struct Exchange {
    pub query: Query,
    /// What the callback returned (`DXIL_SPV_TRUE`: the answer holds).
    pub ok: bool,
    pub answer: Answer,
    /// No callback was set: dxil-spirv's default answer.
    pub default: bool,
    /// How many later identical queries got this recorded answer.
    pub reused: u32,
}

/// A callback with its user data.
#[derive(Clone, Copy)]
pub struct Callback<F> {
    pub f: F,
    pub userdata: *mut c_void,
}

/// The callbacks of a converter and every exchange so far.
#[derive(Default)]
pub struct Remapper {
    pub srv: Option<
        Callback<
            unsafe extern "C" fn(
                *mut c_void,
                *const dxil_spv_d3d_binding,
                *mut dxil_spv_srv_vulkan_binding,
            ) -> dxil_spv_bool,
        >,
    >,
    pub sampler: Option<
        Callback<
            unsafe extern "C" fn(
                *mut c_void,
                *const dxil_spv_d3d_binding,
                *mut dxil_spv_vulkan_binding,
            ) -> dxil_spv_bool,
        >,
    >,
    pub uav: Option<
        Callback<
            unsafe extern "C" fn(
                *mut c_void,
                *const dxil_spv_uav_d3d_binding,
                *mut dxil_spv_uav_vulkan_binding,
            ) -> dxil_spv_bool,
        >,
    >,
    pub cbv: Option<
        Callback<
            unsafe extern "C" fn(
                *mut c_void,
                *const dxil_spv_d3d_binding,
                *mut dxil_spv_cbv_vulkan_binding,
            ) -> dxil_spv_bool,
        >,
    >,
    pub vertex_input: Option<
        Callback<
            unsafe extern "C" fn(
                *mut c_void,
                *const dxil_spv_d3d_vertex_input,
                *mut dxil_spv_vulkan_vertex_input,
            ) -> dxil_spv_bool,
        >,
    >,
    pub stream_output: Option<
        Callback<
            unsafe extern "C" fn(
                *mut c_void,
                *const dxil_spv_d3d_stream_output,
                *mut dxil_spv_vulkan_stream_output,
            ) -> dxil_spv_bool,
        >,
    >,
    pub stage_input: Option<
        Callback<
            unsafe extern "C" fn(
                *mut c_void,
                *const dxil_spv_d3d_shader_stage_io,
                *mut dxil_spv_vulkan_shader_stage_io,
            ) -> dxil_spv_bool,
        >,
    >,
    pub stage_output: Option<
        Callback<
            unsafe extern "C" fn(
                *mut c_void,
                *const dxil_spv_d3d_shader_stage_io,
                *mut dxil_spv_vulkan_shader_stage_io,
            ) -> dxil_spv_bool,
        >,
    >,
    exchanges: Vec<Exchange>,
    /// Answer from the record only (never call the application, record nothing).
    sealed: bool,
    /// Time spent inside the application's callbacks (answers not yet recorded), so that
    /// a run's time can be told apart from the application's ([`crate::summary`]).
    pub app_time: std::time::Duration,
}

fn identity_binding(set: u32, binding: u32) -> dxil_spv_vulkan_binding {
    dxil_spv_vulkan_binding {
        set,
        binding,
        descriptor_type: DXIL_SPV_VULKAN_DESCRIPTOR_TYPE_IDENTITY,
        ..Default::default()
    }
}

impl Remapper {
    /// Every exchange so far, in the order the queries came.
    pub fn exchanges(&self) -> &[Exchange] {
        &self.exchanges
    }

    /// Whether a callback of this kind is set.
    pub fn has_callback(&self, kind: Kind) -> bool {
        match kind {
            Kind::Srv => self.srv.is_some(),
            Kind::Sampler => self.sampler.is_some(),
            Kind::Uav => self.uav.is_some(),
            Kind::Cbv => self.cbv.is_some(),
            Kind::VertexInput => self.vertex_input.is_some(),
            Kind::StreamOutput => self.stream_output.is_some(),
            Kind::StageInput => self.stage_input.is_some(),
            Kind::StageOutput => self.stage_output.is_some(),
        }
    }

    /// Seals (or unseals) the remapper: while sealed, no query reaches the application and
    /// none is recorded (see the module documentation).
    pub fn set_sealed(&mut self, sealed: bool) {
        self.sealed = sealed;
    }

    /// A new callback of `kind` was set: answers recorded from the old one no longer hold.
    pub fn forget(&mut self, kind: Kind) {
        self.exchanges.retain(|e| e.query.kind() != kind);
    }

    /// The recorded answer to `query`, or a new one: `call` (the callback, if set) or
    /// `default` fills `out`.
    fn ask<O: Copy>(
        &mut self,
        query: Query,
        out: &mut O,
        call: Option<&mut dyn FnMut(&mut O) -> bool>,
        default: impl FnOnce(&mut O),
        wrap: fn(O) -> Answer,
        unwrap: fn(&Answer) -> Option<O>,
    ) -> bool {
        if let Some(e) = self.exchanges.iter_mut().find(|e| e.query == query) {
            if let Some(answer) = unwrap(&e.answer) {
                if !self.sealed {
                    e.reused += 1;
                }
                *out = answer;
                return e.ok;
            }
        }
        if self.sealed {
            return self.answer_sealed(&query, out, default, unwrap);
        }
        let (ok, is_default) = match call {
            Some(call) => {
                let start = std::time::Instant::now();
                let ok = call(out);
                self.app_time += start.elapsed();
                (ok, false)
            }
            None => {
                default(out);
                (true, true)
            }
        };
        self.exchanges.push(Exchange { query, ok, answer: wrap(*out), default: is_default, reused: 0 });
        ok
    }

    /// A sealed remapper's answer to a new query: the recorded answer about the same target,
    /// else the default; nothing is recorded.
    fn answer_sealed<O: Copy>(
        &self,
        query: &Query,
        out: &mut O,
        default: impl FnOnce(&mut O),
        unwrap: fn(&Answer) -> Option<O>,
    ) -> bool {
        let similar =
            self.exchanges.iter().filter(|e| e.query.same_target(query)).find_map(|e| Some((e.ok, unwrap(&e.answer)?)));
        match similar {
            Some((ok, answer)) => {
                *out = answer;
                ok
            }
            None => {
                default(out);
                true
            }
        }
    }

    /// The SRV at `d3d`: fills `out` (zeroed by the caller), returns the callback's verdict.
    pub fn srv(&mut self, d3d: &dxil_spv_d3d_binding, out: &mut dxil_spv_srv_vulkan_binding) -> bool {
        let cb = self.srv;
        let mut call = |o: &mut dxil_spv_srv_vulkan_binding| unsafe { cb.map(|c| (c.f)(c.userdata, d3d, o)) } == Some(DXIL_SPV_TRUE);
        let d = *d3d;
        self.ask(
            Query::Srv(d),
            out,
            cb.is_some().then_some(&mut call as &mut dyn FnMut(&mut _) -> bool),
            |o| {
                o.buffer_binding = identity_binding(d.register_space, d.register_index);
                o.offset_binding = Default::default();
            },
            Answer::Srv,
            |a| if let Answer::Srv(x) = a { Some(*x) } else { None },
        )
    }

    pub fn sampler(&mut self, d3d: &dxil_spv_d3d_binding, out: &mut dxil_spv_vulkan_binding) -> bool {
        let cb = self.sampler;
        let mut call =
            |o: &mut dxil_spv_vulkan_binding| unsafe { cb.map(|c| (c.f)(c.userdata, d3d, o)) } == Some(DXIL_SPV_TRUE);
        let d = *d3d;
        self.ask(
            Query::Sampler(d),
            out,
            cb.is_some().then_some(&mut call as &mut dyn FnMut(&mut _) -> bool),
            |o| *o = identity_binding(d.register_space, d.register_index),
            Answer::Sampler,
            |a| if let Answer::Sampler(x) = a { Some(*x) } else { None },
        )
    }

    pub fn uav(&mut self, d3d: &dxil_spv_uav_d3d_binding, out: &mut dxil_spv_uav_vulkan_binding) -> bool {
        let cb = self.uav;
        let mut call = |o: &mut dxil_spv_uav_vulkan_binding| unsafe { cb.map(|c| (c.f)(c.userdata, d3d, o)) } == Some(DXIL_SPV_TRUE);
        let d = d3d.d3d_binding;
        self.ask(
            Query::Uav(*d3d),
            out,
            cb.is_some().then_some(&mut call as &mut dyn FnMut(&mut _) -> bool),
            |o| {
                o.buffer_binding = identity_binding(d.register_space, d.register_index);
                o.counter_binding = identity_binding(d.register_space.wrapping_add(1), d.register_index);
                o.offset_binding = Default::default();
            },
            Answer::Uav,
            |a| if let Answer::Uav(x) = a { Some(*x) } else { None },
        )
    }

    pub fn cbv(&mut self, d3d: &dxil_spv_d3d_binding, out: &mut dxil_spv_cbv_vulkan_binding) -> bool {
        let cb = self.cbv;
        let mut call = |o: &mut dxil_spv_cbv_vulkan_binding| unsafe { cb.map(|c| (c.f)(c.userdata, d3d, o)) } == Some(DXIL_SPV_TRUE);
        let d = *d3d;
        self.ask(
            Query::Cbv(d),
            out,
            cb.is_some().then_some(&mut call as &mut dyn FnMut(&mut _) -> bool),
            |o| {
                o.push_constant = DXIL_SPV_FALSE;
                o.vulkan.uniform_binding = identity_binding(d.register_space, d.register_index);
            },
            Answer::Cbv,
            |a| if let Answer::Cbv(x) = a { Some(*x) } else { None },
        )
    }

    /// # Safety
    /// `d3d.semantic` is NULL or a NUL-terminated string.
    pub unsafe fn vertex_input(
        &mut self,
        d3d: &dxil_spv_d3d_vertex_input,
        out: &mut dxil_spv_vulkan_vertex_input,
    ) -> bool {
        let cb = self.vertex_input;
        let mut call = |o: &mut dxil_spv_vulkan_vertex_input| unsafe { cb.map(|c| (c.f)(c.userdata, d3d, o)) } == Some(DXIL_SPV_TRUE);
        let start_row = d3d.start_row;
        self.ask(
            Query::VertexInput { semantic: semantic(d3d.semantic, d3d.semantic_index), start_row, rows: d3d.rows },
            out,
            cb.is_some().then_some(&mut call as &mut dyn FnMut(&mut _) -> bool),
            |o| o.location = start_row,
            Answer::VertexInput,
            |a| if let Answer::VertexInput(x) = a { Some(*x) } else { None },
        )
    }

    /// # Safety
    /// `d3d.semantic` is NULL or a NUL-terminated string.
    pub unsafe fn stream_output(
        &mut self,
        d3d: &dxil_spv_d3d_stream_output,
        out: &mut dxil_spv_vulkan_stream_output,
    ) -> bool {
        let cb = self.stream_output;
        let mut call = |o: &mut dxil_spv_vulkan_stream_output| unsafe { cb.map(|c| (c.f)(c.userdata, d3d, o)) } == Some(DXIL_SPV_TRUE);
        self.ask(
            Query::StreamOutput { semantic: semantic(d3d.semantic, d3d.semantic_index) },
            out,
            cb.is_some().then_some(&mut call as &mut dyn FnMut(&mut _) -> bool),
            |_| {},
            Answer::StreamOutput,
            |a| if let Answer::StreamOutput(x) = a { Some(*x) } else { None },
        )
    }

    /// A stage input; `out` holds the prefilled location, component and flags.
    ///
    /// # Safety
    /// `d3d.semantic` is NULL or a NUL-terminated string.
    pub unsafe fn stage_input(
        &mut self,
        d3d: &dxil_spv_d3d_shader_stage_io,
        out: &mut dxil_spv_vulkan_shader_stage_io,
    ) -> bool {
        let cb = self.stage_input;
        let mut call = |o: &mut dxil_spv_vulkan_shader_stage_io| unsafe { cb.map(|c| (c.f)(c.userdata, d3d, o)) } == Some(DXIL_SPV_TRUE);
        let query = Query::StageInput {
            semantic: semantic(d3d.semantic, d3d.semantic_index),
            start_row: d3d.start_row,
            rows: d3d.rows,
            prefill: *out,
        };
        self.ask(
            query,
            out,
            cb.is_some().then_some(&mut call as &mut dyn FnMut(&mut _) -> bool),
            |_| {},
            Answer::StageIo,
            |a| if let Answer::StageIo(x) = a { Some(*x) } else { None },
        )
    }

    /// A stage output; `out` holds the prefilled location, component and flags.
    ///
    /// # Safety
    /// `d3d.semantic` is NULL or a NUL-terminated string.
    pub unsafe fn stage_output(
        &mut self,
        d3d: &dxil_spv_d3d_shader_stage_io,
        out: &mut dxil_spv_vulkan_shader_stage_io,
    ) -> bool {
        let cb = self.stage_output;
        let mut call = |o: &mut dxil_spv_vulkan_shader_stage_io| unsafe { cb.map(|c| (c.f)(c.userdata, d3d, o)) } == Some(DXIL_SPV_TRUE);
        let query = Query::StageOutput {
            semantic: semantic(d3d.semantic, d3d.semantic_index),
            start_row: d3d.start_row,
            rows: d3d.rows,
            prefill: *out,
        };
        self.ask(
            query,
            out,
            cb.is_some().then_some(&mut call as &mut dyn FnMut(&mut _) -> bool),
            |_| {},
            Answer::StageIo,
            |a| if let Answer::StageIo(x) = a { Some(*x) } else { None },
        )
    }
}

// ---- Trampolines: the delegate calls these, with the converter's Remapper as user data ----

macro_rules! trampoline {
    ($name:ident, $method:ident, $in:ty, $out:ty) => {
        /// Called by the delegate in place of the application's callback.
        ///
        /// # Safety
        /// `userdata` is a live [`Remapper`]; the structures are valid for the call.
        pub unsafe extern "C" fn $name(userdata: *mut c_void, d3d: *const $in, out: *mut $out) -> dxil_spv_bool {
            crate::exports::guard(stringify!($name), DXIL_SPV_FALSE, || {
                if userdata.is_null() || d3d.is_null() || out.is_null() {
                    return DXIL_SPV_FALSE;
                }
                // SAFETY: userdata is the converter's Remapper (set by the converter, which
                // outlives the delegate's run); the structures are the delegate's.
                #[allow(unused_unsafe)]
                let ok = unsafe { (*(userdata as *mut Remapper)).$method(&*d3d, &mut *out) };
                if ok {
                    DXIL_SPV_TRUE
                } else {
                    DXIL_SPV_FALSE
                }
            })
        }
    };
}

trampoline!(tramp_srv, srv, dxil_spv_d3d_binding, dxil_spv_srv_vulkan_binding);
trampoline!(tramp_sampler, sampler, dxil_spv_d3d_binding, dxil_spv_vulkan_binding);
trampoline!(tramp_uav, uav, dxil_spv_uav_d3d_binding, dxil_spv_uav_vulkan_binding);
trampoline!(tramp_cbv, cbv, dxil_spv_d3d_binding, dxil_spv_cbv_vulkan_binding);
trampoline!(tramp_vertex_input, vertex_input, dxil_spv_d3d_vertex_input, dxil_spv_vulkan_vertex_input);
trampoline!(tramp_stream_output, stream_output, dxil_spv_d3d_stream_output, dxil_spv_vulkan_stream_output);
trampoline!(tramp_stage_input, stage_input, dxil_spv_d3d_shader_stage_io, dxil_spv_vulkan_shader_stage_io);
trampoline!(tramp_stage_output, stage_output, dxil_spv_d3d_shader_stage_io, dxil_spv_vulkan_shader_stage_io);

// ---- JSON (record mode) -----------------------------------------------------------------------

fn d3d_binding_json(b: &dxil_spv_d3d_binding) -> Value {
    json!({
        "stage": stage_name(b.stage).unwrap_or_else(|| b.stage.to_string()),
        "kind": resource_kind_name(b.kind).unwrap_or_else(|| b.kind.to_string()),
        "resource_index": b.resource_index,
        "register_space": b.register_space,
        "register_index": b.register_index,
        "range_size": b.range_size,
        "alignment": b.alignment,
    })
}

fn vulkan_binding_json(b: &dxil_spv_vulkan_binding) -> Value {
    json!({
        "set": b.set,
        "binding": b.binding,
        "root_constant_index": b.root_constant_index,
        "bindless": { "heap_root_offset": b.bindless.heap_root_offset, "use_heap": b.bindless.use_heap != 0 },
        "descriptor_type": descriptor_type_name(b.descriptor_type).unwrap_or_else(|| b.descriptor_type.to_string()),
    })
}

fn semantic_json(s: &Semantic) -> Value {
    json!({ "semantic": s.name, "semantic_index": s.index })
}

fn stage_io_json(v: &dxil_spv_vulkan_shader_stage_io) -> Value {
    json!({ "location": v.location, "component": v.component, "flags": v.flags })
}

impl Query {
    pub fn to_json(&self) -> Value {
        let mut v = match self {
            Query::Srv(b) | Query::Sampler(b) | Query::Cbv(b) => d3d_binding_json(b),
            Query::Uav(u) => {
                let mut v = d3d_binding_json(&u.d3d_binding);
                v["has_counter"] = json!(u.has_counter != 0);
                v
            }
            Query::VertexInput { semantic, start_row, rows } => {
                let mut v = semantic_json(semantic);
                v["start_row"] = json!(start_row);
                v["rows"] = json!(rows);
                v
            }
            Query::StreamOutput { semantic } => semantic_json(semantic),
            Query::StageInput { semantic, start_row, rows, prefill }
            | Query::StageOutput { semantic, start_row, rows, prefill } => {
                let mut v = semantic_json(semantic);
                v["start_row"] = json!(start_row);
                v["rows"] = json!(rows);
                v["prefill"] = stage_io_json(prefill);
                v
            }
        };
        v["callback"] = json!(self.kind().name());
        v
    }
}

impl Answer {
    pub fn to_json(&self) -> Value {
        match self {
            Answer::Srv(s) => json!({
                "buffer_binding": vulkan_binding_json(&s.buffer_binding),
                "offset_binding": vulkan_binding_json(&s.offset_binding),
            }),
            Answer::Sampler(b) => vulkan_binding_json(b),
            Answer::Uav(u) => json!({
                "buffer_binding": vulkan_binding_json(&u.buffer_binding),
                "counter_binding": vulkan_binding_json(&u.counter_binding),
                "offset_binding": vulkan_binding_json(&u.offset_binding),
            }),
            Answer::Cbv(c) => {
                if c.push_constant != 0 {
                    // SAFETY: push_constant says which member the callback wrote.
                    json!({ "push_constant": true, "offset_in_words": unsafe { c.vulkan.push_constant.offset_in_words } })
                } else {
                    json!({ "push_constant": false, "uniform_binding": vulkan_binding_json(&c.uniform_binding()) })
                }
            }
            Answer::VertexInput(v) => json!({ "location": v.location }),
            Answer::StreamOutput(s) => json!({
                "offset": s.offset, "stride": s.stride, "buffer_index": s.buffer_index, "enable": s.enable != 0,
            }),
            Answer::StageIo(v) => stage_io_json(v),
        }
    }
}

impl Exchange {
    pub fn to_json(&self) -> Value {
        let mut v = json!({ "query": self.query.to_json(), "ok": self.ok, "answer": self.answer.to_json() });
        if self.default {
            v["default"] = json!(true);
        }
        if self.reused > 0 {
            v["reused"] = json!(self.reused);
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An SRV callback that counts its calls in `*userdata` and answers binding 100 + register.
    unsafe extern "C" fn srv_counting(
        userdata: *mut c_void,
        d3d: *const dxil_spv_d3d_binding,
        out: *mut dxil_spv_srv_vulkan_binding,
    ) -> dxil_spv_bool {
        *(userdata as *mut u32) += 1;
        (*out).buffer_binding.binding = 100 + (*d3d).register_index;
        DXIL_SPV_TRUE
    }

    fn texture(register_index: u32, range_size: u32) -> dxil_spv_d3d_binding {
        dxil_spv_d3d_binding {
            stage: DXIL_SPV_STAGE_PIXEL,
            kind: DXIL_SPV_RESOURCE_KIND_TEXTURE_2D,
            register_index,
            range_size,
            ..Default::default()
        }
    }

    #[test]
    fn a_sealed_remapper_never_calls_the_application() {
        let mut calls = 0u32;
        let mut r = Remapper {
            srv: Some(Callback { f: srv_counting, userdata: &mut calls as *mut u32 as *mut c_void }),
            ..Default::default()
        };
        let ask = |r: &mut Remapper, d3d: dxil_spv_d3d_binding| {
            let mut out = dxil_spv_srv_vulkan_binding::default();
            assert!(r.srv(&d3d, &mut out));
            out.buffer_binding.binding
        };
        assert_eq!(ask(&mut r, texture(3, 1)), 103);
        r.set_sealed(true);
        // The same query, the same register asked differently (as dxil-spirv fills the
        // range in), another register (the default answer): none reaches the callback, none
        // is recorded.
        assert_eq!(ask(&mut r, texture(3, 1)), 103);
        assert_eq!(ask(&mut r, texture(3, u32::MAX)), 103);
        assert_eq!(ask(&mut r, texture(4, 1)), 4);
        assert_eq!(r.exchanges().len(), 1);
        assert_eq!(r.exchanges()[0].reused, 0);
        r.set_sealed(false);
        assert_eq!(ask(&mut r, texture(4, 1)), 104);
        drop(r);
        assert_eq!(calls, 2, "the callback was called once per query of the unsealed remapper");
    }
}
