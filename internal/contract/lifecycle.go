package contract

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"
)

// maxAnalyses is how many analyses a profile keeps.
const maxAnalyses = 5

// holdScript makes an analysis of the mock last longer than the shortest
// long poll, so that the poll is held to its timeout; to a real service it
// is a line of text.
const holdScript = "profilesvc-contract: this document makes the mock's analysis last 15 seconds. mock:duration=15s"

// retention checks the long rules: the analyses a profile keeps, and a
// long poll held to its timeout.
func (s *suite) retention(ctx context.Context) {
	s.check("assume.client-metadata", Assumption, secGaps, "a start's options and clientMetadata (which the SDK sends) are kept and shown in the analysis", func() error { return checkAssumeClientMetadata(ctx, s) })
	s.check("limits.analyses-retained", Rule, secStates, "a sixth analysis of a profile deletes the oldest: five are retained", func() error { return checkLimitsAnalysesRetained(ctx, s) })
	s.check("longpoll.holds", Rule, "Endpoints: GET /v1/analyses/{analysisId}", "a long poll (timeoutSeconds=10) on an analysis still running (a document that makes the mock's last 15 s) is held until its timeout: it answers after 10 s, not much later, the analysis not ended", func() error { return checkLongpollHolds(ctx, s) })
}

// deletions checks the deletion of a folder and of an analysis, and the
// errors of what is no longer there.
func (s *suite) deletions(ctx context.Context) {
	s.check("endpoints.delete-folder", Rule, "Endpoints: DELETE /v1/folders/{folderId}", "deleting a folder answers 204", func() error { return checkEndpointsDeleteFolder(ctx, s) })
	s.check("endpoints.delete-folder-items", Rule, "Endpoints: DELETE /v1/folders/{folderId}", "deleting a folder deletes its items: updating one is refused with 404 ITEM_NOT_FOUND", func() error { return checkEndpointsDeleteFolderItems(ctx, s) })
	s.check("errors.svc-3009", Rule, secErrors, "reading a folder that does not exist (deleted) is refused with 404 SVC_3009 (or FOLDER_NOT_FOUND, which the table also lists)", func() error { return checkErrorsSvc3009(ctx, s) })
	s.check("errors.folder-not-found", Rule, secErrors, "renaming and deleting a folder that does not exist are refused with 404 FOLDER_NOT_FOUND", func() error { return checkErrorsFolderNotFound(ctx, s) })

	// The completed analysis, or, when the retention of five has deleted
	// it, the newest: every analysis of the suite's has ended by now.
	s.st.toDelete = s.st.done
	if s.st.toDelete != "" && !slices.Contains(s.st.analyses, s.st.toDelete) && len(s.st.analyses) > 0 {
		s.st.toDelete = s.st.analyses[len(s.st.analyses)-1]
	}
	s.check("endpoints.delete-analysis", Rule, "Endpoints: DELETE /v1/analyses/{analysisId}", "deleting an analysis that has ended answers 204", func() error { return checkEndpointsDeleteAnalysis(ctx, s) })
	s.check("errors.analysis-not-found", Rule, secErrors, "the report and the deletion of an analysis that does not exist (deleted) are refused with 404 ANALYSIS_NOT_FOUND", func() error { return checkErrorsAnalysisNotFound(ctx, s) })
	s.check("assume.get-unknown-analysis", Assumption, secGaps, "reading an analysis that does not exist (deleted) is refused with 404 ANALYSIS_NOT_FOUND", func() error { return checkAssumeGetUnknownAnalysis(ctx, s) })
}

