package mockserver

// Each stage of the request middleware alone (recoverAndLog, authenticate,
// record, injectFaults, and dispatch at the end of the chain): a request
// given its exchange by hand, as Server.ServeHTTP gives it, goes through
// one stage, whose next handler is a probe that notes whether it ran.

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/testutil"
)

// testKey is the API key of the servers of these tests.
const testKey = "3c8e2d1a-7b6f-4e5d-9c4b-2a1f0e9d8c7b"

func TestRecoverAndLog(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		next func(w http.ResponseWriter, r *http.Request)
		// wantPanic is what the stage panics with, if anything.
		wantPanic any
		// wantStatus is the answer's status, 0 for none; wantCode, for an
		// error answer, its code and a part of its message; wantBody, for
		// another answer, its body.
		wantStatus        int
		wantCode, wantMsg string
		wantBody          string
	}{
		{
			name:       "a panic becomes a 500",
			next:       func(http.ResponseWriter, *http.Request) { panic("the handler broke") },
			wantStatus: http.StatusInternalServerError, wantCode: profilesvc.CodeInternal, wantMsg: "the handler broke",
		},
		{
			name: "a panic after the answer began leaves the answer",
			next: func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(http.StatusAccepted)
				_, _ = w.Write([]byte("begun"))
				panic("too late")
			},
			wantStatus: http.StatusAccepted, wantBody: "begun",
		},
		{
			name:      "http.ErrAbortHandler is panicked again",
			next:      func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) },
			wantPanic: http.ErrAbortHandler,
		},
		{
			name: "an answer without a panic passes through",
			next: func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(http.StatusCreated)
				_, _ = w.Write([]byte("made"))
			},
			wantStatus: http.StatusCreated, wantBody: "made",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newHandlerServer(t)
			x, r, rec := newExchange(srv, httptest.NewRequest("GET", "/v1/profiles/pf_1", nil))
			next := &probe{serve: tt.next}
			serve := func() { recoverAndLog(next).ServeHTTP(x, r) }
			if tt.wantPanic != nil {
				assert.PanicsWithValue(t, tt.wantPanic, serve, "what recoverAndLog panics with")
			} else {
				assert.NotPanics(t, serve, "recoverAndLog let a panic through")
			}
			assert.True(t, next.ran, "the next handler did not run")
			assert.Equal(t, tt.wantStatus, x.status, "the exchange's status")
			switch {
			case tt.wantCode != "":
				wantError(t, recorded(rec), tt.wantStatus, tt.wantCode, tt.wantMsg)
			case tt.wantStatus != 0:
				assert.Equal(t, tt.wantStatus, rec.Code, "status of the answer")
				assert.Equal(t, tt.wantBody, rec.Body.String(), "body of the answer")
			default:
				assert.Empty(t, rec.Body.String(), "an aborted answer has a body")
			}
		})
	}

	t.Run("an answer that never began is recorded without a status", func(t *testing.T) {
		srv := newHandlerServer(t, WithAPIKey(testKey))
		x, r, _ := newExchange(srv, httptest.NewRequest("GET", "/v1/profiles/pf_1", nil))
		x.tenant, x.recordTo = srv.Tenant, srv.Tenant
		startRecording(x, r, false)
		next := &probe{serve: func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }}
		assert.PanicsWithValue(t, http.ErrAbortHandler, func() { recoverAndLog(next).ServeHTTP(x, r) })
		reqs := srv.Requests()
		require.Len(t, reqs, 1, "recorded requests")
		assert.Equal(t, 0, reqs[0].Status, "the aborted request's recorded status")
	})

	t.Run("it logs the request", func(t *testing.T) {
		var logs testutil.LockedBuffer
		srv := newHandlerServer(t, WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
		x, r, _ := newExchange(srv, httptest.NewRequest("GET", "/v1/profiles/pf_1", nil))
		recoverAndLog(&probe{serve: func(http.ResponseWriter, *http.Request) { panic("logged") }}).ServeHTTP(x, r)
		line := logs.String()
		for _, want := range []string{`"msg":"request"`, `"path":"/v1/profiles/pf_1"`, `"status":500`, `"requestId":"` + x.requestID + `"`} {
			assert.Contains(t, line, want, "the log line")
		}
	})
}

