//! Module assembly (LangRef, "Module Structure", "Global Variables", "Functions"): the
//! prescan, top-level entities, global variables and function headers, and the final
//! checks, upgrades and canonical numbering.
//!
//! **Prescan.** One pass over the tokens at bracket depth 0 finds every global variable
//! (`@g = ...`), function (`define`/`declare ... @f`) and type definition (`%T = type`)
//! before anything is parsed. Globals and functions get their ids in textual order, which
//! is LLVM's module order (a definition after a forward reference takes the reference's
//! place in neither LLVM nor here); so `@f` resolves to its id wherever it is used, and
//! only its type is checked later ([`GlobalTable::checks`], at the end, against the type
//! the definition gave it). Type definitions are parsed first, in order, and on demand
//! where a nameless type is needed earlier ([`super::types`]).
//!
//! **End of module.** Every referenced metadata node must be defined; debug info is
//! stripped as LLVM's reader strips it (see [`super::metadata`]); named metadata is
//! converted; then the intrinsic upgrades LLVM applies on reading
//! ([`crate::front::bitcode::upgrade`]) and the canonical renumbering of types and constants in the
//! LLVM front end's order ([`crate::front::bitcode::canonical`]), shared with the native bitcode
//! reader, make the module identical to the one `crate::front::llvm` builds from the same text.
//!
//! Attributes, linkage, visibility, calling conventions, sections, comdats and the like are
//! parsed and dropped: our IR keeps none of them (neither does the LLVM front end).
//! Aliases, ifuncs, `module asm`-free inline assembly, summaries and use-list orders are
//! typed errors. Cost: linear in the tokens.

use super::body::ParamName;
use super::lexer::{Tok, Token};
use super::parser::{skip_attribute_reference, skip_param_attributes};
use super::parser::{PResult, Parser};
use super::tables::TypeDef;
use crate::front::bitcode::layout::DataLayout;
use crate::ir::{FuncId, Function, Global, GlobalId, Module, Param, Type, TypeId, Value};
use cranelift_entity::{EntityRef, PrimaryMap};
use std::collections::BTreeMap;

const LINKAGES: &[&str] = &[
    "private",
    "internal",
    "available_externally",
    "linkonce",
    "weak",
    "common",
    "appending",
    "extern_weak",
    "linkonce_odr",
    "weak_odr",
    "external",
];

/// Words that may precede `global`/`constant` (LangRef, "Global Variables").
const GLOBAL_PREFIX_WORDS: &[&str] = &[
    "dso_local",
    "dso_preemptable",
    "default",
    "hidden",
    "protected",
    "dllimport",
    "dllexport",
    "unnamed_addr",
    "local_unnamed_addr",
    "externally_initialized",
];

/// Type keywords: where a function's return type starts.
fn is_type_start(p: &Parser) -> bool {
    match p.peek() {
        Tok::LocalVar | Tok::LocalId | Tok::LBrace | Tok::LSquare | Tok::Less => true,
        Tok::Word => {
            let w = p.text(p.tok());
            matches!(
                w,
                "void"
                    | "half"
                    | "bfloat"
                    | "float"
                    | "double"
                    | "x86_fp80"
                    | "fp128"
                    | "ppc_fp128"
                    | "label"
                    | "metadata"
                    | "token"
                    | "x86_mmx"
                    | "x86_amx"
                    | "ptr"
            ) || (w.len() > 1 && w.starts_with('i') && w[1..].bytes().all(|b| b.is_ascii_digit()))
        }
        _ => false,
    }
}

