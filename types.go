package profilesvc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	if err := json.Unmarshal(r, v); err != nil {
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
		_, _ = io.WriteString(f, string(r))
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

// Page is one page of a listing: the folders of a profile, the profiles of
// a workflow or the analyses of a profile.
type Page[T any] struct {
	// Count is the number of entries on this page.
	Count int `json:"count"`
	// NextCursor fetches the next page; empty on the last page.
	NextCursor string `json:"nextCursor"`
	// Items are the page's entries.
	Items []T `json:"items"`
}

// SortOrder is the direction of a listing.
type SortOrder string

// Sort orders.
const (
	Ascending  SortOrder = "asc"
	Descending SortOrder = "desc"
)

// SortField is the field a listing is sorted by.
type SortField string

// Sort fields of the folder and profile listings.
const (
	SortByName      SortField = "name"
	SortByCreatedAt SortField = "createdAt"
	SortByUpdatedAt SortField = "updatedAt"
)

// ListParams select and order a page of a listing. The zero value asks for
// the service's defaults: the first 10 entries, newest first.
type ListParams struct {
	// Search keeps the entries whose name contains it, case-insensitively.
	Search string
	// Sort is the field to sort by; default createdAt.
	Sort SortField
	// Order is the direction; default desc.
	Order SortOrder
	// Limit is the page size, 1 to 100; default 10.
	Limit int
	// Cursor is the NextCursor of the previous page.
	Cursor string
}
