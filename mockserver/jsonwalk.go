package mockserver

import "encoding/json"

// A walk over JSON text that yields the members of an object and the
// elements of an array as slices of the text itself, never copies, so
// that checking the keys of a large body (a seed with files in base64)
// costs no memory beyond the body. It walks text encoding/json has not
// yet judged: on text that is not JSON it reports false, and the decoder
// that follows says what is wrong.

// jsonMembers returns the keys of the JSON object raw and their values,
// or false when raw is not an object.
func jsonMembers(raw []byte) (keys []string, values [][]byte, ok bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, nil, false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return nil, nil, true
	}
	for i < len(raw) {
		end, ok := skipString(raw, i)
		if !ok {
			return nil, nil, false
		}
		var key string
		if json.Unmarshal(raw[i:end], &key) != nil {
			return nil, nil, false
		}
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return nil, nil, false
		}
		start := skipSpace(raw, i+1)
		end, ok = skipValue(raw, start)
		if !ok {
			return nil, nil, false
		}
		keys, values = append(keys, key), append(values, raw[start:end])
		i = skipSpace(raw, end)
		switch {
		case i < len(raw) && raw[i] == ',':
			i = skipSpace(raw, i+1)
		case i < len(raw) && raw[i] == '}':
			return keys, values, true
		default:
			return nil, nil, false
		}
	}
	return nil, nil, false
}

// jsonElements returns the elements of the JSON array raw, or false when
// raw is not an array.
func jsonElements(raw []byte) ([][]byte, bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return nil, true
	}
	var out [][]byte
	for i < len(raw) {
		end, ok := skipValue(raw, i)
		if !ok {
			return nil, false
		}
		out = append(out, raw[i:end])
		i = skipSpace(raw, end)
		switch {
		case i < len(raw) && raw[i] == ',':
			i = skipSpace(raw, i+1)
		case i < len(raw) && raw[i] == ']':
			return out, true
		default:
			return nil, false
		}
	}
	return nil, false
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns where the JSON string starting at b[i] ends, just
// after its closing quote.
func skipString(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false
	}
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return 0, false
}

// skipValue returns where the JSON value starting at b[i] ends. Nested
// arrays and objects are followed by a count of their depth, not by
// recursion, so that a deeply nested body costs no stack.
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				end, ok := skipString(b, i)
				if !ok {
					return 0, false
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
		}
		return 0, false
	}
	// A number, true, false or null: up to the next delimiter.
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j, j > i
}
