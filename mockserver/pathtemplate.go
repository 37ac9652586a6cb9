package mockserver

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/gorilla/mux"
)

// maxPathVars bounds the variables of one route's path template, so that
// an exchange holds their values without an allocation; no route of the
// service has more than one.
const maxPathVars = 2

// pathTemplate is a route's path template, such as
// "/v1/analyses/{analysisId}/report", matched against a request's escaped
// path segment by segment, as gorilla/mux matches "{name}" with its
// default pattern "[^/]+": a variable takes any one non-empty segment,
// still escaped, so that an encoded slash stays inside its segment; any
// other segment must be equal. The path must have as many segments as the
// template: a trailing slash or an empty segment matches nothing.
//
// The router runs it as its routes' matcher (mux.MatcherFunc) in place of
// the regular expression mux compiles from a template, which cost a tenth
// of a request's CPU once tried against every route of the table.
type pathTemplate struct {
	// segments are the template's segments after its leading "/"; a
	// variable's is empty.
	segments []string
	// vars are the variables' names, in order, and at[i] the index in
	// segments of vars[i].
	vars []string
	at   []int
}

// parsePathTemplate reads a route's template. A template that is not one
// (no leading "/", an empty segment, a malformed or repeated variable, a
// variable that is part of a segment, or more than maxPathVars of them)
// is a mistake in the route table, reported as an error.
func parsePathTemplate(tmpl string) (pathTemplate, error) {
	rest, ok := strings.CutPrefix(tmpl, "/")
	if !ok {
		return pathTemplate{}, fmt.Errorf("path template %q does not begin with /", tmpl)
	}
	var t pathTemplate
	for i, seg := range strings.Split(rest, "/") {
		switch {
		case seg == "":
			return pathTemplate{}, fmt.Errorf("path template %q has an empty segment", tmpl)
		case strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}"):
			name := seg[1 : len(seg)-1]
			if name == "" || strings.ContainsAny(name, "{}:/") {
				return pathTemplate{}, fmt.Errorf("path template %q: malformed variable %q", tmpl, seg)
			}
			for _, v := range t.vars {
				if v == name {
					return pathTemplate{}, fmt.Errorf("path template %q names variable %q twice", tmpl, name)
				}
			}
			t.vars = append(t.vars, name)
			t.at = append(t.at, i)
			seg = ""
		case strings.ContainsAny(seg, "{}"):
			return pathTemplate{}, fmt.Errorf("path template %q: a variable must be a whole segment, not %q", tmpl, seg)
		}
		t.segments = append(t.segments, seg)
	}
	if len(t.vars) > maxPathVars {
		return pathTemplate{}, fmt.Errorf("path template %q has %d variables, more than %d", tmpl, len(t.vars), maxPathVars)
	}
	return t, nil
}

// match reports whether the escaped path matches the template and, when
// it does and vals is not nil, puts the variables' values, still escaped,
// in vals in the order of t.vars. It allocates nothing.
func (t *pathTemplate) match(escaped string, vals *[maxPathVars]string) bool {
	rest, ok := strings.CutPrefix(escaped, "/")
	if !ok {
		return false
	}
	v := 0
	for i, want := range t.segments {
		seg, after, more := strings.Cut(rest, "/")
		if more != (i < len(t.segments)-1) || seg == "" {
			return false
		}
		if want == "" {
			if vals != nil {
				vals[v] = seg
			}
			v++
		} else if seg != want {
			return false
		}
		rest = after
	}
	return true
}

// matcher is the template as the router's matcher of a route. It reads
// the escaped path the exchange took once for the request rather than
// escaping it again for every route tried.
func (t *pathTemplate) matcher() mux.MatcherFunc {
	return func(r *http.Request, _ *mux.RouteMatch) bool {
		return t.match(escapedPathOf(r), nil)
	}
}

// escapedPathOf returns the request's escaped path, as the exchange took
// it, or from the URL for a request that has no exchange.
func escapedPathOf(r *http.Request) string {
	if x := exchangeOf(r); x != nil && x.pathTaken {
		return x.path
	}
	return r.URL.EscapedPath()
}
