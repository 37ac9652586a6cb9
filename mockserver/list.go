package mockserver

import (
	"bufio"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
)

// listQuery is a parsed listing request: search, sort, order, limit and
// cursor.
type listQuery struct {
	scope  string // the listing: kind and owner ID
	search string
	sort   string // name, createdAt or updatedAt
	order  string // asc or desc
	limit  int
	after  *cursor // the last entry of the previous page
}

// cursor is the position after which the next page starts, with the
// listing it belongs to. It is sent as base64url JSON followed by an HMAC
// of it under the server's key: opaque to clients, refused when forged or
// used on another listing, and stable while entries are added or deleted,
// since it names a position in the order rather than an offset.
type cursor struct {
	Scope  string `json:"l"` // the listing: kind and owner ID
	Sort   string `json:"s"`
	Order  string `json:"o"`
	Search string `json:"q,omitempty"`
	Key    string `json:"k"`
	ID     string `json:"i"`
}

func (s *Server) encodeCursor(c cursor) string {
	b, _ := json.Marshal(c)
	mac := hmac.New(sha256.New, s.cursorKey)
	mac.Write(b)
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:16])
}

func (s *Server) decodeCursor(v, scope string) (*cursor, error) {
	errForeign := fmt.Errorf("it is not a cursor this server made for this listing")
	if len(v) > 2048 {
		return nil, fmt.Errorf("it is too long")
	}
	body, sig, ok := strings.Cut(v, ".")
	if !ok {
		return nil, errForeign
	}
	b, err1 := base64.RawURLEncoding.DecodeString(body)
	got, err2 := base64.RawURLEncoding.DecodeString(sig)
	if err1 != nil || err2 != nil {
		return nil, errForeign
	}
	mac := hmac.New(sha256.New, s.cursorKey)
	mac.Write(b)
	if !hmac.Equal(got, mac.Sum(nil)[:16]) {
		return nil, errForeign
	}
	var c cursor
	if err := json.Unmarshal(b, &c); err != nil || c.ID == "" || !validSort(c.Sort) || !validOrder(c.Order) {
		return nil, errForeign
	}
	if c.Scope != scope {
		return nil, errForeign
	}
	return &c, nil
}

func validSort(s string) bool  { return s == "name" || s == "createdAt" || s == "updatedAt" }
func validOrder(s string) bool { return s == "asc" || s == "desc" }

// parseListQuery reads and checks a listing's query. The route's
// parameters (apiroutes) say whether search and sort apply: they do not
// to analyses, which are listed newest first.
func (s *Server) parseListQuery(r *http.Request, scope string) (listQuery, *apiError) {
	q := listQuery{scope: scope, sort: "createdAt", order: "desc", limit: 10}
	values := queryOf(r)
	if v := values.Get(apiroutes.QuerySearch); v != "" {
		if len(v) > 255 {
			return q, validation("query parameter %q must be at most 255 characters", apiroutes.QuerySearch)
		}
		q.search = v
	}
	sortSet, orderSet := values.Has(apiroutes.QuerySort), values.Has(apiroutes.QueryOrder)
	if sortSet {
		q.sort = values.Get(apiroutes.QuerySort)
		if !validSort(q.sort) {
			return q, validation("query parameter %q must be name, createdAt or updatedAt, not %q", apiroutes.QuerySort, q.sort)
		}
	}
	if orderSet {
		q.order = values.Get(apiroutes.QueryOrder)
		if !validOrder(q.order) {
			return q, validation("query parameter %q must be asc or desc, not %q", apiroutes.QueryOrder, q.order)
		}
	}
	if values.Has(apiroutes.QueryLimit) {
		v := values.Get(apiroutes.QueryLimit)
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return q, validation("query parameter %q must be a whole number from 1 to 100, not %q", apiroutes.QueryLimit, v)
		}
		q.limit = n
	}
	if values.Has(apiroutes.QueryCursor) {
		c, err := s.decodeCursor(values.Get(apiroutes.QueryCursor), scope)
		if err != nil {
			return q, validation("query parameter %q is not valid: %v", apiroutes.QueryCursor, err)
		}
		if (sortSet && c.Sort != q.sort) || (orderSet && c.Order != q.order) || (values.Has(apiroutes.QuerySearch) && c.Search != q.search) {
			return q, validation("query parameter %q belongs to a listing with other search, sort or order parameters", apiroutes.QueryCursor)
		}
		q.sort, q.order, q.search = c.Sort, c.Order, c.Search
		q.after = c
	}
	return q, nil
}

// sortKey returns the value an entry is ordered by: the name (folded to
// lower case) or a time as fixed-width nanoseconds, followed by the
// entry's creation sequence, so that entries equal in the field (two
// folders made in the same millisecond) keep the order they were made in.
// Keys compare as strings.
func sortKey(sortBy, name string, created, updated time.Time, seq int64) string {
	var k string
	switch sortBy {
	case "name":
		k = strings.ToLower(name)
	case "updatedAt":
		k = timeKey(updated)
	default:
		k = timeKey(created)
	}
	return fmt.Sprintf("%s\x00%020d", k, seq)
}

// timeKey is a time as a string that sorts as the times do, for any time
// a record can hold (years 1 to 9999 and beyond): seconds counted from
// the year 1, then nanoseconds. UnixNano would overflow past 2262, and
// its negative values before 1970 would sort backwards as strings.
func timeKey(t time.Time) string {
	const fromYearOne = 62135596800 // seconds from 0001-01-01 to 1970-01-01
	return fmt.Sprintf("%020d.%09d", t.Unix()+fromYearOne, t.Nanosecond())
}

// keyed is an entry of a listing with its sort key.
type keyed[T any] struct {
	key, id string
	v       T
}

// paginate orders the entries by (key, id), in q.order, and returns the
// page after q.after with the cursor of the next page, or nil on the last.
func paginate[T any](entries []keyed[T], q listQuery, encode func(cursor) string) ([]T, *string) {
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
	next := encode(cursor{Scope: q.scope, Sort: q.sort, Order: q.order, Search: q.search, Key: last.key, ID: last.id})
	return out, &next
}

// writePage writes a page of a listing, its items encoded one at a time
// to the connection (see writeStreamed).
func writePage[T any](w http.ResponseWriter, page pageBody[T]) {
	next, _ := json.Marshal(page.NextCursor)
	head := fmt.Sprintf(`{"count":%d,"nextCursor":%s,"items":[`, page.Count, next)
	writeStreamed(w, head, len(page.Items), func(i int) any { return page.Items[i] })
}

// writeStreamed writes a 200 JSON answer that is an object ending in a
// list: head is the object up to the list's "[", and the items, encoded
// one at a time, go to the connection as they are made, so that an
// answer of many large records (a listing of profiles with a megabyte of
// metadata each) never holds more than one record's encoding in memory.
// Its route streams (route.streams): nothing holds the tenant's lock
// while it writes.
func writeStreamed(w http.ResponseWriter, head string, n int, item func(i int) any) {
	w.Header().Set("Content-Type", jsonContentType)
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 32<<10)
	_, _ = bw.WriteString(head)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range n {
		if i > 0 {
			_ = bw.WriteByte(',')
		}
		if err := enc.Encode(item(i)); err != nil {
			return // the answer has begun: the connection is all that is left to end
		}
	}
	_, _ = bw.WriteString("]}\n")
	_ = bw.Flush()
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
