package mockserver_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// hAlwaysPresent are the analysis fields the document marks always present.
var hAlwaysPresent = []string{"id", "profileId", "folderId", "engineId", "playbookId", "engine", "status",
	"processingTimeMs", "verificationStatus", "error", "options", "clientMetadata", "primaryReportId",
	"requestedAt", "completedAt", "createdAt"}

// hResultFields are the fields a completed analysis adds.
var hResultFields = []string{"riskAssessment", "extractedData", "outputSchema", "extractionStatus",
	"rawActionResults", "agentAuditLog", "findings", "recommendations", "targetItems", "systemMetadata"}

func hOneOf(t *testing.T, what string, v any, allowed ...string) {
	t.Helper()
	s, ok := v.(string)
	if ok {
		for _, a := range allowed {
			if s == a {
				return
			}
		}
	}
	t.Errorf("%s = %#v, want one of %v", what, v, allowed)
}

// hCheckAnalysis checks the always-present fields of an analysis.
func hCheckAnalysis(t *testing.T, a map[string]any, profileID, status string) {
	t.Helper()
	hKeys(t, "analysis", a, hAlwaysPresent...)
	hID(t, "analysis", a, "id", "analysis_")
	if a["profileId"] != profileID {
		t.Errorf("profileId = %v, want %s", a["profileId"], profileID)
	}
	hNull(t, "analysis", a, "folderId")
	hNull(t, "analysis", a, "engineId")
	hNull(t, "analysis", a, "engine")
	if pb := hStr(t, "analysis", a, "playbookId"); !strings.HasPrefix(pb, "PB-") || len(pb) <= 3 {
		t.Errorf("playbookId = %q, want a PB- prefix", pb)
	}
	if a["status"] != status {
		t.Errorf("status = %v, want %s", a["status"], status)
	}
	if ms := hNum(t, "analysis", a, "processingTimeMs"); ms < 0 {
		t.Errorf("processingTimeMs = %v, want >= 0", ms)
	}
	hOneOf(t, "verificationStatus", a["verificationStatus"], "pending_review", "approved", "rejected")
	for _, k := range []string{"options", "clientMetadata"} {
		if a[k] != nil {
			hMap(t, "analysis", a, k)
		}
	}
	requested := hTime(t, "analysis", a, "requestedAt")
	hTime(t, "analysis", a, "createdAt")
	switch status {
	case "completed":
		hNull(t, "completed analysis", a, "error")
		hID(t, "completed analysis", a, "primaryReportId", "rpt_")
		if done := hTime(t, "completed analysis", a, "completedAt"); done.Before(requested) {
			t.Errorf("completedAt %v is before requestedAt %v", done, requested)
		}
	case "failed":
		if msg, ok := a["error"].(string); !ok || msg == "" {
			t.Errorf("failed analysis: error = %#v, want a message", a["error"])
		}
		hNull(t, "failed analysis", a, "primaryReportId")
	default:
		hNull(t, status+" analysis", a, "error")
		hNull(t, status+" analysis", a, "primaryReportId")
		hNull(t, status+" analysis", a, "completedAt")
	}
}

// hCheckResult checks the result fields of a completed analysis of
// wf_default and their consistency with each other.
func hCheckResult(t *testing.T, a map[string]any, profileID string, itemIDs []string) {
	t.Helper()
	hCheckResultOf(t, a, profileID, itemIDs, mockserver.DefaultWorkflow())
}

