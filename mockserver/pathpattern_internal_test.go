package mockserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestPathPatterns holds the one rule of Fault.Path and RequestMatch.Path
// (pathpattern.go), with the patterns Fault.Path took when it was a
// path.Match over the escaped path still matching what they matched.
func TestPathPatterns(t *testing.T) {
	for _, tt := range []struct {
		pattern, path string
		want          bool
	}{
		{"/v1/analyses/*", "/v1/analyses/analysis_1", true},
		{"/v1/analyses/*", "/v1/analyses/analysis_1/report", false},
		{"/v1/analyses/*/report", "/v1/analyses/analysis_1/report", true},
		{"/v1/profiles/pf_1", "/v1/profiles/pf_1", true},
		{"v1/profiles/pf_1/", "/v1/profiles/pf_1", true},
		{"/v1/profiles/pf_1", "/v1/profiles/pf_2", false},
		// An ID with an escaped slash: unescaped, or escaped.
		{"/v1/profiles/pf/x", "/v1/profiles/pf%2Fx", true},
		{"/v1/profiles/pf%2Fx", "/v1/profiles/pf%2Fx", true},
		{"/v1/profiles/*", "/v1/profiles/pf%2Fx", true},
		{"/v1/profiles/pf/x", "/v1/profiles/pf/x", true},
		{"/v1/profiles/pf/x", "/v1/profiles/pf", false},
		// Wildcards inside a segment, as path.Match reads them.
		{"/v1/analyses/analysis_*", "/v1/analyses/analysis_1", true},
		{"/v1/analyses/analysis_*", "/v1/analyses/pf_1", false},
		{"/v1/analyses/analysis_?", "/v1/analyses/analysis_1", true},
		{"/v1/analyses/analysis_[0-9]/report", "/v1/analyses/analysis_7/report", true},
		{"/v1/profiles/pf*", "/v1/profiles/pf%2Fx", true},
		{"/v1/profiles/pf/*", "/v1/profiles/pf%2Fx", false},
		{"/v1/*/pf_1", "/v1/profiles/pf_1", true},
		// A malformed pattern matches nothing.
		{"/v1/analyses/[a-", "/v1/analyses/a", false},
	} {
		assert.Equal(t, tt.want, pathMatches(tt.pattern, tt.path), "pathMatches(%q, %q)", tt.pattern, tt.path)
	}
	assert.Error(t, checkPathPattern("/v1/analyses/[a-"), "a malformed segment")
	assert.NoError(t, checkPathPattern("/v1/analyses/*/report"))
}

// TestFaultPathFollowsTheRule injects faults whose paths take each form
// of the rule, and checks which requests each applies to.
func TestFaultPathFollowsTheRule(t *testing.T) {
	for _, tt := range []struct {
		pattern string
		path    string
		want    bool
	}{
		{"/v1/profiles/pf/x", "/v1/profiles/pf%2Fx", true},
		{"/v1/analyses/analysis_*", "/v1/analyses/analysis_9", true},
		{"/v1/analyses/*/report", "/v1/analyses/analysis_9/report", true},
		{"/v1/analyses/*", "/v1/analyses/analysis_9/report", false},
	} {
		fs := newFaultSet(nil)
		_, err := fs.add(Fault{Path: tt.pattern, Status: 503})
		if !assert.NoError(t, err, tt.pattern) {
			continue
		}
		_, got := fs.match("GET", tt.path)
		assert.Equal(t, tt.want, got, "a fault on %q applies to GET %s", tt.pattern, tt.path)
	}
	f := Fault{Path: "/v1/[a-", Status: 503}
	assert.ErrorContains(t, f.normalize(), `field "path"`, "a malformed pattern")
}
