package mockserver_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/mockserver"
)

func TestCreateFolder(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	pid, _ := createProfile(t, srv, "P")
	f := doJSON(t, srv, "POST", "/v1/profiles/"+pid+"/folders", map[string]any{"name": "Invoices"}, http.StatusCreated)
	checkFolder(t, "created folder", f, pid)
	assert.True(t, f["name"] == "Invoices" && f["isDefault"] == false && f["itemsCount"] == float64(0), "created folder = %v", f)
	got := doJSON(t, srv, "GET", "/v1/folders/"+f["id"].(string), nil, http.StatusOK)
	for _, k := range []string{"id", "profileId", "name", "isDefault", "itemsCount", "createdAt", "updatedAt"} {
		wantSameJSON(t, "GET folder "+k, got[k], f[k])
	}
	wantError(t, do(t, srv, "POST", "/v1/profiles/pf_nope/folders", map[string]any{"name": "x"}), http.StatusNotFound, "PROFILE_NOT_FOUND", "pf_nope")
	for _, name := range []any{"", " ", strings.Repeat("n", 256), nil} {
		wantError(t, do(t, srv, "POST", "/v1/profiles/"+pid+"/folders", map[string]any{"name": name}), http.StatusBadRequest, "VALIDATION_ERROR", "name")
	}
	doJSON(t, srv, "POST", "/v1/profiles/"+pid+"/folders", map[string]any{"name": strings.Repeat("폴", 255)}, http.StatusCreated)
}

func TestListFoldersSearch(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	pid, _ := createProfile(t, srv, "P")
	for _, n := range []string{"Invoices 2024", "old INVOICES", "Receipts", "Ünïcode Ärchive"} {
		createFolder(t, srv, pid, n)
	}
	cases := []struct {
		search string
		want   []string
	}{
		{"invoice", []string{"Invoices 2024", "old INVOICES"}},
		{"INVOICE", []string{"Invoices 2024", "old INVOICES"}},
		{"ceip", []string{"Receipts"}},
		{"DEFAULT", []string{"default"}},
		{"s 2", []string{"Invoices 2024"}},
		{"ärch", []string{"Ünïcode Ärchive"}},
		{"zzz", nil},
	}
	for _, c := range cases {
		t.Run(c.search, func(t *testing.T) {
			_, names, next := listFolders(t, srv, pid, "?sort=name&order=asc&search="+url.QueryEscape(c.search))
			wantSameJSON(t, "names", names, c.want)
			if next != nil {
				assert.Failf(t, "a cursor on the only page", "nextCursor = %q on the only page, want null", *next)
			}
		})
	}
	t.Run("empty page has an empty items array", func(t *testing.T) {
		page := doJSON(t, srv, "GET", "/v1/profiles/"+pid+"/folders?search=zzz", nil, http.StatusOK)
		items, ok := page["items"].([]any)
		assert.True(t, ok && len(items) == 0, "items = %#v, want []", page["items"])
		assert.Equal(t, float64(0), page["count"], "count")
	})
}

