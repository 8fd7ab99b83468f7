"""Python classes for named TorchScript types, made once per type index.

The extension calls these factories the first time it meets a type and
keeps the class for the life of the process (type indices are never
reused), so every value of a type comes back as an instance of the very
same class object. Each class records its tsbridge type in
``_tsb_type_index`` and ``_tsb_name``, which also lets a value keep its type
when it is passed back (for instance where the schema says ``Any``).
"""
import collections
import enum
from enum import Enum  # noqa: F401  (the extension checks members against it)

from . import _native


def _label(cls, type_index, qualified_name):
    cls._tsb_type_index = type_index
    cls._tsb_name = qualified_name
    cls.__module__ = "tsbridge.types"
    return cls


def make_namedtuple(type_index, qualified_name, short_name, fields):
    """A NamedTuple (or a plugin record such as tsbridge.tensor_pair)."""
    cls = collections.namedtuple(short_name, fields)
    cls.__doc__ = f"{qualified_name}({', '.join(fields)}), a TorchScript NamedTuple"
    return _label(cls, type_index, qualified_name)


def make_enum(type_index, qualified_name, short_name, members):
    """A real enum.Enum whose members carry the TorchScript values."""
    cls = enum.Enum(short_name, members, module="tsbridge.types")
    cls.__doc__ = f"{qualified_name}, a TorchScript Enum"
    return _label(cls, type_index, qualified_name)


class Object:
    """A TorchScript class instance, module or torchbind object, held by
    reference: fields read through attribute access, methods called as
    ``obj.method(...)``. A torchbind object has methods only."""

    __slots__ = ("_tsb_value",)
    _tsb_fields = ()
    _tsb_custom_class = False

    @classmethod
    def _tsb_wrap(cls, value):
        obj = object.__new__(cls)
        obj._tsb_value = value
        return obj

    def __getattr__(self, name):
        if name.startswith("__") or name.startswith("_tsb"):
            raise AttributeError(name)
        if name in type(self)._tsb_fields:
            return _native.get_field(self._tsb_value, name)
        return _BoundMethod(self, name)

    def __dir__(self):
        return sorted(set(type(self)._tsb_fields) | set(object.__dir__(self)))

    def __eq__(self, other):  # by reference, as TorchScript's `is`
        return isinstance(other, Object) and _native.value_id(
            self._tsb_value) == _native.value_id(other._tsb_value)

    def __hash__(self):
        return hash(_native.value_id(self._tsb_value))

    def __reduce__(self):
        # A TorchScript archive holding the object and its class's code
        # (tsb_object_write): another process reads it with nothing loaded.
        # A copy: the two processes' objects change apart.
        return (_object_from_bytes, (_native.object_write(self._tsb_value),))

    def __repr__(self):
        fields = ", ".join(f"{f}={getattr(self, f)!r}" for f in type(self)._tsb_fields)
        return f"<{type(self)._tsb_name} object{' ' + fields if fields else ''}>"


class _BoundMethod:
    __slots__ = ("_obj", "_name")

    def __init__(self, obj, name):
        self._obj = obj
        self._name = name

    def __call__(self, *args, **kwargs):
        return _native.object_call(self._obj._tsb_value, self._name, *args, **kwargs)

    def __repr__(self):
        return f"<method {self._name} of {type(self._obj)._tsb_name} object>"


def _object_from_bytes(data):
    return _native.object_read(data)


def make_object_class(type_index, qualified_name, short_name, kind, fields):
    custom = kind == 24  # TSB_KIND_CUSTOM_CLASS
    cls = type(short_name, (Object,), {
        "__slots__": (),
        "_tsb_fields": tuple(fields),
        "_tsb_custom_class": custom,
        "__doc__": f"{qualified_name}, a TorchScript "
                   f"{'torchbind class' if custom else 'class'}"
                   + (f" with fields {', '.join(fields)}" if fields else ""),
    })
    return _label(cls, type_index, qualified_name)


class Tensor(Object):
    """A tensor held by tsbridge with its autograd graph (docs/autograd.md).

    A ``torch.Tensor`` crosses the boundary as DLPack, which carries data but
    no graph; a ``tsbridge.Tensor`` crosses as the handle itself. Make one
    with ``tsbridge.Tensor(data, requires_grad=True)`` (``data``: a
    torch.Tensor, a DLPack capsule or anything with ``__dlpack__``; the
    storage is shared). A call that receives a tsbridge.Tensor returns its
    results that require grad as tsbridge.Tensor, so the graph stays
    connected up to ``backward()``. ``.torch()`` is the data as a
    torch.Tensor (shared storage, no graph).
    """

    __slots__ = ()
    _tsb_name = "Tensor"

    def __new__(cls, data, requires_grad=False):
        t = _native.tensor_new(data)
        if requires_grad:
            t.requires_grad = True
        return t

    def __getattr__(self, name):  # no TorchScript methods or fields
        raise AttributeError(name)

    @property
    def requires_grad(self):
        return _native.requires_grad(self._tsb_value)

    @requires_grad.setter
    def requires_grad(self, value):
        _native.set_requires_grad(self._tsb_value, bool(value))

    def requires_grad_(self, value=True):
        self.requires_grad = value
        return self

    @property
    def grad(self):
        """The accumulated gradient (a tsbridge.Tensor), or None."""
        return _native.grad(self._tsb_value)

    def zero_grad(self):
        """Fills .grad with zeros in place (nothing when there is none)."""
        _native.zero_grad(self._tsb_value)

    def detach(self):
        return _native.detach(self._tsb_value)

    def backward(self, gradient=None, retain_graph=False):
        _native.backward([self], None if gradient is None else [gradient], retain_graph)

    def torch(self):
        """The tensor as a torch.Tensor: the tensor itself, graph included,
        with the torch fast path; its data sharing storage (no graph) through
        DLPack (docs/python.md)."""
        return _native.tensor_torch(self._tsb_value)

    def __dlpack__(self, stream=None):
        return _native.tensor_torch(self._tsb_value).detach().__dlpack__()

    def __dlpack_device__(self):
        return _native.tensor_torch(self._tsb_value).__dlpack_device__()

    @property
    def shape(self):
        return tuple(self.torch().shape)

    @property
    def dtype(self):
        return self.torch().dtype

    def item(self):
        return self.torch().item()

    def __reduce__(self):
        # torch.save's bytes, which keep requires_grad; back as a
        # tsbridge.Tensor (a leaf: the graph does not travel).
        return (_tensor_from_pickle,
                (_native.to_pickle(self, _native.parse_type("Tensor")), self.requires_grad))

    def __repr__(self):
        grad = ", requires_grad=True" if self.requires_grad else ""
        return f"tsbridge.Tensor({self.torch()!r}{grad})"


def _tensor_from_pickle(data, requires_grad):
    # requires_grad travels beside the bytes: without the torch fast path the
    # tensor comes back through DLPack, which carries data only.
    return Tensor(_native.from_pickle(data).detach(), requires_grad=requires_grad)
