package mockserver_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/profilesvc/profilesvc-go/mockserver"
)

// hCheckProfile checks the fields every profile answer has.
func hCheckProfile(t *testing.T, what string, p map[string]any) {
	t.Helper()
	hKeys(t, what, p, "id", "workflowId", "name", "itemsCount", "lastAnalysisAt", "createdAt", "updatedAt")
	hID(t, what, p, "id", "pf_")
	hStr(t, what, p, "workflowId")
	hStr(t, what, p, "name")
	hNum(t, what, p, "itemsCount")
	if v := p["lastAnalysisAt"]; v != nil {
		hTime(t, what, p, "lastAnalysisAt")
	}
	created := hTime(t, what, p, "createdAt")
	updated := hTime(t, what, p, "updatedAt")
	if updated.Before(created) {
		t.Errorf("%s: updatedAt %v is before createdAt %v", what, updated, created)
	}
	if d, ok := p["description"]; ok {
		if _, isStr := d.(string); !isStr {
			t.Errorf("%s: description = %#v, want a string", what, d)
		}
	}
	if m, ok := p["metadata"]; ok && m != nil {
		hMap(t, what, p, "metadata")
	}
}

func TestCreateProfile(t *testing.T) {
	t.Parallel()
	srv := hNew(t)
	meta := map[string]any{"customer": "c-42", "tier": float64(2), "nested": map[string]any{"a": []any{"x"}}}
	p := hJSON(t, srv, "POST", "/v1/workflows/wf_default/profiles",
		map[string]any{"name": "Jane Doe", "description": "KYC file", "metadata": meta}, http.StatusCreated)

	hCheckProfile(t, "profile", p)
	if got := hStr(t, "profile", p, "workflowId"); got != "wf_default" {
		t.Errorf("workflowId = %q, want wf_default", got)
	}
	if got := p["name"]; got != "Jane Doe" {
		t.Errorf("name = %#v, want Jane Doe", got)
	}
	if got := p["description"]; got != "KYC file" {
		t.Errorf("description = %#v, want KYC file", got)
	}
	hEqualJSON(t, "metadata", p["metadata"], meta)
	if got := hNum(t, "profile", p, "itemsCount"); got != 0 {
		t.Errorf("itemsCount = %v, want 0", got)
	}
	hNull(t, "profile", p, "lastAnalysisAt")
	created := hTime(t, "profile", p, "createdAt")
	if d := time.Since(created); d < -time.Minute || d > time.Minute {
		t.Errorf("createdAt %v is not now", created)
	}

	folders := hObjs(t, "profile", p, "folders")
	if len(folders) != 1 {
		t.Fatalf("folders = %v, want exactly the default folder", p["folders"])
	}
	f := folders[0]
	hKeys(t, "folders[0]", f, "id", "name", "isDefault", "itemsCount", "createdAt")
	hID(t, "folders[0]", f, "id", "fld_", "fd_")
	if f["name"] != "default" {
		t.Errorf("default folder name = %#v, want \"default\"", f["name"])
	}
	if f["isDefault"] != true {
		t.Errorf("default folder isDefault = %#v, want true", f["isDefault"])
	}
	if got := hNum(t, "folders[0]", f, "itemsCount"); got != 0 {
		t.Errorf("default folder itemsCount = %v, want 0", got)
	}
	hTime(t, "folders[0]", f, "createdAt")

	// The default folder is a real folder of the profile.
	got := hJSON(t, srv, "GET", "/v1/folders/"+f["id"].(string), nil, http.StatusOK)
	if got["profileId"] != p["id"] || got["isDefault"] != true || got["name"] != "default" {
		t.Errorf("GET default folder = %v", got)
	}

	// A second profile has other, unguessable IDs.
	q := hCreateProfile(t, srv, "Jane Doe")
	if q["id"] == p["id"] {
		t.Errorf("two profiles share the ID %v", q["id"])
	}
	if hObjs(t, "q", q, "folders")[0]["id"] == f["id"] {
		t.Errorf("two default folders share the ID %v", f["id"])
	}
}