/// Parse LLVM text into a module named `name` (see [`super`]).
pub fn parse_module(p: &mut Parser) -> PResult<Module> {
    prescan(p)?;
    parse_type_definitions(p)?;
    p.pos = 0;
    loop {
        let t = p.tok();
        match t.kind {
            Tok::Eof => break,
            Tok::Word => match p.text(t) {
                "target" => parse_target(p)?,
                "source_filename" => {
                    p.bump();
                    p.expect(Tok::Equal, "`=` after `source_filename`")?;
                    p.expect_string("the source file name")?;
                }
                "module" => {
                    p.bump();
                    p.expect_word("asm")?;
                    p.expect_string("module assembly")?;
                }
                "attributes" => {
                    p.bump();
                    let g = p.expect(Tok::AttrGroupId, "an attribute group `#N`")?;
                    let g = p.number(g)?;
                    p.expect(Tok::Equal, "`=`")?;
                    let attrs = attribute_group(p)?;
                    p.globals.attr_groups.insert(g, attrs);
                }
                "define" | "declare" => parse_function(p)?,
                "uselistorder" | "uselistorder_bb" => return Err(p.unsupported(t, "`uselistorder`")),
                w => return Err(p.error_at(t, format!("expected a top-level entity, found `{w}`"))),
            },
            Tok::GlobalVar | Tok::GlobalId => parse_global(p)?,
            Tok::LocalVar | Tok::LocalId => {
                // Parsed before the main pass; skip it.
                let end =
                    p.types.def_end.get(&p.pos).copied().ok_or_else(|| p.error_at(t, "misplaced type definition"))?;
                p.pos = end;
            }
            Tok::MetadataVar => p.parse_named_md()?,
            Tok::MetadataId => p.parse_md_definition()?,
            Tok::ComdatVar => {
                p.bump();
                p.expect(Tok::Equal, "`=` after a comdat name")?;
                p.expect_word("comdat")?;
                p.expect(Tok::Word, "a comdat selection kind")?;
            }
            Tok::SummaryId => return Err(p.unsupported(t, "a module summary entry")),
            _ => return Err(p.unexpected("a top-level entity")),
        }
    }
    finish(p)
}

