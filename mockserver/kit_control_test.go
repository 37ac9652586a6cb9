package mockserver_test

// The /_mock/ control API: the test kit over HTTP.

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

func TestKitControlAuth(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	routes := []struct{ method, path string }{
		{"POST", "/_mock/reset"},
		{"GET", "/_mock/workflows"},
		{"POST", "/_mock/workflows"},
		{"POST", "/_mock/seed"},
		{"POST", "/_mock/items/item_x/status"},
		{"POST", "/_mock/analyses/analysis_x/process"},
		{"POST", "/_mock/analyses/analysis_x/complete"},
		{"POST", "/_mock/analyses/analysis_x/fail"},
		{"POST", "/_mock/analyses/analysis_x/verification"},
		{"GET", "/_mock/faults"},
		{"POST", "/_mock/faults"},
		{"DELETE", "/_mock/faults"},
		{"DELETE", "/_mock/faults/fault_1"},
		{"GET", "/_mock/requests"},
		{"DELETE", "/_mock/requests"},
	}
	p, _ := addProfile(t, srv.Tenant, "Survives unauthorised calls")
	for _, rt := range routes {
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			wantError(t, send(t, srv, request{Method: rt.method, Path: rt.path, Key: noKey}), 401, "UNAUTHORIZED")
			wantError(t, send(t, srv, request{Method: rt.method, Path: rt.path, Key: "00000000-0000-4000-8000-000000000000"}), 401, "UNAUTHORIZED")
		})
	}
	_, ok := srv.Profile(p.ID)
	assert.True(t, ok, "an unauthorised /_mock/reset reset the state")
}

func TestKitControlReset(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	p, _ := addProfile(t, srv.Tenant, "To reset")
	_, err := srv.InjectFault(mockserver.Fault{Path: "/none", Status: 500})
	require.NoError(t, err)
	wantNoContent(t, do(t, srv, "POST", "/_mock/reset", nil))
	_, ok := srv.Profile(p.ID)
	assert.False(t, ok || len(srv.Faults()) != 0, "POST /_mock/reset left state behind")
}

func TestKitControlWorkflows(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	var list struct {
		Items []mockserver.Workflow `json:"items"`
	}
	decode(t, do(t, srv, "GET", "/_mock/workflows", nil), &list)
	require.True(t, len(list.Items) == 1 && list.Items[0].ID == mockserver.DefaultWorkflowID && len(list.Items[0].OutputSchema) > 0 && len(list.Items[0].Policy) > 0,
		"GET /_mock/workflows = %+v", list)

	r := do(t, srv, "POST", "/_mock/workflows", `{"id":"wf_http","name":"Over HTTP","outputSchema":{"type":"object","properties":{"extracted_values":{"type":"object"}}},"policy":[{"actionName":"extract","category":"Data Extraction","query":"q"}]}`)
	wantStatus(t, r, 201)
	var created mockserver.Workflow
	decode(t, r, &created)
	assert.True(t, created.ID == "wf_http" && created.Name == "Over HTTP", "POST /_mock/workflows answered %+v", created)
	decode(t, do(t, srv, "GET", "/_mock/workflows", nil), &list)
	assert.Len(t, list.Items, 2, "workflows after POST = %+v", list.Items)
	wantStatus(t, do(t, srv, "POST", "/v1/workflows/wf_http/profiles", `{"name":"in wf_http"}`), 201)

	for _, tc := range []struct {
		name, body string
		status     int
		code       string
	}{
		{"bad id", `{"id":"http"}`, 400, "VALIDATION_ERROR"},
		{"schema without properties", `{"id":"wf_x","outputSchema":{"type":"object"}}`, 400, "VALIDATION_ERROR"},
		{"malformed JSON", `{"id":`, 400, "VALIDATION_ERROR"},
		{"wrong type", `{"id":5}`, 400, "VALIDATION_ERROR"},
		{"unknown field", `{"id":"wf_x","extra":1}`, 400, "VALIDATION_ERROR"},
		{"empty body", ``, 400, "VALIDATION_ERROR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, do(t, srv, "POST", "/_mock/workflows", tc.body), tc.status, tc.code)
		})
	}
	t.Run("not JSON", func(t *testing.T) {
		r := send(t, srv, request{Method: "POST", Path: "/_mock/workflows", Body: []byte(`id=wf_x`), ContentType: "application/x-www-form-urlencoded"})
		wantError(t, r, 415, "UNSUPPORTED_MEDIA_TYPE")
	})
	decode(t, do(t, srv, "GET", "/_mock/workflows", nil), &list)
	assert.Len(t, list.Items, 2, "refused workflows were added: %+v", list.Items)
}

