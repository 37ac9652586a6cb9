package mockserver

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
	reportpdf "github.com/profilesvc/profilesvc-go/mockserver/internal/report"
)

// handleReport serves a completed analysis's PDF report. Each variant
// (locale, raw data) is rendered once, cached with the analysis, and
// deleted with it.
func handleReport(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	values := queryOf(r)
	variant := reportVariant{locale: "en"}
	if values.Has(apiroutes.QueryLocale) {
		variant.locale = values.Get(apiroutes.QueryLocale)
		if variant.locale != "en" && variant.locale != "ko" {
			return validation("query parameter %q must be en or ko, not %q", apiroutes.QueryLocale, variant.locale)
		}
	}
	if values.Has(apiroutes.QueryIncludeRawData) {
		v := values.Get(apiroutes.QueryIncludeRawData)
		if v != "true" && v != "false" {
			return validation("query parameter %q must be true or false, not %q", apiroutes.QueryIncludeRawData, v)
		}
		variant.rawData = v == "true"
	}
	id := pathVar(r, "analysisId")
	pdf, e := renderReport(t, id, variant)
	if e != nil {
		return e
	}
	h := w.Header()
	h.Set("Content-Type", "application/pdf")
	h.Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", "analysis_"+id+"_report.pdf"))
	h.Set("Content-Length", strconv.Itoa(len(pdf)))
	w.WriteHeader(http.StatusOK)
	_, _ = bytes.NewReader(pdf).WriteTo(w)
	return nil
}

// renderReport returns the PDF of a variant as the analysis and its
// profile stand, rendering it, outside the lock, when none is kept of
// them as they stand. Concurrent first downloads of one variant wait for
// one rendering.
func renderReport(t *Tenant, id string, v reportVariant) ([]byte, *apiError) {
	src, e := withLock(t.store, func(st *state) (reportSource, *apiError) { return st.reportInput(id, v) })
	if e != nil {
		return nil, e
	}
	if src.kept != nil {
		return src.kept, nil
	}
	key := flightKey{id: id, variant: v, version: src.version}
	pdf, err := t.renders.do(key, func() ([]byte, error) {
		return reportpdf.Render(reportpdf.Data{Analysis: src.analysis, WorkflowID: src.workflowID, WorkflowName: src.workflowName,
			ProfileName: src.profileName, Locale: v.locale, RawData: v.rawData,
			MediumRiskFrom: engine.MediumRiskFrom, HighRiskFrom: engine.HighRiskFrom,
			Documents: reportDocuments(src.items), Facts: src.facts})
	})
	if err != nil {
		return nil, errorf(http.StatusInternalServerError, profilesvc.CodeInternal, "the report could not be rendered: %v", err)
	}
	_ = t.store.do(func(st *state) *apiError { st.keepReport(id, v, src.version, pdf); return nil })
	return pdf, nil
}

// reportDocuments describes the analysed items for the report, with the
// size and SHA-256 digest of their bytes, read outside the lock: the
// store never changes an item's bytes in place.
func reportDocuments(items []InputItem) []reportpdf.Document {
	out := make([]reportpdf.Document, len(items))
	for i, it := range items {
		sum := sha256.Sum256(it.Data)
		out[i] = reportpdf.Document{ItemID: it.ID, Name: it.Name, Type: it.Type, ContentType: it.ContentType,
			UploadedAt: it.CreatedAt, Size: int64(len(it.Data)), SHA256: hex.EncodeToString(sum[:])}
	}
	return out
}

// flightKey names one rendering: a variant of an analysis as it stands.
type flightKey struct {
	id      string
	variant reportVariant
	version reportVersion
}

// flights runs one rendering of each report at a time: a second request
// for the same one waits for the first's result.
type flights struct {
	mu sync.Mutex
	in map[flightKey]*flight
}

// flight is a rendering under way.
type flight struct {
	done chan struct{}
	pdf  []byte
	err  error
}

// do returns the result of render for key, running it unless a rendering
// of key is under way, whose result it waits for.
func (f *flights) do(key flightKey, render func() ([]byte, error)) ([]byte, error) {
	f.mu.Lock()
	if fl, ok := f.in[key]; ok {
		f.mu.Unlock()
		<-fl.done
		return fl.pdf, fl.err
	}
	if f.in == nil {
		f.in = map[flightKey]*flight{}
	}
	fl := &flight{done: make(chan struct{})}
	f.in[key] = fl
	f.mu.Unlock()

	func() {
		// A rendering that panics fails its waiters too, rather than
		// leaving them waiting.
		defer func() {
			if p := recover(); p != nil {
				fl.err = fmt.Errorf("the renderer panicked: %v", p)
			}
		}()
		fl.pdf, fl.err = render()
	}()
	f.mu.Lock()
	delete(f.in, key)
	f.mu.Unlock()
	close(fl.done)
	return fl.pdf, fl.err
}
