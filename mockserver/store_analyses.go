package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// maxAnalysesPerProfile is how many analyses a profile keeps; starting one
// more deletes the oldest.
const maxAnalysesPerProfile = 5

// defaultPlaybookID is the playbook every analysis of the mock names.
const defaultPlaybookID = "PB-0001"

// analysisSpec is a start of an analysis.
type analysisSpec struct {
	profileID               string
	itemIDs                 []string
	options, clientMetadata map[string]any // the store's once given
	duration                time.Duration  // of its run, unless scripted
	reportDelay             time.Duration  // before its report exists, unless scripted
}

// startAnalysis creates an analysis of the profile's items and arms its
// run. Exactly one of many racing starts wins: the check for a running
// analysis and the creation happen under one lock.
func (st *state) startAnalysis(spec analysisSpec) (*analysisRec, *apiError) {
	p := st.profiles[spec.profileID]
	if p == nil {
		return nil, profileNotFound(spec.profileID)
	}
	items, e := st.targetItems(p, spec.itemIDs)
	if e != nil {
		return nil, e
	}
	if run := st.runningAnalysis(p); run != nil {
		return nil, errorf(http.StatusConflict, profilesvc.CodeAnalysisInProgress,
			"analysis %q of profile %q is still %s", run.a.ID, p.id, run.a.Status)
	}
	// Retention: a sixth analysis deletes the oldest (an ID without its
	// analysis is dropped).
	for len(p.analysisIDs) >= maxAnalysesPerProfile {
		if st.deleteAnalysis(p.analysisIDs[0]) != nil {
			p.analysisIDs = p.analysisIDs[1:]
		}
	}
	now := st.now()
	rec := &analysisRec{changed: make(chan struct{}), reports: map[reportVariant]renderedReport{}}
	rec.a = profilesvc.Analysis{
		ID: st.newID("analysis_"), ProfileID: p.id, PlaybookID: defaultPlaybookID,
		Status: profilesvc.AnalysisPending, VerificationStatus: profilesvc.VerificationPendingReview,
		Options: spec.options, ClientMetadata: spec.clientMetadata, RequestedAt: now, CreatedAt: now,
		// The items asked for are known from the start: a client that
		// lost the answer to its start finds its analysis by them.
		TargetItems: make([]profilesvc.TargetItem, len(items)),
	}
	for i, it := range items {
		rec.a.TargetItems[i] = profilesvc.TargetItem{ItemID: it.id, Name: it.name, Type: it.typ}
	}
	rec.input = st.analysisInput(p, items, spec, now)
	rec.duration, rec.reportDelay = spec.duration, spec.reportDelay
	script := engine.ParseScript(rec.input)
	if script.HasDuration {
		rec.duration = script.Duration
	}
	if script.ReportDelay > 0 {
		rec.reportDelay = script.ReportDelay
	}
	rec.stuck = script.Stuck
	rec.seq = st.nextSeq()
	st.analyses[rec.a.ID] = rec
	p.analysisIDs = append(p.analysisIDs, rec.a.ID)
	started := now
	p.lastAnalysisAt = &started
	rec.timers = st.run.arm(rec)
	if st.started != nil {
		close(st.started)
		st.started = nil
	}
	return rec, nil
}

// targetItems returns the items a start names, each once, or the error
// naming those that do not exist, are in another profile or are not
// ACTIVE.
func (st *state) targetItems(p *profileRec, ids []string) ([]*itemRec, *apiError) {
	var bad []string
	var items []*itemRec
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		it := st.items[id]
		if it == nil || it.profileID != p.id || it.status != profilesvc.ItemActive {
			bad = append(bad, id)
			continue
		}
		items = append(items, it)
	}
	if len(bad) > 0 {
		return nil, errorf(http.StatusBadRequest, profilesvc.CodeInvalidItemIDs,
			"items %s do not exist, are not in profile %q, or are not ACTIVE", quoteList(bad), p.id)
	}
	return items, nil
}

