#!/usr/bin/env python3
"""library-qa: put the set's seven manuals in docs/, from the Debian 12
packages that ship them, and check them against docs.sha256.

    python3 fetch_docs.py

A manual whose package is installed is copied from where the package put
it; otherwise the package is downloaded with `apt-get download` (the
version the offsets were found in first, else the current one; run
`apt-get update` once before) and unpacked with `dpkg-deb -x` into a
temporary folder, nothing installed. Gzipped manuals are unzipped. The
documents are not in the repository (11 MB, one of them 6.5 MB), and
docs/ is ignored by git.

It exits non-zero when a document differs from the one the gold offsets
index (docs.sha256): then the manual changed in Debian, and
build_questions.py must find the offsets again (and the README's
baseline be measured again).
"""
import glob, gzip, hashlib, os, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# (file name in docs/, package, version the offsets were found in, path in the package)
MANUALS = [
    ("fontconfig-user.pdf", "fontconfig", "2.14.1-4", "/usr/share/doc/fontconfig/fontconfig-user.pdf.gz"),
    ("bzip2-manual.pdf", "bzip2-doc", "1.0.8-5", "/usr/share/doc/bzip2/manual.pdf.gz"),
    ("nettle.pdf", "nettle-dev", "3.8.1-2", "/usr/share/doc/nettle-dev/nettle.pdf.gz"),
    ("git-user-manual.html", "git-doc", "1:2.39.5-0+deb12u3", "/usr/share/doc/git-doc/user-manual.html"),
    ("debian-reference.en.pdf", "debian-reference-en", "2.100", "/usr/share/debian-reference/debian-reference.en.pdf"),
    ("valgrind_manual.pdf", "valgrind", "1:3.19.0-1", "/usr/share/doc/valgrind/valgrind_manual.pdf.gz"),
    ("fullrefman.pdf", "r-doc-pdf", "4.2.2.20221110-2", "/usr/share/R/doc/manual/fullrefman.pdf"),
]


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def want():
    sums = {}
    with open(os.path.join(HERE, "docs.sha256")) as f:
        for line in f:
            if line.strip():
                digest, name = line.split()
                sums[name] = digest
    return sums


def download(pkg, version, tmp):
    """Unpack pkg (version if the archive still has it) under tmp; the root."""
    for spec in (pkg + "=" + version, pkg):
        r = subprocess.run(["apt-get", "download", spec], cwd=tmp, capture_output=True, text=True)
        debs = glob.glob(os.path.join(tmp, pkg + "_*.deb"))
        if r.returncode == 0 and debs:
            root = os.path.join(tmp, pkg)
            subprocess.run(["dpkg-deb", "-x", debs[0], root], check=True)
            return root
    sys.exit("cannot download %s: %s (run apt-get update first?)" % (pkg, r.stderr.strip()))


def copy(src, dst):
    if src.endswith(".gz"):
        with gzip.open(src, "rb") as f, open(dst, "wb") as w:
            shutil.copyfileobj(f, w)
    else:
        shutil.copyfile(src, dst)


def main():
    sums = want()
    docs = os.path.join(HERE, "docs")
    os.makedirs(docs, exist_ok=True)
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, pkg, version, path in MANUALS:
            dst = os.path.join(docs, name)
            if os.path.exists(dst) and sha256(dst) == sums[name]:
                continue
            if os.path.exists(path):
                copy(path, dst)
            if not os.path.exists(path) or sha256(dst) != sums[name]:
                # Not installed, or installed in another version: the
                # version the offsets were found in, if Debian still has it.
                copy(download(pkg, version, tmp) + path, dst)
            got = sha256(dst)
            print("%s  %s (%s)%s" % (got, name, pkg, "" if got == sums[name] else "  DIFFERS from docs.sha256"))
            if got != sums[name]:
                bad.append(name)
    if bad:
        sys.exit("these documents differ from the ones the gold offsets index: %s;\n"
                 "run build_questions.py to find the offsets again, and measure the baseline again" % ", ".join(bad))
    print("docs/ holds the %d manuals" % len(MANUALS))


if __name__ == "__main__":
    main()
