package mockserver

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver/engine"
	reportpdf "github.com/profilesvc/profilesvc-go/mockserver/internal/report"
)

// handleReport serves a completed analysis's PDF report. Each variant
// (locale, raw data) is rendered once, cached with the analysis, and
// deleted with it.
func handleReport(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
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

// renderReport returns the PDF of a variant, rendering it, outside the lock, on
// first use.
func renderReport(t *Tenant, id string, v reportVariant) ([]byte, *apiError) {
	src, pdf, e := t.store.reportInput(id, v)
	if e != nil || pdf != nil {
		return pdf, e
	}
	pdf, err := reportpdf.Render(reportpdf.Data{Analysis: src.analysis, WorkflowID: src.workflowID, WorkflowName: src.workflowName,
		ProfileName: src.profileName, Locale: v.locale, RawData: v.rawData,
		MediumRiskFrom: engine.MediumRiskFrom, HighRiskFrom: engine.HighRiskFrom})
	if err != nil {
		return nil, errorf(http.StatusInternalServerError, profilesvc.CodeInternal, "the report could not be rendered: %v", err)
	}
	return t.store.keepReport(id, v, pdf), nil
}
