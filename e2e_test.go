package profilesvc_test

// End-to-end tests of the SDK against the mock server: every call goes
// over HTTP to a mockserver.NewTest server.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/testutil"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

func TestE2EFullFlow(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses(), mockserver.WithClock(clock))
	c := srv.Client(profilesvc.WithRetryWait(5*time.Millisecond, 50*time.Millisecond))
	ctx := t.Context()

	// Profile.
	p, err := c.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{
		Name: "Jane Doe", Description: "Onboarding", Metadata: profilesvc.Object{"caseRef": "C-1"},
	})
	require.NoError(t, err, "CreateProfile")
	assert.True(t, strings.HasPrefix(p.ID, "pf_"), "CreateProfile ID %q", p.ID)
	assert.Equal(t, mockserver.DefaultWorkflowID, p.WorkflowID, "CreateProfile workflow")
	assert.Equal(t, "Jane Doe", p.Name, "CreateProfile name")
	assert.Zero(t, p.ItemsCount, "CreateProfile itemsCount")
	assert.Nil(t, p.LastAnalysisAt, "CreateProfile lastAnalysisAt")
	assert.Equal(t, "C-1", p.Metadata["caseRef"], "CreateProfile metadata")
	def := p.DefaultFolder()
	require.NotNil(t, def, "CreateProfile folders = %+v, want the default folder", p.Folders)
	require.Equal(t, "default", def.Name, "CreateProfile folders = %+v, want the default folder", p.Folders)
	require.Len(t, p.Folders, 1, "CreateProfile folders, want the default folder")

	// Folders.
	docs, err := c.CreateFolder(ctx, p.ID, "Identity documents")
	require.NoError(t, err, "CreateFolder")
	assert.Equal(t, "Identity documents", docs.Name, "CreateFolder name")
	assert.False(t, docs.IsDefault, "CreateFolder isDefault")
	assert.Equal(t, p.ID, docs.ProfileID, "CreateFolder profileId")

	// Items: a file, a text and a JSON value.
	file, err := c.UploadFile(ctx, docs.ID, strings.NewReader(passportText), profilesvc.UploadParams{
		Filename: "passport.txt", Metadata: profilesvc.Object{"source": "scanner"},
	})
	require.NoError(t, err, "UploadFile")
	assert.Equal(t, profilesvc.ItemFile, file.Type, "UploadFile type")
	assert.Equal(t, "passport.txt", file.Name, "UploadFile name")
	assert.Equal(t, int64(len(passportText)), file.SizeBytes, "UploadFile sizeBytes")
	assert.True(t, file.Content.IsNull(), "UploadFile content = %s, want null", file.Content)
	assert.Equal(t, profilesvc.ItemActive, file.Status, "UploadFile status")
	assert.Equal(t, "scanner", file.Metadata["source"], "UploadFile metadata")
	assert.Equal(t, docs.ID, file.FolderID, "UploadFile folderId")
	stored, _ := srv.ItemBytes(file.ID)
	assert.Equal(t, passportText, string(stored), "stored upload")
	note, err := c.CreateTextItem(ctx, def.ID, "Applicant called on Monday.", profilesvc.CreateItemParams{Name: "call note"})
	require.NoError(t, err, "CreateTextItem")
	text, err := note.Text()
	assert.NoError(t, err, "CreateTextItem Text()")
	assert.Equal(t, "Applicant called on Monday.", text, "CreateTextItem content")
	assert.Equal(t, profilesvc.ItemText, note.Type, "CreateTextItem type")
	form, err := c.CreateJSONItem(ctx, docs.ID, map[string]any{"full_name": "Jane Doe", "date_of_birth": "1990-04-12"}, profilesvc.CreateItemParams{Name: "application form"})
	require.NoError(t, err, "CreateJSONItem")
	var formContent map[string]string
	assert.NoError(t, form.DecodeContent(&formContent), "CreateJSONItem DecodeContent")
	assert.Equal(t, "Jane Doe", formContent["full_name"], "CreateJSONItem content")
	assert.Equal(t, profilesvc.ItemJSON, form.Type, "CreateJSONItem type")

	got, err := c.GetItem(ctx, file.ID)
	require.NoError(t, err, "GetItem")
	if diff := cmp.Diff(file, got, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Raw" }, cmp.Ignore())); diff != "" {
		t.Errorf("GetItem differs from the upload's answer (-upload +get):\n%s", diff)
	}
	updated, err := c.UpdateItem(ctx, note.ID, profilesvc.UpdateItemParams{
		Name: profilesvc.Ptr("call note (edited)"), Metadata: profilesvc.Object{"agent": "ops"}, Content: "Applicant called on Tuesday.",
	})
	require.NoError(t, err, "UpdateItem")
	updatedText, _ := updated.Text()
	assert.Equal(t, "call note (edited)", updated.Name, "UpdateItem name")
	assert.Equal(t, "Applicant called on Tuesday.", updatedText, "UpdateItem content")
	assert.Equal(t, "ops", updated.Metadata["agent"], "UpdateItem metadata")

	// Five folders, listed two at a time.
	for _, name := range []string{"Bank statements", "Payslips", "Misc"} {
		_, err := c.CreateFolder(ctx, p.ID, name)
		require.NoError(t, err, "CreateFolder %s", name)
	}
	srv.ClearRequests()
	var names []string
	for f, err := range c.ListFolders(ctx, p.ID, &profilesvc.ListParams{Limit: 2}) {
		require.NoError(t, err, "ListFolders")
		assert.Nil(t, f.Items, "listed folder %s carries items", f.Name)
		names = append(names, f.Name)
	}
	slices.Sort(names)
	if diff := cmp.Diff([]string{"Bank statements", "Identity documents", "Misc", "Payslips", "default"}, names); diff != "" {
		t.Errorf("ListFolders walked (-want +got):\n%s", diff)
	}
	pages := requestsTo(srv, "GET", "/v1/profiles/"+p.ID+"/folders")
	assert.Len(t, pages, 3, "ListFolders fetched pages, want 3 (2+2+1)")
	for i, r := range pages {
		assert.Equal(t, "2", r.Query.Get("limit"), "page %d query = %v", i, r.Query)
		assert.Equal(t, i > 0, r.Query.Has("cursor"), "page %d query = %v", i, r.Query)
	}

	gf, err := c.GetFolder(ctx, docs.ID)
	require.NoError(t, err, "GetFolder")
	var itemNames []string
	for _, s := range gf.Items {
		itemNames = append(itemNames, s.Name)
	}
	assert.Equal(t, 2, gf.ItemsCount, "GetFolder itemsCount")
	if diff := cmp.Diff([]string{"passport.txt", "application form"}, itemNames); diff != "" {
		t.Errorf("GetFolder items (-want +got):\n%s", diff)
	}
	misc := ""
	for f, err := range c.ListFolders(ctx, p.ID, &profilesvc.ListParams{Search: "misc"}) {
		require.NoError(t, err)
		misc = f.ID
	}
	renamed, err := c.RenameFolder(ctx, misc, "Other")
	require.NoError(t, err, "RenameFolder")
	require.Equal(t, "Other", renamed.Name, "RenameFolder")

	// Analysis, waited for with long polls; the test moves it along.
	id, err := c.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{
		ItemIDs:        []string{file.ID, form.ID},
		Options:        profilesvc.Object{"language": "en", "strict": true},
		ClientMetadata: profilesvc.Object{"requestedBy": "e2e"},
	})
	require.NoError(t, err, "StartAnalysis")
	assert.True(t, strings.HasPrefix(id, "analysis_"), "analysis ID %q", id)
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
	// The server of manual analyses arms one timer alone: the timeout of
	// a held long poll. Each Advance fires it, so the next wait is for the
	// next poll's.
	awaitTimers(t, clock, 1)        // first long poll held
	clock.Advance(10 * time.Second) // it times out: pending
	awaitTimers(t, clock, 1)        // second long poll held
	require.NoError(t, srv.StartProcessing(id))
	clock.Advance(10 * time.Second) // it times out: processing
	awaitTimers(t, clock, 1)        // third long poll held
	require.NoError(t, srv.CompleteAnalysis(id))
	var res result
	select {
	case res = <-waited:
	case <-time.After(10 * time.Second):
		require.FailNow(t, "WaitForAnalysis did not return after the analysis completed")
	}
	require.NoError(t, res.err, "WaitForAnalysis")
	a := res.a
	if diff := cmp.Diff([]profilesvc.AnalysisStatus{profilesvc.AnalysisPending, profilesvc.AnalysisProcessing, profilesvc.AnalysisCompleted}, seen); diff != "" {
		t.Errorf("OnUpdate saw (-want +got):\n%s", diff)
	}
	// The three polls held were held for the 10s asked for: the timers
	// the clock fired.
	var polls []string
	for _, r := range requestsTo(srv, "GET", "/v1/analyses/"+id) {
		if r.Query.Get("waitForReport") == "true" {
			polls = append(polls, r.Query.Get("timeoutSeconds"))
		}
	}
	if diff := cmp.Diff([]string{"10", "10", "10"}, polls); diff != "" {
		t.Errorf("timeoutSeconds of the long polls (-want +got):\n%s", diff)
	}
	assert.Equal(t, id, a.ID, "waited analysis ID")
	assert.Equal(t, profilesvc.AnalysisCompleted, a.Status, "waited analysis status")
	assert.True(t, a.Done(), "waited analysis done")
	assert.NotNil(t, a.PrimaryReportID, "waited analysis report")
	assert.Equal(t, p.ID, a.ProfileID, "waited analysis profile")
	assert.Equal(t, "en", a.Options["language"], "options not echoed")
	assert.Equal(t, true, a.Options["strict"], "options not echoed")
	assert.Equal(t, "e2e", a.ClientMetadata["requestedBy"], "clientMetadata not echoed")
	assert.Nil(t, a.FolderID, "analysis folderId")
	assert.Nil(t, a.EngineID, "analysis engineId")
	assert.Nil(t, a.Engine, "analysis engine")
	assert.Nil(t, a.Error, "analysis error")
	assert.Equal(t, profilesvc.VerificationPendingReview, a.VerificationStatus, "analysis verification")
	assert.True(t, strings.HasPrefix(a.PlaybookID, "PB-"), "analysis playbook %q", a.PlaybookID)
	assert.NotNil(t, a.RiskAssessment, "completed analysis lacks riskAssessment")
	assert.NotNil(t, a.SystemMetadata, "completed analysis lacks systemMetadata")
	assert.NotEmpty(t, a.Findings, "completed analysis lacks findings")
	assert.NotEmpty(t, a.AgentAuditLog, "completed analysis lacks agentAuditLog")
	var targets []string
	for _, ti := range a.TargetItems {
		targets = append(targets, ti.ItemID)
	}
	if diff := cmp.Diff([]string{file.ID, form.ID}, targets); diff != "" {
		t.Errorf("targetItems (-want +got):\n%s", diff)
	}

	// Typed accessors of the extracted data.
	rr, err := a.ExtractedData.ReviewResult()
	require.NoError(t, err, "ReviewResult")
	require.NotNil(t, rr, "ReviewResult")
	assert.Contains(t, []profilesvc.FinalAction{profilesvc.ActionApprove, profilesvc.ActionReject, profilesvc.ActionManualReview}, rr.FinalAction, "ReviewResult = %+v", rr)
	if assert.NotNil(t, a.RiskAssessment) {
		assert.Equal(t, a.RiskAssessment.RiskLevel, rr.FinalRiskLevel, "ReviewResult's risk against the analysis's")
	}
	assert.NotEmpty(t, rr.FinalActionReason, "ReviewResult = %+v", rr)
	cj, err := a.ExtractedData.CategoryJudgements()
	require.NoError(t, err, "CategoryJudgements")
	require.NotNil(t, cj, "CategoryJudgements")
	fc, ok := cj.Checks["full_name"]
	assert.True(t, ok, "no full_name check in %+v", cj.Checks)
	assert.Equal(t, profilesvc.CheckPass, fc.Result, "full_name check, want pass (both documents say Jane Doe)")
	assert.NotEmpty(t, cj.OverallConsistencyResult, "no overall_consistency_result")
	dv, err := a.ExtractedData.DocumentValidations()
	require.NoError(t, err, "DocumentValidations")
	require.NotEmpty(t, dv, "DocumentValidations")
	pv, ok := dv["passport"]
	assert.True(t, ok, "DocumentValidations = %+v, want a passport", dv)
	assert.True(t, pv.IsValid, "DocumentValidations = %+v, want a valid passport", dv)
	assert.NotEmpty(t, pv.Reason, "DocumentValidations = %+v, want a reason for the passport", dv)
	ev, err := a.ExtractedData.ExtractedValues()
	assert.NoError(t, err, "ExtractedValues")
	assert.Equal(t, "Jane Doe", ev["full_name"], "ExtractedValues full_name")
	reqID, err := a.ExtractedData.RequestID()
	assert.NoError(t, err, "request_id")
	assert.Equal(t, p.ID, reqID, "request_id")

	// Reports.
	var reports [][]byte
	for _, loc := range []profilesvc.Locale{profilesvc.LocaleEnglish, profilesvc.LocaleKorean} {
		rep, err := c.DownloadReport(ctx, id, &profilesvc.ReportParams{Locale: loc})
		require.NoError(t, err, "DownloadReport %s", loc)
		var buf bytes.Buffer
		_, err = rep.WriteTo(&buf)
		require.NoError(t, err)
		assert.True(t, bytes.HasPrefix(buf.Bytes(), []byte("%PDF-")), "%s report starts %q", loc, buf.Bytes()[:min(8, buf.Len())])
		assert.Equal(t, "analysis_"+id+"_report.pdf", rep.Filename, "%s report filename", loc)
		assert.True(t, strings.HasPrefix(rep.ContentType, "application/pdf"), "%s report content type %q", loc, rep.ContentType)
		reports = append(reports, buf.Bytes())
	}
	assert.False(t, bytes.Equal(reports[0], reports[1]), "the en and ko reports are the same bytes")

	// Listing, profile state, deletion.
	var listed []string
	for la, err := range c.ListAnalyses(ctx, p.ID, nil) {
		require.NoError(t, err)
		listed = append(listed, la.ID)
	}
	if diff := cmp.Diff([]string{id}, listed); diff != "" {
		t.Errorf("ListAnalyses (-want +got):\n%s", diff)
	}
	gp, err := c.GetProfile(ctx, p.ID)
	require.NoError(t, err)
	assert.Equal(t, 3, gp.ItemsCount, "profile itemsCount after the analysis")
	if assert.NotNil(t, gp.LastAnalysisAt, "profile lastAnalysisAt after the analysis") {
		assert.True(t, gp.LastAnalysisAt.Equal(a.RequestedAt), "profile lastAnalysisAt %v, want %v", gp.LastAnalysisAt, a.RequestedAt)
	}
	require.NoError(t, c.DeleteAnalysis(ctx, id), "DeleteAnalysis")
	_, err = c.GetAnalysis(ctx, id, nil)
	assert.ErrorIs(t, err, profilesvc.ErrAnalysisNotFound, "GetAnalysis after delete")
	require.NoError(t, c.DeleteFolder(ctx, docs.ID), "DeleteFolder")
	_, err = c.GetFolder(ctx, docs.ID)
	assert.ErrorIs(t, err, profilesvc.ErrFolderNotFound, "GetFolder after delete")
	_, ok = srv.Item(file.ID)
	assert.False(t, ok, "the deleted folder's item %s remains", file.ID)
	require.NoError(t, c.DeleteProfile(ctx, p.ID), "DeleteProfile")
	_, err = c.GetProfile(ctx, p.ID)
	assert.ErrorIs(t, err, profilesvc.ErrProfileNotFound, "GetProfile after delete")
	_, ok = srv.Item(note.ID)
	assert.False(t, ok, "the deleted profile's item remains")
	assert.Empty(t, srv.Profiles(), "the deleted profile remains")
}

