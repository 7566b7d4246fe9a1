#!/usr/bin/env python3
"""licenses-qa: contract-style questions over three licences typeset as PDFs
(groff), gold located in citelens's stored text of each PDF.

Run from this folder, with citelens built at $CITELENS (default
/tmp/citelens: go build -o /tmp/citelens ./cmd/citelens):
    python3 make_questions.py > questions.jsonl
"""
import json, re, sys
A, G, M = "apache-2.0.pdf", "gpl-3.pdf", "mpl-2.0.pdf"
import os, subprocess, tempfile

def stored_text(doc):
    """The text citelens stores for docs/doc, which the offsets index."""
    bin = os.environ.get("CITELENS", "/tmp/citelens")
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "library.db")
        subprocess.run([bin, "--db", db, "add", "docs/" + doc], check=True, capture_output=True)
        ids = json.loads(subprocess.run([bin, "--db", db, "ls", "--json"], check=True, capture_output=True).stdout)
        return subprocess.run([bin, "--db", db, "show", "--text", "--raw", ids[0]["id"]], check=True, capture_output=True).stdout.decode("utf-8")

texts = {d: stored_text(d) for d in (A, G, M)}
QS = [
 ("Does a contributor give users a patent license?", A, "all", ["each Contributor hereby grants to You a perpetual, worldwide, non-exclusive, no-charge, royalty-free, irrevocable (except as stated in this section) patent license"]),
 ("What happens to my patent rights if I sue someone claiming the software infringes a patent?", A, "all", ["then any patent licenses granted to You under this License for that Work shall terminate as of the date such litigation is filed"]),
 ("Must I flag files I changed when I redistribute?", A, "all", ["You must cause any modified files to carry prominent notices stating that You changed the files"]),
 ("What do I have to do with the NOTICE file when I ship a derivative work?", A, "all", ["then any Derivative Works that You distribute must include a readable copy of the attribution notices contained within such NOTICE file"]),
 ("May I use the licensor's brand names in my product?", A, "all", ["This License does not grant permission to use the trade names, trademarks, service marks, or product names of the Licensor"]),
 ("Is the software provided with any warranty?", A, "all", ["on an \"AS IS\" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND"]),
 ("Are code contributions I send in automatically covered by the license?", A, "all", ["any Contribution intentionally submitted for inclusion in the Work by You to the Licensor shall be under the terms and conditions of this License"]),
 ("Can I charge a fee for support or indemnity on top of the software?", A, "all", ["You may choose to offer, and charge a fee for, acceptance of support, warranty, indemnity, or other liability obligations"]),
 ("What share ownership counts as control of an entity?", A, "all", ["ownership of fifty percent (50%) or more of the outstanding shares"]),
 ("Can a contributor be held liable for damages from using the work?", A, "all", ["shall any Contributor be liable to You for damages, including any direct, indirect, special, incidental, or consequential damages of any character arising as a result of this License"]),
 ("How long do I have to fix a violation after the copyright holder notifies me?", G, "any", ["you cure the violation prior to 30 days after your receipt of the notice", "and (b) permanently, if the copyright holder fails to notify you of the violation by some reasonable means prior to 60 days after the cessation"]),
 ("Must I give installation information when I sell a consumer device running the code?", G, "all", ["the Corresponding Source conveyed under this section must be accompanied by the Installation Information"]),
 ("How long must a written offer to provide the source stay valid?", G, "all", ["accompanied by a written offer, valid for at least three years and valid for as long as you offer spare parts or customer support for that product model"]),
 ("Am I allowed to sell copies?", G, "all", ["You may charge any price or no price for each copy that you convey"]),
 ("Is the output of running the program covered by the license?", G, "all", ["The output from running a covered work is covered by this License only if the output, given its content, constitutes a covered work"]),
 ("Can I add a term requiring that author attributions be kept?", G, "all", ["Requiring preservation of specified reasonable legal notices or author attributions in that material"]),
 ("Does the license treat the program as a DRM technological protection measure?", G, "all", ["No covered work shall be deemed part of an effective technological measure under any applicable law"]),
 ("When is a compilation of separate works on one medium an aggregate?", G, "all", ["is called an \"aggregate\" if the compilation and its resulting copyright are not used to limit the access or legal rights of the compilation's users beyond what the individual works permit"]),
 ("Do I need to accept the license to run a copy?", G, "all", ["You are not required to accept this License in order to receive or run a copy of the Program"]),
 ("What if a court order imposes conditions that conflict with the license?", G, "all", ["If conditions are imposed on you (whether by court order, agreement or otherwise) that contradict the conditions of this License, they do not excuse you from the conditions of this License"]),
 ("May I distribute object code over peer-to-peer networks?", G, "all", ["Convey the object code using peer-to-peer transmission, provided you inform other peers where the object code and Corresponding Source of the work are being offered"]),
 ("Which license version applies when the program names none?", G, "all", ["If the Program does not specify a version number of the GNU General Public License, you may choose any version ever published by the Free Software Foundation"]),
 ("How long do I have to become compliant after a contributor notifies me of non-compliance?", M, "all", ["You become compliant prior to 30 days after Your receipt of the notice"]),
 ("Can I combine the covered code with code under other terms in a bigger product?", M, "all", ["You may create and distribute a Larger Work under terms of Your choice, provided that You also comply with the requirements of this License for the Covered Software"]),
 ("Where must lawsuits about the license be brought?", M, "all", ["may be brought only in the courts of a jurisdiction where the defendant maintains its principal place of business"]),
 ("Does the license let me use contributors' logos?", M, "all", ["This License does not grant any rights in the trademarks, service marks, or logos of any Contributor"]),
 ("When do a contributor's grants take effect?", M, "all", ["become effective for each Contribution on the date the Contributor first distributes such Contribution"]),
 ("Do end users keep their licenses if my license is terminated?", M, "all", ["all end user license agreements (excluding distributors and resellers) which have been validly granted by You or Your distributors under this License prior to termination shall survive termination"]),
 ("Is a contributor liable for lost profits?", M, "all", ["without limitation, damages for lost profits"]),
 ("If I ship an executable, how must recipients be able to get the source?", M, "all", ["You must inform recipients of the Executable Form how they can obtain a copy of such Source Code Form by reasonable means in a timely manner"]),
]

