package mockserver

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
)

// The /_mock/ control API: the test kit over HTTP, for the binary's users.
// It takes the same API key, acts on the key's tenant, and is left out of
// the request record.

func handleReset(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	t.Reset()
	noContent(w)
	return nil
}

func handleListWorkflows(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	writeJSON(w, http.StatusOK, map[string]any{"items": t.Workflows()})
	return nil
}

func handleAddWorkflow(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	var wf Workflow
	if e := decodeJSON(r, t.srv.cfg.maxJSONBody, &wf); e != nil {
		return e
	}
	if err := t.AddWorkflow(wf); err != nil {
		return invalid(err)
	}
	writeJSON(w, http.StatusCreated, wf)
	return nil
}

// seedMemoryFactor bounds how many times the size of its body a seed sent
// to POST /_mock/seed allocates while it is read and loaded: the body,
// the decoder's copy of it, its decoded files, and the items made of
// them (measured: 5.1 times for a seed of one 21 MiB file).
const seedMemoryFactor = 5

func handleSeed(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	var s Seed
	release, e := decodeLargeJSON(t, r, &s)
	defer release()
	if e != nil {
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
		return invalid(err)
	}
	noContent(w)
	return nil
}

// decodeLargeJSON decodes a body that may be as large as an upload (a
// seed, a snapshot) into v, strictly as decodeJSON does. Its memory comes
// from the budget of uploads under way, so that such bodies sent at once
// never hold more than it: the body at most the upload limit and a fifth
// of the budget, read in blocks each taken from the budget before it is
// read into (a body that is slow to come holds what has come, no more),
// then, before it is decoded, what decoding it takes: seedMemoryFactor
// times its size, and decodedValueSize for each of its values, so that a
// small body of many empty objects is no cheaper than its decoded form.
// The caller calls release once it is done with v, whatever the error.
func decodeLargeJSON(t *Tenant, r *http.Request, v any) (release func(), e *apiError) {
	cfg := t.srv.cfg
	limit := min(cfg.maxUpload, cfg.uploadMemory/seedMemoryFactor)
	mem := &reservation{budget: t.srv.uploads}
	if e := requireJSON(r); e != nil {
		return mem.release, e
	}
	if r.ContentLength > limit {
		return mem.release, errorf(http.StatusRequestEntityTooLarge, profilesvc.CodePayloadTooLarge,
			"the request body declares %d bytes, more than the limit of %d bytes", r.ContentLength, limit)
	}
	body, err := readBlocks(http.MaxBytesReader(nil, r.Body, limit), mem)
	switch {
	case errors.Is(err, errUploadMemory):
		return mem.release, uploadMemoryFull()
	case err != nil:
		return mem.release, bodyReadError(err, limit)
	}
	values := jsonValues(body)
	need := (seedMemoryFactor-1)*int64(len(body)) + decodedValueSize*values
	if need > cfg.uploadMemory {
		return mem.release, errorf(http.StatusRequestEntityTooLarge, profilesvc.CodePayloadTooLarge,
			"the request body holds %d JSON values in %d bytes: decoded, more than the memory of uploads under way allows (-upload-memory, WithUploadMemory)",
			values, len(body))
	}
	if !mem.take(need) {
		return mem.release, uploadMemoryFull()
	}
	return mem.release, unmarshalStrict(body, v)
}

// decodedValueSize is what one JSON value takes once decoded into maps,
// slices and interfaces, at most (measured: about 60 bytes for an empty
// object in a list).
const decodedValueSize = 64

// jsonValues counts the values of a JSON text, roughly and never fewer:
// one, and one more for each separator and opening bracket outside
// strings.
func jsonValues(b []byte) int64 {
	n := int64(1)
	inString := false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && (c == '{' || c == '[' || c == ',' || c == ':'):
			n++
		}
	}
	return n
}

func handleSetItemStatus(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	var b struct {
		Status *string `json:"status"`
	}
	if e := decodeJSON(r, t.srv.cfg.maxJSONBody, &b); e != nil {
		return e
	}
	if b.Status == nil || *b.Status == "" {
		return validation("field \"status\" is required")
	}
	it, e := t.store.setItemStatus(pathVar(r, "itemId"), profilesvc.ItemStatus(*b.Status), baseURL(r))
	if e != nil {
		return e
	}
	writeJSON(w, http.StatusOK, it)
	return nil
}

// analysisControl answers a control call on an analysis with its new state.
func analysisControl(t *Tenant, w http.ResponseWriter, id string, err error) *apiError {
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

func handleProcessAnalysis(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	id := pathVar(r, "analysisId")
	return analysisControl(t, w, id, t.StartProcessing(id))
}

func handleCompleteAnalysis(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	id := pathVar(r, "analysisId")
	return analysisControl(t, w, id, t.CompleteAnalysis(id))
}

func handleFailAnalysis(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
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
	return analysisControl(t, w, id, t.FailAnalysis(id, msg))
}

func handleSetVerification(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
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
	return analysisControl(t, w, id, t.SetVerificationStatus(id, profilesvc.VerificationStatus(*b.VerificationStatus)))
}

func handleListFaults(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	faults := t.Faults()
	items := make([]faultJSON, len(faults))
	for i, f := range faults {
		items[i] = faultToJSON(f)
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items})
	return nil
}

