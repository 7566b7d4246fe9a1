package config

import (
	"fmt"
	"strings"
)

// OCR modes (the config's ocr key).
const (
	OCROff  = "off"
	OCRAuto = "auto"
)

// OCRConfig says how `citelens add` reads the pages of a PDF that have no
// text layer (scans). It lives in Config because that is where the one
// config file is read.
type OCRConfig struct {
	// OCR is OCRAuto (read such pages with Tesseract) or OCROff (refuse
	// a PDF with no text at all, the default); `add --ocr` overrides it.
	OCR string `toml:"ocr" json:"ocr"`
	// OCRLang are Tesseract language codes joined by "+" ("eng+deu");
	// empty means English.
	OCRLang string `toml:"ocr_lang" json:"ocr_lang"`
}

// fileOCRConfig is the file's shape of OCRConfig.
type fileOCRConfig struct {
	OCR     *string `toml:"ocr"`
	OCRLang *string `toml:"ocr_lang"`
}

// readOCR takes the OCR settings the file has.
func (c *Config) readOCR(f fileOCRConfig) {
	if f.OCR != nil {
		c.OCR = strings.ToLower(strings.TrimSpace(*f.OCR))
		c.Sources["ocr"] = "file"
	}
	if f.OCRLang != nil {
		c.OCRLang = strings.TrimSpace(*f.OCRLang)
		c.Sources["ocr_lang"] = "file"
	}
}

// validateOCR checks the OCR settings.
func (c *Config) validateOCR() error {
	switch c.OCR {
	case "", OCROff, OCRAuto:
	default:
		return errorAt(c, "ocr", "is %q; it must be \"auto\" (read scanned pages with Tesseract) or \"off\"", c.OCR)
	}
	if strings.ContainsAny(c.OCRLang, " \t/\\") {
		return errorAt(c, "ocr_lang", "is %q; it must be Tesseract language codes joined by +, such as \"eng+deu\"", c.OCRLang)
	}
	return nil
}

// OCREnabled reports whether the config asks for scanned pages to be
// read by OCR.
func (c Config) OCREnabled() bool { return c.OCR == OCRAuto }

// errorAt words a bad setting as validate does: its name and where it
// came from, then what is wrong.
func errorAt(c *Config, name, format string, args ...any) error {
	return fmt.Errorf("%w: %s %s", ErrBadConfig, c.from(name), fmt.Sprintf(format, args...))
}
