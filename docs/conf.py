# SPDX-License-Identifier: BSD-3-Clause
"""Sphinx configuration of the DART-MPI documentation site (bash scripts/docs.sh).

The pages are the Markdown files of docs/ (MyST), the README, CHANGELOG, CONTRIBUTING and
fortran/README.md (included, not copied); the API references are generated: Python by
autodoc from the installed dartpy, C by Doxygen + breathe from cpp/include, Fortran by
Doxygen (its own HTML pages, linked from api/fortran). scripts/docs.sh runs Doxygen first
and passes the XML folder as DART_DOXYGEN_XML.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

project = "DART-MPI"
author = "The DART-MPI developers"
copyright = "2026, The DART-MPI developers"  # noqa: A001 (Sphinx's name)
release = (REPO / "VERSION").read_text().strip()
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "breathe",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

# MyST: heading anchors for links like page.md#section, and the fenced directives.
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]
# The existing pages use `##` under `#` and sometimes jump a level (they were written for
# GitHub's renderer); that is style, not a broken page.
suppress_warnings = ["myst.header"]

# autodoc: dartpy's own docstrings (NumPy style, read by napoleon); pybind11 puts the
# signature on the first line of each docstring.
autodoc_docstring_signature = True
autodoc_member_order = "bysource"
napoleon_numpy_docstring = True
napoleon_google_docstring = False

# breathe: the C API from Doxygen's XML of cpp/include (scripts/docs.sh writes it).
breathe_projects = {
    "dart": os.environ.get("DART_DOXYGEN_XML", str(REPO / "_build/docs/doxygen-c/xml"))
}
breathe_default_project = "dart"
breathe_domain_by_extension = {"h": "c"}
# The headers' macros that are attributes, not part of a declaration.
c_id_attributes = ["DART_NOTHROW", "DART_INLINE", "DART_NORETURN"]
c_paren_attributes = []

_SIGNATURE = re.compile(r"^\w+\(.*\)( -> .+)?$")


def _drop_signature_line(app, what, name, obj, options, lines):
    """pybind11 starts every docstring with the signature; autodoc takes it off, except
    for static methods (Array.load), where it would be read as text."""
    if lines and _SIGNATURE.match(lines[0]) and name.rsplit(".", 1)[-1] == lines[0].split("(")[0]:
        del lines[0]
        while lines and not lines[0].strip():
            del lines[0]


def setup(app):
    app.connect("autodoc-process-docstring", _drop_signature_line)


html_theme = "alabaster"
html_title = f"DART-MPI {release}"
html_static_path = []
# The Fortran reference is Doxygen's HTML, copied in by scripts/docs.sh (fortran-api/).
html_extra_path = [p for p in [os.environ.get("DART_FORTRAN_HTML", "")] if p]
