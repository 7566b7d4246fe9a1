#!/usr/bin/env python3
"""Typesets three licences from Debian's /usr/share/common-licenses as PDFs
with groff (filled paragraphs, no hyphenation, US letter): contract-like
documents with numbered sections, defined terms and boxed clauses.

Run from this folder: python3 make_docs.py (needs groff)."""
import re, subprocess

for src, out in [("Apache-2.0", "apache-2.0"), ("GPL-3", "gpl-3"), ("MPL-2.0", "mpl-2.0")]:
    text = open("/usr/share/common-licenses/" + src, encoding="utf-8").read()
    paras = [re.sub(r"\s*\n\s*", " ", p.strip()) for p in re.split(r"\n\s*\n", text) if p.strip()]
    troff = [".nh", ".ad l", ".ps 11", ".vs 14", ".ll 6.5i", ".po 1i"]
    for p in paras:
        p = p.replace("\\", "\\e")
        if p.startswith((".", "'")):
            p = "\\&" + p
        troff += [".sp 1", p]
    pdf = subprocess.run(["groff", "-Tpdf"], input=("\n".join(troff) + "\n").encode(), capture_output=True, check=True).stdout
    open("docs/" + out + ".pdf", "wb").write(pdf)
