package profilesvc_test

// End-to-end tests of the SDK against the mock server: every call goes
// over HTTP to a mockserver.NewTest server. Helpers are prefixed "e2e".

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

const e2ePassport = "PASSPORT\nFull Name: Jane Doe\nDate of Birth: 1990-04-12\nPassport Number: X1234567\nExpiry Date: 2031-05-01\n"

// e2eClock is a fake clock that reports each timer set on it, so that a
// test knows when the server holds a long poll (whose timeout is such a
// timer) before it moves time.
type e2eClock struct {
	*mockserver.FakeClock
	timers chan time.Duration
}

func newE2EClock() *e2eClock {
	return &e2eClock{
		FakeClock: mockserver.NewFakeClock(time.Date(2030, 3, 1, 9, 0, 0, 0, time.UTC)),
		timers:    make(chan time.Duration, 64),
	}
}

func (c *e2eClock) AfterFunc(d time.Duration, f func()) func() bool {
	stop := c.FakeClock.AfterFunc(d, f)
	select {
	case c.timers <- d:
	default:
	}
	return stop
}

// awaitTimer waits until a timer of d is set: a long poll with
// timeoutSeconds d/1s is held.
func (c *e2eClock) awaitTimer(t *testing.T, d time.Duration) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case got := <-c.timers:
			if got == d {
				return
			}
		case <-deadline:
			t.Fatalf("no %v timer was set within 10s: no long poll is held", d)
		}
	}
}

// e2eWantAPIError checks that err is an *APIError matching the sentinel,
// with the status and code.
func e2eWantAPIError(t *testing.T, err error, sentinel error, status int, code string) *profilesvc.APIError {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %v (%d %s)", sentinel, status, code)
	}
	if !errors.Is(err, sentinel) {
		t.Errorf("error %v does not match %v", err, sentinel)
	}
	var apiErr *profilesvc.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("error %v is not an *APIError", err)
	}
	if apiErr.StatusCode != status || apiErr.Code != code {
		t.Errorf("APIError = %d %s, want %d %s", apiErr.StatusCode, apiErr.Code, status, code)
	}
	if strings.TrimSpace(apiErr.Message) == "" {
		t.Errorf("APIError without a message: %+v", apiErr)
	}
	return apiErr
}

// e2eProfileWithItem creates a profile with the passport as a text item
// through the SDK.
func e2eProfileWithItem(t *testing.T, c *profilesvc.Client) (*profilesvc.Profile, *profilesvc.Item) {
	t.Helper()
	ctx := t.Context()
	p, err := c.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Jane Doe"})
	if err != nil {
		t.Fatalf("CreateProfile: %v", err)
	}
	it, err := c.CreateTextItem(ctx, p.DefaultFolder().ID, e2ePassport, profilesvc.CreateItemParams{Name: "passport"})
	if err != nil {
		t.Fatalf("CreateTextItem: %v", err)
	}
	return p, it
}

// e2eRequests returns the recorded requests of a method and path.
func e2eRequests(srv *mockserver.Server, method, path string) []mockserver.RecordedRequest {
	var out []mockserver.RecordedRequest
	for _, r := range srv.Requests() {
		if r.Method == method && r.Path == path {
			out = append(out, r)
		}
	}
	return out
}

