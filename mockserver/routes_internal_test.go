package mockserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/internal/openapicheck"
)

// TestRouteTableIsTheDocuments checks the mock's route table against the
// two OpenAPI documents: every /v1/ route is an operation of
// api/openapi.yaml and every /_mock/ route (the public ones included) one
// of api/mock-control.yaml, and every operation of either is a route.
func TestRouteTableIsTheDocuments(t *testing.T) {
	t.Parallel()
	service, err := openapiValidator() // the servers' own, loaded once
	require.NoError(t, err)
	control, err := openapicheck.NewMockControl()
	require.NoError(t, err)

	table := map[string][]string{} // prefix -> "METHOD path"
	for _, rt := range routes() {
		prefix, _, _ := strings.Cut(strings.TrimPrefix(rt.path, "/"), "/")
		table[prefix] = append(table[prefix], rt.method+" "+rt.path)
	}
	for path := range publicRoutes {
		table["_mock"] = append(table["_mock"], http.MethodGet+" "+path)
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
