package profilesvc_test

// Benchmarks of the SDK's own cost. Performance is measured here, as
// ratios against a baseline measured in the same run, never asserted in
// tests: the machines that run the tests are shared.
//
//	go test -run '^$' -bench . -benchmem ./...
//
// BenchmarkGetAnalysisOverhead reports sdk/bare: GetAnalysis through the
// SDK against the same GET made with a bare net/http client and
// json.Unmarshal into the same type, both against one in-process mock. The
// issue's goal is sdk/bare <= 1.05; it is reported, not asserted.
//
// Every helper here starts with "bench".

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// The documents of a typical analysis: a passport, a bank statement and a
// utility bill.
const (
	benchPassport  = "PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\nAddress: 12 Harbour Road, Busan\n"
	benchStatement = "BANK STATEMENT\nAccount Holder: Jane Doe\nFull Name: Jane Doe\nAddress: 12 Harbour Road, Busan\nAccount Number: 110-234-567890\nMonthly Income: 4200\n"
	benchBill      = "UTILITY BILL\nElectricity\nCustomer Name: Jane Doe\nFull Name: Jane Doe\nAddress: 12 Harbour Road, Busan\nAmount Due: 84.20\n"
)

// benchTransport is the keep-alive transport both sides of a comparison
// get, each its own instance with the same settings.
func benchTransport() *http.Transport {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = 64
	tr.MaxIdleConnsPerHost = 64
	return tr
}

// benchGetFixture is a mock with one completed analysis, an SDK client and
// a bare client for it.
type benchGetFixture struct {
	srv  *mockserver.Server
	id   string
	url  string // GET /v1/analyses/{id}
	sdk  *profilesvc.Client
	bare *http.Client
	ua   string
}

// benchNewGetFixture starts a manual mock, runs a typical analysis to
// completion and warms both clients' connections. Everything is closed
// when the benchmark ends.
func benchNewGetFixture(b *testing.B) *benchGetFixture {
	b.Helper()
	srv := mockserver.New(mockserver.WithManualAnalyses())
	b.Cleanup(srv.Close)
	sdkTr, bareTr := benchTransport(), benchTransport()
	b.Cleanup(sdkTr.CloseIdleConnections)
	b.Cleanup(bareTr.CloseIdleConnections)

	p, err := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Jane Doe"})
	if err != nil {
		b.Fatalf("CreateProfile: %v", err)
	}
	fid := p.DefaultFolder().ID
	var ids []string
	for _, doc := range [][2]string{{"passport.txt", benchPassport}, {"bank_statement.txt", benchStatement}, {"utility_bill.txt", benchBill}} {
		it, err := srv.AddTextItem(fid, doc[0], doc[1])
		if err != nil {
			b.Fatalf("AddTextItem: %v", err)
		}
		ids = append(ids, it.ID)
	}
	sdk := srv.Client(profilesvc.WithHTTPClient(&http.Client{Transport: sdkTr}))
	ctx := context.Background()
	id, err := sdk.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{ItemIDs: ids})
	if err != nil {
		b.Fatalf("StartAnalysis: %v", err)
	}
	if err := srv.CompleteAnalysis(id); err != nil {
		b.Fatalf("CompleteAnalysis: %v", err)
	}
	f := &benchGetFixture{
		srv:  srv,
		id:   id,
		url:  srv.URL + "/v1/analyses/" + id,
		sdk:  sdk,
		bare: &http.Client{Transport: bareTr},
		ua:   "profilesvc-go/" + profilesvc.Version + " bench",
	}
	for range 10 {
		if err := f.getSDK(ctx); err != nil {
			b.Fatal(err)
		}
		if err := f.getBare(ctx); err != nil {
			b.Fatal(err)
		}
	}
	return f
}

