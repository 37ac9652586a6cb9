// Package report renders the PDF report of a completed analysis, as the
// mock server serves it at GET /v1/analyses/{analysisId}/report: an A4
// document in English or Korean that a compliance officer can work from.
// It shows, in order: the analysis and its profile; the subject, with the
// identity values the documents agree on; the risk assessment; the review
// result; the findings; the recommendations; every document reviewed,
// with its type, upload time, size, SHA-256 fingerprint, readability and
// validity; the values each document shows, side by side, with those that
// disagree marked; the evidence, the passages each check read; the audit
// trail, each step with its time and duration; and a block for the
// reviewer's sign-off. An appendix of the raw data follows on request.
//
// Every sentence the mock's engine wrote is said in the report's
// language, from the facts the engine keeps of it (engine.Facts, see
// facts.go); a sentence without facts shows as given. Latin text is set
// in the Go fonts, Hangul in NanumGothic, the appendix in Go Mono (see
// text.go and package font); characters no font has show as a visible
// replacement (□) rather than failing the report.
//
// Render depends on nothing but its Data: the same data gives the same
// bytes, so a report is reproducible under a fixed clock.
package report

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/signintech/gopdf"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// Data is what a report shows: the analysis and what surrounds it.
type Data struct {
	// Analysis is the analysis reported on, normally a completed one.
	Analysis profilesvc.Analysis
	// ProfileName is the name of the analysed profile, shown with the
	// analysis's ProfileID: its name when the report is made.
	ProfileName string
	// WorkflowID and WorkflowName are the workflow the analysis ran; the
	// name may be empty, and then the ID shows alone.
	WorkflowID, WorkflowName string
	// Locale is the report's language: "ko" for Korean; anything else
	// gives English.
	Locale string
	// RawData adds an appendix with the analysis's extracted data and raw
	// action results as JSON.
	RawData bool
	// MediumRiskFrom and HighRiskFrom are the risk scores from which the
	// engine that made the analysis grades the risk medium and high; the
	// risk gauge draws its low, medium and high bands with them. Render
	// refuses data unless 0 < MediumRiskFrom < HighRiskFrom <= 100.
	MediumRiskFrom, HighRiskFrom float64
	// Documents are the analysed items as they were stored, in the order
	// of the analysis's target items; without them the report lists the
	// target items by name and type only.
	Documents []Document
	// Facts are the engine's facts of the analysis's sentences and
	// documents (engine.Result.Facts); without them the report shows
	// every sentence as given, and each document's values only as the
	// analysis's extracted values.
	Facts engine.Facts
}

// Document is an analysed item as it was stored.
type Document struct {
	// ItemID, Name and Type are the item's.
	ItemID string
	Name   string
	Type   profilesvc.ItemType
	// ContentType is the detected type of its bytes.
	ContentType string
	// UploadedAt is when it was uploaded or created.
	UploadedAt time.Time
	// Size is the length of its bytes.
	Size int64
	// SHA256 is the hexadecimal SHA-256 digest of its bytes.
	SHA256 string
}

// Page geometry, in points (A4).
const (
	pageW, pageH = 595.0, 842.0
	marginX      = 48.0
	marginTop    = 56.0
	marginBottom = 64.0
	contentW     = pageW - 2*marginX
	bodySize     = 9.5
	smallSize    = 8.5
	lineGap      = 1.35
)

type rgb struct{ r, g, b uint8 }

var (
	colInk      = rgb{33, 37, 41}
	colMuted    = rgb{108, 117, 125}
	colRule     = rgb{206, 212, 218}
	colBand     = rgb{23, 52, 88}
	colZebra    = rgb{246, 248, 250}
	colHeaderBg = rgb{233, 236, 239}
	colWhite    = rgb{255, 255, 255}
	colBandText = rgb{214, 224, 238}
	// Result colours: text and background.
	colPass, colPassBg = rgb{25, 110, 55}, rgb{218, 241, 224}
	colWarn, colWarnBg = rgb{138, 92, 0}, rgb{255, 241, 196}
	colFail, colFailBg = rgb{165, 29, 42}, rgb{248, 215, 218}
	colNone, colNoneBg = rgb{73, 80, 87}, rgb{233, 236, 239}
)

