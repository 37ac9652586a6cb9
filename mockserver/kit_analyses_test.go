package mockserver_test

// Analyses through the kit: their run on a fake and on the real clock,
// NewTest's analysis duration, manual analyses, the item and verification
// statuses that analyses read and write, AwaitAnalysis, and scripted
// outcomes that hold an analysis or its report.

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

func TestKitAnalysisDurationFakeClock(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	fc := mockserver.NewFakeClock(t0)
	const d = 10 * time.Second
	srv := mockserver.NewTest(t, mockserver.WithClock(fc), mockserver.WithAnalysisDuration(d))
	pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")
	fc.Advance(5 * time.Second)
	started := t0.Add(5 * time.Second)
	id := startAnalysis(t, srv, pid, iid)

	a := wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisPending)
	assert.True(t, a.RequestedAt.Equal(started) && a.CreatedAt.Equal(started), "requestedAt %v, createdAt %v: want the fake clock's %v", a.RequestedAt, a.CreatedAt, started)
	assert.True(t, a.CompletedAt == nil && a.PrimaryReportID == nil && a.VerificationStatus == profilesvc.VerificationPendingReview,
		"pending analysis = completedAt %v, report %v, verification %s", a.CompletedAt, a.PrimaryReportID, a.VerificationStatus)
	p, _ := srv.Profile(pid)
	assert.True(t, p.LastAnalysisAt != nil && p.LastAnalysisAt.Equal(started), "lastAnalysisAt = %v, want %v", p.LastAnalysisAt, started)

	fc.Advance(d/10 - time.Millisecond)
	wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisPending)
	fc.Advance(time.Millisecond)
	wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisProcessing)
	fc.Advance(d - d/10 - time.Millisecond)
	wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisProcessing)
	// Over HTTP too.
	var viaHTTP profilesvc.Analysis
	decode(t, do(t, srv, "GET", "/v1/analyses/"+id, nil), &viaHTTP)
	assert.Equal(t, profilesvc.AnalysisProcessing, viaHTTP.Status, "status GET says")
	wantError(t, do(t, srv, "GET", "/v1/analyses/"+id+"/report", nil), 400, "REPORT_NOT_AVAILABLE")

	fc.Advance(time.Millisecond)
	a = wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisCompleted)
	assert.True(t, a.CompletedAt != nil && a.CompletedAt.Equal(started.Add(d)), "completedAt = %v, want %v", a.CompletedAt, started.Add(d))
	assert.NotNil(t, a.PrimaryReportID, "completed analysis without a report ID")
	for _, e := range a.AgentAuditLog {
		assert.False(t, e.ExecutedAt.Before(started) || e.ExecutedAt.After(started.Add(d)),
			"audit entry %s executedAt %v: not within the run %v..%v", e.ActionName, e.ExecutedAt, started, started.Add(d))
	}
	wantStatus(t, do(t, srv, "GET", "/v1/analyses/"+id+"/report", nil), 200)

	// The request record follows the fake clock too.
	for _, r := range srv.Requests() {
		assert.False(t, r.Time.Before(t0) || r.Time.After(started.Add(d)), "recorded request at %v: want the fake clock's time", r.Time)
	}
}

func TestKitAnalysisDurationRealClock(t *testing.T) {
	t.Parallel()
	t.Run("long poll wakes at completion", func(t *testing.T) {
		const d = 200 * time.Millisecond
		srv := mockserver.NewTest(t, mockserver.WithAnalysisDuration(d))
		pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")
		id := startAnalysis(t, srv, pid, iid)
		// The poll's 300s cannot pass within the minute waited: it is
		// answered by the completion, or not at all.
		r := awaitAnswer(t, longPoll(t, srv, context.Background(), "/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=300"), time.Minute)
		wantStatus(t, r, 200)
		var a profilesvc.Analysis
		decode(t, r, &a)
		assert.True(t, a.Status == profilesvc.AnalysisCompleted && a.PrimaryReportID != nil, "long poll answered %s, report %v; want completed with its report", a.Status, a.PrimaryReportID)
		// The run took its duration on the real clock, as the analysis's
		// own times say: a timer never fires early, so this lower bound
		// holds however busy the machine.
		if assert.NotNil(t, a.CompletedAt, "completedAt of a completed analysis") {
			assert.False(t, a.CompletedAt.Before(a.RequestedAt.Add(d)), "requestedAt %v, completedAt %v: want the run's %v between them", a.RequestedAt, *a.CompletedAt, d)
		}
	})
	t.Run("zero completes at once", func(t *testing.T) {
		srv := mockserver.NewTest(t, mockserver.WithAnalysisDuration(0))
		pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")
		id := startAnalysis(t, srv, pid, iid)
		r := awaitAnswer(t, longPoll(t, srv, context.Background(), "/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=300"), time.Minute)
		var a profilesvc.Analysis
		decode(t, r, &a)
		assert.Equal(t, profilesvc.AnalysisCompleted, a.Status, "status")
	})
}

