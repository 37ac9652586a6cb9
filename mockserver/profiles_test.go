package mockserver_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/mockserver"
)

func TestCreateProfile(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	meta := map[string]any{"customer": "c-42", "tier": float64(2), "nested": map[string]any{"a": []any{"x"}}}
	p := doJSON(t, srv, "POST", "/v1/workflows/wf_default/profiles",
		map[string]any{"name": "Jane Doe", "description": "KYC file", "metadata": meta}, http.StatusCreated)

	checkProfile(t, "profile", p)
	assert.Equal(t, "wf_default", stringField(t, "profile", p, "workflowId"), "workflowId")
	assert.Equal(t, "Jane Doe", p["name"], "name")
	assert.Equal(t, "KYC file", p["description"], "description")
	wantSameJSON(t, "metadata", p["metadata"], meta)
	assert.Equal(t, 0.0, numberField(t, "profile", p, "itemsCount"), "itemsCount")
	wantNull(t, "profile", p, "lastAnalysisAt")
	created := timeField(t, "profile", p, "createdAt")
	assert.WithinDuration(t, time.Now(), created, time.Minute, "createdAt %v is not now", created)

	folders := objectsField(t, "profile", p, "folders")
	require.Len(t, folders, 1, "folders = %v, want exactly the default folder", p["folders"])
	f := folders[0]
	wantKeys(t, "folders[0]", f, "id", "name", "isDefault", "itemsCount", "createdAt")
	idField(t, "folders[0]", f, "id", "fld_", "fd_")
	assert.Equal(t, "default", f["name"], "default folder name")
	assert.Equal(t, true, f["isDefault"], "default folder isDefault")
	assert.Equal(t, 0.0, numberField(t, "folders[0]", f, "itemsCount"), "default folder itemsCount")
	timeField(t, "folders[0]", f, "createdAt")

	// The default folder is a real folder of the profile.
	got := doJSON(t, srv, "GET", "/v1/folders/"+f["id"].(string), nil, http.StatusOK)
	assert.True(t, got["profileId"] == p["id"] && got["isDefault"] == true && got["name"] == "default", "GET default folder = %v", got)

	// A second profile has other, unguessable IDs.
	q := postProfile(t, srv, "Jane Doe")
	assert.NotEqual(t, p["id"], q["id"], "two profiles share the ID %v", q["id"])
	assert.NotEqual(t, f["id"], objectsField(t, "q", q, "folders")[0]["id"], "two default folders share the ID %v", f["id"])
}

func TestCreateProfileNameRules(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	bad := []struct {
		name string
		body string
	}{
		{"missing", `{}`},
		{"missing with other fields", `{"description":"d","metadata":{}}`},
		{"null", `{"name":null}`},
		{"empty", `{"name":""}`},
		{"whitespace", `{"name":"  \t\n "}`},
		{"256 ASCII characters", fmt.Sprintf(`{"name":%q}`, strings.Repeat("a", 256))},
		{"256 Korean characters", fmt.Sprintf(`{"name":%q}`, strings.Repeat("한", 256))},
		{"not a string", `{"name":42}`},
	}
	for _, c := range bad {
		t.Run("refused/"+c.name, func(t *testing.T) {
			r := send(t, srv, request{Method: "POST", Path: "/v1/workflows/wf_default/profiles", Body: []byte(c.body), ContentType: "application/json"})
			wantError(t, r, http.StatusBadRequest, "VALIDATION_ERROR", "name")
		})
	}
	assert.Empty(t, srv.Profiles(), "profiles after refused creates")
	good := []string{"J", strings.Repeat("a", 255), strings.Repeat("한", 255), strings.Repeat("é", 200) + strings.Repeat("😀", 55)}
	for _, name := range good {
		t.Run(fmt.Sprintf("accepted/%d runes", len([]rune(name))), func(t *testing.T) {
			p := doJSON(t, srv, "POST", "/v1/workflows/wf_default/profiles", map[string]any{"name": name}, http.StatusCreated)
			assert.Equal(t, name, p["name"], "name did not round-trip: got %d runes", len([]rune(fmt.Sprint(p["name"]))))
			got := doJSON(t, srv, "GET", "/v1/profiles/"+p["id"].(string), nil, http.StatusOK)
			assert.Equal(t, name, got["name"], "GET name differs from the created one")
		})
	}
}

