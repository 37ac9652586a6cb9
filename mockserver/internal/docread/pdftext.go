package docread

import (
	"bytes"
	"compress/zlib"
	"io"
	"regexp"
	"strings"
)

// streamPattern finds a PDF's streams with their dictionaries.
var streamPattern = regexp.MustCompile(`(?s)<<(.{0,400}?)>>\s*stream\r?\n`)

// PDFText reads the text of a text-based PDF: the strings shown by the Tj,
// TJ, ' and " operators of its content streams, inflated where they are
// Flate-encoded, decoded from WinAnsiEncoding into UTF-8, with a line
// break at each text-positioning operator. It reads simple-font PDFs as
// most tools write them; a PDF whose text is drawn with glyph IDs or as
// images, or data that is not a PDF, gives no text and counts as
// unreadable (readable is false).
func PDFText(data []byte) (text string, readable bool) {
	if !bytes.HasPrefix(data, []byte("%PDF-")) {
		return "", false
	}
	var out strings.Builder
	for _, loc := range streamPattern.FindAllSubmatchIndex(data, -1) {
		dict := data[loc[2]:loc[3]]
		start := loc[1]
		end := bytes.Index(data[start:], []byte("endstream"))
		if end < 0 {
			break
		}
		raw := data[start : start+end]
		if bytes.Contains(dict, []byte("/FlateDecode")) {
			zr, err := zlib.NewReader(bytes.NewReader(raw))
			if err != nil {
				continue
			}
			inflated, err := io.ReadAll(io.LimitReader(zr, 16<<20))
			if err != nil && len(inflated) == 0 {
				continue
			}
			raw = inflated
		} else if bytes.Contains(dict, []byte("/Filter")) {
			continue // another filter: images and the like
		}
		showText(raw, &out)
	}
	text = strings.TrimSpace(out.String())
	return text, text != ""
}

// showText appends the text that a content stream shows.
func showText(content []byte, out *strings.Builder) {
	var pending []string // strings since the last operator
	for i := 0; i < len(content); {
		c := content[i]
		switch {
		case c == '(':
			s, n := pdfString(content[i:])
			pending = append(pending, winAnsi(s))
			i += n
		case c == '<' && i+1 < len(content) && content[i+1] != '<':
			s, n := pdfHexString(content[i:])
			pending = append(pending, winAnsi(s))
			i += n
		case c == '%':
			i = lineEnd(content, i)
		case isOperatorByte(c):
			j := i
			for j < len(content) && isOperatorByte(content[j]) {
				j++
			}
			applyOperator(string(content[i:j]), pending, out)
			pending = pending[:0]
			i = j
		default:
			i++
		}
	}
}

// isOperatorByte reports whether c can be part of a content-stream
// operator: a letter, or one of ' " *.
func isOperatorByte(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '\'' || c == '"' || c == '*'
}

// lineEnd returns the index of the end of the line (a comment) at i.
func lineEnd(content []byte, i int) int {
	for i < len(content) && content[i] != '\n' && content[i] != '\r' {
		i++
	}
	return i
}

// applyOperator carries out a text operator on the strings given to it:
// the showing operators write them, the positioning ones break the line.
func applyOperator(op string, pending []string, out *strings.Builder) {
	switch op {
	case "Tj", "TJ":
		out.WriteString(strings.Join(pending, ""))
	case "'", "\"":
		out.WriteString("\n")
		out.WriteString(strings.Join(pending, ""))
	case "Td", "TD", "T*", "Tm", "ET":
		if out.Len() > 0 && !strings.HasSuffix(out.String(), "\n") {
			out.WriteString("\n")
		}
	}
}

// pdfString decodes a literal string starting at b[0] == '(' and returns it
// with the number of bytes it took.
func pdfString(b []byte) (string, int) {
	var s strings.Builder
	depth := 0
	i := 0
	for i < len(b) {
		c := b[i]
		switch {
		case c == '(':
			if depth > 0 {
				s.WriteByte(c)
			}
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return s.String(), i + 1
			}
			s.WriteByte(c)
		case c == '\\' && i+1 < len(b):
			i++
			switch e := b[i]; e {
			case 'n':
				s.WriteByte('\n')
			case 'r':
				s.WriteByte('\r')
			case 't':
				s.WriteByte('\t')
			case 'b', 'f':
			case '\r', '\n':
			default:
				if e >= '0' && e <= '7' {
					v, k := 0, 0
					for k < 3 && i+k < len(b) && b[i+k] >= '0' && b[i+k] <= '7' {
						v = v*8 + int(b[i+k]-'0')
						k++
					}
					s.WriteByte(byte(v))
					i += k - 1
				} else {
					s.WriteByte(e)
				}
			}
		default:
			s.WriteByte(c)
		}
		i++
	}
	return s.String(), len(b)
}

// pdfHexString decodes a hex string starting at b[0] == '<' and returns it
// with the number of bytes it took. An odd last digit counts as followed
// by 0, as the PDF standard says.
func pdfHexString(b []byte) (string, int) {
	var out []byte
	var hi byte
	half := false
	for i := 1; i < len(b); i++ {
		c := b[i]
		var v byte
		switch {
		case c == '>':
			if half {
				out = append(out, hi<<4)
			}
			return string(out), i + 1
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			continue // white space
		}
		if half {
			out = append(out, hi<<4|v)
		} else {
			hi = v
		}
		half = !half
	}
	return string(out), len(b)
}

// cp1252 maps the bytes 0x80..0x9F of the WinAnsi encoding, where it
// differs from Latin-1.
var cp1252 = map[byte]rune{
	0x80: '€', 0x82: '‚', 0x83: 'ƒ', 0x84: '„', 0x85: '…', 0x86: '†', 0x87: '‡', 0x88: 'ˆ', 0x89: '‰',
	0x8A: 'Š', 0x8B: '‹', 0x8C: 'Œ', 0x8E: 'Ž', 0x91: '‘', 0x92: '’', 0x93: '“', 0x94: '”', 0x95: '•',
	0x96: '–', 0x97: '—', 0x98: '˜', 0x99: '™', 0x9A: 'š', 0x9B: '›', 0x9C: 'œ', 0x9E: 'ž', 0x9F: 'Ÿ',
}

// winAnsi decodes the bytes of a simple font's string, as most tools write
// them (WinAnsiEncoding), into UTF-8.
func winAnsi(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x80:
			b.WriteByte(c)
		case c >= 0xA0:
			b.WriteRune(rune(c))
		default:
			if r, ok := cp1252[c]; ok {
				b.WriteRune(r)
			} else {
				b.WriteRune('\uFFFD')
			}
		}
	}
	return b.String()
}