func TestAuthenticate(t *testing.T) {
	t.Parallel()
	const otherUUID = "0b6a3c2e-1f4d-4a5b-9c8d-7e6f5a4b3c2d"
	tests := []struct {
		name      string
		multi     bool // a multi-tenant server
		key, path string
		// wantTenant is the tenant the request is given, nil for a 401
		// (whose message names wantMsg).
		wantTenant func(srv *Server) *Tenant
		wantMsg    string
		// wantRecorded: the server's own record holds the refused request.
		wantRecorded bool
		wantControl  bool
	}{
		{name: "no key", path: "/v1/profiles/pf_1", wantMsg: "the x-api-key header is missing", wantRecorded: true},
		{name: "a wrong key", key: "not-the-key", path: "/v1/profiles/pf_1", wantMsg: "invalid API key", wantRecorded: true},
		{name: "another UUID on a single-tenant server", key: otherUUID, path: "/v1/profiles/pf_1", wantMsg: "invalid API key", wantRecorded: true},
		{name: "the server's key", key: testKey, path: "/v1/profiles/pf_1", wantTenant: func(srv *Server) *Tenant { return srv.Tenant }},
		{name: "the server's key on the control API", key: testKey, path: "/_mock/faults", wantTenant: func(srv *Server) *Tenant { return srv.Tenant }, wantControl: true},
		{name: "another UUID on a multi-tenant server", multi: true, key: otherUUID, path: "/v1/profiles/pf_1", wantTenant: func(srv *Server) *Tenant { return srv.TenantOf(otherUUID) }},
		{name: "a malformed key on a multi-tenant server", multi: true, key: "not-a-uuid", path: "/v1/profiles/pf_1", wantMsg: "multi-tenant"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := []Option{WithAPIKey(testKey)}
			if tt.multi {
				opts = append(opts, WithMultiTenant())
			}
			srv := newHandlerServer(t, opts...)
			req := httptest.NewRequest("GET", tt.path, nil)
			if tt.key != "" {
				req.Header.Set("x-api-key", tt.key)
			}
			x, r, rec := newExchange(srv, req)
			next := &probe{}
			authenticate(next).ServeHTTP(x, r)

			assert.Equal(t, tt.wantControl, x.control, "the exchange's control flag")
			if tt.wantTenant == nil {
				assert.False(t, next.ran, "the next handler ran for a refused key")
				assert.Nil(t, x.tenant, "the refused request's tenant")
				wantError(t, recorded(rec), http.StatusUnauthorized, profilesvc.CodeUnauthorized, tt.wantMsg)
			} else {
				assert.True(t, next.ran, "the next handler did not run")
				want := tt.wantTenant(srv)
				require.NotNil(t, want, "the tenant the key should have")
				assert.Same(t, want, x.tenant, "the exchange's tenant")
				assert.Same(t, want, x.recordTo, "the exchange's record")
				assert.Zero(t, x.status, "authenticate answered a request it let through")
			}
			reqs := srv.Requests()
			if tt.wantRecorded {
				require.Len(t, reqs, 1, "the server's record, want the refused request")
				assert.Equal(t, http.StatusUnauthorized, reqs[0].Status, "the recorded status")
				assert.Equal(t, tt.path, reqs[0].Path, "the recorded path")
			} else {
				assert.Empty(t, reqs, "the server's record")
			}
		})
	}
}

