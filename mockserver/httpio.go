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

func errorf(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, message: fmt.Sprintf(format, args...)}
}

func validation(format string, args ...any) *apiError {
	return errorf(http.StatusBadRequest, profilesvc.CodeValidation, format, args...)
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
// exchange, their values are held in it rather than allocated apart.
func setHeaders(w http.ResponseWriter, contentType string, length int) {
	h := w.Header()
	x := exchangeFor(w)
	if x == nil {
		h.Set("Content-Type", contentType)
		h.Set("Content-Length", strconv.Itoa(length))
		return
	}
	x.contentHeader[0] = contentType
	x.lengthHeader[0] = strconv.Itoa(length)
	h["Content-Type"] = x.contentHeader[:]
	h["Content-Length"] = x.lengthHeader[:]
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

// decodeJSON reads the request body as one JSON object into v, strictly:
// the body must be application/json, within the size limit, well formed,
// of the right types and without unknown fields. Every failure names what
// was wrong.
func decodeJSON(r *http.Request, limit int64, v any) *apiError {
	if mt := mediaType(r); mt != "application/json" {
		if mt == "" {
			return errorf(http.StatusUnsupportedMediaType, profilesvc.CodeUnsupportedMediaType,
				"Content-Type is missing: send the body as application/json")
		}
		return errorf(http.StatusUnsupportedMediaType, profilesvc.CodeUnsupportedMediaType,
			"Content-Type %q is not supported here: send the body as application/json", r.Header.Get("Content-Type"))
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
	if err != nil {
		return bodyReadError(err, limit)
	}
	return unmarshalStrict(body, v)
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
	if len(bytes.TrimSpace(body)) == 0 {
		return validation("the request body is empty: a JSON object is required")
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
func checkExactKeys(raw json.RawMessage, t reflect.Type, path string) *apiError {
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
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
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
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return nil
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
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			ft, ok := fields[k]
			if !ok {
				return validation("unknown field %q in the request body", path+k)
			}
			if e := checkExactKeys(obj[k], ft, path+k+"."); e != nil {
				return e
			}
		}
	}
	return nil
}
