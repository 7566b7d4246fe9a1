package config_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/citelens/citelens/internal/config"
)

func TestOCRSettings(t *testing.T) {
	t.Parallel()
	cfg, err := config.LoadFrom(writeFile(t, "ocr = \"Auto\"\nocr_lang = \"eng+deu\"\n"), env(nil))
	if err != nil || !cfg.OCREnabled() || cfg.OCRLang != "eng+deu" || cfg.Sources["ocr"] != "file" {
		t.Fatalf("%v %+v", err, cfg.OCRConfig)
	}
	var shown []string
	for _, s := range cfg.Settings() {
		shown = append(shown, s.Name+"="+s.Value)
	}
	if !strings.Contains(strings.Join(shown, " "), "ocr=auto ocr_lang=eng+deu") {
		t.Errorf("settings %v", shown)
	}
	if cfg, _ := config.LoadFrom(writeFile(t, ""), env(nil)); cfg.OCREnabled() {
		t.Error("OCR is on by default")
	}
	for _, bad := range []string{`ocr = "sometimes"`, `ocr_lang = "eng deu"`} {
		_, err := config.LoadFrom(writeFile(t, bad), env(nil))
		name, _, _ := strings.Cut(bad, " ")
		if !errors.Is(err, config.ErrBadConfig) || !strings.Contains(err.Error(), name+" in ") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
