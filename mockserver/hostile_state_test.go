package mockserver_test

// GET /_mock/state under attack: odd and hostile If-None-Match headers,
// faults that would match it, other tenants, proxy mode, concurrent
// writers, and namespaces large in every direction.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// getState sends GET /_mock/state with If-None-Match (when not "") and
// the key (as request.Key).
func getState(t *testing.T, srv *mockserver.Server, key, ifNoneMatch string) *response {
	t.Helper()
	h := http.Header{}
	if ifNoneMatch != "" {
		h.Set("If-None-Match", ifNoneMatch)
	}
	return send(t, srv, request{Method: "GET", Path: "/_mock/state", Key: key, Header: h})
}

// stateView is the part of GET /_mock/state the tests read.
type stateView struct {
	Version       string
	TotalProfiles int
	Truncated     bool
	Workflows     []struct{ ID string }
	Profiles      []struct {
		ID         string
		Name       string
		ItemsCount int
		Folders    []struct {
			ID         string
			ItemsCount int
			Items      []struct{ ID string }
		}
		Analyses []struct {
			ID       string
			Status   string
			FolderID *string
		}
	}
}

func TestHostileStateETagOddHeaders(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	createProfile(t, srv, "Tagged")
	first := getState(t, srv, "", "")
	require.Equal(t, http.StatusOK, first.Status)
	tag := first.Header.Get("ETag")
	require.True(t, strings.HasPrefix(tag, `"`) && strings.HasSuffix(tag, `"`), "a strong, quoted tag: %q", tag)
	bare := strings.Trim(tag, `"`)

	many := make([]string, 0, 3000)
	for i := range 3000 {
		many = append(many, fmt.Sprintf(`"t%d"`, i))
	}
	tests := []struct {
		name, header string
		want         int
	}{
		{"the tag", tag, 304},
		{"weak", "W/" + tag, 304},
		{"any", "*", 304},
		{"in a list", `"a", ` + tag + `, "b"`, 304},
		{"spaced", "  " + tag + "  ", 304},
		{"last of thousands", strings.Join(many, ",") + "," + tag, 304},
		{"unquoted", bare, 200},
		{"lower-case weak", "w/" + tag, 200},
		{"another", `"x"`, 200},
		{"thousands of others", strings.Join(many, ","), 200},
		{"commas only", ",,,,", 200},
		{"a lone quote", `"`, 200},
		{"W/ alone", "W/", 200},
		{"half a tag", tag[:len(tag)/2], 200},
		{"a tag twice as long", `"` + bare + bare + `"`, 200},
		{"nearly 60 KiB of a tag", `"` + strings.Repeat("a", 60<<10) + `"`, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := getState(t, srv, "", tt.header)
			require.Equal(t, tt.want, r.Status, "%s", r)
			assert.Equal(t, tag, r.Header.Get("ETag"), "the answer names the state's own tag")
			if tt.want == http.StatusNotModified {
				assert.Empty(t, r.Body)
			} else {
				assert.Equal(t, first.Body, r.Body)
			}
		})
	}
	// Two If-None-Match headers: either may name the tag.
	r := send(t, srv, request{Method: "GET", Path: "/_mock/state", Header: http.Header{"If-None-Match": {`"x"`, tag}}})
	assert.Contains(t, []int{200, 304}, r.Status, "%s", r)
	// Control characters, which Go's client will not send: the server
	// refuses the request, never the handler.
	raw := sendRaw(t, srv, "GET", "/_mock/state", map[string]string{"x-api-key": srv.APIKey, "If-None-Match": "\"\x01\x02\""})
	assert.Contains(t, []int{200, 400}, raw.Status, "%s", raw)
	// HEAD: the same status and tag, no body.
	head := send(t, srv, request{Method: "HEAD", Path: "/_mock/state"})
	assert.Equal(t, http.StatusOK, head.Status)
	assert.Equal(t, tag, head.Header.Get("ETag"))
	assert.Empty(t, head.Body)
	head = send(t, srv, request{Method: "HEAD", Path: "/_mock/state", Header: http.Header{"If-None-Match": {tag}}})
	assert.Equal(t, http.StatusNotModified, head.Status)
	// A header beyond the server's bound of headers is refused by the
	// server, not the handler: 431, never a 500.
	huge := getState(t, srv, "", `"`+strings.Repeat("a", 80<<10)+`"`)
	assert.Equal(t, http.StatusRequestHeaderFieldsTooLarge, huge.Status)
}