// hCheckResultOf checks the result fields of a completed analysis of the
// workflow wf: every one present, one finding, audit entry, history entry
// and raw result per action of its policy, and the extracted data
// consistent with the risk assessment and the output schema.
func hCheckResultOf(t *testing.T, a map[string]any, profileID string, itemIDs []string, wf mockserver.Workflow) {
	t.Helper()
	hKeys(t, "completed analysis", a, hResultFields...)
	for _, k := range hResultFields {
		if a[k] == nil {
			t.Errorf("completed analysis: %s is null", k)
		}
	}
	policy := wf.Policy

	ra := hMap(t, "analysis", a, "riskAssessment")
	hOneOf(t, "riskAssessment.riskLevel", ra["riskLevel"], "low", "medium", "high")
	if s := hNum(t, "riskAssessment", ra, "riskScore"); s < 0 || s > 100 {
		t.Errorf("riskScore = %v, want 0..100", s)
	}
	for i, f := range hArr(t, "riskAssessment", ra, "riskFactors") {
		if _, ok := f.(string); !ok {
			t.Errorf("riskFactors[%d] = %#v, want a string", i, f)
		}
	}

	ed := hMap(t, "analysis", a, "extractedData")
	os := hMap(t, "analysis", a, "outputSchema")
	props := hMap(t, "outputSchema", os, "properties")
	es := hMap(t, "analysis", a, "extractionStatus")
	if len(es) != len(props) {
		t.Errorf("extractionStatus has %d fields, the output schema %d", len(es), len(props))
	}
	for k := range props {
		hOneOf(t, "extractionStatus."+k, es[k], "extracted", "missing")
	}
	for k := range ed {
		if _, ok := props[k]; !ok {
			t.Errorf("extractedData.%s is not a field of the output schema", k)
		}
	}
	if _, ok := props["request_id"]; ok {
		if ed["request_id"] != profileID {
			t.Errorf("extractedData.request_id = %v, want the profile ID %s", ed["request_id"], profileID)
		}
		if b, _ := json.Marshal(props["request_id"]); !strings.Contains(string(b), profileID) {
			t.Errorf("outputSchema.properties.request_id = %s, want it to hold the profile ID", b)
		}
	}
	if _, ok := props["review_result"]; !ok {
		hCheckActions(t, a, itemIDs, policy)
		return
	}
	rr := hMap(t, "extractedData", ed, "review_result")
	hOneOf(t, "review_result.final_action", rr["final_action"], "approve", "reject", "manual_review")
	if rr["final_risk_level"] != ra["riskLevel"] {
		t.Errorf("review_result.final_risk_level = %v, riskAssessment.riskLevel = %v: want them equal", rr["final_risk_level"], ra["riskLevel"])
	}
	hStr(t, "review_result", rr, "final_action_reason")
	hStr(t, "review_result", rr, "final_risk_level_reason")
	hMap(t, "extractedData", ed, "extracted_values")
	cj := hMap(t, "extractedData", ed, "category_judgements")
	hOneOf(t, "overall_consistency_result", cj["overall_consistency_result"], "pass", "needs_review", "fail")
	for k, v := range cj {
		if strings.HasSuffix(k, "_check_result") {
			hOneOf(t, "category_judgements."+k, v, "pass", "fail", "unverifiable", "needs_review")
		}
	}
	for k, v := range hMap(t, "extractedData", ed, "document_validations") {
		if strings.HasSuffix(k, "_is_valid") {
			if _, ok := v.(bool); !ok {
				t.Errorf("document_validations.%s = %#v, want a boolean", k, v)
			}
		}
	}

	hCheckActions(t, a, itemIDs, policy)
}

// hCheckActions checks that a completed analysis has one finding, audit
// entry, history entry and raw result per action of the policy, in order,
// and that its recommendations and target items are well formed.
func hCheckActions(t *testing.T, a map[string]any, itemIDs []string, policy []mockserver.PolicyAction) {
	t.Helper()
	n := len(policy)
	rar := hMap(t, "analysis", a, "rawActionResults")
	audit := hObjs(t, "analysis", a, "agentAuditLog")
	findings := hObjs(t, "analysis", a, "findings")
	sm := hMap(t, "analysis", a, "systemMetadata")
	history := hObjs(t, "systemMetadata", sm, "workflowHistory")
	if len(rar) != n || len(audit) != n || len(findings) != n || len(history) != n {
		t.Fatalf("rawActionResults %d, agentAuditLog %d, findings %d, workflowHistory %d: want %d each (one per policy action)",
			len(rar), len(audit), len(findings), len(history), n)
	}
	hNum(t, "systemMetadata", sm, "totalIterations")
	wantIDs := []any{}
	for i := 1; i <= n; i++ {
		wantIDs = append(wantIDs, float64(i))
	}
	hEqualJSON(t, "systemMetadata.completedWorkIds", sm["completedWorkIds"], wantIDs)

	findingIDs := map[string]bool{}
	targetIDs := make([]any, len(itemIDs))
	for i, id := range itemIDs {
		targetIDs[i] = id
	}
	for i, act := range policy {
		workID := float64(i + 1)
		e := audit[i]
		what := fmt.Sprintf("agentAuditLog[%d]", i)
		hKeys(t, what, e, "workId", "actionName", "category", "query", "reasoning", "success", "iteration", "durationMs", "executedAt", "targetItemIds")
		if e["workId"] != workID || e["actionName"] != act.ActionName || e["category"] != act.Category {
			t.Errorf("%s = workId %v action %v category %v, want %v %s %s", what, e["workId"], e["actionName"], e["category"], workID, act.ActionName, act.Category)
		}
		hStr(t, what, e, "query")
		hStr(t, what, e, "reasoning")
		hBool(t, what, e, "success")
		hNum(t, what, e, "iteration")
		hNum(t, what, e, "durationMs")
		hTime(t, what, e, "executedAt")
		hEqualJSON(t, what+".targetItemIds", e["targetItemIds"], targetIDs)
		if v, ok := e["verificationStatus"]; ok && v != nil {
			hOneOf(t, what+".verificationStatus", v, "passed", "needs_review", "failed")
		}
		if rag, ok := e["ragResponse"]; ok && rag != nil {
			r := hMap(t, what, e, "ragResponse")
			hKeys(t, what+".ragResponse", r, "answer", "citations", "chunksSearched", "processingTimeMs")
		}
		if calls, ok := e["mcpToolCalls"]; ok && calls != nil {
			for j, c := range hObjs(t, what, e, "mcpToolCalls") {
				hKeys(t, fmt.Sprintf("%s.mcpToolCalls[%d]", what, j), c, "toolName", "engineCode", "engineName", "params",
					"success", "startedAt", "executionTimeMs", "rawContent", "fallbackToRag", "selectionReason")
			}
		}

		h := history[i]
		what = fmt.Sprintf("workflowHistory[%d]", i)
		hKeys(t, what, h, "workId", "actionName", "query", "reason", "success", "iteration", "timestamp")
		if h["workId"] != workID || h["actionName"] != act.ActionName {
			t.Errorf("%s = workId %v action %v, want %v %s", what, h["workId"], h["actionName"], workID, act.ActionName)
		}
		hTime(t, what, h, "timestamp")

		r, ok := rar[act.ActionName].(map[string]any)
		if !ok {
			t.Errorf("rawActionResults has no object for action %s", act.ActionName)
		} else {
			what = "rawActionResults." + act.ActionName
			hKeys(t, what, r, "answer", "workId", "citationsCount", "verificationStatus")
			hStr(t, what, r, "answer")
			hNum(t, what, r, "citationsCount")
			if r["workId"] != workID {
				t.Errorf("%s.workId = %v, want %v", what, r["workId"], workID)
			}
			hOneOf(t, what+".verificationStatus", r["verificationStatus"], "passed", "needs_review", "failed")
			if v, ok := e["verificationStatus"]; ok && v != nil && v != r["verificationStatus"] {
				t.Errorf("%s.verificationStatus %v differs from the audit entry's %v", what, r["verificationStatus"], v)
			}
		}

		f := findings[i]
		what = fmt.Sprintf("findings[%d]", i)
		hKeys(t, what, f, "id", "category", "result", "details", "sortOrder")
		fid := hID(t, what, f, "id", "af_")
		if findingIDs[fid] {
			t.Errorf("finding ID %s repeated", fid)
		}
		findingIDs[fid] = true
		if f["category"] != act.ActionName {
			t.Errorf("%s.category = %v, want the action name %s", what, f["category"], act.ActionName)
		}
		hOneOf(t, what+".result", f["result"], "passed", "warning", "failed")
		hStr(t, what, f, "details")
		hNum(t, what, f, "sortOrder")
	}

	recs := hObjs(t, "analysis", a, "recommendations")
	if len(recs) == 0 {
		t.Errorf("no recommendations")
	}
	for i, r := range recs {
		what := fmt.Sprintf("recommendations[%d]", i)
		hKeys(t, what, r, "id", "content", "priority", "sortOrder")
		hID(t, what, r, "id", "ar_")
		hStr(t, what, r, "content")
		hNum(t, what, r, "priority")
		hNum(t, what, r, "sortOrder")
	}

	targets := hObjs(t, "analysis", a, "targetItems")
	if len(targets) != len(itemIDs) {
		t.Fatalf("targetItems has %d entries, want %d", len(targets), len(itemIDs))
	}
	for i, ti := range targets {
		what := fmt.Sprintf("targetItems[%d]", i)
		hKeys(t, what, ti, "itemId", "name", "type", "sourceRef")
		if ti["itemId"] != itemIDs[i] {
			t.Errorf("%s.itemId = %v, want %s", what, ti["itemId"], itemIDs[i])
		}
		hStr(t, what, ti, "name")
		hOneOf(t, what+".type", ti["type"], "file", "text", "json")
		if ti["sourceRef"] != nil {
			hStr(t, what, ti, "sourceRef")
		}
	}
}

