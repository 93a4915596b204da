//! Stream output lowered to transform feedback: the split pieces and extra variables of
//! captured output elements, their copies before each return (or each geometry-shader
//! emit), and their locations once the body is done. What is captured where, and why each
//! element is lowered whole, split or with extras, is [`super::stream_output`]'s plan and
//! documentation.
//!
//! A leaf of `emit`: methods of [`FnEmit`] and [`ModuleBuilder`], called by the interface
//! (`interface`), the geometry stage and the function driver.

use super::{FnEmit, Num, SigVar};
use crate::emit::error::{malformed, Error, Result, Subject};
use crate::emit::locations::SigKind;
use crate::emit::stream_output::{Capture, Lowering, XfbVar};
use crate::emit::ModuleBuilder;
use crate::front::container::ShaderKind;
use rspirv::spirv::{BuiltIn, Decoration, Op, StorageClass, Word};

impl ModuleBuilder<'_> {
    /// Decorates `var` as carrying `capture`.
    pub(super) fn decorate_capture(&mut self, var: Word, c: &Capture) {
        self.decorate(var, Decoration::XfbBuffer, &[c.buffer]);
        self.decorate(var, Decoration::XfbStride, &[c.stride]);
        self.decorate(var, Decoration::Offset, &[c.offset]);
    }
}

impl FnEmit<'_, '_> {
    /// The output variable of element `id`, created if the body never wrote it.
    fn xfb_source(&mut self, id: u32) -> Result<SigVar> {
        self.element(SigKind::Output, id)
    }

    /// The scalar type of a signature variable's components.
    fn xfb_scalar(&mut self, sv: &SigVar) -> (Word, Num) {
        let num = match sv.builtin {
            Some(BuiltIn::Position) => Num::Float,
            _ => sv.repr.num,
        };
        (num.scalar(self.cx), num)
    }

    /// Creates the split pieces and extra variables (once).
    fn xfb_vars(&mut self) -> Result<Vec<XfbVar>> {
        if let Some(v) = self.iface.xfb.as_ref().and_then(|x| x.vars.clone()) {
            return Ok(v);
        }
        let Some(plan) = self.iface.xfb.as_ref().map(|x| x.plan.clone()) else { return Ok(Vec::new()) };
        let mut elements: Vec<u32> = plan.captures.iter().map(|c| c.element).collect();
        elements.sort_unstable();
        elements.dedup();
        let mut vars = Vec::new();
        for id in elements {
            let sv = self.xfb_source(id)?;
            let Some(el) = self.sigs.outputs.iter().find(|e| e.id == id) else { continue };
            let caps: Vec<Capture> = plan.of(id).copied().collect();
            let (scalar, _) = self.xfb_scalar(&sv);
            let label = format!("{}{}", el.semantic, el.semantic_indices.first().copied().unwrap_or(0));
            // Several geometry streams: every new variable belongs to its element's stream.
            let stream = (self.sm.kind == ShaderKind::Geometry && self.iface.stage.multi_stream)
                .then(|| el.output_stream.unwrap_or(0));
            let extra = |fe: &mut Self, c: Capture, vars: &mut Vec<XfbVar>| {
                let ty = fe.cx.vec(scalar, c.count);
                let var = fe.cx.global_var(StorageClass::Output, ty, &format!("xfb.{label}.{}", c.declaration));
                fe.cx.decorate_capture(var, &c);
                if let Some(s) = stream {
                    fe.cx.decorate(var, Decoration::Stream, &[s]);
                }
                vars.push(XfbVar { var, element: id, row: c.row, first: c.first, count: c.count, extra: true });
            };
            match plan.lowering(el, sv.builtin) {
                None => {}
                Some(Lowering::Whole(_)) => {
                    // The first capture is the variable's; later ones duplicate it.
                    for c in caps.into_iter().skip(1) {
                        extra(self, c, &mut vars);
                    }
                }
                Some(Lowering::Extra) => {
                    for c in caps {
                        extra(self, c, &mut vars);
                    }
                }
                Some(Lowering::Split) => {
                    let place = self
                        .iface
                        .xfb
                        .as_ref()
                        .and_then(|x| x.split_place.get(&id).copied())
                        .ok_or_else(|| Error::Internal(format!("stream output: {label} was not split")))?;
                    for row in 0..el.rows.max(1) {
                        let on_row: Vec<Capture> = caps.iter().filter(|c| c.row == row).copied().collect();
                        let mut cuts = vec![0, el.cols.max(1)];
                        for c in &on_row {
                            cuts.extend([c.first, c.first + c.count]);
                        }
                        cuts.sort_unstable();
                        cuts.dedup();
                        for run in cuts.windows(2) {
                            let (from, to) = (run[0], run[1]);
                            let ty = self.cx.vec(scalar, to - from);
                            let var = self.cx.global_var(
                                StorageClass::Output,
                                ty,
                                &format!("out.{label}.{}", &"xyzw"[from as usize..to as usize]),
                            );
                            self.cx.decorate(var, Decoration::Location, &[place.location + row]);
                            if let Some(s) = stream {
                                self.cx.decorate(var, Decoration::Stream, &[s]);
                            }
                            if place.component + from > 0 {
                                self.cx.decorate(var, Decoration::Component, &[place.component + from]);
                            }
                            let mut covering = on_row.iter().filter(|c| c.first <= from && c.first + c.count >= to);
                            if let Some(owner) = covering.next() {
                                self.cx.decorate_capture(var, &owner.part(from, to));
                            }
                            vars.push(XfbVar { var, element: id, row, first: from, count: to - from, extra: false });
                            for c in covering {
                                extra(self, c.part(from, to), &mut vars);
                            }
                        }
                    }
                }
            }
        }
        if let Some(x) = self.iface.xfb.as_mut() {
            x.vars = Some(vars.clone());
        }
        Ok(vars)
    }