func TestRecord(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		method, path  string
		body          string
		control       bool
		status        int
		wantRecorded  bool
		wantPath      string
		wantQueryKeyX string
	}{
		{name: "a request, once its status is written", method: "POST", path: "/v1/profiles/pf_1/folders?x=1", body: `{"name":"never read"}`,
			status: http.StatusTeapot, wantRecorded: true, wantPath: "/v1/profiles/pf_1/folders", wantQueryKeyX: "1"},
		{name: "a /_mock/ route is not recorded", method: "POST", path: "/_mock/faults", body: `{"status":500}`, control: true, status: http.StatusCreated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newHandlerServer(t, WithAPIKey(testKey))
			x, r, _ := newExchange(srv, httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body)))
			// As authenticate leaves them.
			x.tenant, x.recordTo, x.control = srv.Tenant, srv.Tenant, tt.control
			next := &probe{serve: func(w http.ResponseWriter, r *http.Request) {
				assert.Empty(t, srv.Requests(), "the request is recorded before its status is written")
				w.WriteHeader(tt.status)
				reqs := srv.Requests()
				if !tt.wantRecorded {
					assert.Empty(t, reqs, "the record")
					return
				}
				require.Len(t, reqs, 1, "the record once the status is written")
				got := reqs[0]
				assert.Equal(t, x.requestID, got.RequestID, "the recorded request ID")
				assert.Equal(t, tt.method, got.Method, "the recorded method")
				assert.Equal(t, tt.wantPath, got.Path, "the recorded path")
				assert.Equal(t, tt.wantQueryKeyX, got.Query.Get("x"), "the recorded query")
				assert.Equal(t, tt.status, got.Status, "the recorded status")
				assert.Equal(t, tt.body, string(got.Body), "the recorded body, which no handler read")
			}}
			record(next).ServeHTTP(x, r)
			assert.True(t, next.ran, "the next handler did not run")
			if tt.wantRecorded {
				assert.Len(t, srv.Requests(), 1, "the record after the answer")
			} else {
				assert.Empty(t, srv.Requests(), "the record after the answer")
			}
		})
	}
}

func TestInjectFaults(t *testing.T) {
	t.Parallel()
	profileFault := Fault{Method: "GET", Path: "/v1/profiles/*", Status: http.StatusServiceUnavailable, RetryAfter: 2 * time.Second}
	tests := []struct {
		name         string
		faults       []Fault
		method, path string
		control      bool
		// wantNext: the request reaches the next handler; otherwise the
		// fault answers wantStatus and wantCode, or panics wantPanic.
		wantNext   bool
		wantStatus int
		wantCode   string
		wantPanic  any
	}{
		{name: "a matching fault answers", faults: []Fault{profileFault}, method: "GET", path: "/v1/profiles/pf_1",
			wantStatus: http.StatusServiceUnavailable, wantCode: profilesvc.CodeServiceUnavailable},
		{name: "a fault for another method", faults: []Fault{profileFault}, method: "DELETE", path: "/v1/profiles/pf_1", wantNext: true},
		{name: "a fault for another path", faults: []Fault{profileFault}, method: "GET", path: "/v1/folders/fld_1", wantNext: true},
		{name: "no fault", method: "GET", path: "/v1/profiles/pf_1", wantNext: true},
		{name: "the control API takes no fault", faults: []Fault{{Status: http.StatusInternalServerError}}, method: "GET", path: "/_mock/faults", control: true, wantNext: true},
		{name: "a dropped connection that cannot be hijacked aborts", faults: []Fault{{Drop: true}}, method: "GET", path: "/v1/profiles/pf_1",
			wantPanic: http.ErrAbortHandler},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newHandlerServer(t, WithAPIKey(testKey))
			for _, f := range tt.faults {
				_, err := srv.InjectFault(f)
				require.NoError(t, err, "InjectFault")
			}
			x, r, rec := newExchange(srv, httptest.NewRequest(tt.method, tt.path, nil))
			x.tenant, x.recordTo, x.control = srv.Tenant, srv.Tenant, tt.control
			next := &probe{}
			serve := func() { injectFaults(next).ServeHTTP(x, r) }
			if tt.wantPanic != nil {
				assert.PanicsWithValue(t, tt.wantPanic, serve, "what injectFaults panics with")
			} else {
				serve()
			}
			assert.Equal(t, tt.wantNext, next.ran, "whether the next handler ran")
			if tt.wantCode != "" {
				wantError(t, recorded(rec), tt.wantStatus, tt.wantCode)
				assert.Equal(t, "2", rec.Header().Get("Retry-After"), "the fault's Retry-After")
			}
			if tt.wantNext {
				assert.Zero(t, x.status, "injectFaults answered a request it let through")
			}
		})
	}

	t.Run("a delay holds the request on the clock, then lets it through", func(t *testing.T) {
		clock := NewFakeClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
		srv := newHandlerServer(t, WithAPIKey(testKey), WithClock(clock))
		_, err := srv.InjectFault(Fault{Path: "/v1/profiles/*", Delay: 5 * time.Second})
		require.NoError(t, err)
		x, r, _ := newExchange(srv, httptest.NewRequest("GET", "/v1/profiles/pf_1", nil))
		x.tenant, x.recordTo = srv.Tenant, srv.Tenant
		next := &probe{}
		done := make(chan struct{})
		go func() {
			defer close(done)
			injectFaults(next).ServeHTTP(x, r)
		}()
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		require.NoError(t, clock.BlockUntil(ctx, 1), "the delay's timer")
		select {
		case <-done:
			require.FailNow(t, "the delayed request went on before its delay")
		default:
		}
		clock.Advance(5 * time.Second)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			require.FailNow(t, "the delayed request did not go on once its delay passed")
		}
		assert.True(t, next.ran, "a delay alone must let the request through")
	})
}

func TestDispatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, method, path string
		wantStatus         int
		wantCode, wantMsg  string
		// wantVars are the route's path variables, nil when no route
		// matched.
		wantVars map[string]string
	}{
		{name: "an unknown path", method: "GET", path: "/v1/nothing", wantStatus: http.StatusNotFound, wantCode: profilesvc.CodeNotFound, wantMsg: "no route for GET /v1/nothing"},
		{name: "a known path with another method", method: "PUT", path: "/v1/profiles/pf_dispatch",
			wantStatus: http.StatusMethodNotAllowed, wantCode: profilesvc.CodeMethodNotAllowed, wantMsg: "method PUT is not allowed"},
		{name: "a route runs its handler", method: "GET", path: "/v1/profiles/pf_dispatch",
			wantStatus: http.StatusOK, wantVars: map[string]string{"profileId": "pf_dispatch"}},
		{name: "a route of an unknown resource", method: "GET", path: "/v1/profiles/pf_missing",
			wantStatus: http.StatusNotFound, wantCode: profilesvc.CodeProfileNotFound, wantMsg: "pf_missing", wantVars: map[string]string{"profileId": "pf_missing"}},
		{name: "a variable stays escaped", method: "GET", path: "/v1/items/a%2Fb",
			wantStatus: http.StatusNotFound, wantCode: profilesvc.CodeItemNotFound, wantMsg: "a/b", wantVars: map[string]string{"itemId": "a%2Fb"}},
		{name: "a control route", method: "POST", path: "/_mock/analyses/analysis_x/complete",
			wantStatus: http.StatusNotFound, wantCode: profilesvc.CodeAnalysisNotFound, wantVars: map[string]string{"analysisId": "analysis_x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newHandlerServer(t, WithAPIKey(testKey), WithSeed(&Seed{Profiles: []SeedProfile{{ID: "pf_dispatch", Name: "Dispatched"}}}))
			x, r, rec := newExchange(srv, httptest.NewRequest(tt.method, tt.path, nil))
			x.tenant, x.recordTo = srv.Tenant, srv.Tenant
			dispatch(x, r)
			if tt.wantCode != "" {
				wantError(t, recorded(rec), tt.wantStatus, tt.wantCode, tt.wantMsg)
			} else {
				assert.Equal(t, tt.wantStatus, rec.Code, "status of the answer: %s", rec.Body)
			}
			var vars map[string]string
			for i, name := range x.varNames {
				if vars == nil {
					vars = map[string]string{}
				}
				vars[name] = x.varValues[i]
			}
			if diff := cmp.Diff(tt.wantVars, vars); diff != "" {
				t.Errorf("the exchange's path variables (-want +got):\n%s", diff)
			}
		})
	}
}