func TestCreateProfileUnknownWorkflow(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	r := do(t, srv, "POST", "/v1/workflows/wf_nope/profiles", map[string]any{"name": "x"})
	wantError(t, r, http.StatusNotFound, "WORKFLOW_NOT_FOUND", "wf_nope")
	r = do(t, srv, "GET", "/v1/workflows/wf_nope/profiles", nil)
	wantError(t, r, http.StatusNotFound, "WORKFLOW_NOT_FOUND", "wf_nope")
	assert.Empty(t, srv.Profiles(), "profiles")
}

func TestGetProfile(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	created := doJSON(t, srv, "POST", "/v1/workflows/wf_default/profiles",
		map[string]any{"name": "P", "description": "D", "metadata": map[string]any{"k": "v"}}, http.StatusCreated)
	id := created["id"].(string)
	got := doJSON(t, srv, "GET", "/v1/profiles/"+id, nil, http.StatusOK)
	checkProfile(t, "GET profile", got)
	wantNoKey(t, "GET profile", got, "folders")
	for _, k := range []string{"id", "workflowId", "name", "description", "metadata", "itemsCount", "lastAnalysisAt", "createdAt", "updatedAt"} {
		wantSameJSON(t, "GET profile "+k, got[k], created[k])
	}
	wantError(t, do(t, srv, "GET", "/v1/profiles/pf_doesnotexist", nil), http.StatusNotFound, "PROFILE_NOT_FOUND", "pf_doesnotexist")
}

