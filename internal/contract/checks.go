package contract

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Sections of the interface document the checks come from.
const (
	secAuth    = "Authentication"
	secStates  = "States and transitions"
	secLimits  = "Limits"
	secErrors  = "Errors"
	secGaps    = "Errors: gaps"
	secNoLimit = "Limits: not shown"
)

// endpoint is the section of a published endpoint; inferred that of one
// the document does not show.
func endpoint(method, path string) string { return "Endpoints: " + method + " " + path }
func inferred(method, path string) string {
	return "Endpoints: not shown (inferred " + method + " " + path + ")"
}

// state is what the suite has made so far.
type state struct {
	profileID     string
	defaultFolder string
	userFolders   []folderRef // by name: "profilesvc-contract folder 01", ...
	fileItem      string
	textItem      string
	jsonItem      string
	// analyses are the suite's analyses, oldest first; deleted ones are
	// dropped.
	analyses []string
	// done is the analysis the report checks read, once it has completed.
	done string

	// What a check leaves for the next ones.
	createAnswer   answer         // the create-profile answer
	createDiffers  string         // how it differs from the profile sent
	createdProfile createdProfile // ... decoded
	longName       answer         // the answer to a name too long
	cursor         *string        // the nextCursor of the first page of folders
	newItems       []item         // the items made, as their answers showed them
	fileContent    answer         // the answer to a file item's new content
	scratch        string         // an item made and deleted
	emptyStart     answer         // the answer to a start with no items
	inactive       answer         // the answer to a start with an item not ACTIVE
	first          string         // the first analysis
	deletedFolder  string         // a folder made and deleted
	inFolder       string         // an item of the deleted folder
	toDelete       string         // the analysis the deletion checks delete
	profileDeleted bool           // the profile has been deleted by the checks
}

// createdProfile is the part of the create-profile answer the checks
// read.
type createdProfile struct {
	ID             string  `json:"id"`
	ItemsCount     *int    `json:"itemsCount"`
	LastAnalysisAt *string `json:"lastAnalysisAt"`
	Folders        []struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		IsDefault bool   `json:"isDefault"`
	} `json:"folders"`
}

// folderRef is a folder as a listing shows it.
type folderRef struct {
	id, name             string
	createdAt, updatedAt time.Time
}

// run runs the checks in order; a check's outcome may leave later ones
// without what they need, and they are skipped. It returns an error only
// when the suite cannot run at all.
func (s *suite) run(ctx context.Context) error {
	if err := s.createProfile(ctx); err != nil {
		return err
	}
	steps := []func(context.Context){
		s.authentication,
		s.profiles,
		s.folders,
		s.items,
		s.analyses,
		s.reports,
		s.retention,
		s.deletions,
		s.mockCodes,
		s.profileDeletion,
	}
	for _, step := range steps {
		if ctx.Err() != nil {
			return nil
		}
		step(ctx)
	}
	return nil
}

// need skips a check whose prerequisite is missing.
func need(ok bool, what string) error {
	if !ok {
		return skip("needs %s, which an earlier check could not make", what)
	}
	return nil
}

// expect checks an answer's status and, for an error, its code, then the
// exchange against the document.
func expect(a answer, status int, codes ...string) error {
	want := fmt.Sprint(status)
	if len(codes) > 0 {
		want += " " + strings.Join(codes, " or ")
	}
	if a.err != nil {
		return fail(want, a.describe())
	}
	if a.status != status || len(codes) > 0 && !slices.Contains(codes, a.errorCode()) {
		return fail(want, a.describe()+": "+excerpt(a.body))
	}
	return conforms(a)
}

// conforms checks the exchange against the document.
func conforms(a answer) error {
	if a.mismatch != nil {
		return fail("an exchange as api/openapi.yaml has it", a.mismatch.Error())
	}
	return nil
}

// expectRefused checks that a request was refused with a 4xx answer.
func expectRefused(a answer) error {
	if a.err != nil {
		return fail("a 4xx answer", a.describe())
	}
	if a.status < 400 || a.status > 499 {
		return fail("a 4xx answer", a.describe()+": "+excerpt(a.body))
	}
	return conforms(a)
}