// Polling the state is a control call: it is never recorded, and no fault
// touches it, whatever the fault's path.
func TestHostileStateNeverRecordedNorFaulted(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	createProfile(t, srv, "Polled")
	tag := getState(t, srv, "", "").Header.Get("ETag")
	for _, path := range []string{"", "/**", "/*", "/*/*", "/_mock/*", "/_mock/state", "/_mock/**", "/_mock/st*", "/*/state", "/_mock/snapshot"} {
		for _, f := range []mockserver.Fault{
			{Path: path, Status: http.StatusInternalServerError},
			{Path: path, Drop: true},
			{Method: "GET", Path: path, Status: http.StatusServiceUnavailable, Probability: 1},
		} {
			_, err := srv.InjectFault(f)
			require.NoError(t, err, "fault %+v", f)
		}
	}
	srv.ClearRequests()
	for range 3 {
		require.Equal(t, http.StatusNotModified, getState(t, srv, "", tag).Status)
		r := getState(t, srv, "", "")
		require.Equal(t, http.StatusOK, r.Status, "%s", r)
		require.Equal(t, tag, r.Header.Get("ETag"))
		require.Equal(t, http.StatusOK, do(t, srv, "GET", "/_mock/snapshot", nil).Status)
	}
	// A wrong key is refused, and not recorded either.
	require.Equal(t, http.StatusUnauthorized, getState(t, srv, "wrong", "").Status)
	assert.Empty(t, srv.Requests(), "the state's reads are not recorded")
	assert.Zero(t, srv.RequestsDropped())
	for _, f := range srv.Faults() {
		assert.Zero(t, f.Times, "no fault was spent")
	}
}

// With WithMultiTenant each key's state is its own: another key's
// profiles never show, its tag is not this key's, and a snapshot restored
// by one key changes that key's namespace only.
func TestHostileStateTenantsIsolated(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithMultiTenant())
	const a, b = "6f1c1b52-4b9e-4d57-9a0e-0c8f4f1d2a3b", "0d7e5c4b-3a2f-4e1d-8c9b-7a6f5e4d3c2b"
	for i := range 3 {
		r := send(t, srv, request{Method: "POST", Path: "/v1/workflows/wf_default/profiles", JSON: map[string]string{"name": fmt.Sprintf("A's %d", i)}, Key: a})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r)
	}
	r := send(t, srv, request{Method: "POST", Path: "/_mock/workflows", JSON: map[string]string{"id": "wf_only_a", "name": "A's own"}, Key: a})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r)
	ra := getState(t, srv, a, "")
	rb := getState(t, srv, b, "")
	assert.Contains(t, string(ra.Body), "wf_only_a")
	assert.NotContains(t, string(rb.Body), "wf_only_a", "b sees none of a's workflows")
	records := send(t, srv, request{Method: "GET", Path: "/_mock/requests", Key: b})
	require.Equal(t, http.StatusOK, records.Status)
	assert.Contains(t, string(records.Body), `"count":0`, "b's record holds none of a's requests")
	require.Equal(t, http.StatusOK, ra.Status)
	require.Equal(t, http.StatusOK, rb.Status)
	var va, vb stateView
	require.NoError(t, json.Unmarshal(ra.Body, &va))
	require.NoError(t, json.Unmarshal(rb.Body, &vb))
	assert.Len(t, va.Profiles, 3)
	assert.Empty(t, vb.Profiles, "b sees none of a's profiles")
	for _, p := range va.Profiles {
		assert.NotContains(t, string(rb.Body), p.ID)
	}
	assert.Equal(t, http.StatusOK, getState(t, srv, b, ra.Header.Get("ETag")).Status, "a's tag is not b's")

	// a's snapshot restored into b: b has a's profiles, a is untouched.
	snapA := send(t, srv, request{Method: "GET", Path: "/_mock/snapshot", Key: a})
	require.Equal(t, http.StatusOK, snapA.Status)
	beforeA := stateWithoutTaken(t, srv, a)
	r = send(t, srv, request{Method: "PUT", Path: "/_mock/snapshot", Key: b, Body: snapA.Body, ContentType: "application/json"})
	require.Equal(t, http.StatusNoContent, r.Status, "%s", r)
	assert.Equal(t, beforeA, stateWithoutTaken(t, srv, a), "a is untouched")
	assert.Equal(t, beforeA, stateWithoutTaken(t, srv, b), "b holds a's state")
	assert.Empty(t, srv.Profiles(), "the server's own namespace is untouched")
	// Then b changes; a does not.
	r = send(t, srv, request{Method: "POST", Path: "/_mock/reset", Key: b})
	require.Equal(t, http.StatusNoContent, r.Status)
	assert.Equal(t, beforeA, stateWithoutTaken(t, srv, a))
	var after stateView
	require.NoError(t, json.Unmarshal(getState(t, srv, b, "").Body, &after))
	assert.Empty(t, after.Profiles)
}