func TestListFoldersSortAndOrder(t *testing.T) {
	t.Parallel()
	clock := mockserver.NewFakeClock(time.Date(2030, 3, 1, 0, 0, 0, 0, time.UTC))
	srv := newServer(t, mockserver.WithClock(clock))
	pid, _ := createProfile(t, srv, "P") // "default" is created first
	ids := map[string]string{}
	for _, n := range []string{"charlie", "Alpha", "bravo"} {
		clock.Advance(time.Second)
		ids[n] = createFolder(t, srv, pid, n)
	}
	// Renaming moves updatedAt: "Alpha" becomes "alpha2", the most recently updated.
	clock.Advance(time.Second)
	doJSON(t, srv, "PATCH", "/v1/folders/"+ids["Alpha"], map[string]any{"name": "alpha2"}, http.StatusOK)

	cases := []struct {
		query string
		want  []string
	}{
		{"", []string{"bravo", "alpha2", "charlie", "default"}},
		{"?sort=createdAt", []string{"bravo", "alpha2", "charlie", "default"}},
		{"?order=desc", []string{"bravo", "alpha2", "charlie", "default"}},
		{"?sort=createdAt&order=asc", []string{"default", "charlie", "alpha2", "bravo"}},
		{"?order=asc", []string{"default", "charlie", "alpha2", "bravo"}},
		{"?sort=name&order=asc", []string{"alpha2", "bravo", "charlie", "default"}},
		{"?sort=name&order=desc", []string{"default", "charlie", "bravo", "alpha2"}},
		{"?sort=name", []string{"default", "charlie", "bravo", "alpha2"}},
		{"?sort=updatedAt&order=asc", []string{"default", "charlie", "bravo", "alpha2"}},
		{"?sort=updatedAt&order=desc", []string{"alpha2", "bravo", "charlie", "default"}},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			_, names, _ := listFolders(t, srv, pid, c.query)
			wantSameJSON(t, "names", names, c.want)
		})
	}
	for _, q := range []string{"?sort=size", "?sort=NAME", "?sort=", "?order=up", "?order=ASC", "?order="} {
		t.Run("refused "+q, func(t *testing.T) {
			param := strings.SplitN(strings.TrimPrefix(q, "?"), "=", 2)[0]
			wantError(t, do(t, srv, "GET", "/v1/profiles/"+pid+"/folders"+q, nil), http.StatusBadRequest, "VALIDATION_ERROR", param)
		})
	}
}

func TestListFoldersLimit(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	pid, _ := createProfile(t, srv, "P")
	for i := 0; i < 11; i++ {
		createFolder(t, srv, pid, fmt.Sprintf("f%02d", i))
	} // 12 folders with the default one
	cases := []struct {
		query    string
		want     int
		lastPage bool
	}{
		{"", 10, false},
		{"?limit=1", 1, false},
		{"?limit=11", 11, false},
		{"?limit=12", 12, true},
		{"?limit=100", 12, true},
	}
	for _, c := range cases {
		t.Run("limit "+c.query, func(t *testing.T) {
			ids, _, next := listFolders(t, srv, pid, c.query)
			assert.Len(t, ids, c.want, "folders")
			assert.Equal(t, c.lastPage, next == nil, "last page (nextCursor = %v)", next)
		})
	}
	for _, v := range []string{"0", "101", "-1", "x", "1.5", "", "1e1", " 5", "99999999999999999999"} {
		t.Run("refused limit="+v, func(t *testing.T) {
			r := do(t, srv, "GET", "/v1/profiles/"+pid+"/folders?limit="+url.QueryEscape(v), nil)
			wantError(t, r, http.StatusBadRequest, "VALIDATION_ERROR", "limit")
		})
	}
}

// TestListFoldersCursorStability walks pages of 3 while folders are added
// and deleted between pages: every folder that existed throughout the walk
// is seen exactly once, and no folder is seen twice.
func TestListFoldersCursorStability(t *testing.T) {
	t.Parallel()
	orders := []string{"", "?sort=createdAt&order=asc", "?sort=name&order=asc", "?sort=name&order=desc", "?sort=updatedAt&order=asc", "?sort=updatedAt&order=desc"}
	for _, order := range orders {
		t.Run("order "+order, func(t *testing.T) {
			t.Parallel()
			clock := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
			srv := newServer(t, mockserver.WithClock(clock))
			pid, def := createProfile(t, srv, "P")
			all := map[string]bool{def: true}
			var created []string
			for i := 0; i < 14; i++ {
				clock.Advance(time.Millisecond)
				id := createFolder(t, srv, pid, fmt.Sprintf("m%02d", i))
				all[id] = true
				created = append(created, id)
			}
			deleted := map[string]bool{}
			seen := map[string]int{}
			query := order
			if query == "" {
				query = "?limit=3"
			} else {
				query += "&limit=3"
			}
			baseQuery := query
			for page := 0; ; page++ {
				require.LessOrEqual(t, page, 20, "the walk does not end")
				ids, _, next := listFolders(t, srv, pid, query)
				for _, id := range ids {
					seen[id]++
				}
				if next == nil {
					break
				}
				// Between pages: add folders at both ends of every order,
				// delete one folder already seen and one not yet seen.
				clock.Advance(time.Millisecond)
				createFolder(t, srv, pid, fmt.Sprintf("a-new-%d", page))
				clock.Advance(time.Millisecond)
				createFolder(t, srv, pid, fmt.Sprintf("z-new-%d", page))
				for _, id := range ids {
					if id != def && !deleted[id] {
						wantNoContent(t, do(t, srv, "DELETE", "/v1/folders/"+id, nil))
						deleted[id] = true
						break
					}
				}
				for i := len(created) - 1; i >= 0; i-- {
					id := created[i]
					if seen[id] == 0 && !deleted[id] && page%2 == 0 {
						wantNoContent(t, do(t, srv, "DELETE", "/v1/folders/"+id, nil))
						deleted[id] = true
						break
					}
				}
				// The cursor alone carries the listing: the order parameters
				// may be repeated or left out.
				if page%2 == 0 {
					query = "?limit=3&cursor=" + url.QueryEscape(*next)
				} else {
					query = baseQuery + "&cursor=" + url.QueryEscape(*next)
				}
			}
			for id, n := range seen {
				assert.LessOrEqual(t, n, 1, "folder %s was listed %d times", id, n)
			}
			for id := range all {
				if deleted[id] {
					continue
				}
				// Folders deleted after being seen were seen once; the others
				// that existed throughout must have been seen.
				assert.Equal(t, 1, seen[id], "times folder %s, which existed throughout the walk, was listed", id)
			}
			for id := range deleted {
				assert.LessOrEqual(t, seen[id], 1, "deleted folder %s listed %d times", id, seen[id])
			}
		})
	}
}

