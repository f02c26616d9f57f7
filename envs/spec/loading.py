"""Reading spec files: YAML read strictly, then validated into a spec model, every failure one line.

``read_yaml`` refuses what YAML would let through silently (a key given twice, a file too large
to be a spec); ``load_one`` and ``load_list`` validate a file into ``envs.spec.schema`` models and
turn a ``ValidationError`` into one ``SpecError`` line naming the file, the field and the reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import yaml
from envs.errors import SpecError
from pydantic import BaseModel, ValidationError

S = TypeVar("S", bound=BaseModel)


def _fmt_error(path: Path, e: ValidationError, prefix: str = "") -> str:
    err = e.errors()[0]
    loc = ".".join(str(x) for x in err["loc"]) or "(top level)"
    more = f" (+{len(e.errors()) - 1} more)" if len(e.errors()) > 1 else ""
    return f"{path}: {prefix}{loc}: {err['msg']}{more}"


# A spec file larger than this is refused (a 5 MB task file took 22 s and 416 MB to load).
MAX_SPEC_BYTES = 4_000_000


# libyaml's parser when PyYAML was built with it (about ten times faster: the spec files of a domain
# took seconds to parse in pure Python); the constructors, and so the values, are SafeLoader's either way.
_SafeBase = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictLoader(_SafeBase):  # type: ignore[misc, valid-type]
    """``yaml.SafeLoader`` that refuses a key given twice in one mapping (instead of the last winning)."""


def _no_duplicates(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False):
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            first = seen.setdefault(key, key_node.start_mark.line + 1)
        except TypeError:  # an unhashable key: the constructor below says so
            continue
        if first != key_node.start_mark.line + 1:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first given on line {first})", key_node.start_mark
            )
    return yaml.constructor.SafeConstructor.construct_mapping(loader, node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _no_duplicates)


def read_yaml(path: Path) -> Any:
    """The YAML document in ``path``; every failure is one SpecError line (file, where, reason):
    missing, too large, not UTF-8, malformed, a duplicate key, nested too deeply, or a value
    YAML cannot construct (an unquoted date like 2026-13-45)."""
    try:
        size = Path(path).stat().st_size
        if size > MAX_SPEC_BYTES:
            raise SpecError(f"{path}: file: {size:,} bytes, more than the {MAX_SPEC_BYTES:,} a spec file may hold; split it")
        text = Path(path).read_bytes().decode("utf-8")
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 (a SafeLoader subclass)
    except FileNotFoundError:
        raise SpecError(f"{path}: file not found") from None
    except UnicodeDecodeError as e:
        raise SpecError(f"{path}: byte {e.start}: not UTF-8 ({e.reason}); save the file as UTF-8") from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark else "yaml"
        problem = getattr(e, "problem", None) or str(e)
        if "nesting depth" in problem:  # libyaml's limit; the pure-Python parser hits RecursionError instead
            raise SpecError(f"{path}: {where}: nested too deeply") from None
        raise SpecError(f"{path}: {where}: {problem}") from None
    except RecursionError:
        raise SpecError(f"{path}: yaml: nested too deeply") from None
    except (ValueError, TypeError, OverflowError) as e:  # a constructor's failure (e.g. an impossible date)
        raise SpecError(f"{path}: yaml: a value cannot be read ({e}); quote it if it is text") from None


def load_one(model: type[S], path: Path, data: Any = None) -> S:
    data = read_yaml(path) if data is None else data
    if not isinstance(data, dict):
        raise SpecError(f"{path}: (top level): expected a mapping, got {type(data).__name__}")
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise SpecError(_fmt_error(path, e)) from None


def load_list(model: type[S], path: Path, key: str) -> list[S]:
    """A file holding ``{key: [item, ...]}`` or a bare list."""
    data = read_yaml(path)
    if isinstance(data, dict) and key in data:
        data = data[key]
    if not isinstance(data, list):
        raise SpecError(f"{path}: {key}: expected a list")
    out = []
    for i, item in enumerate(data):
        try:
            out.append(model.model_validate(item))
        except ValidationError as e:
            ident = item.get("id") if isinstance(item, dict) else None
            raise SpecError(_fmt_error(path, e, prefix=f"{key}[{i}{' ' + ident if ident else ''}].")) from None
    ids = [getattr(x, "id", None) for x in out]
    dup = {x for x in ids if x is not None and ids.count(x) > 1}
    if dup:
        raise SpecError(f"{path}: {key}: duplicate id {sorted(dup)[0]!r}")
    return out