// A proxy has no simulated state: its state routes answer 409
// PROXY_MODE, whatever the request, and never fail.
func TestHostileStateInProxyMode(t *testing.T) {
	t.Parallel()
	p := proxyToMissingService(t)
	for _, tt := range []struct{ method, target string }{
		{"GET", "/_mock/state"},
		{"HEAD", "/_mock/state"},
		{"GET", "/_mock/snapshot"},
		{"PUT", "/_mock/snapshot"},
	} {
		rec := serveVia(t, p, tt.method, tt.target, p.APIKey)
		assert.Equal(t, http.StatusConflict, rec.Code, "%s %s: %s", tt.method, tt.target, rec.Body)
		if tt.method != "HEAD" {
			assert.Equal(t, mockserver.CodeProxyMode, decodeErrorBody(t, rec.Body.Bytes()).Code)
		}
		assert.NotEmpty(t, rec.Header().Get("X-Request-Id"))
		assert.Equal(t, http.StatusUnauthorized, serveVia(t, p, tt.method, tt.target, "wrong").Code)
	}
	// With a body, odd headers, a query: never a 500.
	req := httptest.NewRequestWithContext(t.Context(), "PUT", "/_mock/snapshot", strings.NewReader(strings.Repeat("[", 1<<20)))
	req.Header.Set("x-api-key", p.APIKey)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	p.Handler().ServeHTTP(rec, req)
	assert.Equal(t, http.StatusConflict, rec.Code)
	req = httptest.NewRequestWithContext(t.Context(), "GET", "/_mock/state", nil)
	req.Header.Set("x-api-key", p.APIKey)
	req.Header.Set("If-None-Match", "*")
	rec = httptest.NewRecorder()
	p.Handler().ServeHTTP(rec, req)
	assert.Equal(t, http.StatusConflict, rec.Code)
	assert.Equal(t, http.StatusBadRequest, serveVia(t, p, "GET", "/_mock/state?x=1", p.APIKey).Code)
	assert.Empty(t, p.Requests(), "the control calls are not in the proxy's record")
}

// checkStateView checks what one answer of GET /_mock/state says of
// itself: counts that agree with the lists, each list within its bound,
// no record twice.
func checkStateView(v *stateView) error {
	seen := map[string]bool{}
	once := func(id string) error {
		if id == "" || seen[id] {
			return fmt.Errorf("ID %q empty or listed twice", id)
		}
		seen[id] = true
		return nil
	}
	if v.TotalProfiles < len(v.Profiles) || len(v.Profiles) > 200 || v.Truncated != (v.TotalProfiles > 200) {
		return fmt.Errorf("totalProfiles %d, truncated %v, %d profiles", v.TotalProfiles, v.Truncated, len(v.Profiles))
	}
	for _, p := range v.Profiles {
		if err := once(p.ID); err != nil {
			return err
		}
		sum := 0
		for _, f := range p.Folders {
			if err := once(f.ID); err != nil {
				return err
			}
			sum += f.ItemsCount
			if len(f.Items) != min(f.ItemsCount, 200) {
				return fmt.Errorf("folder %s: itemsCount %d, %d items", f.ID, f.ItemsCount, len(f.Items))
			}
			for _, it := range f.Items {
				if err := once(it.ID); err != nil {
					return err
				}
			}
		}
		if sum != p.ItemsCount {
			return fmt.Errorf("profile %s: itemsCount %d, its folders' %d", p.ID, p.ItemsCount, sum)
		}
		running := 0
		for _, a := range p.Analyses {
			if err := once(a.ID); err != nil {
				return err
			}
			if a.Status == "pending" || a.Status == "processing" {
				running++
			}
		}
		if running > 1 || len(p.Analyses) > 5 {
			return fmt.Errorf("profile %s: %d analyses, %d running", p.ID, len(p.Analyses), running)
		}
	}
	return nil
}