func TestStartAnalysis(t *testing.T) {
	t.Parallel()
	srv := hNew(t, mockserver.WithManualAnalyses())
	pid, items := hAnalysisFixture(t, srv)
	options := map[string]any{"language": "ko", "depth": float64(2), "flags": []any{"a"}}
	clientMeta := map[string]any{"ticket": "T-1", "nested": map[string]any{"x": true}}
	body := hTargets(items...)
	body["options"], body["clientMetadata"] = options, clientMeta
	r := hDo(t, srv, "POST", "/v1/analyses/"+pid+"/analyze", body)
	started := hObj(t, r, http.StatusAccepted)
	hExactKeys(t, "start answer", started, "id")
	id := hID(t, "start answer", started, "id", "analysis_")

	a := hGetAnalysis(t, srv, id)
	hCheckAnalysis(t, a, pid, "pending")
	if a["verificationStatus"] != "pending_review" {
		t.Errorf("verificationStatus = %v, want pending_review", a["verificationStatus"])
	}
	hEqualJSON(t, "options", a["options"], options)
	hEqualJSON(t, "clientMetadata", a["clientMetadata"], clientMeta)
	for _, k := range hResultFields {
		if v, ok := a[k]; ok && v != nil && k != "targetItems" {
			t.Errorf("pending analysis has %s = %v", k, v)
		}
	}

	if err := srv.CompleteAnalysis(id); err != nil {
		t.Fatal(err)
	}
	a = hGetAnalysis(t, srv, id)
	hCheckAnalysis(t, a, pid, "completed")
	hEqualJSON(t, "options after completion", a["options"], options)
	hEqualJSON(t, "clientMetadata after completion", a["clientMetadata"], clientMeta)

	t.Run("without options", func(t *testing.T) {
		id := hStart(t, srv, pid, items[0])
		a := hGetAnalysis(t, srv, id)
		hCheckAnalysis(t, a, pid, "pending")
		hNull(t, "analysis", a, "options")
		hNull(t, "analysis", a, "clientMetadata")
	})
}

