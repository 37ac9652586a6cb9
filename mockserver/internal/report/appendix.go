package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// The raw-data appendix: the analysis's extracted data and raw action
// results as the service returns them, as JSON indented two spaces a
// level, in Go Mono. A line too wide for the page breaks between
// characters (at a space when one is near the end), and each of its
// continuations starts, indented, with a visible mark, so that nothing is
// cut or joined silently.

// codeSize is the size of the appendix's type.
const codeSize = 7.2

// continuation starts each continued line of the appendix.
const continuation = "→ "

// appendixRoom is the room the appendix needs left on the report's last
// page to start there, in points: about fifteen lines of data.
const appendixRoom = 160.0

// codeLeading are the line heights the appendix may take, as multiples of
// its type's size: the first, unless a closer one saves a page.
var codeLeading = []float64{1.3, 1.25, 1.2, 1.15, 1.1}

// codeBlock is a titled block of the appendix, its lines cut to the page.
type codeBlock struct {
	title string
	lines []codeLine
}

// codeLine is a line of the appendix: its text and where it starts, and
// whether it continues the line before it (and so starts with the mark).
type codeLine struct {
	x         float64
	text      string
	continued bool
}

// appendix draws the raw data after the report: on the report's last page
// when room is left there, else on a page of its own, and closer set when
// that saves a page, so that no page stands mostly blank.
func (r *reportWriter) appendix() {
	blocks := []codeBlock{
		{labels.rawExtracted.in(r.l), r.codeLines(prettyJSON(json.RawMessage(r.d.Analysis.ExtractedData)), labels.codeCut.in(r.l))},
		{labels.rawActions.in(r.l), r.codeLines(prettyJSON(r.d.Analysis.RawActionResults), labels.codeCut.in(r.l))},
	}
	note := r.wrap(labels.appendixNote.in(r.l), contentW, muted)
	here := r.y+appendixRoom <= pageH-marginBottom
	best, bestLeading, bestHere := -1, codeLeading[0], false
	for _, lead := range codeLeading {
		for _, start := range []bool{true, false} {
			if start && !here {
				continue
			}
			n := appendixPages(r.y, start, note, blocks, lead)
			if best < 0 || n < best {
				best, bestLeading, bestHere = n, lead, start
			}
		}
	}
	if bestHere {
		r.y += 12
	} else {
		r.newPage()
	}
	r.heading(labels.appendix.in(r.l))
	r.paragraph(labels.appendixNote.in(r.l), marginX, muted)
	r.y += 4
	for _, b := range blocks {
		r.ensure(30)
		r.text(marginX, r.y, b.title, textStyle{size: 10, bold: true, color: colInk})
		r.y += 15
		r.drawCode(b.lines, codeSize*bestLeading)
		r.y += 8
	}
}

// appendixPages is how many pages after the one at y the appendix ends
// on, laid out as appendix draws it: after y on that page when here, else
// from a new page, with lines lead times the type's size apart.
func appendixPages(y float64, here bool, note []string, blocks []codeBlock, lead float64) int {
	pages := 0
	ensure := func(h float64) {
		if y+h > pageH-marginBottom {
			pages++
			y = marginTop
		}
	}
	if here {
		y += 12
	} else {
		pages, y = 1, marginTop
	}
	ensure(100) // the heading
	y += 34
	for range note {
		ensure(smallSize * lineGap)
		y += smallSize * lineGap
	}
	y += 4
	for _, b := range blocks {
		ensure(30)
		y += 15
		for range b.lines {
			ensure(codeSize * lead)
			y += codeSize * lead
		}
		y += 8
	}
	return pages
}

// prettyJSON is v as JSON, indented two spaces a level, with <, > and &
// as they are rather than escaped.
func prettyJSON(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var tree any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		return string(raw)
	}
	tree = clipDepth(tree, maxCodeDepth)
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(tree); err != nil {
		return string(raw)
	}
	return strings.TrimRight(out.String(), "\n")
}

// Bounds of the appendix, far beyond the data of any analysis the engine
// makes, so that the data of another analyzer or of a restored snapshot,
// however large or deep, never makes a report without end: values nested
// deeper than maxCodeDepth levels are shown as "…", and a block stops
// after maxCodeLines lines, saying how many it leaves out.
const (
	maxCodeDepth = 16
	maxCodeLines = 2000
)

// clipDepth returns a decoded JSON value with what lies deeper than depth
// levels replaced by "…".
func clipDepth(v any, depth int) any {
	switch x := v.(type) {
	case map[string]any:
		if depth == 0 {
			return "…"
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = clipDepth(e, depth-1)
		}
		return out
	case []any:
		if depth == 0 {
			return "…"
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = clipDepth(e, depth-1)
		}
		return out
	}
	return v
}

// codeLines cuts preformatted text into the lines the appendix draws,
// in the monospace face: a line too wide for the page continues on the
// next, indented two more and after the mark. Past maxCodeLines lines,
// the rest is left out, and a last line says how many lines of the text
// (cut, a format of one number) were.
func (c *canvas) codeLines(s, cut string) []codeLine {
	st := textStyle{size: codeSize, mono: true}
	width := contentW - 8
	x0 := marginX + 4
	markW := c.ts.measure(continuation, st)
	var out []codeLine
	lines := strings.Split(c.ts.clean(s), "\n")
	for i, ln := range lines {
		if len(out) >= maxCodeLines {
			out = append(out, codeLine{x: x0, text: fmt.Sprintf(cut, len(lines)-i)})
			break
		}
		ln = strings.TrimRight(ln, " ")
		indent := ln[:len(ln)-len(strings.TrimLeft(ln, " "))]
		x, w, continued := x0, width, false
		for {
			piece, rest := c.cutCode(ln, w, st)
			out = append(out, codeLine{x: x, text: piece, continued: continued})
			if rest == "" || len(out) >= maxCodeLines {
				break
			}
			// The continuation: indented two more than its line, but
			// never past the middle of the page, after the mark.
			x = x0 + min(c.ts.measure(indent+"  ", st), width/2)
			w = x0 + width - x - markW
			ln, continued = rest, true
		}
	}
	return out
}

// drawCode draws the appendix's lines lh apart, breaking pages as needed.
func (c *canvas) drawCode(lines []codeLine, lh float64) {
	st := textStyle{size: codeSize, mono: true, color: colInk}
	mark := textStyle{size: codeSize, mono: true, color: colMuted}
	for _, ln := range lines {
		c.ensure(lh)
		x := ln.x
		if ln.continued {
			x = c.drawLine(x, c.y, continuation, mark)
		}
		c.drawLine(x, c.y, ln.text, st)
		c.y += lh
	}
}

// cutCode cuts a line of code to fit width: the piece to draw and the
// rest, which is "" when the whole line fits. A cut falls after a space
// when one lies in the last third of the piece, else between characters.
func (r *canvas) cutCode(ln string, width float64, st textStyle) (string, string) {
	if len(ln) <= fitWindow && r.ts.measure(ln, st) <= width {
		return ln, ""
	}
	cut := r.ts.fit(ln, width, st)
	if sp := strings.LastIndexByte(ln[:cut], ' '); sp >= cut*2/3 && strings.TrimLeft(ln[:sp], " ") != "" {
		cut = sp + 1
	}
	return ln[:cut], ln[cut:]
}
