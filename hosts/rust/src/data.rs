//! `Data`: a value converted to Rust, one variant per kind, to match on.
use crate::error::{Code, Error, Result};
use crate::object::Object;
use crate::scalars::{Device, Dtype, Layout, MemoryFormat};
use crate::tensor::Tensor;
use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;

/// A TorchScript value as Rust data. Containers hold their items
/// converted; tensors, objects and custom classes stay handles.
/// `Optional[T]` comes out as `None` or T's variant, a `Union` as its
/// member's: no value has kind Optional, Union or Any.
#[derive(Clone, Debug)]
pub enum Data {
    None,
    Bool(bool),
    Int(i64),
    /// An `int` above `i64::MAX` (LibTorch 2.9 and newer hold one).
    UInt(u64),
    Float(f64),
    Complex { re: f64, im: f64 },
    Str(String),
    Tensor(Tensor),
    Device(Device),
    Dtype(Dtype),
    Layout(Layout),
    MemoryFormat(MemoryFormat),
    List(Vec<Data>),
    /// Any key type, in insertion order.
    Dict(Vec<(Data, Data)>),
    Tuple(Vec<Data>),
    /// `type_name` is qualified: "__torch__.Point", "torch.return_types.max".
    NamedTuple { type_name: String, fields: Vec<(String, Data)> },
    /// An Enum member: its type, member name and value (int, float or str).
    Enum { type_name: String, member: String, value: Box<Data> },
    /// A TorchScript class instance (fields and methods through `Object`).
    Object(Object),
    /// A torchbind class instance (methods only).
    CustomClass(Object),
}

impl Data {
    /// A dict from key/value pairs, in their order.
    pub fn dict<K: Into<Data>, V: Into<Data>>(pairs: Vec<(K, V)>) -> Data {
        Data::Dict(pairs.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
    }
    /// The name of the variant, for messages: "int", "List", "Tensor".
    pub fn kind_name(&self) -> &'static str {
        match self {
            Data::None => "None",
            Data::Bool(_) => "bool",
            Data::Int(_) | Data::UInt(_) => "int",
            Data::Float(_) => "float",
            Data::Complex { .. } => "complex",
            Data::Str(_) => "str",
            Data::Tensor(_) => "Tensor",
            Data::Device(_) => "Device",
            Data::Dtype(_) => "dtype",
            Data::Layout(_) => "Layout",
            Data::MemoryFormat(_) => "MemoryFormat",
            Data::List(_) => "List",
            Data::Dict(_) => "Dict",
            Data::Tuple(_) => "Tuple",
            Data::NamedTuple { .. } => "NamedTuple",
            Data::Enum { .. } => "Enum",
            Data::Object(_) => "Object",
            Data::CustomClass(_) => "CustomClass",
        }
    }
    fn mismatch(&self, expected: &str) -> Error {
        Error::new(Code::Type, "", &format!("expected {}, got {}", expected, self.kind_name()))
    }
}

macro_rules! data_from {
    ($t:ty, $variant:ident, $conv:expr) => {
        impl From<$t> for Data {
            fn from(x: $t) -> Data {
                Data::$variant($conv(x))
            }
        }
    };
}
data_from!(bool, Bool, |x| x);
data_from!(i64, Int, |x| x);
data_from!(i32, Int, |x: i32| x as i64);
data_from!(f64, Float, |x| x);
data_from!(String, Str, |x| x);
data_from!(&str, Str, |x: &str| x.to_string());
data_from!(Tensor, Tensor, |x| x);
data_from!(Device, Device, |x| x);
data_from!(Dtype, Dtype, |x| x);
data_from!(Layout, Layout, |x| x);
data_from!(MemoryFormat, MemoryFormat, |x| x);