func TestE2ETypedErrors(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses())
	c := srv.Client(profilesvc.WithMaxRetries(0))
	ctx := t.Context()
	p, it := newProfileWithItem(t, c)
	def := p.DefaultFolder().ID
	running, err := c.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	require.NoError(t, err)
	other, otherItem := newProfileWithItem(t, c)
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
			apiErr := requireAPIError(t, tc.call(), tc.sentinel, tc.status, tc.code)
			if tc.status == 404 {
				assert.ErrorIs(t, apiErr, profilesvc.ErrNotFound, "a 404 does not match ErrNotFound")
			}
			assert.NotContains(t, apiErr.Error(), srv.APIKey, "the error text holds the API key")
		})
	}

	t.Run("a non-ACTIVE item", func(t *testing.T) {
		require.NoError(t, srv.SetItemStatus(otherItem.ID, profilesvc.ItemProcessing))
		_, err := c.StartAnalysis(ctx, other.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{otherItem.ID}})
		apiErr := requireAPIError(t, err, profilesvc.ErrInvalidItemIDs, 400, "INVALID_ITEM_IDS")
		assert.Contains(t, apiErr.Message, otherItem.ID, "the message does not name the item")
	})
}

func TestE2EWaitForAnalysisFailed(t *testing.T) {
	t.Parallel()
	// The clock never moves: a long poll can end only by the analysis's
	// end, never by its timeout.
	clock := newFakeClock()
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses(), mockserver.WithClock(clock))
	c := srv.Client()
	ctx := t.Context()
	p, it := newProfileWithItem(t, c)
	id, err := c.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	require.NoError(t, err)
	type result struct {
		a   *profilesvc.Analysis
		err error
	}
	waited := make(chan result, 1)
	go func() {
		a, err := c.WaitForAnalysis(ctx, id, nil)
		waited <- result{a, err}
	}()
	// The long poll is held: its timeout is the only timer on the clock of
	// a server of manual analyses.
	held := make(chan error, 1)
	hctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	go func() { held <- clock.BlockUntil(hctx, 1) }()
	select {
	case r := <-waited:
		require.FailNow(t, fmt.Sprintf("WaitForAnalysis returned before the analysis ended: %+v", r))
	case err := <-held:
		require.NoError(t, err, "no long poll is held")
	}
	require.NoError(t, srv.FailAnalysis(id, "the document is unreadable"))
	var r result
	select {
	case r = <-waited:
	case <-time.After(time.Minute):
		// Not a timing assertion: a bound far above any machine's, so
		// that a poll still held fails here rather than hanging.
		require.FailNow(t, "WaitForAnalysis did not return after the analysis failed")
	}
	// It returned at once: the held poll woke on the failure, as the one
	// poll the server answered shows, and its timeout never fired.
	polls := requestsTo(srv, "GET", "/v1/analyses/"+id)
	if assert.Len(t, polls, 1, "WaitForAnalysis polled again, want the held poll to wake on the failure") {
		assert.Equal(t, "true", polls[0].Query.Get("waitForReport"), "the poll was not a long poll")
	}
	assert.Zero(t, clock.Timers(), "the held poll's timeout is still armed")
	require.ErrorIs(t, r.err, profilesvc.ErrAnalysisFailed, "WaitForAnalysis")
	var failed *profilesvc.AnalysisFailedError
	if assert.ErrorAs(t, r.err, &failed) {
		assert.Equal(t, id, failed.AnalysisID, "AnalysisFailedError = %+v", failed)
		assert.Equal(t, "the document is unreadable", failed.Reason, "AnalysisFailedError = %+v", failed)
	}
	if assert.NotNil(t, r.a, "returned analysis") {
		assert.Equal(t, profilesvc.AnalysisFailed, r.a.Status, "returned analysis = %+v", r.a)
		if assert.NotNil(t, r.a.Error, "returned analysis = %+v", r.a) {
			assert.Equal(t, "the document is unreadable", *r.a.Error, "returned analysis's error")
		}
	}
	_, err = c.DownloadReport(ctx, id, nil)
	assert.ErrorIs(t, err, profilesvc.ErrReportNotAvailable, "report of a failed analysis")
	// The profile is free again.
	_, err = c.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	assert.NoError(t, err, "StartAnalysis after a failure")
}

