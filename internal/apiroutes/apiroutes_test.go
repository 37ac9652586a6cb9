package apiroutes_test

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	profilesvc "github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/api"
	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
)

func TestExpand(t *testing.T) {
	tests := []struct {
		name     string
		template string
		values   []string
		want     string
		// wantErr is empty for success; "invalid" for an error matching
		// ErrInvalidID; any other text for another error containing it.
		wantErr string
	}{
		{name: "published template", template: apiroutes.WorkflowProfiles, values: []string{"wf_1"}, want: "/v1/workflows/wf_1/profiles"},
		{name: "template with a suffix", template: apiroutes.AnalysisReport, values: []string{"analysis_1"}, want: "/v1/analyses/analysis_1/report"},
		{name: "no parameters", template: "/v1/health", want: "/v1/health"},
		{name: "two parameters in order", template: "/v1/a/{x}/b/{y}", values: []string{"1", "2"}, want: "/v1/a/1/b/2"},
		{name: "adjacent parameters", template: "/v1/{x}{y}", values: []string{"a/", "b"}, want: "/v1/a%2Fb"},
		{name: "slash escaped", template: apiroutes.Folder, values: []string{"a/b"}, want: "/v1/folders/a%2Fb"},
		{name: "question mark escaped", template: apiroutes.Folder, values: []string{"a?b"}, want: "/v1/folders/a%3Fb"},
		{name: "hash escaped", template: apiroutes.Folder, values: []string{"a#b"}, want: "/v1/folders/a%23b"},
		{name: "percent escaped", template: apiroutes.Folder, values: []string{"100%"}, want: "/v1/folders/100%25"},
		{name: "space escaped", template: apiroutes.Folder, values: []string{"a b"}, want: "/v1/folders/a%20b"},
		{name: "dot-dot with slash escaped", template: apiroutes.Item, values: []string{"../admin"}, want: "/v1/items/..%2Fadmin"},
		{name: "non-ASCII escaped", template: apiroutes.Item, values: []string{"é"}, want: "/v1/items/%C3%A9"},
		{name: "three dots allowed", template: apiroutes.Item, values: []string{"..."}, want: "/v1/items/..."},
		{name: "leading dot allowed", template: apiroutes.Item, values: []string{".hidden"}, want: "/v1/items/.hidden"},
		{name: "braces in a value kept", template: apiroutes.Item, values: []string{"{itemId}"}, want: "/v1/items/%7BitemId%7D"},

		{name: "empty ID", template: apiroutes.Profile, values: []string{""}, wantErr: "invalid"},
		{name: "dot ID", template: apiroutes.Profile, values: []string{"."}, wantErr: "invalid"},
		{name: "dot-dot ID", template: apiroutes.Profile, values: []string{".."}, wantErr: "invalid"},
		{name: "second ID invalid", template: "/v1/a/{x}/b/{y}", values: []string{"ok", ".."}, wantErr: "invalid"},

		{name: "too few values", template: apiroutes.Analyze, wantErr: "no value for {profileId}"},
		{name: "too few of two", template: "/v1/a/{x}/b/{y}", values: []string{"1"}, wantErr: "no value for {y}"},
		{name: "too many values", template: apiroutes.Analysis, values: []string{"a", "b"}, wantErr: "2 values for 1 parameters"},
		{name: "values for no parameter", template: "/v1/health", values: []string{"a"}, wantErr: "1 values for 0 parameters"},
		{name: "unterminated parameter", template: "/v1/items/{itemId", values: []string{"a"}, wantErr: "unterminated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := apiroutes.Expand(tt.template, tt.values...)
			switch tt.wantErr {
			case "":
				if err != nil {
					t.Fatalf("Expand(%q, %q): %v", tt.template, tt.values, err)
				}
				if got != tt.want {
					t.Errorf("Expand(%q, %q) = %q, want %q", tt.template, tt.values, got, tt.want)
				}
			case "invalid":
				if !errors.Is(err, apiroutes.ErrInvalidID) {
					t.Errorf("Expand(%q, %q) = %q, %v; want an error matching ErrInvalidID", tt.template, tt.values, got, err)
				}
			default:
				if err == nil {
					t.Fatalf("Expand(%q, %q) = %q, want an error", tt.template, tt.values, got)
				}
				if errors.Is(err, apiroutes.ErrInvalidID) {
					t.Errorf("error %v matches ErrInvalidID; a wrong count or template is not an invalid ID", err)
				}
				if !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error %q does not contain %q", err, tt.wantErr)
				}
			}
		})
	}
}