func TestCreateProfileNameRules(t *testing.T) {
	t.Parallel()
	srv := hNew(t)
	bad := []struct {
		name string
		body string
	}{
		{"missing", `{}`},
		{"missing with other fields", `{"description":"d","metadata":{}}`},
		{"null", `{"name":null}`},
		{"empty", `{"name":""}`},
		{"whitespace", `{"name":"  \t\n "}`},
		{"256 ASCII characters", fmt.Sprintf(`{"name":%q}`, hRepeat("a", 256))},
		{"256 Korean characters", fmt.Sprintf(`{"name":%q}`, hRepeat("한", 256))},
		{"not a string", `{"name":42}`},
	}
	for _, c := range bad {
		t.Run("refused/"+c.name, func(t *testing.T) {
			r := hSend(t, srv, hReq{Method: "POST", Path: "/v1/workflows/wf_default/profiles", Body: []byte(c.body), ContentType: "application/json"})
			hErr(t, r, http.StatusBadRequest, "VALIDATION_ERROR", "name")
		})
	}
	if n := len(srv.Profiles()); n != 0 {
		t.Errorf("%d profiles after refused creates, want 0", n)
	}
	good := []string{"J", hRepeat("a", 255), hRepeat("한", 255), hRepeat("é", 200) + hRepeat("😀", 55)}
	for _, name := range good {
		t.Run(fmt.Sprintf("accepted/%d runes", len([]rune(name))), func(t *testing.T) {
			p := hJSON(t, srv, "POST", "/v1/workflows/wf_default/profiles", map[string]any{"name": name}, http.StatusCreated)
			if p["name"] != name {
				t.Errorf("name did not round-trip: got %d runes", len([]rune(fmt.Sprint(p["name"]))))
			}
			got := hJSON(t, srv, "GET", "/v1/profiles/"+p["id"].(string), nil, http.StatusOK)
			if got["name"] != name {
				t.Errorf("GET name differs from the created one")
			}
		})
	}
}

func TestCreateProfileUnknownWorkflow(t *testing.T) {
	t.Parallel()
	srv := hNew(t)
	r := hDo(t, srv, "POST", "/v1/workflows/wf_nope/profiles", map[string]any{"name": "x"})
	hErr(t, r, http.StatusNotFound, "WORKFLOW_NOT_FOUND", "wf_nope")
	r = hDo(t, srv, "GET", "/v1/workflows/wf_nope/profiles", nil)
	hErr(t, r, http.StatusNotFound, "WORKFLOW_NOT_FOUND", "wf_nope")
	if n := len(srv.Profiles()); n != 0 {
		t.Errorf("%d profiles, want 0", n)
	}
}

func TestGetProfile(t *testing.T) {
	t.Parallel()
	srv := hNew(t)
	created := hJSON(t, srv, "POST", "/v1/workflows/wf_default/profiles",
		map[string]any{"name": "P", "description": "D", "metadata": map[string]any{"k": "v"}}, http.StatusCreated)
	id := created["id"].(string)
	got := hJSON(t, srv, "GET", "/v1/profiles/"+id, nil, http.StatusOK)
	hCheckProfile(t, "GET profile", got)
	hNoKeyIn(t, "GET profile", got, "folders")
	for _, k := range []string{"id", "workflowId", "name", "description", "metadata", "itemsCount", "lastAnalysisAt", "createdAt", "updatedAt"} {
		hEqualJSON(t, "GET profile "+k, got[k], created[k])
	}
	hErr(t, hDo(t, srv, "GET", "/v1/profiles/pf_doesnotexist", nil), http.StatusNotFound, "PROFILE_NOT_FOUND", "pf_doesnotexist")
}

