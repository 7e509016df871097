# SPDX-License-Identifier: BSD-3-Clause
"""The last step of scripts/test.sh: every test of the run, once more, as one pytest session.

scripts/test.sh writes what each runner recorded into $DART_RESULTS_DIR: CTest's and
pytest's JUnit XML files (`ctest-<mpi>.xml`, `pytest-<mpi>.xml`) and a `<step>.missing`
file for every step that produced no record (a failed build, a runner that died). Each
recorded test case becomes one test here that passes, fails (with the recorded message)
or is skipped as it did, so the run ends with pytest's summary line over all of them.
Nothing is run again.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

RESULTS = Path(os.environ.get("DART_RESULTS_DIR", "/nonexistent"))


def _records():
    out = []
    if not RESULTS.is_dir():
        return [("results", "fail", f"DART_RESULTS_DIR={RESULTS} is not a directory")]
    for missing in sorted(RESULTS.glob("*.missing")):
        out.append((missing.stem, "fail", missing.read_text().strip() or "no record"))
    for path in sorted(RESULTS.glob("*.xml")):
        suite = path.stem  # ctest-mpich, pytest-openmpi, ...
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as e:
            out.append((suite, "fail", f"{path.name} is not readable: {e}"))
            continue
        cases = list(root.iter("testcase"))
        if not cases:
            out.append((suite, "fail", f"{path.name} records no test"))
        for tc in cases:
            cls, name = tc.get("classname", ""), tc.get("name", "?")
            ident = (
                f"{suite}::{name}"
                if suite.startswith("ctest") or not cls
                else f"{suite}::{cls}::{name}"
            )
            bad = tc.find("failure") if tc.find("failure") is not None else tc.find("error")
            if bad is not None or tc.get("status") in ("fail", "notrun"):
                msg = (
                    bad.get("message", "") if bad is not None else ""
                ) or f"status {tc.get('status')}"
                out.append((ident, "fail", msg))
            elif tc.find("skipped") is not None or tc.get("status") == "disabled":
                out.append(
                    (
                        ident,
                        "skip",
                        (
                            tc.find("skipped").get("message", "")
                            if tc.find("skipped") is not None
                            else "disabled"
                        ),
                    )
                )
            else:
                out.append((ident, "pass", ""))
    return out


RECORDS = _records()


@pytest.mark.parametrize(
    "status,message", [(s, m) for _, s, m in RECORDS], ids=[i for i, _, _ in RECORDS]
)
def test_recorded(status, message):
    if status == "fail":
        pytest.fail(message or "failed", pytrace=False)
    if status == "skip":
        pytest.skip(message)
