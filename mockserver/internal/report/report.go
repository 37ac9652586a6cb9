// Package report renders the PDF report of a completed analysis, as the
// mock server serves it at GET /v1/analyses/{analysisId}/report: an A4
// document in English or Korean with the analysis's risk assessment,
// review result, findings, recommendations, extracted values, document
// validations and audit trail, and optionally an appendix of its raw data.
//
// Render depends on nothing but its Data: the same data gives the same
// bytes, so a report is reproducible under a fixed clock. Text is drawn in
// the embedded NanumGothic font (package font); characters the font lacks
// show as a visible replacement (□) rather than failing the report.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/signintech/gopdf"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/report/font"
)

// Data is what a report shows: the analysis and the names around it.
type Data struct {
	// Analysis is the analysis reported on, normally a completed one.
	Analysis profilesvc.Analysis
	// ProfileName is the name of the analysed profile, shown with the
	// analysis's ProfileID.
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
}

// Page geometry, in points (A4).
const (
	pageW, pageH   = 595.0, 842.0
	marginX        = 48.0
	marginTop      = 56.0
	marginBottom   = 64.0
	contentW       = pageW - 2*marginX
	bodySize       = 9.5
	lineGap        = 1.35
	fontFamily     = "nanum"
	replacementRun = '□'
)

type rgb struct{ r, g, b uint8 }

var (
	colInk      = rgb{33, 37, 41}
	colMuted    = rgb{108, 117, 125}
	colRule     = rgb{206, 212, 218}
	colBand     = rgb{23, 52, 88}
	colZebra    = rgb{246, 248, 250}
	colHeaderBg = rgb{233, 236, 239}
	// Result colours: text and background.
	colPass, colPassBg = rgb{25, 110, 55}, rgb{218, 241, 224}
	colWarn, colWarnBg = rgb{138, 92, 0}, rgb{255, 241, 196}
	colFail, colFailBg = rgb{165, 29, 42}, rgb{248, 215, 218}
)

// resultColours maps a result-like value to its text and fill colours.
func resultColours(v string) (rgb, rgb, bool) {
	switch v {
	case "passed", "pass", "low", "approve", "approved", "true":
		return colPass, colPassBg, true
	case "warning", "needs_review", "unverifiable", "medium", "manual_review", "pending_review":
		return colWarn, colWarnBg, true
	case "failed", "fail", "high", "reject", "rejected", "false":
		return colFail, colFailBg, true
	}
	return rgb{}, rgb{}, false
}

// Render draws the PDF report of an analysis and returns the document.
// It fails only on Data whose risk thresholds are out of order, or if the
// PDF cannot be drawn; it is safe to call from several goroutines at once.
func Render(d Data) ([]byte, error) {
	if !(0 < d.MediumRiskFrom && d.MediumRiskFrom < d.HighRiskFrom && d.HighRiskFrom <= 100) {
		return nil, fmt.Errorf("risk thresholds %v and %v: want 0 < MediumRiskFrom < HighRiskFrom <= 100", d.MediumRiskFrom, d.HighRiskFrom)
	}
	r := &reportWriter{pdf: &gopdf.GoPdf{}, l: labelsFor(d.Locale), d: d}
	return r.render()
}

type reportWriter struct {
	pdf *gopdf.GoPdf
	l   *reportLabels
	d   Data
	y   float64
}

