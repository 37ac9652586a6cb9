package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
)

// answer checks one answer of the generated client: it has status want;
// the generated client decoded it into the field JSON{want} (for a JSON
// answer); and its body decodes into that field's type again with unknown
// fields disallowed, and says the same once encoded again (nulls and empty
// values aside), so that the type holds every member the answer has. It
// returns the strictly decoded value, or nil for a body that is not JSON.
func answer(step string, resp any, err error, want int) (any, error) {
	if err != nil {
		return nil, fmt.Errorf("%s: %w", step, err)
	}
	rv := reflect.ValueOf(resp).Elem()
	hr := rv.FieldByName("HTTPResponse").Interface().(*http.Response)
	body := rv.FieldByName("Body").Bytes()
	if hr.StatusCode != want {
		return nil, fmt.Errorf("%s: status %d, want %d: %s", step, hr.StatusCode, want, excerpt(body))
	}
	field := rv.FieldByName("JSON" + strconv.Itoa(want))
	if !field.IsValid() {
		if ct := hr.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/json") {
			return nil, fmt.Errorf("%s: a JSON answer (%s) for which the generated type has no field JSON%d", step, ct, want)
		}
		return nil, nil
	}
	if field.IsNil() {
		return nil, fmt.Errorf("%s: the generated client left JSON%d nil: %s", step, want, excerpt(body))
	}
	v := reflect.New(field.Type().Elem())
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v.Interface()); err != nil {
		return nil, fmt.Errorf("%s: the answer does not decode into %s with unknown fields disallowed: %w: %s", step, field.Type().Elem(), err, excerpt(body))
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: data after the JSON value", step)
	}
	again, err := json.Marshal(v.Interface())
	if err != nil {
		return nil, fmt.Errorf("%s: encoding %s again: %w", step, field.Type().Elem(), err)
	}
	if d := jsonDifference(body, again); d != "" {
		return nil, fmt.Errorf("%s: %s loses data: %s", step, field.Type().Elem(), d)
	}
	return v.Interface(), nil
}

// wantError checks an error answer: status and the body's code, status
// and message, decoded strictly as answer does.
func wantError(step string, resp any, err error, status int, want string) error {
	v, err := answer(step, resp, err, status)
	if err != nil {
		return err
	}
	e := reflect.ValueOf(v).Elem().FieldByName("Error")
	if !e.IsValid() || e.Kind() != reflect.Struct {
		return fmt.Errorf("%s: %T has no struct field Error", step, v)
	}
	code, st, message := e.FieldByName("Code"), e.FieldByName("Status"), e.FieldByName("Message")
	if !code.IsValid() || code.Kind() != reflect.String || !st.IsValid() || !st.CanInt() || !message.IsValid() || message.Kind() != reflect.String {
		return fmt.Errorf("%s: %s lacks a string Code, an integer Status or a string Message", step, e.Type())
	}
	if code.String() != want || st.Int() != int64(status) || message.String() == "" {
		return fmt.Errorf("%s: error {code %q, status %d, message %q}, want code %q, status %d and a message", step, code.String(), st.Int(), message.String(), want, status)
	}
	return nil
}

// jsonDifference compares two JSON documents as values, taking a null
// member as the same as an absent one (a generated type's omitempty drops
// a nil pointer), and says where they differ; "" when they do not. An
// empty array or object is kept apart from an absent member: "no findings"
// is not "findings not given".
func jsonDifference(a, b []byte) string {
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		return "the answer is not JSON: " + err.Error()
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		return "encoded again, not JSON: " + err.Error()
	}
	return differ("$", prune(va), prune(vb))
}

// prune removes the null members of objects.
func prune(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, m := range v {
			if m == nil {
				continue
			}
			out[k] = prune(m)
		}
		return out
	case []any:
		for i := range v {
			v[i] = prune(v[i])
		}
		return v
	}
	return v
}

// differ says where the pruned values a (the answer) and b (encoded
// again) first differ.
func differ(path string, a, b any) string {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: an object became %T", path, b)
		}
		for k, av := range a {
			bv, ok := bm[k]
			if !ok {
				return fmt.Sprintf("%s.%s: dropped", path, k)
			}
			if d := differ(path+"."+k, av, bv); d != "" {
				return d
			}
		}
		for k := range bm {
			if _, ok := a[k]; !ok {
				return fmt.Sprintf("%s.%s: added", path, k)
			}
		}
		return ""
	case []any:
		bs, ok := b.([]any)
		if !ok || len(bs) != len(a) {
			return fmt.Sprintf("%s: an array of %d became %v", path, len(a), b)
		}
		for i := range a {
			if d := differ(fmt.Sprintf("%s[%d]", path, i), a[i], bs[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("%s: %v became %v", path, a, b)
	}
	return ""
}

// excerpt is the start of a body, for messages.
func excerpt(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}