// The state read while profiles, folders, items and analyses are
// created, run, deleted, reset and restored: every answer 200 or 304,
// each true of itself, and every snapshot taken meanwhile one that holds
// together (another server restores it). Run with -race.
func TestHostileStateConcurrentWithWrites(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	checker := newServer(t)
	hc := newHTTPClient(t)
	pid, fid := createProfile(t, srv, "Seeded")
	createTextItem(t, srv, fid, "passport", identityDoc)
	s0 := do(t, srv, "GET", "/_mock/snapshot", nil).Body

	var errs sync.Map
	fail := func(what string, err error) { errs.Store(what+": "+err.Error(), true) }
	call := func(r request) *response {
		resp, err := sendWith(hc, srv, r)
		if err != nil {
			fail(r.Method+" "+r.Path, err)
			return nil
		}
		if resp.Status >= 500 {
			fail(r.Method+" "+r.Path, fmt.Errorf("%s", resp))
		}
		return resp
	}
	const rounds = 25
	var writers sync.WaitGroup
	for w := range 3 {
		writers.Go(func() {
			for i := range rounds {
				r := call(request{Method: "POST", Path: "/v1/workflows/wf_default/profiles", JSON: map[string]any{"name": fmt.Sprintf("w%d-%d", w, i)}})
				if r == nil || r.Status != http.StatusCreated {
					continue
				}
				var p profilesvc.Profile
				if json.Unmarshal(r.Body, &p) != nil || len(p.Folders) == 0 {
					continue
				}
				r = call(request{Method: "POST", Path: "/v1/folders/" + p.Folders[0].ID + "/items", JSON: map[string]any{"type": "text", "name": "doc", "content": identityDoc}})
				var it profilesvc.Item
				if r == nil || r.Status != http.StatusCreated || json.Unmarshal(r.Body, &it) != nil {
					continue
				}
				call(request{Method: "POST", Path: "/v1/profiles/" + p.ID + "/analyze", JSON: targets(it.ID)})
				call(request{Method: "POST", Path: "/v1/profiles/" + p.ID + "/folders", JSON: map[string]any{"name": "more"}})
				call(request{Method: "POST", Path: "/_mock/items/" + it.ID + "/status", JSON: map[string]any{"status": "PROCESSING"}})
				if i%3 == 0 {
					call(request{Method: "DELETE", Path: "/v1/profiles/" + p.ID})
				}
			}
		})
	}
	writers.Go(func() {
		for i := range rounds {
			switch i % 4 {
			case 0:
				call(request{Method: "POST", Path: "/_mock/reset"})
			case 1:
				call(request{Method: "PUT", Path: "/_mock/snapshot", Body: s0, ContentType: "application/json"})
			case 2:
				call(request{Method: "POST", Path: "/v1/profiles/" + pid + "/analyze", JSON: targets()})
			default:
				call(request{Method: "GET", Path: "/v1/profiles/" + pid})
			}
		}
	})
	done := make(chan struct{})
	go func() { writers.Wait(); close(done) }()

	var readers sync.WaitGroup
	for range 2 {
		readers.Go(func() {
			tag := ""
			for n := 0; ; n++ {
				select {
				case <-done:
					if n > 0 {
						return
					}
				default:
				}
				h := http.Header{}
				if tag != "" {
					h.Set("If-None-Match", tag)
				}
				r := call(request{Method: "GET", Path: "/_mock/state", Header: h})
				if r == nil {
					continue
				}
				switch r.Status {
				case http.StatusNotModified:
					if r.Header.Get("ETag") != tag {
						fail("304", fmt.Errorf("with tag %s, not %s", r.Header.Get("ETag"), tag))
					}
					continue
				case http.StatusOK:
				default:
					fail("GET /_mock/state", fmt.Errorf("%s", r))
					continue
				}
				tag = r.Header.Get("ETag")
				var v stateView
				if err := json.Unmarshal(r.Body, &v); err != nil {
					fail("state JSON", err)
					continue
				}
				if err := checkStateView(&v); err != nil {
					fail("state", err)
				}
				if n%5 == 0 {
					snap := call(request{Method: "GET", Path: "/_mock/snapshot"})
					if snap == nil || snap.Status != http.StatusOK {
						continue
					}
					back, err := sendWith(hc, checker, request{Method: "PUT", Path: "/_mock/snapshot", Body: snap.Body, ContentType: "application/json"})
					if err != nil || back.Status != http.StatusNoContent {
						fail("a snapshot taken under writes restores", fmt.Errorf("%v %v", back, err))
					}
				}
			}
		})
	}
	readers.Wait()
	errs.Range(func(k, _ any) bool {
		t.Error(k)
		return true
	})
}

