//! `Value`: one owned `tsb_any`. Drop releases it, Clone retains it.
use crate::error::{bytes, c_str, check, Result};
use crate::kind::Kind;
use crate::sys;
use crate::types::{Type, TypeInfo};
use std::ffi::CString;
use std::os::raw::c_char;
use std::sync::Arc;

/// A TorchScript value held through the C ABI: an inline scalar or one
/// reference to a handle.
///
/// `Send`, not `Sync`: the ABI lets a value move to another thread and
/// counts references atomically, so clones may live on many threads; but a
/// call may change a value in place (a method appending to a `List`
/// argument, an in-place operator) while another thread reads it, so a
/// `&Value` is not shared between threads. `#[repr(transparent)]`: a
/// `&[Value]` is a `tsb_any` array the calls take as is.
#[repr(transparent)]
pub struct Value {
    raw: sys::tsb_any,
}

// SAFETY: the header's "Threads": a tsb_any may move to another
// thread, and references are counted atomically. A Value is inline data or
// one reference of its own, never a borrowed str or tensor (from_raw's
// contract, asserted in debug builds), which would tie it to a parent.
unsafe impl Send for Value {}

impl Drop for Value {
    fn drop(&mut self) {
        if self.raw.flags & sys::TSB_FLAG_HANDLE != 0 {
            // SAFETY: self.raw holds the one reference this Value owns (fill and
            // from_raw give it one); Drop runs once, and into_raw forgets self instead.
            unsafe { sys::tsb_any_release(&mut self.raw) }
        }
    }
}

impl Clone for Value {
    fn clone(&self) -> Value {
        if self.raw.flags & sys::TSB_FLAG_HANDLE != 0 {
            // SAFETY: self owns a reference, so the handle is live; the retain is
            // the clone's own reference, released by the clone's Drop.
            unsafe { sys::tsb_any_retain(&self.raw) }
        }
        Value { raw: self.raw }
    }
}

pub(crate) fn cstring(s: &str) -> CString {
    // A NUL inside a name can never match one: keep the text before it.
    CString::new(s.split('\0').next().unwrap_or("")).unwrap()
}

impl Value {
    /// Takes ownership of a raw value (a new reference).
    ///
    /// # Safety
    /// `raw` must be a value this library gave out as a new reference (or
    /// an inline one), not released elsewhere. A borrowed str or tensor is refused.
    pub unsafe fn from_raw(raw: sys::tsb_any) -> Value {
        debug_assert!(raw.flags & (sys::TSB_FLAG_BORROWED_STR | sys::TSB_FLAG_BORROWED) == 0);
        Value { raw }
    }
    /// Gives up ownership: the caller releases the result.
    pub fn into_raw(self) -> sys::tsb_any {
        let raw = self.raw;
        std::mem::forget(self);
        raw
    }
    /// The raw value, borrowed (for `sys` calls).
    pub fn as_raw(&self) -> &sys::tsb_any {
        &self.raw
    }
    /// Calls `f` to fill a new reference and owns it.
    pub(crate) fn fill(f: impl FnOnce(*mut sys::tsb_any) -> *mut sys::tsb_status) -> Result<Value> {
        let mut raw = sys::tsb_any::invalid();
        check(f(&mut raw))?;
        Ok(Value { raw })
    }

    pub fn none() -> Value {
        Value { raw: sys::tsb_any::inline(sys::TSB_TYPE_NONE, 0) }
    }
    pub fn str(s: &str) -> Result<Value> {
        // SAFETY: s's bytes (pointer and length of one &str) are copied during
        // the call; `o` is fill's slot, owned by the Value it makes.
        Value::fill(|o| unsafe { sys::tsb_str_new(s.as_ptr() as *const c_char, s.len(), o) })
    }
    pub fn complex(re: f64, im: f64) -> Result<Value> {
        // SAFETY: two numbers in; `o` is fill's slot.
        Value::fill(|o| unsafe { sys::tsb_complex_new(re, im, o) })
    }
    /// An int beyond INT64_MAX is a uint (ABI 1.6), refused where LibTorch
    /// is older than 2.9.
    pub fn uint(u: u64) -> Value {
        let index = if u <= i64::MAX as u64 { sys::TSB_TYPE_INT } else { sys::TSB_TYPE_UINT };
        Value { raw: sys::tsb_any { type_index: index, flags: 0, u: sys::tsb_any_payload { u } } }
    }