// profileDescription is the description of the suite's profiles.
const profileDescription = "Made by profilesvc-contract; deleted when it ends."

// profileBody is the create body of a profile of the suite's named name.
func profileBody(name string) map[string]any {
	return map[string]any{"name": name, "description": profileDescription, "metadata": map[string]any{"createdBy": "profilesvc-contract"}}
}

// createOwn sends the create of a profile of the suite's. It is sent with
// a context of its own, which an interruption does not cancel, so that a
// profile the service made is never left without its ID being known; when
// no answer came all the same, the report says that the profile may
// exist.
func (s *suite) createOwn(ctx context.Context, body map[string]any) answer {
	a := s.c.do(context.WithoutCancel(ctx), request{method: "POST", path: "/v1/workflows/{workflowId}/profiles", id: s.cfg.WorkflowID, json: body})
	var away *otherOrigin
	switch {
	case errors.As(a.err, &away):
		s.mayBeLeft(fmt.Sprint(body["name"]), "its create was "+away.Error())
	case a.err != nil && !neverSent(a.err):
		s.mayBeLeft(fmt.Sprint(body["name"]), "its create got no answer")
	}
	return a
}

// neverSent reports whether a request failed before it could reach the
// service: no connection was made.
func neverSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// mayBeLeft records that a profile of the suite's may exist without the
// suite knowing its ID, so that the person deletes it.
func (s *suite) mayBeLeft(name, why string) {
	s.report.CleanupFailed = true
	s.report.Cleanup = append(s.report.Cleanup, fmt.Sprintf("a profile named %q may exist (%s): delete it yourself", name, why))
}

// adopt returns the ID of the profile a create answered, when the answer
// is a success that describes the profile sent ("" otherwise), and how it
// differs from what was sent.
func (s *suite) adopt(a answer, body map[string]any) (id, differs string) {
	if a.err != nil || a.status < 200 || a.status > 299 {
		return "", ""
	}
	var p struct {
		ID          string         `json:"id"`
		WorkflowID  string         `json:"workflowId"`
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Metadata    map[string]any `json:"metadata"`
	}
	if a.decode(&p) != nil || p.ID == "" {
		return "", ""
	}
	var diffs []string
	for _, d := range []struct {
		field     string
		got, want any
	}{
		{"name", p.Name, body["name"]},
		{"description", p.Description, body["description"]},
		{"metadata", p.Metadata, body["metadata"]},
		{"workflowId", p.WorkflowID, s.cfg.WorkflowID},
	} {
		if d.want != nil && !reflect.DeepEqual(d.got, d.want) {
			diffs = append(diffs, fmt.Sprintf("%s %v, not %v", d.field, d.got, d.want))
		}
	}
	if len(diffs) > 0 {
		return "", p.ID + ": " + strings.Join(diffs, ", ")
	}
	return p.ID, ""
}

// createProfile creates the suite's profile, or finds why the suite
// cannot run.
func (s *suite) createProfile(ctx context.Context) error {
	body := profileBody(s.cfg.Name)
	a := s.createOwn(ctx, body)
	switch {
	case a.err != nil && neverSent(a.err):
		return fmt.Errorf("%w: no connection to %s: %v", ErrCannotRun, s.c.base, a.err)
	case errors.As(a.err, new(*otherOrigin)):
		return fmt.Errorf("%w: the profile's create was %v; a profile named %q may exist: delete it yourself", ErrCannotRun, a.err, s.cfg.Name)
	case a.err != nil:
		return fmt.Errorf("%w: no answer from %s to the profile's create: %v; a profile named %q may exist: delete it yourself", ErrCannotRun, s.c.base, a.err, s.cfg.Name)
	case a.status == http.StatusUnauthorized:
		return fmt.Errorf("%w: the service refused the API key (401 %s)", ErrCannotRun, a.errorCode())
	case a.status == http.StatusNotFound:
		return fmt.Errorf("%w: workflow %s is not there (404 %s): name one of the service's with -workflow", ErrCannotRun, s.cfg.WorkflowID, a.errorCode())
	}
	s.st.createAnswer = a
	id, differs := s.adopt(a, body)
	if differs != "" {
		s.st.createDiffers = differs
		s.check("endpoints.create-profile", Rule, endpoint("POST", "/v1/workflows/{workflowId}/profiles"), createWhat, func() error { return checkEndpointsCreateProfile(ctx, s) })
		s.mayBeLeft(s.cfg.Name, "the create answered another profile, "+differs)
		return fmt.Errorf("%w: the answer to the profile's create describes another profile (%s): the suite touches nothing it has not made", ErrCannotRun, differs)
	}
	if id != "" {
		s.made(id)
		s.st.profileID = id
		s.report.ProfileID = id
		_ = a.decode(&s.st.createdProfile)
	}
	if ctx.Err() != nil {
		return nil // interrupted: the profile, if made, is deleted
	}
	s.check("endpoints.create-profile", Rule, endpoint("POST", "/v1/workflows/{workflowId}/profiles"), createWhat, func() error { return checkEndpointsCreateProfile(ctx, s) })
	s.check("states.default-folder", Rule, secStates,
		"a profile is created with one default folder: isDefault true, name \"default\"", func() error { return checkStatesDefaultFolder(ctx, s) })
	return nil
}

