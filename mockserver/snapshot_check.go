package mockserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/openapicheck"
)

// A snapshot is checked as a whole before any of it is used (Restore, a
// state file): every record well formed by the rules the API applies
// (rules.go), every reference between records there and returned, every
// workflow fit for the engine, every counter with room to count, and, for
// a snapshot decoded from JSON, every analysis one the service could
// give (the Analysis schema of api/openapi.yaml). A state file that does
// not hold together is refused naming its first problem, the record and
// the field, rather than loaded to answer 500 later and be written back
// at shutdown. The check takes time linear in the snapshot's size.

// Bounds of a snapshot's numbers: creation sequence numbers stay exact in
// JSON, and a run lasts at most maxRunDuration.
const (
	maxSnapshotSeq        = 1 << 53
	maxSnapshotDurationMs = int64(maxRunDuration / time.Millisecond)
)

// snapshotProblem is the first problem of a snapshot: the record (its
// list, index and ID) and the field.
type snapshotProblem struct {
	record, field, problem string
}

func (p *snapshotProblem) Error() string {
	if p.field == "" {
		return fmt.Sprintf("mockserver: the snapshot does not hold together: %s: %s", p.record, p.problem)
	}
	return fmt.Sprintf("mockserver: the snapshot does not hold together: %s: field %q %s", p.record, p.field, p.problem)
}

// snapshotChecker checks a snapshot's records, with the indexes of what
// it has seen.
type snapshotChecker struct {
	d           *snapshotData
	schemaCheck bool // hold each analysis to the Analysis schema
	workflows   map[string]bool
	profiles    map[string]*snapshotProfile
	folders     map[string]*snapshotFolder
	items       map[string]*snapshotItem
	analyses    map[string]*profilesvc.Analysis
	seqs        map[int64]string // creation sequence number -> the record that has it
	// listedBy maps each child a record's list names to that record's
	// ID: a folder to the profile that lists it, an item to its folder,
	// an analysis to its profile.
	listedBy map[string]string
	// decoded are the snapshot's analyses, decoded, in its order.
	decoded []profilesvc.Analysis
}

// checkSnapshot returns the first problem of d, or nil when it holds
// together, with its analyses decoded, in its order. schemaCheck holds
// each analysis to the Analysis schema of api/openapi.yaml, for a
// snapshot that comes from outside the server.
func checkSnapshot(d *snapshotData, schemaCheck bool) ([]profilesvc.Analysis, error) {
	c := &snapshotChecker{
		d:           d,
		schemaCheck: schemaCheck,
		workflows:   map[string]bool{},
		profiles:    map[string]*snapshotProfile{},
		folders:     map[string]*snapshotFolder{},
		items:       map[string]*snapshotItem{},
		analyses:    map[string]*profilesvc.Analysis{},
		seqs:        map[int64]string{},
		listedBy:    map[string]string{},
		decoded:     make([]profilesvc.Analysis, len(d.Analyses)),
	}
	if d.Seq < 0 || d.Seq > maxSnapshotSeq {
		return nil, &snapshotProblem{record: "the snapshot", field: "seq", problem: fmt.Sprintf("must be from 0 to %d, got %d", int64(maxSnapshotSeq), d.Seq)}
	}
	for _, step := range []func() *snapshotProblem{c.checkWorkflows, c.indexRecords, c.checkParents, c.checkFields, c.checkLists, c.checkLinks} {
		if p := step(); p != nil {
			return nil, p
		}
	}
	return c.decoded, nil
}

// checkWorkflows checks that there is at least one workflow, each fit to
// be stored (Workflow.Validate, as every other path that takes one), and
// no two with one ID.
func (c *snapshotChecker) checkWorkflows() *snapshotProblem {
	if len(c.d.Workflows) == 0 {
		return &snapshotProblem{record: "the snapshot", field: "workflows", problem: "must hold at least one workflow"}
	}
	for i, w := range c.d.Workflows {
		rec := fmt.Sprintf("workflows[%d] (%s)", i, clip(w.ID))
		if err := w.Validate(); err != nil {
			return &snapshotProblem{record: rec, problem: err.Error()}
		}
		if c.workflows[w.ID] {
			return &snapshotProblem{record: rec, field: "id", problem: "is the ID of an earlier workflow"}
		}
		c.workflows[w.ID] = true
	}
	return nil
}

