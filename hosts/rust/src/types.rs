//! Types: `Type` (an interned type index) and `TypeInfo`, cached per index
//! (indices are never reused in a process).
use crate::error::{c_str, check, Result};
use crate::kind::Kind;
use crate::sys;
use crate::value::cstring;
use std::sync::{Arc, RwLock};

/// A TorchScript type, as the library interned it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Type(i32);

impl Type {
    pub const ANY: Type = Type(sys::TSB_TYPE_ANY);
    pub const INT: Type = Type(sys::TSB_TYPE_INT);
    pub const FLOAT: Type = Type(sys::TSB_TYPE_FLOAT);
    pub const BOOL: Type = Type(sys::TSB_TYPE_BOOL);
    pub const STR: Type = Type(sys::TSB_TYPE_STR);
    pub const TENSOR: Type = Type(sys::TSB_TYPE_TENSOR);

    /// Parses a builtin annotation: "Dict[str, List[int]]", "Tensor?". A
    /// class a module declares is parsed by `Module::parse_type`.
    pub fn parse(annotation: &str) -> Result<Type> {
        let text = cstring(annotation);
        let mut index = 0i32;
        // SAFETY: `text` is a CString alive for the call; `index` a local.
        check(unsafe { sys::tsb_type_parse(text.as_ptr(), &mut index) })?;
        Ok(Type(index))
    }
    pub fn list_of(element: Type) -> Result<Type> {
        let mut index = 0i32;
        // SAFETY: `index` is a local.
        check(unsafe { sys::tsb_type_make_list(element.0, &mut index) })?;
        Ok(Type(index))
    }
    pub fn dict_of(key: Type, value: Type) -> Result<Type> {
        let mut index = 0i32;
        // SAFETY: `index` is a local.
        check(unsafe { sys::tsb_type_make_dict(key.0, value.0, &mut index) })?;
        Ok(Type(index))
    }
    pub fn from_index(index: i32) -> Type {
        Type(index)
    }
    pub fn index(&self) -> i32 {
        self.0
    }
    pub fn info(&self) -> Result<Arc<TypeInfo>> {
        TypeInfo::of(self.0)
    }
}

/// What `tsb_type_get_info` says of a type, owned.
#[derive(Debug, PartialEq, Eq)]
pub struct TypeInfo {
    pub index: i32,
    pub kind: Kind,
    /// "Dict[str, List[int]]".
    pub annotation: String,
    /// Qualified name of a NamedTuple, Enum or class; "" otherwise.
    pub name: String,
    /// List: [element]; Dict: [key, value]; Tuple, NamedTuple, Union: members.
    pub contained: Vec<Type>,
    /// NamedTuple fields, Enum members, an object's attributes.
    pub field_names: Vec<String>,
}

static CACHE: RwLock<Vec<Option<Arc<TypeInfo>>>> = RwLock::new(Vec::new());

impl TypeInfo {
    /// The info of a type index, read once per process.
    pub fn of(index: i32) -> Result<Arc<TypeInfo>> {
        let slot = index.max(0) as usize;
        if let Some(Some(info)) = CACHE.read().unwrap().get(slot) {
            return Ok(info.clone());
        }
        let info = Arc::new(TypeInfo::read(index)?);
        let mut cache = CACHE.write().unwrap();
        if cache.len() <= slot {
            cache.resize(slot + 1, None);
        }
        cache[slot] = Some(info.clone());
        Ok(info)
    }

    fn read(index: i32) -> Result<TypeInfo> {
        // SAFETY: tsb_type_info is plain C data; all zeros is valid.
        let mut raw: sys::tsb_type_info = unsafe { std::mem::zeroed() };
        raw.struct_size = std::mem::size_of::<sys::tsb_type_info>();
        // SAFETY: `raw` is a local with its struct_size set.
        check(unsafe { sys::tsb_type_get_info(index, &mut raw) })?;
        // SAFETY: `contained` holds num_contained indices (i < it), static in
        // the type registry (indices are never reused).
        let contained = (0..raw.num_contained).map(|i| Type(unsafe { *raw.contained.add(i) })).collect();
        let field_names = if raw.field_names.is_null() {
            Vec::new()
        } else {
            // SAFETY: non-NULL field_names holds num_fields names (i < it), static
            // in the type registry; c_str copies each.
            (0..raw.num_fields).map(|i| c_str(unsafe { *raw.field_names.add(i) })).collect()
        };
        Ok(TypeInfo {
            index,
            kind: Kind::from_raw(raw.kind),
            annotation: c_str(raw.annotation),
            name: c_str(raw.name),
            contained,
            field_names,
        })
    }
}