func TestUpdateProfile(t *testing.T) {
	t.Parallel()
	clock := mockserver.NewFakeClock(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
	srv := hNew(t, mockserver.WithClock(clock))
	p := hJSON(t, srv, "POST", "/v1/workflows/wf_default/profiles", map[string]any{
		"name": "Before", "description": "old", "metadata": map[string]any{"a": float64(1), "b": map[string]any{"c": float64(2)}},
	}, http.StatusCreated)
	id := p["id"].(string)
	clock.Advance(time.Minute)

	t.Run("metadata replaced whole", func(t *testing.T) {
		got := hJSON(t, srv, "PATCH", "/v1/profiles/"+id, map[string]any{"metadata": map[string]any{"z": "new"}}, http.StatusOK)
		hCheckProfile(t, "update answer", got)
		hNoKeyIn(t, "update answer", got, "folders")
		hEqualJSON(t, "metadata after update", got["metadata"], map[string]any{"z": "new"})
		if got["name"] != "Before" || got["description"] != "old" {
			t.Errorf("fields not in the body changed: name %v description %v", got["name"], got["description"])
		}
		if u := hTime(t, "update", got, "updatedAt"); !u.Equal(clock.Now()) {
			t.Errorf("updatedAt = %v, want the time of the update %v", u, clock.Now())
		}
		if c := hTime(t, "update", got, "createdAt"); !c.Equal(clock.Now().Add(-time.Minute)) {
			t.Errorf("createdAt changed to %v", c)
		}
		stored := hJSON(t, srv, "GET", "/v1/profiles/"+id, nil, http.StatusOK)
		hEqualJSON(t, "stored metadata", stored["metadata"], map[string]any{"z": "new"})
	})
	t.Run("name and description", func(t *testing.T) {
		got := hJSON(t, srv, "PATCH", "/v1/profiles/"+id, map[string]any{"name": "After", "description": "new"}, http.StatusOK)
		hNoKeyIn(t, "update answer", got, "folders")
		if got["name"] != "After" || got["description"] != "new" {
			t.Errorf("update answer = %v", got)
		}
		hEqualJSON(t, "metadata untouched", got["metadata"], map[string]any{"z": "new"})
	})
	t.Run("empty body changes nothing", func(t *testing.T) {
		got := hJSON(t, srv, "PATCH", "/v1/profiles/"+id, map[string]any{}, http.StatusOK)
		hNoKeyIn(t, "update answer", got, "folders")
		if got["name"] != "After" {
			t.Errorf("name = %v", got["name"])
		}
	})
	t.Run("bad name", func(t *testing.T) {
		for _, name := range []any{"", "   ", hRepeat("x", 256), nil, 7} {
			hErr(t, hDo(t, srv, "PATCH", "/v1/profiles/"+id, map[string]any{"name": name}), http.StatusBadRequest, "VALIDATION_ERROR", "name")
		}
		got := hJSON(t, srv, "GET", "/v1/profiles/"+id, nil, http.StatusOK)
		if got["name"] != "After" {
			t.Errorf("refused update changed the name to %v", got["name"])
		}
	})
	t.Run("unknown profile", func(t *testing.T) {
		hErr(t, hDo(t, srv, "PATCH", "/v1/profiles/pf_missing", map[string]any{"name": "x"}), http.StatusNotFound, "PROFILE_NOT_FOUND", "pf_missing")
	})
}

func TestDeleteProfile(t *testing.T) {
	t.Parallel()
	srv := hNew(t, mockserver.WithManualAnalyses())
	pid, def := hProfile(t, srv, "Doomed")
	other := hFolder(t, srv, pid, "Other")
	i1 := hTextItem(t, srv, def, "a", "alpha")
	i2 := hTextItem(t, srv, other, "b", "beta")
	done := hStart(t, srv, pid, i1)
	if err := srv.CompleteAnalysis(done); err != nil {
		t.Fatal(err)
	}
	hSend(t, srv, hReq{Method: "GET", Path: "/v1/analyses/" + done + "/report"}) // render and cache a report
	running := hStart(t, srv, pid, i1, i2)

	// A bystander profile is left alone.
	keep, keepFolder := hProfile(t, srv, "Bystander")
	keepItem := hTextItem(t, srv, keepFolder, "c", "gamma")

	hNoBody(t, hDo(t, srv, "DELETE", "/v1/profiles/"+pid, nil))

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
			hErr(t, hDo(t, srv, "GET", c.path, nil), http.StatusNotFound, c.code)
		})
	}
	hErr(t, hDo(t, srv, "DELETE", "/v1/profiles/"+pid, nil), http.StatusNotFound, "PROFILE_NOT_FOUND", pid)
	if err := srv.CompleteAnalysis(running); err == nil {
		t.Errorf("the running analysis of the deleted profile can still be completed")
	}
	if _, ok := srv.Analysis(done); ok {
		t.Errorf("the kit still has analysis %s", done)
	}

	hJSON(t, srv, "GET", "/v1/profiles/"+keep, nil, http.StatusOK)
	hJSON(t, srv, "GET", "/v1/items/"+keepItem, nil, http.StatusOK)
	// The freed items count nothing anywhere; a new analysis elsewhere runs.
	hStart(t, srv, keep, keepItem)
}

