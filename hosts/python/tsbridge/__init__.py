"""tsbridge for Python: TorchScript values, modules and operators through
tsbridge's C ABI (sdk/include/tsbridge/tsbridge.h), converted generically.

    import tsbridge
    m = tsbridge.load("model.pt")
    y = m.forward(x, scale=2.0)          # help(m.forward) shows the schema
    tsbridge.ops.aten.add(a, b)
    traced = tsbridge.trace(lambda x: tsbridge.ops.aten.mul(x, 2.0), [x])

See docs/python.md for the mapping of every kind to a Python type.
"""
import inspect as _inspect
import json as _json

from . import _errors, _native, _types
from ._errors import (AlreadyExistsError, Error, InternalError,  # noqa: F401
                      InvalidArgumentError, NoMemoryError, NotFoundError,
                      OutOfRangeError, TorchError, TypeMismatchError,
                      UnsupportedError)
from ._types import Object, Tensor  # noqa: F401
from . import autograd  # noqa: F401,E402

HAS_TORCH = _native._init(_errors, _types)
# Whether torch.Tensor crosses as itself, autograd included (the companion
# tsbridge._torch), or as DLPack; and if not, why (docs/python.md).
TORCH_FASTPATH, TORCH_FASTPATH_REASON = _native.torch_fastpath()
# The path torch tensors take: "companion" (the above), "exchange" (torch's
# DLPack C exchange API, torch 2.10+), "dlpack" (capsules) or "none" (no
# torch); and why the exchange API is not in use (docs/python.md).
TORCH_TENSOR_PATH, TORCH_EXCHANGE_REASON = _native.tensor_path()
__version__ = _native.version()

_NO_DEFAULT = _inspect.Parameter.empty


def _default(arg):
    """A parameter's default as Python, read from its JSON form by its type."""
    if not arg["has_default"]:
        return _NO_DEFAULT
    text = arg["default_json"]
    if text is None:
        return _NO_DEFAULT
    try:
        return _native.from_json(text, arg["type_index"])
    except Error:
        return _json.loads(text)


def _signature(schema):
    params = []
    for arg in schema["arguments"]:
        kind = (_inspect.Parameter.KEYWORD_ONLY if arg["kwarg_only"]
                else _inspect.Parameter.POSITIONAL_OR_KEYWORD)
        params.append(_inspect.Parameter(arg["name"], kind, default=_default(arg),
                                         annotation=arg["annotation"]))
    returns = schema["returns"]
    if len(returns) == 1:
        ret = returns[0]["annotation"]
    elif returns:
        ret = "Tuple[" + ", ".join(r["annotation"] for r in returns) + "]"
    else:
        ret = "None"
    return _inspect.Signature(params, return_annotation=ret)


def _callable(caller, name, qualname, doc, signature=None):
    """The native caller (tsbridge._native.Caller, called with no Python
    frame in between), named and documented so that help() and
    inspect.signature() show the schema."""
    caller.__name__ = name
    caller.__qualname__ = qualname
    caller.__doc__ = doc
    if signature is not None:
        caller.__signature__ = signature
    return caller


