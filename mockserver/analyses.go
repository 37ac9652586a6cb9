package mockserver

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
)

// The analysis routes: each decodes its request, runs one operation of
// the store under the tenant's lock and writes its answer.

// startAnalysisBody is the body of start analysis.
type startAnalysisBody struct {
	TargetItems    *[]targetItemRef    `json:"targetItems"`
	Options        opt[map[string]any] `json:"options"`
	ClientMetadata opt[map[string]any] `json:"clientMetadata"`
}

type targetItemRef struct {
	ItemID *string `json:"itemId"`
}

func handleStartAnalysis(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	pid := pathVar(r, "profileId")
	// An unknown profile is reported before anything about the body.
	if e := t.store.do(func(st *state) *apiError {
		if st.profiles[pid] == nil {
			return profileNotFound(pid)
		}
		return nil
	}); e != nil {
		return e
	}
	var b startAnalysisBody
	if e := decodeJSON(r, t.srv.cfg.maxJSONBody, &b); e != nil {
		return e
	}
	if b.TargetItems == nil {
		return validation("field \"targetItems\" is required: a list of {\"itemId\": ...}")
	}
	if len(*b.TargetItems) == 0 {
		return validation("field \"targetItems\" must name at least one item")
	}
	ids := make([]string, len(*b.TargetItems))
	for i, ref := range *b.TargetItems {
		if ref.ItemID == nil || *ref.ItemID == "" {
			return validation("field \"targetItems[%d].itemId\" is required", i)
		}
		ids[i] = *ref.ItemID
	}
	id, e := t.startAnalysis(pid, ids, b.Options.value, b.ClientMetadata.value)
	if e != nil {
		return e
	}
	writeJSON(w, http.StatusAccepted, map[string]string{"id": id})
	return nil
}

// pollQuery reads the long-poll parameters of get analysis.
func pollQuery(r *http.Request) (wait bool, timeout time.Duration, e *apiError) {
	values := queryOf(r)
	if values.Has(apiroutes.QueryWaitForReport) {
		v := values.Get(apiroutes.QueryWaitForReport)
		if v != "true" && v != "false" {
			return false, 0, validation("query parameter %q must be true or false, not %q", apiroutes.QueryWaitForReport, v)
		}
		wait = v == "true"
	}
	timeout = 120 * time.Second
	if values.Has(apiroutes.QueryTimeoutSeconds) {
		v := values.Get(apiroutes.QueryTimeoutSeconds)
		secs, ok := decimalSeconds(v)
		if !ok || secs < 10 || secs > 300 {
			return false, 0, validation("query parameter %q must be a number of seconds from 10 to 300 (such as 30 or 30.5), not %q", apiroutes.QueryTimeoutSeconds, v)
		}
		timeout = time.Duration(secs * float64(time.Second))
	}
	return wait, timeout, nil
}

// decimalSeconds reads a long poll's timeoutSeconds: the interface
// document types it as a number, so a fraction (30.5) and a zero fraction
// (30.0) are taken as well as an integer. Only plain decimal notation is:
// no sign, exponent, hexadecimal, infinity or NaN, which the document does
// not show and a query string has no need of (inferred).
func decimalSeconds(v string) (float64, bool) {
	whole, frac, hasFrac := strings.Cut(v, ".")
	if whole == "" || len(v) > 32 || !allDigits(whole) || hasFrac && (frac == "" || !allDigits(frac)) {
		return 0, false
	}
	f, err := strconv.ParseFloat(v, 64)
	return f, err == nil
}

// allDigits reports whether s is made of ASCII digits only.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func handleGetAnalysis(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	wait, timeout, e := pollQuery(r)
	if e != nil {
		return e
	}
	id := pathVar(r, "analysisId")
	if wait {
		return longPoll(t, w, r, id, timeout)
	}
	b, e := t.store.analysisJSON(id)
	if e != nil {
		return e
	}
	writeRawJSON(w, http.StatusOK, b)
	return nil
}

// longPoll holds the request until the analysis has completed with its
// report, has failed or is deleted, or timeout passes, then answers with
// the analysis as it stands. It wakes on the change itself, and lets go at
// once when the client leaves or the server closes.
func longPoll(t *Tenant, w http.ResponseWriter, r *http.Request, id string, timeout time.Duration) *apiError {
	// The server's write timeout is shorter than a long poll.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(timeout + 30*time.Second))
	expired := make(chan struct{})
	stop := t.srv.clock.AfterFunc(timeout, func() { close(expired) })
	defer stop()
	for {
		p, e := withLock(t.store, func(st *state) (polled, *apiError) {
			rec := st.analyses[id]
			if rec == nil {
				return polled{}, analysisNotFound(id)
			}
			return polled{body: rec.encodedJSON(), done: rec.done(), changed: rec.changed}, nil
		})
		if e != nil {
			return e
		}
		body := p.body
		if p.done {
			writeRawJSON(w, http.StatusOK, body)
			return nil
		}
		if f := t.srv.cfg.pollWaiting; f != nil {
			f()
		}
		select {
		case <-p.changed:
			continue
		case <-r.Context().Done():
			return nil
		case <-expired:
		case <-t.srv.closing:
		}
		// The analysis as it stands now: a change that came with the
		// timeout (a fake clock moves both at once) is not left out.
		if now, e := t.store.analysisJSON(id); e == nil {
			body = now
		}
		writeRawJSON(w, http.StatusOK, body)
		return nil
	}
}

// polled is what a long poll reads of its analysis: its JSON, whether the
// poll ends, and the channel closed at its next change.
type polled struct {
	body    []byte
	done    bool
	changed <-chan struct{}
}

func handleDeleteAnalysis(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	id := pathVar(r, "analysisId")
	if e := t.store.do(func(st *state) *apiError { return st.deleteAnalysis(id) }); e != nil {
		return e
	}
	noContent(w)
	return nil
}

func handleListAnalyses(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	pid := pathVar(r, "profileId")
	q, e := t.srv.parseListQuery(r, "analyses:"+pid)
	if e != nil {
		return e
	}
	page, e := withLock(t.store, func(st *state) (pageBody[json.RawMessage], *apiError) {
		return st.listAnalyses(pid, q, t.srv.encodeCursor)
	})
	if e != nil {
		return e
	}
	writePage(w, page)
	return nil
}
