package mockserver

import (
	"net/http"

	"github.com/profilesvc/profilesvc-go"
)

// The /_mock/ control API: the test kit over HTTP, for the binary's users.
// It takes the same API key, acts on the key's tenant, and is left out of
// the request record.

func (t *Tenant) handleReset(w http.ResponseWriter, r *http.Request) *apiError {
	t.Reset()
	noContent(w)
	return nil
}

func (t *Tenant) handleListWorkflows(w http.ResponseWriter, r *http.Request) *apiError {
	writeJSON(w, http.StatusOK, map[string]any{"items": t.Workflows()})
	return nil
}

func (t *Tenant) handleAddWorkflow(w http.ResponseWriter, r *http.Request) *apiError {
	var wf Workflow
	if e := decodeJSON(r, t.srv.cfg.maxJSONBody, &wf); e != nil {
		return e
	}
	if err := t.AddWorkflow(wf); err != nil {
		return validation("%s", err.Error())
	}
	writeJSON(w, http.StatusCreated, wf)
	return nil
}

func (t *Tenant) handleSeed(w http.ResponseWriter, r *http.Request) *apiError {
	var s Seed
	if e := decodeJSON(r, t.srv.cfg.maxUpload, &s); e != nil {
		return e
	}
	for _, p := range s.Profiles {
		for _, f := range p.Folders {
			for _, it := range f.Items {
				if it.Path != "" {
					return validation("field \"path\" is for seed files only: send a file's bytes in \"data\" (base64)")
				}
			}
		}
	}
	if err := t.LoadSeed(&s); err != nil {
		return validation("%s", err.Error())
	}
	noContent(w)
	return nil
}

func (t *Tenant) handleSetItemStatus(w http.ResponseWriter, r *http.Request) *apiError {
	var b struct {
		Status *string `json:"status"`
	}
	if e := decodeJSON(r, t.srv.cfg.maxJSONBody, &b); e != nil {
		return e
	}
	if b.Status == nil || *b.Status == "" {
		return validation("field \"status\" is required")
	}
	id := pathVar(r, "itemId")
	t.mu.Lock()
	defer t.mu.Unlock()
	it, e := t.setItemStatusLocked(id, profilesvc.ItemStatus(*b.Status))
	if e != nil {
		return e
	}
	writeJSON(w, http.StatusOK, t.itemView(it, baseURL(r)))
	return nil
}

// analysisControl answers a control call on an analysis with its new state.
func (t *Tenant) analysisControl(w http.ResponseWriter, id string, err error) *apiError {
	if err != nil {
		return err.(*apiError)
	}
	a, ok := t.Analysis(id)
	if !ok {
		return analysisNotFound(id)
	}
	writeJSON(w, http.StatusOK, a)
	return nil
}

func (t *Tenant) handleProcessAnalysis(w http.ResponseWriter, r *http.Request) *apiError {
	id := pathVar(r, "analysisId")
	return t.analysisControl(w, id, t.StartProcessing(id))
}

func (t *Tenant) handleCompleteAnalysis(w http.ResponseWriter, r *http.Request) *apiError {
	id := pathVar(r, "analysisId")
	return t.analysisControl(w, id, t.CompleteAnalysis(id))
}

func (t *Tenant) handleFailAnalysis(w http.ResponseWriter, r *http.Request) *apiError {
	var b struct {
		Error *string `json:"error"`
	}
	if r.ContentLength != 0 {
		if e := decodeJSON(r, t.srv.cfg.maxJSONBody, &b); e != nil {
			return e
		}
	}
	msg := ""
	if b.Error != nil {
		msg = *b.Error
	}
	id := pathVar(r, "analysisId")
	return t.analysisControl(w, id, t.FailAnalysis(id, msg))
}

func (t *Tenant) handleSetVerification(w http.ResponseWriter, r *http.Request) *apiError {
	var b struct {
		VerificationStatus *string `json:"verificationStatus"`
	}
	if e := decodeJSON(r, t.srv.cfg.maxJSONBody, &b); e != nil {
		return e
	}
	if b.VerificationStatus == nil {
		return validation("field \"verificationStatus\" is required")
	}
	id := pathVar(r, "analysisId")
	return t.analysisControl(w, id, t.SetVerificationStatus(id, profilesvc.VerificationStatus(*b.VerificationStatus)))
}

func (t *Tenant) handleListFaults(w http.ResponseWriter, r *http.Request) *apiError {
	faults := t.Faults()
	items := make([]faultJSON, len(faults))
	for i, f := range faults {
		items[i] = faultToJSON(f)
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items})
	return nil
}

func (t *Tenant) handleAddFault(w http.ResponseWriter, r *http.Request) *apiError {
	var j faultJSON
	if e := decodeJSON(r, t.srv.cfg.maxJSONBody, &j); e != nil {
		return e
	}
	f, err := j.fault()
	if err == nil {
		f, err = t.faults.add(f)
	}
	if err != nil {
		return validation("%s", err.Error())
	}
	writeJSON(w, http.StatusCreated, faultToJSON(f))
	return nil
}

func (t *Tenant) handleClearFaults(w http.ResponseWriter, r *http.Request) *apiError {
	t.ClearFaults()
	noContent(w)
	return nil
}

func (t *Tenant) handleRemoveFault(w http.ResponseWriter, r *http.Request) *apiError {
	id := pathVar(r, "faultId")
	if !t.RemoveFault(id) {
		return errorf(http.StatusNotFound, profilesvc.CodeNotFound, "fault %q does not exist", id)
	}
	noContent(w)
	return nil
}

func (t *Tenant) handleListRequests(w http.ResponseWriter, r *http.Request) *apiError {
	reqs := t.Requests()
	if reqs == nil {
		reqs = []RecordedRequest{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"count": len(reqs), "items": reqs})
	return nil
}

func (t *Tenant) handleClearRequests(w http.ResponseWriter, r *http.Request) *apiError {
	t.ClearRequests()
	noContent(w)
	return nil
}