func TestKitManualAnalyses(t *testing.T) {
	t.Parallel()
	fc := mockserver.NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	waits := make(chan struct{}, 8)
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses(), mockserver.WithClock(fc), mockserver.WithAnalysisDuration(time.Second),
		mockserver.WithPollWaits(waits))
	pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")

	t.Run("waits for the test", func(t *testing.T) {
		id := startAnalysis(t, srv, pid, iid)
		fc.Advance(time.Hour)
		wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisPending)

		require.NoError(t, srv.StartProcessing(id), "StartProcessing")
		wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisProcessing)
		assert.Error(t, srv.StartProcessing(id), "StartProcessing of a processing analysis succeeded")
		wantError(t, do(t, srv, "POST", "/v1/analyses/"+pid+"/analyze", targets(iid)), 409, "ANALYSIS_IN_PROGRESS")

		require.NoError(t, srv.CompleteAnalysis(id), "CompleteAnalysis")
		a := wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisCompleted)
		assert.True(t, a.PrimaryReportID != nil && a.CompletedAt != nil && a.RiskAssessment != nil && a.Error == nil,
			"completed analysis = report %v, completedAt %v, risk %v, error %v", a.PrimaryReportID, a.CompletedAt, a.RiskAssessment, a.Error)
		assert.True(t, a.CompletedAt.Equal(fc.Now()), "completedAt %v, want the clock's %v", a.CompletedAt, fc.Now())
		wantStatus(t, do(t, srv, "GET", "/v1/analyses/"+id+"/report", nil), 200)

		assert.Error(t, srv.CompleteAnalysis(id), "completing a completed analysis succeeded")
		assert.Error(t, srv.FailAnalysis(id, "late"), "failing a completed analysis succeeded")
		assert.Error(t, srv.StartProcessing(id), "StartProcessing of a completed analysis succeeded")
		wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisCompleted)
	})

	t.Run("complete from pending", func(t *testing.T) {
		id := startAnalysis(t, srv, pid, iid)
		require.NoError(t, srv.CompleteAnalysis(id), "CompleteAnalysis")
		wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisCompleted)
	})

	t.Run("fail", func(t *testing.T) {
		id := startAnalysis(t, srv, pid, iid)
		require.NoError(t, srv.StartProcessing(id))
		require.NoError(t, srv.FailAnalysis(id, "scanner jammed"), "FailAnalysis")
		a := wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisFailed)
		if assert.NotNil(t, a.Error, "error, want \"scanner jammed\"") {
			assert.Equal(t, "scanner jammed", *a.Error, "error")
		}
		assert.Nil(t, a.PrimaryReportID, "a failed analysis has a report ID")
		wantError(t, do(t, srv, "GET", "/v1/analyses/"+id+"/report", nil), 400, "REPORT_NOT_AVAILABLE")
		assert.Error(t, srv.FailAnalysis(id, "again"), "failing a failed analysis succeeded")
		assert.Error(t, srv.CompleteAnalysis(id), "completing a failed analysis succeeded")
	})

	t.Run("fail without a message", func(t *testing.T) {
		id := startAnalysis(t, srv, pid, iid)
		require.NoError(t, srv.FailAnalysis(id, ""))
		a := wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisFailed)
		if assert.NotNil(t, a.Error, "error, want a default text") {
			assert.NotEmpty(t, strings.TrimSpace(*a.Error), "error, want a default text")
		}
	})

	t.Run("a long poll wakes on the change", func(t *testing.T) {
		id := startAnalysis(t, srv, pid, iid)
		ch := longPoll(t, srv, context.Background(), "/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=10")
		awaitPollWait(t, waits, ch) // the poll is held, the analysis pending
		wantNotAnswered(t, ch)
		require.NoError(t, srv.StartProcessing(id))
		awaitPollWait(t, waits, ch) // processing is not the end: the poll waits on
		wantNotAnswered(t, ch)
		require.NoError(t, srv.CompleteAnalysis(id))
		// The fake clock has not moved: the change alone wakes the poll.
		r := awaitAnswer(t, ch, time.Minute)
		var a profilesvc.Analysis
		decode(t, r, &a)
		assert.True(t, a.Status == profilesvc.AnalysisCompleted && a.PrimaryReportID != nil, "long poll answered %s, want completed with its report", a.Status)
	})

	t.Run("unknown analysis", func(t *testing.T) {
		for name, err := range map[string]error{
			"StartProcessing":  srv.StartProcessing("analysis_missing"),
			"CompleteAnalysis": srv.CompleteAnalysis("analysis_missing"),
			"FailAnalysis":     srv.FailAnalysis("analysis_missing", "x"),
		} {
			assert.Error(t, err, "%s of an unknown analysis succeeded", name)
		}
	})
}