// indexRecords checks every record's ID and creation sequence number, and
// indexes the records by ID, so that the checks of references that follow
// can look any record up.
func (c *snapshotChecker) indexRecords() *snapshotProblem {
	d := c.d
	for i := range d.Profiles {
		p := &d.Profiles[i]
		if pr := c.index(recordName("profiles", i, p.ID), p.ID, p.Seq, c.profiles[p.ID] != nil, "pf_"); pr != nil {
			return pr
		}
		c.profiles[p.ID] = p
	}
	for i := range d.Folders {
		f := &d.Folders[i]
		if pr := c.index(recordName("folders", i, f.ID), f.ID, f.Seq, c.folders[f.ID] != nil, "fld_", "fd_"); pr != nil {
			return pr
		}
		c.folders[f.ID] = f
	}
	for i := range d.Items {
		it := &d.Items[i]
		// Items have no creation sequence number of their own.
		if pr := c.index(recordName("items", i, it.ID), it.ID, -1, c.items[it.ID] != nil, "item_"); pr != nil {
			return pr
		}
		c.items[it.ID] = it
	}
	for i := range d.Analyses {
		sa, a := &d.Analyses[i], &c.decoded[i]
		if err := json.Unmarshal(sa.Analysis, a); err != nil {
			return &snapshotProblem{record: fmt.Sprintf("analyses[%d]", i), field: "analysis", problem: fmt.Sprintf("is not an analysis: %v", err)}
		}
		if pr := c.index(recordName("analyses", i, a.ID), a.ID, sa.Seq, c.analyses[a.ID] != nil, "analysis_"); pr != nil {
			return pr
		}
		c.analyses[a.ID] = a
	}
	return nil
}

// index checks one record's ID and sequence number (-1 for none).
func (c *snapshotChecker) index(rec, id string, seq int64, taken bool, prefixes ...string) *snapshotProblem {
	if why := badRecordID(id, prefixes...); why != "" {
		return &snapshotProblem{record: rec, field: "id", problem: why}
	}
	if taken {
		return &snapshotProblem{record: rec, field: "id", problem: "is the ID of an earlier record"}
	}
	if seq == -1 {
		return nil
	}
	if seq < 1 || seq > c.d.Seq {
		return &snapshotProblem{record: rec, field: "seq", problem: fmt.Sprintf("must be from 1 to the snapshot's seq, %d, got %d", c.d.Seq, seq)}
	}
	if other, ok := c.seqs[seq]; ok {
		return &snapshotProblem{record: rec, field: "seq", problem: fmt.Sprintf("is that of %s", other)}
	}
	c.seqs[seq] = rec
	return nil
}

// checkParents checks that every record's parent is there: a profile's
// workflow, a folder's profile, an item's folder, an analysis's profile.
func (c *snapshotChecker) checkParents() *snapshotProblem {
	for i := range c.d.Profiles {
		p := &c.d.Profiles[i]
		if !c.workflows[p.WorkflowID] {
			return &snapshotProblem{record: recordName("profiles", i, p.ID), field: "workflowId", problem: fmt.Sprintf("names workflow %q, which the snapshot does not hold", clip(p.WorkflowID))}
		}
	}
	for i := range c.d.Folders {
		f := &c.d.Folders[i]
		if c.profiles[f.ProfileID] == nil {
			return &snapshotProblem{record: recordName("folders", i, f.ID), field: "profileId", problem: fmt.Sprintf("names profile %q, which the snapshot does not hold", clip(f.ProfileID))}
		}
	}
	for i := range c.d.Items {
		it := &c.d.Items[i]
		if c.folders[it.FolderID] == nil {
			return &snapshotProblem{record: recordName("items", i, it.ID), field: "folderId", problem: fmt.Sprintf("names folder %q, which the snapshot does not hold", clip(it.FolderID))}
		}
	}
	for i := range c.decoded {
		a := &c.decoded[i]
		if c.profiles[a.ProfileID] == nil {
			return &snapshotProblem{record: recordName("analyses", i, a.ID), field: "analysis.profileId", problem: fmt.Sprintf("names profile %q, which the snapshot does not hold", clip(a.ProfileID))}
		}
	}
	return nil
}

