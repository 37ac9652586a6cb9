package report_test

import (
	"bytes"
	"testing"

	"github.com/profilesvc/profilesvc-go/mockserver/internal/report"
)

// Limits of the issue, for the ratios the benchmark reports.
const (
	reportTimeLimitMs = 50
	reportSizeLimit   = 300 << 10
)

// BenchmarkRender measures the PDF report of a typical completed analysis
// (the mock server's default workflow over a passport, a bank statement
// and a utility bill: testdata/typical.json): time and size per report, en
// and ko, with and without raw data, and each over the limit
// (ms/limit: over 50 ms; size/limit: over 300 KiB). It calls Render
// directly, since the mock server caches each variant of an analysis after
// its first rendering.
func BenchmarkRender(b *testing.B) {
	typical := fixture(b, "typical.json")
	if len(typical.Analysis.AgentAuditLog) == 0 {
		b.Fatal("the typical analysis has no audit log")
	}
	for _, locale := range []string{"en", "ko"} {
		for _, raw := range []bool{false, true} {
			name := locale + "/noraw"
			if raw {
				name = locale + "/raw"
			}
			b.Run(name, func(b *testing.B) {
				data := variant(typical, locale, raw)
				b.ReportAllocs()
				var pdf []byte
				for b.Loop() {
					out, err := report.Render(data)
					if err != nil {
						b.Fatal(err)
					}
					pdf = out
				}
				if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
					b.Fatalf("not a PDF: %q", pdf[:min(len(pdf), 16)])
				}
				ms := float64(b.Elapsed().Nanoseconds()) / 1e6 / float64(b.N)
				b.ReportMetric(ms, "ms/op")
				b.ReportMetric(float64(len(pdf)), "bytes/report")
				b.ReportMetric(ms/reportTimeLimitMs, "ms/limit")
				b.ReportMetric(float64(len(pdf))/reportSizeLimit, "size/limit")
			})
		}
	}
}
