package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// maxAnalysesPerProfile is how many analyses a profile keeps; starting one
// more deletes the oldest.
const maxAnalysesPerProfile = 5

// defaultPlaybookID is the playbook every analysis of the mock names.
const defaultPlaybookID = "PB-0001"

// startAnalysisBody is the body of start analysis.
type startAnalysisBody struct {
	TargetItems    *[]targetItemRef    `json:"targetItems"`
	Options        opt[map[string]any] `json:"options"`
	ClientMetadata opt[map[string]any] `json:"clientMetadata"`
}

type targetItemRef struct {
	ItemID *string `json:"itemId"`
}

func (t *Tenant) handleStartAnalysis(w http.ResponseWriter, r *http.Request) *apiError {
	pid := pathVar(r, "profileId")
	// An unknown profile is reported before anything about the body.
	t.mu.Lock()
	exists := t.st.profiles[pid] != nil
	t.mu.Unlock()
	if !exists {
		return profileNotFound(pid)
	}
	var b startAnalysisBody
	if e := decodeJSON(r, t.srv.cfg.maxJSONBody, &b); e != nil {
		return e
	}
	if b.TargetItems == nil {
		return validation("field \"targetItems\" is required: a list of {\"itemId\": ...}")
	}
	if len(*b.TargetItems) == 0 {
		return validation("field \"targetItems\" must name at least one item")
	}
	ids := make([]string, len(*b.TargetItems))
	for i, ref := range *b.TargetItems {
		if ref.ItemID == nil || *ref.ItemID == "" {
			return validation("field \"targetItems[%d].itemId\" is required", i)
		}
		ids[i] = *ref.ItemID
	}
	id, e := t.startAnalysis(pid, ids, b.Options.value, b.ClientMetadata.value)
	if e != nil {
		return e
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"id": id})
	return nil
}

// startAnalysis creates an analysis of the profile's items and schedules
// its run. Exactly one of many racing starts wins: the check for a running
// analysis and the creation happen under one lock.
func (t *Tenant) startAnalysis(profileID string, itemIDs []string, options, clientMetadata map[string]any) (string, *apiError) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.st.profiles[profileID]
	if p == nil {
		return "", profileNotFound(profileID)
	}
	var bad []string
	seen := map[string]bool{}
	var items []*itemRec
	for _, id := range itemIDs {
		if seen[id] {
			continue
		}
		seen[id] = true
		it := t.st.items[id]
		if it == nil || it.profileID != profileID || it.status != profilesvc.ItemActive {
			bad = append(bad, id)
			continue
		}
		items = append(items, it)
	}
	if len(bad) > 0 {
		return "", errorf(http.StatusBadRequest, profilesvc.CodeInvalidItemIDs,
			"items %s do not exist, are not in profile %q, or are not ACTIVE", quoteList(bad), profileID)
	}
	if run := t.st.runningAnalysis(p); run != nil {
		return "", errorf(http.StatusConflict, profilesvc.CodeAnalysisInProgress,
			"analysis %q of profile %q is still %s", run.a.ID, profileID, run.a.Status)
	}
	// Retention: a sixth analysis deletes the oldest.
	for len(p.analysisIDs) >= maxAnalysesPerProfile {
		if old := t.st.analyses[p.analysisIDs[0]]; old != nil {
			t.deleteAnalysisLocked(old)
		} else {
			p.analysisIDs = p.analysisIDs[1:]
		}
	}

	now := t.now()
	rec := &analysisRec{
		changed: make(chan struct{}),
		reports: map[reportVariant][]byte{},
	}
	rec.a = profilesvc.Analysis{
		ID:                 t.srv.ids.next("analysis_"),
		ProfileID:          profileID,
		PlaybookID:         defaultPlaybookID,
		Status:             profilesvc.AnalysisPending,
		VerificationStatus: profilesvc.VerificationPendingReview,
		Options:            cloneMap(options),
		ClientMetadata:     cloneMap(clientMetadata),
		RequestedAt:        now,
		CreatedAt:          now,
		// The items asked for are known from the start: a client that
		// lost the answer to its start finds its analysis by them.
		TargetItems: make([]profilesvc.TargetItem, len(items)),
	}
	for i, it := range items {
		rec.a.TargetItems[i] = profilesvc.TargetItem{ItemID: it.id, Name: it.name, Type: it.typ}
	}
	rec.input = t.analysisInputLocked(p, items, options, clientMetadata)
	rec.duration = t.srv.cfg.analysisDuration
	if sc := engine.ParseScript(rec.input); sc.HasDuration {
		rec.duration = sc.Duration
	}
	t.seq++
	rec.seq = t.seq
	t.st.analyses[rec.a.ID] = rec
	p.analysisIDs = append(p.analysisIDs, rec.a.ID)
	started := now
	p.lastAnalysisAt = &started
	if !t.srv.cfg.manual {
		t.scheduleLocked(rec)
	}
	return rec.a.ID, nil
}

