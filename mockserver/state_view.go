package mockserver

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/profilesvc/profilesvc-go"
)

// Bounds of GET /_mock/state, so that a namespace of any size answers in
// little time: the newest profiles, and the first items of each folder
// (itemsCount gives the whole).
const (
	stateMaxProfiles          = 200
	stateMaxFoldersPerProfile = 100
	stateMaxItemsPerFolder    = 200
	// stateMaxMetadata bounds a profile's metadata as encoded: a larger one
	// is left out, and metadataTruncated says so.
	stateMaxMetadata = 2 << 10
)

// stateView is the answer of GET /_mock/state: a namespace as the
// dashboard shows it. Its version names its content, so that a client
// polling with If-None-Match is answered 304 while nothing changed.
type stateView struct {
	Version       string         `json:"version"`
	Workflows     []Workflow     `json:"workflows"`
	TotalProfiles int            `json:"totalProfiles"`
	Truncated     bool           `json:"truncated"`
	Profiles      []stateProfile `json:"profiles"`
}

type stateProfile struct {
	ID          string         `json:"id"`
	WorkflowID  string         `json:"workflowId"`
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	// MetadataTruncated is true when the metadata is larger than the
	// state shows (stateMaxMetadata), and left out.
	MetadataTruncated bool `json:"metadataTruncated,omitempty"`
	ItemsCount        int  `json:"itemsCount"`
	// FoldersCount counts the profile's folders, of which Folders holds
	// the first stateMaxFoldersPerProfile.
	FoldersCount   int             `json:"foldersCount"`
	LastAnalysisAt *time.Time      `json:"lastAnalysisAt"`
	CreatedAt      time.Time       `json:"createdAt"`
	UpdatedAt      time.Time       `json:"updatedAt"`
	Folders        []stateFolder   `json:"folders"`
	Analyses       []stateAnalysis `json:"analyses"`
}

type stateFolder struct {
	ID         string      `json:"id"`
	Name       string      `json:"name"`
	IsDefault  bool        `json:"isDefault"`
	ItemsCount int         `json:"itemsCount"`
	CreatedAt  time.Time   `json:"createdAt"`
	UpdatedAt  time.Time   `json:"updatedAt"`
	Items      []stateItem `json:"items"`
}

type stateItem struct {
	ID          string                `json:"id"`
	Type        profilesvc.ItemType   `json:"type"`
	Name        string                `json:"name"`
	ContentType string                `json:"contentType"`
	SizeBytes   int64                 `json:"sizeBytes"`
	Status      profilesvc.ItemStatus `json:"status"`
	CreatedAt   time.Time             `json:"createdAt"`
}

type stateAnalysis struct {
	ID                 string                        `json:"id"`
	FolderID           *string                       `json:"folderId"`
	Status             profilesvc.AnalysisStatus     `json:"status"`
	VerificationStatus profilesvc.VerificationStatus `json:"verificationStatus"`
	RiskLevel          *profilesvc.RiskLevel         `json:"riskLevel"`
	RiskScore          *float64                      `json:"riskScore"`
	RequestedAt        time.Time                     `json:"requestedAt"`
	CompletedAt        *time.Time                    `json:"completedAt"`
	Error              *string                       `json:"error"`
	PrimaryReportID    *string                       `json:"primaryReportId"`
}

// dashboardState renders the state's view, without its version. Like
// every view it shares the records' maps, which are never changed in
// place.
func (st *state) dashboardState() stateView {
	v := stateView{Workflows: make([]Workflow, 0, len(st.flowOrder)), Profiles: []stateProfile{}}
	for _, id := range st.flowOrder {
		v.Workflows = append(v.Workflows, st.workflows[id].Clone())
	}
	profiles := make([]*profileRec, 0, len(st.profiles))
	for _, p := range st.profiles {
		profiles = append(profiles, p)
	}
	// Newest first.
	slices.SortFunc(profiles, func(a, b *profileRec) int { return int(b.seq - a.seq) })
	v.TotalProfiles = len(profiles)
	if len(profiles) > stateMaxProfiles {
		profiles, v.Truncated = profiles[:stateMaxProfiles], true
	}
	for _, p := range profiles {
		v.Profiles = append(v.Profiles, st.stateProfile(p))
	}
	return v
}