func TestUpdateProfile(t *testing.T) {
	t.Parallel()
	clock := mockserver.NewFakeClock(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
	srv := newServer(t, mockserver.WithClock(clock))
	p := doJSON(t, srv, "POST", "/v1/workflows/wf_default/profiles", map[string]any{
		"name": "Before", "description": "old", "metadata": map[string]any{"a": float64(1), "b": map[string]any{"c": float64(2)}},
	}, http.StatusCreated)
	id := p["id"].(string)
	clock.Advance(time.Minute)

	t.Run("metadata replaced whole", func(t *testing.T) {
		got := doJSON(t, srv, "PATCH", "/v1/profiles/"+id, map[string]any{"metadata": map[string]any{"z": "new"}}, http.StatusOK)
		checkProfile(t, "update answer", got)
		wantNoKey(t, "update answer", got, "folders")
		wantSameJSON(t, "metadata after update", got["metadata"], map[string]any{"z": "new"})
		assert.True(t, got["name"] == "Before" && got["description"] == "old", "fields not in the body changed: name %v description %v", got["name"], got["description"])
		u := timeField(t, "update", got, "updatedAt")
		assert.True(t, u.Equal(clock.Now()), "updatedAt = %v, want the time of the update %v", u, clock.Now())
		c := timeField(t, "update", got, "createdAt")
		assert.True(t, c.Equal(clock.Now().Add(-time.Minute)), "createdAt changed to %v", c)
		stored := doJSON(t, srv, "GET", "/v1/profiles/"+id, nil, http.StatusOK)
		wantSameJSON(t, "stored metadata", stored["metadata"], map[string]any{"z": "new"})
	})
	t.Run("name and description", func(t *testing.T) {
		got := doJSON(t, srv, "PATCH", "/v1/profiles/"+id, map[string]any{"name": "After", "description": "new"}, http.StatusOK)
		wantNoKey(t, "update answer", got, "folders")
		assert.True(t, got["name"] == "After" && got["description"] == "new", "update answer = %v", got)
		wantSameJSON(t, "metadata untouched", got["metadata"], map[string]any{"z": "new"})
	})
	t.Run("empty body changes nothing", func(t *testing.T) {
		got := doJSON(t, srv, "PATCH", "/v1/profiles/"+id, map[string]any{}, http.StatusOK)
		wantNoKey(t, "update answer", got, "folders")
		assert.Equal(t, "After", got["name"], "name")
	})
	t.Run("bad name", func(t *testing.T) {
		for _, name := range []any{"", "   ", strings.Repeat("x", 256), nil, 7} {
			wantError(t, do(t, srv, "PATCH", "/v1/profiles/"+id, map[string]any{"name": name}), http.StatusBadRequest, "VALIDATION_ERROR", "name")
		}
		got := doJSON(t, srv, "GET", "/v1/profiles/"+id, nil, http.StatusOK)
		assert.Equal(t, "After", got["name"], "name after refused updates")
	})
	t.Run("unknown profile", func(t *testing.T) {
		wantError(t, do(t, srv, "PATCH", "/v1/profiles/pf_missing", map[string]any{"name": "x"}), http.StatusNotFound, "PROFILE_NOT_FOUND", "pf_missing")
	})
}

func TestDeleteProfile(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithManualAnalyses())
	pid, def := createProfile(t, srv, "Doomed")
	other := createFolder(t, srv, pid, "Other")
	i1 := createTextItem(t, srv, def, "a", "alpha")
	i2 := createTextItem(t, srv, other, "b", "beta")
	done := startAnalysis(t, srv, pid, i1)
	require.NoError(t, srv.CompleteAnalysis(done))
	send(t, srv, request{Method: "GET", Path: "/v1/analyses/" + done + "/report"}) // render and cache a report
	running := startAnalysis(t, srv, pid, i1, i2)

	// A bystander profile is left alone.
	keep, keepFolder := createProfile(t, srv, "Bystander")
	keepItem := createTextItem(t, srv, keepFolder, "c", "gamma")

	wantNoContent(t, do(t, srv, "DELETE", "/v1/profiles/"+pid, nil))

	checks := []struct {
		path, code string
	}{
		{"/v1/profiles/" + pid, "PROFILE_NOT_FOUND"},
		{"/v1/profiles/" + pid + "/folders", "SVC_3005"},
		{"/v1/profiles/" + pid + "/analyses", "PROFILE_NOT_FOUND"},
		{"/v1/folders/" + def, "SVC_3009"},
		{"/v1/folders/" + other, "SVC_3009"},
		{"/v1/items/" + i1, "ITEM_NOT_FOUND"},
		{"/v1/items/" + i2, "ITEM_NOT_FOUND"},
		{"/storage/items/" + i1 + "/original", "ITEM_NOT_FOUND"},
		{"/v1/analyses/" + done, "ANALYSIS_NOT_FOUND"},
		{"/v1/analyses/" + done + "/report", "ANALYSIS_NOT_FOUND"},
		{"/v1/analyses/" + running, "ANALYSIS_NOT_FOUND"},
	}
	for _, c := range checks {
		t.Run("GET "+c.path, func(t *testing.T) {
			wantError(t, do(t, srv, "GET", c.path, nil), http.StatusNotFound, c.code)
		})
	}
	wantError(t, do(t, srv, "DELETE", "/v1/profiles/"+pid, nil), http.StatusNotFound, "PROFILE_NOT_FOUND", pid)
	assert.Error(t, srv.CompleteAnalysis(running), "the running analysis of the deleted profile can still be completed")
	_, ok := srv.Analysis(done)
	assert.False(t, ok, "the kit still has analysis %s", done)

	doJSON(t, srv, "GET", "/v1/profiles/"+keep, nil, http.StatusOK)
	doJSON(t, srv, "GET", "/v1/items/"+keepItem, nil, http.StatusOK)
	// The freed items count nothing anywhere; a new analysis elsewhere runs.
	startAnalysis(t, srv, keep, keepItem)
}

