package mockserver

// Tests of the report endpoint: that it serves what package report renders
// from the analysis and the names around it, for each variant; that two
// servers with the same clock and ID seed serve the same bytes; and the
// report cache. What a report shows, its structure and its metadata are
// tested in package report, on analyses the engine made here
// (TestReportFixtures keeps them current).

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/pdftest"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/report"
)

// updateFixtures rewrites the report package's fixtures from the engine.
var updateFixtures = flag.Bool("update", false, "rewrite internal/report/testdata from the engine's analyses")

// TestPDFReportVariants downloads the four variants of a real analysis's
// report (the shared fixture's) and checks that each is what package
// report renders from the analysis, its profile's name and its workflow,
// in the variant's language, with or without raw data.
func TestPDFReportVariants(t *testing.T) {
	// Not parallel, as none of the tests that render several reports:
	// each renders its reports in parallel instead, on both CPUs, before
	// the parallel tests begin (see eachVariant).
	wantRendered(t, sharedReportFixture(t), allVariantQueries())
}

// TestPDFReportFontLacksCharacters is TestPDFReportVariants for a profile
// whose name has characters the report's font lacks, and control
// characters, in both languages with raw data.
func TestPDFReportFontLacksCharacters(t *testing.T) {
	// Not parallel: see TestPDFReportVariants.
	f := newReportFixture(t, "Zoë Müller-Núñez 김민수 😀 𠀀 م\x00\x07 end")
	wantRendered(t, f, []string{"locale=en&includeRawData=true", "locale=ko&includeRawData=true"})
}

// wantRendered downloads the report of f's analysis with each query and
// checks that it is what package report renders for the query's variant,
// and that no two variants give the same bytes.
func wantRendered(t *testing.T, f *reportFixture, queries []string) {
	t.Helper()
	served := eachVariant(t, queries, func(t *testing.T, q string) []byte {
		got := wantPDF(t, f.srv, f.id, q)
		query, err := url.ParseQuery(q)
		require.NoError(t, err)
		want, err := report.Render(reportDataOf(t, f, query.Get("locale"), query.Get("includeRawData") == "true"))
		require.NoError(t, err, "report.Render")
		require.True(t, bytes.Equal(got, want), "the served report differs from report.Render's: %d and %d bytes, first difference at byte %d",
			len(got), len(want), firstDiff(got, want))
		return got
	})
	wantDistinct(t, queries, served)
}

// eachVariant runs check for each query of a report, in parallel
// subtests (rendering is the slow part of the report tests, and each
// render uses one CPU), and returns what each returned, in the order of
// queries; nil for one that failed.
func eachVariant(t *testing.T, queries []string, check func(t *testing.T, query string) []byte) [][]byte {
	t.Helper()
	out := make([][]byte, len(queries))
	t.Run("variants", func(t *testing.T) {
		for i, q := range queries {
			t.Run(q, func(t *testing.T) {
				t.Parallel()
				out[i] = check(t, q)
			})
		}
	})
	return out
}

// wantDistinct checks that no two variants of a report gave the same
// bytes.
func wantDistinct(t *testing.T, queries []string, pdfs [][]byte) {
	t.Helper()
	seen := map[string]string{}
	for i, p := range pdfs {
		if p == nil {
			continue
		}
		other, ok := seen[string(p)]
		assert.False(t, ok, "variant %s gives the same bytes as %s", queries[i], other)
		seen[string(p)] = queries[i]
	}
}

// reportFixtureFile names a fixture of package report.
func reportFixtureFile(name string) string {
	return filepath.Join("internal", "report", "testdata", name)
}

