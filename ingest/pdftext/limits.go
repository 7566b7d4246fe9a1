package pdftext

import "github.com/ledongthuc/pdf"

// Limits that keep memory and time bounded on hostile or broken files.
const (
	maxStreamBytes = 64 << 20 // decoded bytes read from one content stream or font file
	maxPageOps     = 4_000_000
	maxPageGlyphs  = 1_000_000
	maxFormDepth   = 12
	maxFormCalls   = 4096 // form XObject invocations per page
	maxCMapEntries = 1 << 20
)

// floats reads a numeric array.
func floats(v pdf.Value, max int) []float64 {
	n := min(v.Len(), max)
	out := make([]float64, n)
	for i := range n {
		out[i] = v.Index(i).Float64()
	}
	return out
}
