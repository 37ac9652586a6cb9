package report_test

// Tests of the PDF reports: structure (pdfcpu, strict mode), text,
// characters the font lacks, determinism, metadata and page size, on
// analyses the mock server's engine made (testdata) and on analyses built
// here.

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
	"testing"

	lpdf "github.com/ledongthuc/pdf"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/pdftest"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/report"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/report/font"
)

// TestRenderVariants checks the four variants of a real analysis's report:
// valid in strict mode, A4, numbered, and saying what the analysis says in
// the variant's language.
func TestRenderVariants(t *testing.T) {
	t.Parallel()
	d := fixture(t, "analysis.json")
	a := d.Analysis
	for _, loc := range locales {
		for _, raw := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/raw=%v", loc.name, raw), func(t *testing.T) {
				t.Parallel()
				r := fixtureReport(t, "analysis.json", loc.name, raw)
				ctx := pdftest.Validate(t, r.pdf)
				wantA4(t, ctx)
				pages := r.pages()
				require.Len(t, pages, ctx.PageCount, "the pages read back, against pdfcpu's count")
				wantFooters(t, pages, loc.name)

				text := textOf(pages)
				wantText(t, text, loc.labels...)
				wantText(t, text,
					a.ID,
					d.ProfileName+" ("+a.ProfileID+")",
					loc.riskLevel+" "+loc.levels[string(a.RiskAssessment.RiskLevel)],
					loc.expiry[0]+" "+word(loc, "passed")+" "+loc.expiry[1],
					loc.recommendation,
					loc.dateOf(a.RequestedAt),
					loc.dateOf(*a.CompletedAt),
				)
				noText(t, text, loc.foreign...)
				if raw {
					wantText(t, text, loc.appendix, `"category_judgements": {`, `"extracted_values": {`, `"request_id": "`+a.ProfileID+`"`)
				} else {
					noText(t, text, loc.appendix, `"category_judgements"`)
				}
			})
		}
	}
	for _, loc := range locales {
		t.Run(loc.name+"/the appendix adds pages", func(t *testing.T) {
			t.Parallel()
			without := len(fixtureReport(t, "analysis.json", loc.name, false).rows)
			with := len(fixtureReport(t, "analysis.json", loc.name, true).rows)
			if with <= without {
				t.Errorf("the raw-data report has %d pages, the plain one %d: the appendix adds none", with, without)
			}
		})
	}
}

// word is a finding's result as a locale's report says it.
func word(loc locale, result string) string {
	return map[string]map[string]string{
		"en": {"passed": "Passed", "warning": "Warning", "failed": "Failed"},
		"ko": {"passed": "통과", "warning": "주의", "failed": "실패"},
	}[loc.name][result]
}

// TestRenderRiskLevelWords renders each risk level in each language.
func TestRenderRiskLevelWords(t *testing.T) {
	t.Parallel()
	d := fixture(t, "analysis.json")
	for _, loc := range locales {
		for _, level := range []profilesvc.RiskLevel{profilesvc.RiskMedium, profilesvc.RiskHigh} {
			t.Run(loc.name+"/"+string(level), func(t *testing.T) {
				t.Parallel()
				d := variant(d, loc.name, false)
				ra := *d.Analysis.RiskAssessment
				ra.RiskLevel, ra.RiskScore = level, 72
				d.Analysis.RiskAssessment = &ra
				text := textOf(pageRows(t, render(t, d)))
				wantText(t, text, loc.riskLevel+" "+loc.levels[string(level)])
				for other, w := range loc.levels {
					if other != string(level) && strings.Contains(text, loc.riskLevel+" "+w) {
						t.Errorf("the badge shows %q as well", w)
					}
				}
			})
		}
	}
}

// TestRenderLongAnalysis checks that a long analysis with raw data breaks
// over several pages, stays valid, numbers every page and loses nothing.
func TestRenderLongAnalysis(t *testing.T) {
	t.Parallel()
	d := fixture(t, "analysis.json")
	d.Analysis = longAnalysis(t, d.Analysis)
	require.GreaterOrEqual(t, len(d.Analysis.ExtractedData), 4<<10, "the long analysis's extracted data, in bytes")
	for _, loc := range []string{"en", "ko"} {
		t.Run(loc, func(t *testing.T) {
			t.Parallel()
			r := renderAll(t, variant(d, loc, true))
			ctx := pdftest.Validate(t, r.pdf)
			wantA4(t, ctx)
			pages := r.pages()
			require.Len(t, pages, ctx.PageCount, "the pages read back, against pdfcpu's count")
			require.GreaterOrEqual(t, len(pages), 3, "the long report's pages")
			wantFooters(t, pages, loc)
			text := textOf(pages)
			// Nothing is lost at the page breaks: the first and last of
			// every list, and the end of the raw data. The checks are
			// named by their labels; the appendix shows their names.
			wantText(t, text, "Long check 00", "Long check 59", "Finding 59:", "Recommendation 00:", "Recommendation 39:",
				"Field 11", `"zz_last_key_end": "the very end of the extracted data"`, `"long_check_59": {`)
			last := pdftest.Norm(pages[len(pages)-1])
			if !strings.Contains(last, "long_check_59") {
				t.Errorf("the last page does not end with the raw action results: %q", last[:min(300, len(last))])
			}
			// The unbroken token is broken into pieces, every one on the page.
			if got := strings.Count(strings.ReplaceAll(text, " ", ""), "UNBROKEN"); got < 40 {
				t.Errorf("the unbroken token shows %d of its 40 parts", got)
			}
			wantOnPage(t, r.drawn)
		})
	}
}

