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

// appendix draws the raw data after the report, on a page of its own
// unless a third of the report's last page is left.
func (r *reportWriter) appendix() {
	if r.y > pageH-marginBottom-(pageH-marginTop-marginBottom)/3 {
		r.newPage()
	} else {
		r.y += 12
	}
	r.heading(r.l.appendix)
	r.paragraph(r.l.appendixNote, marginX, muted)
	r.y += 4
	blocks := []struct {
		title string
		v     any
	}{{r.l.rawExtracted, json.RawMessage(r.d.Analysis.ExtractedData)}, {r.l.rawActions, r.d.Analysis.RawActionResults}}
	for _, b := range blocks {
		r.ensure(30)
		r.text(marginX, r.y, b.title, textStyle{size: 10, bold: true, color: colInk})
		r.y += 15
		r.code(prettyJSON(b.v))
		r.y += 8
	}
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
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(tree); err != nil {
		return string(raw)
	}
	return strings.TrimRight(out.String(), "\n")
}

// code draws preformatted text in the monospace face, breaking lines too
// wide for the page and pages as needed.
func (r *canvas) code(s string) {
	st := textStyle{size: codeSize, mono: true, color: colInk}
	mark := textStyle{size: codeSize, mono: true, color: colMuted}
	lh := codeSize * 1.3
	width := contentW - 8
	for ln := range strings.SplitSeq(r.ts.clean(s), "\n") {
		ln = strings.TrimRight(ln, " ")
		indent := ln[:len(ln)-len(strings.TrimLeft(ln, " "))]
		x0 := marginX + 4
		first := true
		for {
			x, w := x0, width
			if !first {
				// A continuation: indented two more, after the mark, but
				// never past the middle of the page.
				x = x0 + min(r.ts.measure(indent+"  ", st), width/2)
				x = r.drawAt(x, continuation, mark, lh)
				w = marginX + 4 + width - x
			}
			piece, rest := r.cutCode(ln, w, st)
			r.drawAt(x, piece, st, lh)
			r.y += lh
			if rest == "" {
				break
			}
			ln, first = rest, false
		}
	}
}

// drawAt draws text on the line at the cursor, starting a new page first
// when the line does not fit, and returns where the text ends.
func (r *canvas) drawAt(x float64, text string, st textStyle, lh float64) float64 {
	r.ensure(lh)
	return r.drawLine(x, r.y, text, st)
}

// cutCode cuts a line of code to fit width: the piece to draw and the
// rest, which is "" when the whole line fits. A cut falls after a space
// when one lies in the last third of the piece, else between characters.
func (r *canvas) cutCode(ln string, width float64, st textStyle) (string, string) {
	if r.ts.measure(ln, st) <= width {
		return ln, ""
	}
	cut := r.ts.fit(ln, width, st)
	if sp := strings.LastIndexByte(ln[:cut], ' '); sp >= cut*2/3 && strings.TrimLeft(ln[:sp], " ") != "" {
		cut = sp + 1
	}
	return ln[:cut], ln[cut:]
}
