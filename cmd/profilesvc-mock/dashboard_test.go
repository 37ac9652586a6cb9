package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
)

// With -manual-analyses an analysis waits in pending until the control
// API moves it, as the dashboard does; the dashboard's page is served by
// the binary without a key, and its state with one.
func TestRunManualAnalysesAndDashboard(t *testing.T) {
	t.Parallel()
	m := mStart(t, "-addr", "127.0.0.1:0", "-api-key", "k", "-manual-analyses")
	c, err := profilesvc.NewClient(profilesvc.WithBaseURL(m.URL), profilesvc.WithAPIKey(m.Key), profilesvc.WithMaxRetries(0))
	require.NoError(t, err)
	ctx := t.Context()
	p, err := c.CreateProfile(ctx, "wf_default", profilesvc.CreateProfileParams{Name: "Driven by hand"})
	require.NoError(t, err)
	item, err := c.CreateTextItem(ctx, p.Folders[0].ID, mPassport, profilesvc.CreateItemParams{Name: "passport"})
	require.NoError(t, err)
	id, err := c.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{item.ID}})
	require.NoError(t, err)

	page, err := http.Get(m.URL + "/_mock/ui") // no key
	require.NoError(t, err)
	_ = page.Body.Close()
	require.Equal(t, http.StatusOK, page.StatusCode)
	assert.True(t, strings.HasPrefix(page.Header.Get("Content-Type"), "text/html"))

	var state struct {
		Profiles []struct {
			Analyses []struct{ ID, Status string }
		}
	}
	status, body := mRequest(t, "GET", m.URL+"/_mock/state", m.Key, "")
	require.Equal(t, http.StatusOK, status, "%s", body)
	require.NoError(t, json.Unmarshal(body, &state))
	require.Len(t, state.Profiles, 1)
	require.Len(t, state.Profiles[0].Analyses, 1)
	assert.Equal(t, id, state.Profiles[0].Analyses[0].ID)
	assert.Equal(t, "pending", state.Profiles[0].Analyses[0].Status, "manual: pending until moved")

	status, body = mRequest(t, "POST", m.URL+"/_mock/analyses/"+id+"/complete", m.Key, "")
	require.Equal(t, http.StatusOK, status, "%s", body)
	a, err := c.GetAnalysis(ctx, id, nil)
	require.NoError(t, err)
	assert.Equal(t, profilesvc.AnalysisCompleted, a.Status)
}