// analysisInput gathers an analysis's input at its start, so that later
// changes to the items do not change its result. It shares the items'
// bytes, text and metadata, which the store never changes in place; the
// analyzer gets copies of the maps (see runInput).
func (st *state) analysisInput(p *profileRec, items []*itemRec, spec analysisSpec, now time.Time) AnalysisInput {
	in := AnalysisInput{
		Profile:        *st.profileView(p, false),
		Options:        spec.options,
		ClientMetadata: spec.clientMetadata,
		RequestedAt:    now,
	}
	if w := st.workflows[p.workflowID]; w != nil {
		in.Workflow = *w
	}
	// A workflow without a schema or a policy of its own runs with the
	// default one's.
	def := engine.DefaultWorkflow()
	if len(in.Workflow.OutputSchema) == 0 {
		in.Workflow.OutputSchema = def.OutputSchema
	}
	if len(in.Workflow.Policy) == 0 {
		in.Workflow.Policy = def.Policy
	}
	for _, it := range items {
		in.Items = append(in.Items, InputItem{
			ID: it.id, Name: it.name, Type: it.typ, Metadata: it.metadata,
			ContentType: it.detected.ContentType, Text: it.text, Readable: it.readable, Data: it.data,
			CreatedAt: it.createdAt,
		})
	}
	return in
}

// process moves a pending analysis to processing.
func (st *state) process(id string) *apiError {
	rec := st.analyses[id]
	if rec == nil {
		return analysisNotFound(id)
	}
	if rec.a.Status != profilesvc.AnalysisPending {
		return errorf(http.StatusConflict, codeAnalysisNotPending, "analysis %q is %s, not pending", id, rec.a.Status)
	}
	rec.a.Status = profilesvc.AnalysisProcessing
	rec.notify()
	return nil
}

// finish ends a running analysis, whose run began in epoch: failed with
// runErr's text, or completed with res. An analysis deleted or finished
// while the engine ran is left as it is, and so is the state a Restore or
// a Reset put in place meanwhile, though it has an analysis of the ID.
func (st *state) finish(id string, epoch int64, in AnalysisInput, res AnalysisResult, runErr error) {
	rec := st.analyses[id]
	if st.epoch != epoch || rec == nil || rec.a.Status.IsTerminal() {
		return
	}
	rec.stopRun()
	now := st.now()
	a := &rec.a
	// Never negative, though a restored analysis may have been requested
	// after the server's clock stands.
	a.ProcessingTimeMs = float64(max(0, now.Sub(a.RequestedAt).Milliseconds()))
	if runErr != nil {
		msg := runErr.Error()
		a.Status = profilesvc.AnalysisFailed
		a.Error = &msg
		rec.notify()
		return
	}
	res.Normalize()
	if res.ProcessingTimeMs > 0 {
		a.ProcessingTimeMs = res.ProcessingTimeMs
	}
	a.CompletedAt = &now
	if res.PlaybookID != "" {
		a.PlaybookID = res.PlaybookID
	}
	if res.Engine != nil {
		a.Engine = res.Engine
	}
	ra, sm := res.RiskAssessment, res.SystemMetadata
	a.RiskAssessment, a.SystemMetadata = &ra, &sm
	a.ExtractedData = profilesvc.ExtractedData(res.ExtractedData)
	a.OutputSchema = profilesvc.RawJSON(res.OutputSchema)
	a.ExtractionStatus, a.RawActionResults, a.AgentAuditLog = res.ExtractionStatus, res.RawActionResults, res.AgentAuditLog
	a.Findings = res.Findings
	for i := range a.Findings {
		a.Findings[i].ID = st.newID("af_")
	}
	rec.facts = res.Facts
	a.Recommendations = res.Recommendations
	for i := range a.Recommendations {
		a.Recommendations[i].ID = st.newID("ar_")
	}
	a.TargetItems = make([]profilesvc.TargetItem, len(in.Items))
	for i, it := range in.Items {
		a.TargetItems[i] = profilesvc.TargetItem{ItemID: it.ID, Name: it.Name, Type: it.Type}
	}
	stampTimes(a, in.RequestedAt, now)
	a.Status = profilesvc.AnalysisCompleted
	if rec.reportDelay > 0 {
		// Completed, its report to come (publishReport): long polls wait
		// on.
		rec.timers = append(rec.timers, st.run.armReport(rec))
	} else {
		reportID := st.newID("rpt_")
		a.PrimaryReportID = &reportID
	}
	rec.notify()
}