// scheduleLocked arranges an analysis's run on the server's clock: pending
// for the first tenth of its duration, then processing, then completed or
// failed.
func (t *Tenant) scheduleLocked(rec *analysisRec) {
	id := rec.a.ID
	clock := t.srv.clock
	rec.timers = append(rec.timers,
		clock.AfterFunc(rec.duration/10, func() { _ = t.StartProcessing(id) }),
		clock.AfterFunc(rec.duration, func() { _ = t.finish(id, nil) }),
	)
}

// notifyLocked records a change of an analysis: long polls wake, and the
// cached JSON is dropped.
func (rec *analysisRec) notifyLocked() {
	rec.encoded = nil
	close(rec.changed)
	rec.changed = make(chan struct{})
}

// deleteAnalysisLocked removes an analysis and its reports, stopping its
// run; a long poll on it wakes and answers 404.
func (t *Tenant) deleteAnalysisLocked(rec *analysisRec) {
	for _, stop := range rec.timers {
		stop()
	}
	rec.timers = nil
	delete(t.st.analyses, rec.a.ID)
	if p := t.st.profiles[rec.a.ProfileID]; p != nil {
		p.analysisIDs = removeString(p.analysisIDs, rec.a.ID)
	}
	rec.reports = nil
	rec.notifyLocked()
}

func analysisNotFound(id string) *apiError {
	return errorf(http.StatusNotFound, profilesvc.CodeAnalysisNotFound, "analysis %q does not exist", id)
}

// encodedLocked returns the analysis's JSON, cached until it changes.
func (rec *analysisRec) encodedLocked() []byte {
	if rec.encoded == nil {
		var v any = &rec.a
		if rec.a.Status == profilesvc.AnalysisCompleted {
			v = completedView{Analysis: &rec.a, ExtractionStatus: rec.a.ExtractionStatus, RawActionResults: rec.a.RawActionResults,
				AgentAuditLog: rec.a.AgentAuditLog, Findings: rec.a.Findings, Recommendations: rec.a.Recommendations,
				TargetItems: rec.a.TargetItems}
		}
		rec.encoded = encodeJSON(v)
	}
	return rec.encoded
}

func (t *Tenant) handleGetAnalysis(w http.ResponseWriter, r *http.Request) *apiError {
	values, e := queryValues(r, "waitForReport", "timeoutSeconds")
	if e != nil {
		return e
	}
	wait := false
	if values.Has("waitForReport") {
		v, err := strconv.ParseBool(values.Get("waitForReport"))
		if err != nil || (values.Get("waitForReport") != "true" && values.Get("waitForReport") != "false") {
			return validation("query parameter \"waitForReport\" must be true or false, not %q", values.Get("waitForReport"))
		}
		wait = v
	}
	timeout := 120 * time.Second
	if values.Has("timeoutSeconds") {
		n, err := strconv.Atoi(values.Get("timeoutSeconds"))
		if err != nil || n < 10 || n > 300 {
			return validation("query parameter \"timeoutSeconds\" must be a whole number from 10 to 300, not %q", values.Get("timeoutSeconds"))
		}
		timeout = time.Duration(n) * time.Second
	}
	id := pathVar(r, "analysisId")
	if !wait {
		t.mu.Lock()
		defer t.mu.Unlock()
		rec := t.st.analyses[id]
		if rec == nil {
			return analysisNotFound(id)
		}
		writeRawJSON(w, http.StatusOK, rec.encodedLocked())
		return nil
	}
	return t.longPoll(w, r, id, timeout)
}

