package mockserver

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// listQuery is a parsed listing request: search, sort, order, limit and
// cursor.
type listQuery struct {
	search string
	sort   string // name, createdAt or updatedAt
	order  string // asc or desc
	limit  int
	after  *cursor // the last entry of the previous page
}

// cursor is the position after which the next page starts, with the
// listing it belongs to. It is sent as base64url JSON: opaque to clients,
// and stable while entries are added or deleted, since it names a position
// in the order rather than an offset.
type cursor struct {
	Sort   string `json:"s"`
	Order  string `json:"o"`
	Search string `json:"q,omitempty"`
	Key    string `json:"k"`
	ID     string `json:"i"`
}

func (c cursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (*cursor, error) {
	if len(s) > 2048 {
		return nil, fmt.Errorf("it is too long")
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("it is not a cursor this server made")
	}
	var c cursor
	if err := json.Unmarshal(b, &c); err != nil || c.ID == "" || !validSort(c.Sort) || !validOrder(c.Order) {
		return nil, fmt.Errorf("it is not a cursor this server made")
	}
	return &c, nil
}

func validSort(s string) bool  { return s == "name" || s == "createdAt" || s == "updatedAt" }
func validOrder(s string) bool { return s == "asc" || s == "desc" }

// parseListQuery reads and checks a listing's query. searchable says
// whether search and sort apply (they do not to analyses, which are listed
// newest first).
func parseListQuery(r *http.Request, searchable bool) (listQuery, *apiError) {
	q := listQuery{sort: "createdAt", order: "desc", limit: 10}
	allowed := map[string]bool{"limit": true, "cursor": true}
	if searchable {
		allowed["search"], allowed["sort"], allowed["order"] = true, true, true
	}
	values := r.URL.Query()
	for _, k := range sortedKeys(values) {
		if !allowed[k] {
			return q, validation("unknown query parameter %q", k)
		}
		if len(values[k]) > 1 {
			return q, validation("query parameter %q is given more than once", k)
		}
	}
	if v := values.Get("search"); v != "" {
		if len(v) > 255 {
			return q, validation("query parameter \"search\" must be at most 255 characters")
		}
		q.search = v
	}
	sortSet, orderSet := values.Has("sort"), values.Has("order")
	if sortSet {
		q.sort = values.Get("sort")
		if !validSort(q.sort) {
			return q, validation("query parameter \"sort\" must be name, createdAt or updatedAt, not %q", q.sort)
		}
	}
	if orderSet {
		q.order = values.Get("order")
		if !validOrder(q.order) {
			return q, validation("query parameter \"order\" must be asc or desc, not %q", q.order)
		}
	}
	if values.Has("limit") {
		n, err := strconv.Atoi(values.Get("limit"))
		if err != nil || n < 1 || n > 100 {
			return q, validation("query parameter \"limit\" must be a whole number from 1 to 100, not %q", values.Get("limit"))
		}
		q.limit = n
	}
	if values.Has("cursor") {
		c, err := decodeCursor(values.Get("cursor"))
		if err != nil {
			return q, validation("query parameter \"cursor\" is not valid: %v", err)
		}
		if (sortSet && c.Sort != q.sort) || (orderSet && c.Order != q.order) || (values.Has("search") && c.Search != q.search) {
			return q, validation("query parameter \"cursor\" belongs to a listing with other search, sort or order parameters")
		}
		q.sort, q.order, q.search = c.Sort, c.Order, c.Search
		q.after = c
	}
	return q, nil
}

// sortKey returns the value an entry is ordered by: the name (folded to
// lower case) or a time as fixed-width nanoseconds, so that keys compare
// as strings.
func sortKey(sortBy, name string, created, updated time.Time) string {
	switch sortBy {
	case "name":
		return strings.ToLower(name)
	case "updatedAt":
		return fmt.Sprintf("%020d", updated.UnixNano())
	}
	return fmt.Sprintf("%020d", created.UnixNano())
}

// keyed is an entry of a listing with its sort key.
type keyed[T any] struct {
	key, id string
	v       T
}

// paginate orders the entries by (key, id), in q.order, and returns the
// page after q.after with the cursor of the next page, or nil on the last.
func paginate[T any](entries []keyed[T], q listQuery) ([]T, *string) {
	less := func(a, b keyed[T]) bool {
		if a.key != b.key {
			return a.key < b.key
		}
		return a.id < b.id
	}
	sort.Slice(entries, func(i, j int) bool {
		if q.order == "asc" {
			return less(entries[i], entries[j])
		}
		return less(entries[j], entries[i])
	})
	start := 0
	if q.after != nil {
		pos := keyed[T]{key: q.after.Key, id: q.after.ID}
		start = sort.Search(len(entries), func(i int) bool {
			if q.order == "asc" {
				return less(pos, entries[i])
			}
			return less(entries[i], pos)
		})
	}
	end := min(start+q.limit, len(entries))
	out := make([]T, 0, end-start)
	for _, e := range entries[start:end] {
		out = append(out, e.v)
	}
	if end >= len(entries) {
		return out, nil
	}
	last := entries[end-1]
	next := cursor{Sort: q.sort, Order: q.order, Search: q.search, Key: last.key, ID: last.id}.encode()
	return out, &next
}

// pageBody is a listing's answer: nextCursor is null on the last page.
type pageBody[T any] struct {
	Count      int     `json:"count"`
	NextCursor *string `json:"nextCursor"`
	Items      []T     `json:"items"`
}

func newPage[T any](items []T, next *string) pageBody[T] {
	if items == nil {
		items = []T{}
	}
	return pageBody[T]{Count: len(items), NextCursor: next, Items: items}
}

// matchesSearch reports whether name contains search, ignoring case.
func matchesSearch(name, search string) bool {
	return search == "" || strings.Contains(strings.ToLower(name), strings.ToLower(search))
}
