package mockserver

import (
	"fmt"
	"net/http"

	"github.com/profilesvc/profilesvc-go/internal/openapicheck"
)

// serveChecked serves the exchange x through the chain, holding it to the
// service's document.
func (s *Server) serveChecked(x *exchange, w http.ResponseWriter, r *http.Request) {
	serve := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x.ResponseWriter = w
		chain().ServeHTTP(x, r)
	})
	v, err := openapicheck.New() // one per process, shared
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