// createWhat is what endpoints.create-profile checks.
const createWhat = "creating a profile answers 201 with the profile sent (name, description, metadata, workflowId): itemsCount 0, lastAnalysisAt null, a folders array"

// authentication checks the answers to a missing and a wrong key.
func (s *suite) authentication(ctx context.Context) {
	path := "/v1/profiles/{profileId}/folders"
	for _, c := range []struct {
		id, what string
		r        request
	}{
		{"auth.missing-key", "a request without x-api-key is refused with 401 UNAUTHORIZED and the error body", request{method: "GET", path: path, id: s.st.profileID, noKey: true}},
		{"auth.wrong-key", "a request with a wrong key is refused with 401 UNAUTHORIZED and the error body", request{method: "GET", path: path, id: s.st.profileID, key: "profilesvc-contract-wrong-key"}},
	} {
		s.check(c.id, Rule, secAuth, c.what, func() error {
			if err := need(s.st.profileID != "", "the profile"); err != nil {
				return err
			}
			return expect(s.c.do(ctx, c.r), http.StatusUnauthorized, "UNAUTHORIZED")
		})
	}
}

// profiles checks the profile's name limit, update and the inferred
// reads.
func (s *suite) profiles(ctx context.Context) {
	body := profileBody(s.named(256))
	long := s.createOwn(ctx, body)
	if id, differs := s.adopt(long, body); id != "" {
		s.made(id)
	} else if differs != "" {
		s.mayBeLeft(s.named(256), "the create answered another profile, "+differs)
	}
	if ctx.Err() != nil {
		return
	}
	s.st.longName = long
	s.check("limits.profile-name-length", Rule, secLimits, "a profile name of 256 characters is refused (max 255)", func() error { return checkLimitsProfileNameLength(ctx, s) })
	s.check("assume.validation-error", Assumption, secGaps, "an invalid body is refused with 400 VALIDATION_ERROR (a 256-character name)", func() error { return checkAssumeValidationError(ctx, s) })

	section := endpoint("PATCH", "/v1/profiles/{profileId}")
	s.check("endpoints.update-profile", Rule, section, "updating a profile answers 200 with the profile, without folders", func() error { return checkEndpointsUpdateProfile(ctx, s) })
	s.check("endpoints.update-profile-metadata", Rule, section, "metadata replaces the whole stored object; it is not merged", func() error { return checkEndpointsUpdateProfileMetadata(ctx, s) })
	s.check("limits.profile-name-max", Rule, secLimits, "a profile name of 255 characters is accepted: the suite's profile is renamed to one, then back", func() error { return checkLimitsProfileNameMax(ctx, s) })
	s.check("assume.get-profile", Assumption, inferred("GET", "/v1/profiles/{profileId}"), "reading a profile answers 200 with the profile, without folders", func() error { return checkAssumeGetProfile(ctx, s) })
	s.check("assume.list-profiles", Assumption, inferred("GET", "/v1/workflows/{workflowId}/profiles"), "listing a workflow's profiles, searched by name, answers 200 with a page holding the suite's", func() error { return checkAssumeListProfiles(ctx, s) })
}