func TestStartAnalysisUnknownProfileFirst(t *testing.T) {
	t.Parallel()
	srv := hNew(t)
	path := "/v1/analyses/pf_nope/analyze"
	cases := []struct {
		name  string
		ctype string
		body  string
	}{
		{"good body", "application/json", `{"targetItems":[{"itemId":"item_x"}]}`},
		{"malformed JSON", "application/json", `{"targetItems":`},
		{"empty targetItems", "application/json", `{"targetItems":[]}`},
		{"no body", "application/json", ``},
		{"unknown field", "application/json", `{"nope":1}`},
		{"text/plain", "text/plain", `hello`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := hSend(t, srv, hReq{Method: "POST", Path: path, ContentType: c.ctype, Body: []byte(c.body)})
			hErr(t, r, http.StatusNotFound, "PROFILE_NOT_FOUND", "pf_nope")
		})
	}
}

func TestStartAnalysisValidation(t *testing.T) {
	t.Parallel()
	srv := hNew(t, mockserver.WithManualAnalyses())
	pid, items := hAnalysisFixture(t, srv)
	cases := []struct {
		name, body, field string
	}{
		{"missing targetItems", `{}`, "targetItems"},
		{"null targetItems", `{"targetItems":null}`, "targetItems"},
		{"empty targetItems", `{"targetItems":[]}`, "targetItems"},
		{"entry without itemId", `{"targetItems":[{}]}`, "itemId"},
		{"empty itemId", `{"targetItems":[{"itemId":""}]}`, "itemId"},
		{"options not an object", `{"targetItems":[{"itemId":"` + items[0] + `"}],"options":"x"}`, "options"},
		{"clientMetadata not an object", `{"targetItems":[{"itemId":"` + items[0] + `"}],"clientMetadata":[1]}`, "clientMetadata"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := hSend(t, srv, hReq{Method: "POST", Path: "/v1/analyses/" + pid + "/analyze", ContentType: "application/json", Body: []byte(c.body)})
			hErr(t, r, http.StatusBadRequest, "VALIDATION_ERROR", c.field)
		})
	}
	if n := len(srv.Analyses(pid)); n != 0 {
		t.Errorf("%d analyses after refused starts, want 0", n)
	}
}

func TestStartAnalysisInvalidItems(t *testing.T) {
	t.Parallel()
	srv := hNew(t, mockserver.WithManualAnalyses())
	pid, items := hAnalysisFixture(t, srv)
	_, otherFolder := hProfile(t, srv, "Other")
	foreign := hTextItem(t, srv, otherFolder, "foreign", "x")
	_, fid := func() (string, string) {
		p := hJSON(t, srv, "GET", "/v1/profiles/"+pid+"/folders", nil, http.StatusOK)
		f := hObjs(t, "page", p, "items")[0]
		return pid, f["id"].(string)
	}()
	processing := hTextItem(t, srv, fid, "processing", "x")
	if err := srv.SetItemStatus(processing, profilesvc.ItemProcessing); err != nil {
		t.Fatal(err)
	}
	failed := hTextItem(t, srv, fid, "failed", "x")
	if err := srv.SetItemStatus(failed, profilesvc.ItemFailed); err != nil {
		t.Fatal(err)
	}
	deleted := hTextItem(t, srv, fid, "deleted", "x")
	hNoBody(t, hDo(t, srv, "DELETE", "/v1/items/"+deleted, nil))

	cases := []struct {
		name string
		ids  []string
		bad  []string
	}{
		{"does not exist", []string{"item_doesnotexist"}, []string{"item_doesnotexist"}},
		{"deleted", []string{deleted}, []string{deleted}},
		{"in another profile", []string{foreign}, []string{foreign}},
		{"PROCESSING", []string{processing}, []string{processing}},
		{"FAILED", []string{failed}, []string{failed}},
		{"not an item ID", []string{pid}, []string{pid}},
		{"mixed with good ones", []string{items[0], foreign, items[1], "item_ghost"}, []string{foreign, "item_ghost"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := hDo(t, srv, "POST", "/v1/analyses/"+pid+"/analyze", hTargets(c.ids...))
			hErr(t, r, http.StatusBadRequest, "INVALID_ITEM_IDS", c.bad...)
			var body struct {
				Error struct{ Message string }
			}
			_ = json.Unmarshal(r.Body, &body)
			for _, id := range c.ids {
				if !hContains(c.bad, id) && strings.Contains(body.Error.Message, id) {
					t.Errorf("message %q names the valid item %s", body.Error.Message, id)
				}
			}
		})
	}
	if n := len(srv.Analyses(pid)); n != 0 {
		t.Errorf("%d analyses after refused starts, want 0", n)
	}
	// Set back to ACTIVE, the item is accepted.
	if err := srv.SetItemStatus(processing, profilesvc.ItemActive); err != nil {
		t.Fatal(err)
	}
	hStart(t, srv, pid, processing)
}

