#!/usr/bin/env python3
"""Builds the redline pairs of testdata/reanchor from real documents.

Each pair is an original document of testdata (the old version, read in
place) and its new version, written here, made by the edits below: exact
replacements, each of a string that occurs exactly once, the way a
redline edits (figures changed, clauses reworded, struck or rewritten,
sections inserted and deleted, paragraphs moved, pages reflowed).
Deterministic: the same input gives the same bytes. Run from this folder.
"""
import sys

PAIRS = {
    "mime": ("../manuals-qa/docs/shared-mime-info-spec.txt", [
        # 1. version and date changed (figures)
        ("This is version 0.21 of the Shared MIME-info Database specification, last updated 2 October 2018.",
         "This is version 0.22 of the Shared MIME-info Database specification, last updated 10 March 2024."),
        # 2. a figure in a clause changed
        ("The default weight value is\n50, and the maximum is 100.",
         "The default weight value is\n60, and the maximum is 100."),
        # 3. a word changed in a short rule
        ("database. Only one icon element is allowed.",
         "database. At most one icon element is allowed."),
        # 4. a sentence struck
        (" Everyone is keen to\nsee them merged.", ""),
        # 5. a sentence rewritten beyond recognition
        ("This can be used by tools which let the user edit the database to ensure that the user’s changes\ntake effect.",
         "Editors write their entries there."),
        # 6. a clause extended at two places
        ("It scans all the XML files in the packages subdirectory, combines the\ninformation in them, and creates a number of output files.",
         "It scans all the XML files in the packages subdirectory and its\nsubdirectories, combines the information in them, and creates a number of output files in the mime directory."),
        # 7. a paragraph deleted (three sentences)
        ("KDE’s glob system replaces GNOME’s and ROX’s ext/regex fields, since it is trivial to detect a pattern\nin the form ’*.ext’ and store it in an extension hash table internally. The full power of regular\nexpressions was not being used by either desktop, and glob patterns are more suitable for filename\nmatching anyway.\n", ""),
        # 8. a paragraph reflowed (new line breaks, same words)
        ("For interoperability, it is useful for different programs to use the same database so that different\nprograms agree on the type of a file and information is not duplicated.",
         "For interoperability, it is useful for different programs to use the same\ndatabase so that different programs agree on the type of a file and\ninformation is not duplicated."),
        # 9. a section inserted after the heading of 2.1
        ("2.1. Directory layout\n",
         "2.1. Directory layout\nThis section was revised for version 0.22. Implementations written against earlier versions remain conforming.\n"),
        # 10. a page break removed: every later page moves up one
        ("\n2\n\n\fShared MIME-info Database\n", "\n"),
        # 11. a sentence moved to another section
        ("Second, it allows the\ndatabase to be used for other purposes (such as creating the /etc/mime.types file if desired). ", ""),
        ("be discarded. The patterns defined in this file (if any) are used instead.\n",
         "be discarded. The patterns defined in this file (if any) are used instead.\nSecond, it allows the\ndatabase to be used for other purposes (such as creating the /etc/mime.types file if desired).\n"),
    ]),
    "declaration": ("../declaration.txt", [
        # a grievance reworded (same clause, words changed)
        ("He has refused his Assent to Laws, the most wholesome and necessary for the public good.",
         "He has refused his Assent to Laws, the most wholesome and needful for the common good."),
        # a grievance struck
        ("He has dissolved Representative Houses repeatedly, for opposing with manly firmness his invasions on the rights of the people.", ""),
        # a grievance rewritten beyond recognition
        ("He has erected a multitude of New Offices, and sent hither swarms of Officers to harrass our people, and eat out their substance.",
         "New offices now burden the colonies."),
        # a grievance inserted
        ("He has kept among us, in times of peace,",
         "He has taxed our trade without our leave.\n\nHe has kept among us, in times of peace,"),
    ]),
}


def main():
    for name, (src, edits) in PAIRS.items():
        with open(src, encoding="utf-8") as f:
            text = f.read()
        for old, new in edits:
            n = text.count(old)
            if n != 1:
                sys.exit(f"{name}: {old[:60]!r} occurs {n} times, not once")
            text = text.replace(old, new)
        with open(f"{name}.new.txt", "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
