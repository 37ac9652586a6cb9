package report

import (
	"slices"
	"strings"
)

// The blocks a report is made of: headings, paragraphs, lists, label and
// value rows, and tables whose header repeats on each page and whose rows
// break across pages.

// body, small and muted are the styles of running text.
var (
	body  = textStyle{size: bodySize, color: colInk}
	small = textStyle{size: smallSize, color: colInk}
	muted = textStyle{size: smallSize, color: colMuted}
)

// heading draws a section title with a rule under it, on a new page
// unless what follows, as far as a table's first row, fits under it.
func (r *canvas) heading(s string) {
	r.ensure(100)
	r.y += 10
	r.text(marginX, r.y, s, textStyle{size: 12.5, bold: true, color: colBand})
	r.y += 17
	r.rule(marginX, marginX+contentW, r.y, 0.8, colRule)
	r.y += 7
}

// paragraph draws wrapped text at the cursor, from x to the right
// margin, breaking pages as needed.
func (r *canvas) paragraph(s string, x float64, st textStyle) {
	lh := st.size * lineGap
	for _, ln := range r.wrap(s, marginX+contentW-x, st) {
		r.ensure(lh)
		r.drawLine(x, r.y, ln, st)
		r.y += lh
	}
}

// bullet draws an item of a list: a mark, then the text hanging after
// it.
func (r *canvas) bullet(mark, s string, st textStyle) {
	lh := st.size * lineGap
	indent := 14.0
	lines := r.wrap(s, contentW-indent, st)
	for i, ln := range lines {
		r.ensure(lh)
		if i == 0 {
			r.text(marginX+2, r.y, mark, st)
		}
		r.drawLine(marginX+indent, r.y, ln, st)
		r.y += lh
	}
}

// keyValues draws rows of a label and a value. A row that fits on a page
// is kept on one; a value taller than the room of a page continues on
// the next, line by line.
func (r *canvas) keyValues(rows [][2]string, labelW float64) {
	lh := bodySize * lineGap
	label := textStyle{size: bodySize, bold: true, color: colMuted}
	for _, kv := range rows {
		lines := r.wrap(kv[1], contentW-labelW, body)
		h := float64(len(lines))*lh + 4
		if h <= pageH-marginBottom-marginTop {
			r.ensure(h)
			r.text(marginX, r.y+2, kv[0], label)
			for i, ln := range lines {
				r.drawLine(marginX+labelW, r.y+2+float64(i)*lh, ln, body)
			}
			r.y += h
			continue
		}
		r.ensure(lh + 2)
		r.text(marginX, r.y+2, kv[0], label)
		for _, ln := range lines {
			r.ensure(lh + 2)
			r.drawLine(marginX+labelW, r.y+2, ln, body)
			r.y += lh
		}
		r.y += 4
	}
}

// column is one column of a table.
type column struct {
	title string
	width float64 // a fraction of the content width
}

// cell is a table cell.
type cell struct {
	text string // the value, wrapped to the column
	sub  string // a second paragraph in smaller, muted type, or ""
	// chip is a result-like value that colours the cell (see
	// resultColours), or "".
	chip string
	mark bool // the value disagrees with others: tinted and bold
	mono bool // the value in the monospace face
	bold bool
}

// row is a table row, with a note drawn under it across the table.
type row struct {
	cells []cell
	note  string
}

// line is a line of a cell or a note, placed in its row.
type line struct {
	text string
	x, y float64 // x from the table's left, y from the row's top
	st   textStyle
}

// table draws rows under a header that repeats on each new page. A row
// that does not fit under the cursor starts a new page; one taller than
// a page breaks between its lines.
func (r *canvas) table(cols []column, rows []row) {
	const pad = 4.0
	lh := smallSize * lineGap
	header := textStyle{size: smallSize, bold: true, color: colInk}
	headerLines := make([][]string, len(cols))
	headerH := lh
	for j, c := range cols {
		headerLines[j] = clipLines(r.wrap(c.title, c.width*contentW-2*pad, header), maxHeaderLines)
		headerH = max(headerH, float64(len(headerLines[j]))*lh)
	}
	headerH += 2 * pad
	drawHeader := func() {
		r.rect(marginX, r.y, contentW, headerH, colHeaderBg)
		x := marginX
		for j, c := range cols {
			for k, ln := range headerLines[j] {
				r.drawLine(x+pad, r.y+pad+float64(k)*lh, ln, header)
			}
			x += c.width * contentW
		}
		r.y += headerH
	}
	r.ensure(headerH + 2*(lh+2*pad))
	drawHeader()
	for i, rw := range rows {
		lines, cellH := r.layoutRow(cols, rw, pad)
		h := cellH + 2*pad
		noteH := 0.0
		var noteLines []string
		if rw.note != "" {
			noteLines = r.wrap(rw.note, contentW-2*pad-8, muted)
			noteH = float64(len(noteLines))*smallSize*lineGap + pad
		}
		if r.y+h+noteH > pageH-marginBottom && h+noteH <= pageH-marginBottom-marginTop-headerH {
			r.newPage()
			drawHeader()
		}
		r.drawRow(cols, rw, lines, h, i%2 == 1, pad, drawHeader)
		if len(noteLines) > 0 {
			for _, ln := range noteLines {
				if r.ensure(smallSize * lineGap) {
					drawHeader()
				}
				r.drawLine(marginX+pad+8, r.y, ln, muted)
				r.y += smallSize * lineGap
			}
			r.y += pad
		}
		r.rule(marginX, marginX+contentW, r.y, 0.4, colRule)
	}
	r.y += 6
}