func (r *reportWriter) render() (out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("rendering the report: %v", p)
		}
	}()
	pdf := r.pdf
	pdf.Start(gopdf.Config{PageSize: *gopdf.PageSizeA4, Unit: gopdf.UnitPT})
	fonts, err := parsedFonts()
	if err != nil {
		return nil, err
	}
	if err := pdf.AddTTFFontFromFontContainer(fontFamily, fonts.regular); err != nil {
		return nil, fmt.Errorf("loading the font: %w", err)
	}
	if err := pdf.AddTTFFontFromFontContainer(fontFamily, fonts.bold); err != nil {
		return nil, fmt.Errorf("loading the bold font: %w", err)
	}
	a := &r.d.Analysis
	created := a.CreatedAt
	if a.CompletedAt != nil {
		created = *a.CompletedAt
	}
	pdf.SetInfo(gopdf.PdfInfo{
		Title:        fmt.Sprintf("%s %s", r.l.title, a.ID),
		Subject:      fmt.Sprintf("%s: %s (%s)", r.l.profile, r.d.ProfileName, a.ProfileID),
		Author:       r.l.subtitle,
		Creator:      "profilesvc-mock",
		Producer:     "profilesvc-go mockserver",
		CreationDate: created,
	})
	r.newPage()
	r.titleBlock()
	r.riskSection()
	r.reviewSection()
	r.findingsSection()
	r.recommendationsSection()
	r.extractedSection()
	r.validationsSection()
	r.auditSection()
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

// clean makes text drawable: characters the font lacks become a visible
// replacement, and control characters go.
func clean(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c == '\n':
			b.WriteRune(c)
		case c == '\t':
			b.WriteString("  ")
		case unicode.IsControl(c) || c == '\uFEFF':
		case c == ' ' || font.Covers(c):
			b.WriteRune(c)
		default:
			b.WriteRune(replacementRun)
		}
	}
	return b.String()
}

func (r *reportWriter) font(bold bool, size float64) {
	style := ""
	if bold {
		style = "B"
	}
	if err := r.pdf.SetFont(fontFamily, style, size); err != nil {
		panic(err)
	}
}

func (r *reportWriter) color(c rgb) { r.pdf.SetTextColor(c.r, c.g, c.b) }
func (r *reportWriter) fill(c rgb)  { r.pdf.SetFillColor(c.r, c.g, c.b) }
func (r *reportWriter) stroke(c rgb) {
	r.pdf.SetStrokeColor(c.r, c.g, c.b)
}

func (r *reportWriter) newPage() {
	r.pdf.AddPage()
	r.y = marginTop
}

// ensure starts a new page unless h points fit below the cursor.
func (r *reportWriter) ensure(h float64) bool {
	if r.y+h > pageH-marginBottom {
		r.newPage()
		return true
	}
	return false
}

// text draws one line at (x, y) in the current font.
func (r *reportWriter) text(x, y float64, s string) {
	r.pdf.SetXY(x, y)
	if err := r.pdf.Cell(nil, clean(s)); err != nil {
		panic(err)
	}
}

// wrap splits text into lines that fit width in the current font.
func (r *reportWriter) wrap(s string, width float64) []string {
	var out []string
	for _, para := range strings.Split(clean(s), "\n") {
		if strings.TrimSpace(para) == "" {
			out = append(out, "")
			continue
		}
		lines, err := r.pdf.SplitTextWithWordWrap(para, width)
		if err != nil {
			lines, err = r.pdf.SplitText(para, width)
			if err != nil {
				lines = []string{para}
			}
		}
		for _, ln := range lines {
			if w, _ := r.pdf.MeasureTextWidth(ln); w > width {
				more, err := r.pdf.SplitText(ln, width)
				if err == nil {
					out = append(out, more...)
					continue
				}
			}
			out = append(out, ln)
		}
	}
	return out
}

// paragraph draws wrapped text at the cursor.
func (r *reportWriter) paragraph(s string, size float64, c rgb) {
	r.font(false, size)
	r.color(c)
	lh := size * lineGap
	for _, ln := range r.wrap(s, contentW) {
		r.ensure(lh)
		r.text(marginX, r.y, ln)
		r.y += lh
	}
}

// heading draws a section title with a rule under it.
func (r *reportWriter) heading(s string) {
	r.ensure(60)
	r.y += 10
	r.font(true, 12.5)
	r.color(colBand)
	r.text(marginX, r.y, s)
	r.y += 17
	r.stroke(colRule)
	r.pdf.SetLineWidth(0.8)
	r.pdf.Line(marginX, r.y, marginX+contentW, r.y)
	r.y += 7
}

