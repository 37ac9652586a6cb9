// Package apiroutes is the one list of the service's HTTP routes, shared by
// the SDK (which expands them into request paths) and the mock server (which
// registers a handler for each, by name), with the query parameters each
// accepts. Mock lists the mock server's own routes beside them: the
// storage of items' artifacts, its public routes and its control API.
//
// The interface document publishes twelve endpoints. The others here are
// inferred: the document says they exist but does not show them, so their
// paths follow the conventions of the published ones and are verified only
// against this project's mock server. Should the real service differ, this
// file is the place to correct them.
package apiroutes

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Route is one endpoint of the service, or of the mock server (Mock).
type Route struct {
	// Name is the SDK method that calls the route; in Mock, the route's
	// operationId in api/mock-control.yaml (see Mock). Names are unique
	// across All and Mock: Named finds a route by its name.
	Name string
	// Method is the HTTP method.
	Method string
	// Path is the path template, with parameters in braces as gorilla/mux
	// writes them.
	Path string
	// Published reports whether the interface document shows the route;
	// false means the route is inferred (or, in Mock, the mock's own).
	Published bool
	// Query names the query parameters the route accepts (the Query
	// constants); nil for none. Any other is refused.
	Query []string
}

// Query parameters of the routes.
const (
	// The listings': every one is paged (limit, cursor); those of
	// profiles and folders are searched and sorted too.
	QueryLimit  = "limit"
	QueryCursor = "cursor"
	QuerySearch = "search"
	QuerySort   = "sort"
	QueryOrder  = "order"
	// GetAnalysis's long poll.
	QueryWaitForReport  = "waitForReport"
	QueryTimeoutSeconds = "timeoutSeconds"
	// DownloadReport's variant.
	QueryLocale         = "locale"
	QueryIncludeRawData = "includeRawData"
	// The request record's filters (listRequests), beside QueryLimit.
	QueryMethod = "method"
	QueryPath   = "path"
	QueryStatus = "status"
)

// pageQuery is the query of a listing in pages, in a new slice.
func pageQuery() []string { return []string{QueryLimit, QueryCursor} }

// listQuery is the query of a listing in pages that is searched and
// sorted too, in a new slice.
func listQuery() []string {
	return []string{QueryLimit, QueryCursor, QuerySearch, QuerySort, QueryOrder}
}

// Path templates, published ones first.
const (
	WorkflowProfiles = "/v1/workflows/{workflowId}/profiles"
	Profile          = "/v1/profiles/{profileId}"
	ProfileFolders   = "/v1/profiles/{profileId}/folders"
	Folder           = "/v1/folders/{folderId}"
	Item             = "/v1/items/{itemId}"
	Analyze          = "/v1/analyses/{profileId}/analyze"
	Analysis         = "/v1/analyses/{analysisId}"
	AnalysisReport   = "/v1/analyses/{analysisId}/report"

	// Inferred.
	FolderItems     = "/v1/folders/{folderId}/items"
	ProfileAnalyses = "/v1/profiles/{profileId}/analyses"
)

// Paths of the mock server's storage of items' artifacts, which an item's
// url and storageOriginalUrl name.
const (
	StorageOriginal = "/storage/items/{itemId}/original"
	StorageText     = "/storage/items/{itemId}/text"
)

// All returns every route of the service: the twelve published ones, then
// the inferred ones. The slice, and each route's Query, is new on every
// call.
func All() []Route {
	return []Route{
		{"CreateProfile", "POST", WorkflowProfiles, true, nil},
		{"UpdateProfile", "PATCH", Profile, true, nil},
		{"DeleteProfile", "DELETE", Profile, true, nil},
		{"ListFolders", "GET", ProfileFolders, true, listQuery()},
		{"GetFolder", "GET", Folder, true, nil},
		{"RenameFolder", "PATCH", Folder, true, nil},
		{"DeleteFolder", "DELETE", Folder, true, nil},
		{"UpdateItem", "PATCH", Item, true, nil},
		{"StartAnalysis", "POST", Analyze, true, nil},
		{"GetAnalysis", "GET", Analysis, true, []string{QueryWaitForReport, QueryTimeoutSeconds}},
		{"DownloadReport", "GET", AnalysisReport, true, []string{QueryLocale, QueryIncludeRawData}},
		{"DeleteAnalysis", "DELETE", Analysis, true, nil},

		{"ListProfiles", "GET", WorkflowProfiles, false, listQuery()},
		{"GetProfile", "GET", Profile, false, nil},
		{"CreateFolder", "POST", ProfileFolders, false, nil},
		{"UploadFile", "POST", FolderItems, false, nil},
		{"CreateTextItem", "POST", FolderItems, false, nil},
		{"CreateJSONItem", "POST", FolderItems, false, nil},
		{"GetItem", "GET", Item, false, nil},
		{"DeleteItem", "DELETE", Item, false, nil},
		{"ListAnalyses", "GET", ProfileAnalyses, false, pageQuery()},
	}
}