func TestKitControlSeed(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	raw, err := json.Marshal(testSeed())
	require.NoError(t, err)
	r := do(t, srv, "POST", "/_mock/seed", raw)
	wantStatus(t, r, 204)
	checkSeeded(t, srv.Tenant)

	t.Run("path refused", func(t *testing.T) {
		srv := mockserver.NewTest(t)
		wantError(t, do(t, srv, "POST", "/_mock/seed", `{"profiles":[{"name":"x","folders":[{"name":"default","items":[{"type":"file","path":"/etc/passwd"}]}]}]}`), 400, "VALIDATION_ERROR")
		assert.Empty(t, srv.Profiles(), "a refused seed loaded profiles")
	})
	t.Run("invalid seed loads nothing", func(t *testing.T) {
		srv := mockserver.NewTest(t)
		wantError(t, do(t, srv, "POST", "/_mock/seed", `{"profiles":[{"name":"ok"},{"name":"x","workflowId":"wf_missing"}]}`), 400, "VALIDATION_ERROR")
		assert.Empty(t, srv.Profiles(), "a refused seed loaded profiles")
	})
	t.Run("bad bodies", func(t *testing.T) {
		srv := mockserver.NewTest(t)
		for _, body := range []string{`{"profiles":`, `{"profiles":{}}`, `{"nope":1}`, `[]`} {
			wantError(t, do(t, srv, "POST", "/_mock/seed", body), 400, "VALIDATION_ERROR")
		}
	})
}

func TestKitControlItemStatus(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses())
	pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")

	r := do(t, srv, "POST", "/_mock/items/"+iid+"/status", `{"status":"PROCESSING"}`)
	wantStatus(t, r, 200)
	var it profilesvc.Item
	decode(t, r, &it)
	assert.True(t, it.ID == iid && it.Status == profilesvc.ItemProcessing, "answer = %s %s, want %s PROCESSING", it.ID, it.Status, iid)
	wantError(t, do(t, srv, "POST", "/v1/analyses/"+pid+"/analyze", targets(iid)), 400, "INVALID_ITEM_IDS")
	wantStatus(t, do(t, srv, "POST", "/_mock/items/"+iid+"/status", `{"status":"ACTIVE"}`), 200)
	startAnalysis(t, srv, pid, iid)

	for _, body := range []string{`{}`, `{"status":""}`, `{"status":5}`, `{"status":"ACTIVE","x":1}`, `not json`} {
		wantError(t, do(t, srv, "POST", "/_mock/items/"+iid+"/status", body), 400, "VALIDATION_ERROR")
	}
	wantError(t, do(t, srv, "POST", "/_mock/items/item_missing/status", `{"status":"ACTIVE"}`), 404, "ITEM_NOT_FOUND")
}

