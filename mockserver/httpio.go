package mockserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/profilesvc/profilesvc-go"
)

// apiError is an error answer: its status, code and a message naming what
// was wrong.
type apiError struct {
	status     int
	code       string
	message    string
	retryAfter string
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.status, e.code, e.message) }

// errorf makes an error answer. A string argument, which may be a value
// the client sent, is shown clipped to maxEcho characters, and so is the
// text of an error or a fmt.Stringer (a decoder's error quotes the value
// it could not read, such as a number of 500,000 digits): an answer never
// echoes a huge value back.
func errorf(status int, code, format string, args ...any) *apiError {
	for i, a := range args {
		switch v := a.(type) {
		case string:
			args[i] = clip(v)
		case error:
			args[i] = clip(v.Error())
		case fmt.Stringer:
			args[i] = clip(v.String())
		}
	}
	return &apiError{status: status, code: code, message: fmt.Sprintf(format, args...)}
}

// maxEcho is the most characters of a value an error message shows.
const maxEcho = 100

// clip returns s, or its first maxEcho characters followed by "…" and how
// long it was.
func clip(s string) string {
	if len(s) <= maxEcho || utf8.RuneCountInString(s) <= maxEcho {
		return s
	}
	return fmt.Sprintf("%s… (%d characters)", string([]rune(s)[:maxEcho]), utf8.RuneCountInString(s))
}

func validation(format string, args ...any) *apiError {
	return errorf(http.StatusBadRequest, profilesvc.CodeValidation, format, args...)
}

// maxMessage bounds a message made of a whole error's text.
const maxMessage = 1000

// invalid is a 400 VALIDATION_ERROR whose message is the text of one of
// the mock's own checks (a seed's, a snapshot's, a fault's), without the
// package's prefix: whole, since such a text names its record and field
// after the values it quotes, which the check has clipped already, and
// bounded as a whole all the same.
func invalid(err error) *apiError {
	msg := strings.TrimPrefix(err.Error(), "mockserver: ")
	if utf8.RuneCountInString(msg) > maxMessage {
		msg = string([]rune(msg)[:maxMessage]) + "…"
	}
	return &apiError{status: http.StatusBadRequest, code: profilesvc.CodeValidation, message: msg}
}

// errorBody is the service's error body.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Status  int    `json:"status"`
	Message string `json:"message"`
}

// writeError writes e as {error:{code,status,message}}.
func writeError(w http.ResponseWriter, e *apiError) {
	if e.retryAfter != "" {
		w.Header().Set("Retry-After", e.retryAfter)
	}
	writeJSON(w, e.status, errorBody{Error: errorDetail{Code: e.code, Status: e.status, Message: e.message}})
}

// writeJSON writes v as the JSON answer.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b := encodeJSON(v)
	if b == nil {
		writeError(w, errorf(http.StatusInternalServerError, profilesvc.CodeInternal, "the answer could not be encoded"))
		return
	}
	writeRawJSON(w, status, b)
}

// encodeJSON encodes v as the server's answers are: no HTML escaping, a
// final newline. It returns nil if v cannot be encoded.
func encodeJSON(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil
	}
	return buf.Bytes()
}

// jsonContentType is the Content-Type of every JSON answer.
const jsonContentType = "application/json; charset=utf-8"

// writeRawJSON writes bytes that are already JSON.
func writeRawJSON(w http.ResponseWriter, status int, b []byte) {
	setHeaders(w, jsonContentType, len(b))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// setHeaders sets an answer's Content-Type and Content-Length. Through an
// exchange, their values are held with its request ID's, in one
// allocation for the three.
func setHeaders(w http.ResponseWriter, contentType string, length int) {
	h := w.Header()
	x := exchangeFor(w)
	if x == nil {
		h.Set("Content-Type", contentType)
		h.Set("Content-Length", strconv.Itoa(length))
		return
	}
	if x.headers == nil {
		x.headers = new(answerHeaders)
	}
	x.headers.contentType[0] = contentType
	x.headers.length[0] = strconv.Itoa(length)
	h["Content-Type"] = x.headers.contentType[:]
	h["Content-Length"] = x.headers.length[:]
}

// noContent answers 204 with no body.
func noContent(w http.ResponseWriter) { w.WriteHeader(http.StatusNoContent) }

// mediaType returns the request's media type, lower-cased, without
// parameters.
func mediaType(r *http.Request) string {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return "invalid"
	}
	return strings.ToLower(mt)
}