// TestReportFixtures checks that the analyses whose reports package report
// tests are the ones the engine makes today, as report.Data in JSON; with
// -update, it rewrites them.
func TestReportFixtures(t *testing.T) {
	t.Parallel()
	for _, fx := range []struct {
		file string
		data func(t *testing.T) report.Data
	}{
		// The analysis of a passport and a bank statement that the report
		// tests here run, and most of package report's.
		{"analysis.json", func(t *testing.T) report.Data {
			return reportDataOf(t, sharedReportFixture(t), "", false)
		}},
		// A typical analysis, for package report's benchmark: a passport,
		// a bank statement and a utility bill.
		{"typical.json", func(t *testing.T) report.Data {
			f := newReportFixtureOf(t, "Jane Doe", append(slices.Clone(fixtureDocs), [2]string{"utility_bill.txt", fixtureBill}))
			return reportDataOf(t, f, "", false)
		}},
		// An analysis whose documents disagree, one of them expired and
		// one unreadable: failed checks, marked values, invalid
		// documents.
		{"mismatch.json", func(t *testing.T) report.Data {
			return reportDataOf(t, newReportFixtureOf(t, "김민준 Kim Min-jun", fixtureMismatchDocs), "", false)
		}},
	} {
		t.Run(fx.file, func(t *testing.T) {
			got, err := json.MarshalIndent(fx.data(t), "", "\t")
			require.NoError(t, err)
			got = append(got, '\n')
			path := reportFixtureFile(fx.file)
			if *updateFixtures {
				require.NoError(t, os.WriteFile(path, got, 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "go test ./mockserver -run TestReportFixtures -update writes it")
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("the engine's analysis differs from %s (-fixture +engine); if the change is intended, "+
					"rewrite it with go test ./mockserver -run TestReportFixtures -update:\n%s", path, diff)
			}
		})
	}
}

// TestPDFReportByteIdentical checks that a report depends on nothing but
// the analysis: two servers with the same clock, ID seed and requests give
// the same bytes (package report checks that rendering twice does too).
// One of the two is the shared fixture's.
func TestPDFReportByteIdentical(t *testing.T) {
	// Not parallel: see TestPDFReportVariants.
	a := sharedReportFixture(t)
	b := newReportFixture(t, fixtureProfileName)
	require.True(t, a.id == b.id && a.profile.ID == b.profile.ID, "the two servers' IDs differ (%s/%s, %s/%s): WithIDSeed is not deterministic", a.id, b.id, a.profile.ID, b.profile.ID)
	queries := allVariantQueries()
	served := eachVariant(t, queries, func(t *testing.T, q string) []byte {
		pa := wantPDF(t, a.srv, a.id, q)
		pb := wantPDF(t, b.srv, b.id, q)
		require.True(t, bytes.Equal(pa, pb), "the two servers' reports differ: %d and %d bytes, first difference at byte %d", len(pa), len(pb), firstDiff(pa, pb))
		return pa
	})
	wantDistinct(t, queries, served)
}

// allVariantQueries returns the queries of the four variants of a
// report.
func allVariantQueries() []string {
	var queries []string
	for _, locale := range []string{"en", "ko"} {
		for _, raw := range []bool{false, true} {
			queries = append(queries, fmt.Sprintf("locale=%s&includeRawData=%v", locale, raw))
		}
	}
	return queries
}

// TestPDFReportCache checks that a variant is rendered once and served
// from the cache, that deleting the analysis deletes its reports, and that
// an analysis that has not completed has none.
func TestPDFReportCache(t *testing.T) {
	t.Parallel()
	t.Run("cached per variant, deleted with the analysis", func(t *testing.T) {
		f := newReportFixture(t, fixtureProfileName)
		cached := func() map[reportVariant][]byte {
			f.srv.store.tenantMu.Lock()
			defer f.srv.store.tenantMu.Unlock()
			rec := f.srv.store.st.analyses[f.id]
			if rec == nil {
				return nil
			}
			out := map[reportVariant][]byte{}
			for k, v := range rec.reports {
				out[k] = v.pdf
			}
			return out
		}
		f.srv.store.tenantMu.Lock()
		rec := f.srv.store.st.analyses[f.id]
		f.srv.store.tenantMu.Unlock()
		require.Empty(t, cached(), "reports cached before any download")
		first := wantPDF(t, f.srv, f.id, "locale=en")
		c := cached()
		require.True(t, len(c) == 1 && bytes.Equal(c[reportVariant{locale: "en"}], first), "after one download the cache holds %d reports (%v), want the en one", len(c), variantsOf(c))
		// The default variant is en without raw data: the same report.
		for _, q := range []string{"locale=en", "", "includeRawData=false", "locale=en&includeRawData=false"} {
			again := wantPDF(t, f.srv, f.id, q)
			assert.True(t, bytes.Equal(again, first), "download ?%s differs from the first download", q)
		}
		ko := wantPDF(t, f.srv, f.id, "locale=ko&includeRawData=true")
		assert.False(t, bytes.Equal(ko, first), "the ko report with raw data is the en one")
		c = cached()
		require.True(t, len(c) == 2 && bytes.Equal(c[reportVariant{locale: "ko", rawData: true}], ko), "after two variants the cache holds %v", variantsOf(c))

		r := send(t, f.srv, "DELETE", "/v1/analyses/"+f.id, "", nil)
		require.Equal(t, http.StatusNoContent, r.status, "DELETE analysis: %s", r)
		for _, q := range []string{"locale=en", "locale=ko&includeRawData=true", "locale=ko"} {
			wantError(t, getReport(t, f.srv, f.id, q), http.StatusNotFound, profilesvc.CodeAnalysisNotFound)
		}
		f.srv.store.tenantMu.Lock()
		left := len(rec.reports)
		f.srv.store.tenantMu.Unlock()
		assert.Zero(t, left, "reports the deleted analysis still holds")
	})

	t.Run("not available before completion", func(t *testing.T) {
		clock := NewFakeClock(fixtureStart)
		srv := NewTest(t, WithManualAnalyses(), WithClock(clock), WithIDSeed(7))
		p, err := srv.CreateProfile(DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Pending and failed"})
		require.NoError(t, err)
		it, err := srv.AddTextItem(p.Folders[0].ID, "passport.txt", fixturePassport)
		require.NoError(t, err)
		id := startOverHTTP(t, srv, p.ID, it.ID)
		for _, step := range []struct {
			name string
			move func() error
		}{
			{"pending", func() error { return nil }},
			{"processing", func() error { return srv.StartProcessing(id) }},
			{"failed", func() error { return srv.FailAnalysis(id, "the documents were unreadable") }},
		} {
			t.Run(step.name, func(t *testing.T) {
				require.NoError(t, step.move(), "moving the analysis to %s", step.name)
				a, _ := srv.Analysis(id)
				require.True(t, a != nil && string(a.Status) == step.name, "analysis status = %v, want %s", a, step.name)
				for _, q := range []string{"", "locale=ko&includeRawData=true"} {
					wantError(t, getReport(t, srv, id, q), http.StatusBadRequest, profilesvc.CodeReportNotAvailable)
				}
			})
		}
		t.Run("unknown analysis", func(t *testing.T) {
			wantError(t, getReport(t, srv, "analysis_doesnotexist", ""), http.StatusNotFound, profilesvc.CodeAnalysisNotFound)
		})
	})
}

// variantsOf lists the variants of a report cache.
func variantsOf(m map[reportVariant][]byte) []reportVariant {
	out := make([]reportVariant, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestPDFReportOfAnotherAnalyzer checks that the Korean report of an
// analysis another analyzer made says in Korean what the engine wrote and
// shows the rest as given: an analyzer that runs the engine and changes
// one finding, and one that writes its own result.
func TestPDFReportOfAnotherAnalyzer(t *testing.T) {
	t.Parallel()
	const changed = "Checked by the test's own analyzer."
	for _, tc := range []struct {
		name     string
		analyzer Analyzer
		want     []string
		not      []string
	}{
		{"the engine's result, one finding changed", func(ctx context.Context, in AnalysisInput) (AnalysisResult, error) {
			res, err := engine.Default(ctx, in)
			for i := range res.Findings {
				if res.Findings[i].Category == "check_document_expiry" {
					res.Findings[i].Details = changed
				}
			}
			return res, err
		}, []string{changed, "신원 교차 확인", "한 문서에만 나타난 항목:", "문서 2건을 검토하고 결정을 정리했습니다."},
			[]string{"Reviewed 2 documents"}},
		{"a result of its own", func(context.Context, AnalysisInput) (AnalysisResult, error) {
			return AnalysisResult{RiskAssessment: profilesvc.RiskAssessment{RiskScore: 5, RiskFactors: []string{"a factor of the test's"}},
				Findings:        []profilesvc.Finding{{Category: "custom_check", Result: profilesvc.FindingPassed, Details: changed, SortOrder: 1}},
				Recommendations: []profilesvc.Recommendation{{Content: "Nothing to do.", Priority: 3, SortOrder: 1}}}, nil
		}, []string{changed, "• a factor of the test's", "Custom check", "Nothing to do.", "passport.txt", "bank_statement.txt"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newReportFixture(t, fixtureProfileName, WithAnalyzer(tc.analyzer))
			text := pdftest.Norm(pdftest.Transcript(t, wantPDF(t, f.srv, f.id, "locale=ko")))
			for _, w := range tc.want {
				assert.Contains(t, text, w, "the Korean report")
			}
			for _, n := range tc.not {
				assert.NotContains(t, text, n, "the Korean report")
			}
		})
	}
}

// TestPDFReportAfterRestore checks that a snapshot keeps what a report
// needs: a server restored from one, through its JSON, serves the same
// bytes as the server it was taken from (the shared fixture's), in both
// languages.
func TestPDFReportAfterRestore(t *testing.T) {
	// Not parallel: see TestPDFReportVariants.
	f := sharedReportFixture(t)
	snap, err := f.srv.Snapshot()
	require.NoError(t, err, "Snapshot")
	encoded, err := json.Marshal(snap)
	require.NoError(t, err, "encoding the snapshot")
	var decoded Snapshot
	require.NoError(t, json.Unmarshal(encoded, &decoded), "decoding the snapshot")
	other := NewTest(t, WithManualAnalyses(), WithClock(f.clock))
	require.NoError(t, other.Restore(&decoded), "Restore")
	eachVariant(t, []string{"locale=en&includeRawData=true", "locale=ko", "locale=ko&includeRawData=true"}, func(t *testing.T, q string) []byte {
		want := wantPDF(t, f.srv, f.id, q)
		got := wantPDF(t, other, f.id, q)
		assert.True(t, bytes.Equal(got, want), "?%s: the restored server's report differs: %d and %d bytes, first difference at byte %d",
			q, len(got), len(want), firstDiff(got, want))
		return got
	})
}