func TestListFoldersBadCursor(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	pid, _ := createProfile(t, srv, "P")
	for i := 0; i < 5; i++ {
		createFolder(t, srv, pid, fmt.Sprintf("f%d", i))
	}
	_, _, next := listFolders(t, srv, pid, "?limit=2&sort=name&order=asc")
	require.NotNil(t, next, "no cursor on the first page")
	real := *next
	// The cursor still works before the tampered ones are tried.
	listFolders(t, srv, pid, "?limit=2&cursor="+url.QueryEscape(real))

	changed := []byte(real)
	mid := len(changed) / 2
	if changed[mid] == '*' {
		changed[mid] = '#'
	} else {
		changed[mid] = '*'
	}
	cases := []struct {
		name, query string
	}{
		{"garbage", "cursor=notacursor!!"},
		{"empty", "cursor="},
		{"base64 of plain text", "cursor=" + base64.RawURLEncoding.EncodeToString([]byte("hello world"))},
		{"base64 of a JSON array", "cursor=" + base64.RawURLEncoding.EncodeToString([]byte(`[1,2]`))},
		{"base64 of an empty object", "cursor=" + base64.RawURLEncoding.EncodeToString([]byte(`{}`))},
		{"truncated", "cursor=" + url.QueryEscape(real[:len(real)/2])},
		{"a character changed", "cursor=" + url.QueryEscape(string(changed))},
		{"doubled", "cursor=" + url.QueryEscape(real+real)},
		{"very long", "cursor=" + strings.Repeat("A", 5000)},
		{"for another sort", "sort=createdAt&cursor=" + url.QueryEscape(real)},
		{"for another order", "order=desc&cursor=" + url.QueryEscape(real)},
		{"for another search", "search=f&cursor=" + url.QueryEscape(real)},
	}
	// A cursor re-encoded with altered fields, where the format can be read.
	if raw, err := base64.RawURLEncoding.DecodeString(real); err == nil {
		var fields map[string]any
		if json.Unmarshal(raw, &fields) == nil {
			for k, v := range fields {
				if s, ok := v.(string); ok && (s == "name" || s == "asc") {
					forged := map[string]any{}
					for k2, v2 := range fields {
						forged[k2] = v2
					}
					forged[k] = "bogus"
					b, _ := json.Marshal(forged)
					cases = append(cases, struct{ name, query string }{"tampered field " + k, "cursor=" + base64.RawURLEncoding.EncodeToString(b)})
				}
			}
		}
	}
	// A cursor belongs to its listing: another profile's folders refuse it.
	other, _ := createProfile(t, srv, "Other")
	for i := 0; i < 5; i++ {
		createFolder(t, srv, other, fmt.Sprintf("g%d", i))
	}
	t.Run("of another profile's listing", func(t *testing.T) {
		r := do(t, srv, "GET", "/v1/profiles/"+other+"/folders?limit=2&cursor="+url.QueryEscape(real), nil)
		wantError(t, r, http.StatusBadRequest, "VALIDATION_ERROR", "cursor")
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := do(t, srv, "GET", "/v1/profiles/"+pid+"/folders?limit=2&"+c.query, nil)
			wantError(t, r, http.StatusBadRequest, "VALIDATION_ERROR", "cursor")
		})
	}
}

