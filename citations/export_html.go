package citations

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"io"

	"github.com/citelens/citelens/internal/textproc"
)

// WriteHTML writes a as one self-contained HTML page: inline CSS, no
// scripts, no fonts or images to fetch, so it reads the same offline
// (WriteHTMLWith embeds pictures of the cited regions). The
// answer's statements carry numbered citation markers that link to the
// evidence section, where each cited span is quoted in full and
// highlighted, with its document, page, sentence range (indices as
// `citelens show --sentences` prints them) and its mark (a quote's
// question words, the check of a model's statement: marks.go); uncited
// statements that state a fact are flagged. Stages, plan, usage and
// warnings follow. Every text is HTML-escaped, and control
// characters show as visible symbols (textproc.Printable).
func WriteHTML(w io.Writer, a *Answer) error { return WriteHTMLWith(w, a, HTMLOptions{}) }

// HTMLOptions add to the HTML export.
type HTMLOptions struct {
	// Pictures, when set, gives the pictures shown under a citation's
	// quote: its cited region on each page it stands on, highlighted, as
	// PNG files' bytes, embedded in the page (it stays self-contained).
	// An error is shown in place of the pictures, briefly.
	Pictures func(c Span) ([]Picture, error)
}

// Picture is one picture of a cited region.
type Picture struct {
	PNG    []byte
	Page   int
	Width  int // pixels
	Height int
}

// WriteHTMLWith is WriteHTML with options.
func WriteHTMLWith(w io.Writer, a *Answer, opts HTMLOptions) error {
	v := answerView(a, opts, "")
	if err := htmlPage.Execute(w, v); err != nil {
		return fmt.Errorf("writing the answer as HTML: %w", err)
	}
	return nil
}

// answerView is a's view for the page's templates; prefix begins the
// IDs of its statements and citations ("a2-" in a thread's page, where
// several answers each number theirs from 1).
func answerView(a *Answer, opts HTMLOptions, prefix string) htmlView {
	v := htmlView{
		Title:    textproc.Printable(a.Question),
		Question: textproc.Printable(a.Question),
		Byline:   textproc.Printable(byline(a)),
		Partial:  a.Partial,
		Error:    textproc.Printable(a.Error),
	}
	n := 0
	for i, s := range a.Statements {
		hs := htmlStatement{ID: fmt.Sprintf("%ss%d", prefix, i+1), Text: textproc.Printable(s.Text), Needs: s.NeedsCitation && len(s.Citations) == 0,
			Quote: s.IsQuote()}
		for j, c := range s.Citations {
			n++
			hc := htmlCitation{
				N: n, ID: fmt.Sprintf("%sc%d", prefix, n), Statement: hs.ID,
				Doc:   textproc.Printable(c.DocName),
				Where: where(c),
				Bytes: fmt.Sprintf("bytes %d–%d", c.Start, c.End),
				Text:  textproc.Printable(c.Text),
			}
			if opts.Pictures != nil {
				pics, err := opts.Pictures(c)
				if err != nil {
					hc.NoPicture = textproc.Printable(textproc.OneLine(err.Error()))
				}
				v.HasPictures = v.HasPictures || len(pics) > 0
				for _, p := range pics {
					hc.Pictures = append(hc.Pictures, htmlPicture{
						// An attribute built here, whole: base64 holds no quote,
						// and as a URL html/template would write every '+' as
						// an entity.
						Src:   template.HTMLAttr(`src="data:image/png;base64,` + base64.StdEncoding.EncodeToString(p.PNG) + `"`),
						Alt:   fmt.Sprintf("%s, page %d, the cited lines highlighted", hc.Doc, p.Page),
						Width: p.Width, Height: p.Height,
					})
				}
			}
			if mk := CitationMark(&s, j); mk.Kind != NoMark {
				hc.Mark, hc.Class = textproc.Printable(mk.String()), mk.Class()
				if v := mk.Verdict; v.Level != "" {
					hc.Check = fmt.Sprintf("score %.2f, judged %s", v.Score, v.Judge)
				}
			}
			hs.Citations = append(hs.Citations, hc)
		}
		for _, wn := range s.Warnings {
			hs.Warnings = append(hs.Warnings, textproc.Printable(wn))
		}
		v.Statements = append(v.Statements, hs)
	}
	for _, l := range Method(a) {
		v.Method = append(v.Method, MethodLine{l.Label, textproc.Printable(l.Text)})
	}
	v.PlanSummary, v.Plan = PlanLines(a.Plan)
	for _, wn := range a.Warnings {
		v.Warnings = append(v.Warnings, textproc.Printable(wn))
	}
	return v
}