func TestE2EFullFlow(t *testing.T) {
	clock := newE2EClock()
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses(), mockserver.WithClock(clock))
	c := srv.Client(profilesvc.WithRetryWait(5*time.Millisecond, 50*time.Millisecond))
	ctx := t.Context()

	// Profile.
	p, err := c.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{
		Name: "Jane Doe", Description: "Onboarding", Metadata: profilesvc.Object{"caseRef": "C-1"},
	})
	if err != nil {
		t.Fatalf("CreateProfile: %v", err)
	}
	if !strings.HasPrefix(p.ID, "pf_") || p.WorkflowID != mockserver.DefaultWorkflowID || p.Name != "Jane Doe" ||
		p.ItemsCount != 0 || p.LastAnalysisAt != nil || p.Metadata["caseRef"] != "C-1" {
		t.Errorf("CreateProfile = %+v", p)
	}
	def := p.DefaultFolder()
	if def == nil || def.Name != "default" || len(p.Folders) != 1 {
		t.Fatalf("CreateProfile folders = %+v, want the default folder", p.Folders)
	}

	// Folders.
	docs, err := c.CreateFolder(ctx, p.ID, "Identity documents")
	if err != nil {
		t.Fatalf("CreateFolder: %v", err)
	}
	if docs.Name != "Identity documents" || docs.IsDefault || docs.ProfileID != p.ID {
		t.Errorf("CreateFolder = %+v", docs)
	}

	// Items: a file, a text and a JSON value.
	file, err := c.UploadFile(ctx, docs.ID, strings.NewReader(e2ePassport), profilesvc.UploadParams{
		Filename: "passport.txt", Metadata: profilesvc.Object{"source": "scanner"},
	})
	if err != nil {
		t.Fatalf("UploadFile: %v", err)
	}
	if file.Type != profilesvc.ItemFile || file.Name != "passport.txt" || file.SizeBytes != int64(len(e2ePassport)) ||
		!file.Content.IsNull() || file.Status != profilesvc.ItemActive || file.Metadata["source"] != "scanner" || file.FolderID != docs.ID {
		t.Errorf("UploadFile = %+v", file)
	}
	if b, _ := srv.ItemBytes(file.ID); string(b) != e2ePassport {
		t.Errorf("stored upload = %q", b)
	}
	note, err := c.CreateTextItem(ctx, def.ID, "Applicant called on Monday.", profilesvc.CreateItemParams{Name: "call note"})
	if err != nil {
		t.Fatalf("CreateTextItem: %v", err)
	}
	if s, err := note.Text(); err != nil || s != "Applicant called on Monday." || note.Type != profilesvc.ItemText {
		t.Errorf("CreateTextItem = %+v (%q, %v)", note, s, err)
	}
	form, err := c.CreateJSONItem(ctx, docs.ID, map[string]any{"full_name": "Jane Doe", "date_of_birth": "1990-04-12"}, profilesvc.CreateItemParams{Name: "application form"})
	if err != nil {
		t.Fatalf("CreateJSONItem: %v", err)
	}
	var formContent map[string]string
	if err := form.DecodeContent(&formContent); err != nil || formContent["full_name"] != "Jane Doe" || form.Type != profilesvc.ItemJSON {
		t.Errorf("CreateJSONItem = %+v (%v, %v)", form, formContent, err)
	}

	got, err := c.GetItem(ctx, file.ID)
	if err != nil {
		t.Fatalf("GetItem: %v", err)
	}
	if diff := cmp.Diff(file, got, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Raw" }, cmp.Ignore())); diff != "" {
		t.Errorf("GetItem differs from the upload's answer (-upload +get):\n%s", diff)
	}
	updated, err := c.UpdateItem(ctx, note.ID, profilesvc.UpdateItemParams{
		Name: profilesvc.Ptr("call note (edited)"), Metadata: profilesvc.Object{"agent": "ops"}, Content: "Applicant called on Tuesday.",
	})
	if err != nil {
		t.Fatalf("UpdateItem: %v", err)
	}
	if s, _ := updated.Text(); updated.Name != "call note (edited)" || s != "Applicant called on Tuesday." || updated.Metadata["agent"] != "ops" {
		t.Errorf("UpdateItem = %+v", updated)
	}

	// Five folders, listed two at a time.
	for _, name := range []string{"Bank statements", "Payslips", "Misc"} {
		if _, err := c.CreateFolder(ctx, p.ID, name); err != nil {
			t.Fatalf("CreateFolder %s: %v", name, err)
		}
	}
	srv.ClearRequests()
	var names []string
	for f, err := range c.ListFolders(ctx, p.ID, &profilesvc.ListParams{Limit: 2}) {
		if err != nil {
			t.Fatalf("ListFolders: %v", err)
		}
		if f.Items != nil {
			t.Errorf("listed folder %s carries items", f.Name)
		}
		names = append(names, f.Name)
	}
	slices.Sort(names)
	if diff := cmp.Diff([]string{"Bank statements", "Identity documents", "Misc", "Payslips", "default"}, names); diff != "" {
		t.Errorf("ListFolders walked (-want +got):\n%s", diff)
	}
	pages := e2eRequests(srv, "GET", "/v1/profiles/"+p.ID+"/folders")
	if len(pages) != 3 {
		t.Errorf("ListFolders fetched %d pages, want 3 (2+2+1)", len(pages))
	}
	for i, r := range pages {
		if r.Query.Get("limit") != "2" || (i > 0) != r.Query.Has("cursor") {
			t.Errorf("page %d query = %v", i, r.Query)
		}
	}

	gf, err := c.GetFolder(ctx, docs.ID)
	if err != nil {
		t.Fatalf("GetFolder: %v", err)
	}
	var itemNames []string
	for _, s := range gf.Items {
		itemNames = append(itemNames, s.Name)
	}
	if gf.ItemsCount != 2 || !slices.Equal(itemNames, []string{"passport.txt", "application form"}) {
		t.Errorf("GetFolder = count %d, items %v", gf.ItemsCount, itemNames)
	}
	misc := ""
	for f, err := range c.ListFolders(ctx, p.ID, &profilesvc.ListParams{Search: "misc"}) {
		if err != nil {
			t.Fatal(err)
		}
		misc = f.ID
	}
	renamed, err := c.RenameFolder(ctx, misc, "Other")
	if err != nil || renamed.Name != "Other" {
		t.Fatalf("RenameFolder = %+v, %v", renamed, err)
	}

	// Analysis, waited for with long polls; the test moves it along.
	id, err := c.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{
		ItemIDs:        []string{file.ID, form.ID},
		Options:        profilesvc.Object{"language": "en", "strict": true},
		ClientMetadata: profilesvc.Object{"requestedBy": "e2e"},
	})
	if err != nil {
		t.Fatalf("StartAnalysis: %v", err)
	}
	if !strings.HasPrefix(id, "analysis_") {
		t.Errorf("analysis ID %q", id)
	}
	var seen []profilesvc.AnalysisStatus
	type result struct {
		a   *profilesvc.Analysis
		err error
	}
	waited := make(chan result, 1)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	go func() {
		a, err := c.WaitForAnalysis(wctx, id, &profilesvc.WaitOptions{
			PollTimeout: 10 * time.Second,
			OnUpdate:    func(a *profilesvc.Analysis) { seen = append(seen, a.Status) },
		})
		waited <- result{a, err}
	}()
	clock.awaitTimer(t, 10*time.Second) // first long poll held
	clock.Advance(10 * time.Second)     // it times out: pending
	clock.awaitTimer(t, 10*time.Second) // second long poll held
	if err := srv.StartProcessing(id); err != nil {
		t.Fatal(err)
	}
	clock.Advance(10 * time.Second)     // it times out: processing
	clock.awaitTimer(t, 10*time.Second) // third long poll held
	if err := srv.CompleteAnalysis(id); err != nil {
		t.Fatal(err)
	}
	var res result
	select {
	case res = <-waited:
	case <-time.After(10 * time.Second):
		t.Fatalf("WaitForAnalysis did not return after the analysis completed")
	}
	if res.err != nil {
		t.Fatalf("WaitForAnalysis: %v", res.err)
	}
	a := res.a
	if diff := cmp.Diff([]profilesvc.AnalysisStatus{profilesvc.AnalysisPending, profilesvc.AnalysisProcessing, profilesvc.AnalysisCompleted}, seen); diff != "" {
		t.Errorf("OnUpdate saw (-want +got):\n%s", diff)
	}
	if a.ID != id || a.Status != profilesvc.AnalysisCompleted || !a.Done() || a.PrimaryReportID == nil || a.ProfileID != p.ID {
		t.Errorf("waited analysis = %+v", a)
	}
	if a.Options["language"] != "en" || a.Options["strict"] != true || a.ClientMetadata["requestedBy"] != "e2e" {
		t.Errorf("options %v and clientMetadata %v not echoed", a.Options, a.ClientMetadata)
	}
	if a.FolderID != nil || a.EngineID != nil || a.Engine != nil || a.Error != nil || a.VerificationStatus != profilesvc.VerificationPendingReview {
		t.Errorf("analysis folderId %v, engineId %v, engine %v, error %v, verification %s", a.FolderID, a.EngineID, a.Engine, a.Error, a.VerificationStatus)
	}
	if !strings.HasPrefix(a.PlaybookID, "PB-") || a.RiskAssessment == nil || a.SystemMetadata == nil || len(a.Findings) == 0 || len(a.AgentAuditLog) == 0 {
		t.Errorf("completed analysis lacks parts: %+v", a)
	}
	var targets []string
	for _, ti := range a.TargetItems {
		targets = append(targets, ti.ItemID)
	}
	if !slices.Equal(targets, []string{file.ID, form.ID}) {
		t.Errorf("targetItems = %v", targets)
	}

	// Typed accessors of the extracted data.
	rr, err := a.ExtractedData.ReviewResult()
	if err != nil || rr == nil {
		t.Fatalf("ReviewResult = %v, %v", rr, err)
	}
	if !slices.Contains([]profilesvc.FinalAction{profilesvc.ActionApprove, profilesvc.ActionReject, profilesvc.ActionManualReview}, rr.FinalAction) ||
		rr.FinalRiskLevel != a.RiskAssessment.RiskLevel || rr.FinalActionReason == "" {
		t.Errorf("ReviewResult = %+v (risk %s)", rr, a.RiskAssessment.RiskLevel)
	}
	cj, err := a.ExtractedData.CategoryJudgements()
	if err != nil || cj == nil {
		t.Fatalf("CategoryJudgements = %v, %v", cj, err)
	}
	if fc, ok := cj.Checks["full_name"]; !ok || fc.Result != profilesvc.CheckPass {
		t.Errorf("full_name check = %+v, want pass (both documents say Jane Doe)", cj.Checks)
	}
	if cj.OverallConsistencyResult == "" {
		t.Errorf("no overall_consistency_result")
	}
	dv, err := a.ExtractedData.DocumentValidations()
	if err != nil || len(dv) == 0 {
		t.Fatalf("DocumentValidations = %v, %v", dv, err)
	}
	if pv, ok := dv["passport"]; !ok || !pv.IsValid || pv.Reason == "" {
		t.Errorf("DocumentValidations = %+v, want a valid passport", dv)
	}
	ev, err := a.ExtractedData.ExtractedValues()
	if err != nil || ev["full_name"] != "Jane Doe" {
		t.Errorf("ExtractedValues = %v, %v; want full_name Jane Doe", ev, err)
	}
	if reqID, err := a.ExtractedData.RequestID(); err != nil || reqID != p.ID {
		t.Errorf("request_id = %q, %v; want %s", reqID, err, p.ID)
	}

	// Reports.
	var reports [][]byte
	for _, loc := range []profilesvc.Locale{profilesvc.LocaleEnglish, profilesvc.LocaleKorean} {
		rep, err := c.DownloadReport(ctx, id, &profilesvc.ReportParams{Locale: loc})
		if err != nil {
			t.Fatalf("DownloadReport %s: %v", loc, err)
		}
		var buf bytes.Buffer
		if _, err := rep.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(buf.Bytes(), []byte("%PDF-")) {
			t.Errorf("%s report starts %q", loc, buf.Bytes()[:min(8, buf.Len())])
		}
		if rep.Filename != "analysis_"+id+"_report.pdf" || !strings.HasPrefix(rep.ContentType, "application/pdf") {
			t.Errorf("%s report: filename %q, content type %q", loc, rep.Filename, rep.ContentType)
		}
		reports = append(reports, buf.Bytes())
	}
	if bytes.Equal(reports[0], reports[1]) {
		t.Errorf("the en and ko reports are the same bytes")
	}

	// Listing, profile state, deletion.
	var listed []string
	for la, err := range c.ListAnalyses(ctx, p.ID, nil) {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, la.ID)
	}
	if !slices.Equal(listed, []string{id}) {
		t.Errorf("ListAnalyses = %v, want [%s]", listed, id)
	}
	gp, err := c.GetProfile(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if gp.ItemsCount != 3 || gp.LastAnalysisAt == nil || !gp.LastAnalysisAt.Equal(a.RequestedAt) {
		t.Errorf("profile after the analysis: itemsCount %d, lastAnalysisAt %v", gp.ItemsCount, gp.LastAnalysisAt)
	}
	if err := c.DeleteAnalysis(ctx, id); err != nil {
		t.Fatalf("DeleteAnalysis: %v", err)
	}
	if _, err := c.GetAnalysis(ctx, id, nil); !errors.Is(err, profilesvc.ErrAnalysisNotFound) {
		t.Errorf("GetAnalysis after delete = %v", err)
	}
	if err := c.DeleteFolder(ctx, docs.ID); err != nil {
		t.Fatalf("DeleteFolder: %v", err)
	}
	if _, err := c.GetFolder(ctx, docs.ID); !errors.Is(err, profilesvc.ErrFolderNotFound) {
		t.Errorf("GetFolder after delete = %v", err)
	}
	if _, ok := srv.Item(file.ID); ok {
		t.Errorf("the deleted folder's item %s remains", file.ID)
	}
	if err := c.DeleteProfile(ctx, p.ID); err != nil {
		t.Fatalf("DeleteProfile: %v", err)
	}
	if _, err := c.GetProfile(ctx, p.ID); !errors.Is(err, profilesvc.ErrProfileNotFound) {
		t.Errorf("GetProfile after delete = %v", err)
	}
	if _, ok := srv.Item(note.ID); ok || len(srv.Profiles()) != 0 {
		t.Errorf("the deleted profile's data remains")
	}
}

