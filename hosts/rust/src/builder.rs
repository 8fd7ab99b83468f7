//! Data → Value: leaves inline or as new handles, containers with the
//! ABI's builders (which check TSB_MAX_DEPTH and dict keys themselves).
use crate::data::Data;
use crate::error::{Error, Result};
use crate::kind::Kind;
use crate::sys;
use crate::types::Type;
use crate::value::Value;

impl Value {
    /// Builds a value from Rust data, typed by the data itself: a list of
    /// ints is a `List[int]`, a list of mixed items a `List[Any]` that a
    /// call converts to the type its schema expects.
    pub fn new<T: Into<Data>>(data: T) -> Result<Value> {
        crate::init();
        build(&data.into())
    }
    /// Builds a value of the type `annotation` names ("Dict[int, List[float]]",
    /// "Optional[Tuple[int, str]]"): built, then converted and checked all
    /// the way down by `tsb_any_coerce`.
    pub fn with_type<T: Into<Data>>(data: T, annotation: &str) -> Result<Value> {
        crate::init();
        let ty = Type::parse(annotation)?;
        Value::new(data)?.coerce(&ty)
    }
}

impl TryFrom<Data> for Value {
    type Error = Error;
    fn try_from(d: Data) -> Result<Value> {
        Value::new(d)
    }
}
impl TryFrom<&Data> for Value {
    type Error = Error;
    fn try_from(d: &Data) -> Result<Value> {
        crate::init();
        build(d)
    }
}

fn list_of(element_type: i32, items: &[Value]) -> Result<Value> {
    // SAFETY: Value is repr(transparent) over tsb_any, so `items` is an
    // array of items.len() live values, borrowed for the call (the list takes its own references).
    Value::fill(|o| unsafe {
        sys::tsb_list_new(element_type, items.as_ptr() as *const sys::tsb_any, items.len(), o)
    })
}

/// One type index for all of `items` when they share it, else Any.
fn common_type(items: &[Value]) -> i32 {
    match items.first() {
        Some(first) if items.iter().all(|v| v.type_index() == first.type_index()) => first.type_index(),
        _ => sys::TSB_TYPE_ANY,
    }
}

fn build_all<'a>(items: impl Iterator<Item = &'a Data>, segment: impl Fn(usize) -> String) -> Result<Vec<Value>> {
    items.enumerate().map(|(i, d)| build(d).map_err(|e| e.within(&segment(i)))).collect()
}

pub(crate) fn build(d: &Data) -> Result<Value> {
    Ok(match d {
        Data::None => Value::none(),
        Data::Bool(b) => Value::from(*b),
        Data::Int(i) => Value::from(*i),
        Data::UInt(u) => Value::uint(*u),
        Data::Float(x) => Value::from(*x),
        Data::Complex { re, im } => Value::complex(*re, *im)?,
        Data::Str(s) => Value::str(s)?,
        Data::Tensor(t) => t.value().clone(),
        Data::Device(x) => Value::from(*x),
        Data::Dtype(x) => Value::from(*x),
        Data::Layout(x) => Value::from(*x),
        Data::MemoryFormat(x) => Value::from(*x),
        Data::List(items) => build_list(items)?,
        Data::Tuple(items) => {
            let items = build_all(items.iter(), |i| format!("[{}]", i))?;
            // SAFETY: as in list_of: `items` is an array of live tsb_any, borrowed.
            Value::fill(|o| unsafe { sys::tsb_tuple_new(items.as_ptr() as *const sys::tsb_any, items.len(), o) })?
        }
        Data::NamedTuple { type_name, fields } => build_named_tuple(type_name, fields)?,
        Data::Dict(pairs) => {
            let keys = build_all(pairs.iter().map(|p| &p.0), |i| format!("keys[{}]", i))?;
            let values = build_all(pairs.iter().map(|p| &p.1), |i| format!("values[{}]", i))?;
            build_dict(sys::TSB_TYPE_ANY, &keys, &values)?
        }
        // A member name: every call and tsb_any_coerce take one for an Enum.
        Data::Enum { member, .. } => Value::str(member)?,
        Data::Object(o) | Data::CustomClass(o) => o.value().clone(),
    })
}

fn build_dict(key_type: i32, keys: &[Value], values: &[Value]) -> Result<Value> {
    let value_type = common_type(values);
    // SAFETY: keys and values are arrays of keys.len() live tsb_any each (one
    // key per value, built pair by pair), borrowed for the call.
    Value::fill(|o| unsafe {
        sys::tsb_dict_new(
            key_type,
            value_type,
            keys.as_ptr() as *const sys::tsb_any,
            values.as_ptr() as *const sys::tsb_any,
            keys.len(),
            o,
        )
    })
}

fn build_list(items: &[Data]) -> Result<Value> {
    // Lists of one scalar kind go in one copy.
    if !items.is_empty() {
        if let Some(xs) = items.iter().map(|d| if let Data::Int(i) = d { Some(*i) } else { None }).collect::<Option<Vec<i64>>>() {
            // SAFETY: pointer and length of one Vec, read (copied) during the call.
            return Value::fill(|o| unsafe { sys::tsb_list_new_int(xs.as_ptr(), xs.len(), o) });
        }
        if let Some(xs) = items.iter().map(|d| if let Data::Float(x) = d { Some(*x) } else { None }).collect::<Option<Vec<f64>>>() {
            // SAFETY: pointer and length of one Vec, read (copied) during the call.
            return Value::fill(|o| unsafe { sys::tsb_list_new_float(xs.as_ptr(), xs.len(), o) });
        }
        if let Some(xs) = items.iter().map(|d| if let Data::Bool(b) = d { Some(*b) } else { None }).collect::<Option<Vec<bool>>>() {
            // SAFETY: pointer and length of one Vec, read (copied) during the call.
            return Value::fill(|o| unsafe { sys::tsb_list_new_bool(xs.as_ptr(), xs.len(), o) });
        }
    }
    let items = build_all(items.iter(), |i| format!("[{}]", i))?;
    list_of(common_type(&items), &items)
}

/// A NamedTuple whose type the library knows by name (a registered one such
/// as tsbridge.tensor_pair) is built typed; another is a nameless
/// NamedTuple of its fields (ABI 1.8), which stays one under `Any` and which
/// every call converts to the NamedTuple by field name (build it typed with
/// `Module::parse_type` and `Value::coerce`).
fn build_named_tuple(type_name: &str, fields: &[(String, Data)]) -> Result<Value> {
    let values = build_all(fields.iter().map(|f| &f.1), |i| format!("field '{}'", fields[i].0))?;
    if let Ok(ty) = Type::parse(type_name) {
        if ty.info()?.kind == Kind::NamedTuple {
            // SAFETY: `values` is an array of live tsb_any (repr(transparent)), borrowed.
            return Value::fill(|o| unsafe {
                sys::tsb_tuple_new_typed(ty.index(), values.as_ptr() as *const sys::tsb_any, values.len(), o)
            });
        }
    }
    let names = fields.iter().map(|f| crate::value::cstring(&f.0)).collect::<Vec<_>>();
    let name_ptrs = names.iter().map(|n| n.as_ptr()).collect::<Vec<_>>();
    // SAFETY: one NUL-ended name per value (the CStrings in `names`, alive
    // for the call) and an array of live tsb_any, both borrowed.
    Value::fill(|o| unsafe {
        sys::tsb_tuple_new_named(std::ptr::null(), name_ptrs.as_ptr(), values.as_ptr() as *const sys::tsb_any, values.len(), o)
    })
}