func handleAddFault(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	var j faultJSON
	if e := decodeJSON(r, t.srv.cfg.maxJSONBody, &j); e != nil {
		return e
	}
	f, err := j.fault()
	if err == nil {
		f, err = t.faults.add(f)
	}
	if err != nil {
		return invalid(err)
	}
	writeJSON(w, http.StatusCreated, faultToJSON(f))
	return nil
}

func handleClearFaults(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	t.ClearFaults()
	noContent(w)
	return nil
}

func handleRemoveFault(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	id := pathVar(r, "faultId")
	if !t.RemoveFault(id) {
		return errorf(http.StatusNotFound, profilesvc.CodeNotFound, "fault %q does not exist", id)
	}
	noContent(w)
	return nil
}

// handleListRequests streams the request record: {"count", "dropped",
// "items"}, an entry at a time, so that a large record is never held
// encoded in memory.
func handleListRequests(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	return serveRecord(t.record, w, r)
}

// serveRecord answers GET /_mock/requests from a record, a simulating
// mock's or a proxy's: the entries its filters select (recordQuery),
// streamed an entry at a time.
func serveRecord(rec *requestRecord, w http.ResponseWriter, r *http.Request) *apiError {
	m, limit, e := recordQuery(r)
	if e != nil {
		return e
	}
	entries, dropped := rec.snapshot()
	if m.fields() > 0 || limit > 0 {
		entries = newestMatching(entries, m, limit)
	}
	head := fmt.Sprintf(`{"count":%d,"dropped":%d,"items":[`, len(entries), dropped)
	writeStreamed(w, head, len(entries), func(i int) any { return entries[i].recorded() })
	return nil
}

// maxRecordLimit bounds listRequests's limit.
const maxRecordLimit = 1000

// recordQuery reads listRequests's filters: the method, a path pattern
// (as RequestMatch.Path) and the answer's status, and the number of the
// newest matching entries to answer (0: all).
func recordQuery(r *http.Request) (RequestMatch, int, *apiError) {
	var m RequestMatch
	values := queryOf(r)
	if v := values.Get(apiroutes.QueryMethod); values.Has(apiroutes.QueryMethod) {
		if v == "" || len(v) > 32 || strings.IndexFunc(v, func(c rune) bool { return c < 'A' || c > 'Z' && c < 'a' || c > 'z' }) >= 0 {
			return m, 0, validation("query parameter %q must be an HTTP method such as GET, not %q", apiroutes.QueryMethod, clip(v))
		}
		m.Method = v
	}
	if v := values.Get(apiroutes.QueryPath); values.Has(apiroutes.QueryPath) {
		if err := checkPathPattern(v); err != nil {
			return m, 0, validation("query parameter %q is not a path pattern (such as /v1/analyses/*/report): %v", apiroutes.QueryPath, err)
		}
		m.Path = v
	}
	if v := values.Get(apiroutes.QueryStatus); values.Has(apiroutes.QueryStatus) {
		n, err := strconv.Atoi(v)
		if err != nil || n < 100 || n > 599 {
			return m, 0, validation("query parameter %q must be an HTTP status from 100 to 599, not %q", apiroutes.QueryStatus, clip(v))
		}
		m.Status = n
	}
	limit := 0
	if v := values.Get(apiroutes.QueryLimit); values.Has(apiroutes.QueryLimit) {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxRecordLimit {
			return m, 0, validation("query parameter %q must be a whole number from 1 to %d, not %q", apiroutes.QueryLimit, maxRecordLimit, clip(v))
		}
		limit = n
	}
	return m, limit, nil
}

// newestMatching returns the entries m selects, at most limit of them
// (0: all), the newest, oldest first as the record keeps them.
func newestMatching(entries []recordEntry, m RequestMatch, limit int) []recordEntry {
	var out []recordEntry
	for i := len(entries) - 1; i >= 0 && (limit == 0 || len(out) < limit); i-- {
		e := &entries[i]
		if m.matchesEntry(e) {
			out = append(out, *e)
		}
	}
	slices.Reverse(out)
	return out
}

func handleClearRequests(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	t.ClearRequests()
	noContent(w)
	return nil
}

// handleNotAProxy answers, on a simulating mock, the routes of a proxy's
// observations of the service's traffic (Proxy), which it has none of.
func handleNotAProxy(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	return errorf(http.StatusConflict, CodeNotAProxy, "%s is a proxy's (profilesvc-mock -proxy URL): this mock simulates the service", r.URL.Path)
}
