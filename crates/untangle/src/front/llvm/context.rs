//! An LLVM context that reports instead of exiting.

use super::super::error::{Error, Result};
use llvm_sys::analysis::{LLVMVerifierFailureAction, LLVMVerifyModule};
use llvm_sys::bit_reader::LLVMParseBitcodeInContext2;
use llvm_sys::core::*;
use llvm_sys::error_handling::LLVMInstallFatalErrorHandler;
use llvm_sys::ir_reader::LLVMParseIRInContext;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMDiagnosticSeverity, LLVMTypeKind};
use std::cell::RefCell;
use std::ffi::{c_char, c_void, CStr};
use std::sync::Once;

/// What the bytes hold.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Syntax {
    Bitcode,
    Text,
}

/// Panic payload raised from LLVM's fatal-error hook.
struct LlvmFatal(String);

/// `report_fatal_error` cannot be returned from (LLVM exits after the hook) and cannot be
/// unwound through (Debian's LLVM has no unwind tables: the unwind aborts). Inside a trial
/// child ([`super::isolate`]) the hook reports the message and ends the child, which the
/// parent turns into a typed error. In-process parses only run on input a child has read
/// cleanly, so the hook's in-process path is reached only through `parse_trusted`.
extern "C" fn on_fatal_error(reason: *const c_char) {
    let msg = if reason.is_null() {
        "fatal error".to_string()
    } else {
        // SAFETY: LLVM passes a NUL-terminated string valid for the call.
        unsafe { CStr::from_ptr(reason) }.to_string_lossy().into_owned()
    };
    #[cfg(unix)]
    super::isolate::report_fatal_in_child(&msg);
    // Not in a child: nothing can recover LLVM's state; this aborts with the message.
    std::panic::panic_any(LlvmFatal(msg));
}

/// Install [`on_fatal_error`] once per process.
pub(super) fn install_fatal_error_handler() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| unsafe { LLVMInstallFatalErrorHandler(Some(on_fatal_error)) });
}

pub(super) fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(f) = payload.downcast_ref::<LlvmFatal>() {
        format!("fatal error: {}", f.0)
    } else if let Some(s) = payload.downcast_ref::<&str>() {
        format!("internal error while reading the module: {s}")
    } else if let Some(s) = payload.downcast_ref::<String>() {
        format!("internal error while reading the module: {s}")
    } else {
        "internal error while reading the module".to_string()
    }
}

extern "C" fn on_diagnostic(info: LLVMDiagnosticInfoRef, sink: *mut c_void) {
    // SAFETY: `sink` is the `RefCell` owned by the `Context` that registered us, which
    // outlives every LLVM call made through that context.
    let sink = unsafe { &*(sink as *const RefCell<Vec<String>>) };
    let severity = unsafe { LLVMGetDiagInfoSeverity(info) };
    let text = unsafe { LLVMGetDiagInfoDescription(info) };
    let msg = if text.is_null() {
        String::new()
    } else {
        let s = unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned();
        unsafe { LLVMDisposeMessage(text) };
        s
    };
    if matches!(severity, LLVMDiagnosticSeverity::LLVMDSError) {
        if let Ok(mut v) = sink.try_borrow_mut() {
            v.push(msg);
        }
    }
}

pub(super) struct Context {
    raw: LLVMContextRef,
    diagnostics: Box<RefCell<Vec<String>>>,
}

pub(super) struct ParsedModule<'c> {
    raw: LLVMModuleRef,
    _ctx: std::marker::PhantomData<&'c Context>,
}

impl ParsedModule<'_> {
    pub(super) fn raw(&self) -> LLVMModuleRef {
        self.raw
    }
}

impl Drop for ParsedModule<'_> {
    fn drop(&mut self) {
        unsafe { LLVMDisposeModule(self.raw) };
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        unsafe { LLVMContextDispose(self.raw) };
    }
}

impl Context {
    pub(super) fn new() -> Context {
        let raw = unsafe { LLVMContextCreate() };
        let diagnostics = Box::new(RefCell::new(Vec::new()));
        unsafe { LLVMContextSetDiagnosticHandler(raw, Some(on_diagnostic), &*diagnostics as *const _ as *mut c_void) };
        Context { raw, diagnostics }
    }