/// Check the global references, convert metadata, apply LLVM's reader upgrades and number
/// types and constants canonically.
fn finish(p: &mut Parser) -> PResult<Module> {
    for &(v, ty, at) in &p.globals.checks {
        let actual = match v {
            Value::Global(g) => p.m.globals[g].ty,
            Value::Func(f) => {
                let fty = p.m.functions[f].ty;
                p.m.types.lookup(&Type::Pointer { pointee: fty, addr_space: 0 }).unwrap_or(fty)
            }
            _ => continue,
        };
        if actual != ty {
            return Err(p.error_at(
                at,
                format!(
                    "'{}' defined with type '{}' but expected '{}'",
                    p.text(at),
                    p.describe(actual),
                    p.describe(ty)
                ),
            ));
        }
    }
    for (f, groups, inline) in std::mem::take(&mut p.globals.fn_attrs) {
        let mut attrs = BTreeMap::new();
        for g in groups {
            if let Some(a) = p.globals.attr_groups.get(&g) {
                attrs.extend(a.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
        }
        attrs.extend(inline);
        if !attrs.is_empty() {
            let name = p.m.functions[f].name.clone();
            p.m.function_attributes.entry(name).or_default().extend(attrs);
        }
    }
    p.check_md_defined()?;
    if p.debug_info_version() != 3 {
        p.strip_debug_named_md();
        super::function::strip_debug_intrinsic_calls(&mut p.m);
    }
    p.convert_metadata()?;
    let m = std::mem::take(&mut p.m);
    let mut m = m;
    let order = crate::front::bitcode::upgrade::upgrade_intrinsics(&mut m);
    Ok(crate::front::bitcode::canonical::canonicalize(m, &order))
}

/// An attribute group's body `{ ... }`: its string attributes (`"key"`, `"key"="value"`);
/// other attributes (`nounwind`, `align=4`, `memory(read)`) are skipped.
fn attribute_group(p: &mut Parser) -> PResult<BTreeMap<String, String>> {
    let open = p.expect(Tok::LBrace, "`{`")?;
    let mut attrs = BTreeMap::new();
    p.balanced(open, (Tok::LBrace, Tok::RBrace), "unbalanced `{`", |p, t, depth| {
        if t.kind == Tok::String && depth == 1 {
            let key = String::from_utf8_lossy(&p.string_bytes(t)).into_owned();
            let mut value = String::new();
            if p.eat(Tok::Equal) {
                value = p.expect_string("an attribute value")?;
            }
            attrs.insert(key, value);
        }
        Ok(())
    })?;
    Ok(attrs)
}

fn parse_target(p: &mut Parser) -> PResult<()> {
    p.bump();
    let t = p.expect(Tok::Word, "`datalayout` or `triple`")?;
    p.expect(Tok::Equal, "`=`")?;
    let s = p.expect_string("a string")?;
    match p.text(t) {
        "datalayout" => {
            p.layout = DataLayout::parse(&s);
            p.m.data_layout = s;
        }
        "triple" => p.m.triple = s,
        other => return Err(p.error_at(t, format!("unknown target property `{other}`"))),
    }
    Ok(())
}

/// The kind of bracket a token opens (+1) or closes (-1).
fn bracket(kind: Tok) -> i64 {
    match kind {
        Tok::LParen | Tok::LSquare | Tok::LBrace | Tok::Less => 1,
        Tok::RParen | Tok::RSquare | Tok::RBrace | Tok::Greater => -1,
        _ => 0,
    }
}

/// Find every global, function and type definition (see the module docs).
fn prescan(p: &mut Parser) -> PResult<()> {
    let mut depth = 0i64;
    let mut pending_function = false;
    let toks = std::mem::take(&mut p.toks);
    let result = (|| -> PResult<()> {
        for (i, &t) in toks.iter().enumerate() {
            let next = toks.get(i + 1).map_or(Tok::Eof, |t| t.kind);
            if depth == 0 {
                match t.kind {
                    Tok::Word if matches!(p.text(t), "define" | "declare") => pending_function = true,
                    Tok::GlobalVar | Tok::GlobalId if pending_function => {
                        pending_function = false;
                        declare_global_name(p, t, true, false)?;
                    }
                    Tok::GlobalVar | Tok::GlobalId if next == Tok::Equal => {
                        // `extern_weak` matters for LLVM's inbounds inference on GEPs.
                        let weak = toks[i + 2..]
                            .iter()
                            .take_while(|t| t.kind == Tok::Word && !matches!(p.text(**t), "global" | "constant"))
                            .any(|t| p.text(*t) == "extern_weak");
                        declare_global_name(p, t, false, weak)?;
                    }
                    Tok::LocalVar | Tok::LocalId if next == Tok::Equal => declare_type_name(p, t, i)?,
                    _ => {}
                }
            }
            depth = (depth + bracket(t.kind)).max(0);
        }
        Ok(())
    })();
    p.toks = toks;
    result
}

fn declare_type_name(p: &mut Parser, t: Token, at: usize) -> PResult<()> {
    let fresh = if t.kind == Tok::LocalVar {
        let name = p.name(t).into_owned();
        p.types.named.insert(name, TypeDef::Pending(at)).is_none()
    } else {
        let n = p.number(t)?;
        p.types.numbered.insert(n, TypeDef::Pending(at)).is_none()
    };
    if fresh {
        Ok(())
    } else {
        Err(p.error_at(t, format!("redefinition of type '{}'", p.text(t))))
    }
}

/// Give the global or function named by `t` its id (textual order).
fn declare_global_name(p: &mut Parser, t: Token, is_function: bool, extern_weak: bool) -> PResult<()> {
    let name = if t.kind == Tok::GlobalVar { p.name(t).into_owned() } else { String::new() };
    let placeholder = p.m.types.intern(Type::Void);
    let value = if is_function {
        Value::Func(p.m.functions.push(Function {
            name: name.clone(),
            ty: placeholder,
            ret: placeholder,
            params: Vec::new(),
            blocks: PrimaryMap::new(),
            insts: PrimaryMap::new(),
            layout: Vec::new(),
        }))
    } else {
        p.globals.extern_weak.push(extern_weak);
        Value::Global(p.m.globals.push(Global {
            name: name.clone(),
            value_ty: placeholder,
            ty: placeholder,
            addr_space: 0,
            is_constant: false,
            initializer: None,
            align: 0,
        }))
    };
    if t.kind == Tok::GlobalId {
        let n = p.number(t)?;
        if n as usize != p.globals.numbered.len() {
            return Err(p.error_at(t, format!("variable expected to be numbered '@{}'", p.globals.numbered.len())));
        }
        p.globals.numbered.push(value);
    } else if p.globals.by_name.insert(name.clone(), value).is_some() {
        return Err(p.error_at(t, format!("redefinition of global '@{name}'")));
    }
    Ok(())
}

impl Parser<'_> {
    /// The global or function `@x` names, with the pointer type this reference gives it
    /// (checked at the end of the module).
    pub fn global_ref(&mut self, t: Token, ty: TypeId) -> PResult<Value> {
        let v = if t.kind == Tok::GlobalId {
            let n = self.number(t)?;
            self.globals.numbered.get(n as usize).copied()
        } else {
            self.globals.by_name.get(self.name(t).as_ref()).copied()
        };
        let v = v.ok_or_else(|| self.error_at(t, format!("use of undefined value '{}'", self.text(t))))?;
        self.globals.checks.push((v, ty, t));
        Ok(v)
    }

    /// The id the prescan gave the definition at `t`.
    fn defined_global(&self, t: Token) -> PResult<Value> {
        let v = if t.kind == Tok::GlobalId {
            self.number(t).ok().and_then(|n| self.globals.numbered.get(n as usize).copied())
        } else {
            self.globals.by_name.get(self.name(t).as_ref()).copied()
        };
        v.ok_or_else(|| self.error_at(t, "definition not found by the prescan"))
    }

    /// Skip `align N` (after `align`), checking it is a power of two; returns it.
    pub fn parse_alignment(&mut self) -> PResult<u32> {
        let t = self.tok();
        let a = self.expect_u64("an alignment")?;
        if !a.is_power_of_two() {
            return Err(self.error_at(t, "alignment is not a power of two"));
        }
        u32::try_from(a).map_err(|_| self.error_at(t, "huge alignments are not supported yet"))
    }
}

/// `@g = [linkage ...] global|constant T [init] [, section ...] [, align N] ...`.
fn parse_global(p: &mut Parser) -> PResult<()> {
    let name_tok = p.bump();
    p.expect(Tok::Equal, "`=` after a global name")?;
    let mut has_decl_linkage = false;
    let mut addr_space = 0;
    loop {
        let t = p.tok();
        if t.kind != Tok::Word {
            return Err(p.unexpected("`global` or `constant`"));
        }
        let w = p.text(t);
        match w {
            "global" | "constant" => break,
            "alias" | "ifunc" => return Err(p.unsupported(t, &format!("global `{w}`"))),
            "addrspace" => {
                p.bump();
                addr_space = p.parse_addrspace_number()?;
            }
            "thread_local" => {
                p.bump();
                if p.peek() == Tok::LParen {
                    p.skip_parens()?;
                }
            }
            _ if LINKAGES.contains(&w) => {
                has_decl_linkage = matches!(w, "external" | "extern_weak");
                p.bump();
            }
            _ if GLOBAL_PREFIX_WORDS.contains(&w) => {
                p.bump();
            }
            _ => return Err(p.unexpected("`global` or `constant`")),
        }
    }
    let kw = p.bump();
    let is_constant = p.text(kw) == "constant";
    let tt = p.tok();
    let value_ty = p.parse_type()?;
    if matches!(
        p.m.types.get(value_ty),
        Type::Function { .. } | Type::Void | Type::Label | Type::Metadata | Type::Token
    ) {
        return Err(p.error_at(tt, "invalid type for global variable"));
    }
    let initializer = if has_decl_linkage { None } else { Some(p.parse_const(value_ty)?) };
    let mut align = 0;
    while p.eat(Tok::Comma) {
        let t = p.tok();
        match t.kind {
            Tok::MetadataVar => {
                p.bump();
                p.parse_md_attachment_value()?;
            }
            Tok::Word => {
                p.bump();
                match p.text(t) {
                    "section" | "partition" => {
                        p.expect_string("a name")?;
                    }
                    "comdat" => {
                        if p.peek() == Tok::LParen {
                            p.skip_parens()?;
                        }
                    }
                    "align" => align = p.parse_alignment()?,
                    "no_sanitize_address"
                    | "no_sanitize_hwaddress"
                    | "sanitize_memtag"
                    | "sanitize_address_dyninit" => {}
                    other => return Err(p.error_at(t, format!("unexpected `{other}` after a global variable"))),
                }
            }
            _ => return Err(p.unexpected("a global variable attribute")),
        }
    }
    while p.eat(Tok::AttrGroupId) {}
    let ty = p.pointer_to(value_ty, addr_space);
    let Value::Global(g) = p.defined_global(name_tok)? else {
        return Err(p.error_at(name_tok, "definition not found by the prescan"));
    };
    if p.globals_defined_flag(g) {
        return Err(p.error_at(name_tok, format!("redefinition of global '{}'", p.text(name_tok))));
    }
    p.m.globals[g] =
        Global { name: p.m.globals[g].name.clone(), value_ty, ty, addr_space, is_constant, initializer, align };
    Ok(())
}

impl Parser<'_> {
    /// Whether global `g` was defined already; marks it defined.
    fn globals_defined_flag(&mut self, g: GlobalId) -> bool {
        let v = &mut self.globals.global_defined;
        if v.len() <= g.index() {
            v.resize(g.index() + 1, false);
        }
        std::mem::replace(&mut v[g.index()], true)
    }

    fn funcs_defined_flag(&mut self, f: FuncId) -> bool {
        let v = &mut self.globals.func_defined;
        if v.len() <= f.index() {
            v.resize(f.index() + 1, false);
        }
        std::mem::replace(&mut v[f.index()], true)
    }
}

