package report

// Tests of how text is set: the faces of its pieces, measuring against
// gopdf's own, and wrapping.

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/signintech/gopdf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func typesetForTest(t *testing.T) *typeset {
	t.Helper()
	ts, err := parsedFaces()
	require.NoError(t, err)
	return ts
}

// TestMeasureAgreesWithGopdf checks that text measured with the fonts'
// metrics is as wide as gopdf draws it, in every face, so that the pieces
// of a line meet.
func TestMeasureAgreesWithGopdf(t *testing.T) {
	ts := typesetForTest(t)
	samples := []string{
		"Document Analysis Report", "0123456789 (pf_t8tnc1zqgebrpsv7v8js)", `C:\Users\jane "quoted" {}[]`,
		"Zoë Müller-Núñez · “quoted” — …", "→ • □",
	}
	hangulSamples := append(samples[:len(samples):len(samples)], "문서 분석 보고서", "2025년 3월 4일", "신원 교차 확인에서 주의 사항이 나왔습니다.")
	for f := range faceCount {
		t.Run(faceFamilies[f], func(t *testing.T) {
			pdf := &gopdf.GoPdf{}
			pdf.Start(gopdf.Config{PageSize: *gopdf.PageSizeA4, Unit: gopdf.UnitPT})
			require.NoError(t, pdf.AddTTFFontFromFontContainer(faceFamilies[f], ts.containers[f]))
			require.NoError(t, pdf.SetFont(faceFamilies[f], "", 9.5))
			texts := samples
			if f == hangul || f == hangulBold {
				texts = hangulSamples
			}
			for _, s := range texts {
				if !allIn(ts, f, s) {
					continue
				}
				want, err := pdf.MeasureTextWidth(s)
				require.NoError(t, err)
				got := ts.width(s, f, 9.5)
				assert.InDelta(t, want, got, 1e-9, "%q", s)
			}
		})
	}
}

// allIn reports whether face f has every character of s.
func allIn(ts *typeset, f face, s string) bool {
	for _, c := range s {
		if !ts.metrics[f].Has(c) {
			return false
		}
	}
	return true
}

// TestPiecesByFace checks which face draws what: words the Go font has
// in it, Hangul words in NanumGothic, and a backslash in the Go font even
// inside a Hangul word; spaces go with the word before them.
func TestPiecesByFace(t *testing.T) {
	ts := typesetForTest(t)
	type p struct {
		Text string
		Face string
	}
	for _, tc := range []struct {
		name string
		st   textStyle
		line string
		want []p
	}{
		{"latin", textStyle{size: 9}, `Jane Doe C:\dir`, []p{{`Jane Doe C:\dir`, "go"}}},
		{"mixed", textStyle{size: 9}, "Jane Doe 김지은 (pf_1)", []p{{"Jane Doe ", "go"}, {"김지은 ", "nanum"}, {"(pf_1)", "go"}}},
		{"backslash in a Hangul word", textStyle{size: 9}, `경로\폴더 x`, []p{{"경로", "nanum"}, {`\`, "go"}, {"폴더 ", "nanum"}, {"x", "go"}}},
		{"bold", textStyle{size: 9, bold: true}, "위험 Risk", []p{{"위험 ", "nanum-bold"}, {"Risk", "go-bold"}}},
		{"mono, leading spaces", textStyle{size: 7, mono: true}, `    "a\\b": "김"`, []p{{`    "a\\b": `, "go-mono"}, {`"김"`, "nanum"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []p
			sum := 0.0
			for _, pc := range ts.pieces(tc.line, tc.st, nil) {
				got = append(got, p{pc.text, faceFamilies[pc.face]})
				sum += pc.width
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("pieces of %q (-want +got):\n%s", tc.line, diff)
			}
			assert.InDelta(t, sum, ts.measure(tc.line, tc.st), 1e-9, "measure against the pieces' widths")
		})
	}
}

// TestWrap checks that wrapped lines fit, break at spaces where they can,
// and keep every character but the spaces they break at.
func TestWrap(t *testing.T) {
	ts := typesetForTest(t)
	st := textStyle{size: 8.5}
	for _, tc := range []struct {
		name  string
		text  string
		width float64
		// broken is set when a word must be broken within.
		broken bool
	}{
		{"English", "Extracted 7 of 8 fields: account number, address, date of birth, document number, expiry date, full name and monthly income.", 200, false},
		{"Korean", "8개 항목 중 7개를 추출했습니다: 계좌 번호, 주소, 생년월일, 문서 번호, 만료일, 성명, 월 소득.", 150, false},
		{"mixed", "문서 3건을 분류했습니다: passport.txt(여권), bank_statement.txt(은행 거래내역서), utility_bill.txt(공과금 고지서).", 120, false},
		{"an unbroken token", "before " + strings.Repeat("UNBROKEN", 40) + " after", 180, true},
		{"a long name", "bank_statement_of_the_applicant_in_march.txt", 60, true},
		{"a token longer than the window a line is looked for in", "before " + strings.Repeat("ABCDEFGHIJ", fitWindow/5) + " after", 180, true},
		{"lines of their own", "first line\n\nthird line", 300, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := ts.wrap(tc.text, tc.width, st)
			require.NotEmpty(t, lines)
			for _, ln := range lines {
				if w := ts.measure(ln, st); w > tc.width+1e-9 && len([]rune(ln)) > 1 {
					t.Errorf("%q is %.1f points wide, more than %.1f", ln, w, tc.width)
				}
				assert.Equal(t, strings.TrimSpace(ln), ln, "a line starts and ends with a character")
			}
			joined := strings.Join(lines, " ")
			if tc.broken {
				assert.Equal(t, squash(tc.text), squash(joined), "the characters, spaces aside")
			} else {
				assert.Equal(t, strings.Fields(tc.text), strings.Fields(joined), "the words")
			}
			if strings.Contains(tc.text, "\n\n") {
				assert.Equal(t, []string{"first line", "", "third line"}, lines)
			}
		})
	}
}

// squash drops the spaces and line breaks of s.
func squash(s string) string {
	return strings.Join(strings.Fields(s), "")
}

// TestClean checks that characters no face has show as a replacement,
// tabs as spaces, and that control characters go.
func TestClean(t *testing.T) {
	ts := typesetForTest(t)
	assert.Equal(t, "a  b□ c\nd", ts.clean("a\tb\U0001F600 c\x00\nd\x07"))
	s := `plain ASCII, "quoted" \ {}`
	assert.Equal(t, s, ts.clean(s))
	assert.False(t, math.IsNaN(ts.measure(ts.clean("\x00"), textStyle{size: 9})))
}
