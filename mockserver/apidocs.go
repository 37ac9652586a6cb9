package mockserver

import "net/http"

// The OpenAPI documents of the service and of the control API, from
// package api (api/openapi.yaml and api/mock-control.yaml, embedded), are
// served without a key (publicRoutes), so that a client generator can be
// pointed at a running mock. They sit side by side under /_mock/ with the
// file names api gives them (internal/apiroutes' getServiceDocument and
// getControlDocument), so that the control document's references to
// openapi.yaml resolve.

// serveAPIDoc answers with an OpenAPI document, as YAML.
func serveAPIDoc(doc []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		setHeaders(w, "application/yaml", len(doc))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(doc)
	}
}
