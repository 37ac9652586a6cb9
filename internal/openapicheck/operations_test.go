package openapicheck_test

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
	"github.com/profilesvc/profilesvc-go/internal/openapicheck"
)

// inferredSentence is how the document and the README describe an
// inferred endpoint: each inferred operation's description begins with it.
const inferredSentence = "Inferred: the interface document says this endpoint exists but does not show it; " +
	"the SDK wraps it on the conventions of the published ones, and it is verified only against this project's tests."

// endpoint is an operation by method and path, published or inferred.
type endpoint struct {
	method, path string
	inferred     bool
}

func documentEndpoints(t *testing.T) []endpoint {
	t.Helper()
	var out []endpoint
	for _, op := range newValidator(t).Operations() {
		out = append(out, endpoint{op.Method, op.Path, op.Inferred})
	}
	return out
}

// TestOperationsAreTheRoutes checks the document against
// internal/apiroutes, the routes the SDK calls and the mock serves: the
// same endpoints, each published or inferred alike.
func TestOperationsAreTheRoutes(t *testing.T) {
	t.Parallel()
	var routes []endpoint
	for _, r := range apiroutes.All() {
		e := endpoint{r.Method, r.Path, !r.Published}
		if !slices.Contains(routes, e) {
			routes = append(routes, e)
		}
	}
	require.ElementsMatch(t, routes, documentEndpoints(t))
}

// readmeRow is a row of the README's endpoint table.
var readmeRow = regexp.MustCompile(`^\| (GET|POST|PATCH|DELETE|PUT) \| (/v1/[^ |]*)( \([^)]*\))? \| ([0-9]{3}) \| (.*) \| (published|inferred) \|$`)

// TestREADMEEndpointTable checks that the README's endpoint table and the
// document agree: every row is an operation of the document, published or
// inferred alike, with the success status the operation declares, and
// every operation is a row.
func TestREADMEEndpointTable(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	readme := string(b)
	v := newValidator(t)
	var rows []endpoint
	success := map[endpoint]string{}
	for _, line := range strings.Split(readme, "\n") {
		m := readmeRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		e := endpoint{m[1], m[2], m[6] == "inferred"}
		if !slices.Contains(rows, e) {
			rows = append(rows, e)
		}
		success[e] = m[4]
	}
	require.ElementsMatch(t, documentEndpoints(t), rows, "the README's endpoint table and api/openapi.yaml")
	for _, op := range v.Operations() {
		statuses := v.SuccessStatuses(op)
		require.Len(t, statuses, 1, "%s %s: the document's success statuses", op.Method, op.Path)
		assert.Equal(t, strconv.Itoa(statuses[0]), success[endpoint{op.Method, op.Path, op.Inferred}],
			"%s %s: the README's success status", op.Method, op.Path)
	}
	require.True(t, strings.Contains(readme, "[api/openapi.yaml](api/openapi.yaml) is the machine-readable form of this table"),
		"the README says what the document is")
	require.True(t, strings.Contains(strings.Join(strings.Fields(readme), " "), inferredSentence),
		"the README describes inferred endpoints as the document does: %q", inferredSentence)
}

// TestInferredOperationsSaySo checks that each inferred operation says so
// in the words of the README.
func TestInferredOperationsSaySo(t *testing.T) {
	t.Parallel()
	doc := newValidator(t)
	for _, op := range doc.Operations() {
		desc := doc.Description(op)
		if op.Inferred {
			require.True(t, strings.HasPrefix(desc, inferredSentence), "%s %s: %q", op.Method, op.Path, desc)
		} else {
			require.NotContains(t, desc, "Inferred", "%s %s", op.Method, op.Path)
		}
	}
}

func TestFind(t *testing.T) {
	t.Parallel()
	v := newValidator(t)
	op, ok := v.Find("HEAD", "/v1/analyses/analysis_1/report?locale=ko")
	require.True(t, ok)
	require.Equal(t, openapicheck.Operation{ID: "downloadReport", Method: "GET", Path: "/v1/analyses/{analysisId}/report"}, op)
	op, ok = v.Find("GET", "/v1/profiles/pf_1/analyses")
	require.True(t, ok)
	require.Equal(t, openapicheck.Operation{ID: "listAnalyses", Method: "GET", Path: "/v1/profiles/{profileId}/analyses", Inferred: true}, op)
	_, ok = v.Find("PUT", "/v1/profiles/pf_1")
	require.False(t, ok)
	_, ok = v.Find("GET", "/v1/nothing")
	require.False(t, ok)
}