func TestKitSetItemStatus(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses())
	pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")

	require.NoError(t, srv.SetItemStatus(iid, profilesvc.ItemProcessing), "SetItemStatus")
	it, _ := srv.Item(iid)
	assert.Equal(t, profilesvc.ItemProcessing, it.Status, "status")
	var item profilesvc.Item
	decode(t, do(t, srv, "GET", "/v1/items/"+iid, nil), &item)
	assert.Equal(t, profilesvc.ItemProcessing, item.Status, "GET item status")
	msg := wantError(t, do(t, srv, "POST", "/v1/analyses/"+pid+"/analyze", targets(iid)), 400, "INVALID_ITEM_IDS")
	assert.Contains(t, msg, iid, "the INVALID_ITEM_IDS message must name the item")
	assert.Empty(t, srv.Analyses(pid), "a refused start created analyses")

	require.NoError(t, srv.SetItemStatus(iid, profilesvc.ItemActive))
	startAnalysis(t, srv, pid, iid)

	assert.Error(t, srv.SetItemStatus(iid, ""), "SetItemStatus with an empty status succeeded")
	assert.Error(t, srv.SetItemStatus("item_missing", profilesvc.ItemActive), "SetItemStatus of an unknown item succeeded")
}

func TestKitSetVerificationStatus(t *testing.T) {
	t.Parallel()
	srv := mockserver.NewTest(t, mockserver.WithManualAnalyses())
	pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")
	id := startAnalysis(t, srv, pid, iid)
	require.NoError(t, srv.CompleteAnalysis(id))
	for _, vs := range []profilesvc.VerificationStatus{profilesvc.VerificationApproved, profilesvc.VerificationRejected, profilesvc.VerificationPendingReview} {
		t.Run(string(vs), func(t *testing.T) {
			require.NoError(t, srv.SetVerificationStatus(id, vs), "SetVerificationStatus(%s)", vs)
			var a profilesvc.Analysis
			decode(t, do(t, srv, "GET", "/v1/analyses/"+id, nil), &a)
			assert.Equal(t, vs, a.VerificationStatus, "GET verificationStatus")
		})
	}
	for _, bad := range []profilesvc.VerificationStatus{"", "maybe", "APPROVED"} {
		assert.Error(t, srv.SetVerificationStatus(id, bad), "SetVerificationStatus(%q) succeeded", bad)
	}
	a := analysisOf(t, srv.Tenant, id)
	assert.Equal(t, profilesvc.VerificationPendingReview, a.VerificationStatus, "the status after refused values")
	assert.Error(t, srv.SetVerificationStatus("analysis_missing", profilesvc.VerificationApproved), "SetVerificationStatus of an unknown analysis succeeded")
}

// ---------------------------------------------------------------------
// AwaitAnalysis.

