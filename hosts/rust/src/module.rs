//! Modules: TorchScript archives, compiled source, traced closures and
//! `.pt2` AOTInductor packages, all through `tsb_module`.
use crate::call::{empty_schema_info, with_args, with_cstr, Kwargs, Schema};
use crate::error::{c_str, check, listed, Result};
use crate::method::Method;
use crate::sys;
use crate::tensor::Tensor;
use crate::types::Type;
use crate::value::{cstring, owned_bytes, owned_string, Value};
use std::os::raw::c_char;
use std::path::Path;

/// A loaded module. `Send + Sync`, as the ABI promises: many threads may
/// call one module at once (`call` takes `&self`); the setters change it
/// in place and must not run beside any other use, so they take `&mut self`.
pub struct Module {
    raw: *mut sys::tsb_module,
}

// SAFETY: tsb_module's comment in the header: a module may be freed on
// any thread, and `raw` is owned by this Module alone (freed once, in Drop).
unsafe impl Send for Module {}
// SAFETY: the same comment: many threads may call one module and its
// getters at once (all take &self here); the setters, which must not run
// beside any other use, take &mut self (a child from children() shares its
// parent's state, which the borrow does not see: docs/rust.md, "Unsafe code").
unsafe impl Sync for Module {}

impl std::fmt::Debug for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Module({:p})", self.raw)
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: `raw` is the module this Module owns (fill_module sets it only
        // on success, non-NULL); Drop runs once.
        unsafe { sys::tsb_module_free(self.raw) }
    }
}

fn path_cstring(path: &Path) -> std::ffi::CString {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap_or_default()
}

pub(crate) fn fill_module(f: impl FnOnce(*mut *mut sys::tsb_module) -> *mut sys::tsb_status) -> Result<Module> {
    let mut raw: *mut sys::tsb_module = std::ptr::null_mut();
    check(f(&mut raw))?;
    Ok(Module { raw })
}

impl Module {
    /// Loads a file torch.jit.save wrote, or a `.pt2` AOTInductor package
    /// (LibTorch 2.6 or newer; an older one refuses it as unsupported).
    pub fn load<P: AsRef<Path>>(path: P) -> Result<Module> {
        crate::init();
        let path = path_cstring(path.as_ref());
        // SAFETY: `path` is a CString alive for the call; `o` is fill_module's slot.
        fill_module(|o| unsafe { sys::tsb_module_load(path.as_ptr(), o) })
    }
    /// A module from the bytes of a TorchScript archive.
    pub fn read(bytes: &[u8]) -> Result<Module> {
        crate::init();
        // SAFETY: pointer and length of one slice, read during the call; `o` is fill_module's slot.
        fill_module(|o| unsafe { sys::tsb_module_read(bytes.as_ptr() as *const c_char, bytes.len(), o) })
    }
    /// Compiles TorchScript source: defs taking `self` become methods of a
    /// module, others free functions called by name.
    pub fn compile(source: &str) -> Result<Module> {
        crate::init();
        let source = cstring(source);
        // SAFETY: `source` is a CString alive for the call; `o` is fill_module's slot.
        fill_module(|o| unsafe { sys::tsb_module_compile(source.as_ptr(), o) })
    }
    pub fn save<P: AsRef<Path>>(&self, path: P) -> Result<()> {
        let path = path_cstring(path.as_ref());
        // SAFETY: self.raw is live while self is; `path` is a CString alive for the call.
        check(unsafe { sys::tsb_module_save(self.raw, path.as_ptr()) })
    }
    /// The bytes `save` would write.
    pub fn write(&self) -> Result<Vec<u8>> {
        // SAFETY: self.raw is live while self is; owned_bytes frees the bytes.
        owned_bytes(|d, n| unsafe { sys::tsb_module_write(self.raw, d, n) })
    }
    pub fn as_raw(&self) -> *mut sys::tsb_module {
        self.raw
    }

