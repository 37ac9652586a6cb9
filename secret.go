package profilesvc

import (
	"errors"
	"net/url"
	"slices"
	"strings"
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
//     UTF-8 bytes); each after any number of backslashes, so that text
//     escaped twice is masked too;
//   - with anything a reader does not see, or sees as a space, between its
//     characters: white space as unicode.IsSpace has it (U+00A0 and U+3000
//     included), control and format characters (U+200B, U+00AD, U+FEFF...),
//     the other default-ignorable code points (variation selectors, the
//     Hangul fillers...), markup tags (whose brackets may be escaped too:
//     encoding/json writes < as \u003c), a plus sign (a space in a URL's
//     query), and escapes of any of these (\n, \u200b, %E2%80%8B...).
//     A character of the key itself is never taken for such a gap.
//
// So a body holding {"msg":"\u0035d0c..."}, which decodes to the key, is
// masked as the key itself is. The mask reads the text from start to end,
// each of the ways it can be read (escapes decoded or not, tags taken for
// gaps or not), decoding each character as it goes and matching the key
// (as a string search does, with a table of the key's own repeats): its
// time is linear in the text, and a client makes its mask in
// microseconds.
type secret struct {
	key   []rune              // the key, folded to lower case; nil for an empty key
	fail  []int               // fail[i]: the longest proper prefix of key[:i+1] that is also its suffix
	ascii [utf8.RuneSelf]bool // the key's ASCII characters, folded, which are never gaps
	inKey map[rune]bool       // and its others
}

func newSecret(key string) *secret {
	s := &secret{}
	if key == "" {
		return s
	}
	s.inKey = map[rune]bool{}
	for _, r := range key {
		r = unicode.ToLower(r)
		s.key = append(s.key, r)
		if r < utf8.RuneSelf {
			s.ascii[r] = true
		} else {
			s.inKey[r] = true
		}
	}
	s.fail = make([]int, len(s.key))
	for i, k := 1, 0; i < len(s.key); i++ {
		for k > 0 && s.key[i] != s.key[k] {
			k = s.fail[k-1]
		}
		if s.key[i] == s.key[k] {
			k++
		}
		s.fail[i] = k
	}
	return s
}

// mask returns str with every occurrence of the key, in any of the forms
// above, replaced.
func (s *secret) mask(str string) string {
	if s == nil || s.key == nil || str == "" {
		return str
	}
	spans := s.find(str)
	if spans == nil {
		return str
	}
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		b.WriteString(str[at:sp[0]])
		b.WriteString(redacted)
		at = sp[1]
	}
	b.WriteString(str[at:])
	return b.String()
}

// maskBytes returns b with every occurrence of the key replaced; b itself
// when it holds none.
func (s *secret) maskBytes(b []byte) []byte {
	if s == nil || s.key == nil || len(b) == 0 {
		return b
	}
	str := string(b)
	if masked := s.mask(str); masked != str {
		return []byte(masked)
	}
	return b
}

// shows reports whether str shows the key in any of the forms above.
func (s *secret) shows(str string) bool {
	return s != nil && s.key != nil && s.find(str) != nil
}