func TestE2ETypedErrors(t *testing.T) {
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses())
	c := srv.Client(profilesvc.WithMaxRetries(0))
	ctx := t.Context()
	p, it := e2eProfileWithItem(t, c)
	def := p.DefaultFolder().ID
	running, err := c.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	if err != nil {
		t.Fatal(err)
	}
	other, otherItem := e2eProfileWithItem(t, c)
	_ = other

	for _, tc := range []struct {
		name     string
		call     func() error
		sentinel error
		status   int
		code     string
	}{
		{"list folders of an unknown profile", func() error {
			_, err := c.ListFoldersPage(ctx, "pf_missing", nil)
			return err
		}, profilesvc.ErrProfileNotFound, 404, "SVC_3005"},
		{"get an unknown folder", func() error {
			_, err := c.GetFolder(ctx, "fld_missing")
			return err
		}, profilesvc.ErrFolderNotFound, 404, "SVC_3009"},
		{"rename an unknown folder", func() error {
			_, err := c.RenameFolder(ctx, "fld_missing", "x")
			return err
		}, profilesvc.ErrFolderNotFound, 404, "FOLDER_NOT_FOUND"},
		{"delete an unknown folder", func() error { return c.DeleteFolder(ctx, "fld_missing") },
			profilesvc.ErrFolderNotFound, 404, "FOLDER_NOT_FOUND"},
		{"rename the default folder", func() error {
			_, err := c.RenameFolder(ctx, def, "x")
			return err
		}, profilesvc.ErrCannotModifyDefaultFolder, 400, "CANNOT_MODIFY_DEFAULT_FOLDER"},
		{"delete the default folder", func() error { return c.DeleteFolder(ctx, def) },
			profilesvc.ErrCannotDeleteDefaultFolder, 400, "CANNOT_DELETE_DEFAULT_FOLDER"},
		{"start with an unknown item", func() error {
			_, err := c.StartAnalysis(ctx, other.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{"item_missing"}})
			return err
		}, profilesvc.ErrInvalidItemIDs, 400, "INVALID_ITEM_IDS"},
		{"start with another profile's item", func() error {
			_, err := c.StartAnalysis(ctx, other.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
			return err
		}, profilesvc.ErrInvalidItemIDs, 400, "INVALID_ITEM_IDS"},
		{"start while one runs", func() error {
			_, err := c.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
			return err
		}, profilesvc.ErrAnalysisInProgress, 409, "ANALYSIS_IN_PROGRESS"},
		{"start for an unknown profile", func() error {
			_, err := c.StartAnalysis(ctx, "pf_missing", profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
			return err
		}, profilesvc.ErrProfileNotFound, 404, "PROFILE_NOT_FOUND"},
		{"report of a running analysis", func() error {
			_, err := c.DownloadReport(ctx, running, nil)
			return err
		}, profilesvc.ErrReportNotAvailable, 400, "REPORT_NOT_AVAILABLE"},
		{"get an unknown item", func() error {
			_, err := c.GetItem(ctx, "item_missing")
			return err
		}, profilesvc.ErrItemNotFound, 404, "ITEM_NOT_FOUND"},
		{"update an unknown item", func() error {
			_, err := c.UpdateItem(ctx, "item_missing", profilesvc.UpdateItemParams{Name: profilesvc.Ptr("x")})
			return err
		}, profilesvc.ErrItemNotFound, 404, "ITEM_NOT_FOUND"},
		{"delete an unknown item", func() error { return c.DeleteItem(ctx, "item_missing") },
			profilesvc.ErrItemNotFound, 404, "ITEM_NOT_FOUND"},
		{"get an unknown analysis", func() error {
			_, err := c.GetAnalysis(ctx, "analysis_missing", nil)
			return err
		}, profilesvc.ErrAnalysisNotFound, 404, "ANALYSIS_NOT_FOUND"},
		{"report of an unknown analysis", func() error {
			_, err := c.DownloadReport(ctx, "analysis_missing", nil)
			return err
		}, profilesvc.ErrAnalysisNotFound, 404, "ANALYSIS_NOT_FOUND"},
		{"delete an unknown analysis", func() error { return c.DeleteAnalysis(ctx, "analysis_missing") },
			profilesvc.ErrAnalysisNotFound, 404, "ANALYSIS_NOT_FOUND"},
		{"update an unknown profile", func() error {
			_, err := c.UpdateProfile(ctx, "pf_missing", profilesvc.UpdateProfileParams{Name: profilesvc.Ptr("x")})
			return err
		}, profilesvc.ErrProfileNotFound, 404, "PROFILE_NOT_FOUND"},
		{"delete an unknown profile", func() error { return c.DeleteProfile(ctx, "pf_missing") },
			profilesvc.ErrProfileNotFound, 404, "PROFILE_NOT_FOUND"},
		{"create a profile without a name", func() error {
			_, err := c.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{})
			return err
		}, profilesvc.ErrValidation, 400, "VALIDATION_ERROR"},
		{"create a profile with a long name", func() error {
			_, err := c.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: strings.Repeat("x", 256)})
			return err
		}, profilesvc.ErrValidation, 400, "VALIDATION_ERROR"},
		{"change a file item's content", func() error {
			f, err := c.UploadFile(ctx, def, strings.NewReader("x"), profilesvc.UploadParams{Filename: "x.txt"})
			if err != nil {
				return err
			}
			_, err = c.UpdateItem(ctx, f.ID, profilesvc.UpdateItemParams{Content: "y"})
			return err
		}, profilesvc.ErrValidation, 400, "VALIDATION_ERROR"},
		{"start without items", func() error {
			_, err := c.StartAnalysis(ctx, other.ID, profilesvc.StartAnalysisParams{})
			return err
		}, profilesvc.ErrValidation, 400, "VALIDATION_ERROR"},
		{"create a profile in an unknown workflow", func() error {
			_, err := c.CreateProfile(ctx, "wf_missing", profilesvc.CreateProfileParams{Name: "x"})
			return err
		}, profilesvc.ErrWorkflowNotFound, 404, "WORKFLOW_NOT_FOUND"},
		{"a wrong API key", func() error {
			_, err := srv.Client(profilesvc.WithAPIKey("wrong-key"), profilesvc.WithMaxRetries(0)).GetProfile(ctx, p.ID)
			return err
		}, profilesvc.ErrUnauthorized, 401, "UNAUTHORIZED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			apiErr := e2eWantAPIError(t, tc.call(), tc.sentinel, tc.status, tc.code)
			if tc.status == 404 && !errors.Is(apiErr, profilesvc.ErrNotFound) {
				t.Errorf("a 404 does not match ErrNotFound")
			}
			if strings.Contains(apiErr.Error(), srv.APIKey) {
				t.Errorf("the error text holds the API key")
			}
		})
	}

	t.Run("a non-ACTIVE item", func(t *testing.T) {
		if err := srv.SetItemStatus(otherItem.ID, profilesvc.ItemProcessing); err != nil {
			t.Fatal(err)
		}
		_, err := c.StartAnalysis(ctx, other.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{otherItem.ID}})
		apiErr := e2eWantAPIError(t, err, profilesvc.ErrInvalidItemIDs, 400, "INVALID_ITEM_IDS")
		if !strings.Contains(apiErr.Message, otherItem.ID) {
			t.Errorf("message %q does not name %s", apiErr.Message, otherItem.ID)
		}
	})
}