// TestE2EWaitForAnalysisDeadline checks that a context shorter than the
// service's minimum hold still gets the analysis as it stands: the first
// request is a plain read, so that at the deadline there is one to return.
func TestE2EWaitForAnalysisDeadline(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses(), mockserver.WithClock(clock))
	c := srv.Client()
	p, it := newProfileWithItem(t, c)
	id, err := c.StartAnalysis(t.Context(), p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	require.NoError(t, err)
	ctx := profilesvc.NewManualDeadlineContext(t.Context(), 5*time.Second)
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
	awaitTimers(t, clock, 1)
	ctx.Expire()
	r := <-done
	assert.ErrorIs(t, r.err, profilesvc.ErrWaitTimeout, "WaitForAnalysis")
	assert.ErrorIs(t, r.err, context.DeadlineExceeded, "WaitForAnalysis")
	assert.NotErrorIs(t, r.err, profilesvc.ErrAnalysisFailed, "a timeout matches ErrAnalysisFailed")
	if assert.NotNil(t, r.a, "WaitForAnalysis returned no analysis, want the pending analysis it last saw") {
		assert.Equal(t, id, r.a.ID, "the analysis it last saw")
		assert.Equal(t, profilesvc.AnalysisPending, r.a.Status, "the analysis it last saw")
	}
	if assert.Error(t, r.err) {
		assert.Contains(t, r.err.Error(), "still pending", "the error does not say the analysis is still pending")
	}
	// The long poll cut by the deadline may not be in the record yet: the
	// server answers it once it sees the connection gone.
	reads := requestsTo(srv, "GET", "/v1/analyses/"+id)
	if assert.NotEmpty(t, reads, "want a plain read first") {
		assert.Empty(t, reads[0].Query, "requests = %+v, want a plain read first", reads)
	}
	got, _ := srv.Analysis(id)
	assert.Equal(t, profilesvc.AnalysisPending, got.Status, "the analysis after the wait ended, want still pending")
}