// maskErr returns err, or an error whose message has the key masked when
// err's shows it; errors.Is and errors.As see through it. A *url.Error in
// the chain has its URL and cause masked too, so that one reached with
// errors.As shows no key either.
func (s *secret) maskErr(err error) error {
	if err == nil || s == nil || s.key == nil {
		return err
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		uerr.URL = s.mask(uerr.URL)
		if uerr.Err != nil && s.shows(uerr.Err.Error()) {
			uerr.Err = &maskedError{err: uerr.Err, s: s}
		}
	}
	if !s.shows(err.Error()) {
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

// find returns the byte ranges of str that show the key, in order and
// apart. A text can be read more than one way (a backslash before the key
// may start an escape or stand for itself; a < may open a tag or be a
// character), so it is read each way, and what any reading shows is
// masked: with escapes decoded or not, and with markup tags taken for gaps
// or not.
func (s *secret) find(str string) [][2]int {
	var spans [][2]int
	for _, how := range [...]reading{{}, {decode: true}, {tags: true}, {decode: true, tags: true}} {
		spans = append(spans, s.scan(str, how)...)
	}
	if len(spans) < 2 {
		return spans
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	merged := spans[:1]
	for _, sp := range spans[1:] {
		if last := &merged[len(merged)-1]; sp[0] <= last[1] {
			last[1] = max(last[1], sp[1])
			continue
		}
		merged = append(merged, sp)
	}
	return merged
}

// reading is a way to read a text: whether escapes are decoded, and
// whether markup tags are gaps.
type reading struct{ decode, tags bool }

// scan reads str one way, a character at a time (see next), skipping
// gaps, and matches the key against the characters so read; a match spans
// from the start of its first character to the end of its last, the gaps
// between them included.
func (s *secret) scan(str string, how reading) [][2]int {
	var spans [][2]int
	starts := make([]int, len(s.key)) // the start of each of the last characters read, by count
	n, q := 0, 0                      // characters read; length of the key matched so far
	for i := 0; i < len(str); {
		r, end, gap := s.next(str, i, how)
		if gap {
			i = end
			continue
		}
		r = unicode.ToLower(r)
		starts[n%len(starts)] = i
		n++
		for q > 0 && r != s.key[q] {
			q = s.fail[q-1]
		}
		if r == s.key[q] {
			q++
		}
		if q == len(s.key) {
			spans = append(spans, [2]int{starts[(n-len(s.key))%len(starts)], end})
			q = 0
		}
		i = end
	}
	return spans
}

// next reads the character at str[i:]: decoded when it is an escape and
// the reading decodes, a markup tag taken as a gap when the reading takes
// tags so, and an invisible character as a gap, unless it is one of the
// key's own. It returns the character, where it ends, and whether it is a
// gap.
func (s *secret) next(str string, i int, how reading) (rune, int, bool) {
	r, end := readAt(str, i, how.decode)
	switch {
	case s.keyHas(r):
		return r, end, false
	case r == '<' && how.tags:
		if tagEnd, ok := tagEnd(str, end, how.decode); ok {
			return 0, tagEnd, true
		}
		return r, end, false
	}
	return r, end, hidden(r)
}

// keyHas reports whether r, in any case, is a character of the key.
func (s *secret) keyHas(r rune) bool {
	r = unicode.ToLower(r)
	if r < utf8.RuneSelf {
		return s.ascii[r]
	}
	return s.inKey[r]
}

// tagEnd returns where a markup tag whose < ends at i ends: just after its
// >, with no < before it; false when there is none.
func tagEnd(str string, i int, decode bool) (int, bool) {
	for i < len(str) {
		r, end := readAt(str, i, decode)
		switch r {
		case '>':
			return end, true
		case '<':
			return 0, false
		}
		i = end
	}
	return 0, false
}

// readAt reads the character at str[i:], decoding an escape when decode
// is set (see decodeAt), and returns it and where it ends.
func readAt(str string, i int, decode bool) (rune, int) {
	c := str[i]
	switch {
	case decode && (c == '\\' || c == '%'):
		return decodeAt(str, i)
	case c < utf8.RuneSelf:
		return rune(c), i + 1
	}
	r, size := utf8.DecodeRuneInString(str[i:])
	return r, i + size
}

// hidden reports whether a reader does not see r, or sees it as a space:
// white space, control and format characters, the other default-ignorable
// code points, and a plus sign (a space in a URL's query).
func hidden(r rune) bool {
	if r < utf8.RuneSelf {
		return r <= ' ' || r == 0x7f || r == '+'
	}
	return unicode.IsSpace(r) || unicode.In(r, unicode.Cc, unicode.Cf,
		unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// decodeAt decodes the character at str[i:]: an escape (see decodeEscape),
// a run of percent-escapes of one character's UTF-8 bytes, or the
// character as it stands. It returns the character and where it ends.
func decodeAt(str string, i int) (rune, int) {
	switch str[i] {
	case '\\':
		if r, end, ok := decodeEscape(str, i); ok {
			return r, end
		}
	case '%':
		if r, end, ok := decodePercent(str, i); ok {
			return r, end
		}
	}
	r, size := utf8.DecodeRuneInString(str[i:])
	return r, i + size
}

// decodeEscape decodes an escape at str[i:], after one or more
// backslashes: \uXXXX (with a second for a UTF-16 surrogate pair),
// \u{X...}, \UXXXXXXXX, \xXX, the short escapes of control characters
// (\n, \t...), and a backslash before a punctuation character.
func decodeEscape(str string, i int) (rune, int, bool) {
	j := i
	for j < len(str) && str[j] == '\\' {
		j++
	}
	if j == len(str) {
		return 0, 0, false
	}
	switch c := str[j]; {
	case c == 'u' && j+1 < len(str) && str[j+1] == '{':
		close := strings.IndexByte(str[j+2:min(len(str), j+9)], '}')
		if close < 1 {
			return 0, 0, false
		}
		if r, ok := hexRune(str[j+2 : j+2+close]); ok {
			return r, j + 3 + close, true
		}
	case c == 'u':
		return decodeUTF16Escape(str, j)
	case c == 'U':
		if r, ok := hexAt(str, j+1, 8); ok {
			return r, j + 9, true
		}
	case c == 'x':
		if r, ok := hexAt(str, j+1, 2); ok {
			return r, j + 3, true
		}
	case strings.IndexByte("abfnrtv", c) >= 0:
		return '\a', j + 1, true // a control character: a gap, whichever
	case c < utf8.RuneSelf && !unicode.IsLetter(rune(c)) && !unicode.IsDigit(rune(c)):
		return rune(c), j + 1, true
	}
	return 0, 0, false
}

// decodeUTF16Escape decodes \uXXXX at str[j:] (j at the u), with the
// low half of a surrogate pair after it, after its own backslashes.
func decodeUTF16Escape(str string, j int) (rune, int, bool) {
	r, ok := hexAt(str, j+1, 4)
	if !ok {
		return 0, 0, false
	}
	if utf16.IsSurrogate(r) {
		k := j + 5
		for k < len(str) && str[k] == '\\' {
			k++
		}
		if k > j+5 && k < len(str) && str[k] == 'u' {
			if lo, ok := hexAt(str, k+1, 4); ok {
				if pair := utf16.DecodeRune(r, lo); pair != utf8.RuneError {
					return pair, k + 5, true
				}
			}
		}
	}
	return r, j + 5, true
}

// decodePercent decodes the percent-escapes at str[i:] of one character's
// UTF-8 bytes.
func decodePercent(str string, i int) (rune, int, bool) {
	var buf [utf8.UTFMax]byte
	n, j := 0, i
	for n < len(buf) && j+2 < len(str) && str[j] == '%' {
		b, ok := hexAt(str, j+1, 2)
		if !ok {
			break
		}
		buf[n] = byte(b)
		n++
		j += 3
		if utf8.FullRune(buf[:n]) {
			break
		}
	}
	if n == 0 {
		return 0, 0, false
	}
	r, size := utf8.DecodeRune(buf[:n])
	if r == utf8.RuneError && size <= 1 {
		return 0, 0, false
	}
	return r, i + 3*size, true
}

// hexAt reads n hexadecimal digits at str[i:].
func hexAt(str string, i, n int) (rune, bool) {
	if i+n > len(str) {
		return 0, false
	}
	return hexRune(str[i : i+n])
}

// hexRune reads hexadecimal digits, in either case, as a character.
func hexRune(h string) (rune, bool) {
	var r rune
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, r <= unicode.MaxRune
}
