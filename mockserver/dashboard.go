package mockserver

import (
	"embed"
	"net/http"
)

// dashboardFiles are the dashboard's page, script and style sheet: plain
// HTML, CSS and JavaScript, embedded so that the binary needs nothing at
// run time.
//
//go:embed ui/index.html ui/app.js ui/style.css
var dashboardFiles embed.FS

// dashboardPolicy is the Content-Security-Policy of the dashboard's
// files: its own script and style sheet only, calls to its own origin
// only, nothing inline, no frame around it; blob: for the reports it
// fetches with the key and shows.
const dashboardPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; " +
	"img-src 'self' data: blob:; object-src blob:; frame-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// serveDashboardFile answers one of the dashboard's files with its media
// type. The files hold no data, so they need no key; the page asks for
// the key and sends it with its calls.
func serveDashboardFile(name, mediaType string) http.HandlerFunc {
	body, err := dashboardFiles.ReadFile("ui/" + name)
	if err != nil {
		panic("mockserver: the dashboard has no file " + name) // the embed above lists it
	}
	return func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", mediaType)
		h.Set("Content-Security-Policy", dashboardPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = w.Write(body)
		}
	}
}
