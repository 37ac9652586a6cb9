// Package apiroutes is the one list of the service's HTTP routes, shared by
// the SDK (which expands them into request paths) and the mock server (which
// registers a handler for each).
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

// Route is one endpoint of the service.
type Route struct {
	// Name is the SDK method that calls the route.
	Name string
	// Method is the HTTP method.
	Method string
	// Path is the path template, with parameters in braces as gorilla/mux
	// writes them.
	Path string
	// Published reports whether the interface document shows the route;
	// false means the route is inferred.
	Published bool
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

// All returns every route of the service: the twelve published ones, then
// the inferred ones. The slice is new on every call.
func All() []Route {
	return []Route{
		{"CreateProfile", "POST", WorkflowProfiles, true},
		{"UpdateProfile", "PATCH", Profile, true},
		{"DeleteProfile", "DELETE", Profile, true},
		{"ListFolders", "GET", ProfileFolders, true},
		{"GetFolder", "GET", Folder, true},
		{"RenameFolder", "PATCH", Folder, true},
		{"DeleteFolder", "DELETE", Folder, true},
		{"UpdateItem", "PATCH", Item, true},
		{"StartAnalysis", "POST", Analyze, true},
		{"GetAnalysis", "GET", Analysis, true},
		{"DownloadReport", "GET", AnalysisReport, true},
		{"DeleteAnalysis", "DELETE", Analysis, true},

		{"ListProfiles", "GET", WorkflowProfiles, false},
		{"GetProfile", "GET", Profile, false},
		{"CreateFolder", "POST", ProfileFolders, false},
		{"UploadFile", "POST", FolderItems, false},
		{"CreateTextItem", "POST", FolderItems, false},
		{"CreateJSONItem", "POST", FolderItems, false},
		{"GetItem", "GET", Item, false},
		{"DeleteItem", "DELETE", Item, false},
		{"ListAnalyses", "GET", ProfileAnalyses, false},
	}
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
