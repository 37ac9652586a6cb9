package mockserver_test

// The test kit's view of a tenant's state: workflows, resources made and
// read through Go, IDs, Reset, and the kit used from many goroutines.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

func TestKitAddWorkflow(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	base := srv.Workflows()
	require.True(t, len(base) == 1 && base[0].ID == mockserver.DefaultWorkflowID, "Workflows() = %+v, want wf_default alone", base)
	for _, prop := range []string{"review_result", "extracted_values", "category_judgements", "document_validations", "policy_flags", "recommended_next_steps", "request_id"} {
		assert.Contains(t, string(base[0].OutputSchema), `"`+prop+`"`, "wf_default's output schema lacks %s", prop)
	}

	invalid := []struct {
		name string
		w    mockserver.Workflow
	}{
		{"empty ID", mockserver.Workflow{}},
		{"ID without wf_", mockserver.Workflow{ID: "kyc"}},
		{"ID wf_ alone", mockserver.Workflow{ID: "wf_"}},
		{"ID too long", mockserver.Workflow{ID: "wf_" + strings.Repeat("x", 200)}},
		{"schema not JSON", mockserver.Workflow{ID: "wf_a", OutputSchema: json.RawMessage(`{`)}},
		{"schema an array", mockserver.Workflow{ID: "wf_a", OutputSchema: json.RawMessage(`[1]`)}},
		{"schema without properties", mockserver.Workflow{ID: "wf_a", OutputSchema: json.RawMessage(`{"type":"object"}`)}},
		{"policy without action name", mockserver.Workflow{ID: "wf_a", Policy: []mockserver.PolicyAction{{Category: "Data Extraction"}}}},
		{"policy without category", mockserver.Workflow{ID: "wf_a", Policy: []mockserver.PolicyAction{{ActionName: "extract"}}}},
	}
	for _, tc := range invalid {
		t.Run(tc.name, func(t *testing.T) {
			assert.Error(t, srv.AddWorkflow(tc.w), "AddWorkflow(%+v) succeeded, want an error", tc.w)
			assert.Len(t, srv.Workflows(), 1, "workflows after a refused workflow")
		})
	}

	wf := mockserver.Workflow{
		ID:           "wf_kyc",
		Name:         "KYC",
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"extracted_values":{"type":"object","properties":{"full_name":{"type":"string"}}}}}`),
		Policy:       []mockserver.PolicyAction{{ActionName: "extract", Category: "Data Extraction", Query: "Extract the name."}},
	}
	require.NoError(t, srv.AddWorkflow(wf), "AddWorkflow")
	wf.Policy[0].ActionName = "changed after adding"
	got := srv.Workflows()
	require.Len(t, got, 2, "Workflows()")
	i := slices.IndexFunc(got, func(w mockserver.Workflow) bool { return w.ID == "wf_kyc" })
	assert.True(t, i >= 0 && got[i].Name == "KYC" && got[i].Policy[0].ActionName == "extract", "stored workflow %+v: want a copy of what was added", got)
	p, err := srv.Client().CreateProfile(t.Context(), "wf_kyc", profilesvc.CreateProfileParams{Name: "In KYC"})
	require.NoError(t, err, "CreateProfile in the added workflow")
	assert.Equal(t, "wf_kyc", p.WorkflowID, "workflowId")
}

func TestKitCreateAndInspect(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	fc := mockserver.NewFakeClock(t0)
	srv := mockserver.NewTest(t, mockserver.WithClock(fc), mockserver.WithManualAnalyses())

	p, err := srv.CreateProfile(mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{
		Name: "Jane Doe", Description: "KYC file", Metadata: profilesvc.Object{"tier": "gold"},
	})
	require.NoError(t, err, "CreateProfile")
	wantRandomID(t, p.ID, "pf_")
	assert.True(t, p.Name == "Jane Doe" && p.Description == "KYC file" && p.Metadata["tier"] == "gold" && p.ItemsCount == 0 && p.LastAnalysisAt == nil,
		"CreateProfile = %+v", p)
	assert.True(t, p.CreatedAt.Equal(t0), "createdAt = %v, want the fake clock's %v", p.CreatedAt, t0)
	require.True(t, len(p.Folders) == 1 && p.Folders[0].Name == "default" && p.Folders[0].IsDefault, "folders = %+v, want the default folder", p.Folders)
	defID := p.Folders[0].ID

	for _, tc := range []struct {
		name string
		wf   string
		prm  profilesvc.CreateProfileParams
	}{
		{"unknown workflow", "wf_missing", profilesvc.CreateProfileParams{Name: "x"}},
		{"empty name", mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{}},
		{"name too long", mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: strings.Repeat("n", 256)}},
	} {
		_, err := srv.CreateProfile(tc.wf, tc.prm)
		assert.Error(t, err, "CreateProfile with %s succeeded", tc.name)
	}

	fc.Advance(time.Second)
	f, err := srv.CreateFolder(p.ID, "Identity")
	require.NoError(t, err, "CreateFolder")
	wantRandomID(t, f.ID, "fld_")
	assert.True(t, f.Name == "Identity" && !f.IsDefault && f.ProfileID == p.ID, "CreateFolder = %+v", f)
	_, err = srv.CreateFolder("pf_missing", "x")
	assert.Error(t, err, "CreateFolder in an unknown profile succeeded")
	_, err = srv.CreateFolder(p.ID, "")
	assert.Error(t, err, "CreateFolder with an empty name succeeded")

	text, err := srv.AddTextItem(defID, "note", "Applicant called on Monday.")
	require.NoError(t, err, "AddTextItem")
	file, err := srv.AddFileItem(f.ID, "passport.txt", []byte(passportDoc))
	require.NoError(t, err, "AddFileItem")
	js, err := srv.AddItem(f.ID, mockserver.SeedItem{
		Type: profilesvc.ItemJSON, Name: "form", Content: json.RawMessage(`{"full_name": "Jane Doe"}`),
		Metadata: map[string]any{"source": "web"},
	})
	require.NoError(t, err, "AddItem json")
	held, err := srv.AddItem(f.ID, mockserver.SeedItem{Type: profilesvc.ItemText, Name: "held", Content: json.RawMessage(`"x"`), Status: profilesvc.ItemProcessing})
	require.NoError(t, err, "AddItem with a status")
	for _, it := range []*profilesvc.Item{text, file, js, held} {
		wantRandomID(t, it.ID, "item_")
	}
	assert.True(t, text.Type == profilesvc.ItemText && file.Type == profilesvc.ItemFile && js.Type == profilesvc.ItemJSON,
		"types %s %s %s", text.Type, file.Type, js.Type)
	s, err := text.Text()
	assert.True(t, err == nil && s == "Applicant called on Monday.", "text item content = %q, %v", s, err)
	assert.True(t, file.Content.IsNull() && file.SizeBytes == int64(len(passportDoc)) && file.Status == profilesvc.ItemActive,
		"file item = content %s, size %d, status %s", file.Content, file.SizeBytes, file.Status)
	assert.True(t, file.Detected != nil && file.Detected.ContentType == "text/plain" && file.Detected.Extension == "txt",
		"file item detected = %+v", file.Detected)
	assert.True(t, strings.HasPrefix(file.URL, srv.URL+"/") && strings.HasPrefix(file.StorageOriginalURL, srv.URL+"/"),
		"file item addresses %q, %q: want them under %s", file.URL, file.StorageOriginalURL, srv.URL)
	assert.Equal(t, profilesvc.ItemProcessing, held.Status, "status of an item added with status PROCESSING")

	for _, tc := range []struct {
		name   string
		folder string
		spec   mockserver.SeedItem
	}{
		{"unknown folder", "fld_missing", mockserver.SeedItem{Type: profilesvc.ItemFile, Name: "a", Data: []byte("a")}},
		{"unknown type", f.ID, mockserver.SeedItem{Type: "pdf", Name: "a"}},
		{"text without content", f.ID, mockserver.SeedItem{Type: profilesvc.ItemText, Name: "a"}},
		{"text with a number", f.ID, mockserver.SeedItem{Type: profilesvc.ItemText, Name: "a", Content: json.RawMessage(`5`)}},
		{"json not JSON", f.ID, mockserver.SeedItem{Type: profilesvc.ItemJSON, Name: "a", Content: json.RawMessage(`{x`)}},
		{"name too long", f.ID, mockserver.SeedItem{Type: profilesvc.ItemFile, Name: strings.Repeat("a", 256), Data: []byte("a")}},
		{"bad fixed ID", f.ID, mockserver.SeedItem{ID: "nope", Type: profilesvc.ItemFile, Name: "a", Data: []byte("a")}},
		{"taken fixed ID", f.ID, mockserver.SeedItem{ID: file.ID, Type: profilesvc.ItemFile, Name: "a", Data: []byte("a")}},
	} {
		_, err := srv.AddItem(tc.folder, tc.spec)
		assert.Error(t, err, "AddItem with %s succeeded", tc.name)
	}
	_, err = srv.AddTextItem("fld_missing", "a", "b")
	assert.Error(t, err, "AddTextItem in an unknown folder succeeded")
	_, err = srv.AddFileItem("fld_missing", "a", []byte("b"))
	assert.Error(t, err, "AddFileItem in an unknown folder succeeded")

	// Inspection.
	gp, ok := srv.Profile(p.ID)
	require.True(t, ok, "Profile(%s) not found", p.ID)
	assert.True(t, gp.ItemsCount == 4 && len(gp.Folders) == 2, "Profile: itemsCount %d, folders %d; want 4 and 2", gp.ItemsCount, len(gp.Folders))
	gf, ok := srv.Folder(f.ID)
	require.True(t, ok, "Folder(%s) not found", f.ID)
	var names []string
	for _, s := range gf.Items {
		names = append(names, s.Name)
	}
	if diff := cmp.Diff([]string{"passport.txt", "form", "held"}, names); diff != "" {
		t.Errorf("Folder items (-want +got):\n%s", diff)
	}
	assert.Equal(t, 3, gf.ItemsCount, "Folder itemsCount")
	gi, ok := srv.Item(js.ID)
	assert.True(t, ok && gi.Metadata["source"] == "web" && gi.FolderID == f.ID, "Item(%s) = %+v, %v", js.ID, gi, ok)
	b, ok := srv.ItemBytes(file.ID)
	assert.True(t, ok && string(b) == passportDoc, "ItemBytes(file) = %q, %v", b, ok)
	b, ok = srv.ItemBytes(text.ID)
	assert.True(t, ok && string(b) == "Applicant called on Monday.", "ItemBytes(text) = %q, %v", b, ok)
	var content map[string]any
	b, ok = srv.ItemBytes(js.ID)
	assert.True(t, ok && json.Unmarshal(b, &content) == nil && content["full_name"] == "Jane Doe", "ItemBytes(json) = %q, %v", b, ok)
	s, ok = srv.ItemText(file.ID)
	assert.True(t, ok && strings.Contains(s, "Full Name: Jane Doe"), "ItemText(file) = %q, %v", s, ok)
	// ItemBytes returns a copy.
	if b, _ := srv.ItemBytes(file.ID); len(b) > 0 {
		b[0] = 'X'
		again, _ := srv.ItemBytes(file.ID)
		assert.Equal(t, passportDoc, string(again), "changing ItemBytes' result changed the stored bytes")
	}

	// The kit's state is the HTTP API's state.
	r := do(t, srv, "GET", "/v1/items/"+file.ID, nil)
	wantStatus(t, r, 200)
	r = fetch(t, srv, file.StorageOriginalURL, "")
	wantStatus(t, r, 200)
	assert.Equal(t, passportDoc, string(r.Body), "what storageOriginalUrl served")

	// Profiles: oldest first.
	fc.Advance(time.Second)
	p2, _ := addProfile(t, srv.Tenant, "Second")
	ps := srv.Profiles()
	assert.True(t, len(ps) == 2 && ps[0].ID == p.ID && ps[1].ID == p2.ID, "Profiles() = %v, want [%s %s]", ps, p.ID, p2.ID)

	// Analyses: oldest first, as every listing of the kit.
	a1 := startAnalysis(t, srv, p.ID, file.ID)
	require.NoError(t, srv.CompleteAnalysis(a1))
	fc.Advance(time.Second)
	a2 := startAnalysis(t, srv, p.ID, js.ID)
	var ids []string
	for _, a := range srv.Analyses(p.ID) {
		ids = append(ids, a.ID)
	}
	if diff := cmp.Diff([]string{a1, a2}, ids); diff != "" {
		t.Errorf("Analyses(profile) (-want +got):\n%s", diff)
	}

	// Unknown IDs.
	_, ok = srv.Profile("pf_missing")
	assert.False(t, ok, "Profile(unknown) found")
	_, ok = srv.Folder("fld_missing")
	assert.False(t, ok, "Folder(unknown) found")
	_, ok = srv.Item("item_missing")
	assert.False(t, ok, "Item(unknown) found")
	_, ok = srv.ItemBytes("item_missing")
	assert.False(t, ok, "ItemBytes(unknown) found")
	_, ok = srv.ItemText("item_missing")
	assert.False(t, ok, "ItemText(unknown) found")
	_, ok = srv.Analysis("analysis_missing")
	assert.False(t, ok, "Analysis(unknown) found")
	assert.Empty(t, srv.Analyses("pf_missing"), "Analyses(unknown)")
}

// idsOfRun makes the same sequence of requests on a server and returns
// every ID they produce, with the prefix each must have.
func idsOfRun(t *testing.T, srv *mockserver.Server) (ids, prefixes []string) {
	t.Helper()
	ctx := t.Context()
	c := srv.Client()
	add := func(id, prefix string) {
		ids = append(ids, id)
		prefixes = append(prefixes, prefix)
	}
	p, err := c.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "IDs"})
	require.NoError(t, err)
	add(p.ID, "pf_")
	add(p.DefaultFolder().ID, "fld_")
	f, err := c.CreateFolder(ctx, p.ID, "second")
	require.NoError(t, err)
	add(f.ID, "fld_")
	it, err := c.UploadFile(ctx, f.ID, strings.NewReader(passportDoc), profilesvc.UploadParams{Filename: "passport.txt"})
	require.NoError(t, err)
	add(it.ID, "item_")
	id, err := c.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	require.NoError(t, err)
	add(id, "analysis_")
	require.NoError(t, srv.CompleteAnalysis(id))
	a := analysisOf(t, srv.Tenant, id)
	require.True(t, a.PrimaryReportID != nil && len(a.Findings) > 0 && len(a.Recommendations) > 0,
		"completed analysis lacks a report, findings or recommendations: %+v", a)
	add(*a.PrimaryReportID, "rpt_")
	for _, f := range a.Findings {
		add(f.ID, "af_")
	}
	for _, r := range a.Recommendations {
		add(r.ID, "ar_")
	}
	assert.True(t, strings.HasPrefix(a.PlaybookID, "PB-"), "playbookId %q, want the PB- prefix", a.PlaybookID)
	return ids, prefixes
}

func TestKitIDs(t *testing.T) {
	t.Parallel()
	seeded := func(seed uint64) *mockserver.Server {
		return mockserver.NewTest(t, mockserver.WithIDSeed(seed), mockserver.WithManualAnalyses())
	}
	a, prefixes := idsOfRun(t, seeded(7))
	b, _ := idsOfRun(t, seeded(7))
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("two servers with ID seed 7 gave different IDs (-first +second):\n%s", diff)
	}
	for i, id := range a {
		wantRandomID(t, id, prefixes[i])
	}
	c, _ := idsOfRun(t, seeded(8))
	assert.NotEqual(t, a, c, "ID seeds 7 and 8 gave the same IDs")

	// Without a seed: prefixed, random, different on every server.
	r1, _ := idsOfRun(t, mockserver.NewTest(t, mockserver.WithManualAnalyses()))
	r2, _ := idsOfRun(t, mockserver.NewTest(t, mockserver.WithManualAnalyses()))
	for i := range r1 {
		wantRandomID(t, r1[i], prefixes[i])
		assert.NotEqual(t, r1[i], r2[i], "two unseeded servers both made ID %s", r1[i])
	}
	seen := map[string]bool{}
	for _, id := range append(r1, r2...) {
		suffix := id[strings.IndexAny(id, "_")+1:]
		assert.False(t, seen[suffix], "random part %s repeated", suffix)
		seen[suffix] = true
	}
}

func TestKitReset(t *testing.T) {
	t.Parallel()
	extra := mockserver.Workflow{ID: "wf_configured", OutputSchema: json.RawMessage(`{"properties":{}}`)}
	clock := newTimerClock(wallClock{})
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses(), mockserver.WithWorkflows(extra), mockserver.WithClock(clock))
	require.NoError(t, srv.AddWorkflow(mockserver.Workflow{ID: "wf_added"}))
	pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")
	aid := startAnalysis(t, srv, pid, iid)
	pending := longPoll(t, srv, context.Background(), "/v1/analyses/"+aid+"?waitForReport=true&timeoutSeconds=10")
	_, err := srv.InjectFault(mockserver.Fault{Path: "/nothing", Status: 500})
	require.NoError(t, err)
	clock.waitArmed(t, 10*time.Second) // the poll is held
	wantNotAnswered(t, pending)

	srv.Reset()

	assert.Empty(t, srv.Profiles(), "Profiles() after Reset")
	_, ok := srv.Item(iid)
	assert.False(t, ok, "item %s survived Reset", iid)
	_, ok = srv.Analysis(aid)
	assert.False(t, ok, "analysis %s survived Reset", aid)
	assert.Empty(t, srv.Faults(), "faults survived Reset")
	assert.Empty(t, srv.Requests(), "the request record survived Reset")
	var ids []string
	for _, w := range srv.Workflows() {
		ids = append(ids, w.ID)
	}
	if diff := cmp.Diff([]string{"wf_default", "wf_configured"}, ids); diff != "" { // oldest first
		t.Errorf("workflows after Reset (-want +got):\n%s", diff)
	}
	// A long poll under way answers 404.
	wantError(t, awaitAnswer(t, pending, time.Minute), 404, "ANALYSIS_NOT_FOUND")
	wantError(t, do(t, srv, "GET", "/v1/profiles/"+pid, nil), 404, "PROFILE_NOT_FOUND")

	// The server works after Reset.
	pid2, _, iid2 := addProfileWithItem(t, srv.Tenant, "Jane Doe")
	startAnalysis(t, srv, pid2, iid2)
}

// TestKitConcurrentUse drives the kit and the HTTP API from many
// goroutines at once, for the race detector.
func TestKitConcurrentUse(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithAnalysisDuration(20*time.Millisecond), mockserver.WithRequestRecordSize(50))
	type target struct{ pid, iid string }
	subjects := make([]target, 4)
	for i := range subjects {
		subjects[i].pid, _, subjects[i].iid = addProfileWithItem(t, srv.Tenant, "Jane Doe")
	}
	hc := &http.Client{Timeout: 20 * time.Second}
	var wg sync.WaitGroup
	for i, tg := range subjects {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := sendWith(hc, srv, request{Method: "POST", Path: "/v1/analyses/" + tg.pid + "/analyze",
				Body: []byte(`{"targetItems":[{"itemId":"` + tg.iid + `"}]}`), ContentType: "application/json"})
			if !assert.True(t, err == nil && r.Status == 202, "start %d: %s %v", i, r, err) {
				return
			}
			var out struct{ ID string }
			_ = json.Unmarshal(r.Body, &out)
			_, _ = srv.InjectFault(mockserver.Fault{Path: fmt.Sprintf("/none/%d", i), Status: 500})
			_ = srv.Faults()
			_ = srv.Requests()
			_, _ = srv.AddTextItem(srv.Profiles()[0].Folders[0].ID, "more", "text")
			r, err = sendWith(hc, srv, request{Method: "GET", Path: "/v1/analyses/" + out.ID + "?waitForReport=true&timeoutSeconds=10"})
			var a profilesvc.Analysis
			assert.True(t, err == nil && r.Status == 200 && json.Unmarshal(r.Body, &a) == nil && a.Status == profilesvc.AnalysisCompleted,
				"long poll %d: %s %v", i, r, err)
			_ = srv.SetVerificationStatus(out.ID, profilesvc.VerificationApproved)
			_ = srv.Analyses(tg.pid)
			_, _ = srv.Analysis(out.ID)
			r, err = sendWith(hc, srv, request{Method: "GET", Path: "/v1/analyses/" + out.ID + "/report?locale=ko"})
			if assert.NoError(t, err, "report %d", i) {
				assert.True(t, r.Status == 200 && bytes.HasPrefix(r.Body, []byte("%PDF-")), "report %d: %d, want 200 with a PDF", i, r.Status)
			}
		}()
	}
	wg.Wait()
}
