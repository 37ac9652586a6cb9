package mockserver

// Tests of pdfText, the reader of text-based PDFs that the analysis engine
// and the items' url artifact use, on PDFs built by hand here. Every
// helper here starts with "pdfT".

import (
	"bytes"
	"compress/zlib"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/profilesvc/profilesvc-go"
)

// pdfTStreamFilter is how pdfTMinimalPDF stores its content stream.
type pdfTStreamFilter string

const (
	pdfTPlain   pdfTStreamFilter = ""
	pdfTFlate   pdfTStreamFilter = "FlateDecode"
	pdfTDCT     pdfTStreamFilter = "DCTDecode"     // stored as is: an "image"
	pdfTBadZlib pdfTStreamFilter = "BadFlate"      // claims FlateDecode, holds no zlib data
	pdfTFlateA  pdfTStreamFilter = "FlateDecode[]" // FlateDecode in a filter array
)

// pdfTMinimalPDF builds a one-page PDF whose page shows content, a content
// stream, with Helvetica (a standard Type1 font, WinAnsiEncoding) as /F1.
// The cross-reference table's offsets are exact, so that strict readers
// accept it.
func pdfTMinimalPDF(t *testing.T, content string, filter pdfTStreamFilter) []byte {
	t.Helper()
	data := []byte(content)
	dict := ""
	switch filter {
	case pdfTPlain:
	case pdfTFlate, pdfTFlateA:
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
		if filter == pdfTFlateA {
			dict = " /Filter [/FlateDecode]"
		}
	case pdfTDCT:
		dict = " /Filter /DCTDecode"
	case pdfTBadZlib:
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

// pdfTLinesPDF is a compressed text PDF showing each line with Tj, one
// line below the other (Td).
func pdfTLinesPDF(t *testing.T, lines ...string) []byte {
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
	return pdfTMinimalPDF(t, c.String(), pdfTFlate)
}

// TestPDFTextFixtureIsValid checks the hand-made PDFs themselves, so that
// what pdfText reads is a real PDF.
func TestPDFTextFixtureIsValid(t *testing.T) {
	for _, filter := range []pdfTStreamFilter{pdfTPlain, pdfTFlate} {
		t.Run("filter="+string(filter), func(t *testing.T) {
			pdf := pdfTMinimalPDF(t, "BT /F1 12 Tf 72 720 Td (Hello) Tj 0 -14 Td [(Wor) 20 (ld)] TJ ET", filter)
			ctx := pdfTValidate(t, pdf)
			if ctx.PageCount != 1 {
				t.Errorf("pdfcpu counts %d pages, want 1", ctx.PageCount)
			}
			// ledongthuc/pdf breaks no line at Td in a simple font: compare
			// without white space.
			if got := strings.Join(strings.Fields(strings.Join(pdfTPages(t, pdf), "")), ""); got != "HelloWorld" {
				t.Errorf("ledongthuc/pdf reads %q, want %q", got, "HelloWorld")
			}
		})
	}
}

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
		for _, filter := range []pdfTStreamFilter{pdfTPlain, pdfTFlate} {
			name := tc.name + "/plain"
			if filter == pdfTFlate {
				name = tc.name + "/flate"
			}
			t.Run(name, func(t *testing.T) {
				got, ok := pdfText(pdfTMinimalPDF(t, tc.content, filter))
				if got != tc.want || !ok {
					t.Errorf("pdfText = (%q, %v), want (%q, true)", got, ok, tc.want)
				}
				if !utf8.ValidString(got) {
					t.Errorf("pdfText gives invalid UTF-8 %q", got)
				}
			})
		}
	}
	t.Run("FlateDecode in a filter array", func(t *testing.T) {
		got, ok := pdfText(pdfTMinimalPDF(t, `BT /F1 12 Tf 72 720 Td (In an array) Tj ET`, pdfTFlateA))
		if got != "In an array" || !ok {
			t.Errorf("pdfText = (%q, %v), want (%q, true)", got, ok, "In an array")
		}
	})
}

// TestPDFTextNone checks the inputs that have no text to read.
func TestPDFTextNone(t *testing.T) {
	whole := pdfTMinimalPDF(t, `BT /F1 12 Tf 72 720 Td (cut off) Tj ET`, pdfTPlain)
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"plain text", []byte("Full Name: Jane Doe (x) Tj")},
		{"PNG", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00")},
		{"header only", []byte("%PDF-1.7\n")},
		{"PDF without text", pdfTMinimalPDF(t, "q 0.5 g 72 72 200 100 re f Q 0 0 m 300 300 l S", pdfTPlain)},
		{"compressed PDF without text", pdfTMinimalPDF(t, "q 0.5 g 72 72 200 100 re f Q", pdfTFlate)},
		{"PDF with empty strings only", pdfTMinimalPDF(t, "BT /F1 12 Tf 72 720 Td () Tj [() -200 ()] TJ ET", pdfTPlain)},
		{"text in a stream of another filter", pdfTMinimalPDF(t, "BT /F1 12 Tf 72 720 Td (an image) Tj ET", pdfTDCT)},
		{"corrupt Flate data", pdfTMinimalPDF(t, "BT /F1 12 Tf 72 720 Td (not zlib) Tj ET", pdfTBadZlib)},
		{"truncated inside the stream", whole[:bytes.Index(whole, []byte("cut off"))]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, ok := pdfText(tc.data); got != "" || ok {
				t.Errorf("pdfText = (%q, %v), want (\"\", false)", got, ok)
			}
		})
	}
}

