//! TorchScript class instances and torchbind custom class instances.
use crate::call::{with_args, with_cstr, Kwargs};
use crate::error::Result;
use crate::sys;
use crate::types::TypeInfo;
use crate::value::{owned_bytes, Value};
use std::os::raw::c_char;
use std::sync::Arc;

/// An instance of a TorchScript class (fields and methods) or of a
/// torchbind class (methods only): a handle, shared with TorchScript.
#[derive(Clone, Debug)]
pub struct Object {
    value: Value,
    info: Arc<TypeInfo>,
}

impl Object {
    pub(crate) fn from_value(value: Value, info: Arc<TypeInfo>) -> Object {
        Object { value, info }
    }
    /// The qualified class name: "__torch__.Counter".
    pub fn class_name(&self) -> &str {
        &self.info.name
    }
    /// The attribute names of a TorchScript class (none for torchbind).
    pub fn field_names(&self) -> &[String] {
        &self.info.field_names
    }
    pub fn field(&self, name: &str) -> Result<Value> {
        self.value.field(name)
    }
    /// Calls a method; arguments are converted to its schema.
    pub fn call(&self, method: &str, args: &[Value]) -> Result<Value> {
        self.call_with(method, args, &[])
    }
    pub fn call_with(&self, method: &str, args: &[Value], kwargs: Kwargs) -> Result<Value> {
        with_cstr(method, |m| {
            // SAFETY: the object's value is live while self is; `m` and `a` live
            // through the call; `o` is fill's slot.
            with_args(args, kwargs, |a| Value::fill(|o| unsafe { sys::tsb_object_call(self.value.as_raw(), m, a, o) }))
        })
    }
    /// A TorchScript archive holding the object, with its class's code.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        // SAFETY: the object's value is borrowed for the call; owned_bytes frees the bytes.
        owned_bytes(|d, n| unsafe { sys::tsb_object_write(self.value.as_raw(), d, n) })
    }
    /// The object from `to_bytes`'s bytes, as a value.
    pub fn from_bytes(bytes: &[u8]) -> Result<Value> {
        // SAFETY: pointer and length of one slice, read during the call; `o` is fill's slot.
        Value::fill(|o| unsafe { sys::tsb_object_read(bytes.as_ptr() as *const c_char, bytes.len(), o) })
    }
    pub fn value(&self) -> &Value {
        &self.value
    }
}
