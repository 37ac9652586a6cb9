package mockserver

import (
	"net/http"

	"github.com/profilesvc/profilesvc-go"
)

// folderView renders a stored folder; withItems adds its item summaries,
// as the single-folder answer has them.
func (t *Tenant) folderView(f *folderRec) profilesvc.Folder {
	return profilesvc.Folder{
		ID: f.id, ProfileID: f.profileID, Name: f.name, IsDefault: f.isDefault,
		ItemsCount: f.itemsCount(), CreatedAt: f.createdAt, UpdatedAt: f.updatedAt,
	}
}

// folderWithItems is the single-folder answer: items is always present.
type folderWithItems struct {
	profilesvc.Folder
	Items []profilesvc.ItemSummary `json:"items"`
}

func (t *Tenant) folderWithItems(f *folderRec) folderWithItems {
	out := folderWithItems{Folder: t.folderView(f), Items: []profilesvc.ItemSummary{}}
	for _, iid := range f.itemIDs {
		it := t.st.items[iid]
		ct := it.contentType
		size := int64(len(it.data))
		out.Items = append(out.Items, profilesvc.ItemSummary{
			ID: it.id, Type: it.typ, Name: it.name, ContentType: &ct, SizeBytes: &size, CreatedAt: it.createdAt,
		})
	}
	return out
}

func (t *Tenant) handleListFolders(w http.ResponseWriter, r *http.Request) *apiError {
	pid := pathVar(r, "profileId")
	q, e := t.srv.parseListQuery(r, "folders:"+pid, true)
	if e != nil {
		return e
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.st.profiles[pid]
	if p == nil {
		return errorf(http.StatusNotFound, profilesvc.CodeProfileNotFoundSVC, "profile %q does not exist", pid)
	}
	var entries []keyed[profilesvc.Folder]
	for _, fid := range p.folderIDs {
		f := t.st.folders[fid]
		if !matchesSearch(f.name, q.search) {
			continue
		}
		entries = append(entries, keyed[profilesvc.Folder]{
			key: sortKey(q.sort, f.name, f.createdAt, f.updatedAt, f.seq), id: f.id, v: t.folderView(f),
		})
	}
	items, next := paginate(entries, q, t.srv.encodeCursor)
	writeJSON(w, http.StatusOK, newPage(items, next))
	return nil
}

func (t *Tenant) handleGetFolder(w http.ResponseWriter, r *http.Request) *apiError {
	id := pathVar(r, "folderId")
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.st.folders[id]
	if f == nil {
		return errorf(http.StatusNotFound, profilesvc.CodeFolderNotFoundSVC, "folder %q does not exist", id)
	}
	if f.encoded == nil {
		f.encoded = encodeJSON(t.folderWithItems(f))
	}
	writeRawJSON(w, http.StatusOK, f.encoded)
	return nil
}

func folderNotFound(id string) *apiError {
	return errorf(http.StatusNotFound, profilesvc.CodeFolderNotFound, "folder %q does not exist", id)
}

// folderBody is the body of create and rename folder.
type folderBody struct {
	Name *string `json:"name"`
}

func (b folderBody) check() *apiError {
	if b.Name == nil {
		return validation("field \"name\" is required")
	}
	return checkName("name", *b.Name)
}

// createFolder stores a new folder in a profile.
func (t *Tenant) createFolder(profileID, name string) (profilesvc.Folder, *apiError) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, e := t.createFolderLocked(profileID, name, "")
	if e != nil {
		return profilesvc.Folder{}, e
	}
	return t.folderView(f), nil
}

// createFolderLocked stores a new folder in a profile, under fixedID if
// one is given.
func (t *Tenant) createFolderLocked(profileID, name, fixedID string) (*folderRec, *apiError) {
	if e := checkName("name", name); e != nil {
		return nil, e
	}
	p := t.st.profiles[profileID]
	if p == nil {
		return nil, profileNotFound(profileID)
	}
	now := t.now()
	t.seq++
	f := &folderRec{id: t.srv.ids.next("fld_"), profileID: p.id, name: name, createdAt: now, updatedAt: now, seq: t.seq}
	if fixedID != "" {
		if e := t.checkFixedID(fixedID, "fld_", t.st.folders[fixedID] != nil); e != nil {
			if e2 := t.checkFixedID(fixedID, "fd_", t.st.folders[fixedID] != nil); e2 != nil {
				return nil, e
			}
		}
		f.id = fixedID
	}
	t.st.folders[f.id] = f
	p.folderIDs = append(p.folderIDs, f.id)
	return f, nil
}

func (t *Tenant) handleCreateFolder(w http.ResponseWriter, r *http.Request) *apiError {
	var b folderBody
	if e := decodeJSON(r, t.srv.cfg.maxJSONBody, &b); e != nil {
		return e
	}
	if e := b.check(); e != nil {
		return e
	}
	f, e := t.createFolder(pathVar(r, "profileId"), *b.Name)
	if e != nil {
		return e
	}
	writeJSON(w, http.StatusCreated, f)
	return nil
}

func (t *Tenant) handleRenameFolder(w http.ResponseWriter, r *http.Request) *apiError {
	var b folderBody
	if e := decodeJSON(r, t.srv.cfg.maxJSONBody, &b); e != nil {
		return e
	}
	if e := b.check(); e != nil {
		return e
	}
	id := pathVar(r, "folderId")
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.st.folders[id]
	if f == nil {
		return folderNotFound(id)
	}
	if f.isDefault {
		return errorf(http.StatusBadRequest, profilesvc.CodeCannotModifyDefaultFolder, "folder %q is the profile's default folder, which cannot be renamed", id)
	}
	f.name = *b.Name
	f.updatedAt = t.now()
	f.changed()
	writeJSON(w, http.StatusOK, t.folderView(f))
	return nil
}

func (t *Tenant) handleDeleteFolder(w http.ResponseWriter, r *http.Request) *apiError {
	id := pathVar(r, "folderId")
	t.mu.Lock()
	defer t.mu.Unlock()
	f := t.st.folders[id]
	if f == nil {
		return folderNotFound(id)
	}
	if f.isDefault {
		return errorf(http.StatusBadRequest, profilesvc.CodeCannotDeleteDefaultFolder, "folder %q is the profile's default folder, which cannot be deleted", id)
	}
	for _, iid := range f.itemIDs {
		delete(t.st.items, iid)
	}
	delete(t.st.folders, id)
	if p := t.st.profiles[f.profileID]; p != nil {
		p.folderIDs = removeString(p.folderIDs, id)
	}
	noContent(w)
	return nil
}
