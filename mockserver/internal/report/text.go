package report

import (
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/signintech/gopdf"

	"github.com/profilesvc/profilesvc-go/mockserver/internal/report/font"
)

// How text is set: every word is drawn in a Go font when that font has
// all its characters (Latin, digits, punctuation: the backslash is a
// backslash there), and in NanumGothic otherwise (Hangul). A word in
// NanumGothic that holds a backslash, or a character only the Go fonts
// have, draws that character in the Go font. Spaces go with the word
// before them, so that a line changes font only between words, where
// readers of the PDF's text see a space anyway. Text is measured with
// the fonts' own metrics (package font), rounded as gopdf rounds them, so
// that the pieces of a line drawn one after the other meet exactly.

// face is one of the report's typefaces.
type face int

const (
	sans       face = iota // Go Regular: Latin text
	sansBold               // Go Bold
	mono                   // Go Mono: the raw-data appendix, fingerprints
	hangul                 // NanumGothic: Hangul, and what the Go fonts lack
	hangulBold             // NanumGothic Bold
	faceCount
)

// faceFamilies are the faces' family names in the PDF.
var faceFamilies = [faceCount]string{"go", "go-bold", "go-mono", "nanum", "nanum-bold"}

// faceData are the faces' TrueType data.
var faceData = [faceCount]func() []byte{
	font.GoRegular, font.GoBold, font.GoMono,
	func() []byte { return font.Regular }, func() []byte { return font.Bold },
}

// typeset are the report's faces, parsed once and only read after: for
// gopdf, each in a container a report copies its subset from; for
// layout, each one's metrics.
type typeset struct {
	containers [faceCount]*gopdf.FontContainer
	metrics    [faceCount]*font.Metrics
}

// parsedFaces parses the faces on first use; every later call, from any
// goroutine, gets the same parsed data (or the same error). The 4.6 MB
// NanumGothic files take longer to parse than a report takes to draw.
var parsedFaces = sync.OnceValues(func() (*typeset, error) {
	ts := &typeset{}
	for f := range faceCount {
		data := faceData[f]()
		c := &gopdf.FontContainer{}
		if err := c.AddTTFFontData(faceFamilies[f], data); err != nil {
			return nil, fmt.Errorf("parsing the font %s: %w", faceFamilies[f], err)
		}
		m, err := font.Parse(data)
		if err != nil {
			return nil, fmt.Errorf("reading the metrics of the font %s: %w", faceFamilies[f], err)
		}
		ts.containers[f], ts.metrics[f] = c, m
	}
	return ts, nil
})

// textStyle is how a piece of text looks.
type textStyle struct {
	size  float64
	bold  bool
	mono  bool
	color rgb
}

// latinFace and hangulFace are the faces of a style's words.
func (st textStyle) latinFace() face {
	switch {
	case st.mono:
		return mono
	case st.bold:
		return sansBold
	}
	return sans
}

func (st textStyle) hangulFace() face {
	if st.bold {
		return hangulBold
	}
	return hangul
}

// replacement stands for a character no face has.
const replacement = '□'

// clean makes text drawable: a character no face has becomes a visible
// replacement, a tab two spaces, and other control characters go. Line
// breaks stay.
func (ts *typeset) clean(s string) string {
	ok := true
	for _, c := range s {
		if c == '\n' || c == ' ' || (c >= 0x21 && c < 0x7F) {
			continue
		}
		ok = false
		break
	}
	if ok {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		switch {
		case c == '\n' || c == ' ':
			b.WriteRune(c)
		case c == '\t':
			b.WriteString("  ")
		case unicode.IsControl(c) || c == '\uFEFF' || c == utf8.RuneError:
		case ts.metrics[sans].Has(c) || ts.metrics[hangul].Has(c):
			b.WriteRune(c)
		default:
			b.WriteRune(replacement)
		}
	}
	return b.String()
}

// wordFace is the face of a word (a run without spaces) of clean text.
func (ts *typeset) wordFace(word string, st textStyle) face {
	lf := st.latinFace()
	m := ts.metrics[lf]
	for _, c := range word {
		if !m.Has(c) {
			return st.hangulFace()
		}
	}
	return lf
}