// getSDK reads the analysis through the SDK.
func (f *benchGetFixture) getSDK(ctx context.Context) error {
	a, err := f.sdk.GetAnalysis(ctx, f.id, nil)
	if err != nil {
		return fmt.Errorf("sdk: %w", err)
	}
	if a.ID != f.id || a.Status != profilesvc.AnalysisCompleted {
		return fmt.Errorf("sdk: got analysis %q %s, want %q completed", a.ID, a.Status, f.id)
	}
	return nil
}

// getBare reads the analysis with net/http and json.Unmarshal, sending the
// headers the SDK sends.
func (f *benchGetFixture) getBare(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("x-api-key", f.srv.APIKey)
	req.Header.Set("User-Agent", f.ua)
	req.Header.Set("Accept", "application/json")
	resp, err := f.bare.Do(req)
	if err != nil {
		return fmt.Errorf("bare: %w", err)
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return fmt.Errorf("bare: reading the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("bare: status %d: %.200s", resp.StatusCode, body)
	}
	var a profilesvc.Analysis
	if err := json.Unmarshal(body, &a); err != nil {
		return fmt.Errorf("bare: decoding: %w", err)
	}
	if a.ID != f.id || a.Status != profilesvc.AnalysisCompleted {
		return fmt.Errorf("bare: got analysis %q %s, want %q completed", a.ID, a.Status, f.id)
	}
	return nil
}

// BenchmarkGetAnalysis measures one GetAnalysis of a completed analysis
// through the SDK ("sdk") and the same GET made bare ("bare"), each on its
// own. Allocations include the in-process mock's, which are the same for
// both: the difference is the SDK's. For the ratio under the same load, see
// BenchmarkGetAnalysisOverhead.
func BenchmarkGetAnalysis(b *testing.B) {
	f := benchNewGetFixture(b)
	ctx := context.Background()
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if err := f.getSDK(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bare", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if err := f.getBare(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkGetAnalysisOverhead runs the SDK's GetAnalysis and the bare GET
// alternately, one of each per iteration in alternating order, timing each
// call, so that both meet the same load on a shared machine. It reports
// the mean time of each (sdk-ns/req, bare-ns/req), their ratio (sdk/bare;
// goal <= 1.05), the ratio of their medians (sdk/bare-p50, less sensitive
// to a stray pause) and the allocations per request of each (which include
// the in-process mock's, the same for both). ns/op and allocs/op cover one
// SDK call and one bare call.
func BenchmarkGetAnalysisOverhead(b *testing.B) {
	f := benchNewGetFixture(b)
	ctx := context.Background()
	sdkD := make([]time.Duration, 0, b.N)
	bareD := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		for j := range 2 {
			sdkTurn := (i+j)%2 == 0
			start := time.Now()
			var err error
			if sdkTurn {
				err = f.getSDK(ctx)
			} else {
				err = f.getBare(ctx)
			}
			d := time.Since(start)
			if err != nil {
				b.Fatal(err)
			}
			if sdkTurn {
				sdkD = append(sdkD, d)
			} else {
				bareD = append(bareD, d)
			}
		}
	}
	b.StopTimer()

	sdkMean, bareMean := benchMean(sdkD), benchMean(bareD)
	b.ReportMetric(sdkMean, "sdk-ns/req")
	b.ReportMetric(bareMean, "bare-ns/req")
	b.ReportMetric(sdkMean/bareMean, "sdk/bare")
	b.ReportMetric(float64(benchMedian(sdkD))/float64(benchMedian(bareD)), "sdk/bare-p50")
	b.ReportMetric(testing.AllocsPerRun(50, func() {
		if err := f.getSDK(ctx); err != nil {
			b.Fatal(err)
		}
	}), "sdk-allocs/req")
	b.ReportMetric(testing.AllocsPerRun(50, func() {
		if err := f.getBare(ctx); err != nil {
			b.Fatal(err)
		}
	}), "bare-allocs/req")
}

// benchMean is the mean of ds in nanoseconds.
func benchMean(ds []time.Duration) float64 {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return float64(sum) / float64(max(len(ds), 1))
}

// benchMedian is the median of ds; it sorts ds.
func benchMedian(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}
