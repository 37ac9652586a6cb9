package mockserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
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
	// Facts are what the engine's sentences say, for the report in
	// either language.
	Facts engine.Facts `json:"facts,omitzero"`
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
