//! Tensors: metadata without an export (`tsb_tensor_get_info`), and zero
//! copy to and from Rust buffers through DLPack.
use crate::error::{check, Code, Error, Result};
use crate::scalars::{Device, Dtype, Layout};
use crate::sys::{self, DLDataType, DLManagedTensor};
use crate::value::Value;
use std::os::raw::c_void;

/// A tensor: a handle on LibTorch's tensor (autograd included).
#[derive(Clone, Debug)]
pub struct Tensor(Value);

/// What a tensor is, read without exporting it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorInfo {
    pub dtype: Dtype,
    pub layout: Layout,
    pub device: Device,
    pub shape: Vec<i64>,
    /// In elements; None for a layout other than strided.
    pub strides: Option<Vec<i64>>,
    pub storage_offset: i64,
    pub numel: i64,
    pub requires_grad: bool,
    pub is_contiguous: bool,
}

/// A Rust element type a tensor can hold, with its DLPack type.
pub trait Element: Copy + 'static {
    const DL: DLDataType;
    const DTYPE: Dtype;
}
macro_rules! element {
    ($t:ty, $code:expr, $dtype:expr) => {
        impl Element for $t {
            const DL: DLDataType = DLDataType { code: $code, bits: (std::mem::size_of::<$t>() * 8) as u8, lanes: 1 };
            const DTYPE: Dtype = $dtype;
        }
    };
}
element!(f32, sys::TSB_DLPACK_FLOAT, Dtype::FLOAT32);
element!(f64, sys::TSB_DLPACK_FLOAT, Dtype::FLOAT64);
element!(i64, sys::TSB_DLPACK_INT, Dtype::INT64);
element!(i32, sys::TSB_DLPACK_INT, Dtype::INT32);
element!(i16, sys::TSB_DLPACK_INT, Dtype::INT16);
element!(i8, sys::TSB_DLPACK_INT, Dtype::INT8);
element!(u8, sys::TSB_DLPACK_UINT, Dtype::UINT8);
element!(bool, sys::TSB_DLPACK_BOOL, Dtype::BOOL);

/// What a tensor made from a Vec owns: freed by DLPack's deleter when the
/// tensor's last reference goes. `managed` first: its address is the box's.
#[repr(C)]
struct Lent<T> {
    managed: DLManagedTensor,
    data: Vec<T>,
    shape: Vec<i64>,
}

unsafe extern "C" fn drop_lent<T>(managed: *mut DLManagedTensor) {
    // SAFETY: `managed` is the first field of a repr(C) Lent<T> that
    // from_vec leaked with Box::into_raw, so it is that box's address; DLPack
    // calls the deleter once (or from_vec does, when the import refused).
    drop(unsafe { Box::from_raw(managed as *mut Lent<T>) });
}

fn mismatch(detail: String) -> Error {
    Error::new(Code::Type, "", &detail)
}

impl Tensor {
    pub(crate) fn from_value(v: Value) -> Tensor {
        Tensor(v)
    }
    /// The value, to pass to a call.
    pub fn value(&self) -> &Value {
        &self.0
    }
    pub fn into_value(self) -> Value {
        self.0
    }

