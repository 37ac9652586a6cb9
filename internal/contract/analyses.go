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
	Options         map[string]any `json:"options"`
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
	a := s.c.do(ctx, request{method: "POST", path: "/v1/analyses/{profileId}/analyze", id: s.st.profileID, json: body})
	var got struct {
		ID string `json:"id"`
	}
	if a.status == http.StatusAccepted {
		s.report.Created.Analyses++
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
	r := request{method: "GET", path: "/v1/analyses/{analysisId}", id: id}
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
	section := endpoint("POST", "/v1/analyses/{profileId}/analyze")
	s.check("assume.delete-item", Assumption, inferred("DELETE", "/v1/items/{itemId}"), "deleting an item answers 204", func() error { return checkAssumeDeleteItem(ctx, s) })
	s.check("errors.item-not-found", Rule, secErrors, "updating an item that does not exist (deleted) is refused with 404 ITEM_NOT_FOUND", func() error { return checkErrorsItemNotFound(ctx, s) })
	s.check("errors.invalid-item-ids", Rule, secErrors, "a start naming an item that does not exist is refused with 400 INVALID_ITEM_IDS", func() error { return checkErrorsInvalidItemIds(ctx, s) })
	s.check("errors.invalid-item-ids-other-profile", Rule, secErrors, "a start naming an item of another profile (the suite's second) is refused with 400 INVALID_ITEM_IDS", func() error { return checkErrorsInvalidItemIdsOtherProfile(ctx, s) })
	s.check("limits.target-items", Rule, secLimits, "a start with no target item is refused (at least 1)", func() error { return checkLimitsTargetItems(ctx, s) })
	s.check("assume.target-items-code", Assumption, secGaps, "a start with no target item is refused with 400 VALIDATION_ERROR", func() error { return checkAssumeTargetItemsCode(ctx, s) })
	s.check("states.inactive-item", Rule, secStates, "a start naming an item that is not ACTIVE is refused", func() error { return checkStatesInactiveItem(ctx, s) })
	s.check("assume.inactive-item", Assumption, secGaps, "a start naming an item that is not ACTIVE is refused with 400 INVALID_ITEM_IDS", func() error { return checkAssumeInactiveItem(ctx, s) })
	s.check("endpoints.start-analysis", Rule, section, "starting an analysis answers 202 with { id }, an analysis_ ID", func() error { return checkEndpointsStartAnalysis(ctx, s) })
	s.check("states.analysis-in-progress", Rule, secStates, "a second start while an analysis is in progress is refused with 409 ANALYSIS_IN_PROGRESS", func() error { return checkStatesAnalysisInProgress(ctx, s) })
	s.check("errors.report-not-available", Rule, secStates, "the report of an analysis that is not completed is refused with 400 REPORT_NOT_AVAILABLE", func() error { return checkErrorsReportNotAvailable(ctx, s) })
	s.check("endpoints.get-analysis", Rule, endpoint("GET", "/v1/analyses/{analysisId}"), "reading an analysis answers 200 with the analysis and its always-present fields", func() error { return checkEndpointsGetAnalysis(ctx, s) })
	s.check("assume.list-analyses", Assumption, inferred("GET", "/v1/profiles/{profileId}/analyses"), "listing a profile's analyses answers 200 with a page, newest first", func() error { return checkAssumeListAnalyses(ctx, s) })
	s.check("longpoll.returns-when-done", Rule, endpoint("GET", "/v1/analyses/{analysisId}"),
		"a long poll (waitForReport=true) is held until the report is generated or its timeout passes", func() error { return checkLongpollReturnsWhenDone(ctx, s) })
}

