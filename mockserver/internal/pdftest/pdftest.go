// Package pdftest makes and reads PDFs for the tests of the mock server,
// its report and its document reading: small text PDFs built by hand
// (Minimal, Lines), strict validation with pdfcpu (Validate), the text of
// each page as ledongthuc/pdf reads it (Pages, Text), and the text as a
// reader sees it, a row to each baseline (Rows, Transcript). Each helper
// fails the test on error.
package pdftest

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"sort"
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

// Rows returns each page's text as a reader sees it: the pieces of text
// that share a baseline joined left to right into a row, the rows from
// the top of the page down. Pieces that meet, such as the words of a line
// set in two fonts, join as they are; a gap between them is a space, and
// a gap wider than half the type's size (between columns) two spaces.
// It reads the text operators of each page (BT, Td, TD, Tm, Tf, Tj, TJ)
// with the fonts' ToUnicode maps and, for composite fonts, their /W
// widths, which is how the PDF library the mock server uses writes text.
func Rows(t testing.TB, pdf []byte) [][]string {
	t.Helper()
	r, err := lpdf.NewReader(bytes.NewReader(pdf), int64(len(pdf)))
	if err != nil {
		t.Fatalf("ledongthuc/pdf cannot read the PDF: %v", err)
	}
	pages := make([][]string, r.NumPage())
	for i := range pages {
		p := r.Page(i + 1)
		if p.V.IsNull() {
			t.Fatalf("page %d is missing", i+1)
		}
		pieces, err := pagePieces(p)
		if err != nil {
			t.Fatalf("reading the text of page %d: %v", i+1, err)
		}
		pages[i] = rowsOf(pieces)
	}
	return pages
}

// Transcript is the text of a PDF as Rows reads it, a row a line, each
// page headed "--- page N": the form of the reports' golden files, where
// a change of a report shows as a change of the rows it touches.
func Transcript(t testing.TB, pdf []byte) string {
	t.Helper()
	var b strings.Builder
	for i, rows := range Rows(t, pdf) {
		fmt.Fprintf(&b, "--- page %d\n", i+1)
		for _, row := range rows {
			b.WriteString(row)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// textPiece is a string a page shows: where, how wide, in what size.
type textPiece struct {
	x, y, w, size float64
	text          string
}

// pdfFont is what reading text needs of a font: its encoding and, for a
// composite font, its glyphs' widths by code.
type pdfFont struct {
	enc       lpdf.TextEncoding
	composite bool
	widths    map[int]float64 // thousandths of the size, by code
	simple    lpdf.Font
}

// width is the width of a string of codes in thousandths of the size.
func (f *pdfFont) width(raw string) float64 {
	w := 0.0
	if f.composite {
		for i := 0; i+1 < len(raw); i += 2 {
			w += f.widths[int(raw[i])<<8|int(raw[i+1])]
		}
		return w
	}
	for i := 0; i < len(raw); i++ {
		w += f.simple.Width(int(raw[i]))
	}
	return w
}

// readFont reads what reading text needs of a font.
func readFont(lf lpdf.Font) *pdfFont {
	f := &pdfFont{enc: lf.Encoder(), simple: lf}
	if lf.V.Key("Subtype").Name() != "Type0" {
		return f
	}
	// A composite font: /W holds "first [w w ...]" and "first last w".
	f.composite, f.widths = true, map[int]float64{}
	w := lf.V.Key("DescendantFonts").Index(0).Key("W")
	for i := 0; i+1 < w.Len(); {
		first := int(w.Index(i).Int64())
		if next := w.Index(i + 1); next.Kind() == lpdf.Array {
			for k := 0; k < next.Len(); k++ {
				f.widths[first+k] = next.Index(k).Float64()
			}
			i += 2
			continue
		}
		last, width := int(w.Index(i+1).Int64()), w.Index(i+2).Float64()
		for c := first; c <= last; c++ {
			f.widths[c] = width
		}
		i += 3
	}
	return f
}

// pagePieces reads the strings a page shows.
func pagePieces(p lpdf.Page) (out []textPiece, err error) {
	defer func() {
		if e := recover(); e != nil {
			err = fmt.Errorf("%v", e)
		}
	}()
	fonts := map[string]*pdfFont{}
	fontOf := func(name string) *pdfFont {
		if _, ok := fonts[name]; !ok {
			fonts[name] = readFont(p.Font(name))
		}
		return fonts[name]
	}
	var x, y, lineX, lineY, size float64
	var font *pdfFont
	show := func(raw string) {
		if font == nil {
			return
		}
		w := font.width(raw) * size / 1000
		out = append(out, textPiece{x: x, y: y, w: w, size: size, text: font.enc.Decode(raw)})
		x += w
	}
	lpdf.Interpret(p.V.Key("Contents"), func(stk *lpdf.Stack, op string) {
		args := make([]lpdf.Value, stk.Len())
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch op {
		case "BT":
			x, y, lineX, lineY = 0, 0, 0, 0
		case "Td", "TD":
			if len(args) == 2 {
				lineX, lineY = lineX+args[0].Float64(), lineY+args[1].Float64()
				x, y = lineX, lineY
			}
		case "Tm":
			if len(args) == 6 {
				lineX, lineY = args[4].Float64(), args[5].Float64()
				x, y = lineX, lineY
			}
		case "Tf":
			if len(args) == 2 {
				font, size = fontOf(args[0].Name()), args[1].Float64()
			}
		case "Tj":
			if len(args) == 1 {
				show(args[0].RawString())
			}
		case "TJ":
			if len(args) == 1 {
				for i := 0; i < args[0].Len(); i++ {
					v := args[0].Index(i)
					if v.Kind() == lpdf.String {
						show(v.RawString())
					} else {
						x -= v.Float64() / 1000 * size
					}
				}
			}
		}
	})
	return out, nil
}

// rowsOf joins the pieces of a page into rows.
func rowsOf(pieces []textPiece) []string {
	const sameBaseline = 1.0 // points
	sorted := append([]textPiece(nil), pieces...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].y > sorted[j].y })
	var rows [][]textPiece
	for _, pc := range sorted {
		if n := len(rows); n > 0 && rows[n-1][0].y-pc.y < sameBaseline {
			rows[n-1] = append(rows[n-1], pc)
			continue
		}
		rows = append(rows, []textPiece{pc})
	}
	out := make([]string, 0, len(rows))
	for _, row := range rows {
		sort.SliceStable(row, func(i, j int) bool { return row[i].x < row[j].x })
		var b strings.Builder
		end := row[0].x
		for _, pc := range row {
			gap := pc.x - end
			text := b.String()
			spaced := strings.HasSuffix(text, " ") || strings.HasPrefix(pc.text, " ")
			switch {
			case text == "":
			case gap > pc.size/2:
				b.WriteString("  "[:2-min(1, len(text)-len(strings.TrimRight(text, " ")))])
			case gap > pc.size/5 && !spaced:
				b.WriteByte(' ')
			}
			b.WriteString(pc.text)
			end = pc.x + pc.w
		}
		if row := strings.TrimRight(b.String(), " "); row != "" {
			out = append(out, row)
		}
	}
	return out
}

// Norm collapses every run of white space, line breaks included, to one
// space, so that text wrapped across lines still matches.
func Norm(s string) string { return strings.Join(strings.Fields(s), " ") }

// Text is the normalised text of every page.
func Text(t testing.TB, pdf []byte) string {
	t.Helper()
	return Norm(strings.Join(Pages(t, pdf), "\n"))
}
