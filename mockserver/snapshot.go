package mockserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/profilesvc/profilesvc-go"
)

// Snapshot is the whole state of a server's own namespace: its workflows,
// profiles, folders, items with their bytes, and analyses with their
// results, IDs and timestamps. A suite builds a fixture once, takes its
// Snapshot, and Restores it for each test; the binary's -state keeps one
// in a file across restarts. It encodes as JSON (MarshalJSON,
// UnmarshalJSON). Faults and the request record are not part of it.
type Snapshot struct {
	data snapshotData
}

// snapshotData is what a Snapshot holds, in the form it is encoded in.
type snapshotData struct {
	Version   int                `json:"version"`
	Taken     time.Time          `json:"taken"`
	Seq       int64              `json:"seq"`
	Workflows []Workflow         `json:"workflows"`
	Profiles  []snapshotProfile  `json:"profiles"`
	Folders   []snapshotFolder   `json:"folders"`
	Items     []snapshotItem     `json:"items"`
	Analyses  []snapshotAnalysis `json:"analyses"`
}

// snapshotVersion is the version of the encoding.
const snapshotVersion = 1

type snapshotProfile struct {
	ID             string         `json:"id"`
	WorkflowID     string         `json:"workflowId"`
	Name           string         `json:"name"`
	Description    string         `json:"description,omitempty"`
	Metadata       map[string]any `json:"metadata,omitempty"`
	LastAnalysisAt *time.Time     `json:"lastAnalysisAt,omitempty"`
	CreatedAt      time.Time      `json:"createdAt"`
	UpdatedAt      time.Time      `json:"updatedAt"`
	FolderIDs      []string       `json:"folderIds"`
	AnalysisIDs    []string       `json:"analysisIds"`
	Seq            int64          `json:"seq"`
}

