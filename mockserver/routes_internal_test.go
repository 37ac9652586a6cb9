package mockserver

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
	"github.com/profilesvc/profilesvc-go/internal/openapicheck"
)

// TestRouteTableIsTheDocuments checks the mock's route table against the
// two OpenAPI documents: every /v1/ route is an operation of
// api/openapi.yaml and every /_mock/ route (the public ones included) one
// of api/mock-control.yaml, and every operation of either is a route.
func TestRouteTableIsTheDocuments(t *testing.T) {
	t.Parallel()
	service, err := openapicheck.New() // the servers' own, loaded once
	require.NoError(t, err)
	control, err := openapicheck.NewMockControl()
	require.NoError(t, err)

	table := map[string][]string{} // prefix -> "METHOD path"
	for _, rt := range routes() {
		prefix, _, _ := strings.Cut(strings.TrimPrefix(rt.path, "/"), "/")
		table[prefix] = append(table[prefix], rt.method+" "+rt.path)
	}
	for path, rt := range publicRoutes {
		table["_mock"] = append(table["_mock"], rt.method+" "+path)
	}
	for _, doc := range []struct {
		name   string
		v      *openapicheck.Validator
		prefix string
	}{
		{"api/openapi.yaml", service, "v1"},
		{"api/mock-control.yaml", control, "_mock"},
	} {
		var ops []string
		for _, op := range doc.v.Operations() {
			ops = append(ops, op.Method+" "+op.Path)
		}
		require.ElementsMatch(t, table[doc.prefix], ops, "the mock's /%s/ routes and the operations of %s", doc.prefix, doc.name)
	}
}

// TestRouteTableIsAPIRoutes checks that the mock registers exactly the
// routes of internal/apiroutes, All and Mock, each method and path once
// (the routes that share one, as uploads and JSON items do, on one
// handler), with the query parameters apiroutes gives it.
func TestRouteTableIsAPIRoutes(t *testing.T) {
	var served []string
	for _, rt := range routes() {
		served = append(served, rt.method+" "+rt.path)
		r, ok := apiroutes.Named(rt.name)
		require.True(t, ok, rt.name)
		assert.Equal(t, r.Query, rt.query, "%s: the query parameters of apiroutes", rt.name)
	}
	for path, rt := range publicRoutes {
		served = append(served, rt.method+" "+path)
	}
	var listed []string
	for _, r := range append(apiroutes.All(), apiroutes.Mock()...) {
		if key := r.Method + " " + r.Path; !slices.Contains(listed, key) {
			listed = append(listed, key)
		}
	}
	require.ElementsMatch(t, listed, served, "the routes of apiroutes and those the mock registers")
}
