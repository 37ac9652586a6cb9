package pdftest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMinimalIsValid checks the hand-made PDFs themselves, so that what the
// tests read from them is a real PDF.
func TestMinimalIsValid(t *testing.T) {
	for _, filter := range []Filter{Plain, Flate} {
		t.Run("filter="+string(filter), func(t *testing.T) {
			pdf := Minimal(t, "BT /F1 12 Tf 72 720 Td (Hello) Tj 0 -14 Td [(Wor) 20 (ld)] TJ ET", filter)
			ctx := Validate(t, pdf)
			assert.Equal(t, 1, ctx.PageCount, "pdfcpu's page count")
			// ledongthuc/pdf breaks no line at Td in a simple font: compare
			// without white space.
			got := strings.Join(strings.Fields(strings.Join(Pages(t, pdf), "")), "")
			assert.Equal(t, "HelloWorld", got, "the text ledongthuc/pdf reads")
		})
	}
}