type snapshotFolder struct {
	ID        string    `json:"id"`
	ProfileID string    `json:"profileId"`
	Name      string    `json:"name"`
	IsDefault bool      `json:"isDefault,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
	ItemIDs   []string  `json:"itemIds"`
	Seq       int64     `json:"seq"`
}

type snapshotItem struct {
	ID          string                `json:"id"`
	FolderID    string                `json:"folderId"`
	ProfileID   string                `json:"profileId"`
	Type        profilesvc.ItemType   `json:"type"`
	Name        string                `json:"name"`
	Content     json.RawMessage       `json:"content,omitempty"`
	Data        []byte                `json:"data,omitempty"`
	Text        string                `json:"text,omitempty"`
	Readable    bool                  `json:"readable"`
	ContentType string                `json:"contentType"`
	Detected    profilesvc.Detected   `json:"detected"`
	Metadata    map[string]any        `json:"metadata,omitempty"`
	Status      profilesvc.ItemStatus `json:"status"`
	ProcessedAt *time.Time            `json:"processedAt,omitempty"`
	CreatedAt   time.Time             `json:"createdAt"`
}

type snapshotAnalysis struct {
	Analysis    json.RawMessage `json:"analysis"`
	Seq         int64           `json:"seq"`
	Input       AnalysisInput   `json:"input"`
	DurationMs  int64           `json:"durationMs"`
	Stuck       bool            `json:"stuck,omitempty"`
	ReportDelay int64           `json:"reportDelayMs,omitempty"`
}

// MarshalJSON encodes the snapshot.
func (s *Snapshot) MarshalJSON() ([]byte, error) { return json.Marshal(s.data) }

// UnmarshalJSON decodes a snapshot that MarshalJSON encoded.
func (s *Snapshot) UnmarshalJSON(b []byte) error {
	var d snapshotData
	if err := json.Unmarshal(b, &d); err != nil {
		return fmt.Errorf("mockserver: reading a snapshot: %w", err)
	}
	if d.Version != snapshotVersion {
		return fmt.Errorf("mockserver: a snapshot of version %d, not %d", d.Version, snapshotVersion)
	}
	s.data = d
	return nil
}

// Snapshot returns the whole state of the server's own namespace. The
// snapshot shares no memory with the server.
func (s *Server) Snapshot() (*Snapshot, error) {
	d, err := s.Tenant.store.snapshot()
	if err != nil {
		return nil, err
	}
	// Deep copies, by a round trip through the encoding.
	b, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("mockserver: encoding a snapshot: %w", err)
	}
	var snap Snapshot
	if err := json.Unmarshal(b, &snap.data); err != nil {
		return nil, fmt.Errorf("mockserver: encoding a snapshot: %w", err)
	}
	return &snap, nil
}

// Restore replaces the state of the server's own namespace with the
// snapshot's; its faults and request record stay. An analysis that was
// running resumes on the server's clock where it stood: one due to have
// finished by now finishes at once. Long polls under way see their
// analysis as the snapshot has it.
func (s *Server) Restore(snap *Snapshot) error {
	if snap == nil {
		return fmt.Errorf("mockserver: Restore: no snapshot")
	}
	return s.Tenant.store.restore(snap.data)
}

// snapshot copies the records into a snapshot's form.
func (s *store) snapshot() (snapshotData, error) {
	s.tenantMu.Lock()
	defer s.tenantMu.Unlock()
	st := s.st
	d := snapshotData{Version: snapshotVersion, Taken: st.now(), Seq: st.seq}
	for _, id := range st.flowOrder {
		d.Workflows = append(d.Workflows, *st.workflows[id])
	}
	for _, p := range sortedRecords(st.profiles, func(p *profileRec) int64 { return p.seq }) {
		d.Profiles = append(d.Profiles, snapshotProfile{ID: p.id, WorkflowID: p.workflowID, Name: p.name, Description: p.description,
			Metadata: p.metadata, LastAnalysisAt: p.lastAnalysisAt, CreatedAt: p.createdAt, UpdatedAt: p.updatedAt,
			FolderIDs: p.folderIDs, AnalysisIDs: p.analysisIDs, Seq: p.seq})
	}
	for _, f := range sortedRecords(st.folders, func(f *folderRec) int64 { return f.seq }) {
		d.Folders = append(d.Folders, snapshotFolder{ID: f.id, ProfileID: f.profileID, Name: f.name, IsDefault: f.isDefault,
			CreatedAt: f.createdAt, UpdatedAt: f.updatedAt, ItemIDs: f.itemIDs, Seq: f.seq})
	}
	for _, id := range slices.Sorted(maps.Keys(st.items)) {
		it := st.items[id]
		d.Items = append(d.Items, snapshotItem{ID: it.id, FolderID: it.folderID, ProfileID: it.profileID, Type: it.typ, Name: it.name,
			Content: it.content, Data: it.data, Text: it.text, Readable: it.readable, ContentType: it.contentType,
			Detected: it.detected, Metadata: it.metadata, Status: it.status, ProcessedAt: it.processedAt, CreatedAt: it.createdAt})
	}
	for _, rec := range sortedRecords(st.analyses, func(a *analysisRec) int64 { return a.seq }) {
		raw, err := json.Marshal(analysisView(&rec.a))
		if err != nil {
			return snapshotData{}, fmt.Errorf("mockserver: encoding analysis %s: %w", rec.a.ID, err)
		}
		in := rec.input
		in.Items = slices.Clone(in.Items)
		for i := range in.Items {
			in.Items[i].Data = nil // the item's, restored from it
		}
		d.Analyses = append(d.Analyses, snapshotAnalysis{Analysis: raw, Seq: rec.seq, Input: in,
			DurationMs: rec.duration.Milliseconds(), Stuck: rec.stuck, ReportDelay: rec.reportDelay.Milliseconds()})
	}
	return d, nil
}

// sortedRecords returns a map's records in creation order.
func sortedRecords[R any](m map[string]R, seq func(R) int64) []R {
	out := slices.Collect(maps.Values(m))
	slices.SortFunc(out, func(a, b R) int { return int(seq(a) - seq(b)) })
	return out
}

// restore replaces the records with a snapshot's, stopping the runs of
// the analyses it had and arming those of the snapshot's running ones.
func (s *store) restore(d snapshotData) error {
	st, err := s.stateOf(d)
	if err != nil {
		return err
	}
	s.tenantMu.Lock()
	defer s.tenantMu.Unlock()
	for _, rec := range s.st.analyses {
		rec.stopRun()
		rec.notify()
	}
	st.ids, st.clock, st.run = s.st.ids, s.st.clock, s.st.run
	s.st = st
	for _, rec := range st.analyses {
		if !rec.a.Status.IsTerminal() {
			rec.timers = st.run.arm(rec)
		} else if rec.a.Status == profilesvc.AnalysisCompleted && rec.a.PrimaryReportID == nil {
			rec.timers = []func() bool{st.run.armReport(rec)}
		}
	}
	return nil
}

// stateOf builds the records of a snapshot, outside the lock.
func (s *store) stateOf(d snapshotData) (*state, error) {
	st := newState(d.Workflows, nil, nil, nil)
	st.seq = d.Seq
	for _, p := range d.Profiles {
		st.profiles[p.ID] = &profileRec{id: p.ID, workflowID: p.WorkflowID, name: p.Name, description: p.Description,
			metadata: p.Metadata, lastAnalysisAt: p.LastAnalysisAt, createdAt: p.CreatedAt, updatedAt: p.UpdatedAt,
			folderIDs: slices.Clone(p.FolderIDs), analysisIDs: slices.Clone(p.AnalysisIDs), seq: p.Seq}
	}
	for _, f := range d.Folders {
		st.folders[f.ID] = &folderRec{id: f.ID, profileID: f.ProfileID, name: f.Name, isDefault: f.IsDefault,
			createdAt: f.CreatedAt, updatedAt: f.UpdatedAt, itemIDs: slices.Clone(f.ItemIDs), seq: f.Seq}
	}
	for _, it := range d.Items {
		st.items[it.ID] = &itemRec{id: it.ID, folderID: it.FolderID, profileID: it.ProfileID, typ: it.Type, name: it.Name,
			content: it.Content, data: it.Data, text: it.Text, readable: it.Readable, contentType: it.ContentType,
			detected: it.Detected, metadata: it.Metadata, status: it.Status, processedAt: it.ProcessedAt, createdAt: it.CreatedAt}
	}
	for _, sa := range d.Analyses {
		rec := &analysisRec{seq: sa.Seq, input: sa.Input, duration: time.Duration(sa.DurationMs) * time.Millisecond,
			stuck: sa.Stuck, reportDelay: time.Duration(sa.ReportDelay) * time.Millisecond,
			changed: make(chan struct{}), reports: map[reportVariant]renderedReport{}}
		if err := json.Unmarshal(sa.Analysis, &rec.a); err != nil {
			return nil, fmt.Errorf("mockserver: restoring an analysis: %w", err)
		}
		rec.a.Raw = nil
		rec.input.Items = slices.Clone(rec.input.Items)
		for i, doc := range rec.input.Items {
			if it := st.items[doc.ID]; it != nil {
				rec.input.Items[i].Data = it.data
			}
		}
		st.analyses[rec.a.ID] = rec
	}
	return st, nil
}

// WithStateFile keeps the server's state in a file, as the binary's
// -state does: loaded at start when the file exists, written at shutdown
// and on POST /_mock/snapshot, each time whole, to a temporary file then
// renamed over it, so that a crash never leaves half a state.
func WithStateFile(path string) Option {
	return func(c *config) { c.stateFile = path }
}

// loadState restores the state file, if the server keeps one and it
// exists.
func (s *Server) loadState() error {
	if s.cfg.stateFile == "" {
		return nil
	}
	b, err := os.ReadFile(s.cfg.stateFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the state file: %w", err)
	}
	var snap Snapshot
	if err := snap.UnmarshalJSON(b); err != nil {
		return fmt.Errorf("the state file %s: %w", s.cfg.stateFile, err)
	}
	return s.Restore(&snap)
}

// saveState writes the state file, if the server keeps one.
func (s *Server) saveState() error {
	if s.cfg.stateFile == "" {
		return nil
	}
	d, err := s.Tenant.store.snapshot()
	if err != nil {
		return err
	}
	b, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("encoding the state: %w", err)
	}
	dir := filepath.Dir(s.cfg.stateFile)
	tmp, err := os.CreateTemp(dir, ".state-*.json.part")
	if err != nil {
		return fmt.Errorf("writing the state file: %w", err)
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), s.cfg.stateFile)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("writing the state file: %w", err)
	}
	return nil
}

// handleSaveState writes the state file now: POST /_mock/snapshot.
func handleSaveState(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	s := t.srv
	if t != s.Tenant {
		return errorf(http.StatusBadRequest, profilesvc.CodeValidation, "only the server's own key's namespace is kept in the state file")
	}
	if s.cfg.stateFile == "" {
		return errorf(http.StatusBadRequest, profilesvc.CodeValidation, "the server keeps no state file: start it with -state FILE (WithStateFile)")
	}
	if err := s.saveState(); err != nil {
		return errorf(http.StatusInternalServerError, profilesvc.CodeInternal, "%v", err)
	}
	writeJSON(w, http.StatusOK, map[string]string{"path": s.cfg.stateFile})
	return nil
}
