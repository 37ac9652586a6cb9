package contract

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// analysis is the part of an analysis's answer the checks read.
type analysis struct {
	ID              string         `json:"id"`
	ProfileID       string         `json:"profileId"`
	Status          string         `json:"status"`
	PrimaryReportID *string        `json:"primaryReportId"`
	ClientMetadata  map[string]any `json:"clientMetadata"`
	RiskAssessment  *struct {
		RiskScore float64 `json:"riskScore"`
	} `json:"riskAssessment"`
}

// done reports whether a long poll on the analysis ends: it has failed, or
// completed with its report.
func (a analysis) done() bool {
	return a.Status == "failed" || a.Status == "completed" && a.PrimaryReportID != nil
}

// start starts an analysis of items and reads its answer; a started one
// is kept, the oldest dropped beyond the five a profile keeps.
func (s *suite) start(ctx context.Context, body map[string]any) (answer, string) {
	a := s.c.do(ctx, request{method: "POST", path: "/v1/analyses/" + s.st.profileID + "/analyze", json: body})
	var got struct {
		ID string `json:"id"`
	}
	if a.status == http.StatusAccepted && a.decode(&got) == nil && got.ID != "" {
		s.st.analyses = append(s.st.analyses, got.ID)
	}
	return a, got.ID
}

// targets is a start's body naming items.
func targets(ids ...string) map[string]any {
	refs := make([]map[string]any, len(ids))
	for i, id := range ids {
		refs[i] = map[string]any{"itemId": id}
	}
	return map[string]any{"targetItems": refs}
}

// get reads an analysis, long polling for hold when it is not zero.
func (s *suite) get(ctx context.Context, id string, hold time.Duration) (answer, analysis, error) {
	r := request{method: "GET", path: "/v1/analyses/" + id}
	if hold > 0 {
		r.query = url.Values{"waitForReport": {"true"}, "timeoutSeconds": {strconv.Itoa(int(hold / time.Second))}}
		r.hold = hold
	}
	a := s.c.do(ctx, r)
	var an analysis
	if err := expect(a, http.StatusOK); err != nil {
		return a, an, err
	}
	return a, an, a.decode(&an)
}

// wait long polls an analysis until it ends, within the configured time:
// every poll must answer the analysis, and one that answers before its
// timeout must have ended.
func (s *suite) wait(ctx context.Context, id string) (analysis, error) {
	deadline := s.cfg.Now().Add(s.cfg.AnalysisTimeout)
	for {
		hold := min(60*time.Second, max(10*time.Second, deadline.Sub(s.cfg.Now()).Truncate(time.Second)))
		a, an, err := s.get(ctx, id, hold)
		if err != nil {
			return an, err
		}
		if an.done() {
			return an, nil
		}
		if a.elapsed < hold-time.Second {
			return an, fail(fmt.Sprintf("the poll held until the report or %v", hold),
				fmt.Sprintf("an answer after %v with status %s and no report", a.elapsed.Round(time.Millisecond), an.Status))
		}
		if s.cfg.Now().After(deadline) || ctx.Err() != nil {
			return an, fail(fmt.Sprintf("the analysis ended within %v", s.cfg.AnalysisTimeout), "status "+an.Status)
		}
	}
}

