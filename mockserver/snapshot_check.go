package mockserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/profilesvc/profilesvc-go"
)

// A snapshot is checked as a whole before any of it is used (Restore, a
// state file): every record well formed, every reference between records
// there and returned, every workflow fit for the engine, every counter
// with room to count. A state file that does not hold together is refused
// naming its first problem, the record and the field, rather than loaded
// to answer 500 later and be written back at shutdown.

// Bounds of a snapshot's numbers: a creation sequence number leaves room
// for as many records again, and a duration fits a time.Duration many
// times over.
const (
	maxSnapshotSeq        = 1 << 53
	maxSnapshotDurationMs = 365 * 24 * 60 * 60 * 1000
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
	d         *snapshotData
	workflows map[string]bool
	profiles  map[string]*snapshotProfile
	folders   map[string]*snapshotFolder
	items     map[string]*snapshotItem
	analyses  map[string]*profilesvc.Analysis
	seqs      map[int64]string // creation sequence number -> the record that has it
	// decoded are the snapshot's analyses, decoded, in its order.
	decoded []profilesvc.Analysis
}

// checkSnapshot returns the first problem of d, or nil when it holds
// together, with its analyses decoded, in its order.
func checkSnapshot(d *snapshotData) ([]profilesvc.Analysis, error) {
	c := &snapshotChecker{
		d:         d,
		workflows: map[string]bool{},
		profiles:  map[string]*snapshotProfile{},
		folders:   map[string]*snapshotFolder{},
		items:     map[string]*snapshotItem{},
		analyses:  map[string]*profilesvc.Analysis{},
		seqs:      map[int64]string{},
		decoded:   make([]profilesvc.Analysis, len(d.Analyses)),
	}
	if d.Seq < 0 || d.Seq > maxSnapshotSeq {
		return nil, &snapshotProblem{record: "the snapshot", field: "seq", problem: fmt.Sprintf("must be from 0 to %d, got %d", int64(maxSnapshotSeq), d.Seq)}
	}
	for _, step := range []func() *snapshotProblem{c.checkWorkflows, c.indexRecords, c.checkParents, c.checkFields, c.checkLinks} {
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
		rec := recordName("profiles", i, p.ID)
		if pr := c.index(rec, p.ID, p.Seq, c.profiles[p.ID] != nil, "pf_"); pr != nil {
			return pr
		}
		c.profiles[p.ID] = p
	}
	for i := range d.Folders {
		f := &d.Folders[i]
		rec := recordName("folders", i, f.ID)
		if pr := c.index(rec, f.ID, f.Seq, c.folders[f.ID] != nil, "fld_", "fd_"); pr != nil {
			return pr
		}
		c.folders[f.ID] = f
	}
	for i := range d.Items {
		it := &d.Items[i]
		rec := recordName("items", i, it.ID)
		// Items have no creation sequence number of their own.
		if pr := c.index(rec, it.ID, -1, c.items[it.ID] != nil, "item_"); pr != nil {
			return pr
		}
		c.items[it.ID] = it
	}
	for i := range d.Analyses {
		sa, a := &d.Analyses[i], &c.decoded[i]
		if err := json.Unmarshal(sa.Analysis, a); err != nil {
			return &snapshotProblem{record: fmt.Sprintf("analyses[%d]", i), field: "analysis", problem: fmt.Sprintf("is not an analysis: %v", err)}
		}
		rec := recordName("analyses", i, a.ID)
		if pr := c.index(rec, a.ID, sa.Seq, c.analyses[a.ID] != nil, "analysis_"); pr != nil {
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
		if p := &c.d.Profiles[i]; checkName("name", p.Name) != nil {
			return &snapshotProblem{record: recordName("profiles", i, p.ID), field: "name", problem: fmt.Sprintf("must be 1 to %d characters of valid UTF-8", maxNameLength)}
		}
	}
	for i := range c.d.Folders {
		if f := &c.d.Folders[i]; checkName("name", f.Name) != nil {
			return &snapshotProblem{record: recordName("folders", i, f.ID), field: "name", problem: fmt.Sprintf("must be 1 to %d characters of valid UTF-8", maxNameLength)}
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

// checkItemFields checks an item's own fields.
func checkItemFields(rec string, it *snapshotItem) *snapshotProblem {
	switch {
	case it.Name == "" || !utf8.ValidString(it.Name) || utf8.RuneCountInString(it.Name) > maxNameLength:
		return &snapshotProblem{record: rec, field: "name", problem: fmt.Sprintf("must be 1 to %d characters of valid UTF-8", maxNameLength)}
	case it.Status == "" || len(it.Status) > maxNameLength:
		return &snapshotProblem{record: rec, field: "status", problem: fmt.Sprintf("must be 1 to %d characters", maxNameLength)}
	case !utf8.ValidString(it.ContentType) || len(it.ContentType) > maxNameLength || strings.ContainsFunc(it.ContentType, unicode.IsControl):
		return &snapshotProblem{record: rec, field: "contentType", problem: fmt.Sprintf("must be at most %d characters of valid UTF-8, with no control character", maxNameLength)}
	}
	if why := badItemContent(it); why != "" {
		return &snapshotProblem{record: rec, field: "content", problem: why}
	}
	return nil
}

// checkLinks checks that the records hold together: each is listed by
// its parent, once, and by no other; a profile's default folder is first
// in its list, and alone; an item's profile is its folder's; a profile
// has one running analysis at most.
func (c *snapshotChecker) checkLinks() *snapshotProblem {
	for i := range c.d.Profiles {
		if pr := c.checkProfileLists(i); pr != nil {
			return pr
		}
	}
	for i := range c.d.Folders {
		f := &c.d.Folders[i]
		rec := recordName("folders", i, f.ID)
		if !slices.Contains(c.profiles[f.ProfileID].FolderIDs, f.ID) {
			return &snapshotProblem{record: rec, field: "profileId", problem: fmt.Sprintf("names profile %q, which does not list the folder", f.ProfileID)}
		}
		if pr := listed(rec, "itemIds", "item", "folder", f.ItemIDs, func(id string) (exists, mine bool) {
			it := c.items[id]
			return it != nil, it != nil && it.FolderID == f.ID
		}); pr != nil {
			return pr
		}
	}
	for i := range c.d.Items {
		it := &c.d.Items[i]
		rec := recordName("items", i, it.ID)
		f := c.folders[it.FolderID]
		switch {
		case !slices.Contains(f.ItemIDs, it.ID):
			return &snapshotProblem{record: rec, field: "folderId", problem: fmt.Sprintf("names folder %q, which does not list the item", it.FolderID)}
		case it.ProfileID != f.ProfileID:
			return &snapshotProblem{record: rec, field: "profileId", problem: fmt.Sprintf("must be that of its folder, %q", f.ProfileID)}
		}
	}
	running := map[string]string{} // profile -> its running analysis
	for i := range c.decoded {
		a := &c.decoded[i]
		rec := recordName("analyses", i, a.ID)
		if !slices.Contains(c.profiles[a.ProfileID].AnalysisIDs, a.ID) {
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

// checkProfileLists checks the i-th profile's lists of folders and
// analyses.
func (c *snapshotChecker) checkProfileLists(i int) *snapshotProblem {
	p := &c.d.Profiles[i]
	rec := recordName("profiles", i, p.ID)
	if len(p.FolderIDs) == 0 {
		return &snapshotProblem{record: rec, field: "folderIds", problem: "must list the profile's default folder"}
	}
	if pr := listed(rec, "folderIds", "folder", "profile", p.FolderIDs, func(id string) (exists, mine bool) {
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
	return listed(rec, "analysisIds", "analysis", "profile", p.AnalysisIDs, func(id string) (exists, mine bool) {
		a := c.analyses[id]
		return a != nil, a != nil && a.ProfileID == p.ID
	})
}

// listed checks a record's list of its children, of a kind: each there,
// the record's (not of another parent of its kind), and listed once.
func listed(rec, field, kind, parentKind string, ids []string, find func(id string) (exists, mine bool)) *snapshotProblem {
	seen := map[string]bool{}
	for j, id := range ids {
		f := fmt.Sprintf("%s[%d]", field, j)
		exists, mine := find(id)
		switch {
		case !exists:
			return &snapshotProblem{record: rec, field: f, problem: fmt.Sprintf("names %s %q, which the snapshot does not hold", kind, clip(id))}
		case !mine:
			return &snapshotProblem{record: rec, field: f, problem: fmt.Sprintf("names %s %q, of another %s", kind, id, parentKind)}
		case seen[id]:
			return &snapshotProblem{record: rec, field: f, problem: fmt.Sprintf("names %s %q again", kind, id)}
		}
		seen[id] = true
	}
	return nil
}

// badItemContent says what is wrong with an item's content for its type,
// or "".
func badItemContent(it *snapshotItem) string {
	switch it.Type {
	case profilesvc.ItemFile:
		if len(it.Content) > 0 {
			return "must be absent for a file item"
		}
	case profilesvc.ItemText, profilesvc.ItemJSON:
		if _, _, e := checkItemContent(it.Type, it.Content); e != nil {
			return strings.TrimPrefix(e.message, "field \"content\" ")
		}
	default:
		return fmt.Sprintf("belongs to an item of type %q: the type must be file, text or json", clip(string(it.Type)))
	}
	return ""
}

// checkAnalysisFields checks an analysis's own fields and its run: a
// status and a verification status of the document, the results a
// completed one has, durations a clock can count, and the workflow it
// runs with fit for the engine.
func (c *snapshotChecker) checkAnalysisFields(rec string, sa *snapshotAnalysis, a *profilesvc.Analysis) *snapshotProblem {
	switch {
	case !validAnalysisStatus(a.Status):
		return &snapshotProblem{record: rec, field: "analysis.status", problem: fmt.Sprintf("must be pending, processing, completed or failed, not %q", clip(string(a.Status)))}
	case !validVerification(a.VerificationStatus):
		return &snapshotProblem{record: rec, field: "analysis.verificationStatus", problem: fmt.Sprintf("must be pending_review, approved or rejected, not %q", clip(string(a.VerificationStatus)))}
	case a.RequestedAt.IsZero():
		return &snapshotProblem{record: rec, field: "analysis.requestedAt", problem: "is required"}
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
	case sa.DurationMs < 0 || sa.DurationMs > maxSnapshotDurationMs:
		return &snapshotProblem{record: rec, field: "durationMs", problem: fmt.Sprintf("must be from 0 to %d, got %d", int64(maxSnapshotDurationMs), sa.DurationMs)}
	case sa.ReportDelay < 0 || sa.ReportDelay > maxSnapshotDurationMs:
		return &snapshotProblem{record: rec, field: "reportDelayMs", problem: fmt.Sprintf("must be from 0 to %d, got %d", int64(maxSnapshotDurationMs), sa.ReportDelay)}
	}
	// The workflow the run was started with, which the engine runs with.
	w := sa.Input.Workflow
	if w.ID == "" {
		w.ID = c.profiles[a.ProfileID].WorkflowID
	}
	if err := w.Validate(); err != nil {
		return &snapshotProblem{record: rec, field: "input.Workflow", problem: err.Error()}
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

// badRecordID says what is wrong with a stored record's ID, or "": it
// must start with one of the prefixes and go on with at least one
// character, be at most 128 characters, and hold no character that would
// take it out of its path segment (/, ?, #, %, \) nor any space or
// control character.
func badRecordID(id string, prefixes ...string) string {
	ok := false
	for _, p := range prefixes {
		if strings.HasPrefix(id, p) && len(id) > len(p) {
			ok = true
		}
	}
	switch {
	case !ok:
		return fmt.Sprintf("must start with %s and go on, got %q", strings.Join(quoteAll(prefixes), " or "), clip(id))
	case len(id) > 128 || !utf8.ValidString(id):
		return fmt.Sprintf("must be at most 128 bytes of valid UTF-8, got %q", clip(id))
	case strings.ContainsFunc(id, func(r rune) bool {
		return strings.ContainsRune("/?#%\\", r) || unicode.IsSpace(r) || unicode.IsControl(r)
	}):
		return fmt.Sprintf("must hold no /, ?, #, %%, \\, space or control character, got %q", clip(id))
	}
	return ""
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// recordName names a record of a snapshot in a problem: its list, its
// index, and its ID when it has one.
func recordName(list string, i int, id string) string {
	if id == "" {
		return fmt.Sprintf("%s[%d]", list, i)
	}
	return fmt.Sprintf("%s[%d] (%s)", list, i, clip(id))
}
