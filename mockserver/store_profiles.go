package mockserver

import (
	"net/http"
	"slices"

	"github.com/profilesvc/profilesvc-go"
)

// profileSpec is what a new profile is made of, from the API, the test
// kit or a seed.
type profileSpec struct {
	workflowID  string
	name        string
	description string
	metadata    map[string]any // the store's once given
	id          string         // fixed by a seed; "" for a new one
}

// createProfile stores a new profile with its default folder.
func (st *state) createProfile(spec profileSpec) (*profileRec, *apiError) {
	if e := checkName("name", spec.name); e != nil {
		return nil, e
	}
	if st.workflows[spec.workflowID] == nil {
		return nil, workflowNotFound(spec.workflowID)
	}
	now := st.now()
	p := &profileRec{
		id:          st.newID("pf_"),
		workflowID:  spec.workflowID,
		name:        spec.name,
		description: spec.description,
		metadata:    spec.metadata,
		createdAt:   now,
		updatedAt:   now,
	}
	if spec.id != "" {
		if e := checkFixedID(spec.id, "pf_", st.profiles[spec.id] != nil); e != nil {
			return nil, e
		}
		p.id = spec.id
	}
	p.seq = st.nextSeq()
	f := &folderRec{id: st.newID("fld_"), profileID: p.id, name: "default", isDefault: true, createdAt: now, updatedAt: now, seq: st.nextSeq()}
	p.folderIDs = []string{f.id}
	st.profiles[p.id] = p
	st.folders[f.id] = f
	return p, nil
}

// profileUpdate is a change of a profile: each field set is replaced.
type profileUpdate struct {
	name, description *string
	metadata          *map[string]any // replaced whole, not merged
}

// updateProfile changes a profile.
func (st *state) updateProfile(id string, u profileUpdate) (*profileRec, *apiError) {
	p := st.profiles[id]
	if p == nil {
		return nil, profileNotFound(id)
	}
	if u.name != nil {
		p.name = *u.name
	}
	if u.description != nil {
		p.description = *u.description
	}
	if u.metadata != nil {
		p.metadata = *u.metadata
	}
	p.updatedAt = st.now()
	p.version++
	return p, nil
}

// deleteProfile removes a profile with its folders, items, analyses and
// reports.
func (st *state) deleteProfile(id string) *apiError {
	p := st.profiles[id]
	if p == nil {
		return profileNotFound(id)
	}
	for _, aid := range slices.Clone(p.analysisIDs) {
		_ = st.deleteAnalysis(aid) // an ID without its analysis: none to delete
	}
	for _, fid := range p.folderIDs {
		if f := st.folders[fid]; f != nil {
			for _, iid := range f.itemIDs {
				delete(st.items, iid)
			}
			delete(st.folders, fid)
		}
	}
	delete(st.profiles, p.id)
	return nil
}

// listProfiles returns a page of a workflow's profiles.
func (st *state) listProfiles(workflowID string, q listQuery, encode func(cursor) string) (pageBody[*profilesvc.Profile], *apiError) {
	if st.workflows[workflowID] == nil {
		return pageBody[*profilesvc.Profile]{}, workflowNotFound(workflowID)
	}
	var entries []keyed[*profilesvc.Profile]
	for _, p := range st.profiles {
		if p.workflowID != workflowID || !matchesSearch(p.name, q.search) {
			continue
		}
		entries = append(entries, keyed[*profilesvc.Profile]{
			key: sortKey(q.sort, p.name, p.createdAt, p.updatedAt, p.seq), id: p.id, v: st.profileView(p, false),
		})
	}
	items, next := paginate(entries, q, encode)
	return newPage(items, next), nil
}

// The store's operations on profiles that the test kit and a route share.

// createProfile stores a new profile and returns it with its default
// folder.
func (s *store) createProfile(spec profileSpec) (*profilesvc.Profile, *apiError) {
	return withLock(s, func(st *state) (*profilesvc.Profile, *apiError) {
		p, e := st.createProfile(spec)
		if e != nil {
			return nil, e
		}
		return st.profileView(p, true), nil
	})
}

// profile returns a profile; withFolders adds its folders' summaries.
func (s *store) profile(id string, withFolders bool) (*profilesvc.Profile, *apiError) {
	return withLock(s, func(st *state) (*profilesvc.Profile, *apiError) {
		p := st.profiles[id]
		if p == nil {
			return nil, profileNotFound(id)
		}
		return st.profileView(p, withFolders), nil
	})
}

// profiles returns every profile with its folders, oldest first.
func (s *store) profiles() []*profilesvc.Profile {
	out, _ := withLock(s, func(st *state) ([]*profilesvc.Profile, *apiError) {
		recs := sortedRecords(st.profiles, func(p *profileRec) int64 { return p.seq })
		out := make([]*profilesvc.Profile, len(recs))
		for i, p := range recs {
			out[i] = st.profileView(p, true)
		}
		return out, nil
	})
	return out
}

func profileNotFound(id string) *apiError {
	return errorf(http.StatusNotFound, profilesvc.CodeProfileNotFound, "profile %q does not exist", id)
}

func workflowNotFound(id string) *apiError {
	return errorf(http.StatusNotFound, profilesvc.CodeWorkflowNotFound, "workflow %q does not exist", id)
}