func TestProfileItemsCount(t *testing.T) {
	t.Parallel()
	srv := hNew(t)
	pid, def := hProfile(t, srv, "Counter")
	other := hFolder(t, srv, pid, "Second")
	count := func(want float64) {
		t.Helper()
		p := hJSON(t, srv, "GET", "/v1/profiles/"+pid, nil, http.StatusOK)
		if got := hNum(t, "profile", p, "itemsCount"); got != want {
			t.Errorf("itemsCount = %v, want %v", got, want)
		}
	}
	count(0)
	a := hTextItem(t, srv, def, "a", "1")
	hTextItem(t, srv, def, "b", "2")
	count(2)
	hTextItem(t, srv, other, "c", "3")
	r := hUpload(t, srv, other, "d.txt", []byte("4"))
	hObj(t, r, http.StatusCreated)
	count(4)
	hNoBody(t, hDo(t, srv, "DELETE", "/v1/items/"+a, nil))
	count(3)
	hNoBody(t, hDo(t, srv, "DELETE", "/v1/folders/"+other, nil))
	count(1)

	// The folder counts agree.
	f := hJSON(t, srv, "GET", "/v1/folders/"+def, nil, http.StatusOK)
	if got := hNum(t, "folder", f, "itemsCount"); got != 1 {
		t.Errorf("default folder itemsCount = %v, want 1", got)
	}
}

func TestProfileLastAnalysisAt(t *testing.T) {
	t.Parallel()
	clock := mockserver.NewFakeClock(time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC))
	srv := hNew(t, mockserver.WithClock(clock), mockserver.WithManualAnalyses())
	pid, items := hAnalysisFixture(t, srv)
	p := hJSON(t, srv, "GET", "/v1/profiles/"+pid, nil, http.StatusOK)
	hNull(t, "profile before any analysis", p, "lastAnalysisAt")

	clock.Advance(time.Hour)
	first := clock.Now()
	aid := hStart(t, srv, pid, items...)
	p = hJSON(t, srv, "GET", "/v1/profiles/"+pid, nil, http.StatusOK)
	if got := hTime(t, "profile", p, "lastAnalysisAt"); !got.Equal(first) {
		t.Errorf("lastAnalysisAt = %v, want the start %v", got, first)
	}
	// It records the start, not the completion.
	clock.Advance(time.Hour)
	if err := srv.CompleteAnalysis(aid); err != nil {
		t.Fatal(err)
	}
	p = hJSON(t, srv, "GET", "/v1/profiles/"+pid, nil, http.StatusOK)
	if got := hTime(t, "profile", p, "lastAnalysisAt"); !got.Equal(first) {
		t.Errorf("lastAnalysisAt after completion = %v, want the start %v", got, first)
	}
	// A refused start leaves it alone; the next start moves it.
	clock.Advance(time.Hour)
	hErr(t, hDo(t, srv, "POST", "/v1/analyses/"+pid+"/analyze", hTargets("item_nope")), http.StatusBadRequest, "INVALID_ITEM_IDS")
	p = hJSON(t, srv, "GET", "/v1/profiles/"+pid, nil, http.StatusOK)
	if got := hTime(t, "profile", p, "lastAnalysisAt"); !got.Equal(first) {
		t.Errorf("lastAnalysisAt after a refused start = %v, want %v", got, first)
	}
	hStart(t, srv, pid, items[0])
	p = hJSON(t, srv, "GET", "/v1/profiles/"+pid, nil, http.StatusOK)
	if got := hTime(t, "profile", p, "lastAnalysisAt"); !got.Equal(clock.Now()) {
		t.Errorf("lastAnalysisAt after the second start = %v, want %v", got, clock.Now())
	}
}

