package mockserver

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/profilesvc/profilesvc-go/internal/openapicheck"
)

// WithOpenAPICheck holds every exchange of the service's routes to the
// service's OpenAPI document, api/openapi.yaml: each request the server
// is sent and the answer it gives. A disagreement is passed to report,
// naming the operation and the field ("getFolder (GET /v1/folders/fld_1):
// answer body /items/0/sizeBytes: value must be an integer"); it is a
// bug of the mock, or of a WithAnalyzer whose result the service could
// not give. A request the document refuses passes when the mock refused
// it too, with a status the operation declares. Not checked: the control
// API and the storage URLs, which the document does not describe, the
// answers of injected faults, which are the test's own, and those of CORS
// preflights (WithCORS), which are the browser's business, not the
// service's.
//
// NewTest turns it on, failing its test on a disagreement; WithOpenAPICheck(nil)
// turns it off. It costs a validation of each exchange, and a copy of its
// bodies.
func WithOpenAPICheck(report func(error)) Option {
	return func(c *config) { c.openapiReport = report }
}

// openapiValidator is the validator of api/openapi.yaml, loaded once per
// process on first use and read-only after: every checked server shares
// it.
var openapiValidator = sync.OnceValues(openapicheck.New)

// serveChecked serves the exchange x through the chain, holding it to the
// service's document.
func (s *Server) serveChecked(x *exchange, w http.ResponseWriter, r *http.Request) {
	serve := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x.ResponseWriter = w
		chain().ServeHTTP(x, r)
	})
	v, err := openapiValidator()
	if err != nil {
		// The embedded document is tested to load: this is a broken build.
		s.cfg.openapiReport(fmt.Errorf("mockserver: the OpenAPI check cannot run: %w", err))
		serve(w, r)
		return
	}
	v.Handler(serve, func(err error) {
		if !x.faulted && !x.preflight {
			s.cfg.openapiReport(err)
		}
	}).ServeHTTP(w, r)
}
