package report_test

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/signintech/gopdf"

	"github.com/profilesvc/profilesvc-go/mockserver/internal/report"
)

// The benchmark's goal: a report takes at most this many times as long
// as the baseline, a minimal gopdf document of the same text.
const ratioGoal = 1.5

// baseline is the minimal document a report is measured against: a
// gopdf document with the report's fonts, drawing the very pieces of text
// the report draws, each at its place, in its font, size and colour, page
// by page, and nothing else: no measuring, wrapping, tables, shapes or
// metadata. Its fonts are parsed once, as the report's are.
type baseline struct {
	texts      []report.DrawnText
	families   []string // in the order the report first uses them
	containers map[string]*gopdf.FontContainer
}

// newBaseline prepares the baseline of the report of d.
func newBaseline(b *testing.B, d report.Data) *baseline {
	b.Helper()
	texts, err := report.DrawnTexts(d)
	if err != nil {
		b.Fatal(err)
	}
	bl := &baseline{texts: texts, containers: map[string]*gopdf.FontContainer{}}
	data := report.FontFamilies()
	for _, t := range texts {
		if _, ok := bl.containers[t.Family]; ok {
			continue
		}
		c := &gopdf.FontContainer{}
		if err := c.AddTTFFontData(t.Family, data[t.Family]); err != nil {
			b.Fatal(err)
		}
		bl.containers[t.Family] = c
		bl.families = append(bl.families, t.Family)
	}
	return bl
}

// render draws the baseline document.
func (bl *baseline) render() ([]byte, error) {
	pdf := &gopdf.GoPdf{}
	pdf.Start(gopdf.Config{PageSize: *gopdf.PageSizeA4, Unit: gopdf.UnitPT})
	for _, f := range bl.families {
		if err := pdf.AddTTFFontFromFontContainer(f, bl.containers[f]); err != nil {
			return nil, err
		}
	}
	added, page := 0, 0
	for _, t := range bl.texts {
		switch {
		case t.Page > added:
			for added < t.Page {
				pdf.AddPage()
				added++
			}
			page = added
		case t.Page != page:
			// Back to an earlier page, as the report does for its
			// footers.
			if err := pdf.SetPage(t.Page); err != nil {
				return nil, err
			}
			page = t.Page
		}
		if err := pdf.SetFont(t.Family, "", t.Size); err != nil {
			return nil, err
		}
		pdf.SetTextColor(t.Color[0], t.Color[1], t.Color[2])
		pdf.SetXY(t.X, t.Y)
		if err := pdf.Cell(nil, t.Text); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	_, err := pdf.WriteTo(&buf)
	return buf.Bytes(), err
}

// timed runs f and returns how long it took.
func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

// BenchmarkRender measures the PDF report of a typical completed analysis
// (the mock server's default workflow over a passport, a bank statement
// and a utility bill: testdata/typical.json), en and ko, with and without
// raw data, against its baseline in the same run: each iteration renders
// both, one after the other, in turns, so that both see the same machine.
// It reports each one's mean time, the ratio of the means
// (report/baseline) and the median of the iterations' ratios
// (median-report/baseline, which a burst of load on a shared machine
// moves least; the goal of both is at most 1.5), the report's size and
// each one's allocations. It calls Render
// directly, since the mock server caches each variant of an analysis
// after its first rendering.
func BenchmarkRender(b *testing.B) {
	typical := fixture(b, "typical.json")
	for _, locale := range []string{"en", "ko"} {
		for _, raw := range []bool{false, true} {
			name := locale + "/noraw"
			if raw {
				name = locale + "/raw"
			}
			b.Run(name, func(b *testing.B) {
				data := variant(typical, locale, raw)
				bl := newBaseline(b, data)
				var pdf []byte
				renderReport := func() {
					out, err := report.Render(data)
					if err != nil {
						b.Fatal(err)
					}
					pdf = out
				}
				renderBaseline := func() {
					if _, err := bl.render(); err != nil {
						b.Fatal(err)
					}
				}
				renderReport()
				reportAllocs := testing.AllocsPerRun(3, renderReport)
				baselineAllocs := testing.AllocsPerRun(3, renderBaseline)
				var inReport, inBaseline time.Duration
				var ratios []float64
				for b.Loop() {
					// In turns, so that neither always follows the other.
					var rep, base time.Duration
					if len(ratios)%2 == 0 {
						rep, base = timed(renderReport), timed(renderBaseline)
					} else {
						base, rep = timed(renderBaseline), timed(renderReport)
					}
					inReport, inBaseline = inReport+rep, inBaseline+base
					ratios = append(ratios, float64(rep)/float64(base))
				}
				n := len(ratios)
				if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
					b.Fatalf("not a PDF: %q", pdf[:min(len(pdf), 16)])
				}
				ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 / float64(n) }
				b.ReportMetric(ms(inReport), "ms/report")
				b.ReportMetric(ms(inBaseline), "ms/baseline")
				b.ReportMetric(float64(inReport)/float64(inBaseline), "report/baseline")
				slices.Sort(ratios)
				b.ReportMetric(ratios[n/2], "median-report/baseline")
				if ratios[n/2] > ratioGoal {
					b.Logf("the median ratio, %.2f, is over the goal of %.1f", ratios[n/2], ratioGoal)
				}
				b.ReportMetric(float64(len(pdf)), "bytes/report")
				b.ReportMetric(reportAllocs, "allocs/report")
				b.ReportMetric(baselineAllocs, "allocs/baseline")
			})
		}
	}
}
