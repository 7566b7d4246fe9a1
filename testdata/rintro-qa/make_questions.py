#!/usr/bin/env python3
"""Builds questions.jsonl from the hand-written questions below: each gold
text is located in docs/R-intro.txt (whitespace between words may differ,
since pdftotext wraps lines) and stored as byte offsets (docs/EVAL.md).

Run from this folder: python3 make_questions.py > questions.jsonl
"""
import json, re, sys

DOC = "R-intro.txt"
text = open("docs/" + DOC, "rb").read().decode("utf-8")

# (question, mode, [gold texts]); mode "any": any one of the golds answers.
QS = [
 ("How do I get help on a specific function such as solve?", "any",
  ["To get more information on any specific named function, for example solve, the command is"]),
 ("Is R case sensitive?", "all",
  ["It is case sensitive as are most UNIX based packages, so A and a are different symbols and would refer to different variables."]),
 ("How long can a command line typed at the console be?", "all",
  ["Command lines entered at the console are limited3 to about 4095 bytes (not characters)."]),
 ("How can I run commands that are stored in an external file?", "all",
  ["they may be executed at any time in an R session with the command"]),
 ("How do I send output to a file instead of the console?", "all",
  ["will divert all subsequent output from the console to an external file, record.lis."]),
 ("Where are the objects saved at the end of a session?", "all",
  ["the objects are written to a file called .RData5 in the current directory"]),
 ("What is the collection of currently stored objects called?", "all",
  ["The collection of objects currently stored is called the workspace."]),
 ("What happens when vectors of different lengths are used in the same arithmetic expression?", "any",
  ["Shorter vectors in the expression are recycled as often as need be (perhaps fractionally) until they match the length of the longest vector.",
   "If they are not, the value of the expression is a vector with the same length as the longest vector which occurs in the expression."]),
 ("Which function gives the sample variance?", "all",
  ["Two statistical functions are mean(x) which calculates the sample mean"]),
 ("How do I compute the square root of a negative number?", "any",
  ["To work with complex numbers, supply an explicit complex part.",
   "will do the computations as complex numbers."]),
 ("How do I repeat each element of a vector several times?", "all",
  ["which repeats each element of x five times before moving on to the next."]),
 ("Why should I write TRUE and FALSE rather than T and F?", "any",
  ["Note however that T and F are just variables which are set to TRUE and FALSE by default, but are not reserved words and hence can be overwritten by the user.",
   "Hence, you should always use TRUE and FALSE."]),
 ("What is the difference between is.na and is.nan?", "any",
  ["In summary, is.na(xx) is TRUE both for NA and NaN values.",
   "is.nan(xx) is only TRUE for NaNs."]),
 ("What does the paste function do?", "all",
  ["The paste() function takes an arbitrary number of arguments and concatenates them one by one into character strings."]),
 ("How do I change the separator that paste puts between its arguments?", "any",
  ["but this can be changed by the named argument, sep=string, which changes it to string, possibly empty.",
   "The arguments are by default separated in the result by a single blank character,"]),
 ("Which modes can an atomic vector have?", "all",
  ["since their components are all of the same type, or mode, namely numeric 1 , complex, logical, character and raw."]),
 ("Why are lists called recursive structures?", "all",
  ["lists are known as “recursive” rather than atomic structures since their components can themselves be lists in their own right."]),
 ("How can I shorten an object to fewer elements?", "any",
  ["Conversely to truncate the size of an object requires only an assignment to do so.",
   "makes it an object of length 5 consisting of just the former components with even index."]),
 ("How do I temporarily remove the class of an object?", "all",
  ["To remove temporarily the effects of class, use the function unclass()."]),
 ("What is a factor?", "all",
  ["A factor is a vector object used to specify a discrete classification (grouping) of the components of other vectors of the same length."]),
 ("How do I calculate the mean income for each state?", "all",
  ["To calculate the sample mean income for each state we can now use the special function tapply():"]),
 ("What is the difference between Lst[[1]] and Lst[1]?", "any",
  ["is the operator used to select a single element, whereas ‘[...]’ is a general subscripting operator.",
   "It is very important to distinguish Lst[[1]] from Lst[1]."]),
 ("Can the names of list components be abbreviated?", "all",
  ["The names of components may be abbreviated down to the minimum number of letters needed to identify them uniquely."]),
 ("Must all the columns of a data frame have the same length?", "all",
  ["Vector structures appearing as variables of the data frame must all have the same length, and matrix structures must all have the same number of rows."]),
 ("What is the simplest way to build a data frame from an external file?", "all",
  ["The simplest way to construct a data frame from scratch is to use the read.table() function to read an entire data frame from an external file."]),
 ("How many datasets are supplied with R?", "all",
  ["Around 100 datasets are supplied with R (in package datasets)"]),
 ("How do I load a dataset from a particular package?", "all",
  ["To access data from a particular package, use the package argument, for example"]),
 ("How can a repeat loop be stopped?", "any",
  ["The break statement can be used to terminate any loop, possibly abnormally.",
   "This is the only way to terminate repeat loops."]),
 ("Is there a vectorized form of if and else?", "all",
  ["There is a vectorized version of the if/else construct, the ifelse function."]),
 ("How does R find the value of a free variable inside a function?", "all",
  ["In R the free variable bindings are resolved by first looking in the environment in which the function was created."]),
 ("Which function fits ordinary multiple regression models?", "all",
  ["The basic function for fitting ordinary multiple models is lm()"]),
 ("Which response distributions can generalized linear models use?", "all",
  ["includes gaussian, binomial, poisson, inverse gaussian and gamma response distributions"]),
 ("How do I see which packages are currently loaded?", "all",
  ["To see which packages are currently loaded, use"]),
 ("What are namespaces for?", "all",
  ["Packages have namespaces, which do three things: they allow the package writer to hide functions and data that are meant only for internal use"]),
 ("How do I copy a file from within R?", "all",
  ["Function file.copy is the R analogue of the POSIX command cp."]),
 ("How can I delete a whole directory tree?", "all",
  ["Files can be removed by either file.remove or unlink: the latter can remove directory trees."]),
 ("Are file names case-sensitive?", "all",
  ["POSIX filesystems are case-sensitive, so foo.png and Foo.PNG are different files."]),
 ("Who wrote the notes this introduction was derived from?", "all",
  ["written in 1990–2 by Bill Venables and David M. Smith when at the University of Adelaide."]),
 ("Where was the S language developed?", "all",
  ["which was developed at Bell Laboratories by Rick Becker, John Chambers and Allan Wilks"]),
]

def find(gold):
    words = gold.split()
    pat = r"\s+".join(re.escape(w) for w in words)
    ms = list(re.finditer(pat, text))
    if not ms:
        sys.exit("not found: " + gold)
    if len(ms) > 1:
        print("warning: %d matches for %r, using the first" % (len(ms), gold), file=sys.stderr)
    m = ms[0]
    start = len(text[:m.start()].encode("utf-8"))
    end = start + len(m.group(0).encode("utf-8"))
    return {"doc": DOC, "start": start, "end": end, "text": m.group(0)}

for i, (q, mode, golds) in enumerate(QS, 1):
    print(json.dumps({"id": "rintro-%02d" % i, "question": q, "answers": [], "docs": [DOC],
                      "evidence": [find(g) for g in golds], "evidence_mode": mode}, ensure_ascii=False))