// uncovered returns a character of script that the font lacks.
func uncovered(t *testing.T, script string, candidates ...rune) rune {
	t.Helper()
	for _, c := range candidates {
		if !font.Covers(c) {
			return c
		}
	}
	t.Fatalf("the font covers every %s candidate %q: choose others", script, string(candidates))
	return 0
}

// TestRenderReplacesMissingCharacters checks that characters the font
// lacks never fail a report and show as a visible replacement, while
// accented Latin and Hangul come through.
func TestRenderReplacesMissingCharacters(t *testing.T) {
	t.Parallel()
	const box = "□"
	require.True(t, font.Covers([]rune(box)[0]), "the font has the replacement character %s itself", box)
	for _, c := range "éüñÉ김한글" {
		require.True(t, font.Covers(c), "the font has %q, which the report must render", c)
	}
	emoji := uncovered(t, "emoji", '😀')
	// Rare and supplementary-plane ideographs: NanumGothic has common Hanja
	// only.
	cjk := uncovered(t, "CJK", '𠀀', '𪚥', '龘', '䶵', '㐀')
	arabic := uncovered(t, "Arabic", 'م', 'ر', 'ح')
	// Each of them in a profile name, a finding's details, a recommendation
	// and the extracted values.
	name := "Zoë Müller-Núñez 김민수 " + string(emoji) + " " + string(cjk) + " " + string(arabic) + "\x00\x07 end"
	wantName := "Zoë Müller-Núñez 김민수 " + box + " " + box + " " + box + " end"
	details := "Señor José: document ü " + string(emoji) + string(emoji) + " 漢" + string(cjk) + " " + string(arabic) + "\x00 checked"
	wantDetails := "Señor José: document ü " + box + box + " 漢" + box + " " + box + " checked"
	if !font.Covers('漢') {
		wantDetails = strings.Replace(wantDetails, "漢", box, 1)
	}

	d := fixture(t, "analysis.json")
	d.ProfileName = name
	a := &d.Analysis
	a.Findings = append(a.Findings, profilesvc.Finding{Category: "unicode_check", Result: profilesvc.FindingWarning,
		Details: details, SortOrder: 999})
	a.Recommendations = append(a.Recommendations, profilesvc.Recommendation{Content: "Ask " + name, Priority: 1, SortOrder: 999})
	for _, loc := range []string{"en", "ko"} {
		t.Run(loc, func(t *testing.T) {
			t.Parallel()
			pdf := render(t, variant(d, loc, true))
			pdftest.Validate(t, pdf)
			text := textOf(pageRows(t, pdf))
			wantText(t, text, wantName+" ("+a.ProfileID+")", "Unicode check", wantDetails, "Ask "+wantName)
			noText(t, text, string(emoji), string(cjk), string(arabic), "\x00", "\x07", "\uFFFD")
		})
	}
	t.Run("every field", func(t *testing.T) {
		t.Parallel()
		// The characters in the workflow's name and the risk factors too.
		d := variant(d, "en", false)
		d.WorkflowName = name
		d.Analysis.RiskAssessment = &profilesvc.RiskAssessment{RiskLevel: "low", RiskScore: 3, RiskFactors: []string{details}}
		pdf := render(t, d)
		pdftest.Validate(t, pdf)
		text := textOf(pageRows(t, pdf))
		wantText(t, text, wantName+" ("+d.WorkflowID+")", "• "+wantDetails)
		noText(t, text, string(emoji), string(cjk), string(arabic))
	})
}

// TestRenderDeterministic checks that a report depends on nothing but its
// data: rendering twice gives the same bytes, and each variant its own.
// The report rendered twice is the richest: documents that disagree, in
// Korean, with raw data, so that it has every face, every section and
// the appendix, and the most that the data holds in maps. The first
// rendering recorded what it drew, the second did not: recording changes
// nothing either.
func TestRenderDeterministic(t *testing.T) {
	t.Parallel()
	t.Run("twice", func(t *testing.T) {
		t.Parallel()
		first := fixtureReport(t, "mismatch.json", "ko", true).pdf
		again := render(t, variant(fixture(t, "mismatch.json"), "ko", true))
		if !bytes.Equal(first, again) {
			t.Fatalf("two renderings differ: %d and %d bytes, first difference at byte %d", len(first), len(again), firstDiff(first, again))
		}
	})
	t.Run("variants", func(t *testing.T) {
		t.Parallel()
		seen := map[string]string{}
		for _, loc := range []string{"en", "ko"} {
			for _, raw := range []bool{false, true} {
				name := fmt.Sprintf("%s/raw=%v", loc, raw)
				pdf := fixtureReport(t, "analysis.json", loc, raw).pdf
				if other, ok := seen[string(pdf)]; ok {
					t.Errorf("variant %s gives the same bytes as %s", name, other)
				}
				seen[string(pdf)] = name
			}
		}
	})
}