// TestE2EWaitForAnalysisReportsEveryStage checks that OnUpdate hears of
// every stage of an analysis of 30 seconds, in order, although the mock
// holds a long poll until the report exists: with OnUpdate, each poll is
// held 10 seconds at most, so the processing stage is seen when one ends.
func TestE2EWaitForAnalysisReportsEveryStage(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	srv := mockserver.NewTest(t, mockserver.WithClock(clock), mockserver.WithAnalysisDuration(30*time.Second))
	c := srv.Client()
	p, it := newProfileWithItem(t, c)
	id, err := c.StartAnalysis(t.Context(), p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	require.NoError(t, err)
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
			require.Equal(t, want, got, "OnUpdate")
		case err := <-done:
			require.FailNow(t, fmt.Sprintf("WaitForAnalysis returned %v before OnUpdate(%s)", err, want))
		case <-time.After(time.Minute):
			// Not a timing assertion: a bound far above any machine's, so
			// that a poll still held fails here rather than hanging.
			require.FailNow(t, fmt.Sprintf("no OnUpdate(%s) within a minute: the long poll is still held", want))
		}
	}
	// The run's two timers (processing at 3s, completed at 30s) and the
	// timeout of a held long poll.
	next(profilesvc.AnalysisPending)
	awaitTimers(t, clock, 3)
	clock.Advance(10 * time.Second) // processing at 3s; the poll ends at 10s
	next(profilesvc.AnalysisProcessing)
	awaitTimers(t, clock, 2)        // the next poll is held
	clock.Advance(20 * time.Second) // completed at 30s, with its report
	next(profilesvc.AnalysisCompleted)
	require.NoError(t, <-done)
	for _, r := range requestsTo(srv, "GET", "/v1/analyses/"+id) {
		if r.Query.Get("waitForReport") == "true" {
			assert.Equal(t, "10", r.Query.Get("timeoutSeconds"), "a long poll's timeoutSeconds")
		}
	}
	select {
	case s := <-updates:
		assert.Fail(t, "an extra OnUpdate", "OnUpdate(%s)", s)
	default:
	}
}

