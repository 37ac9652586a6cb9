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
	t.Parallel()
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
	t.Parallel()
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

// TestSchemasRefuse checks that the schemas refuse what the interface
// document rules out, down to the sub-objects of an analysis.
func TestSchemasRefuse(t *testing.T) {
	t.Parallel()
	v := newValidator(t)
	b, err := os.ReadFile("../../testdata/analysis_completed.json")
	require.NoError(t, err)
	tests := []struct {
		name, old, new, field string
	}{
		{"a check result out of its values", `"name_check_result": "pass"`, `"name_check_result": "maybe"`, "body /extractedData/category_judgements/name_check_result"},
		{"a document validation that is not a boolean", `"payslip_is_valid": true`, `"payslip_is_valid": "yes"`, "body /extractedData/document_validations/payslip_is_valid"},
		{"a risk score above 100", `"riskScore": 42.5`, `"riskScore": 142.5`, "body /riskAssessment/riskScore"},
		{"a final action out of its values", `"final_action": "manual_review"`, `"final_action": "escalate"`, "body /extractedData/review_result/final_action"},
		{"an extraction status out of its values", `"proof_of_address": "missing"`, `"proof_of_address": "unknown"`, "body /extractionStatus/proof_of_address"},
		{"a finding without its ID's prefix", `"id": "af_1n2b3v4c"`, `"id": "f_1n2b3v4c"`, "body /findings/0/id"},
		{"an always-present field missing", `"completedAt": "2025-03-14T10:02:59.417Z",`, ``, "body /completedAt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			changed := strings.Replace(string(b), tt.old, tt.new, 1)
			require.NotEqual(t, string(b), changed, "the change applies")
			err := v.CheckSchema("Analysis", []byte(changed))
			var ms openapicheck.Mismatches
			require.ErrorAs(t, err, &ms)
			var fields []string
			for _, m := range ms {
				fields = append(fields, m.Field)
			}
			require.Contains(t, fields, tt.field, "%v", err)
		})
	}
}
