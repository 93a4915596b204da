//! Status codes, error objects, the panic guard and argument checks shared by every entry
//! point.

use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use untangle::{Error, TranslateError};

/// What a call did. `UNTANGLE_OK` is 0; every other value is a failure, and calls that
/// take an `untangle_error **` then describe it there.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum untangle_status {
    /// Success.
    UNTANGLE_OK = 0,
    /// A NULL pointer where an object or out-parameter is required, a length that cannot
    /// be right, an index out of range, an unknown enumeration value, text that is not
    /// UTF-8. The caller's mistake; no message for simple accessors.
    UNTANGLE_INVALID_ARGUMENT = 1,
    /// The bytes are no input untangle reads, or a malformed DXBC container, bitcode or
    /// LLVM text.
    UNTANGLE_PARSE_ERROR = 2,
    /// Well-formed, but not a DXIL shader: an LLVM module without `dx.shaderModel`, a
    /// container without a DXIL program, an entry point without a body.
    UNTANGLE_NOT_A_SHADER = 3,
    /// A stage, operation, type or control flow untangle does not translate (yet), or
    /// LLVM IR it does not model.
    UNTANGLE_UNSUPPORTED = 4,
    /// The DXIL breaks a rule of DXIL (metadata, operands, signatures).
    UNTANGLE_MALFORMED = 5,
    /// A malformed or invalid root signature (RTS0 bytes or HLSL string), or a shader that
    /// does not fit it (an uncovered register, a root descriptor of the wrong kind, ...).
    UNTANGLE_ROOT_SIGNATURE = 6,
    /// The binding-map JSON could not be used.
    UNTANGLE_BINDING_MAP = 7,
    /// The stream-output description is invalid, or does not fit the shader.
    UNTANGLE_STREAM_OUTPUT = 8,
    /// A bug in untangle, including a caught panic. Please report it with the input.
    UNTANGLE_INTERNAL = 9,
    /// A remapping callback's answer cannot be used (the layer's mistake, not the
    /// shader's): the I/O callback put two signature elements on one location component,
    /// or past `UNTANGLE_MAX_IO_LOCATIONS`; the resource callback put two ranges (or
    /// counters) on one set and binding, or past `UNTANGLE_MAX_DESCRIPTOR_SETS` /
    /// `UNTANGLE_MAX_BINDINGS`. The message names the callback, the elements or ranges
    /// and the place.
    UNTANGLE_CALLBACK = 10,
}

use untangle_status::*;

/// A failure: its status and message. Create with the `*` functions; free with
/// `untangle_error_free`.
pub struct untangle_error {
    status: untangle_status,
    message: CString,
}

/// The status of an error; `UNTANGLE_INVALID_ARGUMENT` for NULL. (Returns the error's
/// status, not the status of this call.)
#[no_mangle]
pub unsafe extern "C" fn untangle_error_status(error: *const untangle_error) -> untangle_status {
    guard_value(UNTANGLE_INVALID_ARGUMENT, || {
        // SAFETY: NULL or an error this library created and the caller has not freed.
        unsafe { error.as_ref() }.map_or(UNTANGLE_INVALID_ARGUMENT, |e| e.status)
    })
}

/// The message of an error: UTF-8, NUL-terminated, owned by the error (valid until
/// `untangle_error_free`). NULL for a NULL error.
#[no_mangle]
pub unsafe extern "C" fn untangle_error_message(error: *const untangle_error) -> *const c_char {
    guard_value(std::ptr::null(), || {
        // SAFETY: as in untangle_error_status.
        unsafe { error.as_ref() }.map_or(std::ptr::null(), |e| e.message.as_ptr())
    })
}

/// Frees an error; NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn untangle_error_free(error: *mut untangle_error) {
    // SAFETY: NULL or an error this library created, freed once.
    guard_value((), || drop(unsafe { take(error) }));
}

/// The name of a status value as a static string (`"UNTANGLE_PARSE_ERROR"`), or
/// `"UNTANGLE_UNKNOWN_STATUS"` for a value that is none.
#[no_mangle]
pub extern "C" fn untangle_status_name(status: i32) -> *const c_char {
    let name: &'static CStr = match status {
        0 => c"UNTANGLE_OK",
        1 => c"UNTANGLE_INVALID_ARGUMENT",
        2 => c"UNTANGLE_PARSE_ERROR",
        3 => c"UNTANGLE_NOT_A_SHADER",
        4 => c"UNTANGLE_UNSUPPORTED",
        5 => c"UNTANGLE_MALFORMED",
        6 => c"UNTANGLE_ROOT_SIGNATURE",
        7 => c"UNTANGLE_BINDING_MAP",
        8 => c"UNTANGLE_STREAM_OUTPUT",
        9 => c"UNTANGLE_INTERNAL",
        10 => c"UNTANGLE_CALLBACK",
        _ => c"UNTANGLE_UNKNOWN_STATUS",
    };
    name.as_ptr()
}

