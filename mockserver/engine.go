package mockserver

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/docread"
)

// AnalysisInput is what an analysis runs over. It is engine.Input; see
// package engine.
type AnalysisInput = engine.Input

// InputItem is one target item of an analysis. It is engine.Document; see
// package engine.
type InputItem = engine.Document

// AnalysisResult is what an analysis yields. It is engine.Result; see
// package engine.
type AnalysisResult = engine.Result

// Analyzer runs an analysis. An error fails the analysis with the error's
// text. See WithAnalyzer. It is engine.Analyzer; engine.Default is the
// default engine.
type Analyzer = engine.Analyzer

// analysisInputLocked gathers an analysis's input at its start, so that
// later changes to the items do not change its result.
func (t *Tenant) analysisInputLocked(p *profileRec, items []*itemRec, options, clientMetadata map[string]any) AnalysisInput {
	in := AnalysisInput{
		Profile:        *t.profileView(p, false),
		Options:        cloneMap(options),
		ClientMetadata: cloneMap(clientMetadata),
		RequestedAt:    t.now(),
	}
	if w := t.st.workflows[p.workflowID]; w != nil {
		in.Workflow = w.Clone()
	}
	// A workflow without a schema or a policy of its own runs with the
	// default one's.
	def := DefaultWorkflow()
	if len(in.Workflow.OutputSchema) == 0 {
		in.Workflow.OutputSchema = def.OutputSchema
	}
	if len(in.Workflow.Policy) == 0 {
		in.Workflow.Policy = def.Policy
	}
	for _, it := range items {
		text, readable := it.text, true
		if it.typ == profilesvc.ItemFile {
			text, readable = docread.Text(it.detected.ContentType, it.data)
		}
		in.Items = append(in.Items, InputItem{
			ID: it.id, Name: it.name, Type: it.typ, Metadata: cloneMap(it.metadata),
			ContentType: it.detected.ContentType, Text: text, Readable: readable,
			Data: append([]byte(nil), it.data...),
		})
	}
	return in
}

// StartProcessing moves a pending analysis to processing. It is what the
// server's clock does a tenth into the run; in manual mode a test calls it.
func (t *Tenant) StartProcessing(analysisID string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	rec := t.st.analyses[analysisID]
	if rec == nil {
		return analysisNotFound(analysisID)
	}
	if rec.a.Status != profilesvc.AnalysisPending {
		return errorf(http.StatusConflict, codeAnalysisNotPending, "analysis %q is %s, not pending", analysisID, rec.a.Status)
	}
	rec.a.Status = profilesvc.AnalysisProcessing
	rec.notifyLocked()
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

// finish ends an analysis: failed with *failMsg, or by running the engine.
func (t *Tenant) finish(analysisID string, failMsg *string) error {
	t.mu.Lock()
	rec := t.st.analyses[analysisID]
	if rec == nil {
		t.mu.Unlock()
		return analysisNotFound(analysisID)
	}
	if rec.a.Status.IsTerminal() {
		t.mu.Unlock()
		return errorf(http.StatusConflict, codeAnalysisFinished, "analysis %q has already %s", analysisID, rec.a.Status)
	}
	in := rec.input
	in.AnalysisID = analysisID
	t.mu.Unlock()

	var res AnalysisResult
	var runErr error
	if failMsg != nil {
		runErr = fmt.Errorf("%s", *failMsg)
	} else if msg := engine.ParseScript(in).Fail; msg != "" {
		runErr = fmt.Errorf("%s", msg)
	} else if t.srv.cfg.analyzer != nil {
		res, runErr = safeAnalyze(t.srv.cfg.analyzer, in)
	} else {
		res, runErr = engine.Default(context.Background(), in)
	}

	t.mu.Lock()
	defer t.mu.Unlock()
	rec = t.st.analyses[analysisID]
	if rec == nil || rec.a.Status.IsTerminal() {
		return nil // deleted or finished while the engine ran
	}
	for _, stop := range rec.timers {
		stop()
	}
	rec.timers = nil
	now := t.now()
	a := &rec.a
	a.CompletedAt = &now
	a.ProcessingTimeMs = now.Sub(a.RequestedAt).Milliseconds()
	if runErr != nil {
		msg := runErr.Error()
		a.Status = profilesvc.AnalysisFailed
		a.Error = &msg
		a.CompletedAt = nil
		rec.notifyLocked()
		return nil
	}
	res.Normalize()
	if res.ProcessingTimeMs > 0 {
		a.ProcessingTimeMs = res.ProcessingTimeMs
	}
	ra := res.RiskAssessment
	a.RiskAssessment = &ra
	sm := res.SystemMetadata
	a.SystemMetadata = &sm
	a.ExtractedData = profilesvc.ExtractedData(res.ExtractedData)
	a.OutputSchema = profilesvc.RawJSON(res.OutputSchema)
	a.ExtractionStatus = res.ExtractionStatus
	a.RawActionResults = res.RawActionResults
	a.AgentAuditLog = res.AgentAuditLog
	a.Findings = res.Findings
	for i := range a.Findings {
		a.Findings[i].ID = t.srv.ids.next("af_")
	}
	a.Recommendations = res.Recommendations
	for i := range a.Recommendations {
		a.Recommendations[i].ID = t.srv.ids.next("ar_")
	}
	a.TargetItems = make([]profilesvc.TargetItem, len(in.Items))
	for i, it := range in.Items {
		a.TargetItems[i] = profilesvc.TargetItem{ItemID: it.ID, Name: it.Name, Type: it.Type}
	}
	stampTimes(a, in.RequestedAt, now)
	reportID := t.srv.ids.next("rpt_")
	a.PrimaryReportID = &reportID
	a.Status = profilesvc.AnalysisCompleted
	rec.notifyLocked()
	return nil
}

// safeAnalyze runs a caller's analyzer, turning a panic into a failure.
func safeAnalyze(fn Analyzer, in AnalysisInput) (res AnalysisResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the analyzer panicked: %v", p)
		}
	}()
	return fn(context.Background(), in)
}

// stampTimes spreads the audit log's and history's timestamps over the
// run, from its start to its end, in proportion to each step's duration.
func stampTimes(a *profilesvc.Analysis, start, end time.Time) {
	var total int64
	for _, e := range a.AgentAuditLog {
		total += e.DurationMs
	}
	span := end.Sub(start)
	var done int64
	for i := range a.AgentAuditLog {
		e := &a.AgentAuditLog[i]
		at := start
		if total > 0 {
			at = start.Add(time.Duration(float64(span) * float64(done) / float64(total))).Truncate(time.Millisecond)
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

// stopTimers stops every analysis run of the tenant, when the server
// closes.
func (t *Tenant) stopTimers() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, rec := range t.st.analyses {
		for _, stop := range rec.timers {
			stop()
		}
		rec.timers = nil
	}
}