// publishReport gives a completed analysis whose report was delayed its
// report; long polls on it end. It is what the delay's timer does.
func (st *state) publishReport(id string) {
	rec := st.analyses[id]
	if rec == nil || rec.a.Status != profilesvc.AnalysisCompleted || rec.a.PrimaryReportID != nil {
		return
	}
	reportID := st.newID("rpt_")
	rec.a.PrimaryReportID = &reportID
	rec.notify()
}

// deleteAnalysis removes an analysis and its reports, stopping its run; a
// long poll on it wakes and answers 404.
func (st *state) deleteAnalysis(id string) *apiError {
	rec := st.analyses[id]
	if rec == nil {
		return analysisNotFound(id)
	}
	rec.stopRun()
	delete(st.analyses, rec.a.ID)
	if p := st.profiles[rec.a.ProfileID]; p != nil {
		p.analysisIDs = slices.DeleteFunc(p.analysisIDs, func(v string) bool { return v == rec.a.ID })
	}
	rec.reports = nil
	rec.notify()
	return nil
}

// encoded returns the analysis's JSON, cached until it changes.
func (rec *analysisRec) encodedJSON() []byte {
	if rec.encoded == nil {
		rec.encoded = encodeJSON(analysisView(&rec.a))
	}
	return rec.encoded
}

// done reports whether a long poll on the analysis ends: it has failed, or
// completed with its report.
func (rec *analysisRec) done() bool {
	return rec.a.Status == profilesvc.AnalysisFailed ||
		(rec.a.Status == profilesvc.AnalysisCompleted && rec.a.PrimaryReportID != nil)
}

// listAnalyses returns a page of a profile's analyses, newest first.
func (st *state) listAnalyses(profileID string, q listQuery, encode func(cursor) string) (pageBody[json.RawMessage], *apiError) {
	p := st.profiles[profileID]
	if p == nil {
		return pageBody[json.RawMessage]{}, profileNotFound(profileID)
	}
	var entries []keyed[json.RawMessage]
	for _, aid := range p.analysisIDs {
		rec := st.analyses[aid]
		entries = append(entries, keyed[json.RawMessage]{
			key: fmt.Sprintf("%020d", rec.seq), id: aid,
			v: json.RawMessage(bytes.TrimSpace(rec.encodedJSON())),
		})
	}
	items, next := paginate(entries, q, encode)
	return newPage(items, next), nil
}

// setVerification records a person's verdict on an analysis.
func (st *state) setVerification(id string, vs profilesvc.VerificationStatus) *apiError {
	switch vs {
	case profilesvc.VerificationPendingReview, profilesvc.VerificationApproved, profilesvc.VerificationRejected:
	default:
		return validation("field \"verificationStatus\" must be pending_review, approved or rejected, not %q", vs)
	}
	rec := st.analyses[id]
	if rec == nil {
		return analysisNotFound(id)
	}
	rec.a.VerificationStatus = vs
	rec.notify()
	return nil
}

// reportInput returns what the report of a completed analysis is made
// from, as it stands now, with the variant's PDF if one has been rendered
// of it as it stands: a report kept from before a change (a verdict, a
// rename of the profile) is not served.
func (st *state) reportInput(id string, v reportVariant) (reportSource, *apiError) {
	rec := st.analyses[id]
	if rec == nil {
		return reportSource{}, analysisNotFound(id)
	}
	if rec.a.Status != profilesvc.AnalysisCompleted {
		return reportSource{}, errorf(http.StatusBadRequest, profilesvc.CodeReportNotAvailable,
			"analysis %q is %s: its report is available once it has completed", id, rec.a.Status)
	}
	if rec.a.PrimaryReportID == nil {
		return reportSource{}, errorf(http.StatusBadRequest, profilesvc.CodeReportNotAvailable,
			"analysis %q has completed, and its report is being generated", id)
	}
	src := reportSource{analysis: rec.a, workflowID: rec.input.Workflow.ID, workflowName: rec.input.Workflow.Name,
		profileName: rec.input.Profile.Name, version: reportVersion{epoch: st.epoch, analysis: rec.version},
		items: rec.input.Items, facts: rec.facts}
	if p := st.profiles[rec.a.ProfileID]; p != nil {
		src.profileName, src.version.profile = p.name, p.version
	}
	if kept, ok := rec.reports[v]; ok && kept.version == src.version {
		src.kept = kept.pdf
	}
	return src, nil
}

