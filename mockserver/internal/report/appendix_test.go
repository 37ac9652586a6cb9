package report_test

// Tests of the raw-data appendix and of backslashes: a value with a
// backslash, a quote and a 300-character unbroken string comes out
// readable, in a font whose backslash is a backslash.

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/report"
)

// withExtracted returns d with fields added to its extracted data.
func withExtracted(t *testing.T, d report.Data, fields map[string]any) report.Data {
	t.Helper()
	var ed map[string]any
	require.NoError(t, json.Unmarshal(d.Analysis.ExtractedData, &ed))
	for k, v := range fields {
		ed[k] = v
	}
	b, err := json.Marshal(ed)
	require.NoError(t, err)
	d.Analysis.ExtractedData = b
	return d
}

// wantBackslashesInGo checks that every backslash a report draws is drawn
// in one of the Go fonts, never in NanumGothic, which draws it as ₩.
func wantBackslashesInGo(t *testing.T, drawn []report.DrawnText) {
	t.Helper()
	n := 0
	for _, tx := range drawn {
		if strings.Contains(tx.Text, `\`) {
			n++
			assert.True(t, strings.HasPrefix(tx.Family, "go"), "%q is drawn in %s", tx.Text, tx.Family)
		}
	}
	assert.NotZero(t, n, "no backslash drawn")
}

// TestAppendixIsReadable checks that the appendix shows a value with
// backslashes and quotes as its JSON, and a 300-character string without
// a space whole, over lines each continued after a mark.
func TestAppendixIsReadable(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmn", 6)
	require.Len(t, long, 300)
	d := withExtracted(t, fixture(t, "analysis.json"), map[string]any{
		"a_note": `C:\Users\jane "quoted" & <b>`, "a_string": long,
	})
	for _, locale := range []string{"en", "ko"} {
		t.Run(locale, func(t *testing.T) {
			t.Parallel()
			r := renderAll(t, variant(d, locale, true))
			var rows []string
			for _, page := range r.rows {
				rows = append(rows, page...)
			}
			assert.Contains(t, rows, `  "a_note": "C:\\Users\\jane \"quoted\" & <b>",`, "the value with backslashes and quotes, as JSON")
			at := -1
			for i, r := range rows {
				if strings.HasPrefix(r, `  "a_string": "`) {
					at = i
				}
			}
			require.GreaterOrEqual(t, at, 0, "no row holds the long string")
			got := strings.TrimPrefix(rows[at], `  "a_string": "`)
			continued := 0
			for _, r := range rows[at+1:] {
				r = strings.TrimSpace(r)
				if !strings.HasPrefix(r, "→ ") {
					break
				}
				got += strings.TrimPrefix(r, "→ ")
				continued++
			}
			assert.Equal(t, long+`",`, got, "the long string, its lines joined")
			assert.GreaterOrEqual(t, continued, 2, "the long string's continued lines")
			wantBackslashesInGo(t, r.drawn)
			wantOnPage(t, r.drawn)
		})
	}
}

// TestBackslashIsABackslash checks a backslash in the report's own text,
// in both languages: it reads back as a backslash, drawn in a Go font.
func TestBackslashIsABackslash(t *testing.T) {
	t.Parallel()
	d := fixture(t, "analysis.json")
	fs := append([]profilesvc.Finding(nil), d.Analysis.Findings...)
	fs = append(fs, profilesvc.Finding{Category: "scan_check", Result: profilesvc.FindingPassed,
		Details: `Saved to C:\scans\jane and \\server\share; 경로\폴더`, SortOrder: 99})
	d.Analysis.Findings = fs
	for _, locale := range []string{"en", "ko"} {
		t.Run(locale, func(t *testing.T) {
			t.Parallel()
			r := renderAll(t, variant(d, locale, false))
			text := r.text()
			wantText(t, text, `Saved to C:\scans\jane and \\server\share; 경로\폴더`)
			noText(t, text, "₩")
			wantBackslashesInGo(t, r.drawn)
		})
	}
}