func hContains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func TestStartAnalysisInProgress(t *testing.T) {
	t.Parallel()
	srv := hNew(t, mockserver.WithManualAnalyses())
	pid, items := hAnalysisFixture(t, srv)
	first := hStart(t, srv, pid, items...)
	hErr(t, hDo(t, srv, "POST", "/v1/analyses/"+pid+"/analyze", hTargets(items[0])), http.StatusConflict, "ANALYSIS_IN_PROGRESS")
	if err := srv.StartProcessing(first); err != nil {
		t.Fatal(err)
	}
	hErr(t, hDo(t, srv, "POST", "/v1/analyses/"+pid+"/analyze", hTargets(items[0])), http.StatusConflict, "ANALYSIS_IN_PROGRESS")
	if err := srv.CompleteAnalysis(first); err != nil {
		t.Fatal(err)
	}
	second := hStart(t, srv, pid, items[0])
	if err := srv.FailAnalysis(second, "boom"); err != nil {
		t.Fatal(err)
	}
	hStart(t, srv, pid, items[1])

	// Another profile is not held up.
	other, otherFolder := hProfile(t, srv, "Other")
	hStart(t, srv, other, hTextItem(t, srv, otherFolder, "x", "y"))
}

func TestStartAnalysisRace(t *testing.T) {
	t.Parallel()
	srv := hNew(t, mockserver.WithManualAnalyses())
	pid, items := hAnalysisFixture(t, srv)
	const n = 50
	results := make([]*hResp, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			r, err := hSendErr(t, srv, hReq{Method: "POST", Path: "/v1/analyses/" + pid + "/analyze", JSON: hTargets(items...)})
			if err != nil {
				t.Errorf("request %d: %v", i, err)
				return
			}
			results[i] = r
		}(i)
	}
	close(start)
	wg.Wait()
	accepted, conflicts := 0, 0
	for _, r := range results {
		if r == nil {
			continue
		}
		switch r.Status {
		case http.StatusAccepted:
			accepted++
		case http.StatusConflict:
			conflicts++
			hErr(t, r, http.StatusConflict, "ANALYSIS_IN_PROGRESS")
		default:
			t.Errorf("unexpected answer %s", r)
		}
	}
	if accepted != 1 || conflicts != n-1 {
		t.Errorf("%d accepted and %d conflicts, want 1 and %d", accepted, conflicts, n-1)
	}
	if got := len(srv.Analyses(pid)); got != 1 {
		t.Errorf("%d analyses stored, want 1", got)
	}
}

func TestAnalysisLifecycleOverDuration(t *testing.T) {
	t.Parallel()
	start := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	clock := mockserver.NewFakeClock(start)
	srv := hNew(t, mockserver.WithClock(clock), mockserver.WithAnalysisDuration(10*time.Second))
	pid, items := hAnalysisFixture(t, srv)
	id := hStart(t, srv, pid, items...)

	steps := []struct {
		advance time.Duration
		status  string
	}{
		{0, "pending"},
		{500 * time.Millisecond, "pending"},
		{600 * time.Millisecond, "processing"}, // past a tenth of the run
		{8 * time.Second, "processing"},        // 9.1s
		{time.Second, "completed"},             // 10.1s
	}
	for _, s := range steps {
		clock.Advance(s.advance)
		a := hGetAnalysis(t, srv, id)
		hCheckAnalysis(t, a, pid, s.status)
		if a["verificationStatus"] != "pending_review" {
			t.Errorf("verificationStatus = %v, want pending_review", a["verificationStatus"])
		}
		if req := hTime(t, "analysis", a, "requestedAt"); !req.Equal(start) {
			t.Errorf("requestedAt = %v, want %v", req, start)
		}
		if s.status == "completed" {
			if done := hTime(t, "analysis", a, "completedAt"); !done.Equal(start.Add(10 * time.Second)) {
				t.Errorf("completedAt = %v, want the end of the run %v", done, start.Add(10*time.Second))
			}
			hCheckResult(t, a, pid, items)
		}
	}
	// It is over: more time changes nothing, and the report is there.
	clock.Advance(time.Hour)
	hCheckAnalysis(t, hGetAnalysis(t, srv, id), pid, "completed")
	r := hDo(t, srv, "GET", "/v1/analyses/"+id+"/report", nil)
	if r.Status != http.StatusOK {
		t.Errorf("report: %s", r)
	}
}

func TestAnalysisLifecycleManual(t *testing.T) {
	t.Parallel()
	srv := hNew(t, mockserver.WithManualAnalyses())
	pid, items := hAnalysisFixture(t, srv)
	id := hStart(t, srv, pid, items...)
	hCheckAnalysis(t, hGetAnalysis(t, srv, id), pid, "pending")
	// Nothing moves on its own.
	time.Sleep(50 * time.Millisecond)
	hCheckAnalysis(t, hGetAnalysis(t, srv, id), pid, "pending")
	if err := srv.StartProcessing(id); err != nil {
		t.Fatal(err)
	}
	hCheckAnalysis(t, hGetAnalysis(t, srv, id), pid, "processing")
	if err := srv.CompleteAnalysis(id); err != nil {
		t.Fatal(err)
	}
	a := hGetAnalysis(t, srv, id)
	hCheckAnalysis(t, a, pid, "completed")
	hCheckResult(t, a, pid, items)
	if err := srv.FailAnalysis(id, "late"); err == nil {
		t.Errorf("a completed analysis could be failed")
	}
	hCheckAnalysis(t, hGetAnalysis(t, srv, id), pid, "completed")

	t.Run("real time", func(t *testing.T) {
		srv := hNew(t, mockserver.WithAnalysisDuration(100*time.Millisecond))
		pid, items := hAnalysisFixture(t, srv)
		id := hStart(t, srv, pid, items...)
		deadline := time.Now().Add(5 * time.Second)
		seen := map[string]bool{}
		for {
			a := hGetAnalysis(t, srv, id)
			seen[a["status"].(string)] = true
			if a["status"] == "completed" {
				hCheckAnalysis(t, a, pid, "completed")
				hCheckResult(t, a, pid, items)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("analysis not completed 5s after a 100ms run: %v", a["status"])
			}
			time.Sleep(5 * time.Millisecond)
		}
		if !seen["pending"] && !seen["processing"] {
			t.Errorf("the analysis was completed at once; statuses seen %v", seen)
		}
	})
}

