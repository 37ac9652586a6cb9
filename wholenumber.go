package profilesvc

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
)

// unmarshal is json.Unmarshal for what the service sends. The interface
// document types every number as "number", where the SDK gives counts,
// sizes, ranks and statuses an int: a whole number written with a zero
// fraction or an exponent (30.0, 3e1) is the same number, so when such a
// number is what stops the decoding, the data is decoded once more with
// those numbers written as integers. A fraction (30.5) in an integer field
// stays an error. The usual answer, with plain integers, is decoded once.
func unmarshal(data []byte, v any) error {
	err := json.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || !strings.HasPrefix(te.Value, "number ") {
		return err
	}
	whole, changed := wholeNumbers(data)
	if !changed {
		return err
	}
	if err := json.Unmarshal(whole, v); err != nil {
		return err
	}
	restoreRaw(data, v)
	return nil
}

// restoreRaw puts the bytes as sent back into the raw values of v (Raw,
// RawJSON, ExtractedData, json.RawMessage), which the decoding of the
// rewritten data filled with rewritten bytes: data is decoded once more
// into a fresh value, whose raw values are the bytes as sent (its number
// errors are those the rewrite fixed, and leave its other values as they
// may), and those alone are copied into v. Only the retry pays for it.
func restoreRaw(data []byte, v any) {
	dst := reflect.ValueOf(v)
	if dst.Kind() != reflect.Pointer || dst.IsNil() {
		return
	}
	src := reflect.New(dst.Type().Elem())
	_ = json.Unmarshal(data, src.Interface())
	copyRaw(dst.Elem(), src.Elem())
}

var (
	rawJSONType       = reflect.TypeFor[RawJSON]()
	extractedDataType = reflect.TypeFor[ExtractedData]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
)