func TestGetFolder(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	pid, def := createProfile(t, srv, "P")
	empty := createFolder(t, srv, pid, "Empty")

	t.Run("empty folder has items []", func(t *testing.T) {
		f := doJSON(t, srv, "GET", "/v1/folders/"+empty, nil, http.StatusOK)
		checkFolder(t, "folder", f, pid)
		items, ok := f["items"].([]any)
		assert.True(t, ok && len(items) == 0, "items = %#v, want a present, empty array", f["items"])
	})
	t.Run("items are summaries", func(t *testing.T) {
		text := createTextItem(t, srv, def, "note", "hello there")
		up := jsonObject(t, upload(t, srv, def, "scan.png", pngBytes), http.StatusCreated)
		js := doJSON(t, srv, "POST", "/v1/folders/"+def+"/items",
			map[string]any{"type": "json", "name": "data", "content": map[string]any{"k": "v"}}, http.StatusCreated)

		f := doJSON(t, srv, "GET", "/v1/folders/"+def, nil, http.StatusOK)
		checkFolder(t, "folder", f, pid)
		assert.True(t, f["isDefault"] == true && f["name"] == "default", "default folder = %v", f)
		items := objectsField(t, "folder", f, "items")
		require.True(t, len(items) == 3 && f["itemsCount"] == float64(3), "folder has %d items, itemsCount %v; want 3 and 3", len(items), f["itemsCount"])
		want := []struct {
			id, typ, name, ct string
			size              float64
		}{
			{text, "text", "note", "text/plain", float64(len("hello there"))},
			{up["id"].(string), "file", "scan.png", "image/png", float64(len(pngBytes))},
			{js["id"].(string), "json", "data", "application/json", float64(len(`{"k":"v"}`))},
		}
		for i, it := range items {
			what := fmt.Sprintf("items[%d]", i)
			wantExactKeys(t, what, it, "id", "type", "name", "contentType", "sizeBytes", "createdAt")
			w := want[i]
			assert.True(t, it["id"] == w.id && it["type"] == w.typ && it["name"] == w.name && it["contentType"] == w.ct,
				"%s = %v, want id %s type %s name %s contentType %s", what, it, w.id, w.typ, w.name, w.ct)
			assert.Equal(t, w.size, it["sizeBytes"], "%s sizeBytes", what)
			timeField(t, what, it, "createdAt")
		}
	})
}

func TestDefaultFolderIsProtected(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	pid, def := createProfile(t, srv, "P")
	wantError(t, do(t, srv, "PATCH", "/v1/folders/"+def, map[string]any{"name": "renamed"}), http.StatusBadRequest, "CANNOT_MODIFY_DEFAULT_FOLDER")
	wantError(t, do(t, srv, "DELETE", "/v1/folders/"+def, nil), http.StatusBadRequest, "CANNOT_DELETE_DEFAULT_FOLDER")
	f := doJSON(t, srv, "GET", "/v1/folders/"+def, nil, http.StatusOK)
	assert.True(t, f["name"] == "default" && f["isDefault"] == true, "default folder after refused changes = %v", f)
	ids, _, _ := listFolders(t, srv, pid, "")
	if diff := cmp.Diff([]string{def}, ids); diff != "" {
		t.Errorf("folders, want the default one (-want +got):\n%s", diff)
	}
}

