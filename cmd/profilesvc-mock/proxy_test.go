package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

func TestRunProxy(t *testing.T) {
	t.Parallel()
	upstream := mockserver.NewTest(t)
	har := filepath.Join(t.TempDir(), "run.har")
	m := mStart(t, "-addr", "127.0.0.1:0", "-proxy", upstream.URL, "-api-key", "proxy-key", "-record", har)
	assert.Equal(t, "proxy-key", m.Key)
	assert.Contains(t, m.stdout.String(), "proxy to "+upstream.URL)

	status, body := mRequest(t, "POST", m.URL+"/v1/workflows/wf_default/profiles", upstream.APIKey, `{"name":"Through the binary"}`)
	require.Equal(t, http.StatusCreated, status, "%s", body)
	require.Len(t, upstream.Profiles(), 1, "the profile was made by the service")

	status, body = mRequest(t, "GET", m.URL+"/_mock/conformance", "proxy-key", "")
	require.Equal(t, http.StatusOK, status, "%s", body)
	var conf mockserver.Conformance
	require.NoError(t, json.Unmarshal(body, &conf))
	assert.Equal(t, 1, conf.Calls)
	status, _ = mRequest(t, "POST", m.URL+"/_mock/reset", "proxy-key", "")
	assert.Equal(t, http.StatusConflict, status, "a reset in proxy mode")

	require.NoError(t, m.stop(t))
	table := m.stderr.String()
	assert.Contains(t, table, "Conformance of "+upstream.URL)
	assert.Contains(t, table, "createProfile")
	assert.Contains(t, table, "201×1")
	assert.NotContains(t, table+m.stdout.String(), upstream.APIKey, "the service's key is printed")
	raw, err := os.ReadFile(har)
	require.NoError(t, err, "the recording is written at shutdown")
	assert.Contains(t, string(raw), `"method": "POST"`)
	assert.NotContains(t, string(raw), upstream.APIKey)
	assert.Contains(t, m.stdout.String(), "recording: "+har)
}

func TestRunProxyTrustsItsCA(t *testing.T) {
	t.Parallel()
	upstream := mockserver.NewTest(t, mockserver.WithTLS())
	ca := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(ca, mockserver.CertificatePEM(upstream.Certificate()), 0o600))
	m := mStart(t, "-addr", "127.0.0.1:0", "-proxy", upstream.URL, "-proxy-ca", ca)
	status, body := mRequest(t, "GET", m.URL+"/v1/profiles/pf_none", upstream.APIKey, "")
	assert.Equal(t, http.StatusNotFound, status, "the service answered through TLS: %s", body)
	assert.Contains(t, string(body), "PROFILE_NOT_FOUND")
}

func TestRunProxyFlagErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	require.NoError(t, os.WriteFile(notPEM, []byte("no certificate here"), 0o600))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a simulation flag", []string{"-proxy", "http://127.0.0.1:1", "-seed", "seed.json"}, "-seed"},
		{"two simulation flags", []string{"-proxy", "http://127.0.0.1:1", "-multi-tenant", "-analysis-duration", "1s"}, "-analysis-duration, -multi-tenant"},
		{"-proxy-ca without -proxy", []string{"-proxy-ca", notPEM}, "-proxy-ca needs -proxy"},
		{"-proxy-timeout without -proxy", []string{"-proxy-timeout", "1s"}, "-proxy-timeout needs -proxy"},
		{"no such CA file", []string{"-proxy", "http://127.0.0.1:1", "-proxy-ca", filepath.Join(dir, "none.pem")}, "-proxy-ca"},
		{"a CA file without a certificate", []string{"-proxy", "http://127.0.0.1:1", "-proxy-ca", notPEM}, "no PEM certificate"},
		{"a target that is not a URL", []string{"-proxy", "ftp://example.com"}, "want an http or https URL"},
		{"-record without -proxy", []string{"-record", filepath.Join(dir, "x.har")}, "-record needs -proxy"},
		{"-record-bodies without -record", []string{"-proxy", "http://127.0.0.1:1", "-record-bodies"}, "needs WithProxyRecording"},
		{"a recording in no directory", []string{"-proxy", "http://127.0.0.1:1", "-record", filepath.Join(dir, "none", "x.har")}, "recording"},
		{"a zero timeout", []string{"-proxy", "http://127.0.0.1:1", "-proxy-timeout", "0s"}, "timeout must be positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := mRunError(t, append([]string{"-addr", "127.0.0.1:0"}, tt.args...)...)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

func TestRunReplay(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.har")
	require.NoError(t, os.WriteFile(empty, []byte(`{"log":{"version":"1.2","entries":[]}}`), 0o600))
	m := mStart(t, "-addr", "127.0.0.1:0", "-replay", empty, "-replay-strict", "-analysis-duration", "0s")
	c := mClient(t, m, m.Key)
	p, err := c.CreateProfile(t.Context(), mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Strict"})
	require.NoError(t, err)
	it, err := c.CreateTextItem(t.Context(), p.DefaultFolder().ID, "nothing recorded", profilesvc.CreateItemParams{Name: "note"})
	require.NoError(t, err)
	id, err := c.StartAnalysis(t.Context(), p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	require.NoError(t, err)
	_, err = c.WaitForAnalysis(t.Context(), id, nil)
	require.ErrorIs(t, err, profilesvc.ErrAnalysisFailed, "-replay-strict fails what the recording does not hold")

	bad := filepath.Join(dir, "bad.har")
	require.NoError(t, os.WriteFile(bad, []byte(`{"entries":[]}`), 0o600))
	_, _, err = mRunError(t, "-addr", "127.0.0.1:0", "-replay", bad)
	assert.ErrorContains(t, err, `field "log" is missing`)
	_, _, err = mRunError(t, "-addr", "127.0.0.1:0", "-replay-strict")
	assert.ErrorContains(t, err, "needs WithReplayFile")
}

func TestRunProxyLogsEachViolation(t *testing.T) {
	t.Parallel()
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Request-Id", "req_broken_answer")
		_, _ = io.WriteString(w, `{"id":42}`)
	}))
	t.Cleanup(broken.Close)
	const callerKey = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"
	m := mStart(t, "-addr", "127.0.0.1:0", "-proxy", broken.URL, "-log-requests")
	status, _ := mRequest(t, "GET", m.URL+"/v1/profiles/pf_1?token="+callerKey, callerKey, "")
	require.Equal(t, http.StatusOK, status)
	require.NoError(t, m.stop(t))
	logs := m.stderr.String()
	var violation, request string
	for _, line := range strings.Split(logs, "\n") {
		switch {
		case strings.Contains(line, "disagrees with api/openapi.yaml") && strings.Contains(line, "pointer=/id"):
			violation = line
		case strings.Contains(line, "msg=request"):
			request = line
		}
	}
	require.NotEmpty(t, violation, "no line for the violation of /id: %s", logs)
	assert.Contains(t, violation, "operation=getProfile")
	assert.Contains(t, violation, "requestId=req_broken_answer")
	require.NotEmpty(t, request, "-log-requests logs the request: %s", logs)
	assert.Contains(t, request, "status=200")
	assert.NotContains(t, logs, callerKey, "the caller's key is in the log")
}
