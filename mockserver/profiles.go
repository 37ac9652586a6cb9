package mockserver

import (
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/profilesvc/profilesvc-go"
)

// maxNameLength is the longest profile or folder name, in characters.
const maxNameLength = 255

// checkName validates a required name field.
func checkName(field string, name string) *apiError {
	if strings.TrimSpace(name) == "" {
		return validation("field %q is required and must not be empty", field)
	}
	if n := utf8.RuneCountInString(name); n > maxNameLength {
		return validation("field %q must be at most %d characters, got %d", field, maxNameLength, n)
	}
	if !utf8.ValidString(name) {
		return validation("field %q must be valid UTF-8", field)
	}
	return nil
}

// checkOptName validates an optional name field: absent, or a valid name
// (never null).
func checkOptName(name opt[string]) *apiError {
	if !name.set {
		return nil
	}
	if name.null {
		return validation("field \"name\" must be a string, not null")
	}
	return checkName("name", name.value)
}

// now returns the server's time in UTC, to the millisecond.
func (t *Tenant) now() time.Time { return t.srv.clock.Now().UTC().Truncate(time.Millisecond) }

// profileView renders a stored profile; withFolders adds the folder
// summaries of the create answer.
func (t *Tenant) profileView(p *profileRec, withFolders bool) *profilesvc.Profile {
	v := &profilesvc.Profile{
		ID:             p.id,
		WorkflowID:     p.workflowID,
		Name:           p.name,
		Description:    p.description,
		Metadata:       cloneMap(p.metadata),
		ItemsCount:     t.st.itemsCount(p),
		LastAnalysisAt: p.lastAnalysisAt,
		CreatedAt:      p.createdAt,
		UpdatedAt:      p.updatedAt,
	}
	if withFolders {
		v.Folders = []profilesvc.Folder{}
		for _, fid := range p.folderIDs {
			f := t.st.folders[fid]
			v.Folders = append(v.Folders, profilesvc.Folder{
				ID: f.id, Name: f.name, IsDefault: f.isDefault, ItemsCount: f.itemsCount(), CreatedAt: f.createdAt,
			})
		}
	}
	return v
}

// createProfileBody is the body of create profile.
type createProfileBody struct {
	Name        *string        `json:"name"`
	Description *string        `json:"description"`
	Metadata    map[string]any `json:"metadata"`
}

func (b *createProfileBody) check() *apiError {
	if b.Name == nil {
		return validation("field \"name\" is required")
	}
	return checkName("name", *b.Name)
}

// createProfile stores a new profile with its default folder.
func (t *Tenant) createProfile(workflowID string, b createProfileBody) (*profilesvc.Profile, *apiError) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, e := t.createProfileLocked(workflowID, b, "")
	if e != nil {
		return nil, e
	}
	return t.profileView(p, true), nil
}

// createProfileLocked stores a new profile with its default folder, under
// fixedID if one is given.
func (t *Tenant) createProfileLocked(workflowID string, b createProfileBody, fixedID string) (*profileRec, *apiError) {
	if e := b.check(); e != nil {
		return nil, e
	}
	if t.st.workflows[workflowID] == nil {
		return nil, errorf(http.StatusNotFound, profilesvc.CodeWorkflowNotFound, "workflow %q does not exist", workflowID)
	}
	now := t.now()
	p := &profileRec{
		id:         t.srv.ids.next("pf_"),
		workflowID: workflowID,
		name:       *b.Name,
		metadata:   cloneMap(b.Metadata),
		createdAt:  now,
		updatedAt:  now,
	}
	if fixedID != "" {
		if e := t.checkFixedID(fixedID, "pf_", t.st.profiles[fixedID] != nil); e != nil {
			return nil, e
		}
		p.id = fixedID
	}
	if b.Description != nil {
		p.description = *b.Description
	}
	t.seq++
	p.seq = t.seq
	t.seq++
	f := &folderRec{id: t.srv.ids.next("fld_"), profileID: p.id, name: "default", isDefault: true, createdAt: now, updatedAt: now, seq: t.seq}
	p.folderIDs = []string{f.id}
	t.st.profiles[p.id] = p
	t.st.folders[f.id] = f
	return p, nil
}

