package mockserver

import (
	"net/http"

	"github.com/profilesvc/profilesvc-go"
)

// The folder routes: each decodes its request, runs one operation of the
// store under the tenant's lock and writes its answer.

// folderBody is the body of create and rename folder.
type folderBody struct {
	Name *string `json:"name"`
}

// decodeFolderBody reads and checks a folder's body.
func decodeFolderBody(t *Tenant, r *http.Request) (string, *apiError) {
	var b folderBody
	if e := decodeJSON(r, t.srv.cfg.maxJSONBody, &b); e != nil {
		return "", e
	}
	if b.Name == nil {
		return "", validation("field \"name\" is required")
	}
	return *b.Name, checkName("name", *b.Name)
}

func handleListFolders(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	pid := pathVar(r, "profileId")
	q, e := t.srv.parseListQuery(r, "folders:"+pid)
	if e != nil {
		return e
	}
	page, e := withLock(t.store, func(st *state) (pageBody[profilesvc.Folder], *apiError) {
		return st.listFolders(pid, q, t.srv.encodeCursor)
	})
	if e != nil {
		return e
	}
	writePage(w, page)
	return nil
}

func handleGetFolder(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	id := pathVar(r, "folderId")
	b, e := withLock(t.store, func(st *state) ([]byte, *apiError) { return st.folderAnswer(id) })
	if e != nil {
		return e
	}
	writeRawJSON(w, http.StatusOK, b)
	return nil
}

func handleCreateFolder(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	name, e := decodeFolderBody(t, r)
	if e != nil {
		return e
	}
	f, e := t.store.createFolder(pathVar(r, "profileId"), name)
	if e != nil {
		return e
	}
	writeJSON(w, http.StatusCreated, f)
	return nil
}

func handleRenameFolder(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	name, e := decodeFolderBody(t, r)
	if e != nil {
		return e
	}
	id := pathVar(r, "folderId")
	f, e := withLock(t.store, func(st *state) (profilesvc.Folder, *apiError) {
		f, e := st.renameFolder(id, name)
		if e != nil {
			return profilesvc.Folder{}, e
		}
		return folderView(f), nil
	})
	if e != nil {
		return e
	}
	writeJSON(w, http.StatusOK, f)
	return nil
}

func handleDeleteFolder(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	id := pathVar(r, "folderId")
	if e := t.store.do(func(st *state) *apiError { return st.deleteFolder(id) }); e != nil {
		return e
	}
	noContent(w)
	return nil
}
