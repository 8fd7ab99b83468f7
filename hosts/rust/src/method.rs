//! A module's method resolved once: its calls go by index
//! (`tsb_module_call_method`, ABI 1.9), with no lookup by name.
use crate::call::{with_args, Kwargs, Schema};
use crate::error::{Code, Error, Result};
use crate::module::Module;
use crate::sys;
use crate::value::Value;

/// A method of a module, found by `Module::find_method`. It borrows the
/// module, so it is `Send + Sync` as the module is, and calls from many
/// threads at once as the module's own `call` does.
#[derive(Debug)]
pub struct Method<'m> {
    module: &'m Module,
    index: usize,
    schema: Schema,
}

impl<'m> Method<'m> {
    pub(crate) fn find(module: &'m Module, name: &str) -> Result<Method<'m>> {
        let methods = module.methods()?;
        match methods.iter().position(|s| s.name == name) {
            Some(index) => Ok(Method { module, index, schema: methods.into_iter().nth(index).unwrap() }),
            None => {
                let names: Vec<&str> = methods.iter().map(|s| s.name.as_str()).collect();
                Err(Error::new(
                    Code::NotFound,
                    "",
                    &format!("expected a method of the module, got '{}' (it has: {})", name, names.join(", ")),
                ))
            }
        }
    }
    pub fn name(&self) -> &str {
        &self.schema.name
    }
    /// Its place in `Module::methods()`.
    pub fn index(&self) -> usize {
        self.index
    }
    pub fn schema(&self) -> &Schema {
        &self.schema
    }
    /// Calls it with positional arguments; defaults fill the rest.
    pub fn call(&self, args: &[Value]) -> Result<Value> {
        self.call_with(args, &[])
    }
    /// Calls it with positional and keyword arguments.
    pub fn call_with(&self, args: &[Value], kwargs: Kwargs) -> Result<Value> {
        let raw = self.module.as_raw();
        if crate::library_has(crate::ABI_1_9) {
            // SAFETY: `raw` is the module self borrows (alive for 'm); index came
            // from its methods(), and a module's methods do not change; `a` and `o` as in Module::call.
            return with_args(args, kwargs, |a| Value::fill(|o| unsafe { sys::tsb_module_call_method(raw, self.index, a, o) }));
        }
        // An older library (docs/abi.md: a newer host checks): by name.
        self.module.call_with(&self.schema.name, args, kwargs)
    }
}