/// A failed call, before it is handed to C.
#[derive(Debug)]
pub(crate) struct Failure {
    pub status: untangle_status,
    pub message: String,
}

impl Failure {
    pub fn new(status: untangle_status, message: impl Into<String>) -> Failure {
        Failure { status, message: message.into() }
    }

    pub fn invalid(message: impl Into<String>) -> Failure {
        Failure::new(UNTANGLE_INVALID_ARGUMENT, message)
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::new(status_of(&e), e.to_string())
    }
}

impl From<TranslateError> for Failure {
    fn from(e: TranslateError) -> Failure {
        Failure::from(Error::from(e))
    }
}

impl From<untangle::rootsig::RootSigError> for Failure {
    fn from(e: untangle::rootsig::RootSigError) -> Failure {
        Failure::from(Error::from(e))
    }
}

/// The status of a library error.
pub fn status_of(e: &Error) -> untangle_status {
    use untangle::cfg::CfgError;
    use untangle::front::container::ContainerError;
    use untangle::passes::StructurizeError;
    match e {
        Error::Container(ContainerError::MissingChunk { .. }) => UNTANGLE_NOT_A_SHADER,
        Error::Container(_) | Error::UnknownFormat(_) | Error::Bitcode(_) | Error::LlText(_) | Error::Llvm(_) => {
            UNTANGLE_PARSE_ERROR
        }
        Error::FrontEndMissing(_) | Error::Ir { .. } => UNTANGLE_UNSUPPORTED,
        // Valid DXIL newer than the operation table: unsupported, not malformed.
        Error::Dxil(untangle::dxil::Error::NewerOperation { .. }) => UNTANGLE_UNSUPPORTED,
        Error::Dxil(_) => UNTANGLE_MALFORMED,
        Error::Cfg(CfgError::Irreducible { .. }) => UNTANGLE_UNSUPPORTED,
        Error::Cfg(_) => UNTANGLE_MALFORMED,
        Error::Structurize(StructurizeError::Cfg { source: CfgError::Irreducible { .. }, .. }) => UNTANGLE_UNSUPPORTED,
        Error::Structurize(StructurizeError::Cfg { .. }) => UNTANGLE_MALFORMED,
        Error::Structurize(_) | Error::Emit(_) | Error::Io(_) => UNTANGLE_INTERNAL,
        Error::RootSig(_) => UNTANGLE_ROOT_SIGNATURE,
        Error::Translate(t) => match t {
            TranslateError::NotAShader(_) => UNTANGLE_NOT_A_SHADER,
            TranslateError::UnsupportedStage { .. }
            | TranslateError::UnsupportedOp { .. }
            | TranslateError::UnsupportedForm { .. }
            | TranslateError::Unsupported { .. }
            | TranslateError::VendorExtension { .. }
            | TranslateError::NewerOperation(_) => UNTANGLE_UNSUPPORTED,
            TranslateError::Malformed { .. } | TranslateError::Invalid { .. } => UNTANGLE_MALFORMED,
            // Placement callbacks are not in the C API; their refusals are binding refusals.
            TranslateError::BindingMap(_) | TranslateError::Placement { .. } => UNTANGLE_BINDING_MAP,
            TranslateError::RootSignature(_) | TranslateError::RootSignatureConflict { .. } => UNTANGLE_ROOT_SIGNATURE,
            // A library translated without naming one of its entries, or a wrong name;
            // an option that cannot be honoured as given.
            TranslateError::LibraryEntry(_) | TranslateError::Options { .. } => UNTANGLE_INVALID_ARGUMENT,
            TranslateError::StreamOutput(_) => UNTANGLE_STREAM_OUTPUT,
            TranslateError::Internal(_) => UNTANGLE_INTERNAL,
            TranslateError::Remap { .. } => UNTANGLE_CALLBACK,
            // `untangle::Error`'s `From` carries these up as `Error::RootSig` and
            // `Error::Structurize` (above); a translation error never holds them.
            TranslateError::RootSig(_) => UNTANGLE_ROOT_SIGNATURE,
            TranslateError::Structurize(_) => UNTANGLE_INTERNAL,
        },
    }
}

