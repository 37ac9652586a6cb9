package mockserver

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// How an analysis runs: started by the store, moved on by timers on the
// server's clock (or by the test kit, with WithManualAnalyses), finished
// by the engine, which runs outside the tenant's lock.

// startAnalysis starts an analysis of a profile's items.
func (t *Tenant) startAnalysis(profileID string, itemIDs []string, options, clientMetadata map[string]any) (string, *apiError) {
	spec := analysisSpec{
		profileID: profileID, itemIDs: itemIDs, options: options, clientMetadata: clientMetadata,
		duration: t.srv.cfg.analysisDuration, reportDelay: t.srv.cfg.reportDelay,
	}
	return withLock(t.store, func(st *state) (string, *apiError) {
		rec, e := st.startAnalysis(spec)
		if e != nil {
			return "", e
		}
		return rec.a.ID, nil
	})
}

// tenantRunner arms the runs of a tenant's analyses on the server's
// clock.
type tenantRunner struct {
	t *Tenant
	// manual leaves analyses pending until the test kit moves them
	// (WithManualAnalyses); a delayed report still comes on its own.
	manual bool
}

// arm arranges an analysis's run on the server's clock, from its start:
// pending for the first tenth of its duration, then processing, then
// completed or failed (unless it is stuck). A run restored from a snapshot
// resumes where it stood.
func (r tenantRunner) arm(rec *analysisRec) []func() bool {
	if r.manual {
		return nil
	}
	id, t := rec.a.ID, r.t
	clock := t.srv.clock
	start, now := rec.a.RequestedAt, clock.Now()
	var stops []func() bool
	if rec.a.Status == profilesvc.AnalysisPending {
		stops = append(stops, clock.AfterFunc(start.Add(rec.duration/10).Sub(now), func() { _ = t.StartProcessing(id) }))
	}
	if !rec.stuck {
		stops = append(stops, clock.AfterFunc(start.Add(rec.duration).Sub(now), func() { _ = t.finish(id, nil) }))
	}
	return stops
}

// armReport publishes a completed analysis's report once its delay has
// passed.
func (r tenantRunner) armReport(rec *analysisRec) func() bool {
	id, t := rec.a.ID, r.t
	return t.srv.clock.AfterFunc(rec.reportDelay, func() {
		_ = t.store.do(func(st *state) *apiError { st.publishReport(id); return nil })
	})
}

// StartProcessing moves a pending analysis to processing. It is what the
// server's clock does a tenth into the run; in manual mode a test calls it.
func (t *Tenant) StartProcessing(analysisID string) error {
	if e := t.store.do(func(st *state) *apiError { return st.process(analysisID) }); e != nil {
		return e
	}
	return nil
}

// CompleteAnalysis runs the engine on a pending or processing analysis and
// completes it now (or fails it, if the engine or a scripted outcome says
// so). In manual mode this is how analyses finish.
func (t *Tenant) CompleteAnalysis(analysisID string) error {
	return t.finish(analysisID, nil)
}

// FailAnalysis ends a pending or processing analysis as failed, with
// message as its error.
func (t *Tenant) FailAnalysis(analysisID, message string) error {
	if strings.TrimSpace(message) == "" {
		message = "the analysis failed"
	}
	return t.finish(analysisID, &message)
}

// finish ends an analysis: failed with *failMsg, or by running the engine
// (the server's analyzer, or the default), outside the lock.
func (t *Tenant) finish(analysisID string, failMsg *string) error {
	in, epoch, e := t.store.runInput(analysisID)
	if e != nil {
		return e
	}
	res, runErr := t.srv.analyze(analysisID, in, failMsg)
	_ = t.store.do(func(st *state) *apiError { st.finish(analysisID, epoch, in, res, runErr); return nil })
	return nil
}

// analyze runs the engine over an analysis's input: the analysis fails
// with *failMsg, or with its script's mock:fail=, or gets the result of
// the server's analyzer (engine.Default unless WithAnalyzer). A panic of
// the engine, wherever the run is (a timer of the server's clock, the
// control API, the test kit), never ends the process: the analysis fails
// with an error naming the cause, and the panic is logged with its stack.
func (s *Server) analyze(analysisID string, in AnalysisInput, failMsg *string) (res AnalysisResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.logPanic("the analysis engine panicked", p, slog.String("analysisId", analysisID))
			res, err = AnalysisResult{}, fmt.Errorf("the analysis engine failed: %v", p)
		}
	}()
	if failMsg != nil {
		return AnalysisResult{}, fmt.Errorf("%s", *failMsg)
	}
	if msg := engine.ParseScript(in).Fail; msg != "" {
		return AnalysisResult{}, fmt.Errorf("%s", msg)
	}
	analyzer := s.cfg.analyzer
	if analyzer == nil {
		analyzer = engine.Default
	}
	return analyzer(context.Background(), in)
}

// logPanic logs a panic the server recovered from, with the stack of the
// goroutine that panicked, to the server's logger (WithLogger), or to
// slog's default one: a panic is never silent.
func (s *Server) logPanic(msg string, p any, attrs ...slog.Attr) {
	l := s.cfg.logger
	if l == nil {
		l = slog.Default()
	}
	attrs = append(attrs, slog.String("panic", fmt.Sprint(p)), slog.String("stack", string(debug.Stack())))
	l.LogAttrs(context.Background(), slog.LevelError, msg, attrs...)
}

// stampTimes spreads the audit log's and history's timestamps over the
// run, from its start to its end, in proportion to each step's duration.
func stampTimes(a *profilesvc.Analysis, start, end time.Time) {
	var total float64
	for _, e := range a.AgentAuditLog {
		total += e.DurationMs
	}
	span := end.Sub(start)
	var done float64
	for i := range a.AgentAuditLog {
		e := &a.AgentAuditLog[i]
		at := start
		if total > 0 {
			at = start.Add(time.Duration(float64(span) * done / total)).Truncate(time.Millisecond)
		}
		if e.ExecutedAt.IsZero() {
			e.ExecutedAt = at
		}
		for j := range e.MCPToolCalls {
			if e.MCPToolCalls[j].StartedAt.IsZero() {
				e.MCPToolCalls[j].StartedAt = e.ExecutedAt
			}
		}
		done += e.DurationMs
	}
	if a.SystemMetadata != nil {
		for i := range a.SystemMetadata.WorkflowHistory {
			h := &a.SystemMetadata.WorkflowHistory[i]
			if h.Timestamp.IsZero() && i < len(a.AgentAuditLog) {
				h.Timestamp = a.AgentAuditLog[i].ExecutedAt
			}
		}
	}
}
