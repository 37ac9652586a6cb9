package profilesvc

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"regexp"
	"strconv"
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
	var te *json.UnmarshalTypeError
	if err == nil || !errors.As(err, &te) || !strings.HasPrefix(te.Value, "number ") {
		return err
	}
	whole, changed := wholeNumbers(data)
	if !changed {
		return err
	}
	return json.Unmarshal(whole, v)
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
		if n, ok := wholeNumber(data[i:end]); ok {
			if !changed {
				b.Grow(len(data))
				changed = true
			}
			b.Write(data[last:i])
			b.WriteString(n)
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

// wholeNumber returns tok as an integer when it is a JSON number with a
// fraction or an exponent whose value is a whole number within int64.
func wholeNumber(tok []byte) (string, bool) {
	m := jsonNumber.FindSubmatch(tok)
	if len(tok) > maxWholeNumberLen || m == nil || len(m[1]) == 0 && len(m[2]) == 0 {
		return "", false
	}
	if len(m[2]) > 0 {
		exp, err := strconv.Atoi(strings.TrimLeft(string(m[2][1:]), "+"))
		if err != nil || exp > maxWholeNumberExp || exp < -maxWholeNumberExp {
			return "", false
		}
	}
	var r big.Rat
	if _, ok := r.SetString(string(tok)); !ok || !r.IsInt() || !r.Num().IsInt64() {
		return "", false
	}
	return r.Num().String(), true
}

// jsonNumber is the grammar of a JSON number; its groups are the fraction
// and the exponent.
var jsonNumber = regexp.MustCompile(`^-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)