// maxHeaderLines is the most lines of a table header's title: a title
// that wraps to more (the long name of a document in a narrow column) is
// cut, so that the header, drawn again on each page, always leaves room
// for rows.
const maxHeaderLines = 4

// clipLines returns lines, or its first n with the last ending in an
// ellipsis.
func clipLines(lines []string, n int) []string {
	if len(lines) <= n {
		return lines
	}
	out := slices.Clone(lines[:n])
	last := []rune(out[n-1])
	if len(last) > 1 {
		last = last[:len(last)-1]
	}
	out[n-1] = string(last) + "…"
	return out
}

// layoutRow places the lines of a row's cells, and returns them with the
// height of the tallest cell.
func (r *canvas) layoutRow(cols []column, rw row, pad float64) ([]line, float64) {
	var out []line
	tallest := 0.0
	x := 0.0
	for j, c := range cols {
		if j >= len(rw.cells) {
			break
		}
		cl := rw.cells[j]
		w := c.width*contentW - 2*pad
		st := textStyle{size: smallSize, color: colInk, mono: cl.mono, bold: cl.bold || cl.mark}
		if fg, _, ok := resultColours(cl.chip); ok {
			st.color, st.bold = fg, true
		}
		if cl.mark {
			st.color = colFail
		}
		y := 0.0
		for _, ln := range r.wrap(cl.text, w, st) {
			out = append(out, line{ln, x + pad, y, st})
			y += smallSize * lineGap
		}
		if cl.sub != "" {
			sub := textStyle{size: 7, color: colMuted}
			for _, ln := range r.wrap(cl.sub, w, sub) {
				out = append(out, line{ln, x + pad, y, sub})
				y += 7 * lineGap
			}
		}
		tallest = max(tallest, y)
		x += c.width * contentW
	}
	return out, tallest
}

// drawRow draws a row's background, chips and lines; a row taller than
// the room left breaks between its lines, onto pages of their own.
func (r *canvas) drawRow(cols []column, rw row, lines []line, h float64, zebra bool, pad float64, drawHeader func()) {
	if r.y+h <= pageH-marginBottom {
		r.rowBackground(cols, rw, r.y, h, zebra)
		for _, ln := range lines {
			r.drawLine(marginX+ln.x, r.y+pad+ln.y, ln.text, ln.st)
		}
		r.y += h
		return
	}
	drawn := make([]bool, len(lines))
	left := len(lines)
	offset := 0.0  // the height of the row's content drawn on earlier pages
	fresh := false // the page was begun for the row's next lines
	for left > 0 {
		room := pageH - marginBottom - r.y - 2*pad
		seg := 0.0
		for i, ln := range lines {
			if bottom := ln.y - offset + ln.st.size*lineGap; !drawn[i] && bottom <= room {
				seg = max(seg, bottom)
			}
		}
		if seg == 0 && !fresh {
			r.newPage()
			drawHeader()
			fresh = true
			continue
		}
		if seg == 0 {
			// Not one line fits under the header of a page of its own:
			// the next is drawn all the same, past the margin, so that
			// the row always gets drawn.
			for i, ln := range lines {
				if !drawn[i] {
					seg = max(seg, ln.y-offset+ln.st.size*lineGap)
					break
				}
			}
		}
		fresh = false
		r.rowBackground(cols, rw, r.y, seg+2*pad, zebra)
		next := -1.0
		for i, ln := range lines {
			switch {
			case drawn[i]:
			case ln.y-offset+ln.st.size*lineGap <= seg:
				r.drawLine(marginX+ln.x, r.y+pad+ln.y-offset, ln.text, ln.st)
				drawn[i] = true
				left--
			case next < 0 || ln.y < next:
				next = ln.y
			}
		}
		r.y += seg + 2*pad
		if left > 0 {
			offset = next
			r.newPage()
			drawHeader()
		}
	}
}

// rowBackground fills a row's zebra stripe, chips and marked cells.
func (r *canvas) rowBackground(cols []column, rw row, y, h float64, zebra bool) {
	if zebra {
		r.rect(marginX, y, contentW, h, colZebra)
	}
	x := marginX
	for j, c := range cols {
		w := c.width * contentW
		if j < len(rw.cells) {
			cl := rw.cells[j]
			if _, bg, ok := resultColours(cl.chip); ok {
				r.rect(x+1, y+1, w-2, h-2, bg)
			} else if cl.mark {
				r.rect(x+1, y+1, w-2, h-2, colFailBg)
			}
		}
		x += w
	}
}

// chip draws a label on a coloured ground, the label's top at y like
// text of its size on the same line, and returns its width.
func (r *canvas) chip(x, y float64, label, raw string, size float64) float64 {
	st := textStyle{size: size, bold: true, color: colInk}
	fg, bg, ok := resultColours(raw)
	if ok {
		st.color = fg
	}
	w := r.textWidth(label, st) + 10
	if ok {
		r.rect(x, y-size*0.28, w, size*1.55, bg)
	}
	r.text(x+5, y, label, st)
	return w
}

// excerpt shortens a passage to about n characters around value, with
// an ellipsis where it cuts.
func excerpt(passage, value string, n int) string {
	rs := []rune(strings.Join(strings.Fields(passage), " "))
	if len(rs) <= n {
		return string(rs)
	}
	start := 0
	if at := strings.Index(string(rs), value); value != "" && at >= 0 {
		// From a little before the value, by characters.
		start = max(0, len([]rune(string(rs)[:at]))-n/3)
		start = min(start, len(rs)-n)
	}
	end := min(len(rs), start+n)
	out := strings.TrimSpace(string(rs[start:end]))
	if start > 0 {
		out = "…" + out
	}
	if end < len(rs) {
		out += "…"
	}
	return out
}
