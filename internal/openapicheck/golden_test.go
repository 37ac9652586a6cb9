package openapicheck_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/internal/openapicheck"
)

// goldenAnswer is a golden file of the mock's tests: one answer of a walk
// through every route (mockserver/testdata/golden).
type goldenAnswer struct {
	Request string            `json:"request"`
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Body    json.RawMessage   `json:"body"`
}

// TestMockGoldenAnswers holds every answer of the mock's golden walk to
// the documents: the service's routes to openapi.yaml, the control API's
// to mock-control.yaml. The golden files keep no request bodies, so the
// answers alone are checked.
func TestMockGoldenAnswers(t *testing.T) {
	service, control := newValidator(t), newControlValidator(t)
	files, err := filepath.Glob("../../mockserver/testdata/golden/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	checked := map[string]int{}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			b, err := os.ReadFile(file)
			require.NoError(t, err)
			var g goldenAnswer
			require.NoError(t, json.Unmarshal(b, &g))
			method, target, ok := strings.Cut(g.Request, " ")
			require.True(t, ok, "request %q", g.Request)
			ex := openapicheck.Exchange{Method: method, URL: target, Status: g.Status, ResponseHeader: goldenHeader(g.Headers), ResponseBody: goldenBody(t, g)}
			err = service.CheckAnswer(t.Context(), ex)
			doc := "service"
			if errors.Is(err, openapicheck.ErrNotInDocument) {
				err = control.CheckAnswer(t.Context(), ex)
				doc = "control"
			}
			if errors.Is(err, openapicheck.ErrNotInDocument) {
				require.True(t, strings.HasPrefix(target, "/storage/"), "%s is in neither document", target)
				return
			}
			require.NoError(t, err)
			checked[doc]++
		})
	}
	require.Greater(t, checked["service"], 40, "answers of the service's routes checked")
	require.Greater(t, checked["control"], 10, "answers of the control API checked")
}

func goldenHeader(h map[string]string) map[string][]string {
	out := map[string][]string{}
	for k, v := range h {
		out[k] = []string{v}
	}
	return out
}

// goldenBody is the answer's body: JSON as it was, text as the string the
// file holds, and a PDF, which the file keeps as its size and digest, as
// the start of a PDF.
func goldenBody(t *testing.T, g goldenAnswer) []byte {
	t.Helper()
	if len(g.Body) == 0 {
		return nil
	}
	ct := g.Headers["Content-Type"]
	switch {
	case strings.HasPrefix(ct, "application/pdf"):
		return []byte("%PDF-1.7\n")
	case strings.HasPrefix(ct, "application/json"):
		return g.Body
	}
	var s string
	require.NoError(t, json.Unmarshal(g.Body, &s))
	return []byte(s)
}

// TestSDKGoldenFiles holds the SDK's golden files (testdata/*.json at the
// module's root, written by hand from the interface document and read by
// decode_test.go) to the document's schemas: every file has one.
func TestSDKGoldenFiles(t *testing.T) {
	v := newValidator(t)
	schemas := map[string]string{
		"analysis_completed.json": "Analysis",
		"analysis_failed.json":    "Analysis",
		"analysis_pending.json":   "Analysis",
		"folder.json":             "FolderWithItems",
		"folder_page.json":        "FolderPage",
		"item_file.json":          "Item",
		"item_json.json":          "Item",
		"item_text.json":          "Item",
		"profile.json":            "Profile",
		"profile_create.json":     "CreatedProfile",
	}
	files, err := filepath.Glob("../../testdata/*.json")
	require.NoError(t, err)
	require.Len(t, files, len(schemas), "every golden file of the SDK has its schema here")
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			schema, ok := schemas[name]
			require.True(t, ok, "no schema named for %s", name)
			b, err := os.ReadFile(file)
			require.NoError(t, err)
			require.NoError(t, v.CheckSchema(schema, b))
		})
	}
}