// analyses checks the start of analyses, its refusals, the rule of one
// running analysis, and waits for the first to end.
func (s *suite) analyses(ctx context.Context) {
	have := s.st.profileID != ""
	pid := s.st.profileID
	section := endpoint("POST", "/v1/analyses/{profileId}/analyze")
	var scratch string
	s.check("assume.delete-item", Assumption, inferred("DELETE", "/v1/items/{itemId}"), "deleting an item answers 204", func() error {
		if err := need(s.st.defaultFolder != "", "the default folder"); err != nil {
			return err
		}
		_, it, err := s.createItem(ctx, s.st.defaultFolder, textItem("profilesvc-contract scratch", "Scratch", nil))
		if err != nil {
			return err
		}
		scratch = it.ID
		return expect(s.c.do(ctx, request{method: "DELETE", path: "/v1/items/" + scratch}), http.StatusNoContent)
	})
	s.check("errors.item-not-found", Rule, secErrors, "updating an item that does not exist (deleted) is refused with 404 ITEM_NOT_FOUND", func() error {
		if err := need(scratch != "", "a deleted item"); err != nil {
			return err
		}
		return expect(s.c.do(ctx, request{method: "PATCH", path: "/v1/items/" + scratch, json: map[string]any{"name": "x"}}), http.StatusNotFound, "ITEM_NOT_FOUND")
	})
	s.check("errors.invalid-item-ids", Rule, secErrors, "a start naming an item that does not exist is refused with 400 INVALID_ITEM_IDS", func() error {
		if err := need(scratch != "" && have, "a deleted item"); err != nil {
			return err
		}
		a, _ := s.start(ctx, targets(scratch))
		return expect(a, http.StatusBadRequest, "INVALID_ITEM_IDS")
	})
	var empty answer
	s.check("limits.target-items", Rule, secLimits, "a start with no target item is refused (at least 1)", func() error {
		if err := need(have, "the profile"); err != nil {
			return err
		}
		empty, _ = s.start(ctx, targets())
		return expectRefused(empty)
	})
	s.check("assume.target-items-code", Assumption, secGaps, "a start with no target item is refused with 400 VALIDATION_ERROR", func() error {
		if err := need(empty.status != 0, "the refused start"); err != nil {
			return err
		}
		return expect(empty, http.StatusBadRequest, "VALIDATION_ERROR")
	})
	var inactive answer
	s.check("states.inactive-item", Rule, secStates, "a start naming an item that is not ACTIVE is refused", func() error {
		if err := need(s.st.defaultFolder != "", "the default folder"); err != nil {
			return err
		}
		if !s.report.Mock {
			return skip("only the mock's control API can make an item that is not ACTIVE")
		}
		_, it, err := s.createItem(ctx, s.st.defaultFolder, textItem("profilesvc-contract inactive", "Inactive", nil))
		if err != nil {
			return err
		}
		set := s.c.do(ctx, request{method: "POST", path: "/_mock/items/" + it.ID + "/status", json: map[string]any{"status": "PROCESSING"}})
		if set.status != http.StatusOK {
			return fail("the mock to set the item's status", set.describe())
		}
		inactive, _ = s.start(ctx, targets(it.ID))
		return expectRefused(inactive)
	})
	s.check("assume.inactive-item", Assumption, secGaps, "a start naming an item that is not ACTIVE is refused with 400 INVALID_ITEM_IDS", func() error {
		if err := need(inactive.status != 0, "the refused start"); err != nil {
			return err
		}
		return expect(inactive, http.StatusBadRequest, "INVALID_ITEM_IDS")
	})
	items := s.st.fileItem != "" && s.st.textItem != "" && s.st.jsonItem != ""
	var first string
	s.check("endpoints.start-analysis", Rule, section, "starting an analysis answers 202 with { id }, an analysis_ ID", func() error {
		if err := need(items, "the three items"); err != nil {
			return err
		}
		a, id := s.start(ctx, targets(s.st.fileItem, s.st.textItem, s.st.jsonItem))
		if err := expect(a, http.StatusAccepted); err != nil {
			return err
		}
		first = id
		return nil
	})
	have = first != ""
	s.check("states.analysis-in-progress", Rule, secStates, "a second start while an analysis is in progress is refused with 409 ANALYSIS_IN_PROGRESS", func() error {
		if err := need(have, "a started analysis"); err != nil {
			return err
		}
		a, second := s.start(ctx, targets(s.st.fileItem))
		if a.status == http.StatusAccepted {
			if _, an, err := s.get(ctx, first, 0); err == nil && (an.Status == "completed" || an.Status == "failed") {
				return skip("the first analysis had ended (%s) before the second start; a second analysis, %s, was started", an.Status, second)
			}
		}
		return expect(a, http.StatusConflict, "ANALYSIS_IN_PROGRESS")
	})
	s.check("errors.report-not-available", Rule, secStates, "the report of an analysis that is not completed is refused with 400 REPORT_NOT_AVAILABLE", func() error {
		if err := need(have, "a started analysis"); err != nil {
			return err
		}
		a := s.c.do(ctx, request{method: "GET", path: "/v1/analyses/" + first + "/report"})
		if a.status == http.StatusOK {
			if _, an, err := s.get(ctx, first, 0); err == nil && an.Status == "completed" {
				return skip("the analysis had completed before its report was asked for")
			}
		}
		return expect(a, http.StatusBadRequest, "REPORT_NOT_AVAILABLE")
	})
	s.check("endpoints.get-analysis", Rule, endpoint("GET", "/v1/analyses/{analysisId}"), "reading an analysis answers 200 with the analysis and its always-present fields", func() error {
		if err := need(have, "a started analysis"); err != nil {
			return err
		}
		a, an, err := s.get(ctx, first, 0)
		if err != nil {
			return err
		}
		if an.ID != first || an.ProfileID != pid {
			return fail("analysis "+first+" of "+pid, excerpt(a.body))
		}
		return nil
	})
	s.check("assume.list-analyses", Assumption, inferred("GET", "/v1/profiles/{profileId}/analyses"), "listing a profile's analyses answers 200 with a page, newest first", func() error {
		if err := need(have, "a started analysis"); err != nil {
			return err
		}
		a := s.c.do(ctx, request{method: "GET", path: "/v1/profiles/" + pid + "/analyses"})
		if err := expect(a, http.StatusOK); err != nil {
			return err
		}
		var page struct {
			Items []analysis `json:"items"`
		}
		if err := a.decode(&page); err != nil {
			return err
		}
		newest := s.st.analyses[len(s.st.analyses)-1]
		if len(page.Items) != len(s.st.analyses) || page.Items[0].ID != newest {
			return fail(fmt.Sprintf("the %d analyses, %s first", len(s.st.analyses), newest), excerpt(a.body))
		}
		return nil
	})
	s.check("longpoll.returns-when-done", Rule, endpoint("GET", "/v1/analyses/{analysisId}"),
		"a long poll (waitForReport=true) is held until the report is generated or its timeout passes", func() error {
			if err := need(have, "a started analysis"); err != nil {
				return err
			}
			last := s.st.analyses[len(s.st.analyses)-1]
			an, err := s.wait(ctx, last)
			if err != nil {
				return err
			}
			if last != first {
				if an, err = s.wait(ctx, first); err != nil {
					return err
				}
			}
			if an.Status == "completed" {
				s.st.done = first
			}
			return nil
		})
}