// folderNames are the names of the suite's folders: ten, so that with the
// default folder the profile has eleven, one more than the default page.
func folderNames() []string {
	names := make([]string, 10)
	for i := range names {
		names[i] = fmt.Sprintf("profilesvc-contract folder %02d", i+1)
	}
	return names
}

// folders checks folder creation, listing, paging, sorting and search,
// and the default folder's protection.
func (s *suite) folders(ctx context.Context) {
	s.check("assume.create-folder", Assumption, inferred("POST", "/v1/profiles/{profileId}/folders"), "creating a folder answers 201 with the folder, isDefault false (ten are made)", func() error { return checkAssumeCreateFolder(ctx, s) })
	section := endpoint("GET", "/v1/profiles/{profileId}/folders")
	s.check("limits.page-size-default", Rule, secLimits, "a page of folders holds 10 by default, with a nextCursor when there are more", func() error { return checkLimitsPageSizeDefault(ctx, s) })
	s.check("endpoints.list-folders-default-order", Rule, section, "the default order is sort=createdAt, order=desc: the first page holds the ten newest folders, the newest first, not the default folder (the oldest)", func() error { return checkEndpointsListFoldersDefaultOrder(ctx, s) })
	s.check("endpoints.list-folders-sort-time", Rule, section, "sort=createdAt and sort=updatedAt, with order=asc and order=desc, order the folders by that time; createdAt asc starts with the default folder", func() error { return checkEndpointsListFoldersSortTime(ctx, s) })
	s.check("endpoints.list-folders-cursor", Rule, section, "the nextCursor of a page gives the next one; the last page's is null", func() error { return checkEndpointsListFoldersCursor(ctx, s) })
	s.check("limits.page-size-max", Rule, secLimits, "limit=100, the largest page, is accepted", func() error { return checkLimitsPageSizeMax(ctx, s) })
	s.check("assume.page-size-over-max", Assumption, secGaps, "limit=101 is refused with 400 VALIDATION_ERROR", func() error { return checkAssumePageSizeOverMax(ctx, s) })
	s.check("endpoints.list-folders-sort", Rule, section, "sort=name with order=asc and order=desc orders the folders by name", func() error { return checkEndpointsListFoldersSort(ctx, s) })
	s.check("endpoints.list-folders-search", Rule, section, "search is a partial match on the folder name", func() error { return checkEndpointsListFoldersSearch(ctx, s) })
	s.check("errors.cannot-modify-default-folder", Rule, secErrors, "renaming the default folder is refused with 400 CANNOT_MODIFY_DEFAULT_FOLDER", func() error { return checkErrorsCannotModifyDefaultFolder(ctx, s) })
	s.check("errors.cannot-delete-default-folder", Rule, secErrors, "deleting the default folder is refused with 400 CANNOT_DELETE_DEFAULT_FOLDER", func() error { return checkErrorsCannotDeleteDefaultFolder(ctx, s) })
	s.check("endpoints.rename-folder", Rule, endpoint("PATCH", "/v1/folders/{folderId}"), "renaming a folder answers 200 with the folder under its new name", func() error { return checkEndpointsRenameFolder(ctx, s) })
}

// checkEndpointsCreateProfile runs the check endpoints.create-profile.
func checkEndpointsCreateProfile(ctx context.Context, s *suite) error {
	if s.st.createDiffers != "" {
		return fail("the profile sent", s.st.createDiffers)
	}
	if err := expect(s.st.createAnswer, http.StatusCreated); err != nil {
		return err
	}
	if s.st.createdProfile.ItemsCount == nil || *s.st.createdProfile.ItemsCount != 0 || s.st.createdProfile.LastAnalysisAt != nil || s.st.createdProfile.Folders == nil {
		return fail("itemsCount 0, lastAnalysisAt null and folders", excerpt(s.st.createAnswer.body))
	}
	return nil
}

