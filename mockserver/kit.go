package mockserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/profilesvc/profilesvc-go"
)

// This file is the test kit: the Go API that arranges and inspects a
// tenant's state without HTTP. Each method calls one operation of the
// store, the one a route of the API calls, and hands its caller copies
// that it may change. Errors it returns carry the message the HTTP API
// would, and match the profilesvc sentinels with errors.Is
// (profilesvc.ErrProfileNotFound, ...).

// kitError returns a store error as an error, or nil.
func kitError(e *apiError) error {
	if e == nil {
		return nil
	}
	return e
}

// AddWorkflow adds a workflow, or replaces the one with its ID.
func (t *Tenant) AddWorkflow(w Workflow) error {
	if err := w.Validate(); err != nil {
		return err
	}
	return kitError(t.store.do(func(st *state) *apiError { st.putWorkflow(w); return nil }))
}

// Workflows returns the tenant's workflows, oldest first, as every
// listing of the kit does.
func (t *Tenant) Workflows() []Workflow { return t.store.workflows() }

// CreateProfile creates a profile with its default folder, as the API
// does.
func (t *Tenant) CreateProfile(workflowID string, params profilesvc.CreateProfileParams) (*profilesvc.Profile, error) {
	p, e := t.store.createProfile(profileSpec{workflowID: workflowID, name: params.Name,
		description: params.Description, metadata: cloneMap(params.Metadata)})
	if e != nil {
		return nil, e
	}
	return ownProfile(p), nil
}

// CreateFolder creates a folder in a profile.
func (t *Tenant) CreateFolder(profileID, name string) (*profilesvc.Folder, error) {
	f, e := t.store.createFolder(profileID, name)
	if e != nil {
		return nil, e
	}
	return &f, nil
}

// AddItem adds an item to a folder: a text, a JSON value or a file's bytes
// as spec says, with the status it gives (ACTIVE by default).
func (t *Tenant) AddItem(folderID string, spec SeedItem) (*profilesvc.Item, error) {
	is, e := seedItemSpec(spec)
	if e == nil {
		e = is.prepare()
	}
	if e != nil {
		return nil, e
	}
	it, e := t.store.addItem(folderID, is, t.srv.URL)
	if e != nil {
		return nil, e
	}
	return ownItem(it), nil
}

// AddTextItem adds a text item to a folder.
func (t *Tenant) AddTextItem(folderID, name, text string) (*profilesvc.Item, error) {
	content, _ := json.Marshal(text)
	return t.AddItem(folderID, SeedItem{Type: profilesvc.ItemText, Name: name, Content: content})
}

// AddFileItem adds a file item to a folder.
func (t *Tenant) AddFileItem(folderID, name string, data []byte) (*profilesvc.Item, error) {
	return t.AddItem(folderID, SeedItem{Type: profilesvc.ItemFile, Name: name, Data: data})
}

// Profile returns a profile as GET would, plus its folders (which only
// CreateProfile's answer lists), so that DefaultFolder works on it.
func (t *Tenant) Profile(id string) (*profilesvc.Profile, bool) {
	p, e := t.store.profile(id, true)
	if e != nil {
		return nil, false
	}
	return ownProfile(p), true
}

// Profiles returns every profile of the tenant, oldest first, as every
// listing of the kit does.
func (t *Tenant) Profiles() []*profilesvc.Profile {
	ps := t.store.profiles()
	for i, p := range ps {
		ps[i] = ownProfile(p)
	}
	return ps
}

// Folder returns a folder with its item summaries.
func (t *Tenant) Folder(id string) (*profilesvc.Folder, bool) {
	f, e := t.store.folder(id)
	return f, e == nil
}

// Item returns an item in full.
func (t *Tenant) Item(id string) (*profilesvc.Item, bool) {
	it, e := t.store.item(id, t.srv.URL)
	if e != nil {
		return nil, false
	}
	return ownItem(it), true
}

// ItemBytes returns an item's stored bytes: a file's upload, a text's
// text, a JSON item's JSON.
func (t *Tenant) ItemBytes(id string) ([]byte, bool) {
	_, data, e := t.store.artifact(id, true)
	if e != nil {
		return nil, false
	}
	return slices.Clone(data), true
}

// ItemText returns the text extracted from an item, as its url serves it.
func (t *Tenant) ItemText(id string) (string, bool) {
	_, text, e := t.store.artifact(id, false)
	return string(text), e == nil
}

