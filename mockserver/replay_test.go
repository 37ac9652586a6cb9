package mockserver_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// replayDocs are the documents of a recorded analysis: a file, a text and
// a JSON item.
type replayDocs struct {
	file []byte
	text string
	data map[string]any
}

// uploadDocs makes a profile holding docs through c, and returns the
// profile's ID and its items' IDs.
func uploadDocs(t *testing.T, c *profilesvc.Client, name string, docs replayDocs) (string, []string) {
	t.Helper()
	ctx := t.Context()
	p, err := c.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: name})
	require.NoError(t, err)
	folder := p.DefaultFolder().ID
	f, err := c.UploadFile(ctx, folder, strings.NewReader(string(docs.file)), profilesvc.UploadParams{Filename: "passport.txt"})
	require.NoError(t, err)
	tx, err := c.CreateTextItem(ctx, folder, docs.text, profilesvc.CreateItemParams{Name: "note"})
	require.NoError(t, err)
	js, err := c.CreateJSONItem(ctx, folder, docs.data, profilesvc.CreateItemParams{Name: "data"})
	require.NoError(t, err)
	return p.ID, []string{f.ID, tx.ID, js.ID}
}

// recordSession records, through a proxy to a mock with an analyzer of
// its own, one completed analysis over recorded and one that the service
// fails, and returns the recording's path and the service's IDs of the
// first analysis, its profile and its items.
func recordSession(t *testing.T, recorded, failing replayDocs) (string, []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.har")
	upstream := newServer(t, mockserver.WithAnalyzer(upstreamFindings), mockserver.WithManualAnalyses())
	p, err := mockserver.NewProxy(upstream.URL, mockserver.WithProxyRecording(path))
	require.NoError(t, err)
	t.Cleanup(p.Close)
	c := proxiedClient(upstream, p)
	ctx := t.Context()

	pid, items := uploadDocs(t, c, "Recorded", recorded)
	id, err := c.StartAnalysis(ctx, pid, profilesvc.StartAnalysisParams{ItemIDs: items})
	require.NoError(t, err)
	serviceIDs := append([]string{id, pid}, items...)
	require.NoError(t, upstream.CompleteAnalysis(id))
	_, err = c.GetAnalysis(ctx, id, nil)
	require.NoError(t, err)

	pid, items = uploadDocs(t, c, "Failing", failing)
	id, err = c.StartAnalysis(ctx, pid, profilesvc.StartAnalysisParams{ItemIDs: items})
	require.NoError(t, err)
	require.NoError(t, upstream.FailAnalysis(id, "the service could not read "+id))
	_, err = c.GetAnalysis(ctx, id, nil)
	require.NoError(t, err)

	_, err = p.WriteRecording()
	require.NoError(t, err)
	return path, serviceIDs
}

// waitEnded waits for an analysis to end, completed or failed, and
// returns it.
func waitEnded(t *testing.T, c *profilesvc.Client, id string) *profilesvc.Analysis {
	t.Helper()
	_, err := c.WaitForAnalysis(t.Context(), id, nil)
	if err != nil {
		require.ErrorIs(t, err, profilesvc.ErrAnalysisFailed, "WaitForAnalysis")
	}
	a, err := c.GetAnalysis(t.Context(), id, nil)
	require.NoError(t, err)
	return a
}

var (
	recordedDocs = replayDocs{file: []byte("PASSPORT\nFull Name: Jane Doe\n"), text: "a note", data: map[string]any{"b": 1.0, "a": "<x>"}}
	failingDocs  = replayDocs{file: []byte("BANK STATEMENT\n"), text: "another", data: map[string]any{"n": 2}}
	otherDocs    = replayDocs{file: []byte("UTILITY BILL\n"), text: "a note", data: map[string]any{"b": 1, "a": "<x>"}}
)

func TestReplayEndsAnalysesAsRecorded(t *testing.T) {
	t.Parallel()
	path, serviceIDs := recordSession(t, recordedDocs, failingDocs)
	srv := newServer(t, mockserver.WithReplayFile(path))
	c := srv.Client()
	ctx := t.Context()

	pid, items := uploadDocs(t, c, "Replayed", recordedDocs)
	id, err := c.StartAnalysis(ctx, pid, profilesvc.StartAnalysisParams{ItemIDs: items})
	require.NoError(t, err)
	a := waitEnded(t, c, id)
	require.Equal(t, profilesvc.AnalysisCompleted, a.Status)
	require.Len(t, a.Findings, 1, "the recorded findings")
	assert.Equal(t, "upstream", a.Findings[0].Details)
	assert.Equal(t, pid, a.ProfileID)
	for _, old := range serviceIDs {
		assert.NotContains(t, string(a.Raw), old, "an ID of the recording is left in the replayed analysis")
	}
	for _, ti := range a.TargetItems {
		assert.Contains(t, items, ti.ItemID, "a target item is the mock's")
	}
	rep, err := c.DownloadReport(ctx, id, nil)
	require.NoError(t, err, "the mock renders the replayed result's report")
	rep.Body.Close()

	// The failed one fails again, with its error, the ID the mock's.
	pid, items = uploadDocs(t, c, "Failing again", failingDocs)
	id, err = c.StartAnalysis(ctx, pid, profilesvc.StartAnalysisParams{ItemIDs: items})
	require.NoError(t, err)
	a = waitEnded(t, c, id)
	require.Equal(t, profilesvc.AnalysisFailed, a.Status)
	require.NotNil(t, a.Error)
	assert.Equal(t, "the service could not read "+id, *a.Error)

	// Other documents run on the default engine.
	pid, items = uploadDocs(t, c, "Other", otherDocs)
	id, err = c.StartAnalysis(ctx, pid, profilesvc.StartAnalysisParams{ItemIDs: items})
	require.NoError(t, err)
	a = waitEnded(t, c, id)
	require.Equal(t, profilesvc.AnalysisCompleted, a.Status)
	for _, f := range a.Findings {
		assert.NotEqual(t, "upstream", f.Details, "documents the recording does not hold got its result")
	}
}