func (t *Tenant) handleCreateProfile(w http.ResponseWriter, r *http.Request) *apiError {
	var b createProfileBody
	if e := decodeJSON(r, t.srv.cfg.maxJSONBody, &b); e != nil {
		return e
	}
	p, e := t.createProfile(pathVar(r, "workflowId"), b)
	if e != nil {
		return e
	}
	writeJSON(w, http.StatusCreated, p)
	return nil
}

func profileNotFound(id string) *apiError {
	return errorf(http.StatusNotFound, profilesvc.CodeProfileNotFound, "profile %q does not exist", id)
}

func (t *Tenant) handleGetProfile(w http.ResponseWriter, r *http.Request) *apiError {
	id := pathVar(r, "profileId")
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.st.profiles[id]
	if p == nil {
		return profileNotFound(id)
	}
	writeJSON(w, http.StatusOK, t.profileView(p, false))
	return nil
}

// updateProfileBody is the body of update profile: every field optional.
type updateProfileBody struct {
	Name        opt[string]         `json:"name"`
	Description opt[string]         `json:"description"`
	Metadata    opt[map[string]any] `json:"metadata"`
}

func (t *Tenant) handleUpdateProfile(w http.ResponseWriter, r *http.Request) *apiError {
	var b updateProfileBody
	if e := decodeJSON(r, t.srv.cfg.maxJSONBody, &b); e != nil {
		return e
	}
	if e := checkOptName(b.Name); e != nil {
		return e
	}
	id := pathVar(r, "profileId")
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.st.profiles[id]
	if p == nil {
		return profileNotFound(id)
	}
	if b.Name.set {
		p.name = b.Name.value
	}
	if b.Description.set {
		p.description = b.Description.value
	}
	if b.Metadata.set {
		p.metadata = cloneMap(b.Metadata.value) // replaced whole, not merged
	}
	p.updatedAt = t.now()
	writeJSON(w, http.StatusOK, t.profileView(p, false))
	return nil
}

func (t *Tenant) handleDeleteProfile(w http.ResponseWriter, r *http.Request) *apiError {
	id := pathVar(r, "profileId")
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.st.profiles[id]
	if p == nil {
		return profileNotFound(id)
	}
	t.deleteProfileLocked(p)
	noContent(w)
	return nil
}

// deleteProfileLocked removes a profile with its folders, items, analyses
// and reports.
func (t *Tenant) deleteProfileLocked(p *profileRec) {
	for _, aid := range append([]string(nil), p.analysisIDs...) {
		if a := t.st.analyses[aid]; a != nil {
			t.deleteAnalysisLocked(a)
		}
	}
	for _, fid := range p.folderIDs {
		if f := t.st.folders[fid]; f != nil {
			for _, iid := range f.itemIDs {
				delete(t.st.items, iid)
			}
			delete(t.st.folders, fid)
		}
	}
	delete(t.st.profiles, p.id)
}

func (t *Tenant) handleListProfiles(w http.ResponseWriter, r *http.Request) *apiError {
	wid := pathVar(r, "workflowId")
	q, e := t.srv.parseListQuery(r, "profiles:"+wid, true)
	if e != nil {
		return e
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.st.workflows[wid] == nil {
		return errorf(http.StatusNotFound, profilesvc.CodeWorkflowNotFound, "workflow %q does not exist", wid)
	}
	var entries []keyed[*profilesvc.Profile]
	for _, p := range t.st.profiles {
		if p.workflowID != wid || !matchesSearch(p.name, q.search) {
			continue
		}
		entries = append(entries, keyed[*profilesvc.Profile]{
			key: sortKey(q.sort, p.name, p.createdAt, p.updatedAt, p.seq), id: p.id, v: t.profileView(p, false),
		})
	}
	items, next := paginate(entries, q, t.srv.encodeCursor)
	writeJSON(w, http.StatusOK, newPage(items, next))
	return nil
}
