#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check the internal links of a built HTML site: every relative href/src names a file of
the site and, with a #fragment, an id in that file. External links (with a scheme) are
not followed (CI has no network but PyPI's). In the pages Doxygen writes (fortran-api/)
only files are checked, not #fragments: Doxygen links section anchors it does not write
(#nested-classes), which is its own matter.

    python3 scripts/check_links.py _build/docs/html     # exit 1 and a list if any is broken
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("id", "name") and v:
                self.ids.add(v)
            if v and (
                (k == "href" and tag in ("a", "link")) or (k == "src" and tag in ("img", "script"))
            ):
                self.links.append(v)


def parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def check(root: Path) -> list[str]:
    pages = {p.resolve(): parse(p) for p in root.rglob("*.html")}
    problems = []
    for path, page in sorted(pages.items()):
        for link in page.links:
            u = urlsplit(link)
            if u.scheme or u.netloc or link.startswith(("mailto:", "javascript:")):
                continue
            target = (path.parent / unquote(u.path)).resolve() if u.path else path
            if target.is_dir():
                target = target / "index.html"
            rel = path.relative_to(root.resolve())
            if not target.exists():
                problems.append(f"{rel}: {link}: no such file")
                continue
            doxygen = rel.parts[0] == "fortran-api"
            if u.fragment and target.suffix == ".html" and not doxygen:
                ids = pages[target].ids if target in pages else parse(target).ids
                if unquote(u.fragment) not in ids:
                    problems.append(f"{rel}: {link}: no id '{u.fragment}'")
    return problems


def main(argv: list[str]) -> int:
    root = Path(argv[0] if argv else "_build/docs/html")
    if not (root / "index.html").is_file():
        print(f"{root}: no index.html (build the site first)")
        return 1
    problems = check(root)
    for p in problems:
        print(p)
    n = sum(1 for _ in root.rglob("*.html"))
    print(f"links: {n} pages, {len(problems)} broken internal links")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
