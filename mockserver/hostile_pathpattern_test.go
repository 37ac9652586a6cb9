package mockserver

import (
	"strings"
	"testing"
)

// TestHostilePathPatterns holds path patterns to their rule against
// encoded slashes, globs and escapes.
func TestHostilePathPatterns(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		want          bool
	}{
		{"/v1/analyses/pf/x", "/v1/analyses/pf%2fx", true},
		{"/v1/analyses/café", "/v1/analyses/caf%C3%A9", true},
		{"/v1/analyses/*", "/v1/analyses/a%2Fb", true},
		{"/v1/analyses/*/*", "/v1/analyses/a%2Fb", false},
		{"/v1/analyses/a/*", "/v1/analyses/a%2Fb", false},
		{"/v1/analyses/a/b/report", "/v1/analyses/a%2Fb/report", true},
		{"/v1/analyses/a%2Fb/report", "/v1/analyses/a%2Fb/report", true},
		{"/v1/analyses/\\*", "/v1/analyses/*", true},
		{"/v1/analyses/\\*", "/v1/analyses/x", false},
		{"/v1/analyses/analysis_*", "/v1/analyses/analysis_1/report", false},
		{"/v1/analyses", "/v1/analyses/", true},
	} {
		if got := pathMatches(c.pattern, c.path); got != c.want {
			t.Errorf("pathMatches(%q, %q) = %v, want %v", c.pattern, c.path, got, c.want)
		}
	}
	// Many segments, many stars: linear.
	long := strings.Repeat("/a", 32<<10)
	if !pathMatches(strings.Repeat("/*", 32<<10), long) || !pathMatches(strings.Repeat("/a*", 32<<10), long) {
		t.Error("a pattern of 32Ki stars does not match a path of 32Ki segments")
	}
	if pathMatches("/"+strings.Repeat("*a", 4000)+"b", "/"+strings.Repeat("a", 64<<10)) {
		t.Error("a glob ending in b matched a path of a's")
	}
	if pathMatches(strings.Repeat("/a", 16000), strings.Repeat("/a%2Fa%2Fa%2Fa%2Fa%2Fa%2Fa%2Fa%2Fa%2Fa%2Fa%2Fa%2Fa%2Fa%2Fa%2Fa%2F", 1000)) {
		t.Error("mismatched slash-laden path matched")
	}
}

// TestHostileInjectFaultRefusesMalformedPatterns: a clear error naming the
// field, never a panic.
func TestHostileInjectFaultRefusesMalformedPatterns(t *testing.T) {
	srv, err := NewHandler()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, p := range []string{"[", "\\", "[a-", "/v1/analyses/[", "a/[/b", "/v1/" + strings.Repeat("[", 1<<16)} {
		_, err := srv.Tenant.InjectFault(Fault{Path: p, Status: 503})
		if err == nil || !strings.Contains(err.Error(), `"path"`) {
			t.Errorf("InjectFault(Path %.20q) = %v, want an error naming the field \"path\"", p, err)
		}
	}
	for _, p := range []string{"**", "/v1/analyses/%zz", "/v1/\x00", "/v1/analyses/é", "/v1/analyses/pf%2Fx"} {
		if _, err := srv.Tenant.InjectFault(Fault{Path: p, Status: 503}); err != nil {
			t.Errorf("InjectFault(Path %q): %v", p, err)
		}
	}
}