// checkFields checks each record's own fields.
func (c *snapshotChecker) checkFields() *snapshotProblem {
	for i := range c.d.Profiles {
		p := &c.d.Profiles[i]
		rec := recordName("profiles", i, p.ID)
		if e := checkName("name", p.Name); e != nil {
			return &snapshotProblem{record: rec, problem: e.message}
		}
		if pr := checkTimes(rec, p.CreatedAt, p.UpdatedAt); pr != nil {
			return pr
		}
	}
	for i := range c.d.Folders {
		f := &c.d.Folders[i]
		rec := recordName("folders", i, f.ID)
		if e := checkName("name", f.Name); e != nil {
			return &snapshotProblem{record: rec, problem: e.message}
		}
		if pr := checkTimes(rec, f.CreatedAt, f.UpdatedAt); pr != nil {
			return pr
		}
	}
	for i := range c.d.Items {
		if pr := checkItemFields(recordName("items", i, c.d.Items[i].ID), &c.d.Items[i]); pr != nil {
			return pr
		}
	}
	for i := range c.d.Analyses {
		if pr := c.checkAnalysisFields(recordName("analyses", i, c.decoded[i].ID), &c.d.Analyses[i], &c.decoded[i]); pr != nil {
			return pr
		}
	}
	return nil
}

// checkTimes checks that a record's creation and update times are set:
// the document requires both of every record.
func checkTimes(rec string, created, updated time.Time) *snapshotProblem {
	switch {
	case created.IsZero():
		return &snapshotProblem{record: rec, field: "createdAt", problem: "is required"}
	case updated.IsZero():
		return &snapshotProblem{record: rec, field: "updatedAt", problem: "is required"}
	}
	return nil
}

// checkItemFields checks an item's own fields, by the rules of the API:
// its name, status and content type, and its content and bytes as a text
// or JSON item's are made.
func checkItemFields(rec string, it *snapshotItem) *snapshotProblem {
	if e := checkName("name", it.Name); e != nil {
		return &snapshotProblem{record: rec, problem: e.message}
	}
	if why := badItemStatus(it.Status); why != "" {
		return &snapshotProblem{record: rec, field: "status", problem: why}
	}
	if why := badContentType(it.ContentType); why != "" {
		return &snapshotProblem{record: rec, field: "contentType", problem: why}
	}
	if it.CreatedAt.IsZero() {
		return &snapshotProblem{record: rec, field: "createdAt", problem: "is required"}
	}
	switch it.Type {
	case profilesvc.ItemFile:
		if len(it.Content) > 0 {
			return &snapshotProblem{record: rec, field: "content", problem: "must be absent for a file item"}
		}
	case profilesvc.ItemText, profilesvc.ItemJSON:
		_, data, e := checkItemContent(it.Type, it.Content)
		if e != nil {
			return &snapshotProblem{record: rec, problem: e.message}
		}
		if !bytes.Equal(data, it.Data) {
			return &snapshotProblem{record: rec, field: "data", problem: fmt.Sprintf("must be the bytes of the %s item's content", it.Type)}
		}
	default:
		return &snapshotProblem{record: rec, field: "type", problem: fmt.Sprintf("must be file, text or json, not %q", clip(string(it.Type)))}
	}
	return nil
}

// checkAnalysisFields checks an analysis's own fields and its run: a
// status and a verification status of the document, the results a
// completed one has, the items it names, durations a clock can count,
// the workflow it runs with fit for the engine, and, with schemaCheck,
// the whole analysis one the service could give.
func (c *snapshotChecker) checkAnalysisFields(rec string, sa *snapshotAnalysis, a *profilesvc.Analysis) *snapshotProblem {
	if pr := checkAnalysisState(rec, a); pr != nil {
		return pr
	}
	switch {
	case sa.DurationMs < 0 || sa.DurationMs > maxSnapshotDurationMs:
		return &snapshotProblem{record: rec, field: "durationMs", problem: fmt.Sprintf("must be from 0 to %d, got %d", maxSnapshotDurationMs, sa.DurationMs)}
	case sa.ReportDelay < 0 || sa.ReportDelay > maxSnapshotDurationMs:
		return &snapshotProblem{record: rec, field: "reportDelayMs", problem: fmt.Sprintf("must be from 0 to %d, got %d", maxSnapshotDurationMs, sa.ReportDelay)}
	}
	// The items it names, as the report and the engine show them.
	for j, t := range a.TargetItems {
		if e := checkName("name", t.Name); e != nil {
			return &snapshotProblem{record: rec, field: fmt.Sprintf("analysis.targetItems[%d].name", j), problem: e.message}
		}
	}
	for j, it := range sa.Input.Items {
		if e := checkName("name", it.Name); e != nil {
			return &snapshotProblem{record: rec, field: fmt.Sprintf("input.Items[%d].Name", j), problem: e.message}
		}
	}
	// The workflow the run was started with, which the engine runs with.
	w := sa.Input.Workflow
	if w.ID == "" {
		w.ID = c.profiles[a.ProfileID].WorkflowID
	}
	if err := w.Validate(); err != nil {
		return &snapshotProblem{record: rec, field: "input.Workflow", problem: err.Error()}
	}
	if c.schemaCheck {
		return checkAnalysisSchema(rec, sa.Analysis)
	}
	return nil
}

