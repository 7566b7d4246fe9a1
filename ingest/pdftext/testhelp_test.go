package pdftext

import "github.com/ledongthuc/pdf"

type pdfValue = pdf.Value