type htmlView struct {
	// InThread: the answer is a section of a thread's page, its
	// headings a level down.
	InThread         bool
	ID               string // the answer's section in a thread's page
	Title            string // the page's title: the question
	Question, Byline string
	HasPictures      bool
	Partial          bool
	Error            string
	Statements       []htmlStatement
	Method           []MethodLine
	PlanSummary      string
	Plan             []string
	Warnings         []string
}

type htmlStatement struct {
	ID, Text string
	Needs    bool
	// Quote is set for a statement that quotes its one citation
	// (extractive): the evidence then shows the quote once, not twice.
	Quote     bool
	Citations []htmlCitation
	Warnings  []string
}

type htmlCitation struct {
	N                 int
	ID, Statement     string
	Doc, Where, Bytes string
	Text              string
	// Mark is the citation's mark (marks.go) in words, Class names it
	// for the style sheet, Check says the verdict's score and judge.
	Mark, Class, Check string
	Pictures           []htmlPicture
	NoPicture          string // why the pictures are missing
}

type htmlPicture struct {
	Src           template.HTMLAttr // src="data:…", built here from PNG bytes
	Alt           string
	Width, Height int
}

// htmlTemplates are the page (head and body) of one answer, and of a
// thread of answers, the same answer template inside each.
var htmlTemplates = template.Must(template.New("head").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="citelens">
<title>{{.Title}}</title>
<style>
:root { --fg: #1d1f21; --bg: #fdfdfc; --muted: #5f6368; --rule: #d8d8d4; --mark: #fff1a8;
  --bad: #b42318; --link: #1a5fb4; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6e6e3; --bg: #18191a; --muted: #a0a4a8; --rule: #3a3b3c; --mark: #5c4d00;
    --bad: #ff7b72; --link: #8ab4f8; }
}
body { font: 16px/1.6 Georgia, "Times New Roman", serif; color: var(--fg); background: var(--bg);
  max-width: 46rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.5rem; line-height: 1.3; margin-bottom: .25rem; }
h2 { font-size: 1.15rem; border-bottom: 1px solid var(--rule); padding-bottom: .2rem; margin-top: 2.5rem; }
.byline, figcaption, .meta { color: var(--muted); font: .85rem/1.4 system-ui, sans-serif; }
a { color: var(--link); text-decoration: none; }
a:hover, a:focus { text-decoration: underline; }
.statement { margin: .6rem 0; white-space: pre-wrap; }
.statement:target, figure:target { outline: 2px solid var(--link); outline-offset: 4px; }
sup a { font: .75rem system-ui, sans-serif; margin-left: .1rem; }
.badge { font: .7rem/1 system-ui, sans-serif; padding: .15rem .35rem; border-radius: .25rem;
  border: 1px solid currentColor; white-space: nowrap; vertical-align: middle; color: var(--muted); }
.badge.unsupported, .badge.uncited, sup a.unsupported { color: var(--bad); }
.alert { border-left: 4px solid var(--bad); padding: .4rem .8rem; }
article { margin: 1.2rem 0 1.8rem; }
article > p.said { font-style: italic; margin: 0 0 .4rem; white-space: pre-wrap; }
.process dl { display: grid; grid-template-columns: max-content 1fr; gap: .15rem 1rem; margin: 0 0 .8rem; }
.process dt { font-weight: 600; }
.process dd { margin: 0; }
figure { margin: .6rem 0 .6rem 1rem; }
figure blockquote { margin: .3rem 0 0; padding-left: .8rem; border-left: 3px solid var(--rule); white-space: pre-wrap; }
mark { background: var(--mark); color: inherit; }
.warn { color: var(--bad); font: .85rem/1.4 system-ui, sans-serif; }
{{- if .HasPictures}}
img.page { display: block; max-width: 100%; height: auto; margin: .5rem 0 0; border: 1px solid var(--rule); }
{{- end}}
pre { white-space: pre-wrap; font-size: .8rem; border: 1px solid var(--rule); padding: .6rem; }
</style>
</head>{{define "answer"}}<header>
{{if .InThread}}<h2 class="question">{{.Question}}</h2>{{else}}<h1>{{.Question}}</h1>{{end}}
<p class="byline">{{.Byline}}</p>
</header>
{{- if .Partial}}
<p class="alert">This answer is incomplete{{if .Error}}: {{.Error}}{{end}}</p>
{{- end}}
<main>
<section class="answer">
{{- range .Statements}}
<p class="statement" id="{{.ID}}">{{.Text}}{{range .Citations}}<sup><a class="{{.Class}}" href="#{{.ID}}" title="{{.Doc}}, {{.Where}}{{if .Mark}}: {{.Mark}}{{end}}">[{{.N}}]</a></sup>{{end}}{{if .Needs}} <span class="badge uncited" title="This statement states a fact but cites nothing.">no citation</span>{{end}}</p>
{{- end}}
</section>
<section class="evidence">
{{if .InThread}}<h3>Evidence</h3>{{else}}<h2>Evidence</h2>{{end}}
{{- range .Statements}}{{if or .Citations .Warnings}}
<article>
{{- if not .Quote}}
<p class="said"><a href="#{{.ID}}">{{.Text}}</a></p>
{{- end}}
{{- range .Citations}}
<figure id="{{.ID}}">
<figcaption><a href="#{{.Statement}}">[{{.N}}]</a> <strong>{{.Doc}}</strong>, {{.Where}} <span class="meta">({{.Bytes}})</span>{{if .Mark}} <span class="badge {{.Class}}"{{if .Check}} title="{{.Check}}"{{end}}>{{.Mark}}</span>{{end}}</figcaption>
<blockquote><mark>{{.Text}}</mark></blockquote>
{{- range .Pictures}}
<img class="page" {{.Src}} alt="{{.Alt}}" width="{{.Width}}" height="{{.Height}}">
{{- end}}
{{- if .NoPicture}}
<p class="meta">No page picture: {{.NoPicture}}</p>
{{- end}}
</figure>
{{- end}}
{{- range .Warnings}}
<p class="warn">{{.}}</p>
{{- end}}
</article>
{{- end}}{{end}}
</section>
<section class="process">
{{if .InThread}}<h3>How it was answered</h3>{{else}}<h2>How it was answered</h2>{{end}}
<dl>
{{- range .Method}}
<dt>{{.Label}}</dt><dd>{{.Text}}</dd>
{{- end}}
</dl>
{{- if .PlanSummary}}
<p class="plan"><strong>Plan:</strong> {{.PlanSummary}}</p>
{{- end}}
{{- if .Plan}}
<ul class="plan">
{{- range .Plan}}
<li>{{.}}</li>
{{- end}}
</ul>
{{- end}}
</section>
{{- if .Warnings}}
<section class="warnings">
{{if .InThread}}<h3>Warnings</h3>{{else}}<h2>Warnings</h2>{{end}}
<ul>
{{- range .Warnings}}
<li class="warn">{{.}}</li>
{{- end}}
</ul>
</section>
{{- end}}
</main>
{{end}}{{define "page"}}{{template "head" .}}
<body>
{{template "answer" .}}</body>
</html>
{{end}}{{define "thread"}}{{template "head" .}}
<body>
<header>
<h1>{{.Title}}</h1>
<p class="byline">{{.Byline}}</p>
</header>
{{- range .Answers}}
<section class="thread-answer" id="{{.ID}}">
{{template "answer" .}}</section>
{{- end}}
</body>
</html>
{{end}}`))

var htmlPage = htmlTemplates.Lookup("page")

// where says where a citation is: page, sentences, and the heading path
// it lies under.
func where(c Span) string {
	w := fmt.Sprintf("%s, %s", c.PageLabel(), sentenceLabel(c.First, c.Last))
	if c.Heading != "" {
		w += ", under " + textproc.OneLine(c.Heading)
	}
	return w
}
