# SPDX-License-Identifier: BSD-3-Clause
"""Every constant dartpy exports against the value in the C headers, read independently of
the extension (regular expressions over the #define lines and enums of the source headers):
names and values, both ways. No DART call, no compilation."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict

import pytest

import dartpy as dart

HEADERS = Path(__file__).resolve().parents[2] / "cpp" / "include" / "dash" / "dart" / "if"

# Header names without a Python constant, and why.
NOT_EXPORTED = {
    "DART_TYPE_LAST": "sentinel (one past the last basic type)",
    "DART_OP_LAST": "sentinel (one past the last predefined operation)",
    "DART_OP_MINMAX_MIN": "index into a DART_OP_MINMAX result pair",
    "DART_OP_MINMAX_MAX": "index into a DART_OP_MINMAX result pair",
}


def _text(name: str) -> str:
    path = HEADERS / name
    if not path.exists():
        pytest.skip(f"source header {path} not found (tests run from a source tree)")
    return path.read_text()


def _defines(text: str, prefix: str, cast: str) -> Dict[str, int]:
    """#define PREFIX... ((cast)N) lines."""
    pat = re.compile(
        r"^#define\s+(" + prefix + r"\w*)\s+\(\(" + cast + r"\)\s*\(?(-?\d+)\)?\s*\)", re.M
    )
    return {m.group(1): int(m.group(2)) for m in pat.finditer(text)}


def _enum(text: str, typedef: str) -> Dict[str, int]:
    """Members `NAME = value` of `typedef enum { ... } typedef;`."""
    m = re.search(r"typedef\s+enum\s*\{([^{}]*)\}\s*" + typedef + r"\s*;", text)
    assert m, f"enum {typedef} not found"
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    return {k: int(v) for k, v in re.findall(r"(DART_\w+)\s*=\s*(-?\d+)", body)}


def _python(prefix: str) -> Dict[str, int]:
    return {n: getattr(dart, n) for n in dir(dart._core) if re.match(prefix, n)}


def _check_both_ways(header: Dict[str, int], python: Dict[str, int], strip: str) -> None:
    expected = {k[len(strip) :]: v for k, v in header.items() if k not in NOT_EXPORTED}
    assert expected, "nothing parsed from the header"
    missing = sorted(set(expected) - set(python))
    extra = sorted(set(python) - set(expected))
    assert not missing, f"in the C header but not in dartpy: {missing}"
    assert not extra, f"in dartpy but not in the C header: {extra}"
    wrong = {k: (python[k], v) for k, v in expected.items() if python[k] != v}
    assert not wrong, f"dartpy value != C value: {wrong}"


def test_basic_types():
    header = _defines(_text("dart_types.h"), "DART_TYPE_", "dart_datatype_t")
    assert "DART_TYPE_DOUBLE" in header and "DART_TYPE_UNDEFINED" in header
    _check_both_ways(header, _python(r"TYPE_"), "DART_")


def test_operations():
    header = _defines(_text("dart_types.h"), "DART_OP_", "dart_operation_t")
    minmax = re.findall(r"^#define\s+(DART_OP_MINMAX_M\w+)\s+(\d+)", _text("dart_types.h"), re.M)
    assert {n for n, _ in minmax} <= set(NOT_EXPORTED)
    assert "DART_OP_SUM" in header and "DART_OP_NO_OP" in header
    _check_both_ways(header, _python(r"OP_"), "DART_")


def test_return_codes():
    header = _enum(_text("dart_types.h"), "dart_ret_t")
    assert header["DART_OK"] == 0 and "DART_ERR_OTHER" in header
    _check_both_ways(header, _python(r"(OK|PENDING|ERR_\w+)$"), "DART_")


def test_thread_levels():
    header = _enum(_text("dart_types.h"), "dart_thread_support_level_t")
    _check_both_ways(header, _python(r"THREAD_"), "DART_")


