//! Value → Data: a container is opened whole with one `tsb_any_flatten`
//! (strs borrowed, every other leaf inline or a new reference), then read.
//! Not `tsb_any_flatten_borrowed` (ABI 1.9): `Data` keeps every tensor it
//! meets, and a reference made inside the flatten costs less than a
//! borrowed entry plus a `tsb_any_keep` call per tensor (docs/rust.md, Speed).
use crate::data::{Data, FromData};
use crate::error::{bytes, c_str, check, Code, Error, Result};
use crate::kind::Kind;
use crate::object::Object;
use crate::scalars::{Device, Dtype, Layout, MemoryFormat};
use crate::sys;
use crate::tensor::Tensor;
use crate::types::TypeInfo;
use crate::value::Value;
use std::cell::RefCell;
use std::os::raw::c_char;

thread_local! {
    // Reused between walks: a walk allocates only what it returns.
    static SCRATCH: RefCell<Vec<sys::tsb_any>> = RefCell::new(Vec::new());
}

impl Value {
    /// The value as Rust data, every kind (see `Data`).
    pub fn to_data(&self) -> Result<Data> {
        let raw = self.as_raw();
        if raw.type_index < 64 {
            // SAFETY: raw is self's own value (a Value is never borrowed), alive
            // for the call.
            return leaf(unsafe { retained(raw) });
        }
        let info = TypeInfo::of(raw.type_index)?;
        match info.kind {
            Kind::List | Kind::Dict | Kind::Tuple | Kind::NamedTuple => flattened(raw),
            // SAFETY: as above: raw is self's own value.
            _ => leaf(unsafe { retained(raw) }),
        }
    }
    /// The value converted to a Rust type: `let xs: Vec<i64> = v.get()?`.
    pub fn get<T: FromData>(&self) -> Result<T> {
        T::from_data(self.to_data()?)
    }
}

/// A new owned reference to a borrowed raw value.
///
/// # Safety
/// `raw` is a live value owned elsewhere: inline, or a handle (not a
/// borrowed str or tensor).
unsafe fn retained(raw: &sys::tsb_any) -> Value {
    // SAFETY: a live handle (the caller's promise) retained once: the
    // Value made from it owns that new reference and releases it once.
    unsafe {
        if raw.flags & sys::TSB_FLAG_HANDLE != 0 {
            sys::tsb_any_retain(raw);
        }
        Value::from_raw(*raw)
    }
}

fn flattened(raw: &sys::tsb_any) -> Result<Data> {
    let mut entries = SCRATCH.with(|s| std::mem::take(&mut *s.borrow_mut()));
    let mut n = 0usize;
    loop {
        entries.clear();
        let capacity = entries.capacity();
        // SAFETY: `entries` has `capacity` writable slots; raw is a live value
        // borrowed for the call; the ABI writes nothing when n > capacity.
        check(unsafe { sys::tsb_any_flatten(raw, entries.as_mut_ptr(), capacity, &mut n) })?;
        if n <= capacity {
            // SAFETY: n <= capacity: the flatten wrote those n entries.
            unsafe { entries.set_len(n) };
            break;
        }
        entries.reserve(n);
    }
    let mut pos = 0usize;
    let result = read_entry(&mut entries, &mut pos);
    for e in entries.iter_mut() {
        if e.flags & sys::TSB_FLAG_HANDLE != 0 {
            // SAFETY: an entry with the handle flag is a new reference the flatten
            // made, and read_entry left invalid every entry it took: released once.
            unsafe { sys::tsb_any_release(e) };
        }
    }
    entries.clear();
    SCRATCH.with(|s| *s.borrow_mut() = entries);
    result
}

