// Package pdftest makes and reads PDFs for the tests of the mock server,
// its report and its document reading: small text PDFs built by hand
// (Minimal, Lines), strict validation with pdfcpu (Validate), and the text
// of each page as ledongthuc/pdf reads it (Pages, Text). Each helper fails
// the test on error.
package pdftest

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"strings"
	"sync"
	"testing"

	lpdf "github.com/ledongthuc/pdf"
	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// Filter is how Minimal stores its content stream.
type Filter string

const (
	// Plain stores the stream as it is, with no filter.
	Plain Filter = ""
	// Flate compresses the stream with /Filter /FlateDecode.
	Flate Filter = "FlateDecode"
	// DCT stores the stream as it is under /Filter /DCTDecode: an "image".
	DCT Filter = "DCTDecode"
	// BadFlate claims /FlateDecode but holds no zlib data.
	BadFlate Filter = "BadFlate"
	// FlateArray compresses the stream with /Filter [/FlateDecode], the
	// filter in an array.
	FlateArray Filter = "FlateDecode[]"
)

// Minimal builds a one-page PDF whose page shows content, a content
// stream, with Helvetica (a standard Type1 font, WinAnsiEncoding) as /F1.
// The cross-reference table's offsets are exact, so that strict readers
// accept it.
func Minimal(t testing.TB, content string, filter Filter) []byte {
	t.Helper()
	data := []byte(content)
	dict := ""
	switch filter {
	case Plain:
	case Flate, FlateArray:
		var buf bytes.Buffer
		zw := zlib.NewWriter(&buf)
		if _, err := zw.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		data = buf.Bytes()
		dict = " /Filter /FlateDecode"
		if filter == FlateArray {
			dict = " /Filter [/FlateDecode]"
		}
	case DCT:
		dict = " /Filter /DCTDecode"
	case BadFlate:
		dict = " /Filter /FlateDecode"
	default:
		t.Fatalf("unknown filter %q", filter)
	}
	stream := fmt.Sprintf("<< /Length %d%s >>\nstream\n%s\nendstream", len(data), dict, data)
	objects := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		stream,
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
	}
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.Bytes()
}

// Lines is a compressed text PDF showing each line with Tj, one line
// below the other (Td).
func Lines(t testing.TB, lines ...string) []byte {
	t.Helper()
	var c strings.Builder
	c.WriteString("BT\n/F1 11 Tf\n72 740 Td\n")
	for i, ln := range lines {
		if i > 0 {
			c.WriteString("0 -15 Td\n")
		}
		r := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`)
		fmt.Fprintf(&c, "(%s) Tj\n", r.Replace(ln))
	}
	c.WriteString("ET\n")
	return Minimal(t, c.String(), Flate)
}

var configOnce sync.Once

// strictConfig is pdfcpu's configuration for strict validation, with no
// configuration directory written to the user's home.
func strictConfig() *model.Configuration {
	configOnce.Do(api.DisableConfigDir)
	conf := model.NewDefaultConfiguration()
	conf.ValidationMode = model.ValidationStrict
	conf.Cmd = model.VALIDATE
	return conf
}

// Validate reads a PDF with pdfcpu and validates it in strict mode, as
// api.Validate does, and returns the validated context. A PDF without a
// page fails too.
func Validate(t testing.TB, pdf []byte) *model.Context {
	t.Helper()
	conf := strictConfig()
	if conf.ValidationMode != model.ValidationStrict {
		t.Fatalf("validation mode %s, want strict", conf.ValidationModeString())
	}
	ctx, err := api.ReadContext(bytes.NewReader(pdf), conf)
	if err != nil {
		t.Fatalf("pdfcpu cannot read the PDF: %v", err)
	}
	if err := api.ValidateContext(ctx); err != nil {
		t.Fatalf("pdfcpu strict validation: %v", err)
	}
	if ctx.PageCount < 1 {
		t.Fatalf("pdfcpu counts %d pages", ctx.PageCount)
	}
	return ctx
}

// Pages extracts each page's text with ledongthuc/pdf.
func Pages(t testing.TB, pdf []byte) []string {
	t.Helper()
	r, err := lpdf.NewReader(bytes.NewReader(pdf), int64(len(pdf)))
	if err != nil {
		t.Fatalf("ledongthuc/pdf cannot read the PDF: %v", err)
	}
	pages := make([]string, r.NumPage())
	for i := range pages {
		p := r.Page(i + 1)
		if p.V.IsNull() {
			t.Fatalf("page %d is missing", i+1)
		}
		s, err := p.GetPlainText(nil)
		if err != nil {
			t.Fatalf("extracting the text of page %d: %v", i+1, err)
		}
		pages[i] = s
	}
	return pages
}

// Norm collapses every run of white space, line breaks included, to one
// space, so that text wrapped across lines still matches.
func Norm(s string) string { return strings.Join(strings.Fields(s), " ") }

// Text is the normalised text of every page.
func Text(t testing.TB, pdf []byte) string {
	t.Helper()
	return Norm(strings.Join(Pages(t, pdf), "\n"))
}