func TestE2EWaitForAnalysisFailed(t *testing.T) {
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses())
	c := srv.Client()
	ctx := t.Context()
	p, it := e2eProfileWithItem(t, c)
	id, err := c.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		a   *profilesvc.Analysis
		err error
	}
	waited := make(chan result, 1)
	go func() {
		a, err := c.WaitForAnalysis(ctx, id, nil)
		waited <- result{a, err}
	}()
	select {
	case r := <-waited:
		t.Fatalf("WaitForAnalysis returned before the analysis ended: %+v", r)
	case <-time.After(150 * time.Millisecond):
	}
	start := time.Now()
	if err := srv.FailAnalysis(id, "the document is unreadable"); err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-waited:
	case <-time.After(5 * time.Second):
		t.Fatalf("WaitForAnalysis did not return after the analysis failed")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("WaitForAnalysis returned %v after the failure, want at once (the long poll wakes)", d)
	}
	if !errors.Is(r.err, profilesvc.ErrAnalysisFailed) {
		t.Fatalf("WaitForAnalysis = %v, want ErrAnalysisFailed", r.err)
	}
	var failed *profilesvc.AnalysisFailedError
	if !errors.As(r.err, &failed) || failed.AnalysisID != id || failed.Reason != "the document is unreadable" {
		t.Errorf("AnalysisFailedError = %+v", failed)
	}
	if r.a == nil || r.a.Status != profilesvc.AnalysisFailed || r.a.Error == nil || *r.a.Error != "the document is unreadable" {
		t.Errorf("returned analysis = %+v", r.a)
	}
	if _, err := c.DownloadReport(ctx, id, nil); !errors.Is(err, profilesvc.ErrReportNotAvailable) {
		t.Errorf("report of a failed analysis = %v, want ErrReportNotAvailable", err)
	}
	// The profile is free again.
	if _, err := c.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}}); err != nil {
		t.Errorf("StartAnalysis after a failure: %v", err)
	}
}

