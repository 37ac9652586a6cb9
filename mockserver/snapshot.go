package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// Snapshot is the whole state of a server's own namespace: its workflows,
// profiles, folders, items with their bytes, and analyses with their
// results, IDs and timestamps. A suite builds a fixture once, takes its
// Snapshot, and Restores it for each test; the binary's -state keeps one
// in a file across restarts. It encodes as JSON (MarshalJSON,
// UnmarshalJSON). Faults and the request record are not part of it.
type Snapshot struct {
	data snapshotData
	// decoded is true for a snapshot UnmarshalJSON made: one from outside
	// the server, which Restore holds to the document whole.
	decoded bool
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
func (s *Snapshot) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	if err := writeSnapshot(&buf, &s.data); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeSnapshot encodes d to w record by record, as json.Marshal would
// encode it whole (with a newline after each record): the encoding of the
// largest record is the most it holds in memory at once, not the
// encoding of the whole state.
func writeSnapshot(w io.Writer, d *snapshotData) error {
	sw := &snapshotWriter{w: w, enc: json.NewEncoder(w)}
	head := struct {
		Version int       `json:"version"`
		Taken   time.Time `json:"taken"`
		Seq     int64     `json:"seq"`
	}{d.Version, d.Taken, d.Seq}
	b, err := json.Marshal(head)
	if err != nil {
		return fmt.Errorf("mockserver: encoding a snapshot: %w", err)
	}
	sw.write(string(b[:len(b)-1])) // the object stays open for the lists
	writeRecords(sw, "workflows", d.Workflows)
	writeRecords(sw, "profiles", d.Profiles)
	writeRecords(sw, "folders", d.Folders)
	writeRecords(sw, "items", d.Items)
	writeRecords(sw, "analyses", d.Analyses)
	sw.write("}\n")
	return sw.err
}

// snapshotWriter writes a snapshot's encoding, keeping the first error.
type snapshotWriter struct {
	w   io.Writer
	enc *json.Encoder
	err error
}

func (sw *snapshotWriter) write(s string) {
	if sw.err == nil {
		_, sw.err = io.WriteString(sw.w, s)
	}
}

func (sw *snapshotWriter) encode(v any) {
	if sw.err == nil {
		if err := sw.enc.Encode(v); err != nil {
			sw.err = fmt.Errorf("mockserver: encoding a snapshot: %w", err)
		}
	}
}

// writeRecords writes a list of records as the member name of the
// snapshot's object, one record at a time.
func writeRecords[T any](sw *snapshotWriter, name string, records []T) {
	sw.write(`,"` + name + `":[`)
	for i := range records {
		if i > 0 {
			sw.write(",")
		}
		sw.encode(&records[i])
	}
	sw.write("]")
}

// UnmarshalJSON decodes a snapshot that MarshalJSON encoded.
func (s *Snapshot) UnmarshalJSON(b []byte) error {
	var d snapshotData
	if err := json.Unmarshal(b, &d); err != nil {
		return fmt.Errorf("mockserver: reading a snapshot: %w", err)
	}
	if d.Version != snapshotVersion {
		return fmt.Errorf("mockserver: a snapshot of version %d, not %d", d.Version, snapshotVersion)
	}
	s.data, s.decoded = d, true
	return nil
}

// Snapshot returns the whole state of the server's own namespace. The
// snapshot and the server are independent: a later change of either never
// shows in the other. (They share the bytes and maps that neither ever
// changes in place, such as an item's bytes, so that a snapshot costs
// little memory of its own.)
func (s *Server) Snapshot() (*Snapshot, error) {
	return &Snapshot{data: s.Tenant.store.snapshot()}, nil
}

// Restore replaces the state of the server's own namespace with the
// snapshot's; its faults and request record stay. An analysis that was
// running resumes on the server's clock where it stood: one due to have
// finished by now finishes at once. Long polls under way see their
// analysis as the snapshot has it.
//
// The snapshot is checked as a whole first, and refused, the server's
// state unchanged, unless it holds together: at least one workflow (so
// Restore(&Snapshot{}) is refused), each valid as WithWorkflows requires;
// records with well-formed IDs of their kind, none twice; every reference
// (a folder's profile, an item's folder, an analysis's profile, and the
// lists that name them) there and returned; analyses in states the
// interface document names; each field by the rules the API applies to
// it. A snapshot decoded from JSON (UnmarshalJSON, a state file) also has
// each analysis held to the Analysis schema of api/openapi.yaml. The
// error names the first problem, its record and its field. An analysis
// run, or a report rendering, begun before the Restore never lands in the
// restored state.
//
// Under WithIDSeed, the server's IDs (and request IDs) then go on from a
// sequence of the snapshot's own, the same for the same seed and
// snapshot, so that no ID the snapshot holds is drawn again; and no new
// record ever takes an ID that one holds.
func (s *Server) Restore(snap *Snapshot) error {
	if snap == nil {
		return fmt.Errorf("mockserver: Restore: no snapshot")
	}
	if err := s.Tenant.store.restore(snap.data, true, snap.decoded); err != nil {
		return err
	}
	s.reqIDs.moveOn(snap.data.digest())
	return nil
}
