package mockserver

// BenchmarkReport measures the PDF report of a typical completed analysis
// (the default workflow over a passport, a bank statement and a utility
// bill): time and size per report, en and ko, with and without raw data.
// The goal: under 50 ms and under 300 KB. It calls renderReport
// directly, since the HTTP endpoint caches each variant of an analysis
// after its first rendering. Every helper here starts with "bench".

import (
	"bytes"
	"testing"

	"github.com/profilesvc/profilesvc-go"
)

// The documents of a typical analysis.
const (
	benchIntPassport  = "PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\nAddress: 12 Harbour Road, Busan\n"
	benchIntStatement = "BANK STATEMENT\nAccount Holder: Jane Doe\nFull Name: Jane Doe\nAddress: 12 Harbour Road, Busan\nAccount Number: 110-234-567890\nMonthly Income: 4200\n"
	benchIntBill      = "UTILITY BILL\nElectricity\nCustomer Name: Jane Doe\nFull Name: Jane Doe\nAddress: 12 Harbour Road, Busan\nAmount Due: 84.20\n"
)

// Limits of the issue, for the ratios the benchmark reports.
const (
	benchReportTimeLimitMs = 50
	benchReportSizeLimit   = 300 << 10
)

// benchReportData runs a typical analysis to completion on a mock that
// does not listen and returns what its report shows, as the report
// handler gathers it.
func benchReportData(b *testing.B, locale string, raw bool) reportData {
	b.Helper()
	srv, err := NewHandler(WithManualAnalyses())
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Jane Doe"})
	if err != nil {
		b.Fatalf("CreateProfile: %v", err)
	}
	fid := p.DefaultFolder().ID
	var ids []string
	for _, doc := range [][2]string{{"passport.txt", benchIntPassport}, {"bank_statement.txt", benchIntStatement}, {"utility_bill.txt", benchIntBill}} {
		it, err := srv.AddTextItem(fid, doc[0], doc[1])
		if err != nil {
			b.Fatalf("AddTextItem: %v", err)
		}
		ids = append(ids, it.ID)
	}
	id, apiErr := srv.Tenant.startAnalysis(p.ID, ids, nil, nil)
	if apiErr != nil {
		b.Fatalf("startAnalysis: %v", apiErr)
	}
	if err := srv.CompleteAnalysis(id); err != nil {
		b.Fatalf("CompleteAnalysis: %v", err)
	}
	t := srv.Tenant
	t.mu.Lock()
	defer t.mu.Unlock()
	rec := t.st.analyses[id]
	if rec == nil || rec.a.Status != profilesvc.AnalysisCompleted {
		b.Fatalf("analysis %s did not complete", id)
	}
	if len(rec.a.Findings) == 0 || len(rec.a.AgentAuditLog) == 0 {
		b.Fatalf("analysis %s has no findings or audit log: not a typical one", id)
	}
	return reportData{analysis: rec.a, profileName: p.Name, workflowID: rec.input.Workflow.ID,
		workflowName: rec.input.Workflow.Name, locale: locale, rawData: raw}
}

// BenchmarkReport renders the report of a typical analysis in each locale,
// with and without raw data, and reports ms/op, bytes/report and each
// over its limit (ms/limit: over 50 ms; size/limit: over 300 KiB).
func BenchmarkReport(b *testing.B) {
	for _, locale := range []string{"en", "ko"} {
		for _, raw := range []bool{false, true} {
			name := locale + "/noraw"
			if raw {
				name = locale + "/raw"
			}
			b.Run(name, func(b *testing.B) {
				data := benchReportData(b, locale, raw)
				b.ReportAllocs()
				b.ResetTimer()
				var pdf []byte
				for range b.N {
					out, err := renderReport(data)
					if err != nil {
						b.Fatal(err)
					}
					pdf = out
				}
				b.StopTimer()
				if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
					b.Fatalf("not a PDF: %q", pdf[:min(len(pdf), 16)])
				}
				ms := float64(b.Elapsed().Nanoseconds()) / 1e6 / float64(b.N)
				b.ReportMetric(ms, "ms/op")
				b.ReportMetric(float64(len(pdf)), "bytes/report")
				b.ReportMetric(ms/benchReportTimeLimitMs, "ms/limit")
				b.ReportMetric(float64(len(pdf))/benchReportSizeLimit, "size/limit")
			})
		}
	}
}