/// Reads the entry at `*pos` (a container with what belongs to it), and
/// moves `*pos` past it. Each leaf read is taken out of `entries`.
fn read_entry(entries: &mut [sys::tsb_any], pos: &mut usize) -> Result<Data> {
    let entry = std::mem::replace(&mut entries[*pos], sys::tsb_any::invalid());
    *pos += 1;
    if entry.flags & sys::TSB_FLAG_CONTAINER == 0 {
        if entry.flags & sys::TSB_FLAG_BORROWED_STR != 0 {
            // SAFETY: the borrowed-str flag says which union member is set; the
            // string lives in `raw`, which the caller holds until this copy is made.
            return Ok(Data::Str(c_str(unsafe { entry.u.borrowed_str })));
        }
        // SAFETY: a leaf entry is inline or a new reference the flatten made;
        // it was taken out of `entries` (replaced by invalid), so this Value owns it alone.
        return leaf(unsafe { Value::from_raw(entry) });
    }
    // SAFETY: a container entry's payload is its count of entries (the int member).
    let end = *pos + unsafe { entry.u.i } as usize;
    let info = TypeInfo::of(entry.type_index)?;
    let mut items = Vec::new();
    let mut i = 0usize;
    while *pos < end {
        let item = read_entry(entries, pos).map_err(|e| e.within(&format!("[{}]", i)))?;
        items.push(item);
        i += 1;
    }
    Ok(match info.kind {
        Kind::List => Data::List(items),
        Kind::Tuple => Data::Tuple(items),
        Kind::NamedTuple => Data::NamedTuple {
            type_name: info.name.clone(),
            fields: info.field_names.iter().cloned().zip(items).collect(),
        },
        Kind::Dict => {
            let mut pairs = Vec::with_capacity(items.len() / 2);
            let mut it = items.into_iter();
            while let (Some(k), Some(v)) = (it.next(), it.next()) {
                pairs.push((k, v));
            }
            Data::Dict(pairs)
        }
        other => return Err(unsupported(&info, other)),
    })
}

fn unsupported(info: &TypeInfo, kind: Kind) -> Error {
    Error::new(Code::Unsupported, "", &format!("no Rust conversion for {} (kind {:?})", info.annotation, kind))
}

/// One leaf, owned.
fn leaf(v: Value) -> Result<Data> {
    let raw = *v.as_raw();
    // SAFETY: every member is 8 plain bytes; `i` is used only for the kinds
    // whose payload is the int member.
    let i = unsafe { raw.u.i };
    Ok(match raw.type_index {
        sys::TSB_TYPE_NONE => Data::None,
        sys::TSB_TYPE_BOOL => Data::Bool(i != 0),
        sys::TSB_TYPE_INT => Data::Int(i),
        // SAFETY: a uint's payload is the u member.
        sys::TSB_TYPE_UINT => Data::UInt(unsafe { raw.u.u }),
        // SAFETY: a float's payload is the d member.
        sys::TSB_TYPE_FLOAT => Data::Float(unsafe { raw.u.d }),
        sys::TSB_TYPE_DTYPE => Data::Dtype(Dtype(i as i32)),
        sys::TSB_TYPE_LAYOUT => Data::Layout(Layout(i as i32)),
        sys::TSB_TYPE_MEMORY_FORMAT => Data::MemoryFormat(MemoryFormat(i as i32)),
        sys::TSB_TYPE_DEVICE => Data::Device(Device { device_type: (i >> 32) as i32, index: i as i32 }),
        sys::TSB_TYPE_TENSOR => Data::Tensor(Tensor::from_value(v)),
        sys::TSB_TYPE_COMPLEX => {
            let (mut re, mut im) = (0f64, 0f64);
            // SAFETY: raw is v's live value; re and im are locals.
            check(unsafe { sys::tsb_complex_get(&raw, &mut re, &mut im) })?;
            Data::Complex { re, im }
        }
        sys::TSB_TYPE_STR => {
            let mut p: *const c_char = std::ptr::null();
            let mut len = 0usize;
            // SAFETY: raw is v's live value; p and len are locals.
            check(unsafe { sys::tsb_str_get(&raw, &mut p, &mut len) })?;
            // SAFETY: len bytes at p, alive while `v` (which owns raw) lives.
            Data::Str(String::from_utf8_lossy(&unsafe { bytes(p, len) }).into_owned())
        }
        _ => {
            let info = TypeInfo::of(raw.type_index)?;
            match info.kind {
                Kind::Enum => {
                    let mut member: *const c_char = std::ptr::null();
                    let mut value = sys::tsb_any::invalid();
                    // SAFETY: raw is v's live value; member and value are locals; `value` is
                    // a new reference taken by the Value made next.
                    check(unsafe { sys::tsb_enum_get(&raw, &mut member, &mut value) })?;
                    // SAFETY: the enum's value, a new reference from tsb_enum_get, owned once.
                    let value = leaf(unsafe { Value::from_raw(value) })?;
                    Data::Enum { type_name: info.name.clone(), member: c_str(member), value: Box::new(value) }
                }
                Kind::Object => Data::Object(Object::from_value(v, info)),
                Kind::CustomClass => Data::CustomClass(Object::from_value(v, info)),
                other => return Err(unsupported(&info, other)),
            }
        }
    })
}
