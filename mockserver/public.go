package mockserver

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/api"
	"github.com/profilesvc/profilesvc-go/internal/origin"
)

// publicRoute is a route that needs no API key.
type publicRoute struct {
	name    string
	method  string
	handler http.HandlerFunc
}

// publicRoutes are the mock's routes that need no API key, by path, each
// named by its route in internal/apiroutes, which gives its method (GET,
// which answers HEAD too) and path: answered before authentication, with
// no query, never recorded.
var publicRoutes = publicTable(map[string]http.HandlerFunc{
	"getHealth":          handleHealth,
	"getServiceDocument": serveAPIDoc(api.OpenAPI()),
	"getControlDocument": serveAPIDoc(api.MockControl()),
	"getDashboard":       serveDashboardFile("index.html", "text/html; charset=utf-8"),
	"getDashboardScript": serveDashboardFile("app.js", "text/javascript; charset=utf-8"),
	"getDashboardStyle":  serveDashboardFile("style.css", "text/css; charset=utf-8"),
})

// publicTable keys the handlers of public routes, given by route name, by
// their paths.
func publicTable(byName map[string]http.HandlerFunc) map[string]publicRoute {
	out := make(map[string]publicRoute, len(byName))
	for name, h := range byName {
		r := namedRoute(name)
		out[r.Path] = publicRoute{name: name, method: r.Method, handler: h}
	}
	return out
}

// public answers the public routes, and passes every other request on.
func public(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !servePublic(w, r, handleHealth) {
			next.ServeHTTP(w, r)
		}
	})
}

// servePublic answers r if it is for a public route, the health route
// with health (a simulating mock and a proxy say different things about
// themselves), and reports whether it did.
func servePublic(w http.ResponseWriter, r *http.Request, health http.HandlerFunc) bool {
	// By the escaped path, as the router matches: "/_mock%2Fhealth" is
	// one segment, no route's.
	rt, ok := publicRoutes[r.URL.EscapedPath()]
	if !ok {
		return false
	}
	if r.Method != rt.method && (rt.method != http.MethodGet || r.Method != http.MethodHead) {
		writeError(w, errorf(http.StatusMethodNotAllowed, profilesvc.CodeMethodNotAllowed, "method %s is not allowed on %s", r.Method, r.URL.Path))
		return true
	}
	if e := checkQuery(r, nil); e != nil {
		writeError(w, e)
		return true
	}
	if rt.name == "getHealth" {
		health(w, r)
	} else {
		rt.handler(w, r)
	}
	return true
}

// handleHealth says the server is up and which version it runs, for
// container health checks and scripts that wait for the server to start.
func handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "version": profilesvc.Version})
}

// cors answers the preflight requests of the origins WithCORS allows and
// sets the CORS headers of their requests, so that browser code under
// test can call the mock; the headers it may read include
// Content-Disposition and X-Request-Id. Without WithCORS it does nothing.
func cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x := exchangeOf(r)
		origins := x.srv.cfg.corsOrigins
		from := r.Header.Get("Origin")
		if len(origins) == 0 || from == "" {
			next.ServeHTTP(w, r)
			return
		}
		norm, _ := origin.Normal(from)
		allowed := slices.Contains(origins, "*") || (norm != "" && slices.Contains(origins, norm))
		preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
		// A preflight is the browser's, answered here for WithCORS: the
		// service's document does not describe it.
		x.preflight = preflight
		h := w.Header()
		h.Add("Vary", "Origin")
		if !allowed {
			if preflight {
				writeError(w, errorf(http.StatusForbidden, codeOriginNotAllowed, "origin %q is not allowed (WithCORS, -cors)", from))
				return
			}
			next.ServeHTTP(w, r)
			return
		}
		h.Set("Access-Control-Allow-Origin", from)
		if !preflight {
			h.Set("Access-Control-Expose-Headers", "Content-Disposition, Retry-After, X-Request-Id")
			next.ServeHTTP(w, r)
			return
		}
		h.Add("Vary", "Access-Control-Request-Method")
		h.Add("Vary", "Access-Control-Request-Headers")
		h.Set("Access-Control-Allow-Methods", "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS")
		allowHeaders := "x-api-key, content-type"
		if asked := r.Header.Get("Access-Control-Request-Headers"); asked != "" {
			allowHeaders += ", " + strings.ToLower(asked)
		}
		h.Set("Access-Control-Allow-Headers", allowHeaders)
		h.Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
	})
}

// checkCORSOrigins puts the origins WithCORS was given in the form
// browsers send them, or says which one is not an origin.
func checkCORSOrigins(origins []string) ([]string, error) {
	if len(origins) > 0 && !slices.ContainsFunc(origins, func(o string) bool { return o != "" }) {
		return nil, fmt.Errorf("CORS: no origin given: give scheme://host[:port], such as https://app.example, or *")
	}
	out := make([]string, 0, len(origins))
	for _, o := range origins {
		if o == "" {
			continue // "a, b," on a command line
		}
		if o == "*" {
			out = append(out, o)
			continue
		}
		n, ok := origin.Normal(o)
		if !ok {
			return nil, fmt.Errorf("CORS origin %q is not an origin: give scheme://host[:port], such as https://app.example (an international name in its xn-- form), or *", clip(o))
		}
		out = append(out, n)
	}
	return out, nil
}