// keepReport keeps a variant's PDF with its analysis, if the analysis and
// its profile are still as it shows them.
func (st *state) keepReport(id string, v reportVariant, version reportVersion, pdf []byte) {
	rec := st.analyses[id]
	if rec == nil || rec.reports == nil || st.epoch != version.epoch || rec.version != version.analysis {
		return
	}
	if p := st.profiles[rec.a.ProfileID]; p == nil || p.version != version.profile {
		return
	}
	rec.reports[v] = renderedReport{version: version, pdf: pdf}
}

// The store's operations on analyses that several callers share, or
// that work outside the lock.

// analysisJSON returns an analysis's JSON.
func (s *store) analysisJSON(id string) ([]byte, *apiError) {
	return withLock(s, func(st *state) ([]byte, *apiError) {
		rec := st.analyses[id]
		if rec == nil {
			return nil, analysisNotFound(id)
		}
		return rec.encodedJSON(), nil
	})
}

// profileAnalysisIDs returns a profile's analyses, oldest first, with a
// channel closed when the next analysis of the tenant starts.
func (s *store) profileAnalysisIDs(profileID string) ([]string, <-chan struct{}) {
	type found struct {
		ids     []string
		started <-chan struct{}
	}
	f, _ := withLock(s, func(st *state) (found, *apiError) {
		if st.started == nil {
			st.started = make(chan struct{})
		}
		if p := st.profiles[profileID]; p != nil {
			return found{slices.Clone(p.analysisIDs), st.started}, nil
		}
		return found{nil, st.started}, nil
	})
	return f.ids, f.started
}

// runInput returns the input of a running analysis about to be finished,
// with its own copies of the maps an analyzer might change, and the
// state's epoch, for finish.
func (s *store) runInput(id string) (AnalysisInput, int64, *apiError) {
	type run struct {
		in    AnalysisInput
		epoch int64
	}
	r, e := withLock(s, func(st *state) (run, *apiError) {
		rec := st.analyses[id]
		if rec == nil {
			return run{}, analysisNotFound(id)
		}
		if rec.a.Status.IsTerminal() {
			return run{}, errorf(http.StatusConflict, codeAnalysisFinished, "analysis %q has already %s", id, rec.a.Status)
		}
		return run{rec.input, st.epoch}, nil
	})
	if e != nil {
		return AnalysisInput{}, 0, e
	}
	in := r.in
	in.AnalysisID = id
	in.Workflow = in.Workflow.Clone()
	in.Profile.Metadata = cloneMap(in.Profile.Metadata)
	in.Options, in.ClientMetadata = cloneMap(in.Options), cloneMap(in.ClientMetadata)
	in.Items = slices.Clone(in.Items)
	for i := range in.Items {
		in.Items[i].Metadata = cloneMap(in.Items[i].Metadata)
	}
	return in, r.epoch, nil
}

// reportSource is what a report is rendered from.
type reportSource struct {
	analysis                 profilesvc.Analysis
	workflowID, workflowName string
	profileName              string
	version                  reportVersion
	items                    []InputItem  // the analysed items, sharing their bytes
	facts                    engine.Facts // the engine's, never changed once kept
	// kept is the variant's PDF, if one was rendered of the analysis and
	// its profile as they stand; nil when it is to be rendered.
	kept []byte
}

func analysisNotFound(id string) *apiError {
	return errorf(http.StatusNotFound, profilesvc.CodeAnalysisNotFound, "analysis %q does not exist", id)
}

// quoteList renders IDs for a message: "a", "b".
func quoteList(ids []string) string {
	quoted := make([]string, len(ids))
	for i, id := range ids {
		quoted[i] = strconv.Quote(id)
	}
	return strings.Join(quoted, ", ")
}