func TestKitAwaitAnalysis(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithManualAnalyses())

	t.Run("one started in the background", func(t *testing.T) {
		pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")
		ctx, cancel := newWatchedCtx(t.Context())
		defer cancel()
		got := goCall(func() (*profilesvc.Analysis, error) { return srv.AwaitAnalysis(ctx, pid) })
		receive(t, ctx.waiting, "AwaitAnalysis to begin waiting")
		// An analysis of another profile does not end the wait.
		other, _, otherItem := addProfileWithItem(t, srv.Tenant, "John Roe")
		startAnalysis(t, srv, other, otherItem)
		answer := awaitAnswer(t, goSend(t, srv, request{Method: "POST", Path: "/v1/analyses/" + pid + "/analyze", JSON: targets(iid)}), time.Minute)
		started := jsonObject(t, answer, http.StatusAccepted)
		res := receive(t, got, "AwaitAnalysis")
		require.NoError(t, res.err, "AwaitAnalysis")
		assert.True(t, res.v.ID == started["id"] && res.v.ProfileID == pid, "AwaitAnalysis = %s of %s, want %v of %s", res.v.ID, res.v.ProfileID, started["id"], pid)
	})

	t.Run("the newest of several", func(t *testing.T) {
		pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")
		first := startAnalysis(t, srv, pid, iid)
		require.NoError(t, srv.CompleteAnalysis(first))
		second := startAnalysis(t, srv, pid, iid)
		a, err := srv.AwaitAnalysis(t.Context(), pid)
		require.NoError(t, err, "AwaitAnalysis")
		assert.Equal(t, second, a.ID, "AwaitAnalysis of a profile with analyses %s and %s", first, second)
		assert.Equal(t, profilesvc.AnalysisPending, a.Status, "status of the newest")
	})

	t.Run("deadline", func(t *testing.T) {
		p, _ := addProfile(t, srv.Tenant, "Nobody starts")
		ctx, cancel := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
		defer cancel()
		_, err := srv.AwaitAnalysis(ctx, p.ID)
		require.ErrorIs(t, err, context.DeadlineExceeded, "AwaitAnalysis past its context's deadline")
		assert.Contains(t, err.Error(), p.ID, "the error names the profile")
	})
}

// TestKitAwaitAnalysisAcrossRestore waits for an analysis while the
// server's state is restored: the analysis started afterwards must end the
// wait, as it does across Reset.
func TestKitAwaitAnalysisAcrossRestore(t *testing.T) {
	t.Parallel()
	srv := newServer(t, mockserver.WithManualAnalyses())
	pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")
	snap, err := srv.Snapshot()
	require.NoError(t, err)

	ctx, cancel := newWatchedCtx(t.Context())
	defer cancel()
	got := goCall(func() (*profilesvc.Analysis, error) { return srv.AwaitAnalysis(ctx, pid) })
	receive(t, ctx.waiting, "AwaitAnalysis to begin waiting")
	require.NoError(t, srv.Restore(snap))
	id := startAnalysis(t, srv, pid, iid)
	res := receive(t, got, "AwaitAnalysis after a Restore")
	require.NoError(t, res.err, "AwaitAnalysis")
	assert.Equal(t, id, res.v.ID, "AwaitAnalysis")
}

// ---------------------------------------------------------------------
// Scripted outcomes: mock:stuck, mock:report-delay, WithReportDelay.

func TestKitScriptedStuck(t *testing.T) {
	t.Parallel()
	const d = 2 * time.Second
	for _, tt := range []struct {
		name   string
		end    func(srv *mockserver.Server, id string) error
		status profilesvc.AnalysisStatus
	}{
		{"CompleteAnalysis", func(srv *mockserver.Server, id string) error { return srv.CompleteAnalysis(id) }, profilesvc.AnalysisCompleted},
		{"FailAnalysis", func(srv *mockserver.Server, id string) error { return srv.FailAnalysis(id, "gave up") }, profilesvc.AnalysisFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fc := mockserver.NewFakeClock(kitT0)
			srv := newServer(t, mockserver.WithClock(fc), mockserver.WithAnalysisDuration(d))
			p, fid := addProfile(t, srv.Tenant, "Stuck")
			it, err := srv.AddTextItem(fid, "passport.txt", passportDoc+"mock:stuck\n")
			require.NoError(t, err)
			pid := p.ID
			id := startAnalysis(t, srv, pid, it.ID)
			blockUntil(t, fc, 1)
			fc.Advance(d / 10)
			wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisProcessing)
			assert.Zero(t, fc.Timers(), "timers armed for a stuck analysis once processing: nothing is to finish it")
			fc.Advance(100 * d)
			wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisProcessing)
			wantStatus(t, do(t, srv, "GET", "/v1/analyses/"+id, nil), 200)
			wantError(t, do(t, srv, "POST", "/v1/analyses/"+pid+"/analyze", targets(it.ID)), 409, "ANALYSIS_IN_PROGRESS")

			require.NoError(t, tt.end(srv, id), tt.name)
			a := wantAnalysisStatus(t, srv.Tenant, id, tt.status)
			if tt.status == profilesvc.AnalysisFailed {
				assert.True(t, a.Error != nil && *a.Error == "gave up", "error = %v", a.Error)
			} else {
				assert.NotNil(t, a.PrimaryReportID, "a completed stuck analysis has its report")
			}
		})
	}
}

