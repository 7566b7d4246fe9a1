package config

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
	OCR string `json:"ocr"`
	// OCRLang are Tesseract language codes joined by "+" ("eng+deu");
	// empty means English.
	OCRLang string `json:"ocr_lang"`
}

// OCREnabled reports whether the config asks for scanned pages to be
// read by OCR.
func (c Config) OCREnabled() bool { return c.OCR == OCRAuto }