// mockCodes checks the codes the SDK and the mock give what the document
// leaves open, on the suite's own profile.
func (s *suite) mockCodes(ctx context.Context) {
	have := s.st.profileID != ""
	path, pid := "/v1/profiles/{profileId}", s.st.profileID
	checks := []struct {
		id, what string
		r        request
		status   int
		code     string
	}{
		{"assume.unknown-route", "a path that is no route is answered 404 NOT_FOUND",
			request{method: "GET", path: path + "/profilesvc-contract", id: pid}, http.StatusNotFound, "NOT_FOUND"},
		{"assume.method-not-allowed", "a method a route does not have is answered 405 METHOD_NOT_ALLOWED",
			request{method: "PUT", path: path, id: pid, json: map[string]any{"name": s.cfg.Name}}, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED"},
		{"assume.unsupported-media-type", "a body that is not JSON is refused with 415 UNSUPPORTED_MEDIA_TYPE",
			request{method: "PATCH", path: path, id: pid, raw: []byte("name=x"), contentType: "text/plain"}, http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE"},
		{"assume.payload-too-large", "a JSON body of 2 MiB is refused with 413 PAYLOAD_TOO_LARGE (the mock's limit is 1 MiB)",
			request{method: "PATCH", path: path, id: pid, raw: largeBody(2 << 20), contentType: "application/json"}, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE"},
	}
	for _, c := range checks {
		s.check(c.id, Assumption, secGaps, c.what, func() error {
			if err := need(have, "the profile"); err != nil {
				return err
			}
			return expect(s.c.do(ctx, c.r), c.status, c.code)
		})
	}
	s.check("assume.request-id", Assumption, "Errors (APIError.RequestID)", "every answer carries a request ID in X-Request-Id", func() error { return checkAssumeRequestId(ctx, s) })
	s.check("assume.documented-fields", Assumption, "Resources and their fields", "every answer carries only the fields api/openapi.yaml lists (a field more breaks no rule, and the SDK ignores it)", func() error { return checkAssumeDocumentedFields(s) })
}

// largeBody is the JSON object {"description": "xx…"} whose description
// is n x's, written out: the bytes json.Marshal makes, without escaping
// megabytes a byte at a time.
func largeBody(n int) []byte {
	b := make([]byte, 0, n+len(`{"description":""}`))
	b = append(b, `{"description":"`...)
	b = append(b, strings.Repeat("x", n)...)
	return append(b, `"}`...)
}

// profileDeletion deletes the suite's profile, checking that what it held
// went with it, and the errors of a profile that is no longer there.
func (s *suite) profileDeletion(ctx context.Context) {
	pid := s.st.profileID
	s.check("endpoints.delete-profile", Rule, "Endpoints: DELETE /v1/profiles/{profileId}", "deleting a profile answers 204", func() error { return checkEndpointsDeleteProfile(ctx, s) })
	s.check("endpoints.delete-profile-cascades", Rule, "Endpoints: DELETE /v1/profiles/{profileId}",
		"deleting a profile removes its folders, items and analyses: each is 404", func() error { return checkEndpointsDeleteProfileCascades(ctx, s) })
	notFound := []struct {
		id, what string
		r        request
		code     string
	}{
		{"errors.profile-not-found", "updating, deleting and analysing a profile that does not exist (deleted) are refused with 404 PROFILE_NOT_FOUND",
			request{method: "PATCH", path: "/v1/profiles/{profileId}", id: pid, json: map[string]any{"name": "x"}}, "PROFILE_NOT_FOUND"},
		{"errors.svc-3005", "listing the folders of a profile that does not exist (deleted) is refused with 404 SVC_3005",
			request{method: "GET", path: "/v1/profiles/{profileId}/folders", id: pid}, "SVC_3005"},
	}
	for _, c := range notFound {
		s.check(c.id, Rule, secErrors, c.what, func() error {
			if err := need(s.st.profileDeleted, "the deleted profile"); err != nil {
				return err
			}
			if err := expect(s.c.do(ctx, c.r), http.StatusNotFound, c.code); err != nil {
				return err
			}
			if c.code != "PROFILE_NOT_FOUND" {
				return nil
			}
			if err := expect(s.c.do(ctx, request{method: "DELETE", path: "/v1/profiles/{profileId}", id: pid}), http.StatusNotFound, c.code); err != nil {
				return err
			}
			return expect(s.c.do(ctx, request{method: "POST", path: "/v1/analyses/{profileId}/analyze", id: pid, json: targets("item_x")}), http.StatusNotFound, c.code)
		})
	}
}

// cleanup deletes every profile the suite made, with a context of its
// own, so that it runs after an interruption too. It sends the DELETE
// again for a profile the checks deleted, trusting no 204: that one must
// be gone (404); a second 204 shows a delete that did not delete.
func (s *suite) cleanup(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*s.cfg.RequestTimeout)
	defer cancel()
	for _, id := range s.created {
		a := s.c.do(ctx, request{method: "DELETE", path: "/v1/profiles/{profileId}", id: id})
		byChecks := slices.Contains(s.deleted, id)
		line, ok := "profile "+id+": deleted", true
		switch {
		case byChecks && a.status == http.StatusNotFound:
			line = "profile " + id + ": deleted by the checks (gone: 404)"
		case byChecks && a.status == http.StatusNoContent:
			line, ok = "profile "+id+": STILL THERE after the checks' DELETE answered 204 (a second DELETE answered 204 again): check that it is gone, or delete it yourself", false
		case a.status == http.StatusNoContent || a.status == http.StatusNotFound && a.errorCode() == "PROFILE_NOT_FOUND":
		default:
			line, ok = fmt.Sprintf("profile %s: NOT deleted (%s): delete it yourself", id, a.describe()), false
		}
		s.report.Cleanup = append(s.report.Cleanup, line)
		if !ok {
			s.report.CleanupFailed = true
		} else if s.cfg.OnProfile != nil {
			s.cfg.OnProfile(id, true)
		}
	}
}

// checkAssumeClientMetadata runs the check assume.client-metadata.
func checkAssumeClientMetadata(ctx context.Context, s *suite) error {
	if err := need(s.haveEnded(), "an analysis that has ended"); err != nil {
		return err
	}
	body := targets(s.st.textItem)
	body["options"] = map[string]any{"note": "profilesvc-contract"}
	body["clientMetadata"] = map[string]any{"suite": "profilesvc-contract"}
	a, id := s.start(ctx, body)
	if err := expect(a, http.StatusAccepted); err != nil {
		return err
	}
	an, err := s.wait(ctx, id)
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(an.Options, body["options"]) || !reflect.DeepEqual(an.ClientMetadata, body["clientMetadata"]) {
		return fail(`options {"note":"profilesvc-contract"} and clientMetadata {"suite":"profilesvc-contract"}`,
			fmt.Sprintf("options %v, clientMetadata %v", an.Options, an.ClientMetadata))
	}
	return nil
}

// checkLimitsAnalysesRetained runs the check limits.analyses-retained.
func checkLimitsAnalysesRetained(ctx context.Context, s *suite) error {
	if err := need(s.haveEnded(), "an analysis that has ended"); err != nil {
		return err
	}
	for len(s.st.analyses) < maxAnalyses+1 {
		a, id := s.start(ctx, targets(s.st.textItem))
		if err := expect(a, http.StatusAccepted); err != nil {
			return err
		}
		if _, err := s.wait(ctx, id); err != nil {
			return err
		}
	}
	oldest := s.st.analyses[0]
	s.st.analyses = s.st.analyses[1:]
	if a := s.c.do(ctx, request{method: "GET", path: "/v1/analyses/{analysisId}", id: oldest}); a.status != http.StatusNotFound {
		return fail("the oldest analysis, "+oldest+", deleted: 404", a.describe())
	}
	for _, id := range s.st.analyses {
		if err := expect(s.c.do(ctx, request{method: "GET", path: "/v1/analyses/{analysisId}", id: id}), http.StatusOK); err != nil {
			return fmt.Errorf("analysis %s, one of the five newest: %w", id, err)
		}
	}
	return nil
}

// checkLongpollHolds runs the check longpoll.holds.
func checkLongpollHolds(ctx context.Context, s *suite) error {
	if err := need(s.haveEnded() && s.st.defaultFolder != "", "an analysis that has ended"); err != nil {
		return err
	}
	_, it, err := s.createItem(ctx, s.st.defaultFolder, textItem("profilesvc-contract hold", holdScript, nil))
	if err != nil {
		return err
	}
	a, id := s.start(ctx, targets(it.ID))
	if err := expect(a, http.StatusAccepted); err != nil {
		return err
	}
	if len(s.st.analyses) > maxAnalyses {
		s.st.analyses = s.st.analyses[1:]
	}
	poll, an, err := s.get(ctx, id, pollHold)
	if err != nil {
		return err
	}
	if err := heldToTimeout(poll, an, s.cfg.Mock); err != nil {
		return err
	}
	_, err = s.wait(ctx, id)
	return err
}

// The long poll held to its timeout: timeoutSeconds=10 on an analysis
// that runs 15 s must answer, the analysis still running, after 10 s, and
// not much later: holdSlack allows for a real network and a busy service.
const (
	pollHold  = 10 * time.Second
	holdEarly = 500 * time.Millisecond
	holdSlack = 20 * time.Second
)

// heldToTimeout checks a poll of timeoutSeconds=10 on the analysis of
// holdScript. The mock follows the script, so its analysis must still be
// running; a service that does not may have ended it, and then the hold
// cannot be seen.
func heldToTimeout(poll answer, an analysis, mock bool) error {
	took := poll.elapsed.Round(time.Millisecond)
	switch {
	case an.done() && mock:
		return fail("an answer after 10 s with the analysis still running (its document makes it last 15 s)", fmt.Sprintf("status %s after %v", an.Status, took))
	case an.done() && poll.elapsed <= pollHold+holdSlack:
		return skip("the analysis ended (%s) within the poll's 10 s, after %v: the hold to the timeout could not be seen", an.Status, took)
	case poll.elapsed < pollHold-holdEarly:
		return fail("an answer after 10 s, the timeout", fmt.Sprintf("an answer after %v with status %s", took, an.Status))
	case poll.elapsed > pollHold+holdSlack:
		return fail(fmt.Sprintf("an answer by %v, the timeout and %v of slack", pollHold+holdSlack, holdSlack), fmt.Sprintf("an answer after %v", took))
	}
	return nil
}

// checkEndpointsDeleteFolder runs the check endpoints.delete-folder.
func checkEndpointsDeleteFolder(ctx context.Context, s *suite) error {
	if err := need(len(s.st.userFolders) > 1, "a folder of the suite's"); err != nil {
		return err
	}
	f := s.st.userFolders[1]
	if _, it, err := s.createItem(ctx, f.id, textItem("profilesvc-contract in a folder", "In a folder", nil)); err == nil {
		s.st.inFolder = it.ID
	}
	if err := expect(s.c.do(ctx, request{method: "DELETE", path: "/v1/folders/{folderId}", id: f.id}), http.StatusNoContent); err != nil {
		return err
	}
	s.st.deletedFolder = f.id
	s.st.userFolders = append(s.st.userFolders[:1], s.st.userFolders[2:]...)
	return nil
}

// checkEndpointsDeleteFolderItems runs the check endpoints.delete-folder-items.
func checkEndpointsDeleteFolderItems(ctx context.Context, s *suite) error {
	if err := need(s.st.deletedFolder != "" && s.st.inFolder != "", "a deleted folder that held an item"); err != nil {
		return err
	}
	return expect(s.c.do(ctx, request{method: "PATCH", path: "/v1/items/{itemId}", id: s.st.inFolder, json: map[string]any{"name": "x"}}), http.StatusNotFound, "ITEM_NOT_FOUND")
}

// checkErrorsSvc3009 runs the check errors.svc-3009.
func checkErrorsSvc3009(ctx context.Context, s *suite) error {
	if err := need(s.st.deletedFolder != "", "a deleted folder"); err != nil {
		return err
	}
	return expect(s.c.do(ctx, request{method: "GET", path: "/v1/folders/{folderId}", id: s.st.deletedFolder}), http.StatusNotFound, "SVC_3009", "FOLDER_NOT_FOUND")
}

// checkErrorsFolderNotFound runs the check errors.folder-not-found.
func checkErrorsFolderNotFound(ctx context.Context, s *suite) error {
	if err := need(s.st.deletedFolder != "", "a deleted folder"); err != nil {
		return err
	}
	if err := expect(s.c.do(ctx, request{method: "PATCH", path: "/v1/folders/{folderId}", id: s.st.deletedFolder, json: map[string]any{"name": "x"}}), http.StatusNotFound, "FOLDER_NOT_FOUND"); err != nil {
		return err
	}
	return expect(s.c.do(ctx, request{method: "DELETE", path: "/v1/folders/{folderId}", id: s.st.deletedFolder}), http.StatusNotFound, "FOLDER_NOT_FOUND")
}

// checkEndpointsDeleteAnalysis runs the check endpoints.delete-analysis.
func checkEndpointsDeleteAnalysis(ctx context.Context, s *suite) error {
	if err := need(s.st.toDelete != "" && slices.Contains(s.st.analyses, s.st.toDelete), "an analysis that has ended"); err != nil {
		return err
	}
	if err := expect(s.c.do(ctx, request{method: "DELETE", path: "/v1/analyses/{analysisId}", id: s.st.toDelete}), http.StatusNoContent); err != nil {
		return err
	}
	s.st.analyses = slices.DeleteFunc(s.st.analyses, func(v string) bool { return v == s.st.toDelete })
	return nil
}

// checkErrorsAnalysisNotFound runs the check errors.analysis-not-found.
func checkErrorsAnalysisNotFound(ctx context.Context, s *suite) error {
	if err := need((s.st.toDelete != "" && !slices.Contains(s.st.analyses, s.st.toDelete)), "a deleted analysis"); err != nil {
		return err
	}
	if err := expect(s.c.do(ctx, request{method: "GET", path: "/v1/analyses/{analysisId}/report", id: s.st.toDelete}), http.StatusNotFound, "ANALYSIS_NOT_FOUND"); err != nil {
		return err
	}
	return expect(s.c.do(ctx, request{method: "DELETE", path: "/v1/analyses/{analysisId}", id: s.st.toDelete}), http.StatusNotFound, "ANALYSIS_NOT_FOUND")
}

// checkAssumeGetUnknownAnalysis runs the check assume.get-unknown-analysis.
func checkAssumeGetUnknownAnalysis(ctx context.Context, s *suite) error {
	if err := need((s.st.toDelete != "" && !slices.Contains(s.st.analyses, s.st.toDelete)), "a deleted analysis"); err != nil {
		return err
	}
	return expect(s.c.do(ctx, request{method: "GET", path: "/v1/analyses/{analysisId}", id: s.st.toDelete}), http.StatusNotFound, "ANALYSIS_NOT_FOUND")
}

// checkAssumeRequestId runs the check assume.request-id.
func checkAssumeRequestId(ctx context.Context, s *suite) error {
	if len(s.c.noID) > 0 {
		return fail("X-Request-Id on every answer", fmt.Sprintf("%d of %d answers without it, the first to %s", len(s.c.noID), s.c.exchanges, s.c.noID[0]))
	}
	return nil
}

// checkAssumeDocumentedFields runs the check assume.documented-fields.
func checkAssumeDocumentedFields(s *suite) error {
	if len(s.c.extra) > 0 {
		return fail("only the fields the document lists", fmt.Sprintf("%d beyond them: %s", len(s.c.extra), strings.Join(s.c.extra, "; ")))
	}
	return nil
}

// checkEndpointsDeleteProfile runs the check endpoints.delete-profile.
func checkEndpointsDeleteProfile(ctx context.Context, s *suite) error {
	if err := need(s.st.profileID != "", "the profile"); err != nil {
		return err
	}
	if err := expect(s.c.do(ctx, request{method: "DELETE", path: "/v1/profiles/{profileId}", id: s.st.profileID}), http.StatusNoContent); err != nil {
		return err
	}
	s.st.profileDeleted = true
	s.deleted = append(s.deleted, s.st.profileID)
	return nil
}

// checkEndpointsDeleteProfileCascades runs the check endpoints.delete-profile-cascades.
func checkEndpointsDeleteProfileCascades(ctx context.Context, s *suite) error {
	if err := need(s.st.profileDeleted, "the deleted profile"); err != nil {
		return err
	}
	var gone []request
	if s.st.defaultFolder != "" {
		gone = append(gone, request{method: "GET", path: "/v1/folders/{folderId}", id: s.st.defaultFolder})
	}
	if s.st.fileItem != "" {
		gone = append(gone, request{method: "PATCH", path: "/v1/items/{itemId}", id: s.st.fileItem, json: map[string]any{"name": "x"}})
	}
	for _, id := range s.st.analyses {
		gone = append(gone, request{method: "GET", path: "/v1/analyses/{analysisId}/report", id: id})
	}
	for _, r := range gone {
		if a := s.c.do(ctx, r); a.status != http.StatusNotFound {
			return fail(a.target+": 404", a.describe())
		}
	}
	return nil
}

// haveEnded reports whether the suite has its three items and an analysis
// that has ended, which the long checks need.
func (s *suite) haveEnded() bool {
	return s.st.fileItem != "" && s.st.textItem != "" && s.st.jsonItem != "" && len(s.st.analyses) > 0
}