func TestAnalysisFailed(t *testing.T) {
	t.Parallel()
	srv := hNew(t, mockserver.WithManualAnalyses())
	pid, items := hAnalysisFixture(t, srv)
	id := hStart(t, srv, pid, items...)
	if err := srv.FailAnalysis(id, "the engine could not read the documents"); err != nil {
		t.Fatal(err)
	}
	a := hGetAnalysis(t, srv, id)
	hCheckAnalysis(t, a, pid, "failed")
	if a["error"] != "the engine could not read the documents" {
		t.Errorf("error = %v", a["error"])
	}
	hErr(t, hDo(t, srv, "GET", "/v1/analyses/"+id+"/report", nil), http.StatusBadRequest, "REPORT_NOT_AVAILABLE")
	// A failed analysis frees the profile.
	hStart(t, srv, pid, items...)
}

func TestAnalysisUnknown(t *testing.T) {
	t.Parallel()
	srv := hNew(t)
	const nope = "analysis_doesnotexist"
	for _, c := range []struct{ method, path string }{
		{"GET", "/v1/analyses/" + nope},
		{"GET", "/v1/analyses/" + nope + "?waitForReport=true&timeoutSeconds=10"},
		{"GET", "/v1/analyses/" + nope + "/report"},
		{"DELETE", "/v1/analyses/" + nope},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			hErr(t, hDo(t, srv, c.method, c.path, nil), http.StatusNotFound, "ANALYSIS_NOT_FOUND", nope)
		})
	}
	hErr(t, hDo(t, srv, "GET", "/v1/profiles/pf_nope/analyses", nil), http.StatusNotFound, "PROFILE_NOT_FOUND", "pf_nope")
}

