package mockserver_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// TestBounds_AnalysisOfALargeUpload checks that the analysis of a large
// upload, a value on every line, is as small as an ordinary one, cites at
// most engine.MaxCitations passages a step, and holds to the interface
// document (as NewTest checks every answer), its report included.
func TestBounds_AnalysisOfALargeUpload(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithManualAnalyses())
	pid, fid := createProfile(t, srv, "Jane Doe")
	data := []byte("PASSPORT\n" + strings.Repeat("Full Name: Jane Doe\n", 50_000)) // 1 MB
	item := idField(t, "upload", jsonObject(t, upload(t, srv, fid, "passport.txt", data), http.StatusCreated), "id", "item_")
	id := startAnalysis(t, srv, pid, item)
	require.NoError(t, srv.CompleteAnalysis(id))

	r := do(t, srv, "GET", "/v1/analyses/"+id, nil)
	a := jsonObject(t, r, http.StatusOK)
	checkAnalysis(t, a, pid, "completed")
	assert.Less(t, len(r.Body), 64<<10, "the analysis's JSON")
	for _, e := range objectsField(t, "analysis", a, "agentAuditLog") {
		if rag, _ := e["ragResponse"].(map[string]any); rag != nil {
			assert.LessOrEqual(t, len(arrayField(t, "ragResponse", rag, "citations")), engine.MaxCitations, "%v: citations", e["actionName"])
		}
	}
	report := do(t, srv, "GET", "/v1/analyses/"+id+"/report?includeRawData=true", nil)
	wantStatus(t, report, http.StatusOK)
}

// TestBounds_TooLargeForAnAnalysis checks that an analysis of more
// documents than an analysis reads fails, saying why, and that a workflow
// of a longer policy than a workflow holds is refused.
func TestBounds_TooLargeForAnAnalysis(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithManualAnalyses())
	p, fid := addProfile(t, srv.Tenant, "Jane Doe")
	var items []string
	for i := range engine.MaxDocuments + 1 {
		it, err := srv.AddTextItem(fid, fmt.Sprintf("page %d.txt", i), passportDoc)
		require.NoError(t, err)
		items = append(items, it.ID)
	}
	id := startAnalysis(t, srv, p.ID, items...)
	require.NoError(t, srv.CompleteAnalysis(id))
	a := wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisFailed)
	require.NotNil(t, a.Error)
	assert.Contains(t, *a.Error, fmt.Sprintf("at most %d documents", engine.MaxDocuments))

	policy := make([]map[string]any, engine.MaxPolicyActions+1)
	for i := range policy {
		policy[i] = map[string]any{"actionName": fmt.Sprintf("step_%d", i), "category": "Document Processing", "query": "Check."}
	}
	wantError(t, do(t, srv, "POST", "/_mock/workflows", map[string]any{"id": "wf_long", "name": "Long", "policy": policy}),
		http.StatusBadRequest, "VALIDATION_ERROR", "policy")
}