def test_unit_segment_and_team_ids():
    types_h, globmem_h, team_h = (
        _text("dart_types.h"),
        _text("dart_globmem.h"),
        _text("dart_team_group.h"),
    )
    assert (
        dart.UNDEFINED_UNIT_ID
        == _defines(types_h, "DART_UNDEFINED_UNIT_ID", "dart_unit_t")["DART_UNDEFINED_UNIT_ID"]
    )
    assert (
        dart.SEGMENT_LOCAL
        == _defines(globmem_h, "DART_SEGMENT_LOCAL", "int16_t")["DART_SEGMENT_LOCAL"]
    )
    teams = {
        k: int(v)
        for k, v in re.findall(
            r"^#define\s+(DART_TEAM_\w+)\s+\(\(dart_team_t\)\s*\(?(-?\d+)\)?\)", team_h, re.M
        )
    }
    assert set(teams) == {"DART_TEAM_ALL", "DART_TEAM_NULL"}
    assert dart.TEAM_ALL.id == teams["DART_TEAM_ALL"] and dart.TEAM_ALL == 0
    assert dart.TEAM_NULL.id == teams["DART_TEAM_NULL"]


def test_dtype_table_covers_every_basic_type():
    """The NumPy type character of every DART basic type (dart_tables.h) is a dtype dartpy
    accepts, and the X-macro list names exactly the basic types of dart_types.h."""
    np = pytest.importorskip("numpy")
    text = re.sub(r"\\\n", " ", _text("dart_tables.h"))
    body = re.search(r"#define DART_BASIC_TYPE_LIST\(X\)(.*?)(?:\n\s*\n|/\*)", text, re.S)
    assert body, "DART_BASIC_TYPE_LIST not found"
    entries = re.findall(r"X\((\w+),[^)]*?'(.)'", body.group(1))
    header = _defines(_text("dart_types.h"), "DART_TYPE_", "dart_datatype_t")
    basic = {k[len("DART_TYPE_") :] for k, v in header.items() if 0 < v < header["DART_TYPE_LAST"]}
    assert {name for name, _ in entries} == basic
    for name, ch in entries:
        g = dart.Gptr(0, 1, 0, dtype=np.dtype(ch))  # accepted (TypeError otherwise)
        assert g.itemsize == np.dtype(ch).itemsize, name


def test_notify_ops():
    """NOTIFY_SET/NOTIFY_ADD against DART_NOTIFY_OP_LIST of dart_tables.h (the list the C
    enum of dart_notify.h is generated from), both ways."""
    text = re.sub(r"\\\n", " ", _text("dart_tables.h"))
    body = re.search(r"#define DART_NOTIFY_OP_LIST\(X\)(.*?)(?:\n\s*\n|/\*|#endif)", text, re.S)
    assert body, "DART_NOTIFY_OP_LIST not found"
    header = {
        f"DART_NOTIFY_{n}": int(v) for n, v in re.findall(r"X\((\w+),\s*(\d+)\)", body.group(1))
    }
    assert set(header) == {"DART_NOTIFY_SET", "DART_NOTIFY_ADD"}
    assert "DART_NOTIFY_OP_LIST" in _text("dart_notify.h")
    _check_both_ways(header, _python(r"NOTIFY_"), "DART_")


def test_array_max_dims():
    """ARRAY_MAX_DIMS and ARRAY_NORM_* against dart_array.h (dartpy exports no other
    constant of that header: boundaries, stencils and exchanges are strings in Python)."""
    m = re.search(r"^#define\s+DART_ARRAY_MAX_DIMS\s+(\d+)\s*$", _text("dart_array.h"), re.M)
    assert m, "DART_ARRAY_MAX_DIMS not found"
    assert dart.ARRAY_MAX_DIMS == int(m.group(1)) >= 4
    names = [n for n in dir(dart._core) if n.startswith("ARRAY_")]
    assert names == ["ARRAY_MAX_DIMS", "ARRAY_NORM_1", "ARRAY_NORM_2", "ARRAY_NORM_INF"]
    for n in names[1:]:  # dart_array_norm_t (dartpy.norm takes NumPy's ord instead)
        m = re.search(rf"DART_{n}\s*=\s*(\d+)", _text("dart_array.h"))
        assert m and getattr(dart._core, n) == int(m.group(1)), n
