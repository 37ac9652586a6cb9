package mockserver

import (
	"encoding/json"
	"sort"
	"sync"
	"time"

	"github.com/profilesvc/profilesvc-go"
)

// profileRec is a stored profile.
type profileRec struct {
	id, workflowID    string
	name, description string
	metadata          map[string]any
	lastAnalysisAt    *time.Time
	createdAt         time.Time
	updatedAt         time.Time
	folderIDs         []string // in creation order; the default first
	analysisIDs       []string // in creation order
	seq               int64    // creation order within the tenant
}

// folderRec is a stored folder.
type folderRec struct {
	id, profileID, name string
	isDefault           bool
	createdAt           time.Time
	updatedAt           time.Time
	itemIDs             []string // in creation order
	seq                 int64    // creation order within the tenant
	encoded             []byte   // cached single-folder answer; see changed
}

// changed drops the folder's cached answer, after a change to the folder
// or to the summary of one of its items.
func (f *folderRec) changed() { f.encoded = nil }

// itemRec is a stored item.
type itemRec struct {
	id, folderID, profileID string
	typ                     profilesvc.ItemType
	name                    string
	content                 json.RawMessage // text and json items; nil for files
	data                    []byte          // the original bytes
	text                    string          // the extracted text
	contentType             string
	detected                profilesvc.Detected
	metadata                map[string]any
	status                  profilesvc.ItemStatus
	processedAt             *time.Time
	createdAt               time.Time
}

// analysisRec is a stored analysis with what runs it.
type analysisRec struct {
	a        profilesvc.Analysis
	seq      int64 // creation order within the tenant
	input    AnalysisInput
	duration time.Duration
	timers   []func() bool
	changed  chan struct{} // closed and replaced at every change
	reports  map[reportVariant][]byte
	encoded  []byte // cached JSON of a, cleared at every change
}

// reportVariant names one of the four PDF renderings of an analysis.
type reportVariant struct {
	locale  string
	rawData bool
}

// state is one namespace's data. The namespace's mutex guards it.
type state struct {
	workflows map[string]*Workflow
	profiles  map[string]*profileRec
	folders   map[string]*folderRec
	items     map[string]*itemRec
	analyses  map[string]*analysisRec
}

func newState(workflows []Workflow) *state {
	s := &state{
		workflows: map[string]*Workflow{},
		profiles:  map[string]*profileRec{},
		folders:   map[string]*folderRec{},
		items:     map[string]*itemRec{},
		analyses:  map[string]*analysisRec{},
	}
	for _, w := range workflows {
		wc := w.Clone()
		s.workflows[wc.ID] = &wc
	}
	return s
}

// itemsCount counts a folder's items.
func (f *folderRec) itemsCount() int { return len(f.itemIDs) }

// itemsCount counts a profile's items across its folders.
func (s *state) itemsCount(p *profileRec) int {
	n := 0
	for _, fid := range p.folderIDs {
		if f := s.folders[fid]; f != nil {
			n += f.itemsCount()
		}
	}
	return n
}

// runningAnalysis returns the profile's pending or processing analysis.
func (s *state) runningAnalysis(p *profileRec) *analysisRec {
	for _, id := range p.analysisIDs {
		if a := s.analyses[id]; a != nil && !a.a.Status.IsTerminal() {
			return a
		}
	}
	return nil
}

// removeString deletes the first v from list.
func removeString(list []string, v string) []string {
	for i, x := range list {
		if x == v {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return list
}

// sortedKeys returns a map's keys in order, for deterministic output.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// cloneMap deep-copies a JSON object, so that stored data is never shared
// with callers.
func cloneMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// Tenant is one namespace of the server: its profiles, folders, items and
// analyses, its injected faults and its record of requests. A server has
// one, unless it is multi-tenant (WithMultiTenant), where every API key has
// its own. Its methods are the test kit: they arrange and inspect state
// without HTTP. It is safe for concurrent use.
type Tenant struct {
	srv *Server
	mu  sync.Mutex
	st  *state
	// faults and record have locks of their own, so that the middleware
	// does not contend with the handlers.
	faults *faultSet
	record *requestRing
	seq    int64 // the last creation sequence number given
}
