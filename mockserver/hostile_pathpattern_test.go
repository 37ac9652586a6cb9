package mockserver

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHostilePathPatterns holds path patterns to their rule against
// encoded slashes, globs and escapes: an encoded slash stays inside its
// segment, a pattern's segment matches the path's whether written plain
// or escaped, and matching stays linear in the pattern and the path.
func TestHostilePathPatterns(t *testing.T) {
	tests := []struct {
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
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, pathMatches(tt.pattern, tt.path), "pathMatches(%q, %q)", tt.pattern, tt.path)
	}
	// Many segments, many stars: linear.
	long := strings.Repeat("/a", 32<<10)
	assert.True(t, pathMatches(strings.Repeat("/*", 32<<10), long) && pathMatches(strings.Repeat("/a*", 32<<10), long),
		"a pattern of 32Ki stars does not match a path of 32Ki segments, want a match")
	assert.False(t, pathMatches("/"+strings.Repeat("*a", 4000)+"b", "/"+strings.Repeat("a", 64<<10)),
		"a glob ending in b matched a path of a's, want no match")
	assert.False(t, pathMatches(strings.Repeat("/a", 16000), strings.Repeat("/a%2Fa%2Fa%2Fa%2Fa%2Fa%2Fa%2Fa%2Fa%2Fa%2Fa%2Fa%2Fa%2Fa%2Fa%2Fa%2F", 1000)),
		"mismatched slash-laden path matched, want no match")
}

// TestHostileInjectFaultRefusesMalformedPatterns: InjectFault refuses a
// malformed path pattern with an error naming the field, never a panic,
// and accepts the odd but well-formed ones.
func TestHostileInjectFaultRefusesMalformedPatterns(t *testing.T) {
	srv := newHandlerServer(t)
	for _, p := range []string{"[", "\\", "[a-", "/v1/analyses/[", "a/[/b", "/v1/" + strings.Repeat("[", 1<<16)} {
		_, err := srv.Tenant.InjectFault(Fault{Path: p, Status: 503})
		assert.ErrorContains(t, err, `"path"`, "InjectFault(Path %.20q), want an error naming the field \"path\"", p)
	}
	for _, p := range []string{"**", "/v1/analyses/%zz", "/v1/\x00", "/v1/analyses/é", "/v1/analyses/pf%2Fx"} {
		_, err := srv.Tenant.InjectFault(Fault{Path: p, Status: 503})
		assert.NoError(t, err, "InjectFault(Path %q), want the pattern accepted", p)
	}
}