// checkAnalysisState checks an analysis's status, verification status and
// the fields its status requires.
func checkAnalysisState(rec string, a *profilesvc.Analysis) *snapshotProblem {
	switch {
	case !validAnalysisStatus(a.Status):
		return &snapshotProblem{record: rec, field: "analysis.status", problem: fmt.Sprintf("must be pending, processing, completed or failed, not %q", clip(string(a.Status)))}
	case !validVerification(a.VerificationStatus):
		return &snapshotProblem{record: rec, field: "analysis.verificationStatus", problem: fmt.Sprintf("must be pending_review, approved or rejected, not %q", clip(string(a.VerificationStatus)))}
	case a.RequestedAt.IsZero():
		return &snapshotProblem{record: rec, field: "analysis.requestedAt", problem: "is required"}
	case a.CreatedAt.IsZero():
		return &snapshotProblem{record: rec, field: "analysis.createdAt", problem: "is required"}
	case a.Status == profilesvc.AnalysisFailed && a.Error == nil:
		return &snapshotProblem{record: rec, field: "analysis.error", problem: "is required of a failed analysis"}
	case a.Status != profilesvc.AnalysisCompleted && a.PrimaryReportID != nil:
		return &snapshotProblem{record: rec, field: "analysis.primaryReportId", problem: "must be null unless the analysis has completed"}
	case a.Status == profilesvc.AnalysisCompleted && a.CompletedAt == nil:
		return &snapshotProblem{record: rec, field: "analysis.completedAt", problem: "is required of a completed analysis"}
	case a.Status == profilesvc.AnalysisCompleted && a.RiskAssessment == nil:
		return &snapshotProblem{record: rec, field: "analysis.riskAssessment", problem: "is required of a completed analysis"}
	case a.Status == profilesvc.AnalysisCompleted && a.SystemMetadata == nil:
		return &snapshotProblem{record: rec, field: "analysis.systemMetadata", problem: "is required of a completed analysis"}
	}
	return nil
}

// checkAnalysisSchema holds an analysis's JSON to the Analysis schema of
// api/openapi.yaml, naming its first field at fault.
func checkAnalysisSchema(rec string, raw json.RawMessage) *snapshotProblem {
	v, err := openapicheck.New()
	if err != nil {
		return &snapshotProblem{record: rec, field: "analysis", problem: fmt.Sprintf("cannot be checked: %v", err)}
	}
	err = v.CheckSchema("Analysis", raw)
	var ms openapicheck.Mismatches
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ms) && len(ms) > 0:
		return &snapshotProblem{record: rec, field: "analysis" + strings.TrimSpace(strings.TrimPrefix(ms[0].Field, "body")),
			problem: "is not what the service gives: " + ms[0].Problem}
	}
	return &snapshotProblem{record: rec, field: "analysis", problem: err.Error()}
}

// checkLists checks each record's lists of its children: each there, the
// record's, and listed once; a profile's default folder first, and alone.
// It indexes which record lists each child, for checkLinks.
func (c *snapshotChecker) checkLists() *snapshotProblem {
	for i := range c.d.Profiles {
		p := &c.d.Profiles[i]
		rec := recordName("profiles", i, p.ID)
		if len(p.FolderIDs) == 0 {
			return &snapshotProblem{record: rec, field: "folderIds", problem: "must list the profile's default folder"}
		}
		if pr := c.listed(rec, p.ID, "folderIds", "folder", "profile", p.FolderIDs, func(id string) (exists, mine bool) {
			f := c.folders[id]
			return f != nil, f != nil && f.ProfileID == p.ID
		}); pr != nil {
			return pr
		}
		for j, fid := range p.FolderIDs {
			if c.folders[fid].IsDefault != (j == 0) {
				return &snapshotProblem{record: rec, field: fmt.Sprintf("folderIds[%d]", j), problem: "must name the default folder first, and it alone"}
			}
		}
		if pr := c.listed(rec, p.ID, "analysisIds", "analysis", "profile", p.AnalysisIDs, func(id string) (exists, mine bool) {
			a := c.analyses[id]
			return a != nil, a != nil && a.ProfileID == p.ID
		}); pr != nil {
			return pr
		}
	}
	for i := range c.d.Folders {
		f := &c.d.Folders[i]
		if pr := c.listed(recordName("folders", i, f.ID), f.ID, "itemIds", "item", "folder", f.ItemIDs, func(id string) (exists, mine bool) {
			it := c.items[id]
			return it != nil, it != nil && it.FolderID == f.ID
		}); pr != nil {
			return pr
		}
	}
	return nil
}

