package mockserver

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gorilla/mux"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRouteTableMatchesAsGorillaMux holds the route table's matching to
// gorilla/mux's, configured as the mock used it (escaped paths, never
// cleaned; a GET route answers HEAD too): for every route, paths made from
// its template with usual, escaped and malformed segments, under every
// method, find the same route with the same variables, or fail the same
// way, 404 or 405.
func TestRouteTableMatchesAsGorillaMux(t *testing.T) {
	type answer struct {
		route     string // "METHOD template" of the route found
		vars      map[string]string
		knownPath bool // no route, but some route has the path: 405
	}
	gorilla := mux.NewRouter()
	gorilla.UseEncodedPath()
	gorilla.SkipClean(true)
	for _, rt := range routes() {
		methods := []string{rt.method}
		if rt.method == http.MethodGet {
			methods = append(methods, http.MethodHead)
		}
		gorilla.Handle(rt.path, http.HandlerFunc(rt.serve)).Methods(methods...)
	}
	viaGorilla := func(r *http.Request) answer {
		var m mux.RouteMatch
		if !gorilla.Match(r, &m) || m.MatchErr != nil {
			return answer{knownPath: errors.Is(m.MatchErr, mux.ErrMethodMismatch)}
		}
		tpl, _ := m.Route.GetPathTemplate()
		methods, _ := m.Route.GetMethods()
		return answer{route: methods[0] + " " + tpl, vars: m.Vars}
	}
	table := newRouteTable(routes())
	viaTable := func(r *http.Request) answer {
		vars := map[string]string{}
		tr, known := table.match(r.Method, r.URL.EscapedPath(), vars)
		if tr == nil {
			return answer{knownPath: known}
		}
		return answer{route: tr.method + " " + tr.path, vars: vars}
	}

	var paths []string
	for _, rt := range routes() {
		for _, id := range []string{"pf_1", "a%2Fb", "%E2%9C%93", "a b", "a+b", "", "{id}", "a:b"} {
			p := strings.NewReplacer("{workflowId}", id, "{profileId}", id, "{folderId}", id, "{itemId}", id,
				"{analysisId}", id, "{faultId}", id).Replace(rt.path)
			paths = append(paths, p, p+"/", p+"/x", "/"+p, strings.ToUpper(p), strings.Replace(p, "/", "//", 1))
		}
	}
	paths = append(paths, "/", "/v1", "/v1/", "/_mock", "/nothing/at/all", "/a/b/c/d/e/f/g/h/i/j")
	methods := []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "get"}
	matched := 0
	for _, p := range paths {
		for _, method := range methods {
			r := httptest.NewRequest(method, "http://mock.test"+strings.ReplaceAll(p, " ", "%20"), nil)
			want, got := viaGorilla(r), viaTable(r)
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(answer{})); diff != "" {
				t.Errorf("%s %s (-gorilla/mux +route table):\n%s", method, r.URL.EscapedPath(), diff)
			}
			if want.route != "" {
				matched++
			}
		}
	}
	require.NotZero(t, matched, "no path matched a route: the comparison proves nothing")
	assert.Greater(t, matched, len(routes()), "every route matched at least once, HEAD besides")
}

// TestRouteTableRefusesBadTemplates checks that a template the table
// cannot match as gorilla/mux would is refused when the table is built.
func TestRouteTableRefusesBadTemplates(t *testing.T) {
	for _, path := range []string{"v1/x", "/v1/{id:[0-9]+}", "/v1/x{id}", "/v1/{id}x", "/v1/{}", "/a/b/c/d/e/f/g/h/i"} {
		t.Run(path, func(t *testing.T) {
			assert.Panics(t, func() { newRouteTable([]route{{method: "GET", path: path}}) })
		})
	}
}