// e2eDeadlineCtx is a context whose deadline the test reaches by hand:
// Deadline reports a time, but Done closes only when expire is called, so
// a test of what happens at a deadline waits for no clock.
type e2eDeadlineCtx struct {
	context.Context
	deadline time.Time
	done     chan struct{}
}

func newE2EDeadlineCtx(parent context.Context, in time.Duration) *e2eDeadlineCtx {
	return &e2eDeadlineCtx{Context: parent, deadline: time.Now().Add(in), done: make(chan struct{})}
}

func (c *e2eDeadlineCtx) Deadline() (time.Time, bool) { return c.deadline, true }
func (c *e2eDeadlineCtx) Done() <-chan struct{}       { return c.done }
func (c *e2eDeadlineCtx) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}
func (c *e2eDeadlineCtx) expire() { close(c.done) }

// TestE2EWaitForAnalysisDeadline checks that a context shorter than the
// service's minimum hold still gets the analysis as it stands: the first
// request is a plain read, so that at the deadline there is one to return.
func TestE2EWaitForAnalysisDeadline(t *testing.T) {
	clock := mockserver.NewFakeClock(time.Date(2030, 3, 1, 9, 0, 0, 0, time.UTC))
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses(), mockserver.WithClock(clock))
	c := srv.Client()
	p, it := e2eProfileWithItem(t, c)
	id, err := c.StartAnalysis(t.Context(), p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := newE2EDeadlineCtx(t.Context(), 5*time.Second)
	type result struct {
		a   *profilesvc.Analysis
		err error
	}
	done := make(chan result, 1)
	go func() {
		a, err := c.WaitForAnalysis(ctx, id, nil)
		done <- result{a, err}
	}()
	// The long poll after the plain read is held: its timeout is the only
	// timer on the clock of a server of manual analyses.
	if err := clock.BlockUntil(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	ctx.expire()
	r := <-done
	if !errors.Is(r.err, profilesvc.ErrWaitTimeout) || !errors.Is(r.err, context.DeadlineExceeded) {
		t.Errorf("WaitForAnalysis = %v, want ErrWaitTimeout and context.DeadlineExceeded", r.err)
	}
	if errors.Is(r.err, profilesvc.ErrAnalysisFailed) {
		t.Errorf("a timeout matches ErrAnalysisFailed")
	}
	if r.a == nil || r.a.ID != id || r.a.Status != profilesvc.AnalysisPending {
		t.Errorf("WaitForAnalysis returned %+v, want the pending analysis it last saw", r.a)
	}
	if !strings.Contains(r.err.Error(), "still pending") {
		t.Errorf("error %q does not say the analysis is still pending", r.err)
	}
	// The long poll cut by the deadline may not be in the record yet: the
	// server answers it once it sees the connection gone.
	if reads := e2eRequests(srv, "GET", "/v1/analyses/"+id); len(reads) == 0 || len(reads[0].Query) != 0 {
		t.Errorf("requests = %+v, want a plain read first", reads)
	}
	if got, _ := srv.Analysis(id); got.Status != profilesvc.AnalysisPending {
		t.Errorf("the analysis is %s after the wait ended, want still pending", got.Status)
	}
}

// TestE2EWaitForAnalysisReportsEveryStage checks that OnUpdate hears of
// every stage of an analysis of 30 seconds, in order, although the mock
// holds a long poll until the report exists: with OnUpdate, each poll is
// held 10 seconds at most, so the processing stage is seen when one ends.
func TestE2EWaitForAnalysisReportsEveryStage(t *testing.T) {
	clock := mockserver.NewFakeClock(time.Date(2030, 3, 1, 9, 0, 0, 0, time.UTC))
	srv := mockserver.NewTest(t, mockserver.WithClock(clock), mockserver.WithAnalysisDuration(30*time.Second))
	c := srv.Client()
	p, it := e2eProfileWithItem(t, c)
	id, err := c.StartAnalysis(t.Context(), p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	if err != nil {
		t.Fatal(err)
	}
	updates := make(chan profilesvc.AnalysisStatus, 8)
	done := make(chan error, 1)
	go func() {
		a, err := c.WaitForAnalysis(t.Context(), id, &profilesvc.WaitOptions{
			OnUpdate: func(a *profilesvc.Analysis) { updates <- a.Status },
		})
		if err == nil && !a.Done() {
			err = errors.New("returned an analysis that is not done")
		}
		done <- err
	}()
	next := func(want profilesvc.AnalysisStatus) {
		t.Helper()
		select {
		case got := <-updates:
			if got != want {
				t.Fatalf("OnUpdate(%s), want %s", got, want)
			}
		case err := <-done:
			t.Fatalf("WaitForAnalysis returned %v before OnUpdate(%s)", err, want)
		case <-time.After(time.Minute):
			// Not a timing assertion: a bound far above any machine's, so
			// that a poll still held fails here rather than hanging.
			t.Fatalf("no OnUpdate(%s) within a minute: the long poll is still held", want)
		}
	}
	// The run's two timers (processing at 3s, completed at 30s) and the
	// timeout of a held long poll.
	next(profilesvc.AnalysisPending)
	if err := clock.BlockUntil(t.Context(), 3); err != nil {
		t.Fatal(err)
	}
	clock.Advance(10 * time.Second) // processing at 3s; the poll ends at 10s
	next(profilesvc.AnalysisProcessing)
	if err := clock.BlockUntil(t.Context(), 2); err != nil { // the next poll is held
		t.Fatal(err)
	}
	clock.Advance(20 * time.Second) // completed at 30s, with its report
	next(profilesvc.AnalysisCompleted)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, r := range e2eRequests(srv, "GET", "/v1/analyses/"+id) {
		if r.Query.Get("waitForReport") == "true" && r.Query.Get("timeoutSeconds") != "10" {
			t.Errorf("a long poll with timeoutSeconds=%s, want 10", r.Query.Get("timeoutSeconds"))
		}
	}
	select {
	case s := <-updates:
		t.Errorf("an extra OnUpdate(%s)", s)
	default:
	}
}

func TestE2ERetriesThroughFaults(t *testing.T) {
	ctx := t.Context()
	newClient := func(srv *mockserver.Server, opts ...profilesvc.Option) *profilesvc.Client {
		return srv.Client(append([]profilesvc.Option{profilesvc.WithRetryWait(5*time.Millisecond, 50*time.Millisecond)}, opts...)...)
	}

	t.Run("GET retried until the fault is used up", func(t *testing.T) {
		srv := mockserver.NewTest(t)
		c := newClient(srv)
		p, _ := e2eProfileWithItem(t, c)
		if _, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Status: 503, Times: 2}); err != nil {
			t.Fatal(err)
		}
		srv.ClearRequests()
		got, err := c.GetProfile(ctx, p.ID)
		if err != nil || got.ID != p.ID {
			t.Fatalf("GetProfile through two 503s = %v, %v", got, err)
		}
		var statuses []int
		for _, r := range e2eRequests(srv, "GET", "/v1/profiles/"+p.ID) {
			statuses = append(statuses, r.Status)
		}
		if !slices.Equal(statuses, []int{503, 503, 200}) {
			t.Errorf("attempts answered %v, want [503 503 200]", statuses)
		}
	})

	t.Run("POST retried on 503 without a duplicate", func(t *testing.T) {
		srv := mockserver.NewTest(t)
		c := newClient(srv)
		if _, err := srv.InjectFault(mockserver.Fault{Method: "POST", Path: "/v1/workflows/*/profiles", Status: 503, Times: 1}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Once"}); err != nil {
			t.Fatalf("CreateProfile through a 503: %v", err)
		}
		if n := len(srv.Profiles()); n != 1 {
			t.Errorf("%d profiles created, want 1", n)
		}
		if n := len(e2eRequests(srv, "POST", "/v1/workflows/wf_default/profiles")); n != 2 {
			t.Errorf("%d attempts, want 2", n)
		}
	})

	t.Run("WaitForAnalysis through 503s", func(t *testing.T) {
		srv := mockserver.NewTest(t, mockserver.WithManualAnalyses())
		c := newClient(srv)
		p, it := e2eProfileWithItem(t, c)
		id, err := c.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.CompleteAnalysis(id); err != nil {
			t.Fatal(err)
		}
		if _, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/analyses/*", Status: 503, Times: 5}); err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		a, err := c.WaitForAnalysis(wctx, id, nil)
		if err != nil || a.Status != profilesvc.AnalysisCompleted {
			t.Fatalf("WaitForAnalysis through five 503s = %v, %v", a, err)
		}
	})

	t.Run("retries exhausted", func(t *testing.T) {
		srv := mockserver.NewTest(t)
		c := newClient(srv, profilesvc.WithMaxRetries(2))
		if _, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Status: 503, Message: "maintenance"}); err != nil {
			t.Fatal(err)
		}
		_, err := c.GetProfile(ctx, "pf_any")
		apiErr := e2eWantAPIError(t, err, profilesvc.ErrServiceUnavailable, 503, "SERVICE_UNAVAILABLE")
		if apiErr.Attempts != 3 || apiErr.Message != "maintenance" || !errors.Is(err, profilesvc.ErrServer) {
			t.Errorf("APIError = %+v, want 3 attempts and the fault's message", apiErr)
		}
		if n := len(e2eRequests(srv, "GET", "/v1/profiles/pf_any")); n != 3 {
			t.Errorf("the server saw %d attempts, want 3", n)
		}
	})

	t.Run("a Retry-After beyond the maximum wait is not waited for", func(t *testing.T) {
		srv := mockserver.NewTest(t)
		c := newClient(srv)
		if _, err := srv.InjectFault(mockserver.Fault{Path: "/v1/profiles/*", Status: 429, RetryAfter: 7 * time.Second}); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, err := c.GetProfile(ctx, "pf_any")
		apiErr := e2eWantAPIError(t, err, profilesvc.ErrRateLimited, 429, "RATE_LIMITED")
		if apiErr.RetryAfter != 7*time.Second || apiErr.Attempts != 1 {
			t.Errorf("APIError = RetryAfter %v, attempts %d; want 7s and 1", apiErr.RetryAfter, apiErr.Attempts)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("the call took %v, want it to return at once", d)
		}
	})

	t.Run("a dropped connection is retried for a GET", func(t *testing.T) {
		srv := mockserver.NewTest(t)
		c := newClient(srv)
		p, _ := e2eProfileWithItem(t, c)
		if _, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Drop: true, Times: 1}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.GetProfile(ctx, p.ID); err != nil {
			t.Errorf("GetProfile through a dropped connection: %v", err)
		}
	})

	t.Run("a delay longer than the request timeout is retried", func(t *testing.T) {
		srv := mockserver.NewTest(t)
		c := newClient(srv, profilesvc.WithRequestTimeout(100*time.Millisecond))
		p, _ := e2eProfileWithItem(t, c)
		if _, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Delay: time.Second, Times: 1}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.GetProfile(ctx, p.ID); err != nil {
			t.Errorf("GetProfile after a timed-out attempt: %v", err)
		}
	})
}

func TestE2EUploadRetriedResendsWholeFile(t *testing.T) {
	srv := mockserver.NewTest(t)
	c := srv.Client(profilesvc.WithRetryWait(5*time.Millisecond, 50*time.Millisecond))
	ctx := t.Context()
	p, err := c.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Upload"})
	if err != nil {
		t.Fatal(err)
	}
	folder := p.DefaultFolder().ID
	if _, err := srv.InjectFault(mockserver.Fault{Method: "POST", Path: "/v1/folders/*/items", Status: 503, Times: 1}); err != nil {
		t.Fatal(err)
	}
	doc := strings.Repeat(e2ePassport, 50)
	it, err := c.UploadFile(ctx, folder, strings.NewReader(doc), profilesvc.UploadParams{Filename: "passport.txt"})
	if err != nil {
		t.Fatalf("UploadFile through a 503: %v", err)
	}
	if b, ok := srv.ItemBytes(it.ID); !ok || string(b) != doc {
		t.Errorf("stored %d bytes, want the whole %d-byte file", len(b), len(doc))
	}
	if it.SizeBytes != int64(len(doc)) {
		t.Errorf("sizeBytes = %d, want %d", it.SizeBytes, len(doc))
	}
	attempts := e2eRequests(srv, "POST", "/v1/folders/"+folder+"/items")
	if len(attempts) != 2 || attempts[0].Status != 503 || attempts[1].Status != 201 {
		t.Fatalf("upload attempts = %d, want a 503 then a 201", len(attempts))
	}
	if !bytes.Contains(attempts[1].Body, []byte(doc)) {
		t.Errorf("the retried upload's body does not hold the whole file")
	}
	if f, _ := srv.Folder(folder); len(f.Items) != 1 {
		t.Errorf("the folder holds %d items, want 1", len(f.Items))
	}

	t.Run("a reader that cannot be rewound is sent once", func(t *testing.T) {
		if _, err := srv.InjectFault(mockserver.Fault{Method: "POST", Path: "/v1/folders/*/items", Status: 503, Times: 1}); err != nil {
			t.Fatal(err)
		}
		srv.ClearRequests()
		_, err := c.UploadFile(ctx, folder, io.MultiReader(strings.NewReader(doc)), profilesvc.UploadParams{Filename: "passport.txt"})
		apiErr := e2eWantAPIError(t, err, profilesvc.ErrServiceUnavailable, 503, "SERVICE_UNAVAILABLE")
		if apiErr.Attempts != 1 {
			t.Errorf("attempts = %d, want 1", apiErr.Attempts)
		}
		if n := len(e2eRequests(srv, "POST", "/v1/folders/"+folder+"/items")); n != 1 {
			t.Errorf("the server saw %d uploads, want 1", n)
		}
	})
}

// TestE2EConcurrentStarts races starts of one profile through the SDK:
// exactly one wins, the others get ErrAnalysisInProgress.
func TestE2EConcurrentStarts(t *testing.T) {
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses())
	// Without keep-alives: racing dials otherwise leave connections that
	// never send a request, and the server's Close waits 5s for those (see
	// TestKitClose in mockserver/kit_test.go).
	c := srv.Client(profilesvc.WithMaxRetries(0),
		profilesvc.WithHTTPClient(&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}))
	p, it := e2eProfileWithItem(t, c)
	var (
		wg               sync.WaitGroup
		mu               sync.Mutex
		wins, inProgress int
		others           []error
	)
	for range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.StartAnalysis(context.Background(), p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
			case errors.Is(err, profilesvc.ErrAnalysisInProgress):
				inProgress++
			default:
				others = append(others, err)
			}
		}()
	}
	wg.Wait()
	if wins != 1 || inProgress != 11 || len(others) != 0 {
		t.Errorf("12 racing starts: %d won, %d in progress, others %v; want 1 and 11", wins, inProgress, others)
	}
	if n := len(srv.Analyses(p.ID)); n != 1 {
		t.Errorf("%d analyses exist, want 1", n)
	}
}