// checkStatesDefaultFolder runs the check states.default-folder.
func checkStatesDefaultFolder(ctx context.Context, s *suite) error {
	if err := need(s.st.profileID != "", "the profile"); err != nil {
		return err
	}
	if len(s.st.createdProfile.Folders) != 1 || !s.st.createdProfile.Folders[0].IsDefault || s.st.createdProfile.Folders[0].Name != "default" {
		return fail(`folders [{"name":"default","isDefault":true}]`, excerpt(s.st.createAnswer.body))
	}
	s.st.defaultFolder = s.st.createdProfile.Folders[0].ID
	return nil
}

// checkLimitsProfileNameLength runs the check limits.profile-name-length.
func checkLimitsProfileNameLength(ctx context.Context, s *suite) error {
	return expectRefused(s.st.longName)
}

// named is a name of n characters (at least the suite's name and one)
// that starts with the suite's name, so that a person recognises it.
func (s *suite) named(n int) string {
	name := s.cfg.Name + " "
	return name + strings.Repeat("n", max(0, n-utf8.RuneCountInString(name)))
}

// checkLimitsProfileNameMax runs the check limits.profile-name-max.
func checkLimitsProfileNameMax(ctx context.Context, s *suite) error {
	if err := need(s.st.profileID != "", "the profile"); err != nil {
		return err
	}
	for _, name := range []string{s.named(255), s.cfg.Name} {
		a := s.c.do(ctx, request{method: "PATCH", path: "/v1/profiles/{profileId}", id: s.st.profileID, json: map[string]any{"name": name}})
		if err := expect(a, http.StatusOK); err != nil {
			return err
		}
		var p struct {
			Name string `json:"name"`
		}
		if err := a.decode(&p); err != nil {
			return err
		}
		if p.Name != name {
			return fail(fmt.Sprintf("the profile named %q (%d characters)", name, utf8.RuneCountInString(name)), excerpt(a.body))
		}
	}
	return nil
}

// checkAssumeValidationError runs the check assume.validation-error.
func checkAssumeValidationError(ctx context.Context, s *suite) error {
	return expect(s.st.longName, http.StatusBadRequest, "VALIDATION_ERROR")
}

// checkEndpointsUpdateProfile runs the check endpoints.update-profile.
func checkEndpointsUpdateProfile(ctx context.Context, s *suite) error {
	if err := need(s.st.profileID != "", "the profile"); err != nil {
		return err
	}
	a := s.c.do(ctx, request{method: "PATCH", path: "/v1/profiles/{profileId}", id: s.st.profileID, json: map[string]any{"metadata": map[string]any{"first": "1"}}})
	if err := expect(a, http.StatusOK); err != nil {
		return err
	}
	var p struct {
		ID      string         `json:"id"`
		Folders any            `json:"folders"`
		Meta    map[string]any `json:"metadata"`
	}
	if err := a.decode(&p); err != nil {
		return err
	}
	if p.ID != s.st.profileID || p.Folders != nil {
		return fail("the profile "+s.st.profileID+" without folders", excerpt(a.body))
	}
	return nil
}

// checkEndpointsUpdateProfileMetadata runs the check endpoints.update-profile-metadata.
func checkEndpointsUpdateProfileMetadata(ctx context.Context, s *suite) error {
	if err := need(s.st.profileID != "", "the profile"); err != nil {
		return err
	}
	a := s.c.do(ctx, request{method: "PATCH", path: "/v1/profiles/{profileId}", id: s.st.profileID, json: map[string]any{"metadata": map[string]any{"second": "2"}}})
	if err := expect(a, http.StatusOK); err != nil {
		return err
	}
	var p struct {
		Meta map[string]any `json:"metadata"`
	}
	if err := a.decode(&p); err != nil {
		return err
	}
	if len(p.Meta) != 1 || p.Meta["second"] != "2" {
		return fail(`metadata {"second":"2"}`, excerpt(a.body))
	}
	return nil
}

