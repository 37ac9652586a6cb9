package mockserver

import "net/http"

// The folder routes: each decodes its request, calls one operation of the
// store and writes its answer.

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
	q, e := t.srv.parseListQuery(r, "folders:"+pid, true)
	if e != nil {
		return e
	}
	page, e := t.store.listFolders(pid, q, t.srv.encodeCursor)
	if e != nil {
		return e
	}
	writePage(w, page)
	return nil
}

func handleGetFolder(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	b, e := t.store.folderAnswer(pathVar(r, "folderId"))
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
	f, e := t.store.renameFolder(pathVar(r, "folderId"), name)
	if e != nil {
		return e
	}
	writeJSON(w, http.StatusOK, f)
	return nil
}

func handleDeleteFolder(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	if e := t.store.deleteFolder(pathVar(r, "folderId")); e != nil {
		return e
	}
	noContent(w)
	return nil
}
