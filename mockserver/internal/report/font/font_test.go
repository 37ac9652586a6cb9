package font_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/mockserver/internal/report/font"
)

// TestParse checks the metrics of each font: the characters the reports
// need, widths that a monospace font keeps equal, and a refusal of data
// that is not a font.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		has  string
	}{
		{"NanumGothic", font.Regular, "Aa1 \\김한글□—“”"},
		{"NanumGothic Bold", font.Bold, "Aa1 김한글"},
		{"Go Regular", font.GoRegular(), "Aa1 \\{}éü—“”→•·□"},
		{"Go Bold", font.GoBold(), "Aa1 \\"},
		{"Go Mono", font.GoMono(), "Aa1 \\→"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := font.Parse(tc.data)
			require.NoError(t, err)
			for _, c := range tc.has {
				assert.True(t, m.Has(c), "%q", c)
				assert.Positive(t, m.Advance(c), "the width of %q", c)
			}
			assert.False(t, m.Has('\U0001F600'), "an emoji")
			assert.Zero(t, m.Advance('\U0001F600'))
			assert.Positive(t, m.Ascender())
		})
	}
	mono, err := font.Parse(font.GoMono())
	require.NoError(t, err)
	assert.Equal(t, mono.Advance('i'), mono.Advance('W'), "Go Mono's widths")
	regular, err := font.Parse(font.GoRegular())
	require.NoError(t, err)
	assert.Less(t, regular.Advance('i'), regular.Advance('W'), "Go Regular's widths")
	assert.False(t, regular.Has('김'), "Go Regular has no Hangul")

	for _, bad := range [][]byte{nil, []byte("not a font at all"), font.Regular[:200]} {
		_, err := font.Parse(bad)
		assert.Error(t, err, "%d bytes", len(bad))
	}
}

// TestCovers checks which characters NanumGothic has.
func TestCovers(t *testing.T) {
	for _, c := range "Aé김한□" {
		assert.True(t, font.Covers(c), "%q", c)
	}
	for _, c := range "\U0001F600\U00020000" {
		assert.False(t, font.Covers(c), "%q", c)
	}
}