func TestKitControlAnalyses(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses())
	pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")
	analysisIn := func(t *testing.T, r *response) profilesvc.Analysis {
		t.Helper()
		wantStatus(t, r, 200)
		var a profilesvc.Analysis
		decode(t, r, &a)
		return a
	}

	t.Run("process and complete", func(t *testing.T) {
		id := startAnalysis(t, srv, pid, iid)
		a := analysisIn(t, do(t, srv, "POST", "/_mock/analyses/"+id+"/process", nil))
		assert.True(t, a.ID == id && a.Status == profilesvc.AnalysisProcessing, "process answered %s %s", a.ID, a.Status)
		wantError(t, do(t, srv, "POST", "/_mock/analyses/"+id+"/process", nil), 409, "ANALYSIS_NOT_PENDING")
		a = analysisIn(t, do(t, srv, "POST", "/_mock/analyses/"+id+"/complete", nil))
		assert.True(t, a.Status == profilesvc.AnalysisCompleted && a.PrimaryReportID != nil, "complete answered %s, report %v", a.Status, a.PrimaryReportID)
		wantError(t, do(t, srv, "POST", "/_mock/analyses/"+id+"/complete", nil), 409, "ANALYSIS_FINISHED")
		wantError(t, do(t, srv, "POST", "/_mock/analyses/"+id+"/fail", `{"error":"late"}`), 409, "ANALYSIS_FINISHED")

		for _, vs := range []string{"approved", "rejected"} {
			a := analysisIn(t, do(t, srv, "POST", "/_mock/analyses/"+id+"/verification", `{"verificationStatus":"`+vs+`"}`))
			assert.Equal(t, vs, string(a.VerificationStatus), "what verification answered")
			var got profilesvc.Analysis
			decode(t, do(t, srv, "GET", "/v1/analyses/"+id, nil), &got)
			assert.Equal(t, vs, string(got.VerificationStatus), "what GET says after verification %s", vs)
		}
		for _, body := range []string{`{"verificationStatus":"maybe"}`, `{}`, `{"verificationStatus":1}`, `{"status":"approved"}`, `{`} {
			wantError(t, do(t, srv, "POST", "/_mock/analyses/"+id+"/verification", body), 400, "VALIDATION_ERROR")
		}
	})

	t.Run("fail with a message", func(t *testing.T) {
		id := startAnalysis(t, srv, pid, iid)
		a := analysisIn(t, do(t, srv, "POST", "/_mock/analyses/"+id+"/fail", `{"error":"document unreadable"}`))
		assert.True(t, a.Status == profilesvc.AnalysisFailed && a.Error != nil && *a.Error == "document unreadable", "fail answered %s, error %v", a.Status, a.Error)
	})

	t.Run("fail without a body", func(t *testing.T) {
		id := startAnalysis(t, srv, pid, iid)
		a := analysisIn(t, send(t, srv, request{Method: "POST", Path: "/_mock/analyses/" + id + "/fail"}))
		assert.True(t, a.Status == profilesvc.AnalysisFailed && a.Error != nil && *a.Error != "", "fail without a body answered %s, error %v", a.Status, a.Error)
	})

	t.Run("fail with a bad body", func(t *testing.T) {
		id := startAnalysis(t, srv, pid, iid)
		for _, body := range []string{`{"error":5}`, `{"reason":"x"}`, `{`} {
			wantError(t, do(t, srv, "POST", "/_mock/analyses/"+id+"/fail", body), 400, "VALIDATION_ERROR")
		}
		wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisPending)
		require.NoError(t, srv.CompleteAnalysis(id))
	})

	t.Run("unknown analysis", func(t *testing.T) {
		for _, tc := range []struct{ path, body string }{
			{"/_mock/analyses/analysis_missing/process", ""},
			{"/_mock/analyses/analysis_missing/complete", ""},
			{"/_mock/analyses/analysis_missing/fail", `{"error":"x"}`},
			{"/_mock/analyses/analysis_missing/verification", `{"verificationStatus":"approved"}`},
		} {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			wantError(t, do(t, srv, "POST", tc.path, body), 404, "ANALYSIS_NOT_FOUND")
		}
	})
}