// checkAssumeGetProfile runs the check assume.get-profile.
func checkAssumeGetProfile(ctx context.Context, s *suite) error {
	if err := need(s.st.profileID != "", "the profile"); err != nil {
		return err
	}
	a := s.c.do(ctx, request{method: "GET", path: "/v1/profiles/{profileId}", id: s.st.profileID})
	if err := expect(a, http.StatusOK); err != nil {
		return err
	}
	var p struct {
		ID string `json:"id"`
	}
	if err := a.decode(&p); err != nil {
		return err
	}
	if p.ID != s.st.profileID {
		return fail("profile "+s.st.profileID, excerpt(a.body))
	}
	return nil
}

// checkAssumeListProfiles runs the check assume.list-profiles.
func checkAssumeListProfiles(ctx context.Context, s *suite) error {
	if err := need(s.st.profileID != "", "the profile"); err != nil {
		return err
	}
	if !s.report.Mock {
		return skip("it would list the workflow's other profiles, which are not the suite's: checked against the mock only")
	}
	a := s.c.do(ctx, request{method: "GET", path: "/v1/workflows/{workflowId}/profiles", id: s.cfg.WorkflowID,
		query: url.Values{"search": {s.cfg.Name}, "limit": {"100"}}})
	if err := expect(a, http.StatusOK); err != nil {
		return err
	}
	var page struct {
		Items []struct {
			ID string `json:"id"`
		} `json:"items"`
	}
	if err := a.decode(&page); err != nil {
		return err
	}
	if !slices.ContainsFunc(page.Items, func(p struct {
		ID string `json:"id"`
	}) bool {
		return p.ID == s.st.profileID
	}) {
		return fail("a page holding "+s.st.profileID, excerpt(a.body))
	}
	return nil
}

// checkAssumeCreateFolder runs the check assume.create-folder.
func checkAssumeCreateFolder(ctx context.Context, s *suite) error {
	if err := need(s.st.profileID != "", "the profile"); err != nil {
		return err
	}
	for _, name := range folderNames() {
		a := s.c.do(ctx, request{method: "POST", path: "/v1/profiles/{profileId}/folders", id: s.st.profileID, json: map[string]any{"name": name}})
		if a.status == http.StatusCreated {
			s.report.Created.Folders++
		}
		if err := expect(a, http.StatusCreated); err != nil {
			return err
		}
		var f struct {
			ID        string `json:"id"`
			Name      string `json:"name"`
			IsDefault bool   `json:"isDefault"`
			ProfileID string `json:"profileId"`
		}
		if err := a.decode(&f); err != nil {
			return err
		}
		s.st.userFolders = append(s.st.userFolders, folderRef{id: f.ID, name: f.Name})
		if f.Name != name || f.IsDefault || f.ProfileID != s.st.profileID {
			return fail(fmt.Sprintf("folder %q of %s, isDefault false", name, s.st.profileID), excerpt(a.body))
		}
	}
	return nil
}

// checkLimitsPageSizeDefault runs the check limits.page-size-default.
func checkLimitsPageSizeDefault(ctx context.Context, s *suite) error {
	if err := need(len(s.st.userFolders) == 10, "ten folders"); err != nil {
		return err
	}
	a, page, next, err := s.listFolders(ctx, nil)
	if err != nil {
		return err
	}
	if len(page) != 10 || next == nil {
		return fail("10 folders and a nextCursor", excerpt(a.body))
	}
	s.st.cursor = next
	return nil
}

// checkEndpointsListFoldersDefaultOrder runs the check
// endpoints.list-folders-default-order.
func checkEndpointsListFoldersDefaultOrder(ctx context.Context, s *suite) error {
	if err := need(len(s.st.userFolders) == 10 && s.st.defaultFolder != "", "ten folders"); err != nil {
		return err
	}
	a, page, _, err := s.listFolders(ctx, nil)
	if err != nil {
		return err
	}
	newest := s.st.userFolders[len(s.st.userFolders)-1].id
	want := "the ten folders of the suite's, newest (" + newest + ") first, by createdAt descending"
	if len(page) != 10 || slices.ContainsFunc(page, func(f folderRef) bool { return f.id == s.st.defaultFolder }) || !byTime(page, createdAt, false) {
		return fail(want, excerpt(a.body))
	}
	if i := slices.IndexFunc(page, func(f folderRef) bool { return f.id == newest }); i < 0 || !page[i].createdAt.Equal(page[0].createdAt) {
		return fail(want, excerpt(a.body))
	}
	return nil
}

