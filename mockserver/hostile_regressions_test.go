package mockserver

// Hostile inputs that once got past the mock, each held to what it must
// get now:
//
//  1. TestHostileOptionsStar: "OPTIONS *" reaches the mock's handler (the
//     servers disable net/http's general OPTIONS handler) and gets the
//     service's error body and a request ID.
//  2. TestHostilePublicRouteEncodedSlash: an encoded slash stays inside
//     its segment on the public routes too: "/_mock%2Fhealth" is no
//     route's.
//  3. TestHostileFaultPatternLowercaseEscape: a path pattern written
//     escaped matches the path's segment whatever the case of its escapes.
//  4. TestHostileGlobOnLongSegments: a glob segment is not matched
//     against a segment longer than any ID (maxGlobSegment), so that a
//     long path costs no quadratic match under the fault lock; a pattern
//     is at most maxPathPattern bytes.
//  5. TestHostileRequestMatchMalformedPattern: RequestMatch.Path is
//     checked as Fault.Path is: AwaitRequest reports a malformed pattern
//     rather than waiting for its context's end.

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestHostileOptionsStar(t *testing.T) {
	srv := New()
	defer srv.Close()
	a := hostileReq(t, srv, "OPTIONS", "*")
	if a.header.Get("X-Request-Id") == "" {
		t.Errorf("OPTIONS *: %d with no X-Request-Id: the mock never saw it", a.status)
	}
	if _, _, ok := hostileErr(a); !ok {
		t.Errorf("OPTIONS *: %d %q, want the service's error body (404 NOT_FOUND)", a.status, a.body)
	}
}

func TestHostilePublicRouteEncodedSlash(t *testing.T) {
	srv := New()
	defer srv.Close()
	for _, target := range []string{"/_mock%2Fhealth", "/_mock%2fopenapi.yaml"} {
		a := hostileReq(t, srv, "GET", target)
		if code, _, _ := hostileErr(a); a.status != 404 || code != "NOT_FOUND" {
			t.Errorf("GET %s: %d %.80q, want 404 NOT_FOUND (an encoded slash stays in its segment)", target, a.status, a.body)
		}
	}
}

func TestHostileFaultPatternLowercaseEscape(t *testing.T) {
	srv := New()
	defer srv.Close()
	if _, err := srv.Tenant.InjectFault(Fault{Path: "/v1/analyses/pf%2Fx", Status: 503}); err != nil {
		t.Fatal(err)
	}
	if a := hostileReq(t, srv, "GET", "/v1/analyses/pf%2Fx"); a.status != 503 {
		t.Fatalf("the fault does not apply to its own path: %d", a.status)
	}
	if a := hostileReq(t, srv, "GET", "/v1/analyses/pf%2fx"); a.status != 503 {
		t.Errorf("GET /v1/analyses/pf%%2fx (the ID pf/x): %d %s, want the fault's 503", a.status, a.body)
	}
	if !pathMatches("/v1/analyses/caf%C3%A9", "/v1/analyses/caf%c3%a9") {
		t.Errorf("pathMatches(%q, %q) = false", "/v1/analyses/caf%C3%A9", "/v1/analyses/caf%c3%a9")
	}
}

func TestHostileGlobOnLongSegments(t *testing.T) {
	pattern := "/*" + strings.Repeat("a", 1000) + "b"
	path := "/" + strings.Repeat("a", 64<<10)
	if pathMatches(pattern, path) {
		t.Error("a glob segment matched a 64 KiB segment")
	}
	if !pathMatches("/*", path) {
		t.Error(`"*" does not match a long segment`)
	}
	if err := checkPathPattern("/" + strings.Repeat("a", maxPathPattern)); err == nil {
		t.Errorf("a pattern of more than %d bytes is accepted", maxPathPattern)
	}
}

func TestHostileRequestMatchMalformedPattern(t *testing.T) {
	srv, err := NewHandler()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = srv.Tenant.AwaitRequest(ctx, RequestMatch{Path: "/v1/analyses/[a-"})
	if err == nil || errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "path") {
		t.Errorf("AwaitRequest with a malformed path pattern: %v, want an error naming the pattern", err)
	}
}
