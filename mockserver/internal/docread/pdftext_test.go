package docread_test

// Tests of PDFText, the reader of text-based PDFs that the analysis engine
// and the items' url artifact use, on PDFs built by hand (package pdftest).

import (
	"bytes"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/profilesvc/profilesvc-go/mockserver/internal/docread"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/pdftest"
)

// TestPDFText reads the text of content streams, uncompressed and
// Flate-compressed.
func TestPDFText(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    string
	}{
		{"Tj", `BT /F1 12 Tf 72 720 Td (Hello, world) Tj ET`, "Hello, world"},
		{"Td starts a line",
			"BT\n/F1 12 Tf\n72 720 Td\n(PASSPORT) Tj\n0 -14 Td\n(Full Name: Jane Doe) Tj\n0 -14 Td\n(Date of Birth: 1990-04-12) Tj\nET",
			"PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12"},
		{"TD starts a line", `BT /F1 12 Tf 72 720 TD (one) Tj 0 -14 TD (two) Tj ET`, "one\ntwo"},
		{"Tm starts a line",
			`BT /F1 12 Tf 1 0 0 1 72 720 Tm (PASSPORT) Tj 1 0 0 1 72 706 Tm (Full Name: Jane Doe) Tj ET`,
			"PASSPORT\nFull Name: Jane Doe"},
		{"T* starts a line", `BT /F1 12 Tf 14 TL 72 720 Td (first) Tj T* (second) Tj T* (third) Tj ET`, "first\nsecond\nthird"},
		{"TJ joins its strings and skips the kerning", `BT /F1 12 Tf 72 720 Td [(Ja) -20 (ne) ( ) (D) 30.5 (oe)] TJ ET`, "Jane Doe"},
		{"' moves to the next line and shows",
			`BT /F1 12 Tf 14 TL 72 720 Td (first) Tj (second) ' (third) ' ET`, "first\nsecond\nthird"},
		{`" sets the spacing, moves and shows`, `BT /F1 12 Tf 14 TL 72 720 Td (a) Tj 1 0.5 (b) " ET`, "a\nb"},
		{"Tj after TJ on one line", `BT /F1 12 Tf 72 720 Td [(Full) ( Name: )] TJ (Jane Doe) Tj ET`, "Full Name: Jane Doe"},
		{"escaped parentheses and backslash", `BT /F1 12 Tf 72 720 Td (\(paren\) back\\slash) Tj ET`, `(paren) back\slash`},
		{"escaped newline, tab and carriage return", `BT /F1 12 Tf 72 720 Td (x\ny\tz) Tj ET`, "x\ny\tz"},
		{"octal escapes", `BT /F1 12 Tf 72 720 Td (\101\102C \53 \0617) Tj ET`, "ABC + 17"},
		{"balanced parentheses need no escape", `BT /F1 12 Tf 72 720 Td (f(x) = (y)) Tj ET`, "f(x) = (y)"},
		{"backslash-newline continues the string", "BT /F1 12 Tf 72 720 Td (long \\\nline) Tj ET", "long line"},
		{"every text object on its own line",
			`BT /F1 12 Tf 72 720 Td (Name: A) Tj ET BT /F1 12 Tf 72 700 Td (Code: B) Tj ET`, "Name: A\nCode: B"},
		{"comments are skipped", "% (not shown) Tj\nBT /F1 12 Tf 72 720 Td (shown) Tj ET % (nor this) Tj", "shown"},
		{"graphics operators are skipped",
			"q 0.9 g 10 10 200 50 re f Q 0 0 m 100 100 l S\nq 1 0 0 1 5 5 cm BT /F1 12 Tf 72 720 Td (Boxed) Tj ET Q", "Boxed"},
		{"hex strings", `BT /F1 12 Tf 72 720 Td <4A616E6520446F65> Tj ET`, "Jane Doe"},
		{"WinAnsi accented Latin decodes to UTF-8", `BT /F1 12 Tf 72 720 Td (Jos\351 Mu\361oz) Tj ET`, "José Muñoz"},
	}
	for _, tc := range tests {
		for _, filter := range []pdftest.Filter{pdftest.Plain, pdftest.Flate} {
			name := tc.name + "/plain"
			if filter == pdftest.Flate {
				name = tc.name + "/flate"
			}
			t.Run(name, func(t *testing.T) {
				got, ok := docread.PDFText(pdftest.Minimal(t, tc.content, filter))
				assert.Equal(t, tc.want, got)
				assert.True(t, ok, "readable")
				assert.True(t, utf8.ValidString(got), "PDFText gives invalid UTF-8 %q", got)
			})
		}
	}
	t.Run("FlateDecode in a filter array", func(t *testing.T) {
		got, ok := docread.PDFText(pdftest.Minimal(t, `BT /F1 12 Tf 72 720 Td (In an array) Tj ET`, pdftest.FlateArray))
		assert.Equal(t, "In an array", got)
		assert.True(t, ok, "readable")
	})
}

// TestPDFTextNone checks the inputs that have no text to read.
func TestPDFTextNone(t *testing.T) {
	whole := pdftest.Minimal(t, `BT /F1 12 Tf 72 720 Td (cut off) Tj ET`, pdftest.Plain)
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"plain text", []byte("Full Name: Jane Doe (x) Tj")},
		{"PNG", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00")},
		{"header only", []byte("%PDF-1.7\n")},
		{"PDF without text", pdftest.Minimal(t, "q 0.5 g 72 72 200 100 re f Q 0 0 m 300 300 l S", pdftest.Plain)},
		{"compressed PDF without text", pdftest.Minimal(t, "q 0.5 g 72 72 200 100 re f Q", pdftest.Flate)},
		{"PDF with empty strings only", pdftest.Minimal(t, "BT /F1 12 Tf 72 720 Td () Tj [() -200 ()] TJ ET", pdftest.Plain)},
		{"text in a stream of another filter", pdftest.Minimal(t, "BT /F1 12 Tf 72 720 Td (an image) Tj ET", pdftest.DCT)},
		{"corrupt Flate data", pdftest.Minimal(t, "BT /F1 12 Tf 72 720 Td (not zlib) Tj ET", pdftest.BadFlate)},
		{"truncated inside the stream", whole[:bytes.Index(whole, []byte("cut off"))]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := docread.PDFText(tc.data)
			assert.Empty(t, got)
			assert.False(t, ok, "readable")
		})
	}
}
