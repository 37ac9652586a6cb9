package mockserver

import (
	"strings"
	"testing"

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
	cases := []struct {
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
	for _, c := range cases {
		a := hostileReq(t, srv, c.method, c.target)
		name := c.method + " " + c.target
		if len(name) > 80 {
			name = name[:80] + "…"
		}
		if a.status != c.status {
			t.Errorf("%s: status %d, want %d: %.200s", name, a.status, c.status, a.body)
			continue
		}
		if a.header.Get("Location") != "" {
			t.Errorf("%s: a redirect to %q", name, a.header.Get("Location"))
		}
		if !strings.HasPrefix(a.header.Get("X-Request-Id"), "req_") {
			t.Errorf("%s: no X-Request-Id", name)
		}
		code, status, ok := hostileErr(a)
		if !ok || code != c.code || status != c.status {
			t.Errorf("%s: body %.200s, want the error body with code %s", name, a.body, c.code)
		}
		if c.msgHas != "" && !strings.Contains(string(a.body), `analysis \`+c.msgHas[:len(c.msgHas)-1]+`\"`) {
			t.Errorf("%s: body %.200s does not name %s", name, a.body, c.msgHas)
		}
	}
	// HEAD: the status of GET, no body.
	for _, c := range []struct {
		target string
		status int
	}{{"/v1/analyses/x", 404}, {"/nope", 404}, {"/v1/analyses/x%2Fy/report", 404}} {
		a := hostileReq(t, srv, "HEAD", c.target)
		if a.status != c.status || len(a.body) != 0 || a.header.Get("X-Request-Id") == "" {
			t.Errorf("HEAD %s: %d, %d bytes, id %q", c.target, a.status, len(a.body), a.header.Get("X-Request-Id"))
		}
	}
}
