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
