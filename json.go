package profilesvc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Ptr returns a pointer to v. PATCH parameters use pointers to tell "leave
// as is" (nil) from "set to the zero value" (Ptr("")):
//
//	client.UpdateProfile(ctx, id, profilesvc.UpdateProfileParams{
//		Description: profilesvc.Ptr(""), // clear the description
//	})
func Ptr[T any](v T) *T { return &v }

// RawJSON is a JSON value whose shape varies: the extracted data and output
// schema of an analysis (shaped by the workflow), the content of an item,
// and the Raw copy of every resource as the service sent it. It holds the
// bytes as received; Decode reads them into the caller's own type, and it
// prints as its JSON text (with %v, %s or %+v), never as a list of bytes.
type RawJSON json.RawMessage

// Decode unmarshals the value into v, which must be a pointer. A null or
// absent value leaves v untouched.
func (r RawJSON) Decode(v any) error {
	if r.IsNull() {
		return nil
	}
	if err := unmarshal(r, v); err != nil {
		return errors.Join(errors.New("profilesvc: decoding JSON value"), err)
	}
	return nil
}

// IsNull reports whether the value is absent or JSON null.
func (r RawJSON) IsNull() bool {
	t := bytes.TrimSpace(r)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// String returns the JSON text.
func (r RawJSON) String() string { return string(r) }

// Format prints the JSON text for every verb but %x and %X (hexadecimal)
// and %q (quoted); %#v prints Go syntax that compiles.
func (r RawJSON) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('#'):
		fmt.Fprintf(f, "profilesvc.RawJSON(%q)", string(r))
	case verb == 'x' || verb == 'X' || verb == 'q':
		fmt.Fprintf(f, fmt.FormatString(f, verb), []byte(r))
	default:
		_, _ = f.Write(r)
	}
}

// MarshalJSON returns the value as is, or null when it is empty.
func (r RawJSON) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("null"), nil
	}
	return r, nil
}

// UnmarshalJSON keeps a copy of the bytes.
func (r *RawJSON) UnmarshalJSON(b []byte) error {
	*r = append((*r)[:0], b...)
	return nil
}

// Object is a free-form JSON object: metadata, an analysis's options and
// client metadata, and the parts of the interface whose inner fields the
// service does not publish.
type Object = map[string]any
