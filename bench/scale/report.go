package main

import (
	"fmt"
	"math"
	"strings"
)

// markdown is the results table, with the machine and the growth.
func (r *results) markdown() string {
	var b strings.Builder
	m := r.Machine
	fmt.Fprintf(&b, "# How citelens's costs grow with its library\n\n")
	fmt.Fprintf(&b, "Written by `go run ./bench/scale %s` on %s (%s).\n\n", r.Args, r.Started.Format("2006-01-02"), r.Finished.Sub(r.Started).Round(1e9))
	fmt.Fprintf(&b, "Machine: %s, %d cores, %s memory, Linux %s, %s. Load average (1, 5, 15 min) %s at the start and %s at the end: the machine is shared, so read the ratios between sizes rather than the absolute times.\n\n", m.CPU, m.Cores, m.Memory, m.Kernel, m.Go, m.Load, r.LoadAfter)
	fmt.Fprintf(&b, "Libraries of seeded synthetic documents (internal/synthetic, seed %d: log-normal sizes around 4 KB, Zipfian vocabulary with English function words, bursty topic words, numbered headings). Each latency is a whole process as a user runs it, p50 and p99 over %d generated questions, each about a sentence of the library: `ask --no-save --strategy extractive --k 5` and `search --k 10`; `ls --page 1` is the first page of the listing; the TUI's start is to the first frame that lists the library, in a 160×48 pseudo-terminal. Peak memory is the process's maximum resident set (page cache of the library file included).\n\n", r.Seed, r.Questions)
	if r.Shrink > 0 {
		fmt.Fprintf(&b, "Libraries of %s documents or more are made of documents a tenth the usual size (-shrink), so that they could be built on this machine in the time there was.\n\n", count(r.Shrink))
	}
	b.WriteString("| documents | text | add | add CPU | add peak | library on disk | ask p50 | ask p99 | ask peak | search p50 | search p99 | ls | TUI first frame |\n")
	b.WriteString("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, l := range r.Libraries {
		fmt.Fprintf(&b, "| %s | %s | %.0f docs/s (%.1f MB/s), %.0f s | %.0f s | %s | %s | %.0f ms | %.0f ms | %s | %.0f ms | %.0f ms | %.0f ms | %.0f ms |\n",
			count(l.Docs), mb(l.TextBytes), l.AddDocsPerSec, l.AddMBPerSec, l.AddSeconds, l.AddCPUSeconds, mb(l.AddPeakBytes), mb(l.LibraryBytes),
			l.Ask.P50, l.Ask.P99, mb(l.Ask.PeakBytes), l.Search.P50, l.Search.P99, l.LsMs, l.TUIFirstFrame)
	}
	if n := len(r.Libraries); n >= 2 {
		first, last := r.Libraries[0], r.Libraries[n-1]
		fmt.Fprintf(&b, "\nGrowth from %s to %s documents (×%.0f): ask p50 ×%.2f, ask p99 ×%.2f, search p50 ×%.2f, ls ×%.2f, TUI first frame ×%.2f; the library on disk ×%.1f.\n",
			count(first.Docs), count(last.Docs), float64(last.Docs)/float64(first.Docs),
			ratio(last.Ask.P50, first.Ask.P50), ratio(last.Ask.P99, first.Ask.P99), ratio(last.Search.P50, first.Search.P50),
			ratio(last.LsMs, first.LsMs), ratio(last.TUIFirstFrame, first.TUIFirstFrame), ratio(float64(last.LibraryBytes), float64(first.LibraryBytes)))
	}
	if g := r.Big; g != nil {
		fmt.Fprintf(&b, "\nThe large text (%s, one document, streamed in pieces): added in %.0f s (%.0f s CPU, %.1f MB/s), peak memory %s (%.2f× the file); library %s. ask p50 %.0f ms, p99 %.0f ms, peak %s; search p50 %.0f ms, p99 %.0f ms.\n",
			mb(g.Bytes), g.AddSeconds, g.AddCPUSeconds, g.AddMBPerSec, mb(g.AddPeakBytes), float64(g.AddPeakBytes)/float64(g.Bytes), mb(g.LibraryBytes),
			g.Ask.P50, g.Ask.P99, mb(g.Ask.PeakBytes), g.Search.P50, g.Search.P99)
	}
	b.WriteString("\n![Cost against library size](cost.svg)\n")
	return b.String()
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func count(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// svg plots the latencies against the library's size, both on log
// scales, so that a cost that grows with the library climbs and one that
// does not stays flat.
func (r *results) svg() string {
	const w, h, left, right, top, bottom = 760.0, 440.0, 70.0, 190.0, 40.0, 50.0
	type series struct {
		name  string
		color string
		value func(library) float64
	}
	all := []series{
		{"ask p50", "#1f77b4", func(l library) float64 { return l.Ask.P50 }},
		{"ask p99", "#aec7e8", func(l library) float64 { return l.Ask.P99 }},
		{"search p50", "#2ca02c", func(l library) float64 { return l.Search.P50 }},
		{"ls", "#ff7f0e", func(l library) float64 { return l.LsMs }},
		{"TUI first frame", "#9467bd", func(l library) float64 { return l.TUIFirstFrame }},
	}
	minX, maxX := math.Inf(1), math.Inf(-1)
	minY, maxY := math.Inf(1), math.Inf(-1)
	for _, l := range r.Libraries {
		minX, maxX = math.Min(minX, float64(l.Docs)), math.Max(maxX, float64(l.Docs))
		for _, s := range all {
			if v := s.value(l); v > 0 {
				minY, maxY = math.Min(minY, v), math.Max(maxY, v)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="12">`+"\n", w, h, w, h)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	fmt.Fprintf(&b, `<text x="%.0f" y="22" font-size="15">citelens: latency of a whole process against library size (log-log)</text>`+"\n", left)
	if len(r.Libraries) == 0 || math.IsInf(minY, 0) {
		b.WriteString("</svg>\n")
		return b.String()
	}
	lx0, lx1 := math.Floor(math.Log10(minX)), math.Ceil(math.Log10(maxX))
	ly0, ly1 := math.Floor(math.Log10(minY)), math.Ceil(math.Log10(maxY))
	if lx1 == lx0 {
		lx1++
	}
	if ly1 == ly0 {
		ly1++
	}
	px := func(x float64) float64 { return left + (math.Log10(x)-lx0)/(lx1-lx0)*(w-left-right) }
	py := func(y float64) float64 { return h - bottom - (math.Log10(y)-ly0)/(ly1-ly0)*(h-top-bottom) }
	// Axes and decade grid lines.
	for e := lx0; e <= lx1; e++ {
		x := px(math.Pow(10, e))
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", x, top, x, h-bottom)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x, h-bottom+18, count(int(math.Pow(10, e))))
	}
	for e := ly0; e <= ly1; e++ {
		y := py(math.Pow(10, e))
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, y, w-right, y)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%s ms</text>`+"\n", left-6, y+4, trimFloat(math.Pow(10, e)))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">documents in the library</text>`+"\n", (left+w-right)/2, h-12)
	for i, s := range all {
		var pts []string
		for _, l := range r.Libraries {
			if v := s.value(l); v > 0 {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(float64(l.Docs)), py(v)))
			}
		}
		if len(pts) == 0 {
			continue
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", s.color, strings.Join(pts, " "))
		for _, p := range pts {
			x, y, _ := strings.Cut(p, ",")
			fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3.5" fill="%s"/>`+"\n", x, y, s.color)
		}
		ly := top + 20 + float64(i)*22
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="3"/>`+"\n", w-right+15, ly, w-right+40, ly, s.color)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`+"\n", w-right+46, ly+4, s.name)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func trimFloat(v float64) string {
	if v >= 1 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%g", v)
}