// resultColours maps a result-like value to its text and fill colours.
func resultColours(v string) (rgb, rgb, bool) {
	switch v {
	case "passed", "pass", "low", "approve", "approved", "true", "priority_3":
		return colPass, colPassBg, true
	case "warning", "needs_review", "medium", "manual_review", "pending_review", "priority_2":
		return colWarn, colWarnBg, true
	case "failed", "fail", "high", "reject", "rejected", "false", "priority_1":
		return colFail, colFailBg, true
	case "unverifiable", "unknown":
		return colNone, colNoneBg, true
	}
	return rgb{}, rgb{}, false
}

// Render draws the PDF report of an analysis and returns the document.
// It fails only on Data whose risk thresholds are out of order, or if the
// PDF cannot be drawn; it is safe to call from several goroutines at once.
func Render(d Data) ([]byte, error) {
	return render(d, nil)
}

// render is Render, calling drawn, when it is not nil, with every piece
// of text as it is drawn.
func render(d Data, drawn func(DrawnText)) ([]byte, error) {
	if !(0 < d.MediumRiskFrom && d.MediumRiskFrom < d.HighRiskFrom && d.HighRiskFrom <= 100) {
		return nil, fmt.Errorf("risk thresholds %v and %v: want 0 < MediumRiskFrom < HighRiskFrom <= 100", d.MediumRiskFrom, d.HighRiskFrom)
	}
	ts, err := parsedFaces()
	if err != nil {
		return nil, err
	}
	c := &canvas{pdf: &gopdf.GoPdf{}, ts: ts, drawn: drawn, curFace: -1}
	r := &reportWriter{canvas: c, l: langOf(d.Locale), d: d}
	return r.render()
}

// DrawnText is a piece of text a report draws, where and how it draws it:
// its page, from 1, its font's family and size, where gopdf places it
// (x, and the top of the face's ascender) and its width, in points, its
// colour and its text.
type DrawnText struct {
	Page              int
	Family            string
	Size, X, Y, Width float64
	Color             [3]uint8
	Text              string
}

// reportWriter draws one report: its sections, on a canvas.
type reportWriter struct {
	*canvas
	l    lang
	d    Data
	ed   extracted
	docs []docRow
	// groups are the values of each field counted by the engine's key
	// (valueGroups), once a field.
	groups map[string]map[string]int
}

// canvas is the document a report is drawn on, with the cursor and the
// blocks a report is made of (layout.go).
type canvas struct {
	pdf    *gopdf.GoPdf
	ts     *typeset
	y      float64 // the cursor, from the top of the page
	page   int
	loaded [faceCount]bool
	// The face and size set last in the PDF, and the text colour.
	curFace face
	curSize float64
	curCol  rgb
	pieces  []piece // scratch for drawLine
	drawn   func(DrawnText)
}

func (r *reportWriter) render() (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("rendering the report: %v", p)
		}
	}()
	pdf := r.pdf
	pdf.Start(gopdf.Config{PageSize: *gopdf.PageSizeA4, Unit: gopdf.UnitPT})
	a := &r.d.Analysis
	created := a.CreatedAt
	if a.CompletedAt != nil {
		created = *a.CompletedAt
	}
	pdf.SetInfo(gopdf.PdfInfo{
		Title:        fmt.Sprintf("%s %s", labels.title.in(r.l), a.ID),
		Subject:      fmt.Sprintf("%s: %s (%s)", labels.profile.in(r.l), r.d.ProfileName, a.ProfileID),
		Author:       labels.subtitle.in(r.l),
		Creator:      "profilesvc-mock",
		Producer:     "profilesvc-go mockserver",
		CreationDate: created,
	})
	r.ed = readExtracted(a.ExtractedData)
	r.docs = r.documents()
	r.newPage()
	r.titleBlock()
	r.subjectSection()
	r.riskSection()
	r.reviewSection()
	r.findingsSection()
	r.recommendationsSection()
	r.documentsSection()
	r.valuesSection()
	r.evidenceSection()
	r.auditSection()
	r.signOffSection()
	if r.d.RawData {
		r.appendix()
	}
	r.footers()
	var buf bytes.Buffer
	if _, err := pdf.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("writing the report: %w", err)
	}
	return infoAsObject(buf.Bytes())
}

