package pdftext

import (
	"bytes"

	"github.com/ledongthuc/pdf"
)

type pdfValue = pdf.Value

func newTestReader(data []byte) (*pdf.Reader, error) {
	return pdf.NewReader(bytes.NewReader(data), int64(len(data)))
}

func pdfInterpretForTest(v pdf.Value) {
	pdf.Interpret(v, func(stk *pdf.Stack, op string) {})
}