func TestKitControlFaults(t *testing.T) {
	t.Parallel()
	clock := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := mockserver.NewTest(t, mockserver.WithClock(clock))
	p, _ := addProfile(t, srv.Tenant, "Faulty")

	r := do(t, srv, "POST", "/_mock/faults", `{"method":"GET","path":"/v1/profiles/*","status":503,"code":"SERVICE_UNAVAILABLE","message":"try later","retryAfterSeconds":2,"times":1}`)
	wantStatus(t, r, 201)
	// The JSON form of a fault.
	type fault struct {
		ID                string `json:"id"`
		Status            int    `json:"status"`
		Times             int    `json:"times"`
		RetryAfterSeconds int    `json:"retryAfterSeconds"`
	}
	var f fault
	decode(t, r, &f)
	assert.True(t, f.ID != "" && f.Status == 503 && f.Times == 1 && f.RetryAfterSeconds == 2, "POST /_mock/faults answered %+v", f)
	var list struct {
		Items []fault `json:"items"`
	}
	decode(t, do(t, srv, "GET", "/_mock/faults", nil), &list)
	require.True(t, len(list.Items) == 1 && list.Items[0].ID == f.ID, "GET /_mock/faults = %+v", list)
	r = do(t, srv, "GET", "/v1/profiles/"+p.ID, nil)
	msg := wantError(t, r, 503, "SERVICE_UNAVAILABLE")
	assert.True(t, msg == "try later" && r.Header.Get("Retry-After") == "2", "fault answer: Retry-After %q, body %s", r.Header.Get("Retry-After"), r.Body)
	wantStatus(t, do(t, srv, "GET", "/v1/profiles/"+p.ID, nil), 200) // used up

	// A delay and a drop over HTTP.
	wantStatus(t, do(t, srv, "POST", "/_mock/faults", `{"path":"/v1/profiles/*","delayMs":120,"times":1}`), 201)
	delayed := goSend(t, srv, request{Method: "GET", Path: "/v1/profiles/" + p.ID})
	wantStatus(t, wantHeldFor(t, clock, delayed, 120*time.Millisecond), 200)
	r = do(t, srv, "POST", "/_mock/faults", `{"path":"/v1/folders/*","drop":true}`)
	wantStatus(t, r, 201)
	var drop mockserver.Fault
	decode(t, r, &drop)
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	req, _ := http.NewRequest("GET", srv.URL+"/v1/folders/fld_x", nil)
	req.Header.Set("x-api-key", srv.APIKey)
	if resp, err := hc.Do(req); err == nil {
		resp.Body.Close()
		assert.Failf(t, "a drop fault over HTTP let an answer through", "status %d", resp.StatusCode)
	}

	// DELETE one, then all.
	r = do(t, srv, "DELETE", "/_mock/faults/"+drop.ID, nil)
	wantStatus(t, r, 204)
	wantError(t, do(t, srv, "DELETE", "/_mock/faults/"+drop.ID, nil), 404, "NOT_FOUND")
	wantStatus(t, do(t, srv, "GET", "/v1/folders/"+p.Folders[0].ID, nil), 200)
	wantStatus(t, do(t, srv, "POST", "/_mock/faults", `{"status":500}`), 201)
	wantStatus(t, do(t, srv, "POST", "/_mock/faults", `{"status":502}`), 201)
	wantStatus(t, do(t, srv, "DELETE", "/_mock/faults", nil), 204)
	decode(t, do(t, srv, "GET", "/_mock/faults", nil), &list)
	assert.Empty(t, list.Items, "faults after DELETE /_mock/faults")
	// The control API is not subject to faults.
	wantStatus(t, do(t, srv, "POST", "/_mock/faults", `{"status":500}`), 201)
	wantStatus(t, do(t, srv, "GET", "/_mock/faults", nil), 200)
	wantStatus(t, do(t, srv, "DELETE", "/_mock/faults", nil), 204)

	for _, body := range []string{
		`{}`, `{"status":200}`, `{"status":503,"drop":true}`, `{"status":503,"times":-1}`,
		`{"status":503,"probability":2}`, `{"status":503,"path":"["}`, `{"status":"503"}`,
		`{"status":503,"unknown":1}`, `{"status":503`,
		// Out-of-range numbers: refused, not silently ignored or wrapped.
		`{"status":503,"retryAfterSeconds":-1}`, `{"status":503,"delayMs":-1}`,
		`{"status":503,"retryAfterSeconds":100000000000}`,
	} {
		t.Run(body, func(t *testing.T) {
			wantError(t, do(t, srv, "POST", "/_mock/faults", body), 400, "VALIDATION_ERROR")
		})
	}
	decode(t, do(t, srv, "GET", "/_mock/faults", nil), &list)
	assert.Empty(t, list.Items, "refused faults were kept")
}

func TestKitControlRequests(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	do(t, srv, "POST", "/v1/workflows/wf_default/profiles", `{"name":"recorded"}`)
	do(t, srv, "GET", "/v1/profiles/pf_missing?x=1", nil)

	var list struct {
		Count int                          `json:"count"`
		Items []mockserver.RecordedRequest `json:"items"`
	}
	r := do(t, srv, "GET", "/_mock/requests", nil)
	wantStatus(t, r, 200)
	decode(t, r, &list)
	require.True(t, list.Count == 2 && len(list.Items) == 2, "GET /_mock/requests = %s", r.Body)
	assert.True(t, list.Items[0].Method == "POST" && string(list.Items[0].Body) == `{"name":"recorded"}` && list.Items[0].Status == 201,
		"first recorded request = %+v", list.Items[0])
	assert.True(t, list.Items[1].Path == "/v1/profiles/pf_missing" && list.Items[1].Query.Get("x") == "1" && list.Items[1].Status == 400,
		"second recorded request = %+v", list.Items[1])
	assert.Equal(t, "[REDACTED]", list.Items[0].Header.Get("X-Api-Key"), "recorded key")
	assert.NotContains(t, string(r.Body), srv.APIKey, "GET /_mock/requests holds the key")

	wantStatus(t, do(t, srv, "DELETE", "/_mock/requests", nil), 204)
	decode(t, do(t, srv, "GET", "/_mock/requests", nil), &list)
	assert.True(t, list.Count == 0 && list.Items != nil && len(list.Items) == 0,
		"after DELETE /_mock/requests: count %d, items %v (want 0 and [])", list.Count, list.Items)
}