func TestListProfiles(t *testing.T) {
	t.Parallel()
	clock := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := hNew(t, mockserver.WithClock(clock), mockserver.WithWorkflows(mockserver.Workflow{ID: "wf_other", Name: "Other"}))
	names := []string{"Charlie", "alpha one", "Bravo", "ALPHA two", "delta"}
	ids := map[string]string{}
	for _, n := range names {
		clock.Advance(time.Second)
		ids[n] = hCreateProfile(t, srv, n)["id"].(string)
	}
	clock.Advance(time.Second)
	otherWF := hJSON(t, srv, "POST", "/v1/workflows/wf_other/profiles", map[string]any{"name": "alpha elsewhere"}, http.StatusCreated)

	list := func(query string) map[string]any {
		t.Helper()
		page := hJSON(t, srv, "GET", "/v1/workflows/wf_default/profiles"+query, nil, http.StatusOK)
		hExactKeys(t, "page", page, "count", "nextCursor", "items")
		items := hObjs(t, "page", page, "items")
		if got := hNum(t, "page", page, "count"); int(got) != len(items) {
			t.Errorf("count = %v, but %d items", got, len(items))
		}
		for i, p := range items {
			hCheckProfile(t, fmt.Sprintf("items[%d]", i), p)
			hNoKeyIn(t, "listed profile", p, "folders")
			if p["id"] == otherWF["id"] {
				t.Errorf("a profile of wf_other is listed under wf_default")
			}
		}
		return page
	}
	namesOf := func(page map[string]any) []string {
		var out []string
		for _, p := range hObjs(t, "page", page, "items") {
			out = append(out, p["name"].(string))
		}
		return out
	}

	t.Run("default order is newest first", func(t *testing.T) {
		page := list("")
		hNull(t, "last page", page, "nextCursor")
		hEqualJSON(t, "names", namesOf(page), []string{"delta", "ALPHA two", "Bravo", "alpha one", "Charlie"})
	})
	t.Run("paging", func(t *testing.T) {
		var seen []string
		query := "?limit=2&sort=name&order=asc"
		for pages := 0; ; pages++ {
			if pages > 5 {
				t.Fatal("paging does not end")
			}
			page := list(query)
			seen = append(seen, namesOf(page)...)
			next, ok := page["nextCursor"].(string)
			if !ok {
				hNull(t, "last page", page, "nextCursor")
				break
			}
			if n := len(hObjs(t, "page", page, "items")); n != 2 {
				t.Errorf("a page before the last has %d items, want 2", n)
			}
			query = "?limit=2&cursor=" + url.QueryEscape(next)
		}
		hEqualJSON(t, "names by name", seen, []string{"alpha one", "ALPHA two", "Bravo", "Charlie", "delta"})
	})
	t.Run("search", func(t *testing.T) {
		page := list("?search=ALPHA&sort=createdAt&order=asc")
		hEqualJSON(t, "search ALPHA", namesOf(page), []string{"alpha one", "ALPHA two"})
		page = list("?search=" + url.QueryEscape("a t"))
		hEqualJSON(t, "search 'a t'", namesOf(page), []string{"ALPHA two"})
		page = list("?search=zzz")
		if hNum(t, "page", page, "count") != 0 || len(hArr(t, "page", page, "items")) != 0 {
			t.Errorf("search zzz = %v, want an empty page", page)
		}
		hNull(t, "empty page", page, "nextCursor")
	})
	t.Run("other workflow", func(t *testing.T) {
		page := hJSON(t, srv, "GET", "/v1/workflows/wf_other/profiles", nil, http.StatusOK)
		items := hObjs(t, "page", page, "items")
		if len(items) != 1 || items[0]["id"] != otherWF["id"] {
			t.Errorf("wf_other lists %v, want only its own profile", page["items"])
		}
	})
	t.Run("bad query", func(t *testing.T) {
		for _, q := range []string{"?limit=0", "?limit=101", "?sort=size", "?order=up", "?cursor=garbage", "?bogus=1"} {
			r := hDo(t, srv, "GET", "/v1/workflows/wf_default/profiles"+q, nil)
			hErr(t, r, http.StatusBadRequest, "VALIDATION_ERROR", strings.SplitN(strings.TrimPrefix(q, "?"), "=", 2)[0])
		}
	})
}
