package mockserver

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
	"github.com/profilesvc/profilesvc-go/mockserver/internal/report"
)

// handleReport serves a completed analysis's PDF report. Each variant
// (locale, raw data) is rendered once, cached with the analysis, and
// deleted with it.
func (t *Tenant) handleReport(w http.ResponseWriter, r *http.Request) *apiError {
	values, e := queryValues(r, "locale", "includeRawData")
	if e != nil {
		return e
	}
	variant := reportVariant{locale: "en"}
	if values.Has("locale") {
		variant.locale = values.Get("locale")
		if variant.locale != "en" && variant.locale != "ko" {
			return validation("query parameter \"locale\" must be en or ko, not %q", variant.locale)
		}
	}
	if values.Has("includeRawData") {
		v := values.Get("includeRawData")
		if v != "true" && v != "false" {
			return validation("query parameter \"includeRawData\" must be true or false, not %q", v)
		}
		variant.rawData = v == "true"
	}
	id := pathVar(r, "analysisId")
	pdf, e := t.report(id, variant)
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

// report returns the PDF of a variant, rendering it on first use.
func (t *Tenant) report(id string, variant reportVariant) ([]byte, *apiError) {
	t.mu.Lock()
	rec := t.st.analyses[id]
	if rec == nil {
		t.mu.Unlock()
		return nil, analysisNotFound(id)
	}
	if rec.a.Status != profilesvc.AnalysisCompleted {
		status := rec.a.Status
		t.mu.Unlock()
		return nil, errorf(http.StatusBadRequest, profilesvc.CodeReportNotAvailable,
			"analysis %q is %s: its report is available once it has completed", id, status)
	}
	if pdf, ok := rec.reports[variant]; ok {
		t.mu.Unlock()
		return pdf, nil
	}
	data := report.Data{Analysis: rec.a, WorkflowID: rec.input.Workflow.ID, WorkflowName: rec.input.Workflow.Name,
		ProfileName: rec.input.Profile.Name, Locale: variant.locale, RawData: variant.rawData,
		MediumRiskFrom: engine.MediumRiskFrom, HighRiskFrom: engine.HighRiskFrom}
	if p := t.st.profiles[rec.a.ProfileID]; p != nil {
		data.ProfileName = p.name
	}
	t.mu.Unlock()

	pdf, err := report.Render(data)
	if err != nil {
		return nil, errorf(http.StatusInternalServerError, profilesvc.CodeInternal, "the report could not be rendered: %v", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if rec := t.st.analyses[id]; rec != nil && rec.reports != nil {
		if cached, ok := rec.reports[variant]; ok {
			return cached, nil
		}
		rec.reports[variant] = pdf
	}
	return pdf, nil
}