func (r *reportWriter) titleBlock() {
	a := &r.d.Analysis
	r.fill(colBand)
	r.pdf.RectFromUpperLeftWithStyle(0, 0, pageW, 96, "F")
	r.font(true, 20)
	r.pdf.SetTextColor(255, 255, 255)
	r.text(marginX, 28, r.l.title)
	r.font(false, 10)
	r.pdf.SetTextColor(214, 224, 238)
	r.text(marginX, 58, r.l.subtitle)
	r.y = 112

	completed := r.l.notYet
	if a.CompletedAt != nil {
		completed = r.l.formatTime(*a.CompletedAt)
	}
	wf := r.d.WorkflowID
	if r.d.WorkflowName != "" {
		wf = fmt.Sprintf("%s (%s)", r.d.WorkflowName, r.d.WorkflowID)
	}
	rows := [][2]string{
		{r.l.profile, fmt.Sprintf("%s (%s)", r.d.ProfileName, a.ProfileID)},
		{r.l.analysisID, a.ID},
		{r.l.workflow, wf},
		{r.l.requested, r.l.formatTime(a.RequestedAt)},
		{r.l.completed, completed},
		{r.l.status, word(r.l.statuses, string(a.Status))},
		{r.l.verification, word(r.l.verifications, string(a.VerificationStatus))},
	}
	r.keyValues(rows, 110)
}

// keyValues draws label/value rows.
func (r *reportWriter) keyValues(rows [][2]string, labelW float64) {
	for _, kv := range rows {
		r.font(false, bodySize)
		lines := r.wrap(kv[1], contentW-labelW)
		h := float64(len(lines))*bodySize*lineGap + 4
		r.ensure(h)
		r.font(true, bodySize)
		r.color(colMuted)
		r.text(marginX, r.y+2, kv[0])
		r.font(false, bodySize)
		r.color(colInk)
		for i, ln := range lines {
			r.text(marginX+labelW, r.y+2+float64(i)*bodySize*lineGap, ln)
		}
		r.y += h
	}
}

func (r *reportWriter) riskSection() {
	ra := r.d.Analysis.RiskAssessment
	r.heading(r.l.riskAssessment)
	if ra == nil {
		r.paragraph(r.l.none, bodySize, colMuted)
		return
	}
	r.ensure(90)
	// Badge.
	fg, bg, _ := resultColours(string(ra.RiskLevel))
	r.fill(bg)
	r.pdf.RectFromUpperLeftWithStyle(marginX, r.y, 150, 44, "F")
	r.font(false, 8.5)
	r.color(fg)
	r.text(marginX+10, r.y+7, r.l.riskLevel)
	r.font(true, 17)
	r.text(marginX+10, r.y+19, word(r.l.levels, string(ra.RiskLevel)))
	r.font(false, 8.5)
	r.color(colMuted)
	r.text(marginX+170, r.y+4, fmt.Sprintf("%s: %.0f / 100", r.l.riskScore, ra.RiskScore))
	// Gauge: low, medium and high bands, with a marker at the score.
	gx, gy, gw, gh := marginX+170, r.y+22, contentW-170, 12.0
	medium, high := r.d.MediumRiskFrom, r.d.HighRiskFrom
	bands := []struct {
		from, to float64
		c        rgb
	}{{0, medium, colPassBg}, {medium, high, colWarnBg}, {high, 100, colFailBg}}
	for _, b := range bands {
		r.fill(b.c)
		r.pdf.RectFromUpperLeftWithStyle(gx+gw*b.from/100, gy, gw*(b.to-b.from)/100, gh, "F")
	}
	score := max(0, min(100, ra.RiskScore))
	mx := gx + gw*score/100
	r.fill(fg)
	r.pdf.RectFromUpperLeftWithStyle(gx, gy+gh/2-1.5, max(mx-gx, 0.5), 3, "F")
	r.pdf.Polygon([]gopdf.Point{{X: mx - 5, Y: gy - 6}, {X: mx + 5, Y: gy - 6}, {X: mx, Y: gy + 1}}, "F")
	r.font(false, 7)
	r.color(colMuted)
	r.text(gx, gy+gh+3, "0")
	r.text(gx+gw*medium/100-4, gy+gh+3, fmt.Sprint(medium))
	r.text(gx+gw*high/100-4, gy+gh+3, fmt.Sprint(high))
	r.text(gx+gw-12, gy+gh+3, "100")
	r.y += 56
	r.font(true, bodySize)
	r.color(colInk)
	r.ensure(16)
	r.text(marginX, r.y, r.l.riskFactors)
	r.y += bodySize * 1.6
	if len(ra.RiskFactors) == 0 {
		r.paragraph(r.l.noFactors, bodySize, colMuted)
	}
	for _, f := range ra.RiskFactors {
		r.paragraph("• "+f, bodySize, colInk)
	}
}

