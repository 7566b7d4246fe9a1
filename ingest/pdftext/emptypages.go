package pdftext

import "strings"

// EmptyPages lists the pages (1-based) on which no text was found: scanned
// pages, or pages holding only pictures. An OCR pass reads these.
func (r *Result) EmptyPages() []int {
	var empty []int
	for i := range r.Pages {
		start, end := len(r.Text), len(r.Text)
		if i < len(r.PageStarts) {
			start = int(r.PageStarts[i])
		}
		if i+1 < len(r.PageStarts) {
			end = int(r.PageStarts[i+1])
		}
		if start >= end || strings.TrimSpace(r.Text[start:end]) == "" {
			empty = append(empty, i+1)
		}
	}
	return empty
}