func TestE2ERetriesThroughFaults(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	newClient := func(srv *mockserver.Server, opts ...profilesvc.Option) *profilesvc.Client {
		return srv.Client(append([]profilesvc.Option{profilesvc.WithRetryWait(5*time.Millisecond, 50*time.Millisecond)}, opts...)...)
	}

	t.Run("GET retried until the fault is used up", func(t *testing.T) {
		srv := mockserver.NewTest(t)
		c := newClient(srv)
		p, _ := newProfileWithItem(t, c)
		_, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Status: 503, Times: 2})
		require.NoError(t, err)
		srv.ClearRequests()
		got, err := c.GetProfile(ctx, p.ID)
		require.NoError(t, err, "GetProfile through two 503s")
		require.Equal(t, p.ID, got.ID, "GetProfile through two 503s")
		var statuses []int
		for _, r := range requestsTo(srv, "GET", "/v1/profiles/"+p.ID) {
			statuses = append(statuses, r.Status)
		}
		if diff := cmp.Diff([]int{503, 503, 200}, statuses); diff != "" {
			t.Errorf("attempts answered (-want +got):\n%s", diff)
		}
	})

	t.Run("POST retried on 503 without a duplicate", func(t *testing.T) {
		srv := mockserver.NewTest(t)
		c := newClient(srv)
		_, err := srv.InjectFault(mockserver.Fault{Method: "POST", Path: "/v1/workflows/*/profiles", Status: 503, Times: 1})
		require.NoError(t, err)
		_, err = c.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Once"})
		require.NoError(t, err, "CreateProfile through a 503")
		assert.Len(t, srv.Profiles(), 1, "profiles created")
		assert.Len(t, requestsTo(srv, "POST", "/v1/workflows/wf_default/profiles"), 2, "attempts")
	})

	t.Run("WaitForAnalysis through 503s", func(t *testing.T) {
		srv := mockserver.NewTest(t, mockserver.WithManualAnalyses())
		c := newClient(srv)
		p, it := newProfileWithItem(t, c)
		id, err := c.StartAnalysis(ctx, p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
		require.NoError(t, err)
		require.NoError(t, srv.CompleteAnalysis(id))
		_, err = srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/analyses/*", Status: 503, Times: 5})
		require.NoError(t, err)
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		a, err := c.WaitForAnalysis(wctx, id, nil)
		require.NoError(t, err, "WaitForAnalysis through five 503s")
		require.Equal(t, profilesvc.AnalysisCompleted, a.Status, "WaitForAnalysis through five 503s")
	})

	t.Run("retries exhausted", func(t *testing.T) {
		srv := mockserver.NewTest(t)
		c := newClient(srv, profilesvc.WithMaxRetries(2))
		_, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Status: 503, Message: "maintenance"})
		require.NoError(t, err)
		_, err = c.GetProfile(ctx, "pf_any")
		apiErr := requireAPIError(t, err, profilesvc.ErrServiceUnavailable, 503, "SERVICE_UNAVAILABLE")
		assert.Equal(t, 3, apiErr.Attempts, "APIError attempts")
		assert.Equal(t, "maintenance", apiErr.Message, "APIError message, want the fault's")
		assert.ErrorIs(t, err, profilesvc.ErrServer)
		assert.Len(t, requestsTo(srv, "GET", "/v1/profiles/pf_any"), 3, "attempts the server saw")
	})

	t.Run("a Retry-After beyond the maximum wait is not waited for", func(t *testing.T) {
		srv := mockserver.NewTest(t)
		// The client logs each retry, with its wait, before it waits.
		var log testutil.LockedBuffer
		c := newClient(srv, profilesvc.WithLogger(slog.New(slog.NewJSONHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))))
		_, err := srv.InjectFault(mockserver.Fault{Path: "/v1/profiles/*", Status: 429, RetryAfter: 7 * time.Second})
		require.NoError(t, err)
		_, err = c.GetProfile(ctx, "pf_any")
		apiErr := requireAPIError(t, err, profilesvc.ErrRateLimited, 429, "RATE_LIMITED")
		assert.Equal(t, 7*time.Second, apiErr.RetryAfter, "APIError RetryAfter")
		assert.Equal(t, 1, apiErr.Attempts, "APIError attempts")
		// No wait was started: the call returned at once.
		assert.NotContains(t, log.String(), "retrying request", "the client's log")
	})

	t.Run("a dropped connection is retried for a GET", func(t *testing.T) {
		srv := mockserver.NewTest(t)
		c := newClient(srv)
		p, _ := newProfileWithItem(t, c)
		_, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Drop: true, Times: 1})
		require.NoError(t, err)
		_, err = c.GetProfile(ctx, p.ID)
		assert.NoError(t, err, "GetProfile through a dropped connection")
	})

	t.Run("a delay longer than the request timeout is retried", func(t *testing.T) {
		srv := mockserver.NewTest(t)
		c := newClient(srv, profilesvc.WithRequestTimeout(100*time.Millisecond))
		p, _ := newProfileWithItem(t, c)
		_, err := srv.InjectFault(mockserver.Fault{Method: "GET", Path: "/v1/profiles/*", Delay: time.Second, Times: 1})
		require.NoError(t, err)
		_, err = c.GetProfile(ctx, p.ID)
		assert.NoError(t, err, "GetProfile after a timed-out attempt")
	})
}

func TestE2EUploadRetriedResendsWholeFile(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	c := srv.Client(profilesvc.WithRetryWait(5*time.Millisecond, 50*time.Millisecond))
	ctx := t.Context()
	p, err := c.CreateProfile(ctx, mockserver.DefaultWorkflowID, profilesvc.CreateProfileParams{Name: "Upload"})
	require.NoError(t, err)
	folder := p.DefaultFolder().ID
	_, err = srv.InjectFault(mockserver.Fault{Method: "POST", Path: "/v1/folders/*/items", Status: 503, Times: 1})
	require.NoError(t, err)
	doc := strings.Repeat(passportText, 50)
	it, err := c.UploadFile(ctx, folder, strings.NewReader(doc), profilesvc.UploadParams{Filename: "passport.txt"})
	require.NoError(t, err, "UploadFile through a 503")
	b, ok := srv.ItemBytes(it.ID)
	assert.True(t, ok, "the upload is not stored")
	assert.True(t, string(b) == doc, "stored %d bytes, want the whole %d-byte file", len(b), len(doc))
	assert.Equal(t, int64(len(doc)), it.SizeBytes, "sizeBytes")
	attempts := requestsTo(srv, "POST", "/v1/folders/"+folder+"/items")
	require.Len(t, attempts, 2, "upload attempts, want a 503 then a 201")
	require.Equal(t, 503, attempts[0].Status, "upload attempts, want a 503 then a 201")
	require.Equal(t, 201, attempts[1].Status, "upload attempts, want a 503 then a 201")
	assert.True(t, bytes.Contains(attempts[1].Body, []byte(doc)), "the retried upload's body does not hold the whole file")
	f, _ := srv.Folder(folder)
	assert.Len(t, f.Items, 1, "the folder's items")

	t.Run("a reader that cannot be rewound is sent once", func(t *testing.T) {
		_, err := srv.InjectFault(mockserver.Fault{Method: "POST", Path: "/v1/folders/*/items", Status: 503, Times: 1})
		require.NoError(t, err)
		srv.ClearRequests()
		_, err = c.UploadFile(ctx, folder, io.MultiReader(strings.NewReader(doc)), profilesvc.UploadParams{Filename: "passport.txt"})
		apiErr := requireAPIError(t, err, profilesvc.ErrServiceUnavailable, 503, "SERVICE_UNAVAILABLE")
		assert.Equal(t, 1, apiErr.Attempts, "attempts")
		assert.Len(t, requestsTo(srv, "POST", "/v1/folders/"+folder+"/items"), 1, "uploads the server saw")
	})
}

// TestE2EConcurrentStarts races starts of one profile through the SDK:
// exactly one wins, the others get ErrAnalysisInProgress.
func TestE2EConcurrentStarts(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses())
	// Without keep-alives: racing dials otherwise leave connections that
	// never send a request, and the server's Close waits 5s for those (see
	// TestKitClose in mockserver/kit_test.go).
	c := srv.Client(profilesvc.WithMaxRetries(0),
		profilesvc.WithHTTPClient(&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}))
	p, it := newProfileWithItem(t, c)
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
	assert.Equal(t, 1, wins, "12 racing starts: starts that won")
	assert.Equal(t, 11, inProgress, "12 racing starts: starts refused as in progress")
	assert.Empty(t, others, "12 racing starts: other errors")
	assert.Len(t, srv.Analyses(p.ID), 1, "analyses that exist")
}