// checkEndpointsListFoldersSortTime runs the check
// endpoints.list-folders-sort-time.
func checkEndpointsListFoldersSortTime(ctx context.Context, s *suite) error {
	if err := need(len(s.st.userFolders) == 10 && s.st.defaultFolder != "", "ten folders"); err != nil {
		return err
	}
	for _, c := range []struct {
		sort string
		at   func(folderRef) time.Time
	}{{"createdAt", createdAt}, {"updatedAt", updatedAt}} {
		for _, order := range []string{"asc", "desc"} {
			a, page, _, err := s.listFolders(ctx, url.Values{"sort": {c.sort}, "order": {order}, "limit": {"100"}})
			if err != nil {
				return err
			}
			if len(page) != 11 || !byTime(page, c.at, order == "asc") {
				return fail("the 11 folders by "+c.sort+", "+order, excerpt(a.body))
			}
			if c.sort == "createdAt" && order == "asc" && page[0].id != s.st.defaultFolder && !page[0].createdAt.Equal(page[1].createdAt) {
				return fail("the default folder, the oldest, first", excerpt(a.body))
			}
		}
	}
	return nil
}

// createdAt and updatedAt are the times folders are sorted by.
func createdAt(f folderRef) time.Time { return f.createdAt }
func updatedAt(f folderRef) time.Time { return f.updatedAt }

// byTime reports whether folders are in order of a time, ascending or
// descending (equal times in any order).
func byTime(page []folderRef, at func(folderRef) time.Time, asc bool) bool {
	for i := 1; i < len(page); i++ {
		prev, cur := at(page[i-1]), at(page[i])
		if asc && cur.Before(prev) || !asc && cur.After(prev) {
			return false
		}
	}
	return true
}

// checkEndpointsListFoldersCursor runs the check endpoints.list-folders-cursor.
func checkEndpointsListFoldersCursor(ctx context.Context, s *suite) error {
	if err := need(s.st.cursor != nil, "a nextCursor"); err != nil {
		return err
	}
	a, page, next, err := s.listFolders(ctx, url.Values{"cursor": {*s.st.cursor}})
	if err != nil {
		return err
	}
	if len(page) != 1 || next != nil {
		return fail("the eleventh folder and nextCursor null", excerpt(a.body))
	}
	return nil
}

// checkLimitsPageSizeMax runs the check limits.page-size-max.
func checkLimitsPageSizeMax(ctx context.Context, s *suite) error {
	if err := need(s.st.profileID != "", "the profile"); err != nil {
		return err
	}
	a, page, next, err := s.listFolders(ctx, url.Values{"limit": {"100"}})
	if err != nil {
		return err
	}
	if len(s.st.userFolders) == 10 && (len(page) != 11 || next != nil) {
		return fail("the 11 folders and nextCursor null", excerpt(a.body))
	}
	return nil
}

// checkAssumePageSizeOverMax runs the check assume.page-size-over-max.
func checkAssumePageSizeOverMax(ctx context.Context, s *suite) error {
	if err := need(s.st.profileID != "", "the profile"); err != nil {
		return err
	}
	return expect(s.c.do(ctx, request{method: "GET", path: "/v1/profiles/{profileId}/folders", id: s.st.profileID, query: url.Values{"limit": {"101"}}}), http.StatusBadRequest, "VALIDATION_ERROR")
}

// checkEndpointsListFoldersSort runs the check endpoints.list-folders-sort.
func checkEndpointsListFoldersSort(ctx context.Context, s *suite) error {
	if err := need(len(s.st.userFolders) == 10, "ten folders"); err != nil {
		return err
	}
	for _, order := range []string{"asc", "desc"} {
		a, page, _, err := s.listFolders(ctx, url.Values{"sort": {"name"}, "order": {order}, "limit": {"100"}})
		if err != nil {
			return err
		}
		names := make([]string, len(page))
		for i, f := range page {
			names[i] = strings.ToLower(f.name)
		}
		want := slices.Clone(names)
		slices.Sort(want)
		if order == "desc" {
			slices.Reverse(want)
		}
		if !slices.Equal(names, want) || len(names) != 11 {
			return fail("the 11 folders by name, "+order, excerpt(a.body))
		}
	}
	return nil
}