// Mock returns the mock server's own routes, none of which the service
// has: the storage of items' artifacts (which no document describes),
// then its public routes and its control API under /_mock/, named
// by their operationId in api/mock-control.yaml. The public ones
// (getHealth, the two OpenAPI documents, served as api/ names them, and
// the dashboard's page, script and style sheet)
// need no key. The slice is new on every call.
func Mock() []Route {
	return []Route{
		{"getItemOriginal", "GET", StorageOriginal, false, nil},
		{"getItemText", "GET", StorageText, false, nil},

		{"getHealth", "GET", "/_mock/health", false, nil},
		{"getServiceDocument", "GET", "/_mock/openapi.yaml", false, nil},
		{"getControlDocument", "GET", "/_mock/mock-control.yaml", false, nil},
		{"getDashboard", "GET", "/_mock/ui", false, nil},
		{"getDashboardScript", "GET", "/_mock/ui/app.js", false, nil},
		{"getDashboardStyle", "GET", "/_mock/ui/style.css", false, nil},

		{"reset", "POST", "/_mock/reset", false, nil},
		{"listWorkflows", "GET", "/_mock/workflows", false, nil},
		{"addWorkflow", "POST", "/_mock/workflows", false, nil},
		{"loadSeed", "POST", "/_mock/seed", false, nil},
		{"saveState", "POST", "/_mock/snapshot", false, nil},
		{"getSnapshot", "GET", "/_mock/snapshot", false, nil},
		{"restoreSnapshot", "PUT", "/_mock/snapshot", false, nil},
		{"getState", "GET", "/_mock/state", false, nil},
		{"setItemStatus", "POST", "/_mock/items/{itemId}/status", false, nil},
		{"processAnalysis", "POST", "/_mock/analyses/{analysisId}/process", false, nil},
		{"completeAnalysis", "POST", "/_mock/analyses/{analysisId}/complete", false, nil},
		{"failAnalysis", "POST", "/_mock/analyses/{analysisId}/fail", false, nil},
		{"setVerificationStatus", "POST", "/_mock/analyses/{analysisId}/verification", false, nil},
		{"listFaults", "GET", "/_mock/faults", false, nil},
		{"addFault", "POST", "/_mock/faults", false, nil},
		{"clearFaults", "DELETE", "/_mock/faults", false, nil},
		{"removeFault", "DELETE", "/_mock/faults/{faultId}", false, nil},
		{"listRequests", "GET", "/_mock/requests", false, []string{QueryMethod, QueryPath, QueryStatus, QueryLimit}},
		{"clearRequests", "DELETE", "/_mock/requests", false, nil},
		{"listViolations", "GET", "/_mock/violations", false, nil},
		{"getConformance", "GET", "/_mock/conformance", false, nil},
		{"saveRecording", "POST", "/_mock/recording", false, nil},
	}
}

// Named returns the route of All or Mock with the name, and whether
// there is one.
func Named(name string) (Route, bool) {
	for _, routes := range [][]Route{All(), Mock()} {
		for _, r := range routes {
			if r.Name == name {
				return r, true
			}
		}
	}
	return Route{}, false
}

// ErrInvalidID is returned by Expand for an ID that escaping cannot keep
// inside its own path segment: an empty string, "." or "..".
var ErrInvalidID = errors.New("invalid ID")

// Expand fills the parameters of a path template in order, escaping each
// value with url.PathEscape so that a "/", "?" or "#" in an ID stays inside
// its segment. It refuses an empty, "." or ".." value, which no escaping
// protects, and a count of values that does not match the template.
func Expand(template string, values ...string) (string, error) {
	var b strings.Builder
	b.Grow(len(template) + 32)
	rest := template
	i := 0
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			b.WriteString(rest)
			break
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return "", fmt.Errorf("apiroutes: unterminated parameter in %q", template)
		}
		name := rest[open+1 : open+end]
		if i >= len(values) {
			return "", fmt.Errorf("apiroutes: no value for {%s} in %q", name, template)
		}
		v := values[i]
		if v == "" || v == "." || v == ".." {
			return "", fmt.Errorf("%w: %s %q cannot be used in a path", ErrInvalidID, name, v)
		}
		b.WriteString(rest[:open])
		b.WriteString(url.PathEscape(v))
		rest = rest[open+end+1:]
		i++
	}
	if i != len(values) {
		return "", fmt.Errorf("apiroutes: %d values for %d parameters in %q", len(values), i, template)
	}
	return b.String(), nil
}