// TestE2EStartAnalysisAfterALostAnswer runs StartAnalysis against the mock
// behind a proxy that lets the mock act on the first start request and
// then closes the connection without its answer: the call returns the ID
// of the analysis the mock did start, and no second analysis exists.
func TestE2EStartAnalysisAfterALostAnswer(t *testing.T) {
	t.Parallel()
	mock, err := mockserver.NewHandler(mockserver.WithManualAnalyses())
	require.NoError(t, err)
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
	require.NoError(t, err)
	p, it := newProfileWithItem(t, c)

	id, err := c.StartAnalysis(t.Context(), p.ID, profilesvc.StartAnalysisParams{ItemIDs: []string{it.ID}})
	if !assert.NoError(t, err, "StartAnalysis") {
		for _, r := range mock.Requests() {
			t.Logf("%s %s %d", r.Method, r.Path, r.Status)
		}
		t.FailNow()
	}
	all := mock.Analyses(p.ID)
	require.Len(t, all, 1, "StartAnalysis = %s; the mock has analyses %v, want exactly that one", id, all)
	require.Equal(t, id, all[0].ID, "the mock's one analysis, want the one StartAnalysis returned")
	starts := requestsTo(mock, "POST", "/v1/analyses/"+p.ID+"/analyze")
	if assert.Len(t, starts, 2, "start requests = %+v, want the lost one and a 409", starts) {
		assert.Equal(t, http.StatusConflict, starts[1].Status, "the second start")
	}
}