    pub fn type_index(&self) -> i32 {
        self.raw.type_index
    }
    /// The value's type: kind, annotation, names.
    pub fn type_info(&self) -> Result<Arc<TypeInfo>> {
        TypeInfo::of(self.raw.type_index)
    }
    pub fn kind(&self) -> Result<Kind> {
        Ok(self.type_info()?.kind)
    }
    /// The value converted to `expected`, checked all the way down.
    pub fn coerce(&self, expected: &Type) -> Result<Value> {
        // SAFETY: &self.raw is a live value borrowed for the call; `o` is fill's slot.
        Value::fill(|o| unsafe { sys::tsb_any_coerce(&self.raw, expected.index(), o) })
    }
    /// Reads JSON (docs/json.md) as a value of type `expected`.
    pub fn from_json(json: &str, expected: &Type) -> Result<Value> {
        let text = cstring(json);
        // SAFETY: `text` is a NUL-ended CString alive for the call; `o` is fill's slot.
        Value::fill(|o| unsafe { sys::tsb_json_read(text.as_ptr(), expected.index(), o) })
    }
    pub fn to_json(&self) -> Result<String> {
        // SAFETY: &self.raw is borrowed for the call; owned_string frees the text.
        owned_string(|o| unsafe { sys::tsb_json_write(&self.raw, o) })
    }
    /// TorchScript's own printing of the value.
    pub fn repr(&self) -> Result<String> {
        // SAFETY: &self.raw is borrowed for the call; owned_string frees the text.
        owned_string(|o| unsafe { sys::tsb_any_repr(&self.raw, o) })
    }
    /// The bytes torch.save writes for the value.
    pub fn to_pickle(&self) -> Result<Vec<u8>> {
        // SAFETY: &self.raw is borrowed for the call; owned_bytes frees the bytes.
        owned_bytes(|d, n| unsafe { sys::tsb_pickle_write(&self.raw, d, n) })
    }
    /// A value from bytes torch.save wrote.
    pub fn from_pickle(bytes: &[u8]) -> Result<Value> {
        // SAFETY: pointer and length of one slice, read during the call; `o` is fill's slot.
        Value::fill(|o| unsafe { sys::tsb_pickle_read(bytes.as_ptr() as *const c_char, bytes.len(), o) })
    }
    /// Same non-zero id iff two values share one object (0 for scalars, str).
    pub fn id(&self) -> Result<u64> {
        let mut id = 0u64;
        // SAFETY: &self.raw is borrowed for the call; `id` is a local.
        check(unsafe { sys::tsb_any_get_id(&self.raw, &mut id) })?;
        Ok(id)
    }
    /// Number of items of a List, Tuple, NamedTuple or Dict.
    pub fn len(&self) -> Result<usize> {
        let mut n = 0usize;
        // SAFETY: &self.raw is borrowed for the call; `n` is a local.
        check(unsafe { sys::tsb_any_len(&self.raw, &mut n) })?;
        Ok(n)
    }
    /// Field of a NamedTuple or attribute of a TorchScript object.
    pub fn field(&self, name: &str) -> Result<Value> {
        let name = cstring(name);
        // SAFETY: &self.raw is borrowed and `name` (a CString) alive for the call.
        Value::fill(|o| unsafe { sys::tsb_any_get_field(&self.raw, name.as_ptr(), o) })
    }
    /// A `List[str]`'s items in one call (ABI 1.7), copied into Strings.
    pub fn to_strings(&self) -> Result<Vec<String>> {
        let n = self.len()?;
        let mut data = vec![std::ptr::null::<c_char>(); n];
        let mut lens = vec![0usize; n];
    // SAFETY: `data` and `lens` have n slots each, n the length just read;
        // the pointers borrow the list, which &self keeps alive and unchanged
        // until they are copied below (a change in place beside a read is what
        // the header's "Threads" forbids).
        check(unsafe { sys::tsb_list_get_strs(&self.raw, n, data.as_mut_ptr(), lens.as_mut_ptr()) })?;
        Ok(data
            .iter()
            .zip(&lens)
            .map(|(&p, &len)| {
                // SAFETY: item i's lens[i] bytes at data[i], alive as said above.
                String::from_utf8_lossy(&unsafe { bytes(p, len) }).into_owned()
            })
            .collect())
    }
}

/// Number of live handles in the process: a leak check for tests.
pub fn handle_count() -> Result<usize> {
    let mut n = 0usize;
    // SAFETY: `n` is a local.
    check(unsafe { sys::tsb_handle_count(&mut n) })?;
    Ok(n)
}

pub(crate) fn owned_string(f: impl FnOnce(*mut *mut c_char) -> *mut sys::tsb_status) -> Result<String> {
    let mut p: *mut c_char = std::ptr::null_mut();
    check(f(&mut p))?;
    let s = c_str(p);
    // SAFETY: p is the string f wrote on success, copied by c_str above and
    // freed once here (NULL is ignored).
    unsafe { sys::tsb_string_free(p) };
    Ok(s)
}

pub(crate) fn owned_bytes(
    f: impl FnOnce(*mut *mut c_char, *mut usize) -> *mut sys::tsb_status,
) -> Result<Vec<u8>> {
    let mut p: *mut c_char = std::ptr::null_mut();
    let mut n = 0usize;
    check(f(&mut p, &mut n))?;
    // SAFETY: on success the library wrote a buffer of n bytes at p, ours to
    // read, then to free once (tsb_string_free), after the copy.
    let copied = unsafe { bytes(p, n) };
    // SAFETY: as above; NULL (n == 0) is ignored.
    unsafe { sys::tsb_string_free(p) };
    Ok(copied)
}

macro_rules! inline_from {
    ($t:ty, $index:expr, $field:ident, $conv:expr) => {
        impl From<$t> for Value {
            fn from(x: $t) -> Value {
                let $field = $conv(x);
                Value { raw: sys::tsb_any { type_index: $index, flags: 0, u: sys::tsb_any_payload { $field } } }
            }
        }
    };
}
inline_from!(i64, sys::TSB_TYPE_INT, i, |x| x);
inline_from!(i32, sys::TSB_TYPE_INT, i, |x: i32| x as i64);
inline_from!(bool, sys::TSB_TYPE_BOOL, i, |x: bool| x as i64);
inline_from!(f64, sys::TSB_TYPE_FLOAT, d, |x| x);

impl std::fmt::Debug for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.repr() {
            Ok(s) => f.write_str(&s),
            Err(e) => write!(f, "<value of type {}: {}>", self.raw.type_index, e),
        }
    }
}
