package mockserver

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/profilesvc/profilesvc-go"
)

// The profile routes: each decodes its request, runs one operation of the
// store under the tenant's lock and writes its answer.

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

// createProfileBody is the body of create profile.
type createProfileBody struct {
	Name        *string        `json:"name"`
	Description *string        `json:"description"`
	Metadata    map[string]any `json:"metadata"`
}

func handleCreateProfile(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	var b createProfileBody
	if e := decodeJSON(r, t.srv.cfg.maxJSONBody, &b); e != nil {
		return e
	}
	if b.Name == nil {
		return validation("field \"name\" is required")
	}
	spec := profileSpec{workflowID: pathVar(r, "workflowId"), name: *b.Name, metadata: b.Metadata}
	if b.Description != nil {
		spec.description = *b.Description
	}
	p, e := t.store.createProfile(spec)
	if e != nil {
		return e
	}
	writeJSON(w, http.StatusCreated, p)
	return nil
}

func handleGetProfile(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	p, e := t.store.profile(pathVar(r, "profileId"), false)
	if e != nil {
		return e
	}
	writeJSON(w, http.StatusOK, p)
	return nil
}

// updateProfileBody is the body of update profile: every field optional.
type updateProfileBody struct {
	Name        opt[string]         `json:"name"`
	Description opt[string]         `json:"description"`
	Metadata    opt[map[string]any] `json:"metadata"`
}

func handleUpdateProfile(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	var b updateProfileBody
	if e := decodeJSON(r, t.srv.cfg.maxJSONBody, &b); e != nil {
		return e
	}
	if e := checkOptName(b.Name); e != nil {
		return e
	}
	var u profileUpdate
	if b.Name.set {
		u.name = &b.Name.value
	}
	if b.Description.set {
		u.description = &b.Description.value
	}
	if b.Metadata.set {
		u.metadata = &b.Metadata.value
	}
	id := pathVar(r, "profileId")
	p, e := withLock(t.store, func(st *state) (*profilesvc.Profile, *apiError) {
		p, e := st.updateProfile(id, u)
		if e != nil {
			return nil, e
		}
		return st.profileView(p, false), nil
	})
	if e != nil {
		return e
	}
	writeJSON(w, http.StatusOK, p)
	return nil
}

func handleDeleteProfile(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	id := pathVar(r, "profileId")
	if e := t.store.do(func(st *state) *apiError { return st.deleteProfile(id) }); e != nil {
		return e
	}
	noContent(w)
	return nil
}

func handleListProfiles(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	wid := pathVar(r, "workflowId")
	q, e := t.srv.parseListQuery(r, "profiles:"+wid)
	if e != nil {
		return e
	}
	page, e := withLock(t.store, func(st *state) (pageBody[*profilesvc.Profile], *apiError) {
		return st.listProfiles(wid, q, t.srv.encodeCursor)
	})
	if e != nil {
		return e
	}
	writePage(w, page)
	return nil
}