func (r *reportWriter) reviewSection() {
	rr, err := r.d.Analysis.ExtractedData.ReviewResult()
	if err != nil || rr == nil {
		return
	}
	r.heading(r.l.reviewResult)
	r.ensure(30)
	fg, bg, _ := resultColours(string(rr.FinalAction))
	r.fill(bg)
	r.pdf.RectFromUpperLeftWithStyle(marginX, r.y, contentW, 24, "F")
	r.font(true, 11)
	r.color(fg)
	r.text(marginX+10, r.y+6, fmt.Sprintf("%s: %s   ·   %s: %s", r.l.finalAction, word(r.l.actions, string(rr.FinalAction)),
		r.l.riskLevel, word(r.l.levels, string(rr.FinalRiskLevel))))
	r.y += 32
	r.keyValues([][2]string{{r.l.actionReason, rr.FinalActionReason}, {r.l.riskReason, rr.FinalRiskLevelReason}}, 110)
}

// column is one column of a table.
type column struct {
	title string
	width float64 // fraction of the content width
	// coloured marks a column whose raw value picks the cell's colours.
	coloured bool
}

// cell is a table cell: the text shown and the raw value for colouring.
type cell struct{ text, raw string }

// table draws rows under a header that repeats on each new page.
func (r *reportWriter) table(cols []column, rows [][]cell) {
	const pad, size = 4.0, 8.5
	lh := size * lineGap
	drawHeader := func() {
		r.fill(colHeaderBg)
		r.pdf.RectFromUpperLeftWithStyle(marginX, r.y, contentW, lh+2*pad, "F")
		r.font(true, size)
		r.color(colInk)
		x := marginX
		for _, c := range cols {
			r.text(x+pad, r.y+pad, c.title)
			x += c.width * contentW
		}
		r.y += lh + 2*pad
	}
	r.ensure(3 * (lh + 2*pad))
	drawHeader()
	for i, row := range rows {
		r.font(false, size)
		wrapped := make([][]string, len(cols))
		n := 1
		for j, c := range cols {
			wrapped[j] = r.wrap(row[j].text, c.width*contentW-2*pad)
			n = max(n, len(wrapped[j]))
		}
		h := float64(n)*lh + 2*pad
		if r.ensure(h) {
			drawHeader()
			r.font(false, size)
		}
		if i%2 == 1 {
			r.fill(colZebra)
			r.pdf.RectFromUpperLeftWithStyle(marginX, r.y, contentW, h, "F")
		}
		x := marginX
		for j, c := range cols {
			w := c.width * contentW
			r.color(colInk)
			r.font(false, size)
			if c.coloured {
				if fg, bg, ok := resultColours(row[j].raw); ok {
					r.fill(bg)
					r.pdf.RectFromUpperLeftWithStyle(x+1, r.y+1, w-2, h-2, "F")
					r.color(fg)
					r.font(true, size)
				}
			}
			for k, ln := range wrapped[j] {
				r.text(x+pad, r.y+pad+float64(k)*lh, ln)
			}
			x += w
		}
		r.y += h
		r.stroke(colRule)
		r.pdf.SetLineWidth(0.4)
		r.pdf.Line(marginX, r.y, marginX+contentW, r.y)
	}
	r.y += 4
}