func TestRenameFolder(t *testing.T) {
	t.Parallel()
	clock := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := newServer(t, mockserver.WithClock(clock))
	pid, _ := createProfile(t, srv, "P")
	id := createFolder(t, srv, pid, "Old")
	clock.Advance(time.Hour)
	f := doJSON(t, srv, "PATCH", "/v1/folders/"+id, map[string]any{"name": "New"}, http.StatusOK)
	checkFolder(t, "renamed", f, pid)
	assert.True(t, f["name"] == "New" && f["id"] == id, "rename answer = %v", f)
	u := timeField(t, "renamed", f, "updatedAt")
	assert.True(t, u.Equal(clock.Now()), "updatedAt = %v, want %v", u, clock.Now())
	got := doJSON(t, srv, "GET", "/v1/folders/"+id, nil, http.StatusOK)
	assert.Equal(t, "New", got["name"], "stored name")
}

func TestDeleteFolderDeletesItems(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	pid, def := createProfile(t, srv, "P")
	doomed := createFolder(t, srv, pid, "Doomed")
	a := createTextItem(t, srv, doomed, "a", "alpha")
	b := jsonObject(t, upload(t, srv, doomed, "b.txt", []byte("beta")), http.StatusCreated)["id"].(string)
	keep := createTextItem(t, srv, def, "keep", "kept")

	wantNoContent(t, do(t, srv, "DELETE", "/v1/folders/"+doomed, nil))
	for _, id := range []string{a, b} {
		wantError(t, do(t, srv, "GET", "/v1/items/"+id, nil), http.StatusNotFound, "ITEM_NOT_FOUND", id)
		wantError(t, do(t, srv, "GET", "/storage/items/"+id+"/original", nil), http.StatusNotFound, "ITEM_NOT_FOUND")
		_, ok := srv.Item(id)
		assert.False(t, ok, "the kit still has item %s", id)
	}
	wantError(t, do(t, srv, "GET", "/v1/folders/"+doomed, nil), http.StatusNotFound, "SVC_3009", doomed)
	wantError(t, do(t, srv, "DELETE", "/v1/folders/"+doomed, nil), http.StatusNotFound, "FOLDER_NOT_FOUND", doomed)
	doJSON(t, srv, "GET", "/v1/items/"+keep, nil, http.StatusOK)
	ids, _, _ := listFolders(t, srv, pid, "")
	if diff := cmp.Diff([]string{def}, ids); diff != "" {
		t.Errorf("folders after delete, want only the default (-want +got):\n%s", diff)
	}
	p := doJSON(t, srv, "GET", "/v1/profiles/"+pid, nil, http.StatusOK)
	assert.Equal(t, float64(1), p["itemsCount"], "itemsCount")
	// A deleted item cannot be analysed.
	wantError(t, do(t, srv, "POST", "/v1/analyses/"+pid+"/analyze", targets(a)), http.StatusBadRequest, "INVALID_ITEM_IDS", a)
}

func TestUnknownFolderAndProfile(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	pid, def := createProfile(t, srv, "P")
	const nope = "fld_doesnotexist0000"
	cases := []struct {
		name         string
		method, path string
		body         any
		status       int
		code         string
		names        string
	}{
		{"GET folder", "GET", "/v1/folders/" + nope, nil, 404, "SVC_3009", nope},
		{"PATCH folder", "PATCH", "/v1/folders/" + nope, map[string]any{"name": "x"}, 404, "FOLDER_NOT_FOUND", nope},
		{"DELETE folder", "DELETE", "/v1/folders/" + nope, nil, 404, "FOLDER_NOT_FOUND", nope},
		{"POST item", "POST", "/v1/folders/" + nope + "/items", map[string]any{"type": "text", "content": "x"}, 404, "FOLDER_NOT_FOUND", nope},
		{"GET fd_ folder", "GET", "/v1/folders/fd_nope", nil, 404, "SVC_3009", "fd_nope"},
		{"list folders of unknown profile", "GET", "/v1/profiles/pf_nope/folders", nil, 404, "SVC_3005", "pf_nope"},
		{"list folders of unknown profile with a query", "GET", "/v1/profiles/pf_nope/folders?limit=5&sort=name", nil, 404, "SVC_3005", "pf_nope"},
		{"folder ID used as a profile ID", "GET", "/v1/profiles/" + def + "/folders", nil, 404, "SVC_3005", def},
		{"profile ID used as a folder ID", "GET", "/v1/folders/" + pid, nil, 404, "SVC_3009", pid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, do(t, srv, c.method, c.path, c.body), c.status, c.code, c.names)
		})
	}
}