// publishedRoutes is the summary table of the interface document, in its
// order.
var publishedRoutes = []string{
	"POST /v1/workflows/{workflowId}/profiles",
	"PATCH /v1/profiles/{profileId}",
	"DELETE /v1/profiles/{profileId}",
	"GET /v1/profiles/{profileId}/folders",
	"GET /v1/folders/{folderId}",
	"PATCH /v1/folders/{folderId}",
	"DELETE /v1/folders/{folderId}",
	"PATCH /v1/items/{itemId}",
	"POST /v1/analyses/{profileId}/analyze",
	"GET /v1/analyses/{analysisId}",
	"GET /v1/analyses/{analysisId}/report",
	"DELETE /v1/analyses/{analysisId}",
}

func TestAllPublishedMatchesTheInterfaceDocument(t *testing.T) {
	routes := apiroutes.All()
	var published []string
	for i, r := range routes {
		if r.Published {
			published = append(published, r.Method+" "+r.Path)
			if i >= len(publishedRoutes) {
				t.Errorf("published route %s %s comes after an inferred one", r.Method, r.Path)
			}
		}
	}
	if diff := cmp.Diff(publishedRoutes, published); diff != "" {
		t.Errorf("published routes differ from the interface document (-document +All):\n%s", diff)
	}
}

func TestAllRoutes(t *testing.T) {
	routes := apiroutes.All()
	methods := map[string]bool{
		http.MethodGet: true, http.MethodPost: true, http.MethodPatch: true, http.MethodDelete: true,
	}
	// Routes that may share a method and path: uploads and JSON items are
	// both POSTs to a folder's items, told apart by the body.
	sharing := map[string][]string{
		"POST " + apiroutes.FolderItems: {"CreateJSONItem", "CreateTextItem", "UploadFile"},
	}
	client := reflect.TypeOf(&profilesvc.Client{})

	names := map[string]int{}
	byEndpoint := map[string][]string{}
	for _, r := range routes {
		t.Run(r.Name, func(t *testing.T) {
			if !methods[r.Method] {
				t.Errorf("method %q is not one the service uses", r.Method)
			}
			if !strings.HasPrefix(r.Path, "/v1/") {
				t.Errorf("path %q does not start with /v1/", r.Path)
			}
			if _, ok := client.MethodByName(r.Name); !ok {
				t.Errorf("Name %q is not a method of *profilesvc.Client", r.Name)
			}
			// Every parameter is well formed, so the template expands with
			// one value per parameter into a path without braces.
			n := strings.Count(r.Path, "{")
			if n != strings.Count(r.Path, "}") || n == 0 {
				t.Errorf("path %q: %d parameters opened, %d closed", r.Path, n, strings.Count(r.Path, "}"))
			}
			values := make([]string, n)
			for i := range values {
				values[i] = "id"
			}
			p, err := apiroutes.Expand(r.Path, values...)
			if err != nil {
				t.Fatalf("Expand(%q): %v", r.Path, err)
			}
			if strings.ContainsAny(p, "{}") {
				t.Errorf("Expand(%q) = %q still holds a parameter", r.Path, p)
			}
		})
		names[r.Name]++
		key := r.Method + " " + r.Path
		byEndpoint[key] = append(byEndpoint[key], r.Name)
	}

	for name, n := range names {
		if n != 1 {
			t.Errorf("Name %q appears %d times", name, n)
		}
	}
	for key, got := range byEndpoint {
		sort.Strings(got)
		want, shared := sharing[key]
		if !shared {
			if len(got) != 1 {
				t.Errorf("%s is the route of %q: one method and path, one name", key, got)
			}
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("names sharing %s (-want +got):\n%s", key, diff)
		}
	}
}

func TestAllReturnsANewSlice(t *testing.T) {
	first := apiroutes.All()
	first[0].Path = "/changed"
	first[0].Name = "Changed"
	again := apiroutes.All()
	if again[0].Path == "/changed" || again[0].Name == "Changed" {
		t.Errorf("All() returned a slice shared with an earlier call: %+v", again[0])
	}
	for i, r := range first {
		if len(r.Query) > 0 {
			r.Query[0] = "changed"
			assert.NotEqual(t, "changed", apiroutes.All()[i].Query[0], "%s: All() returned a Query shared with an earlier call", r.Name)
		}
	}
}

// queryConstants are the Query constants of the package, each once.
var queryConstants = []string{
	apiroutes.QueryLimit, apiroutes.QueryCursor, apiroutes.QuerySearch, apiroutes.QuerySort, apiroutes.QueryOrder,
	apiroutes.QueryWaitForReport, apiroutes.QueryTimeoutSeconds,
	apiroutes.QueryLocale, apiroutes.QueryIncludeRawData,
	apiroutes.QueryMethod, apiroutes.QueryPath, apiroutes.QueryStatus,
}

