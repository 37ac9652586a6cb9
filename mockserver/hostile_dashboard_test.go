package mockserver_test

// The dashboard's files as a hostile client asks for them: every method,
// queries, escaped and dotted paths, HEAD.

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/mockserver"
)

func TestHostileDashboardFilesHeadersAndPaths(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithCORS("*"))
	files := map[string]string{"/_mock/ui": "text/html", "/_mock/ui/app.js": "text/javascript", "/_mock/ui/style.css": "text/css"}
	for path, mediaType := range files {
		for _, method := range []string{"GET", "HEAD"} {
			for _, key := range []string{noKey, "", "wrong"} {
				r := send(t, srv, request{Method: method, Path: path, Key: key, Header: http.Header{"Origin": {"https://evil.example"}}})
				require.Equal(t, http.StatusOK, r.Status, "%s %s: %s", method, path, r)
				h := r.Header
				assert.True(t, strings.HasPrefix(h.Get("Content-Type"), mediaType), "%s: %s", path, h.Get("Content-Type"))
				csp := h.Get("Content-Security-Policy")
				for _, want := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'", "connect-src 'self'"} {
					assert.Contains(t, csp, want, "%s", path)
				}
				for _, bad := range []string{"unsafe-inline", "unsafe-eval", "unsafe-hashes", "*", "http:", "https:", "data: 'self'"} {
					assert.NotContains(t, strings.ReplaceAll(csp, "data: blob:", ""), bad, "%s: %s", path, csp)
				}
				assert.Equal(t, "nosniff", h.Get("X-Content-Type-Options"))
				assert.Equal(t, "no-referrer", h.Get("Referrer-Policy"))
				assert.NotEmpty(t, h.Get("X-Request-Id"))
				if method == "HEAD" {
					assert.Empty(t, r.Body)
				} else {
					assert.NotEmpty(t, r.Body)
				}
			}
		}
		for _, method := range []string{"POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PROPFIND"} {
			r := send(t, srv, request{Method: method, Path: path, Key: noKey})
			wantError(t, r, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED")
		}
		for _, q := range []string{"?a", "?a=1", "?key=" + srv.APIKey, "?%", "?;"} {
			r := send(t, srv, request{Method: "GET", Path: path + q, Key: noKey})
			assert.Equal(t, http.StatusBadRequest, r.Status, "%s%s: %s", path, q, r)
		}
		r := send(t, srv, request{Method: "GET", Path: path + "?", Key: noKey})
		assert.Equal(t, http.StatusOK, r.Status, "an empty query")
	}
	// Other spellings of the files' paths are no file: never served,
	// never redirected, never a 500; with a key, 404; without, 401.
	for _, path := range []string{
		"/_mock/ui/", "/_mock/ui%2Fapp.js", "/_mock/ui/../health", "/_mock/ui/./app.js", "/_mock//ui", "/_mock/UI",
		"/_mock/ui/app.js/", "/_mock/ui/app.js%00", "//_mock/ui", "/%5Fmock/ui", "/_mock/ui/%2e%2e/health",
		"/_mock/ui/app.js%3F", "/_mock/ui/style.css/..", "/_mock/ui.js", "/_mock/ui/index.html", "/_mock/ui/..%2Fopenapi.yaml",
	} {
		for key, want := range map[string]int{noKey: http.StatusUnauthorized, "": http.StatusNotFound} {
			r := sendRaw(t, srv, "GET", path, map[string]string{"x-api-key": map[string]string{noKey: "", "": srv.APIKey}[key]})
			if key == noKey {
				r = sendRaw(t, srv, "GET", path, nil)
			}
			assert.Equal(t, want, r.Status, "GET %s (key %v): %s", path, key == "", r)
			assert.Empty(t, r.Header.Get("Location"))
			assert.NotContains(t, string(r.Body), "<html")
		}
	}
}