// reports checks the report of the completed analysis and the bounds of
// the long poll.
func (s *suite) reports(ctx context.Context) {
	section := endpoint("GET", "/v1/analyses/{analysisId}/report")
	s.check("states.report-when-completed", Rule, secStates,
		"the report of a completed analysis is a PDF: 200, application/pdf, an attachment named analysis_{id}_report.pdf", func() error { return checkStatesReportWhenCompleted(ctx, s) })
	s.check("endpoints.report-ko-raw", Rule, section, "the report in Korean with raw data (locale=ko, includeRawData=true) is a PDF", func() error { return checkEndpointsReportKoRaw(ctx, s) })
	s.check("assume.report-bad-locale", Assumption, secGaps, "a locale other than en and ko is refused with 400 VALIDATION_ERROR", func() error { return checkAssumeReportBadLocale(ctx, s) })
	s.check("errors.report-not-available-failed", Rule, secStates, "the report of a failed analysis is refused with 400 REPORT_NOT_AVAILABLE (the mock's control API fails one)", func() error { return checkErrorsReportNotAvailableFailed(ctx, s) })
	s.check("limits.risk-score", Rule, secLimits, "a completed analysis has a risk assessment whose score is 0 to 100", func() error { return checkLimitsRiskScore(ctx, s) })
	s.check("limits.long-poll-bounds", Rule, secLimits, "timeoutSeconds=10 and timeoutSeconds=300 are accepted, and a poll on an ended analysis answers at once, well before its timeout", func() error { return checkLimitsLongPollBounds(ctx, s) })
	s.check("assume.long-poll-out-of-bounds", Assumption, secGaps, "timeoutSeconds=9 and timeoutSeconds=301 are refused with 400 VALIDATION_ERROR", func() error { return checkAssumeLongPollOutOfBounds(ctx, s) })
	s.check("assume.unknown-query-parameter", Assumption, secGaps, "an unknown query parameter is refused with 400 VALIDATION_ERROR", func() error { return checkAssumeUnknownQueryParameter(ctx, s) })
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

// checkAssumeDeleteItem runs the check assume.delete-item.
func checkAssumeDeleteItem(ctx context.Context, s *suite) error {
	if err := need(s.st.defaultFolder != "", "the default folder"); err != nil {
		return err
	}
	_, it, err := s.createItem(ctx, s.st.defaultFolder, textItem("profilesvc-contract scratch", "Scratch", nil))
	if err != nil {
		return err
	}
	s.st.scratch = it.ID
	return expect(s.c.do(ctx, request{method: "DELETE", path: "/v1/items/{itemId}", id: s.st.scratch}), http.StatusNoContent)
}

// checkErrorsItemNotFound runs the check errors.item-not-found.
func checkErrorsItemNotFound(ctx context.Context, s *suite) error {
	if err := need(s.st.scratch != "", "a deleted item"); err != nil {
		return err
	}
	return expect(s.c.do(ctx, request{method: "PATCH", path: "/v1/items/{itemId}", id: s.st.scratch, json: map[string]any{"name": "x"}}), http.StatusNotFound, "ITEM_NOT_FOUND")
}

// checkErrorsInvalidItemIds runs the check errors.invalid-item-ids.
func checkErrorsInvalidItemIds(ctx context.Context, s *suite) error {
	if err := need(s.st.scratch != "" && s.st.profileID != "", "a deleted item"); err != nil {
		return err
	}
	a, _ := s.start(ctx, targets(s.st.scratch))
	return expect(a, http.StatusBadRequest, "INVALID_ITEM_IDS")
}

// checkErrorsInvalidItemIdsOtherProfile runs the check
// errors.invalid-item-ids-other-profile: it makes a second profile of the
// suite's, with an item, names the item in a start of the first, and
// deletes the second profile.
func checkErrorsInvalidItemIdsOtherProfile(ctx context.Context, s *suite) error {
	if err := need(s.st.profileID != "", "the profile"); err != nil {
		return err
	}
	body := profileBody(s.cfg.Name + " second")
	created := s.createOwn(ctx, body)
	if err := expect(created, http.StatusCreated); err != nil {
		return err
	}
	other, differs := s.adopt(created, body)
	if other == "" {
		return fail("the second profile sent", differs)
	}
	s.made(other)
	var p createdProfile
	if err := created.decode(&p); err != nil || len(p.Folders) == 0 {
		return fail("the second profile with its default folder", excerpt(created.body))
	}
	_, it, err := s.createItem(ctx, p.Folders[0].ID, textItem("profilesvc-contract other profile", "Of the second profile", nil))
	if err != nil {
		return err
	}
	a, _ := s.start(ctx, targets(it.ID))
	if del := s.c.do(ctx, request{method: "DELETE", path: "/v1/profiles/{profileId}", id: other}); del.status == http.StatusNoContent {
		s.deleted = append(s.deleted, other)
	}
	return expect(a, http.StatusBadRequest, "INVALID_ITEM_IDS")
}

// checkLimitsTargetItems runs the check limits.target-items.
func checkLimitsTargetItems(ctx context.Context, s *suite) error {
	if err := need(s.st.profileID != "", "the profile"); err != nil {
		return err
	}
	s.st.emptyStart, _ = s.start(ctx, targets())
	return expectRefused(s.st.emptyStart)
}

// checkAssumeTargetItemsCode runs the check assume.target-items-code.
func checkAssumeTargetItemsCode(ctx context.Context, s *suite) error {
	if err := need(s.st.emptyStart.status != 0, "the refused start"); err != nil {
		return err
	}
	return expect(s.st.emptyStart, http.StatusBadRequest, "VALIDATION_ERROR")
}

// checkStatesInactiveItem runs the check states.inactive-item.
func checkStatesInactiveItem(ctx context.Context, s *suite) error {
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
	set := s.c.do(ctx, request{method: "POST", path: "/_mock/items/{itemId}/status", id: it.ID, json: map[string]any{"status": "PROCESSING"}})
	if set.status != http.StatusOK {
		return fail("the mock to set the item's status", set.describe())
	}
	s.st.inactive, _ = s.start(ctx, targets(it.ID))
	return expectRefused(s.st.inactive)
}

// checkAssumeInactiveItem runs the check assume.inactive-item.
func checkAssumeInactiveItem(ctx context.Context, s *suite) error {
	if err := need(s.st.inactive.status != 0, "the refused start"); err != nil {
		return err
	}
	return expect(s.st.inactive, http.StatusBadRequest, "INVALID_ITEM_IDS")
}

// checkEndpointsStartAnalysis runs the check endpoints.start-analysis.
func checkEndpointsStartAnalysis(ctx context.Context, s *suite) error {
	if err := need((s.st.fileItem != "" && s.st.textItem != "" && s.st.jsonItem != ""), "the three items"); err != nil {
		return err
	}
	a, id := s.start(ctx, targets(s.st.fileItem, s.st.textItem, s.st.jsonItem))
	if err := expect(a, http.StatusAccepted); err != nil {
		return err
	}
	s.st.first = id
	return nil
}

// checkStatesAnalysisInProgress runs the check states.analysis-in-progress.
func checkStatesAnalysisInProgress(ctx context.Context, s *suite) error {
	if err := need(s.st.first != "", "a started analysis"); err != nil {
		return err
	}
	a, second := s.start(ctx, targets(s.st.fileItem))
	if a.status == http.StatusAccepted {
		if _, an, err := s.get(ctx, s.st.first, 0); err == nil && (an.Status == "completed" || an.Status == "failed") {
			return skip("the first analysis had ended (%s) before the second start; a second analysis, %s, was started", an.Status, second)
		}
	}
	return expect(a, http.StatusConflict, "ANALYSIS_IN_PROGRESS")
}

// checkErrorsReportNotAvailable runs the check errors.report-not-available.
func checkErrorsReportNotAvailable(ctx context.Context, s *suite) error {
	if err := need(s.st.first != "", "a started analysis"); err != nil {
		return err
	}
	a := s.c.do(ctx, request{method: "GET", path: "/v1/analyses/{analysisId}/report", id: s.st.first})
	if a.status == http.StatusOK {
		if _, an, err := s.get(ctx, s.st.first, 0); err == nil && an.Status == "completed" {
			return skip("the analysis had completed before its report was asked for")
		}
	}
	return expect(a, http.StatusBadRequest, "REPORT_NOT_AVAILABLE")
}

// checkEndpointsGetAnalysis runs the check endpoints.get-analysis.
func checkEndpointsGetAnalysis(ctx context.Context, s *suite) error {
	if err := need(s.st.first != "", "a started analysis"); err != nil {
		return err
	}
	a, an, err := s.get(ctx, s.st.first, 0)
	if err != nil {
		return err
	}
	if an.ID != s.st.first || an.ProfileID != s.st.profileID {
		return fail("analysis "+s.st.first+" of "+s.st.profileID, excerpt(a.body))
	}
	return nil
}

// checkAssumeListAnalyses runs the check assume.list-analyses.
func checkAssumeListAnalyses(ctx context.Context, s *suite) error {
	if err := need(s.st.first != "", "a started analysis"); err != nil {
		return err
	}
	a := s.c.do(ctx, request{method: "GET", path: "/v1/profiles/{profileId}/analyses", id: s.st.profileID})
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
}

// checkLongpollReturnsWhenDone runs the check longpoll.returns-when-done.
func checkLongpollReturnsWhenDone(ctx context.Context, s *suite) error {
	if err := need(s.st.first != "", "a started analysis"); err != nil {
		return err
	}
	last := s.st.analyses[len(s.st.analyses)-1]
	an, err := s.wait(ctx, last)
	if err != nil {
		return err
	}
	if last != s.st.first {
		if an, err = s.wait(ctx, s.st.first); err != nil {
			return err
		}
	}
	if an.Status == "completed" {
		s.st.done = s.st.first
	}
	return nil
}

// checkStatesReportWhenCompleted runs the check states.report-when-completed.
func checkStatesReportWhenCompleted(ctx context.Context, s *suite) error {
	if err := need(s.st.done != "", "a completed analysis"); err != nil {
		return err
	}
	a := s.c.do(ctx, request{method: "GET", path: "/v1/analyses/{analysisId}/report", id: s.st.done})
	if err := expect(a, http.StatusOK); err != nil {
		return err
	}
	return reportAnswer(a, s.st.done)
}

// checkEndpointsReportKoRaw runs the check endpoints.report-ko-raw.
func checkEndpointsReportKoRaw(ctx context.Context, s *suite) error {
	if err := need(s.st.done != "", "a completed analysis"); err != nil {
		return err
	}
	a := s.c.do(ctx, request{method: "GET", path: "/v1/analyses/{analysisId}/report", id: s.st.done, query: url.Values{"locale": {"ko"}, "includeRawData": {"true"}}})
	if err := expect(a, http.StatusOK); err != nil {
		return err
	}
	return reportAnswer(a, s.st.done)
}

// checkAssumeReportBadLocale runs the check assume.report-bad-locale.
func checkAssumeReportBadLocale(ctx context.Context, s *suite) error {
	if err := need(s.st.done != "", "a completed analysis"); err != nil {
		return err
	}
	return expect(s.c.do(ctx, request{method: "GET", path: "/v1/analyses/{analysisId}/report", id: s.st.done, query: url.Values{"locale": {"fr"}}}),
		http.StatusBadRequest, "VALIDATION_ERROR")
}

// checkErrorsReportNotAvailableFailed runs the check
// errors.report-not-available-failed.
func checkErrorsReportNotAvailableFailed(ctx context.Context, s *suite) error {
	if err := need(s.st.done != "" && s.st.textItem != "", "a completed analysis"); err != nil {
		return err
	}
	if !s.cfg.Mock {
		return skip("only the mock's control API can fail an analysis")
	}
	a, id := s.start(ctx, targets(s.st.textItem))
	if err := expect(a, http.StatusAccepted); err != nil {
		return err
	}
	failed := s.c.do(ctx, request{method: "POST", path: "/_mock/analyses/{analysisId}/fail", id: id, json: map[string]any{"error": "failed by profilesvc-contract"}})
	if failed.status != http.StatusOK {
		return fail("the mock to fail the analysis", failed.describe())
	}
	if _, an, err := s.get(ctx, id, 0); err != nil || an.Status != "failed" {
		return fail("the analysis failed", fmt.Sprintf("status %q (%v)", an.Status, err))
	}
	return expect(s.c.do(ctx, request{method: "GET", path: "/v1/analyses/{analysisId}/report", id: id}), http.StatusBadRequest, "REPORT_NOT_AVAILABLE")
}

// checkLimitsRiskScore runs the check limits.risk-score.
func checkLimitsRiskScore(ctx context.Context, s *suite) error {
	if err := need(s.st.done != "", "a completed analysis"); err != nil {
		return err
	}
	a, an, err := s.get(ctx, s.st.done, 0)
	if err != nil {
		return err
	}
	if an.RiskAssessment == nil || an.RiskAssessment.RiskScore < 0 || an.RiskAssessment.RiskScore > 100 {
		return fail("riskAssessment.riskScore from 0 to 100", excerpt(a.body))
	}
	return nil
}

// checkLimitsLongPollBounds runs the check limits.long-poll-bounds.
func checkLimitsLongPollBounds(ctx context.Context, s *suite) error {
	if err := need(s.st.done != "", "a completed analysis"); err != nil {
		return err
	}
	for _, hold := range []time.Duration{10 * time.Second, 300 * time.Second} {
		a, _, err := s.get(ctx, s.st.done, hold)
		if err != nil {
			return err
		}
		if a.elapsed >= hold/2 {
			return fail(fmt.Sprintf("timeoutSeconds=%d on an ended analysis answered at once (well within %v)", int(hold/time.Second), hold/2),
				fmt.Sprintf("an answer after %v", a.elapsed.Round(time.Millisecond)))
		}
	}
	return nil
}

// checkAssumeLongPollOutOfBounds runs the check assume.long-poll-out-of-bounds.
func checkAssumeLongPollOutOfBounds(ctx context.Context, s *suite) error {
	if err := need(s.st.done != "", "a completed analysis"); err != nil {
		return err
	}
	for _, n := range []string{"9", "301"} {
		a := s.c.do(ctx, request{method: "GET", path: "/v1/analyses/{analysisId}", id: s.st.done, query: url.Values{"waitForReport": {"true"}, "timeoutSeconds": {n}}, hold: 300 * time.Second})
		if err := expect(a, http.StatusBadRequest, "VALIDATION_ERROR"); err != nil {
			return err
		}
	}
	return nil
}

// checkAssumeUnknownQueryParameter runs the check assume.unknown-query-parameter.
func checkAssumeUnknownQueryParameter(ctx context.Context, s *suite) error {
	if err := need(s.st.done != "", "a completed analysis"); err != nil {
		return err
	}
	return expect(s.c.do(ctx, request{method: "GET", path: "/v1/analyses/{analysisId}", id: s.st.done, query: url.Values{"verbose": {"true"}}}), http.StatusBadRequest, "VALIDATION_ERROR")
}
