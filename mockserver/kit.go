package mockserver

import (
	"encoding/json"
	"sort"

	"github.com/profilesvc/profilesvc-go"
)

// This file is the test kit: the Go API that arranges and inspects a
// tenant's state without HTTP. Errors it returns carry the message the
// HTTP API would.

// AddWorkflow adds a workflow, or replaces the one with its ID.
func (t *Tenant) AddWorkflow(w Workflow) error {
	if err := w.Validate(); err != nil {
		return err
	}
	wc := w.Clone()
	t.mu.Lock()
	t.st.workflows[wc.ID] = &wc
	t.mu.Unlock()
	return nil
}

// Workflows returns the tenant's workflows, by ID.
func (t *Tenant) Workflows() []Workflow {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Workflow, 0, len(t.st.workflows))
	for _, id := range sortedKeys(t.st.workflows) {
		out = append(out, t.st.workflows[id].Clone())
	}
	return out
}

// CreateProfile creates a profile with its default folder, as the API
// does.
func (t *Tenant) CreateProfile(workflowID string, params profilesvc.CreateProfileParams) (*profilesvc.Profile, error) {
	desc := params.Description
	p, e := t.createProfile(workflowID, createProfileBody{Name: &params.Name, Description: &desc, Metadata: params.Metadata})
	if e != nil {
		return nil, e
	}
	return p, nil
}

// CreateFolder creates a folder in a profile.
func (t *Tenant) CreateFolder(profileID, name string) (*profilesvc.Folder, error) {
	f, e := t.createFolder(profileID, name)
	if e != nil {
		return nil, e
	}
	return &f, nil
}

// AddItem adds an item to a folder: a text, a JSON value or a file's bytes
// as spec says, with the status it gives (ACTIVE by default).
func (t *Tenant) AddItem(folderID string, spec SeedItem) (*profilesvc.Item, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.st.folders[folderID]
	if f == nil {
		return nil, folderNotFound(folderID)
	}
	it, e := t.addItemLocked(f, spec)
	if e != nil {
		return nil, e
	}
	return t.itemView(it, t.srv.URL), nil
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

// Profile returns a profile as GET would, with its folders.
func (t *Tenant) Profile(id string) (*profilesvc.Profile, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.st.profiles[id]
	if p == nil {
		return nil, false
	}
	return t.profileView(p, true), true
}

// Profiles returns every profile of the tenant, oldest first.
func (t *Tenant) Profiles() []*profilesvc.Profile {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*profilesvc.Profile, 0, len(t.st.profiles))
	for _, p := range t.st.profiles {
		out = append(out, t.profileView(p, true))
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.Before(out[j].CreatedAt)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Folder returns a folder with its item summaries.
func (t *Tenant) Folder(id string) (*profilesvc.Folder, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.st.folders[id]
	if f == nil {
		return nil, false
	}
	fw := t.folderWithItems(f)
	out := fw.Folder
	out.Items = fw.Items
	return &out, true
}

// Item returns an item in full.
func (t *Tenant) Item(id string) (*profilesvc.Item, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	it := t.st.items[id]
	if it == nil {
		return nil, false
	}
	return t.itemView(it, t.srv.URL), true
}

// ItemBytes returns an item's stored bytes: a file's upload, a text's
// text, a JSON item's JSON.
func (t *Tenant) ItemBytes(id string) ([]byte, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	it := t.st.items[id]
	if it == nil {
		return nil, false
	}
	return append([]byte(nil), it.data...), true
}

// ItemText returns the text extracted from an item, as its url serves it.
func (t *Tenant) ItemText(id string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	it := t.st.items[id]
	if it == nil {
		return "", false
	}
	return it.text, true
}

// SetItemStatus sets an item's status, to make an item that analyses
// refuse (anything but ACTIVE).
func (t *Tenant) SetItemStatus(id string, status profilesvc.ItemStatus) error {
	if status == "" {
		return validation("field \"status\" is required")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, e := t.setItemStatusLocked(id, status); e != nil {
		return e
	}
	return nil
}

// setItemStatusLocked sets an item's status and returns the item.
func (t *Tenant) setItemStatusLocked(id string, status profilesvc.ItemStatus) (*itemRec, *apiError) {
	it := t.st.items[id]
	if it == nil {
		return nil, itemNotFound(id)
	}
	it.status = status
	return it, nil
}

// Analysis returns an analysis as GET would.
func (t *Tenant) Analysis(id string) (*profilesvc.Analysis, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rec := t.st.analyses[id]
	if rec == nil {
		return nil, false
	}
	var a profilesvc.Analysis
	if err := json.Unmarshal(rec.encodedLocked(), &a); err != nil {
		return nil, false
	}
	return &a, true
}

// Analyses returns a profile's analyses, newest first.
func (t *Tenant) Analyses(profileID string) []*profilesvc.Analysis {
	t.mu.Lock()
	p := t.st.profiles[profileID]
	var ids []string
	if p != nil {
		ids = append(ids, p.analysisIDs...)
	}
	t.mu.Unlock()
	var out []*profilesvc.Analysis
	for i := len(ids) - 1; i >= 0; i-- {
		if a, ok := t.Analysis(ids[i]); ok {
			out = append(out, a)
		}
	}
	return out
}

// SetVerificationStatus records a person's verdict on an analysis.
func (t *Tenant) SetVerificationStatus(id string, vs profilesvc.VerificationStatus) error {
	switch vs {
	case profilesvc.VerificationPendingReview, profilesvc.VerificationApproved, profilesvc.VerificationRejected:
	default:
		return validation("field \"verificationStatus\" must be pending_review, approved or rejected, not %q", vs)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	rec := t.st.analyses[id]
	if rec == nil {
		return analysisNotFound(id)
	}
	rec.a.VerificationStatus = vs
	rec.notifyLocked()
	return nil
}

// InjectFault adds a fault and returns its ID.
func (t *Tenant) InjectFault(f Fault) (string, error) {
	added, err := t.faults.add(f)
	if err != nil {
		return "", validation("%s", err.Error())
	}
	return added.ID, nil
}

// RemoveFault removes one fault; it reports whether there was one.
func (t *Tenant) RemoveFault(id string) bool { return t.faults.remove(id) }

// ClearFaults removes every fault.
func (t *Tenant) ClearFaults() { t.faults.clear() }

// Faults returns the active faults, with Times counting what is left.
func (t *Tenant) Faults() []Fault { return t.faults.list() }

// Requests returns the recorded requests, oldest first (the newest
// WithRequestRecordSize of them), with the API key redacted.
func (t *Tenant) Requests() []RecordedRequest { return t.record.all() }

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
	t.mu.Lock()
	for _, rec := range t.st.analyses {
		for _, stop := range rec.timers {
			stop()
		}
		rec.timers = nil
		rec.notifyLocked()
	}
	t.st = newState(t.srv.cfg.allWorkflows())
	t.mu.Unlock()
	t.faults.clear()
	t.record.reset()
}
