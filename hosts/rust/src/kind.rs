//! `Kind`: what a type is (tsbridge.h's `tsb_kind`).

/// Every kind the ABI has. A value's own kind is never `Optional`, `Union`,
/// `Any` or `Number`: those describe what may come (a schema's argument, a
/// contained type), and a value holding one has the member's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    None,
    Bool,
    Int,
    UInt,
    Float,
    Complex,
    Str,
    Tensor,
    Device,
    Dtype,
    Layout,
    MemoryFormat,
    Number,
    Any,
    List,
    Dict,
    Tuple,
    NamedTuple,
    Optional,
    Union,
    Enum,
    Object,
    CustomClass,
    /// A kind this crate does not know (a newer library), or INVALID.
    Other(i32),
}

impl Kind {
    pub fn from_raw(k: i32) -> Kind {
        match k {
            1 => Kind::None,
            2 => Kind::Bool,
            3 => Kind::Int,
            4 => Kind::Float,
            5 => Kind::Complex,
            6 => Kind::Str,
            7 => Kind::Tensor,
            8 => Kind::Device,
            9 => Kind::Dtype,
            10 => Kind::Layout,
            11 => Kind::MemoryFormat,
            12 => Kind::Number,
            13 => Kind::Any,
            14 => Kind::UInt,
            16 => Kind::List,
            17 => Kind::Dict,
            18 => Kind::Tuple,
            19 => Kind::NamedTuple,
            20 => Kind::Optional,
            21 => Kind::Union,
            22 => Kind::Enum,
            23 => Kind::Object,
            24 => Kind::CustomClass,
            other => Kind::Other(other),
        }
    }
}
