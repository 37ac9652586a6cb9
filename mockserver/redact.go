package mockserver

import "unicode/utf8"

// redactedValue replaces an API key wherever a recording would hold it.
const redactedValue = "REDACTED"

// redactSecret replaces every occurrence of secret in b with
// redactedValue, whatever its case and however it is written: each of its
// characters as itself, percent-escaped (%4a or %4A) or JSON-escaped
// (\u004a), as a URL, a header or a JSON body may carry it. It returns b
// itself when secret does not occur. A secret shorter than 8 bytes is not
// searched for: it would match ordinary text.
func redactSecret(b []byte, secret string) []byte {
	if len(secret) < 8 {
		return b
	}
	var out []byte
	last := 0
	for i := 0; i < len(b); {
		n := matchSecret(b[i:], secret)
		if n == 0 {
			i++
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(b))
		}
		out = append(out, b[last:i]...)
		out = append(out, redactedValue...)
		i += n
		last = i
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// redactSecretString is redactSecret for a string.
func redactSecretString(s, secret string) string {
	if r := redactSecret([]byte(s), secret); len(r) != len(s) || string(r) != s {
		return string(r)
	}
	return s
}

// matchSecret returns the length of the secret written at the start of b,
// in any of the forms redactSecret knows, or 0.
func matchSecret(b []byte, secret string) int {
	j := 0
	for k := 0; k < len(secret); k++ {
		c, n := secretChar(b[j:])
		if n == 0 || !sameFold(c, secret[k]) {
			return 0
		}
		j += n
	}
	return j
}

// secretChar reads one character at the start of b: a byte as itself, or
// one written %XX or \u00XX; n is 0 when b is empty.
func secretChar(b []byte) (c byte, n int) {
	switch {
	case len(b) == 0:
		return 0, 0
	case b[0] == '%' && len(b) >= 3:
		if h, ok := hexByte(b[1], b[2]); ok {
			return h, 3
		}
	case b[0] == '\\' && len(b) >= 6 && b[1] == 'u' && b[2] == '0' && b[3] == '0':
		if h, ok := hexByte(b[4], b[5]); ok {
			return h, 6
		}
	}
	return b[0], 1
}

func hexByte(a, b byte) (byte, bool) {
	x, ok1 := hexDigit(a)
	y, ok2 := hexDigit(b)
	return x<<4 | y, ok1 && ok2
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// sameFold compares two bytes as ASCII letters of either case; other bytes
// must be equal.
func sameFold(a, b byte) bool {
	if a == b {
		return true
	}
	if a < utf8.RuneSelf && b < utf8.RuneSelf {
		return lower(a) == lower(b)
	}
	return false
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
