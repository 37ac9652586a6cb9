package mockserver

import (
	"net/http"

	"github.com/profilesvc/profilesvc-go/api"
)

// The OpenAPI documents of the service and of the control API, from
// package api (api/openapi.yaml and api/mock-control.yaml, embedded), are
// served without a key, so that a client generator can be pointed at a
// running mock. They sit side by side under /_mock/, so that the control
// document's references to openapi.yaml resolve.
const (
	serviceDocumentPath = "/_mock/" + api.OpenAPIFile
	controlDocumentPath = "/_mock/" + api.MockControlFile
)

// publicPath reports whether a path is served without a key: the
// documents, and nothing else.
func publicPath(path string) bool {
	return path == serviceDocumentPath || path == controlDocumentPath
}

func handleServiceDocument(_ *Tenant, w http.ResponseWriter, _ *http.Request) *apiError {
	writeDocument(w, api.OpenAPI())
	return nil
}

func handleControlDocument(_ *Tenant, w http.ResponseWriter, _ *http.Request) *apiError {
	writeDocument(w, api.MockControl())
	return nil
}

// writeDocument answers with a YAML document.
func writeDocument(w http.ResponseWriter, doc []byte) {
	setHeaders(w, "application/yaml", len(doc))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(doc)
}
