//go:build !unix

package main

// windowPixels is unknown here: the page view asks the terminal instead.
func windowPixels() (w, h int) { return 0, 0 }