// pdfTPassportLines is a passport as a text PDF shows it.
var pdfTPassportLines = []string{
	"PASSPORT",
	"Full Name: Jane Doe",
	"Date of Birth: 1990-04-12",
	"Passport Number: X1234567",
	"Expiry Date: 2031-05-01",
}

// pdfTUpload uploads a file item as multipart/form-data and returns the
// answer's item.
func pdfTUpload(t *testing.T, srv *Server, folderID, filename, contentType string, data []byte) *profilesvc.Item {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, filename))
	h.Set("Content-Type", contentType)
	part, err := mw.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := part.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	r := pdfTDo(t, srv, "POST", "/v1/folders/"+folderID+"/items", mw.FormDataContentType(), body.Bytes())
	if r.status != http.StatusCreated {
		t.Fatalf("uploading %s: %s", filename, r)
	}
	var it profilesvc.Item
	if err := json.Unmarshal(r.body, &it); err != nil {
		t.Fatalf("upload answer %s: %v", r, err)
	}
	return &it
}

// TestPDFTextThroughTheServer uploads a text PDF, reads its text from the
// item's url, and analyses it.
func TestPDFTextThroughTheServer(t *testing.T) {
	want := strings.Join(pdfTPassportLines, "\n")
	pdf := pdfTLinesPDF(t, pdfTPassportLines...)
	for _, route := range []string{"multipart upload", "AddFileItem"} {
		t.Run(route, func(t *testing.T) {
			srv := NewTest(t, WithManualAnalyses(), WithClock(NewFakeClock(pdfTStart)), WithIDSeed(11))
			p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Text PDF"})
			if err != nil {
				t.Fatal(err)
			}
			var it *profilesvc.Item
			if route == "AddFileItem" {
				if it, err = srv.AddFileItem(p.Folders[0].ID, "passport.pdf", pdf); err != nil {
					t.Fatalf("AddFileItem: %v", err)
				}
			} else {
				it = pdfTUpload(t, srv, p.Folders[0].ID, "passport.pdf", "application/pdf", pdf)
			}
			if it.Type != profilesvc.ItemFile || it.Detected == nil || it.Detected.ContentType != "application/pdf" {
				t.Fatalf("item type %q, detected %+v: want a file detected as application/pdf", it.Type, it.Detected)
			}
			if !strings.HasPrefix(it.URL, srv.URL+"/") {
				t.Fatalf("item url %q is not on the server %s", it.URL, srv.URL)
			}

			// The url artifact serves the text read from the PDF.
			r := pdfTDo(t, srv, "GET", strings.TrimPrefix(it.URL, srv.URL), "", nil)
			if r.status != http.StatusOK {
				t.Fatalf("GET %s: %s", it.URL, r)
			}
			if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
				t.Errorf("url Content-Type = %q, want text/plain", ct)
			}
			if string(r.body) != want {
				t.Errorf("url text = %q, want %q", r.body, want)
			}
			if text, ok := srv.ItemText(it.ID); !ok || text != want {
				t.Errorf("ItemText = (%q, %v), want (%q, true)", text, ok, want)
			}
			// The original is the PDF, unchanged.
			if o := pdfTDo(t, srv, "GET", strings.TrimPrefix(it.StorageOriginalURL, srv.URL), "", nil); o.status != http.StatusOK || !bytes.Equal(o.body, pdf) {
				t.Errorf("storageOriginalUrl gives %d, %d bytes; want 200 and the %d bytes uploaded", o.status, len(o.body), len(pdf))
			}

			// The engine reads the same text.
			id := pdfTStartAnalysis(t, srv, p.ID, it.ID)
			if err := srv.CompleteAnalysis(id); err != nil {
				t.Fatalf("CompleteAnalysis: %v", err)
			}
			a, ok := srv.Analysis(id)
			if !ok || a.Status != profilesvc.AnalysisCompleted {
				t.Fatalf("analysis %s: %+v", id, a)
			}
			values, err := a.ExtractedData.ExtractedValues()
			if err != nil {
				t.Fatalf("extracted_values: %v", err)
			}
			for field, v := range map[string]string{"full_name": "Jane Doe", "date_of_birth": "1990-04-12", "document_number": "X1234567", "expiry_date": "2031-05-01"} {
				if got, _ := values[field].(string); got != v {
					t.Errorf("extracted_values.%s = %#v, want %q", field, values[field], v)
				}
			}
		})
	}
}