func TestKitReportDelay(t *testing.T) {
	t.Parallel()
	const d, delay = time.Second, 5 * time.Second
	for _, tt := range []struct {
		name   string
		opts   []mockserver.Option
		script string
	}{
		{"mock:report-delay", nil, "mock:report-delay=5s\n"},
		{"WithReportDelay", []mockserver.Option{mockserver.WithReportDelay(delay)}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fc := mockserver.NewFakeClock(kitT0)
			srv := newServer(t, append([]mockserver.Option{mockserver.WithClock(fc), mockserver.WithAnalysisDuration(d)}, tt.opts...)...)
			p, fid := addProfile(t, srv.Tenant, "Delayed")
			it, err := srv.AddTextItem(fid, "passport.txt", passportDoc+tt.script)
			require.NoError(t, err)
			id := startAnalysis(t, srv, p.ID, it.ID)
			poll := longPoll(t, srv, t.Context(), "/v1/analyses/"+id+"?waitForReport=true&timeoutSeconds=300")
			blockUntil(t, fc, 3) // the run's two timers and the poll's
			fc.Advance(d)

			// Completed, the report to come.
			a := wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisCompleted)
			assert.Nil(t, a.PrimaryReportID, "primaryReportId before the report delay has passed")
			viaHTTP := getAnalysis(t, srv, id)
			assert.Equal(t, "completed", viaHTTP["status"], "status GET says")
			wantNull(t, "the analysis GET gives", viaHTTP, "primaryReportId")
			wantError(t, do(t, srv, "GET", "/v1/analyses/"+id+"/report", nil), 400, "REPORT_NOT_AVAILABLE")
			// The poll is still held: its timer and the report's are armed.
			blockUntil(t, fc, 2)
			wantNotAnswered(t, poll)

			fc.Advance(delay - time.Millisecond)
			wantError(t, do(t, srv, "GET", "/v1/analyses/"+id+"/report", nil), 400, "REPORT_NOT_AVAILABLE")
			fc.Advance(time.Millisecond)
			r := awaitAnswer(t, poll, time.Minute)
			got := jsonObject(t, r, 200)
			checkAnalysis(t, got, p.ID, "completed")
			assert.Equal(t, analysisOf(t, srv.Tenant, id).PrimaryReportID, ptrTo(stringField(t, "poll's answer", got, "primaryReportId")), "the poll's report ID")
			wantStatus(t, do(t, srv, "GET", "/v1/analyses/"+id+"/report", nil), 200)
		})
	}
}

// ptrTo returns a pointer to v.
func ptrTo[T any](v T) *T { return &v }

// ---------------------------------------------------------------------
// NewTest's analysis duration.

func TestKitNewTestAnalysisDuration(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		start func(t *testing.T, fc *mockserver.FakeClock) *mockserver.Server
		d     time.Duration // how long its analyses take
	}{
		{"NewTest", func(t *testing.T, fc *mockserver.FakeClock) *mockserver.Server {
			return mockserver.NewTest(t, mockserver.WithClock(fc))
		}, 100 * time.Millisecond},
		{"New", func(t *testing.T, fc *mockserver.FakeClock) *mockserver.Server {
			srv := mockserver.New(mockserver.WithClock(fc), openapiChecked(t))
			t.Cleanup(srv.Close)
			return srv
		}, 3 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fc := mockserver.NewFakeClock(kitT0)
			srv := tt.start(t, fc)
			pid, _, iid := addProfileWithItem(t, srv.Tenant, "Jane Doe")
			id := startAnalysis(t, srv, pid, iid)
			blockUntil(t, fc, 2)
			fc.Advance(100*time.Millisecond - time.Millisecond)
			assert.False(t, analysisOf(t, srv.Tenant, id).Status.IsTerminal(), "finished before 100ms")
			fc.Advance(time.Millisecond)
			if tt.d == 100*time.Millisecond {
				wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisCompleted)
				return
			}
			assert.False(t, analysisOf(t, srv.Tenant, id).Status.IsTerminal(), "finished after 100ms of %v", tt.d)
			fc.Advance(tt.d - 100*time.Millisecond - time.Millisecond)
			wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisProcessing)
			fc.Advance(time.Millisecond)
			wantAnalysisStatus(t, srv.Tenant, id, profilesvc.AnalysisCompleted)
		})
	}
}