// SetItemStatus sets an item's status, to make an item that analyses
// refuse (anything but ACTIVE).
func (t *Tenant) SetItemStatus(id string, status profilesvc.ItemStatus) error {
	_, e := t.store.setItemStatus(id, status, t.srv.URL)
	return kitError(e)
}

// Analysis returns an analysis as GET would.
func (t *Tenant) Analysis(id string) (*profilesvc.Analysis, bool) {
	b, e := t.store.analysisJSON(id)
	if e != nil {
		return nil, false
	}
	var a profilesvc.Analysis
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, false
	}
	return &a, true
}

// Analyses returns a profile's analyses, oldest first, as every listing
// of the kit does.
func (t *Tenant) Analyses(profileID string) []*profilesvc.Analysis {
	var out []*profilesvc.Analysis
	ids, _ := t.store.profileAnalysisIDs(profileID)
	for _, id := range ids {
		if a, ok := t.Analysis(id); ok {
			out = append(out, a)
		}
	}
	return out
}

// AwaitAnalysis waits until the profile has an analysis, as one started by
// the code under test in the background, and returns the newest: a test
// waits for the start itself, never for a fixed time. When ctx ends first,
// the error matches ctx's error.
func (t *Tenant) AwaitAnalysis(ctx context.Context, profileID string) (*profilesvc.Analysis, error) {
	for {
		ids, started := t.store.profileAnalysisIDs(profileID)
		if len(ids) > 0 {
			if a, ok := t.Analysis(ids[len(ids)-1]); ok {
				return a, nil
			}
			continue // deleted meanwhile
		}
		select {
		case <-started:
		case <-ctx.Done():
			return nil, fmt.Errorf("mockserver: waiting for an analysis of profile %q: %w", profileID, ctx.Err())
		}
	}
}

// SetVerificationStatus records a person's verdict on an analysis.
func (t *Tenant) SetVerificationStatus(id string, vs profilesvc.VerificationStatus) error {
	return kitError(t.store.do(func(st *state) *apiError { return st.setVerification(id, vs) }))
}

// InjectFault adds a fault and returns its ID.
func (t *Tenant) InjectFault(f Fault) (string, error) {
	added, err := t.faults.add(f)
	if err != nil {
		return "", invalid(err)
	}
	return added.ID, nil
}

// RemoveFault removes one fault; it reports whether there was one.
func (t *Tenant) RemoveFault(id string) bool { return t.faults.remove(id) }

// ClearFaults removes every fault.
func (t *Tenant) ClearFaults() { t.faults.clear() }

// Faults returns the active faults, oldest first, with Times counting what
// is left.
func (t *Tenant) Faults() []Fault { return t.faults.list() }

// Requests returns the recorded requests, oldest first (the newest
// WithRequestRecordSize of them), with the API key redacted.
func (t *Tenant) Requests() []RecordedRequest { return t.record.all() }

// RequestsDropped returns how many requests the record dropped, the
// oldest first, to keep within its bounds (WithRequestRecordSize,
// WithRequestRecordBytes) since it was last cleared.
func (t *Tenant) RequestsDropped() int { return t.record.droppedCount() }

// ClearRequests empties the request record. A request under way as it
// runs (a held long poll, a delayed one) stays out of the record when it
// is answered: the record holds only requests that arrived after it.
func (t *Tenant) ClearRequests() { t.record.reset() }

// Reset empties the tenant: profiles, folders, items, analyses, faults and
// the request record go, workflows return to the server's own (those of
// WithWorkflows and WithSeed), and long polls under way answer 404. As
// with ClearRequests, requests under way are not recorded when they are
// answered: the record holds only the requests that arrive after Reset.
func (t *Tenant) Reset() {
	t.store.reset()
	t.faults.clear()
	t.record.reset()
}

// LoadSeed adds a seed's workflows and profiles to the tenant. It checks
// the whole seed first: on an error nothing is loaded.
func (t *Tenant) LoadSeed(s *Seed) error {
	if s == nil {
		return nil
	}
	return t.store.loadSeed(s)
}

// ownProfile copies what a profile view shares with the store, for a
// caller who may change it.
func ownProfile(p *profilesvc.Profile) *profilesvc.Profile {
	c := *p
	c.Metadata = cloneMap(p.Metadata)
	c.Folders = slices.Clone(p.Folders)
	return &c
}

// ownItem copies what an item view shares with the store.
func ownItem(it *profilesvc.Item) *profilesvc.Item {
	c := *it
	c.Metadata = cloneMap(it.Metadata)
	if c.Metadata == nil {
		c.Metadata = map[string]any{}
	}
	c.Content = slices.Clone(it.Content)
	return &c
}