func (r *reportWriter) findingsSection() {
	fs := append([]profilesvc.Finding(nil), r.d.Analysis.Findings...)
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].SortOrder < fs[j].SortOrder })
	r.heading(r.l.findings)
	if len(fs) == 0 {
		r.paragraph(r.l.none, bodySize, colMuted)
		return
	}
	rows := make([][]cell, len(fs))
	for i, f := range fs {
		rows[i] = []cell{{text: f.Category}, {text: word(r.l.results, string(f.Result)), raw: string(f.Result)}, {text: f.Details}}
	}
	r.table([]column{{r.l.check, 0.26, false}, {r.l.result, 0.14, true}, {r.l.details, 0.60, false}}, rows)
}

func (r *reportWriter) recommendationsSection() {
	recs := append([]profilesvc.Recommendation(nil), r.d.Analysis.Recommendations...)
	sort.SliceStable(recs, func(i, j int) bool {
		if recs[i].Priority != recs[j].Priority {
			return recs[i].Priority < recs[j].Priority
		}
		return recs[i].SortOrder < recs[j].SortOrder
	})
	r.heading(r.l.recommendations)
	if len(recs) == 0 {
		r.paragraph(r.l.none, bodySize, colMuted)
		return
	}
	for i, rec := range recs {
		r.paragraph(fmt.Sprintf("%d. [%s %d] %s", i+1, r.l.priority, rec.Priority, rec.Content), bodySize, colInk)
		r.y += 2
	}
}

func (r *reportWriter) extractedSection() {
	ed := r.d.Analysis.ExtractedData
	values, err := ed.ExtractedValues()
	if err != nil || len(values) == 0 {
		return
	}
	cj, _ := ed.CategoryJudgements()
	r.heading(r.l.extractedValues)
	var rows [][]cell
	for _, k := range sortedKeys(values) {
		v := "—"
		if values[k] != nil {
			v = fmt.Sprint(values[k])
		}
		check := cell{}
		if cj != nil {
			if fc, ok := cj.Checks[k]; ok {
				check = cell{text: word(r.l.checkResults, string(fc.Result)), raw: string(fc.Result)}
			}
		}
		rows = append(rows, []cell{{text: label(k)}, {text: v}, check})
	}
	r.table([]column{{r.l.field, 0.28, false}, {r.l.value, 0.50, false}, {r.l.crossCheck, 0.22, true}}, rows)
	if cj != nil && cj.OverallConsistencyReason != "" {
		r.paragraph(cj.OverallConsistencyReason, 8.5, colMuted)
	}
}

func (r *reportWriter) validationsSection() {
	dv, err := r.d.Analysis.ExtractedData.DocumentValidations()
	if err != nil || len(dv) == 0 {
		return
	}
	r.heading(r.l.documentValidations)
	var rows [][]cell
	for _, k := range sortedKeys(dv) {
		v := dv[k]
		yn, raw := r.l.no, "false"
		if v.IsValid {
			yn, raw = r.l.yes, "true"
		}
		rows = append(rows, []cell{{text: label(k)}, {text: yn, raw: raw}, {text: v.Reason}})
	}
	r.table([]column{{r.l.document, 0.24, false}, {r.l.valid, 0.12, true}, {r.l.reason, 0.64, false}}, rows)
}

func (r *reportWriter) auditSection() {
	log := r.d.Analysis.AgentAuditLog
	if len(log) == 0 {
		return
	}
	r.heading(r.l.auditTrail)
	rows := make([][]cell, len(log))
	for i, e := range log {
		res := string(e.VerificationStatus)
		shown := res
		switch e.VerificationStatus {
		case profilesvc.StepPassed:
			shown = word(r.l.results, "passed")
		case profilesvc.StepNeedsReview:
			shown = word(r.l.checkResults, "needs_review")
		case profilesvc.StepFailed:
			shown = word(r.l.results, "failed")
		}
		rows[i] = []cell{{text: fmt.Sprintf("%d. %s", e.WorkID, e.ActionName)}, {text: e.Category}, {text: shown, raw: res},
			{text: fmt.Sprintf("%d ms", e.DurationMs)}}
	}
	r.table([]column{{r.l.action, 0.40, false}, {r.l.category, 0.26, false}, {r.l.result, 0.16, true}, {r.l.duration, 0.18, false}}, rows)
}