// stateSize is the size of the state's answer.
func stateSize(t *testing.T, srv *mockserver.Server) int {
	t.Helper()
	r := getState(t, srv, "", "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r)
	return len(r.Body)
}

// The state's answer is bounded in profiles (the newest 200) and in
// items (the first 200 of each folder): past those, more of them cost
// the answer nothing, measured against the same namespace at the bound.
func TestHostileStateBoundedInProfilesAndItems(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	p, err := srv.CreateProfile("wf_default", profilesvc.CreateProfileParams{Name: "Many items"})
	require.NoError(t, err)
	for i := range 200 {
		_, err := srv.AddTextItem(p.Folders[0].ID, fmt.Sprintf("item %04d", i), "x")
		require.NoError(t, err)
	}
	atBound := stateSize(t, srv)
	for i := range 3000 {
		_, err := srv.AddTextItem(p.Folders[0].ID, fmt.Sprintf("item %04d", 200+i), "x")
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, stateSize(t, srv), atBound+16, "3,000 more items in the folder")

	for i := range 199 {
		_, err := srv.CreateProfile("wf_default", profilesvc.CreateProfileParams{Name: fmt.Sprintf("p%04d", i)})
		require.NoError(t, err)
	}
	atBound = stateSize(t, srv)
	for i := range 2000 {
		_, err := srv.CreateProfile("wf_default", profilesvc.CreateProfileParams{Name: fmt.Sprintf("p%04d", 199+i)})
		require.NoError(t, err)
	}
	// The newest 200 are other profiles, of the same size, and the one
	// with 3,200 items is no longer among them.
	assert.Less(t, stateSize(t, srv), atBound, "2,000 more profiles")
	var v stateView
	require.NoError(t, json.Unmarshal(getState(t, srv, "", "").Body, &v))
	assert.Equal(t, 2200, v.TotalProfiles)
	assert.True(t, v.Truncated)
	assert.Len(t, v.Profiles, 200)
}

// The state answers the first 100 folders of a profile (the dashboard
// shows 100), and foldersCount counts them all: a profile of 2,000 empty
// folders makes an answer no larger than one of 100.
func TestHostileStateBoundedInFolders(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	p, err := srv.CreateProfile("wf_default", profilesvc.CreateProfileParams{Name: "Many folders"})
	require.NoError(t, err)
	for i := range 99 {
		_, err := srv.CreateFolder(p.ID, fmt.Sprintf("f%04d", i))
		require.NoError(t, err)
	}
	atHundred := stateSize(t, srv)
	for i := range 1900 {
		_, err := srv.CreateFolder(p.ID, fmt.Sprintf("f%04d", 99+i))
		require.NoError(t, err)
	}
	got := stateSize(t, srv)
	assert.LessOrEqual(t, got, 2*atHundred,
		"GET /_mock/state: %d bytes for a profile of 2,000 empty folders, %d for one of 100: the folders of a profile are not bounded", got, atHundred)
}

// A profile's metadata goes into the state up to 2 KiB of JSON, and is
// left out past it (metadataTruncated): 20 profiles of 256 KiB of
// metadata make an answer as small as 20 of a few bytes.
func TestHostileStateBoundedInMetadata(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	for i := range 20 {
		_, err := srv.CreateProfile("wf_default", profilesvc.CreateProfileParams{Name: fmt.Sprintf("small %d", i), Metadata: map[string]any{"k": "v"}})
		require.NoError(t, err)
	}
	small := stateSize(t, srv)
	do(t, srv, "POST", "/_mock/reset", nil)
	big := strings.Repeat("m", 256<<10)
	for i := range 20 {
		_, err := srv.CreateProfile("wf_default", profilesvc.CreateProfileParams{Name: fmt.Sprintf("large %d", i), Metadata: map[string]any{"k": big}})
		require.NoError(t, err)
	}
	got := stateSize(t, srv)
	assert.LessOrEqual(t, got, small+20*4096,
		"GET /_mock/state: %d bytes for 20 profiles of 256 KiB of metadata, %d for 20 of a few bytes: metadata is not bounded", got, small)
}

// proxyToMissingService is a proxy to a service that answers every
// request 404 NOT_FOUND, closed when the test ends.
func proxyToMissingService(t *testing.T) *mockserver.Proxy {
	t.Helper()
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"error":{"code":"NOT_FOUND","status":404,"message":"no"}}`)
	}))
	t.Cleanup(svc.Close)
	p, err := mockserver.NewProxy(svc.URL)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	return p
}
