package engine

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// KeyValueLine reads a "Key: value" line as Default does.
func KeyValueLine(line string) (key, value string, ok bool) { return keyValue(line) }

// KeyValuePattern is the regular expression KeyValueLine stands for.
var KeyValuePattern = regexp.MustCompile(`^\s*([\p{L}][\p{L}\p{N} _\-/'.()]{0,48}?)\s*[:=]\s*(\S.*?)\s*$`)

// FirstValues reads JSON text as Default does, and returns, for each key
// folded as Default folds them, the first value of that key and the first
// that is not empty; ok is false when text is not JSON to Default.
func FirstValues(text string) (first, nonEmpty map[string]string, ok bool) {
	out, ok := jsonPairs(text, func(string) bool { return true })
	if !ok {
		return nil, nil, false
	}
	pairs := make([][2]string, len(out))
	for i, l := range out {
		pairs[i] = [2]string{l.key, l.value}
	}
	first, nonEmpty = firstValues(pairs)
	return first, nonEmpty, true
}

// FirstValuesReference is FirstValues as encoding/json reads the whole
// value, each value cut as Default cuts it.
func FirstValuesReference(text string) (first, nonEmpty map[string]string, ok bool) {
	var v any
	if json.Unmarshal([]byte(text), &v) != nil {
		return nil, nil, false
	}
	var pairs [][2]string
	flattenReference("", v, &pairs)
	first, nonEmpty = firstValues(pairs)
	return first, nonEmpty, true
}

// firstValues returns the first value of each key of pairs, folded, and
// the first that is not empty.
func firstValues(pairs [][2]string) (first, nonEmpty map[string]string) {
	first, nonEmpty = map[string]string{}, map[string]string{}
	for _, kv := range pairs {
		nk := normKey(kv[0])
		if _, seen := first[nk]; !seen {
			first[nk] = kv[1]
		}
		if _, seen := nonEmpty[nk]; !seen && kv[1] != "" {
			nonEmpty[nk] = kv[1]
		}
	}
	return first, nonEmpty
}

// flattenReference appends the leaves of a JSON value, each under the name
// of the object field that holds it: an object's fields in the order of
// their names, an array's elements in order.
func flattenReference(prefix string, v any, out *[][2]string) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			flattenReference(k, x[k], out)
		}
	case []any:
		for _, e := range x {
			flattenReference(prefix, e, out)
		}
	case nil:
	default:
		if prefix != "" {
			*out = append(*out, [2]string{prefix, keepValue(strings.TrimSpace(fmt.Sprint(x)))})
		}
	}
}