// requireJSON refuses a request whose body is not application/json.
func requireJSON(r *http.Request) *apiError {
	if mt := mediaType(r); mt != "application/json" {
		if mt == "" {
			return errorf(http.StatusUnsupportedMediaType, profilesvc.CodeUnsupportedMediaType,
				"Content-Type is missing: send the body as application/json")
		}
		return errorf(http.StatusUnsupportedMediaType, profilesvc.CodeUnsupportedMediaType,
			"Content-Type %q is not supported here: send the body as application/json", r.Header.Get("Content-Type"))
	}
	return nil
}

// decodeJSON reads the request body as one JSON object into v, strictly:
// the body must be application/json, within the size limit, well formed,
// of the right types and without unknown fields. Every failure names what
// was wrong.
func decodeJSON(r *http.Request, limit int64, v any) *apiError {
	if e := requireJSON(r); e != nil {
		return e
	}
	// Into a buffer of the declared length, when there is one within the
	// limit: the body is read without the copies of a growing buffer.
	var buf bytes.Buffer
	if r.ContentLength > 0 && r.ContentLength <= limit {
		buf.Grow(int(r.ContentLength) + bytes.MinRead)
	}
	if _, err := buf.ReadFrom(http.MaxBytesReader(nil, r.Body, limit)); err != nil {
		return bodyReadError(err, limit)
	}
	return unmarshalStrict(buf.Bytes(), v)
}

// bodyReadError turns a failure to read the body into its answer.
func bodyReadError(err error, limit int64) *apiError {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return errorf(http.StatusRequestEntityTooLarge, profilesvc.CodePayloadTooLarge,
			"the request body is larger than the limit of %d bytes", limit)
	}
	return validation("the request body could not be read: %v", err)
}

// unmarshalStrict decodes one JSON object into v, refusing unknown fields,
// wrong types and trailing data, with a message that names the field.
func unmarshalStrict(body []byte, v any) *apiError {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return validation("the request body is empty: a JSON object is required")
	}
	// encoding/json decodes null into a struct as nothing at all.
	if string(trimmed) == "null" {
		return validation("the request body must be a JSON object, not null")
	}
	if !utf8.Valid(body) {
		// encoding/json would replace the bad bytes silently.
		if field := invalidUTF8Field(body); field != "" {
			return validation("field %q is not valid UTF-8", field)
		}
		return validation("the request body is not valid UTF-8")
	}
	if e := checkExactKeys(body, reflect.TypeOf(v), ""); e != nil {
		return e
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if dec.More() {
		return validation("the request body holds more than one JSON value")
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); err != io.EOF {
		return validation("the request body has data after its JSON object")
	}
	return nil
}