    /// A tensor over `data` without a copy: the Vec moves into the tensor
    /// and is dropped when LibTorch lets the tensor go.
    pub fn from_vec<T: Element>(data: Vec<T>, shape: &[i64]) -> Result<Tensor> {
        let numel: i64 = shape.iter().product();
        if shape.iter().any(|&d| d < 0) || numel as usize != data.len() {
            return Err(Error::new(
                Code::InvalidArgument,
                "",
                &format!("expected {} elements for shape {:?}, got {}", numel.max(0), shape, data.len()),
            ));
        }
        let mut lent = Box::new(Lent {
            // SAFETY: DLManagedTensor is plain C data (pointers, integers and an
            // Option of a fn pointer), for which all zeros is valid (NULL, None).
            managed: unsafe { std::mem::zeroed() },
            data,
            shape: shape.to_vec(),
        });
        let t = &mut lent.managed.dl_tensor;
        t.data = lent.data.as_mut_ptr() as *mut c_void;
        t.device = sys::DLDevice { device_type: sys::KDL_CPU, device_id: 0 };
        t.ndim = shape.len() as i32;
        t.dtype = T::DL;
        t.shape = lent.shape.as_mut_ptr();
        t.strides = std::ptr::null_mut(); // compact row-major
        t.byte_offset = 0;
        lent.managed.deleter = Some(drop_lent::<T>);
        let managed = Box::into_raw(lent) as *mut DLManagedTensor;
        let mut raw = sys::tsb_any::invalid();
        // SAFETY: `managed` is a complete DLManagedTensor whose data, shape
        // and deleter live in the leaked box until the deleter runs.
        let status = unsafe { sys::tsb_tensor_from_dlpack(managed, &mut raw) };
        if let Err(e) = check(status) {
            // SAFETY: on failure ownership stayed here (the header's promise):
            // the deleter was not called, so this is the box's one drop.
            unsafe { drop_lent::<T>(managed) };
            return Err(e);
        }
        // SAFETY: a successful import filled `raw` with a new reference.
        Ok(Tensor(unsafe { Value::from_raw(raw) }))
    }
    /// A tensor holding a copy of `data`.
    pub fn from_slice<T: Element>(data: &[T], shape: &[i64]) -> Result<Tensor> {
        Tensor::from_vec(data.to_vec(), shape)
    }

    /// Dtype, layout, device, shape, strides: read without an export.
    pub fn info(&self) -> Result<TensorInfo> {
        // SAFETY: tsb_tensor_info is plain C data; all zeros is valid.
        let mut raw: sys::tsb_tensor_info = unsafe { std::mem::zeroed() };
        raw.struct_size = std::mem::size_of::<sys::tsb_tensor_info>();
        // SAFETY: self.0 is a live value (borrowed for the call), `raw` a local.
        check(unsafe { sys::tsb_tensor_get_info(self.0.as_raw(), &mut raw) })?;
        // SAFETY: sizes and strides hold ndim items (read only for ndim > 0,
        // so non-NULL), valid while the tensor lives: self borrows it here.
        let read = |p: *const i64| unsafe { std::slice::from_raw_parts(p, raw.ndim) }.to_vec();
        Ok(TensorInfo {
            dtype: Dtype(raw.dtype),
            layout: Layout(raw.layout),
            device: Device { device_type: raw.device_type, index: raw.device_index },
            shape: if raw.ndim == 0 { Vec::new() } else { read(raw.sizes) },
            strides: if raw.strides.is_null() { None } else if raw.ndim == 0 { Some(Vec::new()) } else { Some(read(raw.strides)) },
            storage_offset: raw.storage_offset,
            numel: raw.numel,
            requires_grad: raw.requires_grad,
            is_contiguous: raw.is_contiguous,
        })
    }
    pub fn shape(&self) -> Result<Vec<i64>> {
        Ok(self.info()?.shape)
    }

    /// A zero-copy view of the tensor's memory (CPU tensors), kept alive
    /// until the view is dropped.
    pub fn view<T: Element>(&self) -> Result<TensorView<T>> {
        let mut managed: *mut DLManagedTensor = std::ptr::null_mut();
        // SAFETY: self.0 is a live value; on success `managed` is an export
        // owned by the view made next, whose Drop calls its deleter once.
        check(unsafe { sys::tsb_tensor_to_dlpack(self.0.as_raw(), &mut managed) })?;
        let view = TensorView { managed, marker: std::marker::PhantomData };
        let t = view.dl();
        if t.device.device_type != sys::KDL_CPU {
            return Err(Error::new(Code::Unsupported, "", &format!("expected a CPU tensor, got DLPack device type {}", t.device.device_type)));
        }
        // Only a bool tensor is read as bool: a uint8 byte other than 0 or 1
        // is no bool Rust may hold, and an older DLPack says uint8 for both.
        let readable = if T::DL.code == sys::TSB_DLPACK_BOOL { self.info()?.dtype == Dtype::BOOL } else { t.dtype == T::DL };
        if !readable {
            let info = self.info().map(|i| i.dtype.name()).unwrap_or_else(|_| format!("{:?}", t.dtype));
            return Err(mismatch(format!("expected a {} tensor, got {}", T::DTYPE.name(), info)));
        }
        Ok(view)
    }
    /// The elements in row-major order, copied (any strides).
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        let view = self.view::<T>()?;
        Ok(view.to_vec())
    }
}

