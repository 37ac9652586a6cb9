package mockserver_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/mockserver"
)

// authRoutes lists a request on every route family: published, inferred,
// storage artifacts and the /_mock/ control API, with real IDs so that only
// the key can be what is wrong.
func authRoutes(t *testing.T, srv *mockserver.Server) []request {
	t.Helper()
	pid, fid := createProfile(t, srv, "Auth subject")
	iid := createTextItem(t, srv, fid, "note", "hello")
	aid := startAnalysis(t, srv, pid, iid)
	require.NoError(t, srv.CompleteAnalysis(aid))
	j := func(method, path string, body any) request { return request{Method: method, Path: path, JSON: body} }
	return []request{
		// Published.
		j("POST", "/v1/workflows/wf_default/profiles", map[string]any{"name": "x"}),
		j("PATCH", "/v1/profiles/"+pid, map[string]any{"name": "y"}),
		j("DELETE", "/v1/profiles/"+pid, nil),
		j("GET", "/v1/profiles/"+pid+"/folders", nil),
		j("GET", "/v1/folders/"+fid, nil),
		j("PATCH", "/v1/folders/"+fid, map[string]any{"name": "z"}),
		j("DELETE", "/v1/folders/"+fid, nil),
		j("PATCH", "/v1/items/"+iid, map[string]any{"name": "n"}),
		j("POST", "/v1/analyses/"+pid+"/analyze", targets(iid)),
		j("GET", "/v1/analyses/"+aid, nil),
		j("GET", "/v1/analyses/"+aid+"?waitForReport=true&timeoutSeconds=10", nil),
		j("GET", "/v1/analyses/"+aid+"/report", nil),
		j("DELETE", "/v1/analyses/"+aid, nil),
		// Inferred.
		j("GET", "/v1/workflows/wf_default/profiles", nil),
		j("GET", "/v1/profiles/"+pid, nil),
		j("POST", "/v1/profiles/"+pid+"/folders", map[string]any{"name": "f"}),
		j("POST", "/v1/folders/"+fid+"/items", map[string]any{"type": "text", "content": "t"}),
		j("GET", "/v1/items/"+iid, nil),
		j("DELETE", "/v1/items/"+iid, nil),
		j("GET", "/v1/profiles/"+pid+"/analyses", nil),
		// Storage artifacts.
		j("GET", "/storage/items/"+iid+"/original", nil),
		j("GET", "/storage/items/"+iid+"/text", nil),
		// Control API.
		j("POST", "/_mock/reset", nil),
		j("GET", "/_mock/requests", nil),
		j("POST", "/_mock/analyses/"+aid+"/complete", nil),
		j("POST", "/_mock/items/"+iid+"/status", map[string]any{"status": "FAILED"}),
		j("GET", "/_mock/faults", nil),
		j("DELETE", "/_mock/faults", nil),
	}
}

func TestAuthRefusesMissingOrWrongKey(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithManualAnalyses())
	routes := authRoutes(t, srv)
	before := len(srv.Profiles())

	keys := []struct {
		name   string
		key    string
		header http.Header
		msg    string
	}{
		{name: "missing", key: noKey, msg: "x-api-key"},
		{name: "empty", key: noKey, header: http.Header{"X-Api-Key": {""}}, msg: "x-api-key"},
		{name: "wrong UUID", key: "00000000-0000-4000-8000-000000000000", msg: "api key"},
		{name: "not a UUID", key: "let-me-in", msg: "api key"},
		{name: "key in upper case", key: strings.ToUpper(srv.APIKey), msg: "api key"},
		{name: "key with a suffix", key: srv.APIKey + "0", msg: "api key"},
		{name: "key as a bearer token", key: noKey, header: http.Header{"Authorization": {"Bearer " + srv.APIKey}}, msg: "x-api-key"},
	}
	for _, k := range keys {
		for _, r := range routes {
			r := r
			r.Key, r.Header = k.key, k.header
			t.Run(k.name+"/"+r.Method+" "+r.Path, func(t *testing.T) {
				wantError(t, send(t, srv, r), http.StatusUnauthorized, "UNAUTHORIZED", k.msg)
			})
		}
	}
	t.Run("key as a query parameter", func(t *testing.T) {
		r := send(t, srv, request{Method: "GET", Path: "/v1/workflows/wf_default/profiles?x-api-key=" + srv.APIKey, Key: noKey})
		wantError(t, r, http.StatusUnauthorized, "UNAUTHORIZED")
	})

	// Nothing the refused requests asked for happened.
	assert.Len(t, srv.Profiles(), before, "profiles after refused requests")
	for _, r := range routes {
		if r.Method == "GET" && !strings.Contains(r.Path, "waitForReport") {
			got := send(t, srv, r)
			assert.Equal(t, http.StatusOK, got.Status, "%s %s with the key after the refused requests: %s, want 200 (state unchanged)", r.Method, r.Path, got)
		}
	}
}

func TestAuthUnknownRoutes(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	paths := []struct{ method, path string }{
		{"GET", "/"},
		{"GET", "/v1"},
		{"GET", "/v1/"},
		{"GET", "/v1/nothing"},
		{"GET", "/v2/workflows/wf_default/profiles"},
		{"POST", "/v1/profiles"},
		{"GET", "/_mock/nothing"},
		{"GET", "/storage/items"},
		{"DELETE", "/v1/workflows/wf_default/profiles/extra/segments"},
	}
	for _, p := range paths {
		t.Run(p.method+" "+p.path, func(t *testing.T) {
			t.Run("without a key", func(t *testing.T) {
				wantError(t, send(t, srv, request{Method: p.method, Path: p.path, Key: noKey}), http.StatusUnauthorized, "UNAUTHORIZED")
			})
			t.Run("with a wrong key", func(t *testing.T) {
				wantError(t, send(t, srv, request{Method: p.method, Path: p.path, Key: "00000000-0000-4000-8000-000000000000"}), http.StatusUnauthorized, "UNAUTHORIZED")
			})
			t.Run("with the key", func(t *testing.T) {
				wantError(t, send(t, srv, request{Method: p.method, Path: p.path}), http.StatusNotFound, "NOT_FOUND")
			})
		})
	}
}

func TestAuthAcceptsTheKey(t *testing.T) {
	t.Parallel()
	const key = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
	srv := newServer(t, mockserver.WithAPIKey(key))
	require.Equal(t, key, srv.APIKey, "srv.APIKey")
	doJSON(t, srv, "GET", "/v1/workflows/wf_default/profiles", nil, http.StatusOK)
	r := send(t, srv, request{Method: "GET", Path: "/v1/workflows/wf_default/profiles", Key: "3f2504e0-4f89-41d3-9a0c-0305e82c3302"})
	wantError(t, r, http.StatusUnauthorized, "UNAUTHORIZED", "api key")

	// A generated key is a UUID, different per server.
	a, b := newServer(t), newServer(t)
	assert.True(t, a.APIKey != b.APIKey && len(a.APIKey) == 36 && strings.Count(a.APIKey, "-") == 4,
		"generated keys %q and %q: want two different UUIDs", a.APIKey, b.APIKey)
	wantError(t, send(t, a, request{Method: "GET", Path: "/v1/workflows/wf_default/profiles", Key: b.APIKey}), http.StatusUnauthorized, "UNAUTHORIZED")
}