func (r *canvas) fill(c rgb) { r.pdf.SetFillColor(c.r, c.g, c.b) }
func (r *canvas) stroke(c rgb) {
	r.pdf.SetStrokeColor(c.r, c.g, c.b)
}

// rect fills a rectangle given by its upper left corner.
func (r *canvas) rect(x, y, w, h float64, c rgb) {
	r.fill(c)
	r.pdf.RectFromUpperLeftWithStyle(x, y, w, h, "F")
}

// rule draws a horizontal line.
func (r *canvas) rule(x1, x2, y, width float64, c rgb) {
	r.stroke(c)
	r.pdf.SetLineWidth(width)
	r.pdf.Line(x1, y, x2, y)
}

func (r *canvas) newPage() {
	r.pdf.AddPage()
	r.page++
	r.y = marginTop
}

// ensure starts a new page unless h points fit below the cursor.
func (r *canvas) ensure(h float64) bool {
	if r.y+h > pageH-marginBottom {
		r.newPage()
		return true
	}
	return false
}

// setFace makes f at size the PDF's current font, adding f to the
// document the first time it is used.
func (r *canvas) setFace(f face, size float64) {
	if !r.loaded[f] {
		if err := r.pdf.AddTTFFontFromFontContainer(faceFamilies[f], r.ts.containers[f]); err != nil {
			panic(fmt.Errorf("loading the font %s: %w", faceFamilies[f], err))
		}
		r.loaded[f] = true
	}
	if f == r.curFace && size == r.curSize {
		return
	}
	if err := r.pdf.SetFont(faceFamilies[f], "", size); err != nil {
		panic(err)
	}
	r.curFace, r.curSize = f, size
}

// drawLine draws one line of clean text with its top at (x, y), and
// returns where it ends. Its pieces in different faces share one
// baseline: NanumGothic's, since gopdf puts each face's ascender at y.
func (r *canvas) drawLine(x, y float64, line string, st textStyle) float64 {
	r.pieces = r.ts.pieces(line, st, r.pieces[:0])
	ref := r.ts.metrics[hangul].Ascender()
	for _, p := range r.pieces {
		if strings.TrimLeft(p.text, " ") == "" {
			x += p.width
			continue
		}
		r.setFace(p.face, st.size)
		if st.color != r.curCol {
			r.pdf.SetTextColor(st.color.r, st.color.g, st.color.b)
			r.curCol = st.color
		}
		py := y + float64(ref-r.ts.metrics[p.face].Ascender())*st.size/1000
		r.pdf.SetXY(x, py)
		if err := r.pdf.Cell(nil, p.text); err != nil {
			panic(err)
		}
		if r.drawn != nil {
			r.drawn(DrawnText{Page: r.pageNow(), Family: faceFamilies[p.face], Size: st.size, X: x, Y: py, Width: p.width,
				Color: [3]uint8{st.color.r, st.color.g, st.color.b}, Text: p.text})
		}
		x += p.width
	}
	return x
}

// pageNow is the page being drawn: the last one, but for the footers.
func (r *canvas) pageNow() int { return r.page }

// text draws one line of text, cleaned, not wrapped, and returns where
// it ends.
func (r *canvas) text(x, y float64, s string, st textStyle) float64 {
	return r.drawLine(x, y, r.ts.clean(s), st)
}

// textWidth is the width of a line of text.
func (r *canvas) textWidth(s string, st textStyle) float64 {
	return r.ts.measure(r.ts.clean(s), st)
}

// wrap breaks text into lines that fit width in style st.
func (r *canvas) wrap(s string, width float64, st textStyle) []string {
	return r.ts.wrap(s, width, st)
}

// footers writes the footer line and the page number on every page.
func (r *reportWriter) footers() {
	n := r.pdf.GetNumberOfPages()
	st := textStyle{size: 7.5, color: colMuted}
	for i := 1; i <= n; i++ {
		if err := r.pdf.SetPage(i); err != nil {
			panic(err)
		}
		r.page = i
		r.rule(marginX, marginX+contentW, pageH-marginBottom+18, 0.5, colRule)
		r.text(marginX, pageH-marginBottom+24, labels.footer.in(r.l)+" · "+r.d.Analysis.ID, st)
		pg := r.l.pageOf(i, n)
		r.text(marginX+contentW-r.textWidth(pg, st), pageH-marginBottom+24, pg, st)
	}
}