// runeFace is the face of one character of a word in face f: the Go
// font's for a backslash, or for what NanumGothic lacks.
func (ts *typeset) runeFace(c rune, f face, st textStyle) face {
	if f == st.latinFace() {
		return f
	}
	if c == '\\' || !ts.metrics[f].Has(c) {
		return st.latinFace()
	}
	return f
}

// piece is a part of a line in one face.
type piece struct {
	text  string
	face  face
	width float64
}

// pieces cuts a line of clean text into pieces by face, appending them
// to out.
func (ts *typeset) pieces(line string, st textStyle, out []piece) []piece {
	start, cur := 0, face(-1)
	flush := func(end int) {
		if end > start {
			out = append(out, piece{text: line[start:end], face: cur, width: ts.width(line[start:end], cur, st.size)})
		}
		start = end
	}
	i := 0
	for i < len(line) {
		if line[i] == ' ' {
			i++
			continue
		}
		end := strings.IndexByte(line[i:], ' ')
		if end < 0 {
			end = len(line)
		} else {
			end += i
		}
		wf := ts.wordFace(line[i:end], st)
		for j, c := range line[i:end] {
			f := ts.runeFace(c, wf, st)
			if cur < 0 {
				cur = f // leading spaces go with the first word
			} else if f != cur {
				flush(i + j)
				cur = f
			}
		}
		i = end
	}
	if cur < 0 {
		cur = st.latinFace()
	}
	flush(len(line))
	return out
}

// width is the width of text in face f at size, in points.
func (ts *typeset) width(text string, f face, size float64) float64 {
	m := ts.metrics[f]
	sum := 0
	for i := 0; i < len(text); {
		c := rune(text[i])
		if c < utf8.RuneSelf {
			i++
		} else {
			var n int
			c, n = utf8.DecodeRuneInString(text[i:])
			i += n
		}
		sum += m.Advance(c)
	}
	return float64(sum) * size / 1000
}

// measure is the width of a line of clean text in style st, in points:
// the width pieces gives it, without making them.
func (ts *typeset) measure(line string, st textStyle) float64 {
	sum, last := 0.0, face(-1)
	for i := 0; ; {
		start, end := nextWord(line, i)
		spaces := float64(start - i)
		if start == len(line) {
			if last < 0 {
				last = st.latinFace()
			}
			return sum + spaces*ts.space(last, st.size)
		}
		w, first, lastOfWord := ts.word(line[start:end], st)
		if last < 0 {
			last = first // leading spaces go with the first word
		}
		sum += spaces*ts.space(last, st.size) + w
		last, i = lastOfWord, end
	}
}

// nextWord finds the first word (a run without spaces) of s at or after
// i: its start, after the spaces before it, and its end. With no word
// left, both are len(s).
func nextWord(s string, i int) (start, end int) {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	end = strings.IndexByte(s[i:], ' ')
	if end < 0 {
		return i, len(s)
	}
	return i, i + end
}

// word measures a word (a run without spaces) of clean text, and returns
// the faces of its first and last characters.
func (ts *typeset) word(w string, st textStyle) (float64, face, face) {
	wf := ts.wordFace(w, st)
	sum, first, last := 0, face(-1), wf
	for _, c := range w {
		f := ts.runeFace(c, wf, st)
		if first < 0 {
			first = f
		}
		last = f
		sum += ts.metrics[f].Advance(c)
	}
	return float64(sum) * st.size / 1000, first, last
}

// space is the width of a space in face f at size.
func (ts *typeset) space(f face, size float64) float64 {
	return float64(ts.metrics[f].Advance(' ')) * size / 1000
}

// fitWindow is the most bytes of text a line is looked for in: far more
// than the widest line holds.
const fitWindow = 1024

// maxWrapBytes is the most bytes of one text the report wraps: an
// analysis's sentences and values are far shorter (the engine cuts its
// own at 4 KiB), and a longer one, which another analyzer or a restored
// snapshot may give, is cut with an ellipsis, so that no text fills pages
// without end.
const maxWrapBytes = 8 << 10

