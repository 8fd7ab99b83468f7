//! Device, dtype, layout and memory format: inline codes, c10's numbering
//! (fixed for ABI 1.x). Newtypes over the code, so a code a newer
//! LibTorch adds still comes through.
use crate::sys;
use crate::value::Value;

/// `c10::ScalarType` (tsb_dtype_code).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dtype(pub i32);

impl Dtype {
    pub const UINT8: Dtype = Dtype(0);
    pub const INT8: Dtype = Dtype(1);
    pub const INT16: Dtype = Dtype(2);
    pub const INT32: Dtype = Dtype(3);
    pub const INT64: Dtype = Dtype(4);
    pub const FLOAT16: Dtype = Dtype(5);
    pub const FLOAT32: Dtype = Dtype(6);
    pub const FLOAT64: Dtype = Dtype(7);
    pub const COMPLEX64: Dtype = Dtype(9);
    pub const COMPLEX128: Dtype = Dtype(10);
    pub const BOOL: Dtype = Dtype(11);
    pub const BFLOAT16: Dtype = Dtype(15);

    /// PyTorch's name: "float32", "int64", ...
    pub fn name(&self) -> String {
        const NAMES: [&str; 16] = [
            "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "complex32",
            "complex64", "complex128", "bool", "qint8", "quint8", "qint32", "bfloat16",
        ];
        NAMES.get(self.0 as usize).map_or_else(|| format!("dtype {}", self.0), |s| s.to_string())
    }
}

/// `c10::Layout` (tsb_layout_code).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Layout(pub i32);

impl Layout {
    pub const STRIDED: Layout = Layout(0);
    pub const SPARSE_COO: Layout = Layout(1);
    pub const SPARSE_CSR: Layout = Layout(2);
}

/// `c10::MemoryFormat` (tsb_memory_format_code).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemoryFormat(pub i32);

impl MemoryFormat {
    pub const CONTIGUOUS: MemoryFormat = MemoryFormat(0);
    pub const PRESERVE: MemoryFormat = MemoryFormat(1);
    pub const CHANNELS_LAST: MemoryFormat = MemoryFormat(2);
}

/// A device: `device_type` is c10's DeviceType (CPU 0, CUDA 1; not
/// DLPack's numbering), `index` -1 for none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Device {
    pub device_type: i32,
    pub index: i32,
}

impl Device {
    pub const CPU: Device = Device { device_type: 0, index: -1 };
    pub const CUDA_TYPE: i32 = 1;
}

fn inline(type_index: i32, i: i64) -> Value {
    // SAFETY: an inline value holds no reference: nothing to release twice.
    unsafe { Value::from_raw(sys::tsb_any::inline(type_index, i)) }
}

impl From<Dtype> for Value {
    fn from(d: Dtype) -> Value {
        inline(sys::TSB_TYPE_DTYPE, d.0 as i64)
    }
}
impl From<Layout> for Value {
    fn from(l: Layout) -> Value {
        inline(sys::TSB_TYPE_LAYOUT, l.0 as i64)
    }
}
impl From<MemoryFormat> for Value {
    fn from(m: MemoryFormat) -> Value {
        inline(sys::TSB_TYPE_MEMORY_FORMAT, m.0 as i64)
    }
}
impl From<Device> for Value {
    fn from(d: Device) -> Value {
        // tsb_any_device: the type in the high 32 bits, the index in the low.
        let packed = ((d.device_type as u32 as u64) << 32) | (d.index as u32 as u64);
        inline(sys::TSB_TYPE_DEVICE, packed as i64)
    }
}
