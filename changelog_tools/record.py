"""Record: an immutable typed value that costs nothing to define.

``@dataclass(frozen=True)`` compiles six methods from generated source for every class, at
every start of every command: about 0.65 ms a class on the machine this was measured on, and a
`check` defines a few dozen (issue 14). A :class:`Record` subclass behaves as that dataclass
where the tool and its tests look: keyword or positional construction with defaults,
immutability (``FrozenInstanceError``), equality and hash over the fields (records of different
classes are never equal), the dataclass ``repr``, and, through ``dataclass_transform``, the same
checked constructor signatures for mypy. Its methods are ordinary code, compiled once into the
``.pyc``. (``dataclasses.fields``/``replace``/``asdict`` do not apply: a class that needs them,
or a mutable one, stays a dataclass.)
"""

from __future__ import annotations

import inspect
from typing import Any, ClassVar, dataclass_transform


def _frozen(action: str, name: str) -> Exception:
    # dataclasses' own error (a subclass of AttributeError), imported only when raised
    from dataclasses import FrozenInstanceError

    return FrozenInstanceError(f"cannot {action} field {name!r}")


@dataclass_transform(eq_default=True, frozen_default=True)
class Record:
    """An immutable value: its fields are the class's annotations, in order; a class-level
    value is that field's default."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _field_set: ClassVar[frozenset[str]] = frozenset()
    _defaults: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = [
            name
            for name, kind in inspect.get_annotations(cls).items()
            if not str(kind).startswith(("ClassVar", "typing.ClassVar"))
        ]
        cls._fields = (*cls._fields, *(n for n in own if n not in cls._field_set))
        cls._field_set = frozenset(cls._fields)
        cls._defaults = {**cls._defaults, **{n: cls.__dict__[n] for n in own if n in cls.__dict__}}
        required = [i for i, n in enumerate(cls._fields) if n not in cls._defaults]
        if required and any(n in cls._defaults for n in cls._fields[: required[-1]]):
            raise TypeError(f"{cls.__name__}: a field without a default follows one with one")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = type(self)
        names = cls._fields
        if len(args) > len(names):
            raise TypeError(
                f"{cls.__name__}() takes {len(names)} positional arguments but {len(args)} "
                "were given"
            )
        values = dict(zip(names, args, strict=False))
        if kwargs:
            for name, value in kwargs.items():
                if name in values:
                    raise TypeError(f"{cls.__name__}() got multiple values for argument {name!r}")
                values[name] = value
            if not values.keys() <= cls._field_set:
                unknown = sorted(values.keys() - cls._field_set)[0]
                raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {unknown!r}")
        if len(values) != len(names):
            defaults = cls._defaults
            missing = [n for n in names if n not in values and n not in defaults]
            if missing:
                raise TypeError(
                    f"{cls.__name__}() missing required argument(s): "
                    + ", ".join(repr(n) for n in missing)
                )
            values = {n: values[n] if n in values else defaults[n] for n in names}
        object.__setattr__(self, "__dict__", values)

    def __setattr__(self, name: str, value: Any) -> None:
        raise _frozen("assign to", name)

    def __delattr__(self, name: str) -> None:
        raise _frozen("delete", name)

    def _values(self) -> tuple[Any, ...]:
        values = self.__dict__
        return tuple(values[n] for n in self._fields)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values() == other._values()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        values = self.__dict__
        shown = ", ".join(f"{n}={values[n]!r}" for n in self._fields)
        return f"{type(self).__qualname__}({shown})"
