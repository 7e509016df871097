# SPDX-License-Identifier: BSD-3-Clause
"""IPython's output history and DART's memory.

A notebook cell that ends with a view (``a.local[1, 1:3]``) puts it into IPython's output
history (``Out``, ``_``, ``__``, ``___``, ``_N``, the displayhook, the last execution
result): a reference the user never made, which would make every later ``free()`` or
``dart.exit()`` raise BufferError. Before the collective frees count live views
(python/src/memory.cc), ``release()`` drops the history's references to views of DART
memory, and nothing else. A view the user's own variable holds stays, and ``holders()``
names those variables for the BufferError's message.
"""

from __future__ import annotations

import sys
from typing import Any, Iterator, List


def _is_dart_view(x: Any) -> bool:
    """Whether x is an ndarray over DART memory (its base chain ends in a _ViewOwner), or
    a tuple or list holding one."""
    if isinstance(x, (tuple, list)):
        return any(_is_dart_view(y) for y in x[:64])
    base = getattr(x, "base", None)
    if base is None or not hasattr(x, "__array_interface__"):
        return False
    while getattr(base, "base", None) is not None and not _owner(base):
        base = base.base
    return _owner(base)


def _owner(x: Any) -> bool:
    return type(x).__name__ == "_ViewOwner" and type(x).__module__.startswith("dartpy")


def _shell() -> Any:
    if "IPython" not in sys.modules:
        return None
    try:
        return sys.modules["IPython"].get_ipython()
    except Exception:  # pragma: no cover - a half-imported IPython
        return None


def release() -> int:
    """Drops the references of IPython's output history to views of DART memory; returns
    how many it dropped (0 outside IPython)."""
    shell = _shell()
    if shell is None:
        return 0
    dropped = 0
    ns = shell.user_ns
    # shell.push(..., interactive=False) puts _, __, ___ and _N into user_ns_hidden too
    hidden = getattr(shell, "user_ns_hidden", {})
    out = ns.get("Out")
    if isinstance(out, dict):
        for k in [k for k, v in out.items() if _is_dart_view(v)]:
            del out[k]
            for space in (ns, hidden):
                if _is_dart_view(space.get(f"_{k}")):
                    del space[f"_{k}"]
            dropped += 1
    for name in ("_", "__", "___"):
        if _is_dart_view(hidden.get(name)):
            hidden[name] = ""
    hook = getattr(shell, "displayhook", None)
    for name in ("_", "__", "___"):
        if _is_dart_view(ns.get(name)) and ns.get(name) is getattr(hook, name, None):
            ns[name] = ""
            dropped += 1
        if hook is not None and _is_dart_view(getattr(hook, name, None)):
            setattr(hook, name, "")
    last = getattr(shell, "last_execution_result", None)
    if last is not None and _is_dart_view(getattr(last, "result", None)):
        last.result = None
        dropped += 1
    return dropped


def _user_namespaces() -> Iterator[dict]:
    shell = _shell()
    if shell is not None:
        yield shell.user_ns
    main = sys.modules.get("__main__")
    if main is not None and (shell is None or vars(main) is not shell.user_ns):
        yield vars(main)


def holders() -> List[str]:
    """The names of the user's variables (the notebook's or the main script's globals)
    that hold views of DART memory, for the BufferError's message."""
    names: List[str] = []
    for ns in _user_namespaces():
        for k, v in list(ns.items()):
            if k.startswith("_") or k in names:
                continue
            if _is_dart_view(v):
                names.append(k)
    return names