class Module:
    """A loaded, compiled or traced TorchScript module. Each method is an
    attribute: ``m.forward(x)``; ``m(x)`` calls forward."""

    def __init__(self, capsule, origin=""):
        self._capsule = capsule
        self._origin = origin
        self._schemas = {s["name"]: s for s in _native.methods(capsule)}
        for name, schema in self._schemas.items():
            caller = _native.method_caller(capsule, name)
            setattr(self, name, _callable(
                caller, name, f"Module.{name}", schema["schema"], _signature(schema)))

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    @property
    def method_names(self):
        return list(self._schemas)

    def schema(self, method):
        """The method's schema as LibTorch prints it."""
        return self._schemas[method]["schema"]

    def type_of(self, annotation):
        """The Python class tsbridge uses for a type this module declares
        (``"__torch__.Point"``: each module's own), as tsbridge.type_of does
        for builtin and plugin names; None for an unnamed type."""
        return _native.type_info(_native.parse_type(annotation, self._capsule))["cls"]

    def convert(self, value, annotation):
        """``value`` converted to ``annotation``, which may name the types
        this module declares (``"List[__torch__.P]"``)."""
        return _native.convert(value, _native.parse_type(annotation, self._capsule))

    def save(self, path):
        _native.save(self._capsule, str(path))

    def save_for_mobile(self, path):
        """Saves for LibTorch's lite interpreter, as
        _save_for_lite_interpreter: torch.jit.mobile._load_for_lite_interpreter
        reads it."""
        _native.save_for_mobile(self._capsule, str(path))

    def to_bytes(self):
        """The bytes Module.save would write (torch.jit.save's archive):
        torch.jit.load(io.BytesIO(b)) and tsbridge.load(b) read them."""
        return _native.write(self._capsule)

    def __reduce__(self):
        # pickle (multiprocessing, Dask, Ray) ships the archive's bytes.
        return (_from_bytes, (self.to_bytes(), self._origin))

    # --- state, as torch.jit.load's users know it (docs/python.md)

    def train(self, mode=True):
        """Sets training mode on this module and every submodule; returns self."""
        _native.module_set_training(self._capsule, bool(mode))
        return self

    def eval(self):
        return self.train(False)

    @property
    def training(self):
        return _native.module_get_training(self._capsule)

    def named_parameters(self):
        """[(dotted name, tsbridge.Tensor)]: the module's own tensors, so an
        in-place update under tsbridge.autograd.no_grad() changes the module."""
        return _native.module_named_tensors(self._capsule, False)

    def parameters(self):
        return [t for _, t in self.named_parameters()]

    def named_buffers(self):
        return _native.module_named_tensors(self._capsule, True)

    def named_children(self):
        """[(name, Module)] of the direct submodules (sharing their state)."""
        return [(name, Module(c, f"{self._origin}.{name}"))
                for name, c in _native.module_children(self._capsule)]

    def register_parameter(self, name, tensor):
        """Adds (or sets) parameter ``name`` of the module's own class."""
        _native.module_set_parameter(self._capsule, name, tensor, False)

    def register_buffer(self, name, tensor):
        _native.module_set_parameter(self._capsule, name, tensor, True)

    def graph_for(self, *args, **kwargs):
        """forward's graph as the executor optimized it for these arguments
        (runs forward once), as ScriptModule.graph_for gives it."""
        return _native.graph_for(self._capsule, "forward", *args, **kwargs)

    def state_dict(self):
        """{dotted name: tensor} of the parameters and buffers, in PyTorch's
        order; the module's own tensors, not copies."""
        return _native.module_get_state(self._capsule)

    def load_state_dict(self, state_dict, strict=True):
        """Copies the tensors into the parameters and buffers of those names,
        in place; a shape that differs, and with ``strict`` a missing or
        unexpected key, raises before anything is copied."""
        _native.module_set_state(self._capsule, state_dict, bool(strict))

    def zero_grad(self):
        for p in self.parameters():
            p.zero_grad()

    def attribute_names(self):
        return _native.module_attribute_names(self._capsule)

    def get_attribute(self, name):
        return _native.module_get_attribute(self._capsule, name)

    def set_attribute(self, name, value):
        """Sets an attribute, converted to its declared type."""
        _native.module_set_attribute(self._capsule, name, value)

    def __getattr__(self, name):  # attributes not shadowed by a method
        if name.startswith("_"):
            raise AttributeError(name)
        for child, module in self.named_children():
            if child == name:
                return module
        if name in _native.module_attribute_names(self._capsule):
            return _native.module_get_attribute(self._capsule, name)
        raise AttributeError(f"{self!r} has no attribute or method {name!r}")

    @property
    def code(self):
        """The TorchScript source of the module's class (Module.code)."""
        return _native.module_code(self._capsule)

    @property
    def graph(self):
        """forward's graph as text (Module.graph); graph_of(name) for others."""
        return self.graph_of("forward")

    def graph_of(self, method):
        return _native.module_graph(self._capsule, method)

    def __repr__(self):
        return f"<tsbridge.Module {self._origin} methods: {', '.join(self._schemas)}>"


def load(path_or_bytes):
    """Loads a module saved by torch.jit.save (or Module.save), from a path,
    or from bytes (Module.to_bytes, torch.jit.save into io.BytesIO)."""
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        return _from_bytes(path_or_bytes, "<bytes>")
    return Module(_native.load(str(path_or_bytes)), str(path_or_bytes))


def _from_bytes(data, origin):
    return Module(_native.read(data), origin)


def compile(source):  # noqa: A001  (the name the issue asks for)
    """Compiles TorchScript source. Defs that all take ``self`` first become
    methods of a module that can be saved; otherwise they are free functions,
    as torch.jit.CompilationUnit compiles them (docs/runtime.md)."""
    return Module(_native.compile(source), "<compiled>")


def trace(fn, example_inputs, strict=True, name="forward"):
    """Traces ``fn(*example_inputs)``: the operators it calls through
    tsbridge.ops are recorded; the result is a Module whose method ``name``
    (``forward`` unless given) replays them. Torch operations done directly in Python are not recorded.
    ``example_inputs`` may be a dict: bound to ``fn``'s parameters by name,
    in their order (forward then takes them in that order). With
    ``strict=False`` the output may also be a dict, as torch.jit.trace's."""
    if isinstance(example_inputs, dict):
        import inspect
        try:
            bound = inspect.signature(fn).bind(**example_inputs)
        except TypeError as e:
            raise TypeError(f"trace(): the example inputs do not match {fn.__name__}: {e}") from None
        if bound.kwargs:
            raise TypeError("trace(): example inputs bind to positional parameters only, "
                            f"not {sorted(bound.kwargs)}")
        example_inputs = bound.args
    return Module(_native.trace(fn, tuple(example_inputs), bool(strict), str(name)), "<traced>")