// longPoll holds the request until the analysis has completed with its
// report, has failed or is deleted, or timeout passes, then answers with
// the analysis as it stands. It wakes on the change itself, and lets go at
// once when the client leaves or the server closes.
func (t *Tenant) longPoll(w http.ResponseWriter, r *http.Request, id string, timeout time.Duration) *apiError {
	// The server's write timeout is shorter than a long poll.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(timeout + 30*time.Second))
	expired := make(chan struct{})
	stop := t.srv.clock.AfterFunc(timeout, func() { close(expired) })
	defer stop()
	for {
		t.mu.Lock()
		rec := t.st.analyses[id]
		if rec == nil {
			t.mu.Unlock()
			return analysisNotFound(id)
		}
		done := rec.a.Status == profilesvc.AnalysisFailed ||
			(rec.a.Status == profilesvc.AnalysisCompleted && rec.a.PrimaryReportID != nil)
		body, changed := rec.encodedLocked(), rec.changed
		t.mu.Unlock()
		if done {
			writeRawJSON(w, http.StatusOK, body)
			return nil
		}
		select {
		case <-changed:
			continue
		case <-r.Context().Done():
			return nil
		case <-expired:
		case <-t.srv.closing:
		}
		// The analysis as it stands now: a change that came with the
		// timeout (a fake clock moves both at once) is not left out.
		t.mu.Lock()
		if rec := t.st.analyses[id]; rec != nil {
			body = rec.encodedLocked()
		}
		t.mu.Unlock()
		writeRawJSON(w, http.StatusOK, body)
		return nil
	}
}

func (t *Tenant) handleDeleteAnalysis(w http.ResponseWriter, r *http.Request) *apiError {
	id := pathVar(r, "analysisId")
	t.mu.Lock()
	defer t.mu.Unlock()
	rec := t.st.analyses[id]
	if rec == nil {
		return analysisNotFound(id)
	}
	t.deleteAnalysisLocked(rec)
	noContent(w)
	return nil
}

func (t *Tenant) handleListAnalyses(w http.ResponseWriter, r *http.Request) *apiError {
	pid := pathVar(r, "profileId")
	q, e := t.srv.parseListQuery(r, "analyses:"+pid, false)
	if e != nil {
		return e
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.st.profiles[pid]
	if p == nil {
		return profileNotFound(pid)
	}
	var entries []keyed[json.RawMessage]
	for _, aid := range p.analysisIDs {
		rec := t.st.analyses[aid]
		entries = append(entries, keyed[json.RawMessage]{
			key: fmt.Sprintf("%020d", rec.seq), id: aid,
			v: json.RawMessage(bytes.TrimSpace(rec.encodedLocked())),
		})
	}
	items, next := paginate(entries, q, t.srv.encodeCursor)
	writeJSON(w, http.StatusOK, newPage(items, next))
	return nil
}

// quoteList renders IDs for a message: "a", "b".
func quoteList(ids []string) string {
	var b bytes.Buffer
	for i, id := range ids {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(id))
	}
	return b.String()
}

// completedView renders a completed analysis with every result field
// present, even when empty: the SDK's type leaves empty ones out.
type completedView struct {
	*profilesvc.Analysis
	ExtractionStatus map[string]profilesvc.ExtractionStatus `json:"extractionStatus"`
	RawActionResults map[string]profilesvc.RawActionResult  `json:"rawActionResults"`
	AgentAuditLog    []profilesvc.AuditLogEntry             `json:"agentAuditLog"`
	Findings         []profilesvc.Finding                   `json:"findings"`
	Recommendations  []profilesvc.Recommendation            `json:"recommendations"`
	TargetItems      []profilesvc.TargetItem                `json:"targetItems"`
}