impl From<u64> for Data {
    fn from(u: u64) -> Data {
        if u <= i64::MAX as u64 { Data::Int(u as i64) } else { Data::UInt(u) }
    }
}
impl<T: Into<Data>> From<Vec<T>> for Data {
    fn from(items: Vec<T>) -> Data {
        Data::List(items.into_iter().map(Into::into).collect())
    }
}
impl<T: Into<Data>> From<Option<T>> for Data {
    fn from(x: Option<T>) -> Data {
        x.map_or(Data::None, Into::into)
    }
}
impl<K: Into<Data>, V: Into<Data>> From<BTreeMap<K, V>> for Data {
    fn from(map: BTreeMap<K, V>) -> Data {
        Data::Dict(map.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
    }
}
/// A HashMap's order is its iteration order; use a BTreeMap or
/// `Data::dict` for a chosen one.
impl<K: Into<Data>, V: Into<Data>> From<HashMap<K, V>> for Data {
    fn from(map: HashMap<K, V>) -> Data {
        Data::Dict(map.into_iter().map(|(k, v)| (k.into(), v.into())).collect())
    }
}
impl<A: Into<Data>, B: Into<Data>> From<(A, B)> for Data {
    fn from((a, b): (A, B)) -> Data {
        Data::Tuple(vec![a.into(), b.into()])
    }
}
impl<A: Into<Data>, B: Into<Data>, C: Into<Data>> From<(A, B, C)> for Data {
    fn from((a, b, c): (A, B, C)) -> Data {
        Data::Tuple(vec![a.into(), b.into(), c.into()])
    }
}

// Out: Data into Rust values, failing with what was expected and found.

/// A Rust type a `Data` converts to (`Value::get`). The types here other
/// than `Option` (which std's blanket impl reserves) also have
/// `TryFrom<Data>`.
pub trait FromData: Sized {
    fn from_data(d: Data) -> Result<Self>;
}

macro_rules! try_from_data {
    ($t:ty $(; $($g:ident),*)?) => {
        impl$(<$($g: FromData),*>)? TryFrom<Data> for $t {
            type Error = Error;
            fn try_from(d: Data) -> Result<$t> {
                <$t as FromData>::from_data(d)
            }
        }
    };
}
try_from_data!(bool);
try_from_data!(i64);
try_from_data!(u64);
try_from_data!(f64);
try_from_data!(String);
try_from_data!(Tensor);
try_from_data!(Vec<T>; T);
try_from_data!((A, B); A, B);

// The Rust types one variant of Data holds as it is.
macro_rules! from_variant {
    ($($ty:ty, $variant:ident, $name:expr);* $(;)?) => {$(
        impl FromData for $ty {
            fn from_data(d: Data) -> Result<$ty> {
                match d {
                    Data::$variant(x) => Ok(x),
                    other => Err(other.mismatch($name)),
                }
            }
        }
    )*};
}
from_variant!(bool, Bool, "bool"; i64, Int, "int"; String, Str, "str"; Tensor, Tensor, "Tensor");
impl FromData for u64 {
    fn from_data(d: Data) -> Result<u64> {
        match d {
            Data::UInt(u) => Ok(u),
            Data::Int(i) if i >= 0 => Ok(i as u64),
            other => Err(other.mismatch("a non-negative int")),
        }
    }
}
impl FromData for f64 {
    fn from_data(d: Data) -> Result<f64> {
        match d {
            Data::Float(x) => Ok(x),
            Data::Int(i) => Ok(i as f64),
            other => Err(other.mismatch("float")),
        }
    }
}
impl<T: FromData> FromData for Option<T> {
    fn from_data(d: Data) -> Result<Option<T>> {
        match d {
            Data::None => Ok(None),
            other => T::from_data(other).map(Some),
        }
    }
}
impl<T: FromData> FromData for Vec<T> {
    fn from_data(d: Data) -> Result<Vec<T>> {
        match d {
            Data::List(items) | Data::Tuple(items) => items
                .into_iter()
                .enumerate()
                .map(|(i, x)| T::from_data(x).map_err(|e| e.within(&format!("[{}]", i))))
                .collect(),
            other => Err(other.mismatch("List")),
        }
    }
}

fn dict_pairs<K, V>(d: Data) -> Result<Vec<(K, V)>>
where
    K: FromData,
    V: FromData,
{
    match d {
        Data::Dict(pairs) => pairs
            .into_iter()
            .enumerate()
            .map(|(i, (k, v))| {
                let k = K::from_data(k).map_err(|e| e.within(&format!("keys[{}]", i)))?;
                let v = V::from_data(v).map_err(|e| e.within(&format!("values[{}]", i)))?;
                Ok((k, v))
            })
            .collect(),
        other => Err(other.mismatch("Dict")),
    }
}
impl<K, V> FromData for BTreeMap<K, V>
where
    K: FromData + Ord,
    V: FromData,
{
    fn from_data(d: Data) -> Result<BTreeMap<K, V>> {
        Ok(dict_pairs(d)?.into_iter().collect())
    }
}
impl<K, V> FromData for HashMap<K, V>
where
    K: FromData + Eq + Hash,
    V: FromData,
{
    fn from_data(d: Data) -> Result<HashMap<K, V>> {
        Ok(dict_pairs(d)?.into_iter().collect())
    }
}
impl<A, B> FromData for (A, B)
where
    A: FromData,
    B: FromData,
{
    fn from_data(d: Data) -> Result<(A, B)> {
        let items = match d {
            Data::Tuple(items) | Data::List(items) => items,
            Data::NamedTuple { fields, .. } => fields.into_iter().map(|(_, v)| v).collect(),
            other => return Err(other.mismatch("a Tuple of 2")),
        };
        if items.len() != 2 {
            return Err(Error::new(Code::Type, "", &format!("expected a Tuple of 2, got {} items", items.len())));
        }
        let mut it = items.into_iter();
        let a = A::from_data(it.next().unwrap()).map_err(|e| e.within("[0]"))?;
        let b = B::from_data(it.next().unwrap()).map_err(|e| e.within("[1]"))?;
        Ok((a, b))
    }
}
impl<K: FromData + Ord, V: FromData> TryFrom<Data> for BTreeMap<K, V> {
    type Error = Error;
    fn try_from(d: Data) -> Result<BTreeMap<K, V>> {
        <BTreeMap<K, V> as FromData>::from_data(d)
    }
}
impl<K: FromData + Eq + Hash, V: FromData> TryFrom<Data> for HashMap<K, V> {
    type Error = Error;
    fn try_from(d: Data) -> Result<HashMap<K, V>> {
        <HashMap<K, V> as FromData>::from_data(d)
    }
}
