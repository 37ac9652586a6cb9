// Package font embeds the typeface of the mock server's PDF reports:
// NanumGothic, regular and bold, by NAVER Corporation, under the SIL Open
// Font License 1.1 (OFL.txt beside this file), shipped unmodified. It
// covers Hangul, Latin with most accents, Greek and Cyrillic; Covers tells
// which characters it has, so that a report can replace the others
// visibly instead of failing.
package font

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"sync"
)

// Regular and Bold are the TrueType data of the two weights.
var (
	//go:embed NanumGothic.ttf
	Regular []byte
	//go:embed NanumGothicBold.ttf
	Bold []byte
)

// License is the text of the SIL Open Font License the font is under.
//
//go:embed OFL.txt
var License string

var (
	coverageOnce sync.Once
	coverage     map[rune]bool
	coverageErr  error
)

// Covers reports whether the font has a glyph for r (the two weights cover
// the same characters).
func Covers(r rune) bool {
	coverageOnce.Do(func() { coverage, coverageErr = readCmap(Regular) })
	if coverageErr != nil {
		return r < 0x80
	}
	return coverage[r]
}

// readCmap lists the characters of a TrueType font's Unicode cmap
// (formats 4 and 12).
func readCmap(font []byte) (map[rune]bool, error) {
	errBad := errors.New("font: malformed font")
	if len(font) < 12 {
		return nil, errBad
	}
	numTables := int(binary.BigEndian.Uint16(font[4:]))
	var cmap []byte
	for i := 0; i < numTables; i++ {
		rec := 12 + 16*i
		if rec+16 > len(font) {
			return nil, errBad
		}
		if string(font[rec:rec+4]) == "cmap" {
			off := int(binary.BigEndian.Uint32(font[rec+8:]))
			n := int(binary.BigEndian.Uint32(font[rec+12:]))
			if off+n > len(font) {
				return nil, errBad
			}
			cmap = font[off : off+n]
		}
	}
	if len(cmap) < 4 {
		return nil, errBad
	}
	out := map[rune]bool{}
	n := int(binary.BigEndian.Uint16(cmap[2:]))
	for i := 0; i < n; i++ {
		rec := 4 + 8*i
		if rec+8 > len(cmap) {
			return nil, errBad
		}
		platform := binary.BigEndian.Uint16(cmap[rec:])
		encoding := binary.BigEndian.Uint16(cmap[rec+2:])
		if !(platform == 0 || platform == 3 && (encoding == 1 || encoding == 10)) {
			continue
		}
		off := int(binary.BigEndian.Uint32(cmap[rec+4:]))
		if off+4 > len(cmap) {
			return nil, errBad
		}
		sub := cmap[off:]
		switch binary.BigEndian.Uint16(sub) {
		case 4:
			if err := readFormat4(sub, out); err != nil {
				return nil, err
			}
		case 12:
			if err := readFormat12(sub, out); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func readFormat4(sub []byte, out map[rune]bool) error {
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
			if glyph != 0 {
				out[rune(c)] = true
			}
		}
	}
	return nil
}

func readFormat12(sub []byte, out map[rune]bool) error {
	if len(sub) < 16 {
		return errors.New("font: short cmap format 12")
	}
	groups := int(binary.BigEndian.Uint32(sub[12:]))
	if 16+12*groups > len(sub) {
		return errors.New("font: short cmap format 12")
	}
	for g := 0; g < groups; g++ {
		rec := 16 + 12*g
		start := binary.BigEndian.Uint32(sub[rec:])
		end := binary.BigEndian.Uint32(sub[rec+4:])
		glyph := binary.BigEndian.Uint32(sub[rec+8:])
		for c := start; c <= end && c <= 0x10FFFF; c++ {
			if glyph+(c-start) != 0 {
				out[rune(c)] = true
			}
		}
	}
	return nil
}
