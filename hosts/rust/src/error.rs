//! Errors: a `tsb_status` read into an owned Rust value.
use crate::sys;
use std::ffi::CStr;
use std::fmt;
use std::os::raw::c_char;

/// The code of a failure, tsbridge.h's `tsb_code`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    InvalidArgument,
    Type,
    OutOfRange,
    NotFound,
    Unsupported,
    Torch,
    NoMemory,
    AlreadyExists,
    Internal,
    /// A code this crate does not know (a newer library).
    Other(i32),
}

impl Code {
    pub fn from_raw(code: sys::tsb_code) -> Code {
        match code {
            sys::TSB_ERR_INVALID_ARGUMENT => Code::InvalidArgument,
            sys::TSB_ERR_TYPE => Code::Type,
            sys::TSB_ERR_OUT_OF_RANGE => Code::OutOfRange,
            sys::TSB_ERR_NOT_FOUND => Code::NotFound,
            sys::TSB_ERR_UNSUPPORTED => Code::Unsupported,
            sys::TSB_ERR_TORCH => Code::Torch,
            sys::TSB_ERR_NO_MEMORY => Code::NoMemory,
            sys::TSB_ERR_ALREADY_EXISTS => Code::AlreadyExists,
            sys::TSB_ERR_INTERNAL => Code::Internal,
            other => Code::Other(other),
        }
    }
    pub fn to_raw(self) -> sys::tsb_code {
        match self {
            Code::InvalidArgument => sys::TSB_ERR_INVALID_ARGUMENT,
            Code::Type => sys::TSB_ERR_TYPE,
            Code::OutOfRange => sys::TSB_ERR_OUT_OF_RANGE,
            Code::NotFound => sys::TSB_ERR_NOT_FOUND,
            Code::Unsupported => sys::TSB_ERR_UNSUPPORTED,
            Code::Torch => sys::TSB_ERR_TORCH,
            Code::NoMemory => sys::TSB_ERR_NO_MEMORY,
            Code::AlreadyExists => sys::TSB_ERR_ALREADY_EXISTS,
            Code::Internal => sys::TSB_ERR_INTERNAL,
            Code::Other(c) => c,
        }
    }
}

/// A failure: its code, where in the value (`path`, "" when none) and what
/// (`detail`). Displays as every host prints it: `path: detail`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub code: Code,
    pub path: String,
    pub detail: String,
    /// LibTorch's C++ backtrace for `Code::Torch`, kept out of Display.
    pub backtrace: String,
}

pub type Result<T> = std::result::Result<T, Error>;

