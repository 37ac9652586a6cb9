package mockserver

import (
	"net/http"

	"github.com/profilesvc/profilesvc-go/api"
)

// The OpenAPI documents of the service and of the control API, from
// package api (api/openapi.yaml and api/mock-control.yaml, embedded), are
// served without a key (publicRoutes), so that a client generator can be pointed at a
// running mock. They sit side by side under /_mock/, so that the control
// document's references to openapi.yaml resolve.
const (
	serviceDocumentPath = "/_mock/" + api.OpenAPIFile
	controlDocumentPath = "/_mock/" + api.MockControlFile
)

// serveDocument answers with a YAML document.
func serveDocument(doc []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		setHeaders(w, "application/yaml", len(doc))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(doc)
	}
}