/// `define`/`declare` and the header; `define` goes on to the body.
fn parse_function(p: &mut Parser) -> PResult<()> {
    let kw = p.bump();
    let is_definition = p.text(kw) == "define";
    // Linkage, visibility, calling convention, return attributes.
    // Any word before the type is one of those (nothing else may stand there).
    while !is_type_start(p) {
        if p.peek() != Tok::Word {
            return Err(p.unexpected("the return type"));
        }
        p.bump();
        if p.peek() == Tok::LParen {
            p.skip_parens()?;
        } else {
            // `cc 10`, `align 8`, `dereferenceable 8`.
            p.eat(Tok::Integer);
        }
    }
    let rt = p.tok();
    let ret = p.parse_type()?;
    if matches!(p.m.types.get(ret), Type::Label | Type::Metadata | Type::Function { .. }) {
        return Err(p.error_at(rt, "invalid function return type"));
    }
    let name_tok = p.tok();
    if !matches!(name_tok.kind, Tok::GlobalVar | Tok::GlobalId) {
        return Err(p.unexpected("a function name"));
    }
    p.bump();
    let (params, param_names, var_arg) = parse_params(p)?;
    let fty = p.intern(Type::Function { ret, params: params.clone(), var_arg });
    let (groups, inline) = function_attributes(p, is_definition)?;
    let Value::Func(f) = p.defined_global(name_tok)? else {
        return Err(p.error_at(name_tok, "definition not found by the prescan"));
    };
    if !groups.is_empty() || !inline.is_empty() {
        p.globals.fn_attrs.push((f, groups, inline));
    }
    if p.funcs_defined_flag(f) {
        return Err(p.error_at(name_tok, format!("invalid redefinition of function '{}'", p.text(name_tok))));
    }
    {
        let func = &mut p.m.functions[f];
        func.ty = fty;
        func.ret = ret;
        func.params = params
            .iter()
            .zip(&param_names)
            .map(|(&ty, n)| Param { name: n.as_ref().map(|(s, _)| s.clone()).filter(|s| !s.is_empty()), ty })
            .collect();
    }
    p.pointer_to(fty, 0);
    if is_definition {
        super::function::parse_body(p, f, &param_names)?;
    }
    Ok(())
}