func TestAnalysisRetention(t *testing.T) {
	t.Parallel()
	srv := hNew(t, mockserver.WithManualAnalyses())
	pid, items := hAnalysisFixture(t, srv)
	var ids []string
	for i := 0; i < 5; i++ {
		id := hStart(t, srv, pid, items...)
		if err := srv.CompleteAnalysis(id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	// The oldest one's report is rendered (and cached) before it goes.
	if r := hDo(t, srv, "GET", "/v1/analyses/"+ids[0]+"/report", nil); r.Status != http.StatusOK {
		t.Fatalf("report of the oldest: %s", r)
	}
	for _, id := range ids {
		hGetAnalysis(t, srv, id)
	}
	sixth := hStart(t, srv, pid, items...)
	hErr(t, hDo(t, srv, "GET", "/v1/analyses/"+ids[0], nil), http.StatusNotFound, "ANALYSIS_NOT_FOUND", ids[0])
	hErr(t, hDo(t, srv, "GET", "/v1/analyses/"+ids[0]+"/report", nil), http.StatusNotFound, "ANALYSIS_NOT_FOUND", ids[0])
	hErr(t, hDo(t, srv, "DELETE", "/v1/analyses/"+ids[0], nil), http.StatusNotFound, "ANALYSIS_NOT_FOUND", ids[0])
	for _, id := range append(ids[1:], sixth) {
		hGetAnalysis(t, srv, id)
	}
	page := hJSON(t, srv, "GET", "/v1/profiles/"+pid+"/analyses", nil, http.StatusOK)
	if page["count"] != float64(5) {
		t.Errorf("the profile lists %v analyses, want 5", page["count"])
	}
	// Another profile's analyses do not count towards this one's five.
	other, otherFolder := hProfile(t, srv, "Other")
	oid := hStart(t, srv, other, hTextItem(t, srv, otherFolder, "x", "y"))
	if err := srv.CompleteAnalysis(sixth); err != nil {
		t.Fatal(err)
	}
	hStart(t, srv, pid, items...)
	hErr(t, hDo(t, srv, "GET", "/v1/analyses/"+ids[1], nil), http.StatusNotFound, "ANALYSIS_NOT_FOUND")
	hGetAnalysis(t, srv, ids[2])
	hGetAnalysis(t, srv, oid)
}

func TestDeleteAnalysis(t *testing.T) {
	t.Parallel()
	t.Run("manual", func(t *testing.T) {
		t.Parallel()
		srv := hNew(t, mockserver.WithManualAnalyses())
		pid, items := hAnalysisFixture(t, srv)
		id := hStart(t, srv, pid, items...)
		hNoBody(t, hDo(t, srv, "DELETE", "/v1/analyses/"+id, nil))
		hErr(t, hDo(t, srv, "GET", "/v1/analyses/"+id, nil), http.StatusNotFound, "ANALYSIS_NOT_FOUND", id)
		hErr(t, hDo(t, srv, "DELETE", "/v1/analyses/"+id, nil), http.StatusNotFound, "ANALYSIS_NOT_FOUND", id)
		next := hStart(t, srv, pid, items...)
		if err := srv.CompleteAnalysis(id); err == nil {
			t.Errorf("the deleted analysis could still be completed")
		}
		if err := srv.CompleteAnalysis(next); err != nil {
			t.Fatal(err)
		}
		// A completed one goes with its report.
		if r := hDo(t, srv, "GET", "/v1/analyses/"+next+"/report", nil); r.Status != http.StatusOK {
			t.Fatalf("report: %s", r)
		}
		hNoBody(t, hDo(t, srv, "DELETE", "/v1/analyses/"+next, nil))
		hErr(t, hDo(t, srv, "GET", "/v1/analyses/"+next+"/report", nil), http.StatusNotFound, "ANALYSIS_NOT_FOUND")
		page := hJSON(t, srv, "GET", "/v1/profiles/"+pid+"/analyses", nil, http.StatusOK)
		if page["count"] != float64(0) {
			t.Errorf("the profile still lists %v analyses", page["count"])
		}
	})
	t.Run("running on the clock", func(t *testing.T) {
		t.Parallel()
		clock := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
		srv := hNew(t, mockserver.WithClock(clock), mockserver.WithAnalysisDuration(10*time.Second))
		pid, items := hAnalysisFixture(t, srv)
		a := hStart(t, srv, pid, items...)
		clock.Advance(2 * time.Second)
		hCheckAnalysis(t, hGetAnalysis(t, srv, a), pid, "processing")
		hNoBody(t, hDo(t, srv, "DELETE", "/v1/analyses/"+a, nil))
		b := hStart(t, srv, pid, items[0])
		clock.Advance(20 * time.Second)
		hErr(t, hDo(t, srv, "GET", "/v1/analyses/"+a, nil), http.StatusNotFound, "ANALYSIS_NOT_FOUND")
		got := hGetAnalysis(t, srv, b)
		hCheckAnalysis(t, got, pid, "completed")
		hCheckResult(t, got, pid, items[:1])
		page := hJSON(t, srv, "GET", "/v1/profiles/"+pid+"/analyses", nil, http.StatusOK)
		list := hObjs(t, "page", page, "items")
		if len(list) != 1 || list[0]["id"] != b {
			t.Errorf("analyses listed = %v, want only %s", page["items"], b)
		}
	})
}

func TestAnalysisReport(t *testing.T) {
	t.Parallel()
	srv := hNew(t, mockserver.WithManualAnalyses())
	pid, items := hAnalysisFixture(t, srv)
	id := hStart(t, srv, pid, items...)
	report := "/v1/analyses/" + id + "/report"

	hErr(t, hDo(t, srv, "GET", report, nil), http.StatusBadRequest, "REPORT_NOT_AVAILABLE", id)
	if err := srv.StartProcessing(id); err != nil {
		t.Fatal(err)
	}
	hErr(t, hDo(t, srv, "GET", report, nil), http.StatusBadRequest, "REPORT_NOT_AVAILABLE", id)
	if err := srv.CompleteAnalysis(id); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(id, "analysis_") {
		t.Fatalf("analysis ID %q", id)
	}
	wantDisposition := `attachment; filename="analysis_` + id + `_report.pdf"`
	for _, q := range []string{"", "?locale=en", "?locale=ko", "?includeRawData=true", "?includeRawData=false", "?locale=ko&includeRawData=true"} {
		t.Run("ok "+q, func(t *testing.T) {
			r := hDo(t, srv, "GET", report+q, nil)
			if r.Status != http.StatusOK {
				t.Fatalf("report: %s", r)
			}
			if ct := r.Header.Get("Content-Type"); ct != "application/pdf" {
				t.Errorf("Content-Type = %q, want application/pdf", ct)
			}
			cd := r.Header.Get("Content-Disposition")
			if cd != wantDisposition {
				t.Errorf("Content-Disposition = %q, want %q", cd, wantDisposition)
			}
			if !strings.Contains(cd, `filename="analysis_analysis_`) {
				t.Errorf("file name in %q does not start with analysis_ + the analysis ID", cd)
			}
			if !strings.HasPrefix(string(r.Body), "%PDF-") || !strings.Contains(string(r.Body[max(0, len(r.Body)-64):]), "%%EOF") {
				t.Errorf("body is not a PDF: %q...", r.Body[:min(len(r.Body), 16)])
			}
			if len(r.Body) < 500 {
				t.Errorf("PDF of %d bytes is too small to be a report", len(r.Body))
			}
		})
	}
	en := hDo(t, srv, "GET", report+"?locale=en", nil)
	ko := hDo(t, srv, "GET", report+"?locale=ko", nil)
	if string(en.Body) == string(ko.Body) {
		t.Errorf("the en and ko reports are the same bytes")
	}
	for _, c := range []struct{ q, param string }{
		{"?locale=fr", "locale"},
		{"?locale=EN", "locale"},
		{"?locale=", "locale"},
		{"?includeRawData=yes", "includeRawData"},
		{"?includeRawData=1", "includeRawData"},
		{"?format=pdf", "format"},
		{"?locale=en&locale=ko", "locale"},
	} {
		t.Run("refused "+c.q, func(t *testing.T) {
			hErr(t, hDo(t, srv, "GET", report+c.q, nil), http.StatusBadRequest, "VALIDATION_ERROR", c.param)
		})
	}
}

func TestListAnalyses(t *testing.T) {
	t.Parallel()
	clock := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	srv := hNew(t, mockserver.WithManualAnalyses(), mockserver.WithClock(clock))
	pid, items := hAnalysisFixture(t, srv)
	empty := hJSON(t, srv, "GET", "/v1/profiles/"+pid+"/analyses", nil, http.StatusOK)
	hExactKeys(t, "page", empty, "count", "nextCursor", "items")
	if items, ok := empty["items"].([]any); !ok || len(items) != 0 || empty["count"] != float64(0) {
		t.Errorf("empty listing = %v", empty)
	}
	hNull(t, "empty listing", empty, "nextCursor")

	var ids []string
	for i := 0; i < 3; i++ {
		clock.Advance(time.Second)
		id := hStart(t, srv, pid, items...)
		if i < 2 {
			if err := srv.CompleteAnalysis(id); err != nil {
				t.Fatal(err)
			}
		}
		ids = append(ids, id)
	}
	page := hJSON(t, srv, "GET", "/v1/profiles/"+pid+"/analyses", nil, http.StatusOK)
	hExactKeys(t, "page", page, "count", "nextCursor", "items")
	list := hObjs(t, "page", page, "items")
	if len(list) != 3 || page["count"] != float64(3) {
		t.Fatalf("listing = %v", page)
	}
	hNull(t, "page", page, "nextCursor")
	want := []string{ids[2], ids[1], ids[0]}
	for i, a := range list {
		if a["id"] != want[i] {
			t.Errorf("items[%d] = %v, want %s (newest first)", i, a["id"], want[i])
		}
		status := "completed"
		if i == 0 {
			status = "pending"
		}
		hCheckAnalysis(t, a, pid, status)
		hEqualJSON(t, "listed analysis", a, hGetAnalysis(t, srv, want[i]))
	}

	first := hJSON(t, srv, "GET", "/v1/profiles/"+pid+"/analyses?limit=2", nil, http.StatusOK)
	next, ok := first["nextCursor"].(string)
	if !ok || len(hObjs(t, "page", first, "items")) != 2 {
		t.Fatalf("first page of 2 = %v", first)
	}
	second := hJSON(t, srv, "GET", "/v1/profiles/"+pid+"/analyses?limit=2&cursor="+next, nil, http.StatusOK)
	rest := hObjs(t, "page", second, "items")
	if len(rest) != 1 || rest[0]["id"] != ids[0] {
		t.Errorf("second page = %v, want the oldest", second["items"])
	}
	hNull(t, "last page", second, "nextCursor")
}

// TestCompletedAnalysisOfAnyWorkflow: whatever the workflow's schema and
// policy, a completed analysis has every result field, consistent with the
// workflow.
func TestCompletedAnalysisOfAnyWorkflow(t *testing.T) {
	t.Parallel()
	workflows := []mockserver.Workflow{
		{ID: "wf_bare", Name: "No schema, no policy: the default workflow's run"},
		{ID: "wf_empty_schema", OutputSchema: json.RawMessage(`{"type":"object","properties":{}}`),
			Policy: []mockserver.PolicyAction{{ActionName: "lookup", Category: "mcp", Query: "Look it up."}}},
		{ID: "wf_custom", OutputSchema: json.RawMessage(`{"type":"object","properties":{"request_id":{"type":"string"},"full_name":{"type":"string"},"policy_flags":{"type":"array"}}}`),
			Policy: []mockserver.PolicyAction{
				{ActionName: "extract", Category: "Data Extraction", Query: "Extract the name."},
				{ActionName: "check", Category: "Data Consistency", Query: "Compare."},
			}},
	}
	srv := hNew(t, mockserver.WithManualAnalyses(), mockserver.WithWorkflows(workflows...))
	for _, wf := range workflows {
		t.Run(wf.ID, func(t *testing.T) {
			p := hJSON(t, srv, "POST", "/v1/workflows/"+wf.ID+"/profiles", map[string]any{"name": "Subject"}, http.StatusCreated)
			pid := p["id"].(string)
			fid := hObjs(t, "profile", p, "folders")[0]["id"].(string)
			items := []string{hTextItem(t, srv, fid, "id card", "Full name: Jane Doe\n")}
			id := hStart(t, srv, pid, items...)
			if err := srv.CompleteAnalysis(id); err != nil {
				t.Fatal(err)
			}
			a := hGetAnalysis(t, srv, id)
			hCheckAnalysis(t, a, pid, "completed")
			// A workflow without a policy or a schema of its own runs with
			// the default workflow's.
			effective := wf
			if len(effective.Policy) == 0 {
				effective.Policy = mockserver.DefaultWorkflow().Policy
			}
			if len(effective.OutputSchema) == 0 {
				effective.OutputSchema = mockserver.DefaultWorkflow().OutputSchema
			}
			hCheckResultOf(t, a, pid, items, effective)
		})
	}
}