    fn take_diagnostics(&self, fallback: &str) -> String {
        let v = std::mem::take(&mut *self.diagnostics.borrow_mut());
        if v.is_empty() {
            fallback.to_string()
        } else {
            v.join("; ")
        }
    }

    pub(super) fn parse(&self, bytes: &[u8], syntax: Syntax, name: &str) -> Result<ParsedModule<'_>> {
        let cname = std::ffi::CString::new(name.replace('\0', "")).unwrap_or_default();
        let mut module: LLVMModuleRef = std::ptr::null_mut();
        // The buffer's source, for either constructor.
        let (start, len, buf_name) = (bytes.as_ptr() as *const c_char, bytes.len(), cname.as_ptr());
        match syntax {
            Syntax::Bitcode => {
                // SAFETY: the buffer borrows `bytes`, which outlives the parse; the buffer
                // is disposed before returning (the non-lazy parse copies what it needs).
                let buf = unsafe { LLVMCreateMemoryBufferWithMemoryRange(start, len, buf_name, 0) };
                let failed = unsafe { LLVMParseBitcodeInContext2(self.raw, buf, &mut module) };
                unsafe { LLVMDisposeMemoryBuffer(buf) };
                if failed != 0 || module.is_null() {
                    return Err(Error::Llvm(self.take_diagnostics("invalid bitcode")));
                }
            }
            Syntax::Text => {
                // The text parser wants a NUL-terminated buffer: the copying constructor
                // provides one. LLVMParseIRInContext takes ownership of it.
                let buf = unsafe { LLVMCreateMemoryBufferWithMemoryRangeCopy(start, len, buf_name) };
                let mut msg: *mut c_char = std::ptr::null_mut();
                let failed = unsafe { LLVMParseIRInContext(self.raw, buf, &mut module, &mut msg) };
                if failed != 0 || module.is_null() {
                    // LLVM quotes the source line and a caret under it; the first line
                    // (`file:line:col: error: ...`) says it all in one line.
                    let text = take_message(msg);
                    let first = text.lines().next().unwrap_or("").trim().to_string();
                    return Err(Error::Llvm(if first.is_empty() {
                        self.take_diagnostics("invalid LLVM text")
                    } else {
                        first
                    }));
                }
            }
        }
        let parsed = ParsedModule { raw: module, _ctx: std::marker::PhantomData };
        let mut msg: *mut c_char = std::ptr::null_mut();
        let broken =
            unsafe { LLVMVerifyModule(parsed.raw, LLVMVerifierFailureAction::LLVMReturnStatusAction, &mut msg) };
        let text = take_message(msg);
        if broken != 0 {
            let first = text.lines().next().unwrap_or("").to_string();
            return Err(Error::Llvm(format!("module fails LLVM verification: {first}")));
        }
        Ok(parsed)
    }
}

fn take_message(msg: *mut c_char) -> String {
    if msg.is_null() {
        return String::new();
    }
    let s = unsafe { CStr::from_ptr(msg) }.to_string_lossy().into_owned();
    unsafe { LLVMDisposeMessage(msg) };
    s
}

/// Owned copy of an LLVM string with explicit length.
pub(super) fn lossy(ptr: *const c_char, len: usize) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: LLVM guarantees `len` readable bytes at `ptr`.
    let bytes = unsafe { std::slice::from_raw_parts(ptr as *const u8, len) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// A value's name, or `None` if unnamed.
pub(super) fn value_name(v: LLVMValueRef) -> Option<String> {
    let mut len = 0usize;
    let p = unsafe { LLVMGetValueName2(v, &mut len) };
    if len == 0 {
        None
    } else {
        Some(lossy(p, len))
    }
}

/// LLVM's own printing of a value (for constants we keep as opaque text).
pub(super) fn print_value(v: LLVMValueRef) -> String {
    take_message(unsafe { LLVMPrintValueToString(v) })
}

/// `MetadataAsValue` wrappers are the only values of metadata type (the C API of LLVM 14
/// has no `LLVMIsAMetadataAsValue`).
pub(super) fn is_metadata(v: LLVMValueRef) -> bool {
    matches!(unsafe { LLVMGetTypeKind(LLVMTypeOf(v)) }, LLVMTypeKind::LLVMMetadataTypeKind)
}