// wrap cleans text and breaks it into lines no wider than width: at
// spaces, and within a word only when the word alone is wider. Each line
// break of the text starts a line; an empty paragraph is an empty line.
// Text past maxWrapBytes is cut.
func (ts *typeset) wrap(text string, width float64, st textStyle) []string {
	if len(text) > maxWrapBytes {
		end := maxWrapBytes
		for end > 0 && !utf8.RuneStart(text[end]) {
			end--
		}
		text = text[:end] + "…"
	}
	text = ts.clean(text)
	var out []string
	for para := range strings.SplitSeq(text, "\n") {
		para = strings.TrimRight(para, " ")
		if para == "" {
			out = append(out, "")
			continue
		}
		out = ts.wrapParagraph(para, width, st, out)
	}
	return out
}

// wrapParagraph appends the lines of one paragraph of clean text. It
// adds up the widths of words and of the spaces between them as measure
// does, so that each line is as wide as it will be drawn.
func (ts *typeset) wrapParagraph(para string, width float64, st textStyle, out []string) []string {
	lineStart, lineEnd := 0, 0   // the line under way: para[lineStart:lineEnd]
	lineW, last := 0.0, face(-1) // its width, and the face of its last character
	i := 0
	for i < len(para) {
		wordStart, wordEnd := nextWord(para, i)
		if wordStart == len(para) {
			break
		}
		// A word longer than fitWindow is wider than any line, as fit
		// assumes: it is not measured, which would make breaking a long
		// word take time quadratic in its length, a whole measure a line.
		if wordEnd-wordStart <= fitWindow {
			w, first, lastOfWord := ts.word(para[wordStart:wordEnd], st)
			spacesFace := last
			if spacesFace < 0 {
				spacesFace = first
			}
			if with := lineW + float64(wordStart-i)*ts.space(spacesFace, st.size) + w; with <= width {
				lineEnd, lineW, last, i = wordEnd, with, lastOfWord, wordEnd
				continue
			}
		}
		if lineEnd > lineStart {
			// The word goes to the next line.
			out = append(out, para[lineStart:lineEnd])
			lineStart, lineEnd, lineW, last, i = wordStart, wordStart, 0, -1, wordStart
			continue
		}
		// The word alone is wider than a line: break it after a
		// punctuation mark that joins parts of names (_ - . /), or else
		// between characters; the rest is a word of its own.
		cut := namedBreak(para[lineStart:wordEnd], ts.fit(para[lineStart:wordEnd], width, st))
		out = append(out, para[lineStart:lineStart+cut])
		lineStart += cut
		lineEnd, lineW, last, i = lineStart, 0, -1, lineStart
	}
	if lineEnd > lineStart {
		out = append(out, para[lineStart:lineEnd])
	}
	return out
}

// namedBreak moves a cut of a word back to just after a punctuation mark
// that joins the parts of a name (_ - . /), when one leaves a few
// characters on the line and more than a file extension for the next;
// otherwise the cut stays.
func namedBreak(word string, cut int) int {
	for at := cut - 1; at >= 3; at-- {
		if strings.IndexByte("_-./", word[at]) >= 0 && at+1 < cut && len(word)-(at+1) > 4 {
			return at + 1
		}
	}
	return cut
}

// fit returns how many bytes of text, cut between characters, fit in
// width: at least one character. A word's face depends on all its
// characters, so each cut is measured as it will be drawn.
func (ts *typeset) fit(text string, width float64, st textStyle) int {
	// No line holds more than a window of the text: measuring within it
	// keeps the breaking of a very long word linear in its length.
	if len(text) > fitWindow {
		end := fitWindow
		for end > 0 && !utf8.RuneStart(text[end]) {
			end--
		}
		text = text[:end]
	}
	var cuts []int // the ends of the characters
	for i := range text {
		if i > 0 {
			cuts = append(cuts, i)
		}
	}
	cuts = append(cuts, len(text))
	// The longest cut that fits, by bisection; a word's width grows with
	// its characters, save when a character changes the word's face, so
	// the cut found is checked and shortened if need be.
	lo, hi := 0, len(cuts) // cuts[:lo] fit; cuts[hi:] do not
	for lo < hi {
		mid := (lo + hi) / 2
		if ts.measure(text[:cuts[mid]], st) <= width {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for lo > 0 && ts.measure(text[:cuts[lo-1]], st) > width {
		lo--
	}
	if lo == 0 {
		return cuts[0]
	}
	return cuts[lo-1]
}