func (st *state) stateProfile(p *profileRec) stateProfile {
	folderIDs := p.folderIDs[:min(len(p.folderIDs), stateMaxFoldersPerProfile)]
	out := stateProfile{
		ID: p.id, WorkflowID: p.workflowID, Name: p.name, Description: p.description,
		ItemsCount: st.itemsCount(p), FoldersCount: len(p.folderIDs), LastAnalysisAt: p.lastAnalysisAt, CreatedAt: p.createdAt, UpdatedAt: p.updatedAt,
		Folders: make([]stateFolder, 0, len(folderIDs)), Analyses: make([]stateAnalysis, 0, len(p.analysisIDs)),
	}
	out.Metadata, out.MetadataTruncated = boundedMetadata(p.metadata)
	for _, fid := range folderIDs {
		f := st.folders[fid]
		sf := stateFolder{
			ID: f.id, Name: f.name, IsDefault: f.isDefault, ItemsCount: len(f.itemIDs),
			CreatedAt: f.createdAt, UpdatedAt: f.updatedAt, Items: make([]stateItem, 0, min(len(f.itemIDs), stateMaxItemsPerFolder)),
		}
		for _, iid := range f.itemIDs[:min(len(f.itemIDs), stateMaxItemsPerFolder)] {
			it := st.items[iid]
			sf.Items = append(sf.Items, stateItem{
				ID: it.id, Type: it.typ, Name: it.name, ContentType: it.contentType,
				SizeBytes: int64(len(it.data)), Status: it.status, CreatedAt: it.createdAt,
			})
		}
		out.Folders = append(out.Folders, sf)
	}
	for _, aid := range slices.Backward(p.analysisIDs) {
		a := &st.analyses[aid].a
		sa := stateAnalysis{
			ID: a.ID, FolderID: a.FolderID, Status: a.Status, VerificationStatus: a.VerificationStatus,
			RequestedAt: a.RequestedAt, CompletedAt: a.CompletedAt, Error: a.Error, PrimaryReportID: a.PrimaryReportID,
		}
		if ra := a.RiskAssessment; ra != nil {
			level, score := ra.RiskLevel, ra.RiskScore
			sa.RiskLevel, sa.RiskScore = &level, &score
		}
		out.Analyses = append(out.Analyses, sa)
	}
	return out
}

// boundedMetadata returns m when its encoding is within stateMaxMetadata,
// else nothing and true. It stops encoding once past the bound.
func boundedMetadata(m map[string]any) (map[string]any, bool) {
	if len(m) == 0 {
		return m, false
	}
	w := &boundedWriter{left: stateMaxMetadata}
	if err := json.NewEncoder(w).Encode(m); err != nil {
		return nil, true
	}
	return m, false
}

// boundedWriter takes at most left bytes, then fails every write.
type boundedWriter struct{ left int }

var errPastBound = errors.New("past the bound")

func (w *boundedWriter) Write(p []byte) (int, error) {
	if len(p) > w.left {
		w.left = -1
		return 0, errPastBound
	}
	w.left -= len(p)
	return len(p), nil
}

// handleGetState answers the namespace's state for the dashboard. Like
// every control route it is not recorded and faults do not touch it, so
// that polling it changes nothing it shows. Its ETag is a digest of the
// answer: If-None-Match with it is answered 304.
func handleGetState(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	v, _ := withLock(t.store, func(st *state) (stateView, *apiError) { return st.dashboardState(), nil })
	body := encodeJSON(v)
	if body == nil {
		return errorf(http.StatusInternalServerError, profilesvc.CodeInternal, "the state could not be encoded")
	}
	// The version is the digest of the encoding without it, which begins
	// with an empty version (the view's first field): the version goes
	// into that place, so that the answer is encoded once.
	sum := sha256.Sum256(body)
	version := base64.RawURLEncoding.EncodeToString(sum[:12])
	etag := `"` + version + `"`
	w.Header().Set("ETag", etag)
	w.Header().Set("Cache-Control", "no-cache")
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	rest, ok := bytes.CutPrefix(body, []byte(`{"version":""`))
	if !ok {
		return errorf(http.StatusInternalServerError, profilesvc.CodeInternal, "the state's encoding does not begin with its version")
	}
	writeRawJSON(w, http.StatusOK, append([]byte(`{"version":"`+version+`"`), rest...))
	return nil
}

// etagMatches reports whether an If-None-Match header names etag (or is
// "*"), by the weak comparison RFC 9110 asks of it.
func etagMatches(header, etag string) bool {
	for tag := range strings.SplitSeq(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == etag || tag == "*" {
			return true
		}
	}
	return false
}

// handleGetSnapshot answers the namespace as a Snapshot, in JSON: what
// PUT /_mock/snapshot and Restore take back. It is written record by
// record as it is encoded, so that a client that reads slowly holds one
// record's encoding, not the whole namespace's; a failure once it has
// begun cuts the answer rather than end it looking whole.
func handleGetSnapshot(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	d := t.store.snapshot()
	h := w.Header()
	h.Set("Content-Type", jsonContentType)
	h.Set("Content-Disposition", `attachment; filename="profilesvc-mock-snapshot.json"`)
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return nil
	}
	if err := writeSnapshot(w, &d); err != nil {
		panic(http.ErrAbortHandler)
	}
	return nil
}

// handleRestoreSnapshot replaces the namespace with a Snapshot sent as
// JSON, checked whole first as Restore checks one decoded from JSON: one
// that does not hold together is refused, naming its first problem, and
// the state stays as it was. Its body takes memory from the budget of
// uploads under way, as a seed's does, and is at most as large.
func handleRestoreSnapshot(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	// Into the encoding's own type, so that a member it does not have is
	// named and refused, as in every body the mock reads.
	var d snapshotData
	release, e := decodeLargeJSON(t, r, &d)
	defer release()
	if e != nil {
		return e
	}
	if d.Version != snapshotVersion {
		return validation("field \"version\" must be %d, the version of the snapshots this mock writes, not %d", snapshotVersion, d.Version)
	}
	// Checked as one decoded from JSON is (Snapshot.decoded).
	if err := t.store.restore(d, true, true); err != nil {
		return invalid(err)
	}
	if t == t.srv.Tenant {
		t.srv.reqIDs.moveOn(d.digest())
	}
	noContent(w)
	return nil
}