/// A tensor's memory lent to Rust through DLPack; its deleter runs on drop.
pub struct TensorView<T: Element> {
    managed: *mut DLManagedTensor,
    marker: std::marker::PhantomData<T>,
}

impl<T: Element> TensorView<T> {
    fn dl(&self) -> &sys::DLTensor {
        // SAFETY: `managed` is the non-NULL export `view` made, alive until
        // this view's Drop; the reference does not outlive &self.
        unsafe { &(*self.managed).dl_tensor }
    }
    pub fn shape(&self) -> &[i64] {
        let t = self.dl();
        // SAFETY: DLPack's shape holds ndim items, alive with the export.
        if t.ndim == 0 { &[] } else { unsafe { std::slice::from_raw_parts(t.shape, t.ndim as usize) } }
    }
    /// Strides in elements (DLPack's export always gives them).
    pub fn strides(&self) -> Vec<i64> {
        let t = self.dl();
        if t.strides.is_null() {
            let mut s = vec![1i64; t.ndim as usize];
            for i in (0..s.len().saturating_sub(1)).rev() {
                s[i] = s[i + 1] * self.shape()[i + 1];
            }
            return s;
        }
        // SAFETY: non-NULL strides hold ndim items, alive with the export.
        unsafe { std::slice::from_raw_parts(t.strides, t.ndim as usize) }.to_vec()
    }
    /// Where element [0, 0, ...] is (NULL for an empty tensor without storage).
    pub fn as_ptr(&self) -> *const T {
        let t = self.dl();
        // wrapping_add: no pointer arithmetic on a NULL data pointer is UB.
        (t.data as *const u8).wrapping_add(t.byte_offset as usize) as *const T
    }
    pub fn numel(&self) -> usize {
        self.shape().iter().product::<i64>() as usize
    }
    fn is_compact(&self) -> bool {
        let shape = self.shape();
        let mut expected = 1i64;
        for (d, s) in shape.iter().zip(self.strides()).rev() {
            if *d != 1 && s != expected {
                return false;
            }
            expected *= d;
        }
        true
    }
    /// The elements as a slice, when they are compact row-major.
    pub fn as_slice(&self) -> Option<&[T]> {
        if !self.is_compact() {
            return None;
        }
        if self.numel() == 0 {
            return Some(&[]); // an empty tensor's data may be NULL
        }
        // SAFETY: numel() compact elements of T (view checked the dtype; a
        // bool tensor holds 0 or 1 only) start at as_ptr(), aligned since
        // LibTorch allocates storage aligned beyond any element and offsets
        // by whole elements; the export keeps the storage alive while the
        // slice borrows self.
        Some(unsafe { std::slice::from_raw_parts(self.as_ptr(), self.numel()) })
    }
    /// The elements in row-major order, following the strides.
    pub fn to_vec(&self) -> Vec<T> {
        if let Some(s) = self.as_slice() {
            return s.to_vec();
        }
        let (shape, strides) = (self.shape().to_vec(), self.strides());
        let mut out = Vec::with_capacity(self.numel());
        let mut index = vec![0i64; shape.len()];
        for _ in 0..self.numel() {
            let offset: i64 = index.iter().zip(&strides).map(|(i, s)| i * s).sum();
            // SAFETY: `index` stays within shape, so the strided offset is
            // an element of the export's storage (numel() > 0 here).
            out.push(unsafe { *self.as_ptr().offset(offset as isize) });
            for d in (0..shape.len()).rev() {
                index[d] += 1;
                if index[d] < shape[d] {
                    break;
                }
                index[d] = 0;
            }
        }
        out
    }
}

impl<T: Element> Drop for TensorView<T> {
    fn drop(&mut self) {
        // SAFETY: the view owns the export: its deleter runs here, once.
        unsafe {
            if let Some(deleter) = (*self.managed).deleter {
                deleter(self.managed);
            }
        }
    }
}

impl From<Tensor> for Value {
    fn from(t: Tensor) -> Value {
        t.0
    }
}