// loadDocument loads one of the OpenAPI documents of package api, its
// references to the other resolved from memory.
func loadDocument(t *testing.T, doc []byte, name string) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = true
	loader.ReadFromURIFunc = func(_ *openapi3.Loader, u *url.URL) ([]byte, error) {
		if b, ok := api.Document(u.Path); ok {
			return b, nil
		}
		return nil, fmt.Errorf("no document %s", u)
	}
	d, err := loader.LoadFromDataWithPath(doc, &url.URL{Path: name})
	require.NoError(t, err, "loading %s", name)
	return d
}

// documentQueries returns the query parameters of each operation of a
// document, by "METHOD path", and each operation's ID by the same key.
func documentQueries(d *openapi3.T) (queries map[string][]string, ids map[string]string) {
	queries, ids = map[string][]string{}, map[string]string{}
	for path, item := range d.Paths.Map() {
		for method, op := range item.Operations() {
			key := method + " " + path
			ids[key] = op.OperationID
			queries[key] = nil
			for _, p := range append(slices.Clone(item.Parameters), op.Parameters...) {
				if p.Value != nil && p.Value.In == openapi3.ParameterInQuery {
					queries[key] = append(queries[key], p.Value.Name)
				}
			}
		}
	}
	return queries, ids
}

// TestRouteQueriesAreTheDocuments checks each route's query parameters,
// those of the service and the mock's own, against the operation's in
// api/openapi.yaml or api/mock-control.yaml: the same names, each a Query
// constant; and that every Query constant is some route's.
func TestRouteQueriesAreTheDocuments(t *testing.T) {
	queries, _ := documentQueries(loadDocument(t, api.OpenAPI(), api.OpenAPIFile))
	control, _ := documentQueries(loadDocument(t, api.MockControl(), api.MockControlFile))
	for k, v := range control {
		queries[k] = v
	}
	used := map[string]bool{}
	for _, r := range append(apiroutes.All(), apiroutes.Mock()...) {
		key := r.Method + " " + r.Path
		want, documented := queries[key]
		if strings.HasPrefix(r.Path, "/storage/") {
			require.False(t, documented, "%s: the storage of artifacts is in no document", key)
		} else {
			require.True(t, documented, "%s (%s) is an operation of the documents", key, r.Name)
		}
		assert.ElementsMatch(t, want, r.Query, "%s (%s): the query parameters of the document and of apiroutes", key, r.Name)
		for _, q := range r.Query {
			assert.Contains(t, queryConstants, q, "%s: query parameter %q is a Query constant", r.Name, q)
			used[q] = true
		}
	}
	for _, q := range queryConstants {
		assert.True(t, used[q], "Query constant %q is no route's", q)
	}
}

// TestMockRoutes checks the mock's own routes: each /_mock/ one is the
// operation of api/mock-control.yaml its Name names, and every operation
// of that document is one of them; the documents are served under the
// names api gives them; no name is taken twice across All and Mock, and
// Named finds each.
func TestMockRoutes(t *testing.T) {
	_, ids := documentQueries(loadDocument(t, api.MockControl(), api.MockControlFile))
	mock := apiroutes.Mock()
	var listed []string
	for _, r := range mock {
		key := r.Method + " " + r.Path
		assert.False(t, r.Published, "%s: the mock's own route is not the service's", r.Name)
		if !strings.HasPrefix(r.Path, "/_mock/") {
			assert.True(t, strings.HasPrefix(r.Path, "/storage/items/"), "%s: %s is under /_mock/ or /storage/items/", r.Name, r.Path)
			continue
		}
		listed = append(listed, key)
		assert.Equal(t, ids[key], r.Name, "%s: Name is the operationId of api/mock-control.yaml", key)
	}
	assert.ElementsMatch(t, slices.Collect(maps.Keys(ids)), listed, "the /_mock/ routes of Mock and the operations of api/mock-control.yaml")

	docs := map[string]string{"getServiceDocument": api.OpenAPIFile, "getControlDocument": api.MockControlFile}
	for name, file := range docs {
		r, ok := apiroutes.Named(name)
		require.True(t, ok, name)
		assert.Equal(t, "/_mock/"+file, r.Path, "%s is served as api names it", name)
	}

	seen := map[string]bool{}
	for _, r := range append(apiroutes.All(), mock...) {
		assert.False(t, seen[r.Name], "Name %q is taken twice", r.Name)
		seen[r.Name] = true
		got, ok := apiroutes.Named(r.Name)
		require.True(t, ok, "Named(%q)", r.Name)
		if diff := cmp.Diff(r, got); diff != "" {
			t.Errorf("Named(%q) (-want +got):\n%s", r.Name, diff)
		}
	}
	_, ok := apiroutes.Named("NoSuchRoute")
	assert.False(t, ok, "Named finds a route of no name")
}