// invalidUTF8Field names the field (as "a.b[2].c") whose key or value
// holds the body's first invalid UTF-8, or "" when that is outside any
// field.
func invalidUTF8Field(body []byte) string {
	off := 0
	for off < len(body) {
		r, size := utf8.DecodeRune(body[off:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		off += size
	}
	// One level per open object or array: the key or index of the value
	// the decoder is in.
	type level struct {
		object    bool
		expectKey bool
		key       string
		index     int
	}
	var levels []level
	path := func() string {
		var b strings.Builder
		for _, l := range levels {
			if l.object {
				b.WriteString("." + l.key)
			} else {
				fmt.Fprintf(&b, "[%d]", l.index)
			}
		}
		return strings.TrimPrefix(b.String(), ".")
	}
	valueDone := func() {
		if n := len(levels); n > 0 {
			if levels[n-1].object {
				levels[n-1].expectKey = true
			} else {
				levels[n-1].index++
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	for {
		before := int64(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		within := before <= int64(off) && int64(off) < dec.InputOffset()
		switch tok {
		case json.Delim('{'), json.Delim('['):
			levels = append(levels, level{object: tok == json.Delim('{'), expectKey: true})
			continue
		case json.Delim('}'), json.Delim(']'):
			levels = levels[:len(levels)-1]
			valueDone()
			continue
		}
		if n := len(levels); n > 0 && levels[n-1].object && levels[n-1].expectKey {
			levels[n-1].key, _ = tok.(string)
			levels[n-1].expectKey = false
			if within {
				return path()
			}
			continue
		}
		if within {
			return path()
		}
		valueDone()
	}
}

// jsonError describes a JSON decoding error in the terms of the request.
func jsonError(err error) *apiError {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			return validation("the request body must be a JSON object, not %s", typeErr.Value)
		}
		if outOfRange(typeErr) {
			return validation("field %q is out of range for %s", field, jsonTypeName(typeErr.Type.Kind().String()))
		}
		return validation("field %q must be %s, not %s", field, jsonTypeName(typeErr.Type.Kind().String()), typeErr.Value)
	case errors.As(err, &syntaxErr):
		return validation("the request body is not valid JSON: %s at offset %d", syntaxErr.Error(), syntaxErr.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return validation("the request body is not valid JSON: it ends too soon")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return validation("unknown field %s in the request body", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	var fe *fieldError
	if errors.As(err, &fe) {
		return validation("%s", fe.Error())
	}
	return validation("the request body is not valid: %v", err)
}

// outOfRange reports whether a type error is a well-formed number that
// the field's type cannot hold: too large for a float, or an integer too
// large for an integer field.
func outOfRange(e *json.UnmarshalTypeError) bool {
	num, ok := strings.CutPrefix(e.Value, "number ")
	if !ok {
		return false
	}
	if _, err := strconv.ParseFloat(num, 64); errors.Is(err, strconv.ErrRange) {
		return true
	}
	switch e.Type.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return !strings.ContainsAny(num, ".eE")
	}
	return false
}

// fieldError is a validation failure found while decoding a field.
type fieldError struct {
	field, problem string
}

func (e *fieldError) Error() string { return fmt.Sprintf("field %q %s", e.field, e.problem) }

func jsonTypeName(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "map", "struct":
		return "an object"
	case "slice", "array":
		return "an array"
	case "bool":
		return "a boolean"
	case "int", "int64", "int32", "uint", "uint64":
		return "a whole number"
	case "float64", "float32":
		return "a number"
	}
	return "of another type"
}

// opt is a JSON field that tells "absent" from "null" from a value.
type opt[T any] struct {
	set   bool // present in the body
	null  bool // present as null
	value T
}

func (o *opt[T]) UnmarshalJSON(b []byte) error {
	o.set = true
	if string(bytes.TrimSpace(b)) == "null" {
		o.null = true
		return nil
	}
	return json.Unmarshal(b, &o.value)
}

// checkQuery refuses a query that queryValues would refuse.
func checkQuery(r *http.Request, allowed []string) *apiError {
	_, e := queryValues(r, allowed...)
	return e
}

// queryValues parses the request's query strictly: a malformed escape is
// an error rather than a silently dropped parameter, and so is a parameter
// not in allowed or given twice.
func queryValues(r *http.Request, allowed ...string) (url.Values, *apiError) {
	if r.URL.RawQuery == "" {
		return nil, nil
	}
	values, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, validation("the query string is malformed: %v", err)
	}
	for _, k := range slices.Sorted(maps.Keys(values)) {
		if !slices.Contains(allowed, k) {
			return nil, validation("unknown query parameter %q", k)
		}
		if len(values[k]) > 1 {
			return nil, validation("query parameter %q is given more than once", k)
		}
	}
	return values, nil
}

// checkExactKeys refuses an object key that matches none of the JSON names
// of t's fields exactly: encoding/json would accept "Name" for "name", and
// a client relying on that would fail on a stricter service. It walks
// nested structs and lists of structs.
func checkExactKeys(raw []byte, t reflect.Type, path string) *apiError {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Struct && strings.HasPrefix(t.Name(), "opt[") {
		f, _ := t.FieldByName("value")
		t = f.Type
	}
	switch t.Kind() {
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil
		}
		items, ok := jsonElements(raw)
		if !ok {
			return nil // the decoder reports the type
		}
		for i, it := range items {
			if e := checkExactKeys(it, t.Elem(), fmt.Sprintf("%s[%d].", strings.TrimSuffix(path, "."), i)); e != nil {
				return e
			}
		}
	case reflect.Struct:
		if t == reflect.TypeOf(time.Time{}) {
			return nil
		}
		keys, values, ok := jsonMembers(raw)
		if !ok {
			return nil // the decoder reports the type
		}
		fields := map[string]reflect.Type{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() && name == "" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			fields[name] = f.Type
		}
		// In the order of the keys, as before: the first unknown key in
		// that order is the one named.
		order := make([]int, len(keys))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(keys[a], keys[b]) })
		for _, i := range order {
			k := keys[i]
			ft, ok := fields[k]
			if !ok {
				return validation("unknown field %q in the request body", path+k)
			}
			if e := checkExactKeys(values[i], ft, path+k+"."); e != nil {
				return e
			}
		}
	}
	return nil
}