/// An owned copy of a NUL-ended string the library gave (NULL reads as "").
pub(crate) fn c_str(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: every pointer passed here is a NUL-ended string the library
    // just gave, alive at least until its owner (a status, a value, a
    // module, a schema) is released, which the caller holds over this copy.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// An owned copy of `len` bytes at `p` (nothing for len 0, where the
/// library may give NULL, which no slice may hold).
///
/// # Safety
/// For len > 0, `p` points at `len` readable bytes that stay valid for the call.
pub(crate) unsafe fn bytes(p: *const c_char, len: usize) -> Vec<u8> {
    if len == 0 {
        return Vec::new();
    }
    // SAFETY: the caller's promise, for len > 0.
    unsafe { std::slice::from_raw_parts(p as *const u8, len) }.to_vec()
}

impl Error {
    pub fn new(code: Code, path: &str, detail: &str) -> Error {
        Error { code, path: path.to_string(), detail: detail.to_string(), backtrace: String::new() }
    }

    /// The message a status carries (`tsb_status_get_message`): `path: detail`.
    pub fn message(&self) -> String {
        if self.path.is_empty() {
            self.detail.clone()
        } else {
            format!("{}: {}", self.path, self.detail)
        }
    }

    /// This error one level further out: `segment` goes before the path,
    /// joined with the path syntax's arrow (docs/abi.md).
    /// A path deeper than 16 segments stays short as the core keeps it:
    /// its first 8 and last 4 segments, "… (N segments)" between.
    pub fn within(mut self, segment: &str) -> Error {
        self.path = prepend_segment(segment, &self.path);
        self
    }

    /// Takes and frees a status; `None` for success (NULL).
    ///
    /// # Safety
    /// `s` is NULL or a status the library returned, not yet freed; it is
    /// freed here, so the caller must not use it again.
    pub(crate) unsafe fn from_status(s: *mut sys::tsb_status) -> Option<Error> {
        if s.is_null() {
            return None;
        }
        // SAFETY: `s` is a live status (the caller's promise); its strings
        // are copied before the one free below.
        unsafe {
            let e = Error {
                code: Code::from_raw(sys::tsb_status_get_code(s)),
                path: c_str(sys::tsb_status_get_path(s)),
                detail: in_our_words(&c_str(sys::tsb_status_get_detail(s))),
                backtrace: c_str(sys::tsb_status_get_backtrace(s)),
            };
            sys::tsb_status_free(s);
            Some(e)
        }
    }

    /// A status owned by the caller, for callbacks that report to tsbridge.
    pub(crate) fn into_status(self) -> *mut sys::tsb_status {
        let path = std::ffi::CString::new(self.path.replace('\0', " ")).unwrap();
        let detail = std::ffi::CString::new(self.detail.replace('\0', " ")).unwrap();
        // SAFETY: two NUL-ended CStrings alive for the call, which copies them.
        unsafe { sys::tsb_status_new_at(self.code.to_raw(), path.as_ptr(), detail.as_ptr()) }
    }
}

/// A missing operator library's advice in this host's words: the core ends
/// it with C's call, `(tsb_library_load("NAME", NULL))`, which becomes
/// `(tsbridge::plugin::load_library("NAME"))` (docs/hosts.md, "Errors").
fn in_our_words(detail: &str) -> String {
    const OPEN: &str = "(tsb_library_load(\"";
    const CLOSE: &str = "\", NULL))";
    let open = match detail.rfind(OPEN) {
        Some(open) => open,
        None => return detail.to_string(),
    };
    let name_at = open + OPEN.len();
    let length = match detail[name_at..].find(CLOSE) {
        Some(length) => length,
        None => return detail.to_string(),
    };
    format!(
        "{}(tsbridge::plugin::load_library(\"{}\")){}",
        &detail[..open],
        &detail[name_at..name_at + length],
        &detail[name_at + length + CLOSE.len()..]
    )
}

/// `Ok(())` for a NULL status, else the error it carries (freed).
pub(crate) fn check(s: *mut sys::tsb_status) -> Result<()> {
    // SAFETY: every status passed here is one an ABI call just returned,
    // passed on to nothing else: this is its one free.
    match unsafe { Error::from_status(s) } {
        None => Ok(()),
        Some(e) => Err(e),
    }
}

/// The ABI lists methods, overloads, parameters, children, attributes,
/// plugins and libraries as "count, then get i": `count(&mut n)`, then
/// `get(i)` for each i; the first failure stops it.
pub(crate) fn listed<T>(
    count: impl FnOnce(&mut usize) -> *mut sys::tsb_status,
    get: impl FnMut(usize) -> Result<T>,
) -> Result<Vec<T>> {
    let mut n = 0usize;
    check(count(&mut n))?;
    (0..n).map(get).collect()
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for Error {}

const ARROW: &str = " → ";
const SHOWN_FIRST: usize = 8;
const SHOWN_LAST: usize = 4;

fn hidden_count(segment: &str) -> Option<usize> {
    segment.strip_prefix("… (")?.strip_suffix(" segments)")?.parse().ok()
}

pub(crate) fn prepend_segment(segment: &str, path: &str) -> String {
    if path.is_empty() {
        return segment.to_string();
    }
    let mut segments: Vec<String> = Some(segment.to_string())
        .into_iter()
        .chain(path.split(ARROW).map(str::to_string))
        .collect();
    if let Some(n) = segments.get(SHOWN_FIRST + 1).and_then(|s| hidden_count(s)) {
        // Already short: the 8th shown segment joins the hidden ones.
        segments.remove(SHOWN_FIRST);
        segments[SHOWN_FIRST] = format!("… ({} segments)", n + 1);
    } else if segments.len() > SHOWN_FIRST + SHOWN_LAST + 4 {
        let hidden = segments.len() - SHOWN_FIRST - SHOWN_LAST;
        let tail = segments.split_off(segments.len() - SHOWN_LAST);
        segments.truncate(SHOWN_FIRST);
        segments.push(format!("… ({} segments)", hidden));
        segments.extend(tail);
    }
    segments.join(ARROW)
}