/// A C string of `s`, cut at the first NUL (messages and names never hold one; if one
/// did, C would stop reading there anyway).
pub(crate) fn c_string(s: &str) -> CString {
    let end = s.find('\0').unwrap_or(s.len());
    CString::new(&s[..end]).unwrap_or_default()
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic".to_string()
    }
}

/// Drops a panic payload without letting a second panic escape.
fn discard(payload: Box<dyn std::any::Any + Send>) {
    if let Err(again) = catch_unwind(AssertUnwindSafe(move || drop(payload))) {
        std::mem::forget(again);
    }
}

/// Runs the body of an entry point that reports failures through `error`: catches panics,
/// clears `*error` first, and on failure stores a new error object there.
pub(crate) fn guard(error: *mut *mut untangle_error, body: impl FnOnce() -> Result<(), Failure>) -> untangle_status {
    // SAFETY: `error` is NULL or writable (the caller's contract).
    unsafe { write_opt(error, std::ptr::null_mut()) };
    let failure = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => return UNTANGLE_OK,
        Ok(Err(f)) => f,
        Err(payload) => {
            let f = Failure::new(UNTANGLE_INTERNAL, format!("internal error: panic: {}", panic_message(&*payload)));
            discard(payload);
            f
        }
    };
    let status = failure.status;
    if !error.is_null() {
        let stored = catch_unwind(AssertUnwindSafe(|| {
            Box::into_raw(Box::new(untangle_error { status, message: c_string(&failure.message) }))
        }));
        // SAFETY: checked non-NULL; writable by contract.
        match stored {
            Ok(e) => unsafe { *error = e },
            Err(payload) => discard(payload),
        }
    }
    status
}

/// Runs the body of an entry point without an error out-parameter.
pub(crate) fn guard_simple(body: impl FnOnce() -> Result<(), untangle_status>) -> untangle_status {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => UNTANGLE_OK,
        Ok(Err(status)) => status,
        Err(payload) => {
            discard(payload);
            UNTANGLE_INTERNAL
        }
    }
}

/// Runs a body that returns a value; `fallback` if it panics.
pub(crate) fn guard_value<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(v) => v,
        Err(payload) => {
            discard(payload);
            fallback
        }
    }
}

/// Writes `value` through `p` unless it is NULL.
///
/// # Safety
/// `p` is NULL or valid for writes of a `T`.
pub(crate) unsafe fn write_opt<T>(p: *mut T, value: T) {
    if !p.is_null() {
        // SAFETY: the caller's contract.
        unsafe { p.write(value) }
    }
}

/// Takes back ownership of a boxed object handed to C (`None` for NULL).
///
/// # Safety
/// `p` is NULL or came from `Box::into_raw` and is not used again.
pub(crate) unsafe fn take<T>(p: *mut T) -> Option<Box<T>> {
    // SAFETY: the caller's contract.
    (!p.is_null()).then(|| unsafe { Box::from_raw(p) })
}

fn aligned<T>(p: *const T) -> bool {
    (p as usize).is_multiple_of(std::mem::align_of::<T>())
}

/// `*p` for a required object argument.
///
/// # Safety
/// `p` is NULL or points to a live `T`.
pub(crate) unsafe fn object<'a, T>(p: *const T, what: &str) -> Result<&'a T, Failure> {
    if p.is_null() {
        return Err(Failure::invalid(format!("`{what}` is NULL")));
    }
    if !aligned(p) {
        return Err(Failure::invalid(format!("`{what}` is misaligned")));
    }
    // SAFETY: the caller's contract.
    Ok(unsafe { &*p })
}

/// `*p` for a required object the call modifies.
///
/// # Safety
/// `p` is NULL or points to a live `T` no one else uses during the call.
pub(crate) unsafe fn object_mut<'a, T>(p: *mut T, what: &str) -> Result<&'a mut T, Failure> {
    if p.is_null() {
        return Err(Failure::invalid(format!("`{what}` is NULL")));
    }
    if !aligned(p) {
        return Err(Failure::invalid(format!("`{what}` is misaligned")));
    }
    // SAFETY: the caller's contract.
    Ok(unsafe { &mut *p })
}

/// A required out-parameter: checked, then written with `Out::set`.
pub(crate) struct Out<T>(*mut T);