fn parse_params(p: &mut Parser) -> PResult<(Vec<TypeId>, Vec<ParamName>, bool)> {
    p.expect(Tok::LParen, "`(` before the parameters")?;
    let mut types = Vec::new();
    let mut names = Vec::new();
    if p.eat(Tok::RParen) {
        return Ok((types, names, false));
    }
    loop {
        if p.eat(Tok::DotDotDot) {
            p.expect(Tok::RParen, "`)` after `...`")?;
            return Ok((types, names, true));
        }
        let tt = p.tok();
        let ty = p.parse_type()?;
        if matches!(p.m.types.get(ty), Type::Void | Type::Function { .. }) {
            return Err(p.error_at(tt, "invalid type for function argument"));
        }
        skip_param_attributes(p)?;
        let name = match p.peek() {
            Tok::LocalVar => {
                let t = p.bump();
                Some((p.name(t).into_owned(), t))
            }
            Tok::LocalId => Some((String::new(), p.bump())),
            _ => None,
        };
        types.push(ty);
        names.push(name);
        if p.eat(Tok::RParen) {
            return Ok((types, names, false));
        }
        p.expect(Tok::Comma, "`,` or `)` in the parameter list")?;
    }
}

/// Function attributes after the parameter list, up to the body (`define`) or the next
/// top-level entity (`declare`): the attribute groups referenced (`#N`) and the string
/// attributes written inline; everything else is skipped.
fn function_attributes(p: &mut Parser, is_definition: bool) -> PResult<(Vec<u32>, BTreeMap<String, String>)> {
    let mut groups = Vec::new();
    let mut inline = BTreeMap::new();
    loop {
        let t = p.tok();
        match t.kind {
            Tok::AttrGroupId => groups.push(p.number(t)?),
            Tok::String => {
                let key = String::from_utf8_lossy(&p.string_bytes(t)).into_owned();
                let value = if p.peek_at(1) == Tok::Equal && p.peek_at(2) == Tok::String {
                    let v = p.toks[p.pos + 2];
                    String::from_utf8_lossy(&p.string_bytes(v)).into_owned()
                } else {
                    String::new()
                };
                inline.insert(key, value);
            }
            _ => {}
        }
        if skip_attribute_reference(p)? {
            continue;
        }
        let t = p.tok();
        match t.kind {
            Tok::LBrace if is_definition => return Ok((groups, inline)),
            Tok::MetadataVar if p.peek_at(1) != Tok::Equal => {
                p.bump();
                p.parse_md_attachment_value()?;
            }
            Tok::Word => {
                let w = p.text(t);
                if !is_definition
                    && matches!(
                        w,
                        "define"
                            | "declare"
                            | "attributes"
                            | "target"
                            | "source_filename"
                            | "module"
                            | "uselistorder"
                            | "uselistorder_bb"
                    )
                {
                    return Ok((groups, inline));
                }
                p.bump();
                match w {
                    "section" | "partition" | "gc" => {
                        p.expect_string("a name")?;
                    }
                    "align" | "alignstack" => {
                        if p.peek() == Tok::LParen {
                            p.skip_parens()?;
                        } else {
                            p.parse_alignment()?;
                        }
                    }
                    "addrspace" => {
                        p.parse_addrspace_number()?;
                    }
                    "prefix" | "prologue" | "personality" => {
                        // Kept by LLVM, never looked at by the LLVM front end.
                        p.parse_typed_const()?;
                    }
                    _ => {
                        if p.peek() == Tok::LParen {
                            p.skip_parens()?;
                        }
                    }
                }
            }
            _ if is_definition => return Err(p.unexpected("`{` to start the function body")),
            _ => return Ok((groups, inline)),
        }
    }
}

/// Parse all type definitions in textual order (before the main pass).
fn parse_type_definitions(p: &mut Parser) -> PResult<()> {
    let mut starts: Vec<usize> = p
        .types
        .named
        .values()
        .chain(p.types.numbered.values())
        .filter_map(|d| match d {
            TypeDef::Pending(at) => Some(*at),
            _ => None,
        })
        .collect();
    starts.sort_unstable();
    for at in starts {
        p.pos = at;
        p.parse_type_definition()?;
    }
    Ok(())
}
