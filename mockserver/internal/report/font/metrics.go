package font

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Metrics are what laying text out needs of a TrueType font: which
// characters of the Basic Multilingual Plane it has, each one's advance
// width, and its ascender. Widths are in thousandths of an em, rounded
// down as the PDF library rounds them, so that text measured here is as
// wide as the library draws it. A Metrics is only read once made, and may
// be shared.
type Metrics struct {
	advance  []uint16 // by rune: the advance width, in thousandths of an em
	has      []uint64 // by rune: a bit set when the font has a glyph
	ascender int      // the typographic ascender, in thousandths of an em
}

// Has reports whether the font has a glyph for r.
func (m *Metrics) Has(r rune) bool {
	return r >= 0 && r < 0x10000 && m.has[r>>6]&(1<<(r&63)) != 0
}

// Advance returns r's advance width in thousandths of an em, or 0 when
// the font lacks r.
func (m *Metrics) Advance(r rune) int {
	if r < 0 || r >= 0x10000 {
		return 0
	}
	return int(m.advance[r])
}

// Ascender returns the font's typographic ascender in thousandths of an
// em: how far above its baseline the PDF library puts the top of a line.
func (m *Metrics) Ascender() int { return m.ascender }

var errMalformed = errors.New("font: malformed font")

// Parse reads a TrueType font's metrics.
func Parse(ttf []byte) (*Metrics, error) {
	tables, err := tableDirectory(ttf)
	if err != nil {
		return nil, err
	}
	head, hhea, hmtx, cmap, os2 := tables["head"], tables["hhea"], tables["hmtx"], tables["cmap"], tables["OS/2"]
	if len(head) < 54 || len(hhea) < 36 || len(os2) < 70 || len(cmap) < 4 {
		return nil, errMalformed
	}
	unitsPerEm := int(binary.BigEndian.Uint16(head[18:]))
	numHMetrics := int(binary.BigEndian.Uint16(hhea[34:]))
	if unitsPerEm == 0 || numHMetrics == 0 || len(hmtx) < 4*numHMetrics {
		return nil, errMalformed
	}
	glyphs := make([]uint16, 0x10000)
	if err := readCmap(cmap, glyphs); err != nil {
		return nil, err
	}
	m := &Metrics{advance: make([]uint16, 0x10000), has: make([]uint64, 0x10000/64)}
	m.ascender = int(int16(binary.BigEndian.Uint16(os2[68:]))) * 1000 / unitsPerEm
	for r, g := range glyphs {
		if g == 0 {
			continue
		}
		i := min(int(g), numHMetrics-1)
		w := int(binary.BigEndian.Uint16(hmtx[4*i:]))
		if unitsPerEm != 1000 {
			w = w * 1000 / unitsPerEm
		}
		m.advance[r] = uint16(min(w, 0xFFFF))
		m.has[r>>6] |= 1 << (r & 63)
	}
	return m, nil
}

// tableDirectory returns a font's tables by tag.
func tableDirectory(ttf []byte) (map[string][]byte, error) {
	if len(ttf) < 12 {
		return nil, errMalformed
	}
	n := int(binary.BigEndian.Uint16(ttf[4:]))
	out := make(map[string][]byte, n)
	for i := 0; i < n; i++ {
		rec := 12 + 16*i
		if rec+16 > len(ttf) {
			return nil, errMalformed
		}
		off := int(binary.BigEndian.Uint32(ttf[rec+8:]))
		size := int(binary.BigEndian.Uint32(ttf[rec+12:]))
		if off < 0 || size < 0 || off+size > len(ttf) {
			return nil, fmt.Errorf("font: table %q out of the file", ttf[rec:rec+4])
		}
		out[string(ttf[rec:rec+4])] = ttf[off : off+size]
	}
	return out, nil
}

// readCmap fills glyphs, by rune, from a cmap table's Unicode subtables
// of format 4 (the Basic Multilingual Plane).
func readCmap(cmap []byte, glyphs []uint16) error {
	n := int(binary.BigEndian.Uint16(cmap[2:]))
	found := false
	for i := 0; i < n; i++ {
		rec := 4 + 8*i
		if rec+8 > len(cmap) {
			return errMalformed
		}
		platform := binary.BigEndian.Uint16(cmap[rec:])
		encoding := binary.BigEndian.Uint16(cmap[rec+2:])
		if !(platform == 0 || platform == 3 && (encoding == 1 || encoding == 10)) {
			continue
		}
		off := int(binary.BigEndian.Uint32(cmap[rec+4:]))
		if off+4 > len(cmap) {
			return errMalformed
		}
		sub := cmap[off:]
		if binary.BigEndian.Uint16(sub) != 4 {
			continue
		}
		if err := readFormat4(sub, glyphs); err != nil {
			return err
		}
		found = true
	}
	if !found {
		return errors.New("font: no Unicode cmap of format 4")
	}
	return nil
}

// readFormat4 reads a cmap subtable of format 4 into glyphs.
func readFormat4(sub []byte, glyphs []uint16) error {
	if len(sub) < 14 {
		return errors.New("font: short cmap format 4")
	}
	segX2 := int(binary.BigEndian.Uint16(sub[6:]))
	ends := 14
	starts := ends + segX2 + 2
	deltas := starts + segX2
	ranges := deltas + segX2
	if ranges+segX2 > len(sub) {
		return errors.New("font: short cmap format 4")
	}
	for s := 0; s < segX2/2; s++ {
		end := binary.BigEndian.Uint16(sub[ends+2*s:])
		start := binary.BigEndian.Uint16(sub[starts+2*s:])
		delta := binary.BigEndian.Uint16(sub[deltas+2*s:])
		rangeOff := int(binary.BigEndian.Uint16(sub[ranges+2*s:]))
		for c := uint32(start); c <= uint32(end) && c != 0xFFFF; c++ {
			var glyph uint16
			if rangeOff == 0 {
				glyph = uint16(c) + delta
			} else {
				idx := ranges + 2*s + rangeOff + 2*int(c-uint32(start))
				if idx+2 > len(sub) {
					continue
				}
				glyph = binary.BigEndian.Uint16(sub[idx:])
				if glyph != 0 {
					glyph += delta
				}
			}
			if glyph != 0 && glyphs[c] == 0 {
				glyphs[c] = glyph
			}
		}
	}
	return nil
}
