package mockserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPathTemplateMatch(t *testing.T) {
	tests := []struct {
		template, path string
		want           bool
		wantVals       []string
	}{
		{"/v1/analyses/{analysisId}", "/v1/analyses/an_1", true, []string{"an_1"}},
		{"/v1/analyses/{analysisId}", "/v1/analyses/a%2Fb", true, []string{"a%2Fb"}},
		{"/v1/analyses/{analysisId}", "/v1/analyses/an_1/", false, nil},
		{"/v1/analyses/{analysisId}", "/v1/analyses/", false, nil},
		{"/v1/analyses/{analysisId}", "/v1/analyses//", false, nil},
		{"/v1/analyses/{analysisId}", "/v1/analyses", false, nil},
		{"/v1/analyses/{analysisId}", "v1/analyses/an_1", false, nil},
		{"/v1/analyses/{analysisId}", "//v1/analyses/an_1", false, nil},
		{"/v1/analyses/{analysisId}", "/v1/analyses/an_1/report", false, nil},
		{"/v1/analyses/{analysisId}", "/V1/analyses/an_1", false, nil},
		{"/v1/analyses/{analysisId}/report", "/v1/analyses/an_1/report", true, []string{"an_1"}},
		{"/v1/analyses/{analysisId}/report", "/v1/analyses/an_1/reports", false, nil},
		{"/v1/analyses/{profileId}/analyze", "/v1/analyses/pf_1/analyze", true, []string{"pf_1"}},
		{"/_mock/faults", "/_mock/faults", true, nil},
		{"/_mock/faults", "/_mock/faults/", false, nil},
		{"/_mock/faults", "/_mock", false, nil},
		{"/a/{x}/b/{y}", "/a/1/b/2", true, []string{"1", "2"}},
		{"/a/{x}/b/{y}", "/a/1/c/2", false, nil},
		{"/a/{x}/b/{y}", "/a/1/b/", false, nil},
		{"/a/{x}/b/{y}", "", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.template+" "+tt.path, func(t *testing.T) {
			tmpl, err := parsePathTemplate(tt.template)
			require.NoError(t, err)
			var vals [maxPathVars]string
			got := tmpl.match(tt.path, &vals)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, got, tmpl.match(tt.path, nil), "the answer without values")
			if tt.want {
				if diff := cmp.Diff(tt.wantVals, vals[:len(tmpl.vars)], cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("values (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestPathTemplateRefusesMalformed(t *testing.T) {
	for _, tmpl := range []string{
		"v1/analyses",
		"/v1//analyses",
		"/v1/analyses/",
		"/v1/{}",
		"/v1/{a:[0-9]+}",
		"/v1/x{id}",
		"/v1/{id}x",
		"/v1/{id}/{id}",
		"/{a}/{b}/{c}",
	} {
		_, err := parsePathTemplate(tmpl)
		assert.Error(t, err, "template %q", tmpl)
	}
}

// Every route of the table has a template the router can read.
func TestRouteTemplatesParse(t *testing.T) {
	for _, rt := range routes() {
		_, err := parsePathTemplate(rt.path)
		assert.NoError(t, err, "route %s", rt.name)
	}
}

// The matcher allocates nothing, so that trying a request against every
// route of the table costs no garbage.
func TestPathTemplateMatchAllocatesNothing(t *testing.T) {
	tmpl, err := parsePathTemplate("/v1/analyses/{analysisId}/report")
	require.NoError(t, err)
	var vals [maxPathVars]string
	allocs := testing.AllocsPerRun(100, func() {
		tmpl.match("/v1/analyses/analysis_1/report", &vals)
		tmpl.match("/v1/folders/fld_1", nil)
	})
	assert.Zero(t, allocs)
}
