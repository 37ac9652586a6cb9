// Package font holds the typefaces of the mock server's PDF reports and
// what a report needs to lay text out in them.
//
// NanumGothic, regular and bold, by NAVER Corporation, is embedded here
// under the SIL Open Font License 1.1 (OFL.txt beside this file), shipped
// unmodified: it draws Hangul, and whatever else the Go fonts lack. The Go
// fonts (Go Regular, Go Bold and Go Mono, BSD-licensed, from
// golang.org/x/image/font/gofont) draw Latin text, since NanumGothic draws
// U+005C, the backslash, as the Won sign, as Korean fonts do.
//
// Parse reads a TrueType font's metrics: which characters it has and
// their advance widths, so that text is measured without the PDF library.
// Covers tells which characters NanumGothic has, so that a report can
// replace the others visibly instead of failing.
package font

import (
	_ "embed"
	"sync"

	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
)

// Regular and Bold are the TrueType data of NanumGothic's two weights.
var (
	//go:embed NanumGothic.ttf
	Regular []byte
	//go:embed NanumGothicBold.ttf
	Bold []byte
)

// License is the text of the SIL Open Font License NanumGothic is under.
//
//go:embed OFL.txt
var License string

// GoRegular, GoBold and GoMono return the TrueType data of the Go fonts.
func GoRegular() []byte { return goregular.TTF }

// GoBold returns the TrueType data of Go Bold.
func GoBold() []byte { return gobold.TTF }

// GoMono returns the TrueType data of Go Mono.
func GoMono() []byte { return gomono.TTF }

// nanumMetrics are NanumGothic's metrics, read once; the two weights
// cover the same characters.
var nanumMetrics = sync.OnceValues(func() (*Metrics, error) { return Parse(Regular) })

// Covers reports whether NanumGothic has a glyph for r.
func Covers(r rune) bool {
	m, err := nanumMetrics()
	if err != nil {
		return r < 0x80
	}
	return m.Has(r)
}