func (r *reportWriter) appendix() {
	r.newPage()
	r.heading(r.l.appendix)
	r.paragraph(r.l.appendixNote, 8.5, colMuted)
	r.y += 4
	blocks := []struct {
		title string
		v     any
	}{{r.l.rawExtracted, json.RawMessage(r.d.Analysis.ExtractedData)}, {r.l.rawActions, r.d.Analysis.RawActionResults}}
	for _, b := range blocks {
		r.ensure(30)
		r.font(true, 10)
		r.color(colInk)
		r.text(marginX, r.y, b.title)
		r.y += 15
		pretty, err := json.MarshalIndent(b.v, "", "  ")
		if err != nil {
			pretty = []byte(fmt.Sprint(b.v))
		}
		r.code(string(pretty))
		r.y += 8
	}
}

// code draws preformatted text in small type, wrapping long lines and
// breaking pages as needed.
func (r *reportWriter) code(s string) {
	const size = 7.2
	lh := size * 1.3
	r.font(false, size)
	r.color(colInk)
	for _, line := range strings.Split(clean(s), "\n") {
		indent := len(line) - len(strings.TrimLeft(line, " "))
		pieces, err := r.pdf.SplitText(line, contentW-8)
		if err != nil || len(pieces) == 0 {
			pieces = []string{line}
		}
		for k, p := range pieces {
			if r.ensure(lh) {
				r.font(false, size)
				r.color(colInk)
			}
			x := marginX + 4
			if k > 0 {
				x += float64(indent) * 3.6
			}
			r.text(x, r.y, p)
			r.y += lh
		}
	}
}

// footers writes the page numbers and the footer line on every page.
func (r *reportWriter) footers() {
	n := r.pdf.GetNumberOfPages()
	for i := 1; i <= n; i++ {
		if err := r.pdf.SetPage(i); err != nil {
			panic(err)
		}
		r.stroke(colRule)
		r.pdf.SetLineWidth(0.5)
		r.pdf.Line(marginX, pageH-marginBottom+18, marginX+contentW, pageH-marginBottom+18)
		r.font(false, 7.5)
		r.color(colMuted)
		r.text(marginX, pageH-marginBottom+24, fmt.Sprintf("%s · %s", r.l.footer, r.d.Analysis.ID))
		pg := fmt.Sprintf("%s %d %s %d", r.l.page, i, r.l.of, n)
		if r.d.Locale == "ko" {
			pg = fmt.Sprintf("%d / %d %s", i, n, r.l.page)
		}
		w, _ := r.pdf.MeasureTextWidth(pg)
		r.text(marginX+contentW-w, pageH-marginBottom+24, pg)
	}
}

// reportFonts are the two weights of the report's font, parsed once: the
// 4.6 MB files take longer to parse than a report takes to draw. Each
// report gets its own subset of them; the parsed data is only read.
type reportFonts struct{ regular, bold *gopdf.FontContainer }

// parsedFonts parses the fonts on first use; every later call, from any
// goroutine, gets the same parsed data (or the same error).

var parsedFonts = sync.OnceValues(func() (reportFonts, error) {
	var regular, bold gopdf.FontContainer
	if err := regular.AddTTFFontData(fontFamily, font.Regular); err != nil {
		return reportFonts{}, fmt.Errorf("parsing the font: %w", err)
	}
	if err := bold.AddTTFFontDataWithOption(fontFamily, font.Bold, gopdf.TtfOption{Style: gopdf.Bold}); err != nil {
		return reportFonts{}, fmt.Errorf("parsing the bold font: %w", err)
	}
	return reportFonts{&regular, &bold}, nil
})

// sortedKeys returns a map's keys in order, for deterministic output.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// label turns a field or document key into words: "date_of_birth" shows as
// "date of birth".
func label(f string) string { return strings.ReplaceAll(f, "_", " ") }
