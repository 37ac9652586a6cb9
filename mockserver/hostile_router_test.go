package mockserver

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
)

// TestHostileRouterHostileTargets sends hostile request targets on raw
// connections (net/http's client would clean them) and holds every
// answer to the service's JSON error body with a sensible code, an
// X-Request-Id, and no redirect.
func TestHostileRouterHostileTargets(t *testing.T) {
	srv := New()
	defer srv.Close()
	const notFound, anNotFound, notAllowed = profilesvc.CodeNotFound, "ANALYSIS_NOT_FOUND", profilesvc.CodeMethodNotAllowed
	tests := []struct {
		method, target string
		status         int
		code, msgHas   string
	}{
		{"GET", "/v1/analyses/x%2Fy", 404, anNotFound, `"x/y"`},
		{"GET", "/v1/analyses/x%2fy", 404, anNotFound, `"x/y"`},
		{"GET", "/v1/analyses/..", 404, anNotFound, `".."`},
		{"GET", "/v1/analyses/%2e%2e", 404, anNotFound, `".."`},
		{"GET", "/v1/analyses/%2e%2e/report", 404, anNotFound, `".."`},
		{"GET", "/v1/analyses/./report", 404, anNotFound, `"."`},
		{"GET", "/v1//analyses/x", 404, notFound, ""},
		{"GET", "//v1/analyses/x", 404, notFound, ""},
		{"GET", "/v1/analyses/x/", 404, notFound, ""},
		{"GET", "/v1/analyses/", 404, notFound, ""},
		{"GET", "/v1/analyses//report", 404, notFound, ""},
		{"GET", "/v1/analyses/%00", 404, anNotFound, ""},
		{"GET", "/v1/analyses/%ff", 404, anNotFound, ""},
		{"GET", "/v1/analyses/é", 404, anNotFound, `"é"`},
		{"GET", "/v1/analyses/%C3%A9", 404, anNotFound, `"é"`},
		{"GET", "/v1/analyses/x%3Fy", 404, anNotFound, `"x?y"`},
		{"PROPFIND", "/v1/analyses/x", 405, notAllowed, ""},
		{"PROPFIND", "/nope", 404, notFound, ""},
		{"TRACE", "/v1/analyses/x", 405, notAllowed, ""},
		{"OPTIONS", "/v1/analyses/x", 405, notAllowed, ""},
		{"POST", "/v1/analyses/x", 405, notAllowed, ""},
		{"POST", "/v1/analyses/a%2Fb", 405, notAllowed, ""},
		{"DELETE", "/v1/analyses/x/report", 405, notAllowed, ""},
		{"get", "/v1/analyses/x", 405, notAllowed, ""},
		{"GET", "*", 404, notFound, ""},
		{"CONNECT", "mock:80", 404, notFound, ""},
		{"GET", "http://mock/v1/analyses/x", 404, anNotFound, `"x"`},
		{"GET", "http://evil.example/v1/analyses/x", 404, anNotFound, `"x"`},
		{"GET", "/v1/analyses/x?waitForReport=1", 400, profilesvc.CodeValidation, ""},
		{"GET", "/%5Fmock/faults", 404, notFound, ""},
		{"GET", "/_mock/health/", 404, notFound, ""},
		{"GET", "/" + strings.Repeat("a/", 3000), 404, notFound, ""},
		{"GET", "/v1/analyses/" + strings.Repeat("a", 60000), 404, anNotFound, ""},
	}
	for _, tt := range tests {
		name := tt.method + " " + tt.target
		if len(name) > 80 {
			name = name[:80] + "…"
		}
		t.Run(name, func(t *testing.T) {
			a := hostileReq(t, srv, tt.method, tt.target)
			require.Equal(t, tt.status, a.status, "%s: status, want %d: %.200s", name, tt.status, a.body)
			assert.Empty(t, a.header.Get("Location"), "%s: a redirect to %q, want none", name, a.header.Get("Location"))
			assert.True(t, strings.HasPrefix(a.header.Get("X-Request-Id"), "req_"), "%s: no X-Request-Id, want one starting req_", name)
			code, status, ok := hostileErr(a)
			assert.True(t, ok && code == tt.code && status == tt.status, "%s: body %.200s, want the error body with code %s", name, a.body, tt.code)
			if tt.msgHas != "" {
				assert.Contains(t, string(a.body), `analysis \`+tt.msgHas[:len(tt.msgHas)-1]+`\"`, "%s: body %.200s does not name %s, want it named", name, a.body, tt.msgHas)
			}
		})
	}

	// HEAD: the status of GET, no body.
	for _, tt := range []struct {
		target string
		status int
	}{{"/v1/analyses/x", 404}, {"/nope", 404}, {"/v1/analyses/x%2Fy/report", 404}} {
		a := hostileReq(t, srv, "HEAD", tt.target)
		assert.True(t, a.status == tt.status && len(a.body) == 0 && a.header.Get("X-Request-Id") != "",
			"HEAD %s: %d, %d bytes, id %q; want %d, no body and a request ID", tt.target, a.status, len(a.body), a.header.Get("X-Request-Id"), tt.status)
	}
}