QS += [
 ("Is there a warranty disclaimer?", A, "all", ["WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND"]),
 ("Can the license be revoked?", A, "all", ["royalty-free, irrevocable copyright license"]),
 ("Does the licensee have to indemnify anyone?", A, "all", ["You agree to indemnify, defend, and hold each Contributor harmless"]),
 ("Is there a limitation of liability?", A, "all", ["In no event and under no legal theory, whether in tort (including negligence), contract, or otherwise"]),
 ("Can the licensee sublicense?", A, "all", ["publicly display, publicly perform, sublicense, and distribute the Work"]),
 ("Can I put my own license terms on my modifications?", A, "all", ["You may add Your own copyright statement to Your modifications and may provide additional or different license terms and conditions"]),
 ("What is the term of the license?", G, "all", ["All rights granted under this License are granted for the term of copyright on the Program"]),
 ("Under what conditions does the license terminate?", G, "all", ["Any attempt otherwise to propagate or modify it is void, and will automatically terminate your rights under this License"]),
 ("Is there a patent grant?", G, "all", ["Each contributor grants you a non-exclusive, worldwide, royalty-free patent license under the contributor's essential patent claims"]),
 ("What law applies if the liability waiver cannot be given legal effect locally?", G, "all", ["reviewing courts shall apply local law that most closely approximates an absolute waiver of all civil liability in connection with the Program"]),
 ("Can the code be incorporated into proprietary software?", G, "all", ["does not permit incorporating your program into proprietary"]),
 ("What happens to the licenses on a merger or acquisition?", G, "any", ["each party to that transaction who receives a copy of the work also receives whatever licenses to the work the party's predecessor in interest had", "is a transaction transferring control of an organization, or substantially all assets of one, or subdividing an organization, or merging organizations"]),
 ("Which law governs?", M, "all", ["such litigation shall be governed by laws of that jurisdiction, without reference to its conflict-of-law provisions"]),
 ("What if a provision is unenforceable?", M, "all", ["If any provision of this License is held to be unenforceable, such provision shall be reformed only to the extent necessary to make it enforceable"]),
 ("What if I assert a patent claim against a contributor?", M, "all", ["alleging that a Contributor Version directly or indirectly infringes any patent, then the rights granted to You by any and all Contributors for the Covered Software under Section 2.1 of this License shall terminate"]),
 ("Who may publish new versions of the license?", M, "all", ["no one other than the license steward has the right to modify or publish new versions of this License"]),
 ("Is ambiguous language construed against the drafter?", M, "all", ["Any law or regulation which provides that the language of a contract shall be construed against the drafter shall not be used to construe this License against a Contributor"]),
 ("Can I distribute it under the GPL as well?", M, "all", ["this License permits You to additionally distribute such Covered Software under the terms of such Secondary License(s)"]),
]
def find(doc, gold):
    t = texts[doc]
    words = gold.split()
    pat = r"\s+".join(re.escape(w).replace('\\"', '["“”]').replace("'", "['’]") for w in words)
    pat = pat.replace('"', '["“”]')
    m = re.search(pat, t)
    if not m:
        sys.exit("not found in %s: %s" % (doc, gold))
    s = len(t[:m.start()].encode()); e = len(t[:m.end()].encode())
    return {"doc": doc, "start": s, "end": e, "text": m.group(0)}
for i, (q, doc, mode, golds) in enumerate(QS, 1):
    print(json.dumps({"id": "lic-%02d" % i, "question": q, "answers": [], "docs": [doc],
                      "evidence": [find(doc, g) for g in golds], "evidence_mode": mode}))