    /// Writes every split piece and extra variable from the element it copies. Called
    /// before each `OpReturn` of the entry point (geometry shaders copy at their emits,
    /// [`Self::xfb_copy_out_stream`]).
    pub(crate) fn xfb_copy_out(&mut self) -> Result<()> {
        if self.sm.kind == ShaderKind::Geometry {
            return Ok(());
        }
        self.xfb_copy(None)
    }

    /// Writes the split pieces and extras of stream `stream`'s elements: called before a
    /// geometry shader emits a vertex to that stream.
    pub(crate) fn xfb_copy_out_stream(&mut self, stream: u32) -> Result<()> {
        self.xfb_copy(Some(stream))
    }

    fn xfb_copy(&mut self, stream: Option<u32>) -> Result<()> {
        if self.iface.xfb.is_none() {
            return Ok(());
        }
        for v in self.xfb_vars()? {
            if let Some(s) = stream {
                let of = self.sigs.outputs.iter().find(|e| e.id == v.element).and_then(|e| e.output_stream);
                if of.unwrap_or(0) != s {
                    continue;
                }
            }
            let sv = self.xfb_source(v.element)?;
            let (scalar, _) = self.xfb_scalar(&sv);
            let row = self.cx.const_u32(v.row);
            let mut parts = Vec::with_capacity(v.count as usize);
            for col in v.first..v.first + v.count {
                let p = self.sig_scalar_ptr(sv, sv.class, None, row, Some(col), row)?;
                parts.push(self.ids_op(Op::Load, scalar, &[p])?);
            }
            let value = match parts[..] {
                [one] => one,
                _ => {
                    let ty = self.cx.vec(scalar, v.count);
                    self.ids_op(Op::CompositeConstruct, ty, &parts)?
                }
            };
            self.ids_void(Op::Store, &[v.var, value])?;
        }
        Ok(())
    }

    /// After the body: creates what no return created, gives extras their locations, and
    /// says whether the module captures anything (`Xfb` mode, `TransformFeedback`).
    pub(crate) fn finish_stream_output(&mut self) -> Result<bool> {
        if self.iface.xfb.is_none() {
            return Ok(false);
        }
        let vars = self.xfb_vars()?;
        let mut next = match self.iface.max_output_location {
            None => Some(0),
            Some(l) => l.checked_add(1),
        };
        for v in vars.iter().filter(|v| v.extra) {
            let location = next.ok_or_else(|| {
                malformed(Subject::StreamOutput, "stream output: no location is left past the outputs for a copy")
            })?;
            self.cx.decorate(v.var, Decoration::Location, &[location]);
            next = location.checked_add(1);
        }
        Ok(true)
    }
}
