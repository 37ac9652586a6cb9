package contract_test

import (
	"context"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/internal/contract"
)

// TestRedirectToAnotherOrigin runs the suite against a service that
// answers some requests with a 307 to a server on another port, and its
// GET of a profile with a 307 within its own origin: the other server
// gets no request at all, neither key nor body, whatever the caller's
// client would follow; the check (or the cleanup) that got the redirect
// fails, saying so; the redirect within the origin is followed.
func TestRedirectToAnotherOrigin(t *testing.T) {
	t.Parallel()
	followAll := func(cfg *contract.Config) {
		cfg.HTTPClient = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return nil }}
	}
	tests := []struct {
		name         string
		method, path string // the requests sent away; "*" is one segment
		followAll    bool   // the caller's client follows every redirect
		interrupt    string // the check after which the run is cut
		// check is the check that fails; none when the run cannot start.
		check string
		// left is whether the cleanup's DELETEs are sent away.
		left bool
	}{
		{name: "a check's PATCH, with its body", method: "PATCH", path: "/v1/profiles/*", check: "endpoints.update-profile"},
		{name: "a check's PATCH, the caller's client following every redirect", method: "PATCH", path: "/v1/profiles/*", followAll: true, check: "endpoints.update-profile"},
		{name: "the create of the profile", method: "POST", path: "/v1/workflows/*/profiles"},
		{name: "the DELETEs of the profiles, the cleanup's included", method: "DELETE", path: "/v1/profiles/*", check: "endpoints.delete-profile", left: true},
		{name: "the cleanup's DELETE after Ctrl-C", method: "DELETE", path: "/v1/profiles/*", interrupt: "assume.create-folder", left: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, driven, clock := drivenMock(t, pollDriver{})
			away, got := elsewhere(t)
			base := wrap(t, driven, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
				p := r.URL.EscapedPath()
				sentAway, _ := path.Match(tt.path, p)
				within, _ := path.Match("/v1/profiles/*", p)
				switch {
				case sentAway && r.Method == tt.method:
					redirect(w, away+r.URL.RequestURI())
				case within && r.Method == http.MethodGet:
					redirect(w, "/moved"+r.URL.RequestURI())
				case strings.HasPrefix(p, "/moved/"):
					r.URL.Path, r.URL.RawPath = strings.TrimPrefix(r.URL.Path, "/moved"), ""
					next.ServeHTTP(w, r)
				default:
					next.ServeHTTP(w, r)
				}
			})
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			changes := []func(*contract.Config){clock}
			if tt.followAll {
				changes = append(changes, followAll)
			}
			r, err := runSuite(t, ctx, srv, base, true, func(res contract.Result) {
				if res.ID == tt.interrupt {
					cancel()
				}
			}, changes...)

			require.Zero(t, got.Load(), "the other origin got a request")
			const said = "redirected to another origin (307 to "
			switch {
			case tt.interrupt != "":
				require.ErrorIs(t, err, contract.ErrInterrupted)
			case tt.check == "":
				require.ErrorIs(t, err, contract.ErrCannotRun)
				require.ErrorContains(t, err, said+away+")")
				require.Contains(t, strings.Join(r.Cleanup, "\n"), "its create was "+said)
				require.Empty(t, srv.Profiles())
			default:
				require.NoError(t, err)
				res := result(t, r, tt.check)
				require.Equal(t, contract.Fail, res.Status, "%+v", res)
				require.Contains(t, res.Got, said+away+"): not followed")
				require.Equal(t, contract.Pass, result(t, r, "assume.get-profile").Status, "a redirect within the origin is followed")
			}
			if tt.left {
				require.True(t, r.CleanupFailed)
				require.Contains(t, strings.Join(r.Cleanup, "\n"), "profile "+r.ProfileID+": NOT deleted ("+said+away+"): not followed")
				return
			}
			if tt.check != "" {
				requireCleanedUp(t, srv, r)
			}
		})
	}
}

// TestIDsStayInTheirSegment runs the suite against a service whose ID of
// the suite's profile holds what a path must not take: every request
// names the profile by its ID escaped into one segment, never by a part
// of it followed by a query, a fragment or more segments, and the cleanup
// deletes it; an ID of "." or ".." is never sent, and the report says why
// the profile is left.
func TestIDsStayInTheirSegment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id   string
		sent bool // whether the ID can be sent at all
	}{
		{"pf_victim?x=", true},
		{"pf_victim/x", true},
		{"pf_victim/../../v1/profiles", true},
		{"pf_victim#x", true},
		{"..", false},
		{".", false},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			t.Parallel()
			srv, driven, clock := drivenMock(t, pollDriver{})
			base, requests := renamed(t, driven, tt.id)
			r, err := runSuite(t, t.Context(), srv, base, true, nil, clock)
			require.NoError(t, err)
			require.Equal(t, tt.id, r.ProfileID)

			escaped := url.PathEscape(tt.id)
			for _, req := range requests() {
				segs := strings.Split(req.path, "/")
				require.NotContains(t, segs, "..", "%+v", req)
				require.NotContains(t, segs, ".", "%+v", req)
				for _, seg := range segs {
					if strings.Contains(seg, "pf_victim") {
						require.Equal(t, escaped, seg, "%+v", req)
					}
				}
				require.NotContains(t, req.query, "x=", "%+v", req)
				require.NotContains(t, req.query, "pf_victim", "%+v", req)
			}
			deleted := sent{http.MethodDelete, "/v1/profiles/" + escaped, ""}
			if !tt.sent {
				res := result(t, r, "assume.get-profile")
				require.Equal(t, contract.Fail, res.Status)
				require.Contains(t, res.Got, `not sent: invalid ID: profileId "`+tt.id+`" cannot be used in a path`)
				require.True(t, r.CleanupFailed)
				require.Contains(t, r.Cleanup, "profile "+tt.id+`: NOT deleted (not sent: invalid ID: profileId "`+tt.id+`" cannot be used in a path): delete it yourself`)
				require.False(t, slices.Contains(requests(), deleted))
				return
			}
			require.Empty(t, failures(r))
			require.Contains(t, requests(), deleted, "the cleanup's DELETE")
			requireCleanedUp(t, srv, r)
		})
	}
}