// listed checks the list of a record (of ID owner) of its children, of a
// kind: each there, the record's (not of another parent of its kind),
// and listed once.
func (c *snapshotChecker) listed(rec, owner, field, kind, parentKind string, ids []string, find func(id string) (exists, mine bool)) *snapshotProblem {
	for j, id := range ids {
		f := fmt.Sprintf("%s[%d]", field, j)
		exists, mine := find(id)
		switch {
		case !exists:
			return &snapshotProblem{record: rec, field: f, problem: fmt.Sprintf("names %s %q, which the snapshot does not hold", kind, clip(id))}
		case !mine:
			return &snapshotProblem{record: rec, field: f, problem: fmt.Sprintf("names %s %q, of another %s", kind, id, parentKind)}
		case c.listedBy[id] != "":
			return &snapshotProblem{record: rec, field: f, problem: fmt.Sprintf("names %s %q again", kind, id)}
		}
		c.listedBy[id] = owner
	}
	return nil
}

// checkLinks checks that each record is listed by its parent, that an
// item's profile is its folder's, and that a profile has one running
// analysis at most.
func (c *snapshotChecker) checkLinks() *snapshotProblem {
	for i := range c.d.Folders {
		f := &c.d.Folders[i]
		if c.listedBy[f.ID] != f.ProfileID {
			return &snapshotProblem{record: recordName("folders", i, f.ID), field: "profileId", problem: fmt.Sprintf("names profile %q, which does not list the folder", f.ProfileID)}
		}
	}
	for i := range c.d.Items {
		it := &c.d.Items[i]
		rec := recordName("items", i, it.ID)
		switch f := c.folders[it.FolderID]; {
		case c.listedBy[it.ID] != it.FolderID:
			return &snapshotProblem{record: rec, field: "folderId", problem: fmt.Sprintf("names folder %q, which does not list the item", it.FolderID)}
		case it.ProfileID != f.ProfileID:
			return &snapshotProblem{record: rec, field: "profileId", problem: fmt.Sprintf("must be that of its folder, %q", f.ProfileID)}
		}
	}
	running := map[string]string{} // profile -> its running analysis
	for i := range c.decoded {
		a := &c.decoded[i]
		rec := recordName("analyses", i, a.ID)
		if c.listedBy[a.ID] != a.ProfileID {
			return &snapshotProblem{record: rec, field: "analysis.profileId", problem: fmt.Sprintf("names profile %q, which does not list the analysis", a.ProfileID)}
		}
		if a.Status.IsTerminal() {
			continue
		}
		if other, ok := running[a.ProfileID]; ok {
			return &snapshotProblem{record: rec, field: "analysis.status", problem: fmt.Sprintf("is %s, as is analysis %q of the same profile", a.Status, other)}
		}
		running[a.ProfileID] = a.ID
	}
	return nil
}

func validAnalysisStatus(s profilesvc.AnalysisStatus) bool {
	switch s {
	case profilesvc.AnalysisPending, profilesvc.AnalysisProcessing, profilesvc.AnalysisCompleted, profilesvc.AnalysisFailed:
		return true
	}
	return false
}

func validVerification(s profilesvc.VerificationStatus) bool {
	switch s {
	case profilesvc.VerificationPendingReview, profilesvc.VerificationApproved, profilesvc.VerificationRejected:
		return true
	}
	return false
}

// recordName names a record of a snapshot in a problem: its list, its
// index, and its ID when it has one.
func recordName(list string, i int, id string) string {
	if id == "" {
		return fmt.Sprintf("%s[%d]", list, i)
	}
	return fmt.Sprintf("%s[%d] (%s)", list, i, clip(id))
}
