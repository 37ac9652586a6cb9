package mockserver

import (
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// The store holds a tenant's records and is the only code that takes the
// tenant's lock, in one place: withLock runs a function of the state
// under the lock and returns its answer (store.do does the same for an
// operation whose only answer is its error). Its files:
//
//   - store.go: the records, the state that holds them, the store and
//     withLock;
//   - store_profiles.go, store_folders.go, store_items.go,
//     store_analyses.go: the operations on each resource, as methods of
//     the state, which do the work with the lock held; then the few store
//     methods that several callers share (the test kit and a route), each
//     withLock around an operation and the view of its answer, and
//     runInput, which copies an analysis's input outside the lock;
//   - store_snapshot.go, store_seed.go: copying the records out, putting
//     a snapshot's back, loading a seed all or nothing, as store methods:
//     they check and decode outside the lock, and a restore (or a seed
//     that fails) puts a state in place whole.
//
// A handler (profiles.go, folders.go, ...) decodes a request, runs one
// operation, withLock(t.store, func(st *state) (T, *apiError) { return
// st.op(...) }) or a shared store method, and renders its answer; the
// test kit (kit.go) runs the same operations; views.go renders records.
// A function given to withLock returns views and copies, never records,
// and keeps no reference to the state, so that its answer is used
// without the lock. That is safe: records keep their maps and byte
// slices unchanged once stored (an update replaces them), so that a view
// can share them and be encoded after the lock is released.

// profileRec is a stored profile.
type profileRec struct {
	id, workflowID    string
	name, description string
	metadata          map[string]any // replaced, never changed in place
	lastAnalysisAt    *time.Time
	createdAt         time.Time
	updatedAt         time.Time
	folderIDs         []string // in creation order; the default first
	analysisIDs       []string // in creation order
	seq               int64    // creation order within the tenant
	version           int64    // bumped at every change, for the reports
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

// itemRec is a stored item. Its content, bytes, text and metadata are
// replaced, never changed in place, so that an analysis's input and a view
// can share them.
type itemRec struct {
	id, folderID, profileID string
	typ                     profilesvc.ItemType
	name                    string
	content                 json.RawMessage // text and json items; nil for files
	data                    []byte          // the original bytes
	text                    string          // the extracted text
	readable                bool            // the text could be read
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
	// stuck keeps the analysis processing until a test ends it
	// (mock:stuck); reportDelay is how long it is completed before its
	// report exists (mock:report-delay, WithReportDelay).
	stuck       bool
	reportDelay time.Duration
	timers      []func() bool
	changed     chan struct{} // closed and replaced at every change
	version     int64         // bumped at every change
	reports     map[reportVariant]renderedReport
	encoded     []byte       // cached JSON of a, cleared at every change
	facts       engine.Facts // the engine's facts of a's sentences, for the report
}

// renderedReport is a report kept with its analysis, with the version of
// the analysis and its profile it shows.
type renderedReport struct {
	version reportVersion
	pdf     []byte
}

// reportVersion names the state a report shows: the state's epoch and
// the versions of its analysis and of its profile (the profile's name is
// in the report).
type reportVersion struct{ epoch, analysis, profile int64 }

// reportVariant names one of the four PDF renderings of an analysis.
type reportVariant struct {
	locale  string
	rawData bool
}

// notify records a change of an analysis: long polls wake, and the cached
// JSON is dropped.
func (rec *analysisRec) notify() {
	rec.version++
	rec.encoded = nil
	close(rec.changed)
	rec.changed = make(chan struct{})
}

// stopRun stops the timers of an analysis's run.
func (rec *analysisRec) stopRun() {
	for _, stop := range rec.timers {
		stop()
	}
	rec.timers = nil
}

// runner arms the timers of an analysis's run on the server's clock; the
// store keeps the functions that stop them with the analysis.
type runner interface {
	// arm arms the rest of a running analysis's run, from its start.
	arm(rec *analysisRec) []func() bool
	// armReport arms the publication of a completed analysis's report,
	// after its delay.
	armReport(rec *analysisRec) func() bool
}

// state is one tenant's records, and what makes new ones: IDs, the clock
// and the arming of analysis runs. Its methods do the store's work; the
// store holds its lock while they run.
type state struct {
	workflows map[string]*Workflow
	flowOrder []string // the workflows' IDs, oldest first
	profiles  map[string]*profileRec
	folders   map[string]*folderRec
	items     map[string]*itemRec
	analyses  map[string]*analysisRec
	seq       int64 // the last creation sequence number given
	// epoch counts the states a store has held: each restore (and reset)
	// puts in place a state of the next epoch, so that what was begun
	// in an earlier one (an analysis's run, a report's rendering) never
	// lands in it, though its records have the same IDs and versions.
	epoch int64
	// started, once asked for, is closed (and dropped) when an analysis
	// starts, for AwaitAnalysis.
	started chan struct{}

	ids   *idGen
	clock Clock
	// run arms the timers of analyses' runs on the server's clock.
	run runner
}

func newState(workflows []Workflow, ids *idGen, clock Clock, run runner) *state {
	st := &state{
		workflows: map[string]*Workflow{},
		profiles:  map[string]*profileRec{},
		folders:   map[string]*folderRec{},
		items:     map[string]*itemRec{},
		analyses:  map[string]*analysisRec{},
		ids:       ids,
		clock:     clock,
		run:       run,
	}
	for _, w := range workflows {
		st.putWorkflow(w)
	}
	return st
}

// putWorkflow adds a workflow, or replaces the one with its ID in its
// place.
func (st *state) putWorkflow(w Workflow) {
	wc := w.Clone()
	if st.workflows[wc.ID] == nil {
		st.flowOrder = append(st.flowOrder, wc.ID)
	}
	st.workflows[wc.ID] = &wc
}

// now returns the server's time in UTC, to the millisecond.
func (st *state) now() time.Time { return st.clock.Now().UTC().Truncate(time.Millisecond) }

// nextSeq returns the next creation sequence number.
func (st *state) nextSeq() int64 {
	st.seq++
	return st.seq
}

// newID returns a new ID with the prefix that no record of the state
// holds. A seeded generator can draw one that exists (an ID a seed fixed,
// or one of a restored state's), and a new record must never take the
// place of another.
func (st *state) newID(prefix string) string {
	for {
		if id := st.ids.next(prefix); !st.holds(id) {
			return id
		}
	}
}

// holds reports whether a record of the state has the ID.
func (st *state) holds(id string) bool {
	return st.profiles[id] != nil || st.folders[id] != nil || st.items[id] != nil || st.analyses[id] != nil
}

// itemsCount counts a profile's items across its folders.
func (st *state) itemsCount(p *profileRec) int {
	n := 0
	for _, fid := range p.folderIDs {
		if f := st.folders[fid]; f != nil {
			n += len(f.itemIDs)
		}
	}
	return n
}

// runningAnalysis returns the profile's pending or processing analysis.
func (st *state) runningAnalysis(p *profileRec) *analysisRec {
	for _, id := range p.analysisIDs {
		if a := st.analyses[id]; a != nil && !a.a.Status.IsTerminal() {
			return a
		}
	}
	return nil
}

// clone copies the maps of the state and the lists of its profiles and
// folders, for a seed that may have to be undone: a seed adds records and
// appends to those lists, and changes nothing else.
func (st *state) clone() *state {
	c := *st
	c.workflows = maps.Clone(st.workflows)
	c.flowOrder = slices.Clone(st.flowOrder)
	c.items = maps.Clone(st.items)
	c.analyses = maps.Clone(st.analyses)
	c.profiles = make(map[string]*profileRec, len(st.profiles))
	for k, v := range st.profiles {
		pc := *v
		pc.folderIDs = slices.Clone(v.folderIDs)
		c.profiles[k] = &pc
	}
	c.folders = make(map[string]*folderRec, len(st.folders))
	for k, v := range st.folders {
		fc := *v
		fc.itemIDs = slices.Clone(v.itemIDs)
		c.folders[k] = &fc
	}
	return &c
}

// store is a tenant's records behind the tenant's lock. Its operations
// are the state's methods, run under the lock by withLock; its own
// methods are those several callers share and those that work outside
// the lock too.
type store struct {
	// tenantMu is the tenant's lock: only withLock takes it.
	tenantMu sync.Mutex
	st       *state
	// base is what a reset returns to: the server's workflows.
	base []Workflow
}

func newStore(base []Workflow, ids *idGen, clock Clock, run runner) *store {
	return &store{st: newState(base, ids, clock, run), base: base}
}

// withLock runs f on the store's state under the tenant's lock and
// returns its answer. It is the one place the lock is taken: every
// operation of the store, of the handlers and of the test kit goes
// through it. A store method's f may put a new state in place (s.st), as
// a restore does: it holds the lock.
func withLock[T any](s *store, f func(st *state) (T, *apiError)) (T, *apiError) {
	s.tenantMu.Lock()
	defer s.tenantMu.Unlock()
	return f(s.st)
}

// do runs f on the state under the tenant's lock, for an operation whose
// only answer is its error.
func (s *store) do(f func(st *state) *apiError) *apiError {
	_, e := withLock(s, func(st *state) (struct{}, *apiError) { return struct{}{}, f(st) })
	return e
}

// reset empties the store but for the server's workflows: it restores
// a snapshot of them alone. The analyses' runs stop, and long polls wake
// to find their analysis gone.
func (s *store) reset() {
	// A snapshot of nothing but workflows, already valid, cannot be
	// refused.
	_ = s.restore(snapshotData{Workflows: s.base}, false, false)
}

// stopRuns stops every analysis run, when the server closes.
func (s *store) stopRuns() {
	_ = s.do(func(st *state) *apiError {
		for _, rec := range st.analyses {
			rec.stopRun()
		}
		return nil
	})
}

// workflows returns the workflows, oldest first.
func (s *store) workflows() []Workflow {
	out, _ := withLock(s, func(st *state) ([]Workflow, *apiError) {
		out := make([]Workflow, 0, len(st.flowOrder))
		for _, id := range st.flowOrder {
			out = append(out, st.workflows[id].Clone())
		}
		return out, nil
	})
	return out
}

// cloneMap deep-copies a JSON object, for values that leave the store for
// a caller who may change them, and for those that enter it from one.
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
