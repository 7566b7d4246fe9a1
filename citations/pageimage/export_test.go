package pageimage

import "image/png"

// SetPNGCompression sets the level PNGs are written at, for a benchmark
// to compare with what was; it returns what restores it.
func SetPNGCompression(l png.CompressionLevel) (restore func()) {
	old := pngEncoder.CompressionLevel
	pngEncoder.CompressionLevel = l
	return func() { pngEncoder.CompressionLevel = old }
}