// TestE2EStartAnalysisAfterALostAnswer runs StartAnalysis against the mock
// behind a proxy that lets the mock act on the first start request and
// then closes the connection without its answer: the call returns the ID
// of the analysis the mock did start, and no second analysis exists.
func TestE2EStartAnalysisAfterALostAnswer(t *testing.T) {
	mock, err := mockserver.NewHandler(mockserver.WithManualAnalyses())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mock.Close)
	var lost sync.Once
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/analyze") {
			dropped := false
			lost.Do(func() {
				mock.Handler().ServeHTTP(httptest.NewRecorder(), r) // the mock acts
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					_ = conn.Close() // and the answer is lost
				}
				dropped = true
			})
			if dropped {
				return
			}
		}
		mock.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	c, err := profilesvc.NewClient(profilesvc.WithBaseURL(front.URL), profilesvc.WithAPIKey(mock.APIKey))
	if err != nil {
		t.Fatal(err)
	}
	p, it := e2eProfileWithItem(t, c)

	id, err := c.StartAnalysis(t.Context(), p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	if err != nil {
		for _, r := range mock.Requests() {
			t.Logf("%s %s %d", r.Method, r.Path, r.Status)
		}
		t.Fatalf("StartAnalysis: %v", err)
	}
	all := mock.Analyses(p.ID)
	if len(all) != 1 || all[0].ID != id {
		t.Fatalf("StartAnalysis = %s; the mock has %d analyses (%v), want exactly that one", id, len(all), all)
	}
	starts := e2eRequests(mock, "POST", "/v1/analyses/"+p.ID+"/analyze")
	if len(starts) != 2 || starts[1].Status != http.StatusConflict {
		t.Errorf("start requests = %+v, want the lost one and a 409", starts)
	}
}