// TestE2EDefaultFolder finds the default folder of a profile read without
// its folders, among folders of its own.
func TestE2EDefaultFolder(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	c := srv.Client()
	ctx := t.Context()
	created, _ := newProfileWithItem(t, c)
	for _, name := range []string{"b", "a", "default copy"} {
		_, err := c.CreateFolder(ctx, created.ID, name)
		require.NoError(t, err)
	}
	read, err := c.GetProfile(ctx, created.ID)
	require.NoError(t, err)
	assert.Nil(t, read.DefaultFolder(), "Profile.DefaultFolder of a read profile")
	f, err := c.DefaultFolder(ctx, read.ID)
	require.NoError(t, err)
	assert.Equal(t, created.DefaultFolder().ID, f.ID, "DefaultFolder")
	assert.True(t, f.IsDefault, "DefaultFolder = %+v, want a default folder", f)
	assert.Equal(t, 1, f.ItemsCount, "DefaultFolder itemsCount")
	_, err = c.DefaultFolder(ctx, "pf_missing")
	assert.ErrorIs(t, err, profilesvc.ErrProfileNotFound, "DefaultFolder of a missing profile")
}

// TestE2ERequestID checks that the mock's request ID reaches the SDK's
// error and names the request in the mock's record.
func TestE2ERequestID(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t)
	_, err := srv.Client().GetProfile(t.Context(), "pf_missing")
	var apiErr *profilesvc.APIError
	require.ErrorAs(t, err, &apiErr, "GetProfile")
	require.True(t, strings.HasPrefix(apiErr.RequestID, "req_"), "APIError.RequestID = %q, want a req_ ID", apiErr.RequestID)
	reqs := requestsTo(srv, "GET", "/v1/profiles/pf_missing")
	if assert.Len(t, reqs, 1, "recorded %+v, want one request with ID %s", reqs, apiErr.RequestID) {
		assert.Equal(t, apiErr.RequestID, reqs[0].RequestID, "the recorded request's ID")
	}
}