// infoRef finds the trailer's /Info entry when it is an indirect
// reference, as ISO 32000-1 (7.5.5, table 15) requires.
var infoRef = regexp.MustCompile(`/Info\s+\d+\s+\d+\s+R`)

// TestRenderMetadata checks the document information dictionary: Title,
// Subject, Creator and CreationDate, the last being the analysis's
// completion time.
func TestRenderMetadata(t *testing.T) {
	t.Parallel()
	d := fixture(t, "analysis.json")
	a := d.Analysis
	completed := *a.CompletedAt
	for _, tc := range []struct{ locale, title, subject string }{
		{"en", "Document Analysis Report " + a.ID, "Profile: " + d.ProfileName + " (" + a.ProfileID + ")"},
		{"ko", "문서 분석 보고서 " + a.ID, "프로필: " + d.ProfileName + " (" + a.ProfileID + ")"},
	} {
		t.Run(tc.locale, func(t *testing.T) {
			t.Parallel()
			pdf := fixtureReport(t, "analysis.json", tc.locale, false).pdf
			check := func(t *testing.T, title, subject, creator, created string) {
				t.Helper()
				assert.Equal(t, tc.title, title, "Title")
				assert.Equal(t, tc.subject, subject, "Subject")
				assert.Equal(t, "profilesvc-mock", creator, "Creator")
				when, ok := types.DateTime(created, false)
				if !ok {
					t.Errorf("CreationDate %q is not a PDF date", created)
				} else if !when.Equal(completed) {
					t.Errorf("CreationDate = %v (%q), want the completion time %v", when, created, completed)
				}
			}
			t.Run("written", func(t *testing.T) {
				r, err := lpdf.NewReader(bytes.NewReader(pdf), int64(len(pdf)))
				require.NoError(t, err, "ledongthuc/pdf")
				info := r.Trailer().Key("Info")
				require.False(t, info.IsNull(), "the trailer has no /Info")
				check(t, info.Key("Title").Text(), info.Key("Subject").Text(), info.Key("Creator").Text(), info.Key("CreationDate").RawString())
			})
			t.Run("read by pdfcpu", func(t *testing.T) {
				ctx := pdftest.Validate(t, pdf)
				if ctx.Info == nil {
					tail := pdf[max(0, bytes.LastIndex(pdf, []byte("trailer"))):]
					t.Errorf("pdfcpu finds no document information dictionary: the trailer's /Info must be an indirect "+
						"reference (ISO 32000-1, 7.5.5, table 15), and pdfcpu ignores a direct one; indirect reference found: %v",
						infoRef.Match(tail))
				}
				check(t, ctx.XRefTable.Title, ctx.XRefTable.Subject, ctx.XRefTable.Creator, ctx.XRefTable.CreationDate)
			})
		})
	}
}

// TestRenderConcurrently renders reports in parallel, sharing the parsed
// font: under -race this proves the sharing safe, and every copy must
// equal the one rendered alone. Three renderings start together, so that
// they overlap: one English without raw data, and two Korean with it
// (every face between them, and the same work twice at once).
func TestRenderConcurrently(t *testing.T) {
	t.Parallel()
	d := fixture(t, "analysis.json")
	en, ko := fixtureReport(t, "analysis.json", "en", false).pdf, fixtureReport(t, "analysis.json", "ko", true).pdf
	runs := []struct {
		d    report.Data
		want []byte
	}{{variant(d, "en", false), en}, {variant(d, "ko", true), ko}, {variant(d, "ko", true), ko}}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, run := range runs {
		wg.Go(func() {
			<-start
			got, err := report.Render(run.d)
			if err != nil {
				t.Error(err)
				return
			}
			if !bytes.Equal(got, run.want) {
				t.Errorf("rendering %d, in parallel, differs from the one rendered alone", i)
			}
		})
	}
	close(start)
	wg.Wait()
}

// TestRenderRiskThresholds checks that Render refuses risk thresholds out
// of order, which would draw a gauge with no sense.
func TestRenderRiskThresholds(t *testing.T) {
	t.Parallel()
	d := fixture(t, "analysis.json")
	for _, tc := range []struct {
		name         string
		medium, high float64
	}{
		{"unset", 0, 0},
		{"medium unset", 0, 60},
		{"medium above high", 60, 25},
		{"medium at high", 40, 40},
		{"high above 100", 25, 120},
		{"not a number", math.NaN(), 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := d
			d.MediumRiskFrom, d.HighRiskFrom = tc.medium, tc.high
			pdf, err := report.Render(d)
			assert.ErrorContains(t, err, "risk thresholds")
			assert.Nil(t, pdf)
		})
	}
}