    /// Calls a method with positional arguments; defaults fill the rest.
    pub fn call(&self, method: &str, args: &[Value]) -> Result<Value> {
        self.call_with(method, args, &[])
    }
    /// Calls a method with positional and keyword arguments.
    pub fn call_with(&self, method: &str, args: &[Value], kwargs: Kwargs) -> Result<Value> {
        // The ABI's call takes a non-const module but is safe from many
        // threads (tsb_module's comment).
        with_cstr(method, |m| {
            // SAFETY: self.raw is live while self is (the ABI allows calls from many
            // threads at once); `m` and `a` live through the call; `o` is fill's slot.
            with_args(args, kwargs, |a| Value::fill(|o| unsafe { sys::tsb_module_call(self.raw, m, a, o) }))
        })
    }
    pub fn forward(&self, args: &[Value]) -> Result<Value> {
        self.call("forward", args)
    }

    pub fn methods(&self) -> Result<Vec<Schema>> {
        // SAFETY: self.raw is live while self is; `n` is listed's local.
        listed(|n| unsafe { sys::tsb_module_count_methods(self.raw, n) }, |i| {
            let mut raw = empty_schema_info();
            // SAFETY: self.raw is live; `raw` is a local whose pointers stay valid
            // while the module lives, read by from_raw before self is released.
            check(unsafe { sys::tsb_module_get_method(self.raw, i, &mut raw) })?;
            Schema::from_raw(&raw)
        })
    }
    pub fn method(&self, name: &str) -> Result<Option<Schema>> {
        Ok(self.methods()?.into_iter().find(|s| s.name == name))
    }
    /// The method `name`, resolved once: its calls skip the lookup by name.
    /// `Code::NotFound` naming it (and the module's methods) if absent.
    pub fn find_method(&self, name: &str) -> Result<Method<'_>> {
        Method::find(self, name)
    }

    /// A type annotation where the classes, NamedTuples and Enums this
    /// module declares are known ("__torch__.Point", "List[__torch__.Color]").
    pub fn parse_type(&self, annotation: &str) -> Result<Type> {
        let text = cstring(annotation);
        let mut index = 0i32;
        // SAFETY: self.raw is live; `text` a CString alive for the call; `index` a local.
        check(unsafe { sys::tsb_module_parse_type(self.raw, text.as_ptr(), &mut index) })?;
        Ok(Type::from_index(index))
    }

    pub fn training(&self) -> Result<bool> {
        let mut out = false;
        // SAFETY: self.raw is live; `out` is a local.
        check(unsafe { sys::tsb_module_get_training(self.raw, &mut out) })?;
        Ok(out)
    }
    /// Module.train(mode), recursively.
    pub fn set_training(&mut self, training: bool) -> Result<()> {
        // SAFETY: self.raw is live, and &mut self: no other use beside this setter.
        check(unsafe { sys::tsb_module_set_training(self.raw, training) })
    }
    pub fn eval(&mut self) -> Result<()> {
        self.set_training(false)
    }

    fn named(
        &self,
        count: unsafe extern "C" fn(*const sys::tsb_module, *mut usize) -> *mut sys::tsb_status,
        get: unsafe extern "C" fn(*const sys::tsb_module, usize, *mut *const c_char, *mut sys::tsb_any) -> *mut sys::tsb_status,
    ) -> Result<Vec<(String, Tensor)>> {
        // SAFETY: `count` is one of the header's count functions; self.raw is live.
        listed(|n| unsafe { count(self.raw, n) }, |i| {
            let mut name: *const c_char = std::ptr::null();
            // SAFETY: `get` is the matching getter and i < its count; `name` (valid
            // while the module lives) is copied by c_str before self is released.
            let v = Value::fill(|o| unsafe { get(self.raw, i, &mut name, o) })?;
            Ok((c_str(name), Tensor::from_value(v)))
        })
    }
    /// named_parameters(): the module's own tensors, by dotted name.
    pub fn parameters(&self) -> Result<Vec<(String, Tensor)>> {
        self.named(sys::tsb_module_count_parameters, sys::tsb_module_get_parameter)
    }
    pub fn buffers(&self) -> Result<Vec<(String, Tensor)>> {
        self.named(sys::tsb_module_count_buffers, sys::tsb_module_get_buffer)
    }
    /// named_children(): submodules sharing the parent's state.
    pub fn children(&self) -> Result<Vec<(String, Module)>> {
        // SAFETY: self.raw is live; `n` is listed's local.
        listed(|n| unsafe { sys::tsb_module_count_children(self.raw, n) }, |i| {
            let mut name: *const c_char = std::ptr::null();
            // SAFETY: self.raw is live and i < its count; the child is a module of
            // its own (freed by its Module); `name` is copied while self lives.
            let child = fill_module(|o| unsafe { sys::tsb_module_get_child(self.raw, i, &mut name, o) })?;
            Ok((c_str(name), child))
        })
    }
    /// state_dict(): a `Dict[str, Tensor]` of the module's own tensors.
    pub fn state(&self) -> Result<Value> {
        // SAFETY: self.raw is live; `o` is fill's slot.
        Value::fill(|o| unsafe { sys::tsb_module_get_state(self.raw, o) })
    }
    /// load_state_dict(), checked before anything is copied.
    pub fn set_state(&mut self, state: &Value, strict: bool) -> Result<()> {
        // SAFETY: self.raw is live, &mut self; the state value is borrowed for the call.
        check(unsafe { sys::tsb_module_set_state(self.raw, state.as_raw(), strict) })
    }
    /// register_parameter() (or register_buffer() with `is_buffer`).
    pub fn set_parameter(&mut self, name: &str, tensor: &Tensor, is_buffer: bool) -> Result<()> {
        let name = cstring(name);
        // SAFETY: self.raw is live, &mut self; `name` a CString and the tensor's
        // value borrowed for the call.
        check(unsafe { sys::tsb_module_set_parameter(self.raw, name.as_ptr(), tensor.value().as_raw(), is_buffer) })
    }
    pub fn attribute_names(&self) -> Result<Vec<String>> {
        // SAFETY: self.raw is live; `n` is listed's local.
        listed(|n| unsafe { sys::tsb_module_count_attributes(self.raw, n) }, |i| {
            let mut name: *const c_char = std::ptr::null();
            // SAFETY: self.raw is live and i < its count; `name` is copied by c_str
            // while self lives.
            check(unsafe { sys::tsb_module_get_attribute_name(self.raw, i, &mut name) })?;
            Ok(c_str(name))
        })
    }
    pub fn attribute(&self, name: &str) -> Result<Value> {
        let name = cstring(name);
        // SAFETY: self.raw is live; `name` a CString alive for the call; `o` fill's slot.
        Value::fill(|o| unsafe { sys::tsb_module_get_attribute(self.raw, name.as_ptr(), o) })
    }
    /// Sets an attribute, converted to its declared type.
    pub fn set_attribute(&mut self, name: &str, value: &Value) -> Result<()> {
        let name = cstring(name);
        // SAFETY: self.raw is live, &mut self; `name` and the value borrowed for the call.
        check(unsafe { sys::tsb_module_set_attribute(self.raw, name.as_ptr(), value.as_raw()) })
    }
    /// The class's TorchScript source (Module.code).
    pub fn code(&self) -> Result<String> {
        // SAFETY: self.raw is live; owned_string frees the text.
        owned_string(|o| unsafe { sys::tsb_module_get_code(self.raw, o) })
    }
    pub fn graph(&self, method: &str) -> Result<String> {
        let method = cstring(method);
        // SAFETY: self.raw is live; `method` a CString alive for the call.
        owned_string(|o| unsafe { sys::tsb_module_get_graph(self.raw, method.as_ptr(), o) })
    }
}