// checkEndpointsListFoldersSearch runs the check endpoints.list-folders-search.
func checkEndpointsListFoldersSearch(ctx context.Context, s *suite) error {
	if err := need(len(s.st.userFolders) == 10, "ten folders"); err != nil {
		return err
	}
	a, page, _, err := s.listFolders(ctx, url.Values{"search": {"folder 0"}, "limit": {"100"}})
	if err != nil {
		return err
	}
	if len(page) != 9 || slices.ContainsFunc(page, func(f folderRef) bool { return !strings.Contains(f.name, "folder 0") }) {
		return fail("the 9 folders named \"... folder 0N\"", excerpt(a.body))
	}
	return nil
}

// checkErrorsCannotModifyDefaultFolder runs the check errors.cannot-modify-default-folder.
func checkErrorsCannotModifyDefaultFolder(ctx context.Context, s *suite) error {
	if err := need(s.st.defaultFolder != "", "the default folder"); err != nil {
		return err
	}
	return expect(s.c.do(ctx, request{method: "PATCH", path: "/v1/folders/{folderId}", id: s.st.defaultFolder, json: map[string]any{"name": "renamed"}}),
		http.StatusBadRequest, "CANNOT_MODIFY_DEFAULT_FOLDER")
}

// checkErrorsCannotDeleteDefaultFolder runs the check errors.cannot-delete-default-folder.
func checkErrorsCannotDeleteDefaultFolder(ctx context.Context, s *suite) error {
	if err := need(s.st.defaultFolder != "", "the default folder"); err != nil {
		return err
	}
	return expect(s.c.do(ctx, request{method: "DELETE", path: "/v1/folders/{folderId}", id: s.st.defaultFolder}), http.StatusBadRequest, "CANNOT_DELETE_DEFAULT_FOLDER")
}

// checkEndpointsRenameFolder runs the check endpoints.rename-folder.
func checkEndpointsRenameFolder(ctx context.Context, s *suite) error {
	if err := need(len(s.st.userFolders) > 0, "a folder of the suite's"); err != nil {
		return err
	}
	f := &s.st.userFolders[0]
	name := f.name + " renamed"
	a := s.c.do(ctx, request{method: "PATCH", path: "/v1/folders/{folderId}", id: f.id, json: map[string]any{"name": name}})
	if err := expect(a, http.StatusOK); err != nil {
		return err
	}
	var got struct {
		ID, Name string
	}
	if err := a.decode(&got); err != nil {
		return err
	}
	if got.ID != f.id || got.Name != name {
		return fail(fmt.Sprintf("folder %s named %q", f.id, name), excerpt(a.body))
	}
	f.name = name
	return nil
}

// listFolders reads a page of the profile's folders: its answer, the
// folders, and the next page's cursor.
func (s *suite) listFolders(ctx context.Context, q url.Values) (answer, []folderRef, *string, error) {
	a := s.c.do(ctx, request{method: "GET", path: "/v1/profiles/{profileId}/folders", id: s.st.profileID, query: q})
	if err := expect(a, http.StatusOK); err != nil {
		return a, nil, nil, err
	}
	var page struct {
		Count      int     `json:"count"`
		NextCursor *string `json:"nextCursor"`
		Items      []struct {
			ID        string    `json:"id"`
			Name      string    `json:"name"`
			CreatedAt time.Time `json:"createdAt"`
			UpdatedAt time.Time `json:"updatedAt"`
		} `json:"items"`
	}
	if err := a.decode(&page); err != nil {
		return a, nil, nil, err
	}
	if page.Count != len(page.Items) {
		return a, nil, nil, fail("count equal to the number of items", fmt.Sprintf("count %d for %d items", page.Count, len(page.Items)))
	}
	var out []folderRef
	for _, f := range page.Items {
		out = append(out, folderRef{id: f.ID, name: f.Name, createdAt: f.CreatedAt, updatedAt: f.UpdatedAt})
	}
	return a, out, page.NextCursor, nil
}
