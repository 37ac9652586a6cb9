package mockserver

import (
	"net/http"
	"slices"

	"github.com/profilesvc/profilesvc-go"
)

// createFolder stores a new folder in a profile, under fixedID if a seed
// gives one.
func (st *state) createFolder(profileID, name, fixedID string) (*folderRec, *apiError) {
	if e := checkName("name", name); e != nil {
		return nil, e
	}
	p := st.profiles[profileID]
	if p == nil {
		return nil, profileNotFound(profileID)
	}
	now := st.now()
	f := &folderRec{id: st.newID("fld_"), profileID: p.id, name: name, createdAt: now, updatedAt: now, seq: st.nextSeq()}
	if fixedID != "" {
		if e := checkFixedID(fixedID, "fld_", st.folders[fixedID] != nil); e != nil {
			if e2 := checkFixedID(fixedID, "fd_", st.folders[fixedID] != nil); e2 != nil {
				return nil, e
			}
		}
		f.id = fixedID
	}
	st.folders[f.id] = f
	p.folderIDs = append(p.folderIDs, f.id)
	return f, nil
}

// renameFolder renames a folder other than the default one.
func (st *state) renameFolder(id, name string) (*folderRec, *apiError) {
	f := st.folders[id]
	if f == nil {
		return nil, folderNotFound(id)
	}
	if f.isDefault {
		return nil, errorf(http.StatusBadRequest, profilesvc.CodeCannotModifyDefaultFolder, "folder %q is the profile's default folder, which cannot be renamed", id)
	}
	f.name = name
	f.updatedAt = st.now()
	f.changed()
	return f, nil
}

// deleteFolder removes a folder other than the default one, with its
// items.
func (st *state) deleteFolder(id string) *apiError {
	f := st.folders[id]
	if f == nil {
		return folderNotFound(id)
	}
	if f.isDefault {
		return errorf(http.StatusBadRequest, profilesvc.CodeCannotDeleteDefaultFolder, "folder %q is the profile's default folder, which cannot be deleted", id)
	}
	for _, iid := range f.itemIDs {
		delete(st.items, iid)
	}
	delete(st.folders, id)
	if p := st.profiles[f.profileID]; p != nil {
		p.folderIDs = slices.DeleteFunc(p.folderIDs, func(v string) bool { return v == id })
	}
	return nil
}

// folderAnswer returns the single-folder answer's JSON, cached until the
// folder or one of its items' summaries changes.
func (st *state) folderAnswer(id string) ([]byte, *apiError) {
	f := st.folders[id]
	if f == nil {
		return nil, errorf(http.StatusNotFound, profilesvc.CodeFolderNotFoundSVC, "folder %q does not exist", id)
	}
	if f.encoded == nil {
		f.encoded = encodeJSON(st.folderWithItems(f))
	}
	return f.encoded, nil
}

// listFolders returns a page of a profile's folders.
func (st *state) listFolders(profileID string, q listQuery, encode func(cursor) string) (pageBody[profilesvc.Folder], *apiError) {
	p := st.profiles[profileID]
	if p == nil {
		return pageBody[profilesvc.Folder]{}, errorf(http.StatusNotFound, profilesvc.CodeProfileNotFoundSVC, "profile %q does not exist", profileID)
	}
	var entries []keyed[profilesvc.Folder]
	for _, fid := range p.folderIDs {
		f := st.folders[fid]
		if !matchesSearch(f.name, q.search) {
			continue
		}
		entries = append(entries, keyed[profilesvc.Folder]{
			key: sortKey(q.sort, f.name, f.createdAt, f.updatedAt, f.seq), id: f.id, v: folderView(f),
		})
	}
	items, next := paginate(entries, q, encode)
	return newPage(items, next), nil
}

// The store's operations on folders that the test kit and a route share.

// createFolder stores a new folder in a profile.
func (s *store) createFolder(profileID, name string) (profilesvc.Folder, *apiError) {
	return withLock(s, func(st *state) (profilesvc.Folder, *apiError) {
		f, e := st.createFolder(profileID, name, "")
		if e != nil {
			return profilesvc.Folder{}, e
		}
		return folderView(f), nil
	})
}

// folder returns a folder with its items' summaries.
func (s *store) folder(id string) (*profilesvc.Folder, *apiError) {
	return withLock(s, func(st *state) (*profilesvc.Folder, *apiError) {
		f := st.folders[id]
		if f == nil {
			return nil, folderNotFound(id)
		}
		fw := st.folderWithItems(f)
		out := fw.Folder
		out.Items = fw.Items
		return &out, nil
	})
}

func folderNotFound(id string) *apiError {
	return errorf(http.StatusNotFound, profilesvc.CodeFolderNotFound, "folder %q does not exist", id)
}
