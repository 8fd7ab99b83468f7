//! LibTorch's autograd on tensors (docs/autograd.md): gradients accumulate
//! into the `.grad` of leaf tensors, as in PyTorch.
use crate::error::{check, Code, Error, Result};
use crate::sys;
use crate::tensor::Tensor;
use crate::value::Value;

impl Tensor {
    /// Sets requires_grad of a leaf tensor (a floating point or complex one
    /// for true). Every handle on the tensor sees it.
    pub fn set_requires_grad(&self, requires_grad: bool) -> Result<()> {
        // SAFETY: the tensor's value is live, borrowed for the call.
        check(unsafe { sys::tsb_tensor_set_requires_grad(self.value().as_raw(), requires_grad) })
    }
    pub fn requires_grad(&self) -> Result<bool> {
        let mut out = false;
        // SAFETY: the tensor's value is borrowed for the call; `out` is a local.
        check(unsafe { sys::tsb_tensor_get_requires_grad(self.value().as_raw(), &mut out) })?;
        Ok(out)
    }
    /// The accumulated gradient (the `.grad` tensor itself), or None when
    /// no backward has reached the tensor.
    pub fn grad(&self) -> Result<Option<Tensor>> {
        // SAFETY: the tensor's value is borrowed for the call; `o` is fill's slot.
        let g = Value::fill(|o| unsafe { sys::tsb_tensor_get_grad(self.value().as_raw(), o) })?;
        Ok(if g.type_index() == sys::TSB_TYPE_NONE { None } else { Some(Tensor::from_value(g)) })
    }
    /// Fills the `.grad` with zeros in place (nothing when there is none).
    pub fn zero_grad(&self) -> Result<()> {
        // SAFETY: the tensor's value is live, borrowed for the call.
        check(unsafe { sys::tsb_tensor_zero_grad(self.value().as_raw()) })
    }
    /// The same storage, outside any graph.
    pub fn detach(&self) -> Result<Tensor> {
        // SAFETY: the tensor's value is borrowed for the call; `o` is fill's slot.
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
    // The ABI reads one gradient per output: fewer would be read past the slice.
    if let Some(g) = grad_outputs.filter(|g| g.len() != outputs.len()) {
        let detail = format!("expected {} gradients (one per output), got {}", outputs.len(), g.len());
        return Err(Error::new(Code::InvalidArgument, "grad_outputs", &detail));
    }
    // Tensor is a Value is a tsb_any: the slices are arrays of tsb_any.
    let outs: Vec<sys::tsb_any> = outputs.iter().map(|t| *t.value().as_raw()).collect();
    let grads = grad_outputs.map_or(std::ptr::null(), |g| g.as_ptr() as *const sys::tsb_any);
    // SAFETY: `outs` holds outputs.len() values borrowed from `outputs`, alive
    // for the call; `grads` is NULL or, checked above, as many values.
    check(unsafe { sys::tsb_autograd_backward(outs.as_ptr(), outs.len(), grads, retain_graph) })
}

/// The calling thread's grad mode.
pub fn is_grad_enabled() -> Result<bool> {
    let mut out = false;
    // SAFETY: `out` is a local.
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
        // SAFETY: `previous` is a local.
        check(unsafe { sys::tsb_grad_mode_set(false, &mut previous) })?;
        Ok(NoGrad { previous, _not_send: std::marker::PhantomData })
    }
}

impl Drop for NoGrad {
    fn drop(&mut self) {
        // SAFETY: NULL for the previous mode is allowed; this guard is not Send,
        // so it restores the mode on the thread that set it.
        let status = unsafe { sys::tsb_grad_mode_set(self.previous, std::ptr::null_mut()) };
        let _ = check(status); // setting a mode back cannot fail meaningfully
    }
}
