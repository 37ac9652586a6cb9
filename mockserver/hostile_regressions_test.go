package mockserver

// Hostile inputs at the edges of the router and of path patterns: a
// request target net/http treats apart, encoded slashes on the public
// routes, escapes of either case, long segments against globs, and a
// malformed RequestMatch pattern; each is held to the answer it must get.

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHostileOptionsStar: "OPTIONS *" reaches the mock's handler (the
// servers disable net/http's general OPTIONS handler) and gets the
// service's error body and a request ID.
func TestHostileOptionsStar(t *testing.T) {
	srv := New()
	defer srv.Close()
	a := hostileReq(t, srv, "OPTIONS", "*")
	assert.NotEmpty(t, a.header.Get("X-Request-Id"), "OPTIONS *: %d with no X-Request-Id: the mock never saw it, want a request ID", a.status)
	_, _, ok := hostileErr(a)
	assert.True(t, ok, "OPTIONS *: %d %q, want the service's error body (404 NOT_FOUND)", a.status, a.body)
}

// TestHostilePublicRouteEncodedSlash: an encoded slash stays inside its
// segment on the public routes too: "/_mock%2Fhealth" is no route's.
func TestHostilePublicRouteEncodedSlash(t *testing.T) {
	srv := New()
	defer srv.Close()
	for _, target := range []string{"/_mock%2Fhealth", "/_mock%2fopenapi.yaml"} {
		a := hostileReq(t, srv, "GET", target)
		code, _, _ := hostileErr(a)
		assert.True(t, a.status == 404 && code == "NOT_FOUND", "GET %s: %d %.80q, want 404 NOT_FOUND (an encoded slash stays in its segment)", target, a.status, a.body)
	}
}

// TestHostileFaultPatternLowercaseEscape: a path pattern written escaped
// matches the path's segment whatever the case of its escapes.
func TestHostileFaultPatternLowercaseEscape(t *testing.T) {
	srv := New()
	defer srv.Close()
	_, err := srv.Tenant.InjectFault(Fault{Path: "/v1/analyses/pf%2Fx", Status: 503})
	require.NoError(t, err, "InjectFault")
	a := hostileReq(t, srv, "GET", "/v1/analyses/pf%2Fx")
	require.Equal(t, 503, a.status, "the fault does not apply to its own path, want its 503")
	a = hostileReq(t, srv, "GET", "/v1/analyses/pf%2fx")
	assert.Equal(t, 503, a.status, "GET /v1/analyses/pf%%2fx (the ID pf/x): %s, want the fault's 503", a.body)
	assert.True(t, pathMatches("/v1/analyses/caf%C3%A9", "/v1/analyses/caf%c3%a9"), "pathMatches(%q, %q) = false, want true", "/v1/analyses/caf%C3%A9", "/v1/analyses/caf%c3%a9")
}

// TestHostileGlobOnLongSegments: a glob segment is not matched against a
// segment longer than any ID (maxGlobSegment), so that a long path costs
// no quadratic match under the fault lock, while a lone "*" still matches
// it; a pattern is at most maxPathPattern bytes.
func TestHostileGlobOnLongSegments(t *testing.T) {
	pattern := "/*" + strings.Repeat("a", 1000) + "b"
	path := "/" + strings.Repeat("a", 64<<10)
	assert.False(t, pathMatches(pattern, path), "a glob segment matched a 64 KiB segment, want no match")
	assert.True(t, pathMatches("/*", path), `"*" does not match a long segment, want a match`)
	assert.Error(t, checkPathPattern("/"+strings.Repeat("a", maxPathPattern)), "a pattern of more than %d bytes is accepted, want it refused", maxPathPattern)
}

// TestHostileRequestMatchMalformedPattern: RequestMatch.Path is checked as
// Fault.Path is: AwaitRequest reports a malformed pattern rather than
// waiting for its context's end.
func TestHostileRequestMatchMalformedPattern(t *testing.T) {
	srv := newHandlerServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := srv.Tenant.AwaitRequest(ctx, RequestMatch{Path: "/v1/analyses/[a-"})
	assert.True(t, err != nil && !errors.Is(err, context.Canceled) && strings.Contains(err.Error(), "path"),
		"AwaitRequest with a malformed path pattern: %v, want an error naming the pattern", err)
}