func TestProfileItemsCount(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	pid, def := createProfile(t, srv, "Counter")
	other := createFolder(t, srv, pid, "Second")
	count := func(want float64) {
		t.Helper()
		p := doJSON(t, srv, "GET", "/v1/profiles/"+pid, nil, http.StatusOK)
		assert.Equal(t, want, numberField(t, "profile", p, "itemsCount"), "itemsCount")
	}
	count(0)
	a := createTextItem(t, srv, def, "a", "1")
	createTextItem(t, srv, def, "b", "2")
	count(2)
	createTextItem(t, srv, other, "c", "3")
	r := upload(t, srv, other, "d.txt", []byte("4"))
	jsonObject(t, r, http.StatusCreated)
	count(4)
	wantNoContent(t, do(t, srv, "DELETE", "/v1/items/"+a, nil))
	count(3)
	wantNoContent(t, do(t, srv, "DELETE", "/v1/folders/"+other, nil))
	count(1)

	// The folder counts agree.
	f := doJSON(t, srv, "GET", "/v1/folders/"+def, nil, http.StatusOK)
	assert.Equal(t, 1.0, numberField(t, "folder", f, "itemsCount"), "default folder itemsCount")
}

func TestProfileLastAnalysisAt(t *testing.T) {
	t.Parallel()
	clock := mockserver.NewFakeClock(time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC))
	srv := newServer(t, mockserver.WithClock(clock), mockserver.WithManualAnalyses())
	pid, items := analysisFixture(t, srv)
	p := doJSON(t, srv, "GET", "/v1/profiles/"+pid, nil, http.StatusOK)
	wantNull(t, "profile before any analysis", p, "lastAnalysisAt")

	clock.Advance(time.Hour)
	first := clock.Now()
	aid := startAnalysis(t, srv, pid, items...)
	p = doJSON(t, srv, "GET", "/v1/profiles/"+pid, nil, http.StatusOK)
	got := timeField(t, "profile", p, "lastAnalysisAt")
	assert.True(t, got.Equal(first), "lastAnalysisAt = %v, want the start %v", got, first)
	// It records the start, not the completion.
	clock.Advance(time.Hour)
	require.NoError(t, srv.CompleteAnalysis(aid))
	p = doJSON(t, srv, "GET", "/v1/profiles/"+pid, nil, http.StatusOK)
	got = timeField(t, "profile", p, "lastAnalysisAt")
	assert.True(t, got.Equal(first), "lastAnalysisAt after completion = %v, want the start %v", got, first)
	// A refused start leaves it alone; the next start moves it.
	clock.Advance(time.Hour)
	wantError(t, do(t, srv, "POST", "/v1/analyses/"+pid+"/analyze", targets("item_nope")), http.StatusBadRequest, "INVALID_ITEM_IDS")
	p = doJSON(t, srv, "GET", "/v1/profiles/"+pid, nil, http.StatusOK)
	got = timeField(t, "profile", p, "lastAnalysisAt")
	assert.True(t, got.Equal(first), "lastAnalysisAt after a refused start = %v, want %v", got, first)
	startAnalysis(t, srv, pid, items[0])
	p = doJSON(t, srv, "GET", "/v1/profiles/"+pid, nil, http.StatusOK)
	got = timeField(t, "profile", p, "lastAnalysisAt")
	assert.True(t, got.Equal(clock.Now()), "lastAnalysisAt after the second start = %v, want %v", got, clock.Now())
}