func TestReplayStrictFailsWhatItDoesNotHold(t *testing.T) {
	t.Parallel()
	path, _ := recordSession(t, recordedDocs, failingDocs)
	srv := newServer(t, mockserver.WithReplayFile(path), mockserver.WithReplayStrict())
	c := srv.Client()
	pid, items := uploadDocs(t, c, "Other", otherDocs)
	id, err := c.StartAnalysis(t.Context(), pid, profilesvc.StartAnalysisParams{ItemIDs: items})
	require.NoError(t, err)
	a := waitEnded(t, c, id)
	require.Equal(t, profilesvc.AnalysisFailed, a.Status)
	require.NotNil(t, a.Error)
	assert.Contains(t, *a.Error, "no recording matches")
	assert.Contains(t, *a.Error, hexSHA(otherDocs.file), "the error names the documents' digests")
}

func TestReplayRefusesARecordingItCannotRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	analysisEntry := func(text string) string {
		b, _ := json.Marshal(text)
		return `{"log":{"entries":[{"request":{"method":"GET","url":"http://svc/v1/profiles/pf_1"},"response":{"status":200,"content":{"text":"{}"}}},` +
			`{"request":{"method":"GET","url":"http://svc/v1/analyses/analysis_1"},"response":{"status":200,"content":{"text":` + string(b) + `}}}]}}`
	}
	tests := []struct {
		name, content, want string
	}{
		{"not JSON", "not json", "not an HTTP Archive"},
		{"no log", `{"entries":[]}`, `field "log" is missing`},
		{"an analysis that is not one", analysisEntry("[1,2]"), "entries[1].response.content.text"},
		{"an analysis without an ID", analysisEntry(`{"status":"completed"}`), `entries[1].response.content.text: the analysis has no "id"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := mockserver.NewHandler(mockserver.WithReplayFile(write(strings.ReplaceAll(tt.name, " ", "-")+".har", tt.content)))
			assert.ErrorContains(t, err, tt.want)
		})
	}
	_, err := mockserver.NewHandler(mockserver.WithReplayFile(filepath.Join(dir, "none.har")))
	assert.Error(t, err, "no such file")
	_, err = mockserver.NewHandler(mockserver.WithReplayStrict())
	assert.ErrorContains(t, err, "needs WithReplayFile")
	srv, err := mockserver.NewHandler(mockserver.WithReplayFile(write("empty.har", `{"log":{"version":"1.2","entries":[]}}`)))
	require.NoError(t, err, "a recording of no analysis is accepted")
	srv.Close()
}

// TestReplayMatchesItemsRecordedWithoutDigestByTypeAndName replays a
// recording that holds no upload (the items were uploaded before it
// began): the recorded analysis's items match the mock's by type and
// name, and the replayed analysis carries the recorded playbook and
// engine.
func TestReplayMatchesItemsRecordedWithoutDigestByTypeAndName(t *testing.T) {
	t.Parallel()
	analysis := map[string]any{
		"id": "analysis_rec1", "profileId": "pf_rec1", "status": "completed", "playbookId": "PB-0042",
		"engine":      map[string]any{"name": "service-engine", "version": "7"},
		"targetItems": []any{map[string]any{"itemId": "item_rec1", "name": "passport.txt", "type": "text", "sourceRef": nil}},
		"findings":    []any{map[string]any{"id": "af_rec1", "category": "identity", "result": "passed", "details": "item_rec1 was read by the service", "sortOrder": 0}},
	}
	text, err := json.Marshal(analysis)
	require.NoError(t, err)
	entry, err := json.Marshal(map[string]any{
		"request":  map[string]any{"method": "GET", "url": "https://svc.example/base/v1/analyses/analysis_rec1"},
		"response": map[string]any{"status": 200, "content": map[string]any{"mimeType": "application/json", "text": string(text)}},
	})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "named.har")
	require.NoError(t, os.WriteFile(path, []byte(`{"log":{"version":"1.2","entries":[`+string(entry)+`]}}`), 0o600))

	srv := newServer(t, mockserver.WithReplayFile(path), mockserver.WithReplayStrict())
	c := srv.Client()
	p, err := c.CreateProfile(t.Context(), mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Named"})
	require.NoError(t, err)
	it, err := c.CreateTextItem(t.Context(), p.DefaultFolder().ID, "whatever the text", profilesvc.CreateItemParams{Name: "passport.txt"})
	require.NoError(t, err)
	id, err := c.StartAnalysis(t.Context(), p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	require.NoError(t, err)
	a := waitEnded(t, c, id)
	require.Equal(t, profilesvc.AnalysisCompleted, a.Status, "the item matched by type and name: %v", a.Error)
	assert.Equal(t, "PB-0042", a.PlaybookID)
	assert.Equal(t, "service-engine", a.Engine["name"])
	require.Len(t, a.Findings, 1)
	assert.Equal(t, it.ID+" was read by the service", a.Findings[0].Details, "the recorded item ID is the mock's")
}