class _Lazy:
    """Attributes made on first access by ``make(prefix + name)``, then kept:
    ``tsbridge.ops`` (namespaces) and ``tsbridge.ops.aten`` (operators).
    dir() lists what there is now (tsb_op_get_names), for completion."""

    def __init__(self, label, make, prefix=""):
        self._label = label
        self._make = make
        self._prefix = prefix
        self._cache = {}

    def __dir__(self):
        if self._prefix:  # operators of one namespace
            names = _native.op_names(self._prefix[:-2])
            return sorted({n[len(self._prefix):].split(".")[0] for n in names})
        return sorted({n.split("::")[0] for n in _native.op_names(None)})

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        found = self._cache.get(name)
        if found is None:
            found = self._cache[name] = self._make(self._prefix + name)
        return found

    def __repr__(self):
        return f"<{self._label}>"


def _operator(qualified):
    try:
        overloads = _native.op_overloads(qualified)
    except NotFoundError:
        overloads = None
    if overloads:
        # A variadic or graph-built overload is listed with why a call is
        # refused; it has no signature to bind to.
        doc = "\n".join(o["schema"] + (f"  [{o['not_callable']}]" if o["not_callable"] else "")
                        for o in overloads)
        one = len(overloads) == 1 and not overloads[0]["not_callable"]
        sig = _signature(overloads[0]) if one else None
        return _callable(_native.op_caller(qualified, False), qualified.split("::")[1],
                         qualified, doc, sig)
    try:
        schema = _native.function_schema(qualified)
    except NotFoundError:
        raise AttributeError(f"no operator or plugin function named {qualified}") from None
    return _callable(_native.op_caller(qualified, True), qualified.split("::")[1],
                     qualified, schema["schema"], _signature(schema))


ops = _Lazy("tsbridge.ops", lambda ns: _Lazy(f"tsbridge.ops.{ns}", _operator, ns + "::"))


class _Loaded:
    """A record of what loading registered, its fields as attributes."""

    def __init__(self, info):
        self.__dict__.update(info)


class Plugin(_Loaded):
    """What a loaded plugin registered."""

    def __repr__(self):
        return f"<tsbridge.Plugin {self.name} {self.version} from {self.path}>"


def load_plugin(path):
    """Loads a plugin shared library (a no-op for one already loaded)."""
    return Plugin(_native.plugin_info(_native.load_plugin(str(path))))


def plugins():
    """The loaded plugins, in load order."""
    return [Plugin(_native.plugin_info(i)) for i in range(_native.plugin_count())]


class Library(_Loaded):
    """An operator library: its name, file and the operators it registered."""

    def __repr__(self):
        return f"<tsbridge.Library {self.name} from {self.path}>"


def load_library(path_or_name):
    """Loads an operator library (a shared library registering operators with
    TORCH_LIBRARY) by path, or by a name such as ``"torchvision"`` or
    ``"torchaudio"``: the Python package of that name, found without a path
    (docs/vision.md). A no-op for a file already loaded."""
    return Library(_native.library_info(_native.load_library(str(path_or_name))))


def libraries():
    """The loaded operator library files, in load order."""
    return [Library(_native.library_info(i)) for i in range(_native.library_count())]


def type_of(annotation):
    """The Python class tsbridge uses for a named type (NamedTuple, Enum,
    class), or None: ``tsbridge.type_of("tsbridge.tensor_pair")``."""
    return _native.type_info(_native.parse_type(annotation))["cls"]


def convert(value, annotation):
    """``value`` converted to the TorchScript type ``annotation`` and back:
    what a callee expecting that type would receive."""
    return _native.convert(value, _native.parse_type(annotation))


def to_json(value, annotation):
    """The JSON text form (docs/json.md) of ``value`` as ``annotation``."""
    return _native.to_json(value, _native.parse_type(annotation))


def from_json(text, annotation):
    return _native.from_json(text, _native.parse_type(annotation))


def to_pickle(value, annotation):
    """The bytes torch.save would write for ``value`` as ``annotation``
    (``torch.load(io.BytesIO(data))`` reads them)."""
    return _native.to_pickle(value, _native.parse_type(annotation))


def from_pickle(data):
    """The value in bytes torch.save wrote."""
    return _native.from_pickle(data)
