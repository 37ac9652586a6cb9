package profilesvc

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// redacted stands in for the API key wherever it is masked.
const redacted = "[REDACTED]"

// secret is the API key as the SDK masks it in every string of the
// service's that it puts in an error, an exported field of its own types or
// a log line: a broken or hostile server may echo the key anywhere (a
// status line, a header, a body, an analysis's error text, a cursor, a file
// name).
//
// The mask finds the key as a reader, or a decoder, would see it, not only
// as its bytes:
//   - in any case;
//   - with its characters written as escapes that decode to them, with
//     hexadecimal digits in either case: \u0035 as JSON and JavaScript
//     write it (a UTF-16 surrogate pair beyond U+FFFF), \u{35},
//     \U00000035, \x35, a backslash before a punctuation character (\/,
//     \-), and %35 as in a URL (the percent-escapes of the character's
//     UTF-8 bytes);
//   - with anything a reader does not see, or sees as a space, between its
//     characters: white space as unicode.IsSpace has it (U+00A0 and U+3000
//     included), control and format characters (U+200B, U+00AD, U+FEFF...),
//     the other default-ignorable code points (variation selectors, the
//     Hangul fillers...), markup tags (whose brackets may be escaped too:
//     encoding/json writes < as \u003c), a plus sign (a space in a URL's
//     query), and escape sequences of any character (\n, \u200b,
//     %E2%80%8B...): between the key's characters these stand only in text
//     made to hide it, so the mask does not decode them there;
//   - each escape after any number of backslashes, so that text escaped
//     twice is masked too.
//
// So a body holding {"msg":"\u0035d0c..."}, which decodes to the key, is
// masked as the key itself is. The mask is one regular expression, linear
// in the length of the text (Go's regexp is RE2), compiled once per client.
type secret struct {
	re *regexp.Regexp // nil for an empty key
}

func newSecret(key string) *secret {
	s := &secret{}
	if key == "" {
		return s
	}
	gap := "(?:" + hiddenPattern() + ")*"
	parts := make([]string, 0, len(key))
	for _, r := range key {
		parts = append(parts, shownAs(r))
	}
	s.re = regexp.MustCompile(`(?i)` + strings.Join(parts, gap))
	return s
}

// mask returns str with every occurrence of the key, in any of the forms
// above, replaced.
func (s *secret) mask(str string) string {
	if s == nil || s.re == nil || str == "" {
		return str
	}
	return s.re.ReplaceAllLiteralString(str, redacted)
}

// maskBytes returns b with every occurrence of the key replaced; b itself
// when it holds none.
func (s *secret) maskBytes(b []byte) []byte {
	if s == nil || s.re == nil || !s.re.Match(b) {
		return b
	}
	return s.re.ReplaceAllLiteral(b, []byte(redacted))
}

// maskErr returns err, or an error whose message has the key masked when
// err's shows it; errors.Is and errors.As see through it. A *url.Error in
// the chain has its URL and cause masked too, so that one reached with
// errors.As shows no key either.
func (s *secret) maskErr(err error) error {
	if err == nil || s == nil || s.re == nil {
		return err
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		uerr.URL = s.mask(uerr.URL)
		if uerr.Err != nil && s.re.MatchString(uerr.Err.Error()) {
			uerr.Err = &maskedError{err: uerr.Err, s: s}
		}
	}
	if !s.re.MatchString(err.Error()) {
		return err
	}
	return &maskedError{err: err, s: s}
}

// maskedError is an error whose message has the API key masked.
type maskedError struct {
	err error
	s   *secret
}

func (e *maskedError) Error() string { return e.s.mask(e.err.Error()) }
func (e *maskedError) Unwrap() error { return e.err }

// escapeLead is what begins an escape: one backslash, or more when the
// text was escaped more than once.
const escapeLead = `\\+`

// shownAs returns the pattern of one character of the key as it may be
// written: itself (in any case, under the pattern's (?i)), or a backslash
// escape or percent-escapes of itself or of another case of it.
func shownAs(r rune) string {
	var escapes, percents []string
	for f := r; ; {
		if f < 0x100 {
			escapes = append(escapes, fmt.Sprintf("x%02x", f))
		}
		if f <= 0xffff {
			escapes = append(escapes, fmt.Sprintf("u%04x", f))
		} else {
			hi, lo := utf16.EncodeRune(f)
			escapes = append(escapes, fmt.Sprintf("u%04x%su%04x", hi, escapeLead, lo))
		}
		escapes = append(escapes, fmt.Sprintf("U%08x", f), fmt.Sprintf(`u\{0*%x\}`, f))
		var pct strings.Builder
		for _, b := range utf8.AppendRune(nil, f) {
			fmt.Fprintf(&pct, "%%%02x", b)
		}
		percents = append(percents, pct.String())
		if f = unicode.SimpleFold(f); f == r {
			break
		}
	}
	if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
		// \/, \", \\, \-: punctuation escaped as itself.
		escapes = append(escapes, regexp.QuoteMeta(string(r)))
	}
	alts := append([]string{regexp.QuoteMeta(string(r)), escapeLead + "(?:" + strings.Join(escapes, "|") + ")"}, percents...)
	return "(?:" + strings.Join(alts, "|") + ")"
}

// hiddenTables are the characters a reader does not see, or sees as a
// space: white space (unicode.IsSpace is Z with some of Cc), control and
// format characters, variation selectors and the other default-ignorable
// code points (such as U+034F and the Hangul fillers).
var hiddenTables = []*unicode.RangeTable{
	unicode.Z, unicode.Cc, unicode.Cf,
	unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point,
}

// hiddenPattern is the pattern of one thing that may stand between two
// characters of the key: a character of hiddenTables; an escape sequence
// (a short escape of a control character, \xHH, \uHHHH, \u{H...},
// \UHHHHHHHH, %HH), which this does not decode, so that the pattern stays
// small; a plus sign; or a markup tag, whose brackets may be escaped. It
// depends on no key, so it is built once.
var hiddenPattern = sync.OnceValue(func() string {
	var class strings.Builder
	class.WriteString("[")
	for _, rg := range hiddenRanges() {
		fmt.Fprintf(&class, `\x{%x}-\x{%x}`, rg[0], rg[1])
	}
	class.WriteString("]")
	escape := escapeLead + `(?:[abfnrtv]|x[0-9a-f]{2}|u[0-9a-f]{4}|u\{[0-9a-f]{1,6}\}|U[0-9a-f]{8})|%[0-9a-f]{2}`
	tag := shownAs('<') + "[^<>]*" + shownAs('>')
	return class.String() + "|" + escape + `|\+|` + tag
})

// hiddenRanges returns the code points of hiddenTables as sorted, merged
// ranges.
func hiddenRanges() [][2]rune {
	var rs [][2]rune
	add := func(lo, hi, stride rune) {
		if stride == 1 {
			rs = append(rs, [2]rune{lo, hi})
			return
		}
		for c := lo; c <= hi; c += stride {
			rs = append(rs, [2]rune{c, c})
		}
	}
	for _, t := range hiddenTables {
		for _, r := range t.R16 {
			add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
		for _, r := range t.R32 {
			add(rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
	}
	slices.SortFunc(rs, func(a, b [2]rune) int { return int(a[0] - b[0]) })
	merged := rs[:0]
	for _, r := range rs {
		if n := len(merged); n > 0 && r[0] <= merged[n-1][1]+1 {
			merged[n-1][1] = max(merged[n-1][1], r[1])
			continue
		}
		merged = append(merged, r)
	}
	return merged
}