impl<T> Out<T> {
    pub fn new(p: *mut T, what: &str) -> Result<Out<T>, Failure> {
        if p.is_null() {
            return Err(Failure::invalid(format!("`{what}` is NULL")));
        }
        if !aligned(p) {
            return Err(Failure::invalid(format!("`{what}` is misaligned")));
        }
        Ok(Out(p))
    }

    /// # Safety
    /// The pointer given to `Out::new` is valid for writes of a `T`.
    pub unsafe fn set(self, value: T) {
        // SAFETY: the caller's contract.
        unsafe { self.0.write(value) }
    }
}

/// `len` elements at `p`. `p` may be NULL only when `len` is 0.
///
/// # Safety
/// `p` is NULL or valid for reads of `len` elements that live through the call.
pub(crate) unsafe fn slice<'a, T>(p: *const T, len: usize, what: &str) -> Result<&'a [T], Failure> {
    if len == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(Failure::invalid(format!("`{what}` is NULL with a length of {len}")));
    }
    if !aligned(p) {
        return Err(Failure::invalid(format!("`{what}` is misaligned")));
    }
    if len.checked_mul(std::mem::size_of::<T>()).is_none_or(|bytes| bytes > isize::MAX as usize) {
        return Err(Failure::invalid(format!("`{what}`: length {len} is too large")));
    }
    // SAFETY: the caller's contract; non-NULL, aligned, size in range.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// A required NUL-terminated UTF-8 string.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string that lives through the call.
pub(crate) unsafe fn text<'a>(p: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if p.is_null() {
        return Err(Failure::invalid(format!("`{what}` is NULL")));
    }
    // SAFETY: the caller's contract.
    unsafe { CStr::from_ptr(p) }.to_str().map_err(|_| Failure::invalid(format!("`{what}` is not UTF-8")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_internal_error() {
        let mut e = std::ptr::null_mut();
        let st = guard(&mut e, || panic!("boom {}", 42));
        assert_eq!(st, UNTANGLE_INTERNAL);
        // SAFETY: the guard stored an error object.
        unsafe {
            assert_eq!(untangle_error_status(e), UNTANGLE_INTERNAL);
            let msg = CStr::from_ptr(untangle_error_message(e)).to_str().unwrap();
            assert_eq!(msg, "internal error: panic: boom 42");
            untangle_error_free(e);
        }
        // Without an error object, and in the other guards.
        assert_eq!(guard(std::ptr::null_mut(), || panic!("boom")), UNTANGLE_INTERNAL);
        assert_eq!(guard_simple(|| panic!("boom")), UNTANGLE_INTERNAL);
        assert_eq!(guard_value(5, || panic!("boom")), 5);
        // Success clears a stale error pointer.
        let mut stale = std::ptr::dangling_mut::<untangle_error>();
        assert_eq!(guard(&mut stale, || Ok(())), UNTANGLE_OK);
        assert!(stale.is_null());
    }

    #[test]
    fn library_errors_map_to_statuses() {
        let cases: [(&[u8], untangle_status); 3] = [
            (b"", UNTANGLE_PARSE_ERROR),
            (b"DXBC", UNTANGLE_PARSE_ERROR),
            (b"\xde\xc0\x17\x0b\0\0\0\0\x14\0\0\0\x04\0\0\0", UNTANGLE_PARSE_ERROR),
        ];
        for (bytes, status) in cases {
            let e = untangle::Shader::parse(bytes).unwrap_err();
            assert_eq!(status_of(&e), status, "{e}");
        }
        let uncovered = untangle::rootsig::resolve::ResolveError::NoHeap;
        assert_eq!(status_of(&TranslateError::from(uncovered).into()), UNTANGLE_ROOT_SIGNATURE);
        assert_eq!(
            status_of(&TranslateError::NotAShader(untangle::emit::NotAShader::NoShaderModel).into()),
            UNTANGLE_NOT_A_SHADER
        );
        assert_eq!(status_of(&TranslateError::UnsupportedStage { stage: "gs".into() }.into()), UNTANGLE_UNSUPPORTED);
        assert_eq!(status_of(&TranslateError::Internal("x".into()).into()), UNTANGLE_INTERNAL);
        let so = untangle::StreamOutputError::NoDeclarations;
        assert_eq!(status_of(&TranslateError::from(so).into()), UNTANGLE_STREAM_OUTPUT);
    }
}