// TestE2EDefaultFolder finds the default folder of a profile read without
// its folders, among folders of its own.
func TestE2EDefaultFolder(t *testing.T) {
	srv := mockserver.NewTest(t)
	c := srv.Client()
	ctx := t.Context()
	created, _ := e2eProfileWithItem(t, c)
	for _, name := range []string{"b", "a", "default copy"} {
		if _, err := c.CreateFolder(ctx, created.ID, name); err != nil {
			t.Fatal(err)
		}
	}
	read, err := c.GetProfile(ctx, created.ID)
	if err != nil {
		t.Fatal(err)
	}
	if read.DefaultFolder() != nil {
		t.Errorf("Profile.DefaultFolder of a read profile = %+v, want nil", read.DefaultFolder())
	}
	f, err := c.DefaultFolder(ctx, read.ID)
	if err != nil {
		t.Fatal(err)
	}
	if f.ID != created.DefaultFolder().ID || !f.IsDefault || f.ItemsCount != 1 {
		t.Errorf("DefaultFolder = %+v, want %+v", f, created.DefaultFolder())
	}
	if _, err := c.DefaultFolder(ctx, "pf_missing"); !errors.Is(err, profilesvc.ErrProfileNotFound) {
		t.Errorf("DefaultFolder of a missing profile = %v, want ErrProfileNotFound", err)
	}
}

// TestE2ERequestID checks that the mock's request ID reaches the SDK's
// error and names the request in the mock's record.
func TestE2ERequestID(t *testing.T) {
	srv := mockserver.NewTest(t)
	_, err := srv.Client().GetProfile(t.Context(), "pf_missing")
	var apiErr *profilesvc.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("GetProfile = %v, want an *APIError", err)
	}
	if !strings.HasPrefix(apiErr.RequestID, "req_") {
		t.Fatalf("APIError.RequestID = %q, want a req_ ID", apiErr.RequestID)
	}
	reqs := e2eRequests(srv, "GET", "/v1/profiles/pf_missing")
	if len(reqs) != 1 || reqs[0].RequestID != apiErr.RequestID {
		t.Errorf("recorded %+v, want one request with ID %s", reqs, apiErr.RequestID)
	}
}
