package profilesvc

import (
	"context"
	"fmt"
	"iter"
	"net/url"
	"strconv"

	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
)

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

// values encodes the parameters as a query; a nil receiver gives none.
func (p *ListParams) values() url.Values {
	if p == nil {
		return nil
	}
	q := url.Values{}
	if p.Search != "" {
		q.Set(apiroutes.QuerySearch, p.Search)
	}
	if p.Sort != "" {
		q.Set(apiroutes.QuerySort, string(p.Sort))
	}
	if p.Order != "" {
		q.Set(apiroutes.QueryOrder, string(p.Order))
	}
	if p.Limit != 0 {
		q.Set(apiroutes.QueryLimit, strconv.Itoa(p.Limit))
	}
	if p.Cursor != "" {
		q.Set(apiroutes.QueryCursor, p.Cursor)
	}
	return q
}

func (p *ListParams) cursor() string {
	if p == nil {
		return ""
	}
	return p.Cursor
}

// withCursor returns a copy of the parameters for the page at cursor.
func (p *ListParams) withCursor(cursor string) *ListParams {
	var c ListParams
	if p != nil {
		c = *p
	}
	c.Cursor = cursor
	return &c
}

// paginate walks the pages that fetch returns, from cursor, yielding each
// entry. It stops at the first error, which it yields with a nil entry,
// at the last page, or when the caller stops ranging. A cursor the service
// returns twice in a row ends the walk with an error rather than a loop;
// the error shows the cursor with the API key masked.
func paginate[T any](ctx context.Context, secret *secret, cursor string, fetch func(context.Context, string) (*Page[T], error)) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		for {
			page, err := fetch(ctx, cursor)
			if err != nil {
				yield(nil, err)
				return
			}
			for i := range page.Items {
				if !yield(&page.Items[i], nil) {
					return
				}
			}
			if page.NextCursor == "" {
				return
			}
			if page.NextCursor == cursor {
				yield(nil, errRepeatedCursor(secret, cursor))
				return
			}
			cursor = page.NextCursor
		}
	}
}

func errRepeatedCursor(secret *secret, cursor string) error {
	return secret.maskErr(fmt.Errorf("profilesvc: the service returned cursor %q for the page it names; stopping", secret.mask(cursor)))
}
