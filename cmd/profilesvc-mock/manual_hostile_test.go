package main

// -manual-analyses with the binary's other flags: several tenants, a
// state file across restarts, report delays, scripted durations, seeds,
// and the flags it refuses or takes beside it.

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
)

// manualAnalysis makes a profile with a passport item of text (with
// extra, a script) and starts its analysis, returning the analysis ID.
func manualAnalysis(t *testing.T, c *profilesvc.Client, extra string) (profileID, analysisID string) {
	t.Helper()
	p, err := c.CreateProfile(t.Context(), "wf_default", profilesvc.CreateProfileParams{Name: "Manual"})
	require.NoError(t, err)
	it, err := c.CreateTextItem(t.Context(), p.Folders[0].ID, mPassport+extra, profilesvc.CreateItemParams{Name: "passport"})
	require.NoError(t, err)
	id, err := c.StartAnalysis(t.Context(), p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	require.NoError(t, err)
	return p.ID, id
}

func analysisStatus(t *testing.T, c *profilesvc.Client, id string) profilesvc.AnalysisStatus {
	t.Helper()
	a, err := c.GetAnalysis(t.Context(), id, nil)
	require.NoError(t, err)
	return a.Status
}

func TestHostileRunManualAnalysesWithMultiTenant(t *testing.T) {
	t.Parallel()
	const a, b = "6f1c1b52-4b9e-4d57-9a0e-0c8f4f1d2a3b", "0d7e5c4b-3a2f-4e1d-8c9b-7a6f5e4d3c2b"
	m := mStart(t, "-addr", "127.0.0.1:0", "-api-key", a, "-manual-analyses", "-multi-tenant")
	ca, cb := mClient(t, m, a), mClient(t, m, b)
	_, ida := manualAnalysis(t, ca, "")
	_, idb := manualAnalysis(t, cb, "mock:duration=1ms\n")
	assert.Equal(t, profilesvc.AnalysisPending, analysisStatus(t, cb, idb), "a scripted duration does not move a manual analysis")
	// b cannot move a's analysis, nor see it in its state.
	status, body := mRequest(t, "POST", m.URL+"/_mock/analyses/"+ida+"/complete", b, "")
	assert.Equal(t, http.StatusNotFound, status, "%s", body)
	_, state := mRequest(t, "GET", m.URL+"/_mock/state", b, "")
	assert.NotContains(t, string(state), ida)
	assert.Contains(t, string(state), idb)
	assert.Equal(t, profilesvc.AnalysisPending, analysisStatus(t, ca, ida))
	// Each moves its own.
	status, body = mRequest(t, "POST", m.URL+"/_mock/analyses/"+idb+"/process", b, "")
	require.Equal(t, http.StatusOK, status, "%s", body)
	assert.Equal(t, profilesvc.AnalysisProcessing, analysisStatus(t, cb, idb))
	status, body = mRequest(t, "POST", m.URL+"/_mock/analyses/"+ida+"/fail", a, `{"error":"by hand"}`)
	require.Equal(t, http.StatusOK, status, "%s", body)
	got, err := ca.GetAnalysis(t.Context(), ida, nil)
	require.NoError(t, err)
	assert.Equal(t, profilesvc.AnalysisFailed, got.Status)
	require.NotNil(t, got.Error)
	assert.Equal(t, "by hand", *got.Error)
	assert.Equal(t, profilesvc.AnalysisProcessing, analysisStatus(t, cb, idb), "b's is where b left it")
}

// Pending analyses saved in the state file stay pending across a restart
// with -manual-analyses, and the control API moves them then; a restart
// without it resumes their runs on the clock.
func TestHostileRunManualAnalysesWithState(t *testing.T) {
	t.Parallel()
	const key = "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"
	state := filepath.Join(t.TempDir(), "state.json")
	m := mStart(t, "-addr", "127.0.0.1:0", "-api-key", key, "-manual-analyses", "-state", state, "-id-seed", "7")
	c := mClient(t, m, key)
	_, first := manualAnalysis(t, c, "")
	_, second := manualAnalysis(t, c, "mock:duration=1ms\n")
	require.NoError(t, m.stop(t))

	m = mStart(t, "-addr", "127.0.0.1:0", "-api-key", key, "-manual-analyses", "-state", state, "-id-seed", "7")
	c = mClient(t, m, key)
	assert.Equal(t, profilesvc.AnalysisPending, analysisStatus(t, c, first), "still pending after the restart")
	assert.Equal(t, profilesvc.AnalysisPending, analysisStatus(t, c, second))
	status, body := mRequest(t, "POST", m.URL+"/_mock/analyses/"+first+"/complete", key, "")
	require.Equal(t, http.StatusOK, status, "%s", body)
	assert.Equal(t, profilesvc.AnalysisCompleted, analysisStatus(t, c, first))
	require.NoError(t, m.stop(t))

	// Without -manual-analyses the second one runs, as its script says.
	m = mStart(t, "-addr", "127.0.0.1:0", "-api-key", key, "-state", state)
	c = mClient(t, m, key)
	a, err := c.WaitForAnalysis(t.Context(), second, nil)
	require.NoError(t, err)
	assert.Equal(t, profilesvc.AnalysisCompleted, a.Status)
	assert.Equal(t, profilesvc.AnalysisCompleted, analysisStatus(t, c, first))
}

// With -report-delay, an analysis completed by hand waits for its report
// as any does: completed, primaryReportId null, the report not yet
// available.
func TestHostileRunManualAnalysesWithReportDelay(t *testing.T) {
	t.Parallel()
	const key = "k"
	m := mStart(t, "-addr", "127.0.0.1:0", "-api-key", key, "-manual-analyses", "-report-delay", "1h")
	c := mClient(t, m, key)
	_, id := manualAnalysis(t, c, "")
	status, body := mRequest(t, "POST", m.URL+"/_mock/analyses/"+id+"/complete", key, "")
	require.Equal(t, http.StatusOK, status, "%s", body)
	var a struct {
		Status          string
		PrimaryReportID *string
	}
	require.NoError(t, json.Unmarshal(body, &a))
	assert.Equal(t, "completed", a.Status)
	assert.Nil(t, a.PrimaryReportID, "the report is an hour away")
	status, body = mRequest(t, "GET", m.URL+"/v1/analyses/"+id+"/report", key, "")
	assert.Equal(t, http.StatusBadRequest, status, "%s", body)
	assert.Contains(t, string(body), "REPORT_NOT_AVAILABLE")
}

// The flags -manual-analyses refuses, and those it takes.
func TestHostileRunManualAnalysesFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-manual-analyses", "-analysis-duration", "3s"},
		{"-manual-analyses", "-analysis-duration=0s"},
		{"-analysis-duration", "1s", "-manual-analyses=true"},
		{"-manual-analyses", "-proxy", "http://127.0.0.1:1"},
		{"-manual-analyses=maybe"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			_, _, err := mRunError(t, append([]string{"-addr", "127.0.0.1:0"}, args...)...)
			assert.Error(t, err)
		})
	}
	for _, args := range [][]string{
		{"-manual-analyses=false", "-analysis-duration", "1s"},
		{"-manual-analyses", "-report-delay", "1s", "-id-seed", "3", "-log-requests", "-cors", "*"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			m := mStart(t, append([]string{"-addr", "127.0.0.1:0", "-api-key", "k"}, args...)...)
			status, body := mRequest(t, "GET", m.URL+"/_mock/state", "k", "")
			assert.Equal(t, http.StatusOK, status, "%s", body)
			require.NoError(t, m.stop(t))
		})
	}
}