func TestListProfiles(t *testing.T) {
	t.Parallel()
	clock := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := newServer(t, mockserver.WithClock(clock), mockserver.WithWorkflows(mockserver.Workflow{ID: "wf_other", Name: "Other"}))
	names := []string{"Charlie", "alpha one", "Bravo", "ALPHA two", "delta"}
	ids := map[string]string{}
	for _, n := range names {
		clock.Advance(time.Second)
		ids[n] = postProfile(t, srv, n)["id"].(string)
	}
	clock.Advance(time.Second)
	otherWF := doJSON(t, srv, "POST", "/v1/workflows/wf_other/profiles", map[string]any{"name": "alpha elsewhere"}, http.StatusCreated)

	list := func(query string) map[string]any {
		t.Helper()
		page := doJSON(t, srv, "GET", "/v1/workflows/wf_default/profiles"+query, nil, http.StatusOK)
		wantExactKeys(t, "page", page, "count", "nextCursor", "items")
		items := objectsField(t, "page", page, "items")
		count := numberField(t, "page", page, "count")
		assert.Equal(t, len(items), int(count), "count = %v, but %d items", count, len(items))
		for i, p := range items {
			checkProfile(t, fmt.Sprintf("items[%d]", i), p)
			wantNoKey(t, "listed profile", p, "folders")
			assert.NotEqual(t, otherWF["id"], p["id"], "a profile of wf_other is listed under wf_default")
		}
		return page
	}
	namesOf := func(page map[string]any) []string {
		var out []string
		for _, p := range objectsField(t, "page", page, "items") {
			out = append(out, p["name"].(string))
		}
		return out
	}

	t.Run("default order is newest first", func(t *testing.T) {
		page := list("")
		wantNull(t, "last page", page, "nextCursor")
		wantSameJSON(t, "names", namesOf(page), []string{"delta", "ALPHA two", "Bravo", "alpha one", "Charlie"})
	})
	t.Run("paging", func(t *testing.T) {
		var seen []string
		query := "?limit=2&sort=name&order=asc"
		for pages := 0; ; pages++ {
			require.LessOrEqual(t, pages, 5, "paging does not end")
			page := list(query)
			seen = append(seen, namesOf(page)...)
			next, ok := page["nextCursor"].(string)
			if !ok {
				wantNull(t, "last page", page, "nextCursor")
				break
			}
			assert.Len(t, objectsField(t, "page", page, "items"), 2, "items of a page before the last")
			query = "?limit=2&cursor=" + url.QueryEscape(next)
		}
		wantSameJSON(t, "names by name", seen, []string{"alpha one", "ALPHA two", "Bravo", "Charlie", "delta"})
	})
	t.Run("search", func(t *testing.T) {
		page := list("?search=ALPHA&sort=createdAt&order=asc")
		wantSameJSON(t, "search ALPHA", namesOf(page), []string{"alpha one", "ALPHA two"})
		page = list("?search=" + url.QueryEscape("a t"))
		wantSameJSON(t, "search 'a t'", namesOf(page), []string{"ALPHA two"})
		page = list("?search=zzz")
		assert.True(t, numberField(t, "page", page, "count") == 0 && len(arrayField(t, "page", page, "items")) == 0, "search zzz = %v, want an empty page", page)
		wantNull(t, "empty page", page, "nextCursor")
	})
	t.Run("other workflow", func(t *testing.T) {
		page := doJSON(t, srv, "GET", "/v1/workflows/wf_other/profiles", nil, http.StatusOK)
		items := objectsField(t, "page", page, "items")
		assert.True(t, len(items) == 1 && items[0]["id"] == otherWF["id"], "wf_other lists %v, want only its own profile", page["items"])
	})
	t.Run("bad query", func(t *testing.T) {
		for _, q := range []string{"?limit=0", "?limit=101", "?sort=size", "?order=up", "?cursor=garbage", "?bogus=1"} {
			r := do(t, srv, "GET", "/v1/workflows/wf_default/profiles"+q, nil)
			wantError(t, r, http.StatusBadRequest, "VALIDATION_ERROR", strings.SplitN(strings.TrimPrefix(q, "?"), "=", 2)[0])
		}
	})
}