// copyRaw copies the raw values of src into the same places of dst, two
// values of one type decoded from the same JSON.
func copyRaw(dst, src reflect.Value) {
	switch t := dst.Type(); {
	case t == rawJSONType || t == extractedDataType || t == rawMessageType:
		if dst.CanSet() {
			dst.Set(src)
		}
		return
	}
	switch dst.Kind() {
	case reflect.Pointer:
		if !dst.IsNil() && !src.IsNil() {
			copyRaw(dst.Elem(), src.Elem())
		}
	case reflect.Struct:
		for i := range dst.NumField() {
			if dst.Type().Field(i).IsExported() {
				copyRaw(dst.Field(i), src.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range min(dst.Len(), src.Len()) {
			copyRaw(dst.Index(i), src.Index(i))
		}
	case reflect.Map:
		if dst.IsNil() || src.IsNil() {
			return
		}
		for _, k := range dst.MapKeys() {
			sv := src.MapIndex(k)
			if !sv.IsValid() {
				continue
			}
			dv := reflect.New(dst.Type().Elem()).Elem()
			dv.Set(dst.MapIndex(k))
			copyRaw(dv, sv)
			dst.SetMapIndex(k, dv)
		}
	}
}

// Bounds on the numbers wholeNumbers rewrites, so that a hostile answer
// (1e999999999) costs no more than an ordinary one: a longer number, or
// one with a larger exponent, is left as written.
const (
	maxWholeNumberLen = 64
	maxWholeNumberExp = 24
)

// wholeNumbers returns data with every number outside strings that has a
// fraction or an exponent but a whole value within int64 written as an
// integer (30.0 becomes 30, 2.5e1 becomes 25); changed is false when
// there is none. Data that is not valid JSON is scanned all the same: the
// decoding that follows reports it.
func wholeNumbers(data []byte) (out []byte, changed bool) {
	var b bytes.Buffer
	var scratch [maxWholeNumberLen + maxWholeNumberExp + 1]byte
	last := 0
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			continue
		}
		if c != '-' && (c < '0' || c > '9') {
			continue
		}
		end := i + 1
		for end < len(data) && strings.IndexByte("0123456789.eE+-", data[end]) >= 0 {
			end++
		}
		if n, ok := wholeNumber(scratch[:0], data[i:end]); ok {
			if !changed {
				b.Grow(len(data))
				changed = true
			}
			b.Write(data[last:i])
			b.Write(n)
			last = end
		}
		i = end - 1
	}
	if !changed {
		return data, false
	}
	b.Write(data[last:])
	return b.Bytes(), true
}

// wholeNumber appends to dst tok written as an integer when it is a JSON
// number with a fraction or an exponent whose value is a whole number
// within int64; a negative zero is written -0, which keeps its sign in a
// float. It allocates nothing when dst has room.
func wholeNumber(dst, tok []byte) ([]byte, bool) {
	if len(tok) > maxWholeNumberLen {
		return nil, false
	}
	n, ok := parseNumber(tok)
	if !ok || n.frac == nil && !n.hasExp {
		return nil, false
	}
	// The value is the digits of whole and frac times 10^shift.
	var buf [maxWholeNumberLen + maxWholeNumberExp]byte
	digits := append(append(buf[:0], n.whole...), n.frac...)
	if shift := n.exp - len(n.frac); shift < 0 {
		cut := max(len(digits)+shift, 0)
		if len(bytes.Trim(digits[cut:], "0")) > 0 {
			return nil, false // a fraction
		}
		digits = digits[:cut]
	} else {
		for range shift {
			digits = append(digits, '0')
		}
	}
	return appendInt64(dst, n.neg, digits)
}

// number is a JSON number taken apart.
type number struct {
	neg         bool
	whole, frac []byte // frac is nil without a fraction
	exp         int
	hasExp      bool
}

// parseNumber takes tok apart when it is a JSON number whose exponent is
// within maxWholeNumberExp.
func parseNumber(tok []byte) (n number, ok bool) {
	i := 0
	if i < len(tok) && tok[i] == '-' {
		n.neg = true
		i++
	}
	start := i
	if i < len(tok) && tok[i] == '0' {
		i++
	} else {
		i = digitsFrom(tok, i)
	}
	if i == start {
		return n, false
	}
	n.whole = tok[start:i]
	if i < len(tok) && tok[i] == '.' {
		f := i + 1
		if i = digitsFrom(tok, f); i == f {
			return n, false
		}
		n.frac = tok[f:i]
	}
	if i < len(tok) && (tok[i] == 'e' || tok[i] == 'E') {
		if n.exp, i, ok = parseExponent(tok, i+1); !ok {
			return n, false
		}
		n.hasExp = true
	}
	return n, i == len(tok)
}

// parseExponent reads the exponent of a JSON number from tok[i:], after
// its e: a sign and digits, at most maxWholeNumberExp in size.
func parseExponent(tok []byte, i int) (exp, end int, ok bool) {
	sign := 1
	if i < len(tok) && (tok[i] == '+' || tok[i] == '-') {
		if tok[i] == '-' {
			sign = -1
		}
		i++
	}
	start := i
	for ; i < len(tok) && isDigit(tok[i]); i++ {
		if exp <= maxWholeNumberExp {
			exp = exp*10 + int(tok[i]-'0')
		}
	}
	if i == start || exp > maxWholeNumberExp {
		return 0, i, false
	}
	return sign * exp, i, true
}

// digitsFrom returns the index of the first byte of tok from i on that
// is not a digit.
func digitsFrom(tok []byte, i int) int {
	for i < len(tok) && isDigit(tok[i]) {
		i++
	}
	return i
}

// appendInt64 appends the integer of the decimal digits (leading zeros
// allowed) and sign to dst, when it is within int64.
func appendInt64(dst []byte, neg bool, digits []byte) ([]byte, bool) {
	for len(digits) > 0 && digits[0] == '0' {
		digits = digits[1:]
	}
	if neg {
		dst = append(dst, '-')
	}
	if len(digits) == 0 {
		return append(dst, '0'), true
	}
	limit := "9223372036854775807"
	if neg {
		limit = "9223372036854775808"
	}
	if len(digits) > len(limit) || len(digits) == len(limit) && string(digits) > limit {
		return nil, false
	}
	return append(dst, digits...), true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