// reports checks the report of the completed analysis and the bounds of
// the long poll.
func (s *suite) reports(ctx context.Context) {
	id := s.st.done
	have := id != ""
	const why = "a completed analysis"
	section := endpoint("GET", "/v1/analyses/{analysisId}/report")
	s.check("states.report-when-completed", Rule, secStates,
		"the report of a completed analysis is a PDF: 200, application/pdf, an attachment named analysis_{id}_report.pdf", func() error {
			if err := need(have, why); err != nil {
				return err
			}
			a := s.c.do(ctx, request{method: "GET", path: "/v1/analyses/" + id + "/report"})
			if err := expect(a, http.StatusOK); err != nil {
				return err
			}
			return reportAnswer(a, id)
		})
	s.check("endpoints.report-ko-raw", Rule, section, "the report in Korean with raw data (locale=ko, includeRawData=true) is a PDF", func() error {
		if err := need(have, why); err != nil {
			return err
		}
		a := s.c.do(ctx, request{method: "GET", path: "/v1/analyses/" + id + "/report", query: url.Values{"locale": {"ko"}, "includeRawData": {"true"}}})
		if err := expect(a, http.StatusOK); err != nil {
			return err
		}
		return reportAnswer(a, id)
	})
	s.check("assume.report-bad-locale", Assumption, secGaps, "a locale other than en and ko is refused with 400 VALIDATION_ERROR", func() error {
		if err := need(have, why); err != nil {
			return err
		}
		return expect(s.c.do(ctx, request{method: "GET", path: "/v1/analyses/" + id + "/report", query: url.Values{"locale": {"fr"}}}),
			http.StatusBadRequest, "VALIDATION_ERROR")
	})
	s.check("limits.risk-score", Rule, secLimits, "a completed analysis has a risk assessment whose score is 0 to 100", func() error {
		if err := need(have, why); err != nil {
			return err
		}
		a, an, err := s.get(ctx, id, 0)
		if err != nil {
			return err
		}
		if an.RiskAssessment == nil || an.RiskAssessment.RiskScore < 0 || an.RiskAssessment.RiskScore > 100 {
			return fail("riskAssessment.riskScore from 0 to 100", excerpt(a.body))
		}
		return nil
	})
	s.check("limits.long-poll-bounds", Rule, secLimits, "timeoutSeconds=10 and timeoutSeconds=300 are accepted (an ended analysis answers at once)", func() error {
		if err := need(have, why); err != nil {
			return err
		}
		for _, hold := range []time.Duration{10 * time.Second, 300 * time.Second} {
			if _, _, err := s.get(ctx, id, hold); err != nil {
				return err
			}
		}
		return nil
	})
	s.check("assume.long-poll-out-of-bounds", Assumption, secGaps, "timeoutSeconds=9 and timeoutSeconds=301 are refused with 400 VALIDATION_ERROR", func() error {
		if err := need(have, why); err != nil {
			return err
		}
		for _, n := range []string{"9", "301"} {
			a := s.c.do(ctx, request{method: "GET", path: "/v1/analyses/" + id, query: url.Values{"waitForReport": {"true"}, "timeoutSeconds": {n}}, hold: 300 * time.Second})
			if err := expect(a, http.StatusBadRequest, "VALIDATION_ERROR"); err != nil {
				return err
			}
		}
		return nil
	})
	s.check("assume.unknown-query-parameter", Assumption, secGaps, "an unknown query parameter is refused with 400 VALIDATION_ERROR", func() error {
		if err := need(have, why); err != nil {
			return err
		}
		return expect(s.c.do(ctx, request{method: "GET", path: "/v1/analyses/" + id, query: url.Values{"verbose": {"true"}}}), http.StatusBadRequest, "VALIDATION_ERROR")
	})
}

// reportAnswer checks a report's headers and body.
func reportAnswer(a answer, id string) error {
	want := `attachment; filename="analysis_` + id + `_report.pdf"`
	if got := a.header.Get("Content-Disposition"); got != want && got != `attachment; filename=analysis_`+id+`_report.pdf` {
		return fail("Content-Disposition "+want, got)
	}
	if !bytes.HasPrefix(a.body, []byte("%PDF-")) {
		return fail("a PDF document", excerpt(a.body))
	}
	return nil
}
