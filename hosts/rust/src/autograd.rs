//! LibTorch's autograd on tensors (docs/autograd.md): gradients accumulate
//! into the `.grad` of leaf tensors, as in PyTorch.
use crate::error::{check, Result};
use crate::sys;
use crate::tensor::Tensor;
use crate::value::Value;

impl Tensor {
    /// Sets requires_grad of a leaf tensor (a floating point or complex one
    /// for true). Every handle on the tensor sees it.
    pub fn set_requires_grad(&self, requires_grad: bool) -> Result<()> {
        check(unsafe { sys::tsb_tensor_set_requires_grad(self.value().as_raw(), requires_grad) })
    }
    pub fn requires_grad(&self) -> Result<bool> {
        let mut out = false;
        check(unsafe { sys::tsb_tensor_get_requires_grad(self.value().as_raw(), &mut out) })?;
        Ok(out)
    }
    /// The accumulated gradient (the `.grad` tensor itself), or None when
    /// no backward has reached the tensor.
    pub fn grad(&self) -> Result<Option<Tensor>> {
        let g = Value::fill(|o| unsafe { sys::tsb_tensor_get_grad(self.value().as_raw(), o) })?;
        Ok(if g.type_index() == sys::TSB_TYPE_NONE { None } else { Some(Tensor::from_value(g)) })
    }
    /// Fills the `.grad` with zeros in place (nothing when there is none).
    pub fn zero_grad(&self) -> Result<()> {
        check(unsafe { sys::tsb_tensor_zero_grad(self.value().as_raw()) })
    }
    /// The same storage, outside any graph.
    pub fn detach(&self) -> Result<Tensor> {
        Value::fill(|o| unsafe { sys::tsb_tensor_detach(self.value().as_raw(), o) }).map(Tensor::from_value)
    }
    /// `loss.backward()`: a one-element tensor that requires grad.
    pub fn backward(&self) -> Result<()> {
        backward(std::slice::from_ref(self), None, false)
    }
}

/// torch.autograd.backward from `outputs`; `grad_outputs` one value per
/// output (a tensor of its shape, or None for a one-element output).
pub fn backward(outputs: &[Tensor], grad_outputs: Option<&[Value]>, retain_graph: bool) -> Result<()> {
    // Tensor is a Value is a tsb_any: the slices are arrays of tsb_any.
    let outs: Vec<sys::tsb_any> = outputs.iter().map(|t| *t.value().as_raw()).collect();
    let grads = grad_outputs.map_or(std::ptr::null(), |g| g.as_ptr() as *const sys::tsb_any);
    check(unsafe { sys::tsb_autograd_backward(outs.as_ptr(), outs.len(), grads, retain_graph) })
}

/// The calling thread's grad mode.
pub fn is_grad_enabled() -> Result<bool> {
    let mut out = false;
    check(unsafe { sys::tsb_grad_mode_get(&mut out) })?;
    Ok(out)
}

/// torch.no_grad(): grad mode off on this thread until the guard drops.
/// Not `Send`: grad mode is per thread.
pub struct NoGrad {
    previous: bool,
    _not_send: std::marker::PhantomData<*const ()>,
}

impl NoGrad {
    pub fn new() -> Result<NoGrad> {
        let mut previous = true;
        check(unsafe { sys::tsb_grad_mode_set(false, &mut previous) })?;
        Ok(NoGrad { previous, _not_send: std::marker::PhantomData })
    }
}

impl Drop for NoGrad {
    fn drop(&mut self) {
        let status = unsafe { sys::tsb_grad_mode_set(self.previous, std::ptr::null_mut()) };
        let _ = check(status); // setting a mode back cannot fail meaningfully
    }
}
