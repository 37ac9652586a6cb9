package mockserver

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
)

// tenantHandler answers one route for the tenant of the request's API key;
// an error it returns is written as the service's error body.
type tenantHandler func(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError

// Paths of the mock's own routes: the storage artifacts of items and the
// /_mock/ control API.
const (
	storageOriginalPath = "/storage/items/{itemId}/original"
	storageTextPath     = "/storage/items/{itemId}/text"
)

// buildHandler lists every route the mock serves, in one place: the
// published endpoints, the inferred ones, the storage artifacts and the
// control API.
func (s *Server) buildHandler() http.Handler {
	r := mux.NewRouter()
	// Match IDs as opaque, still-escaped segments: an encoded slash stays
	// inside its segment, and no path is cleaned or redirected.
	r.UseEncodedPath()
	r.SkipClean(true)
	r.NotFoundHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, errorf(http.StatusNotFound, profilesvc.CodeNotFound, "no route for %s %s", r.Method, r.URL.EscapedPath()))
	})
	r.MethodNotAllowedHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, errorf(http.StatusMethodNotAllowed, profilesvc.CodeMethodNotAllowed, "method %s is not allowed on %s", r.Method, r.URL.EscapedPath()))
	})
	route := func(method, path string, h tenantHandler) {
		r.Handle(path, s.adapt(h)).Methods(method)
	}

	// Published.
	route("POST", apiroutes.WorkflowProfiles, (*Tenant).handleCreateProfile)
	route("PATCH", apiroutes.Profile, (*Tenant).handleUpdateProfile)
	route("DELETE", apiroutes.Profile, (*Tenant).handleDeleteProfile)
	route("GET", apiroutes.ProfileFolders, (*Tenant).handleListFolders)
	route("GET", apiroutes.Folder, (*Tenant).handleGetFolder)
	route("PATCH", apiroutes.Folder, (*Tenant).handleRenameFolder)
	route("DELETE", apiroutes.Folder, (*Tenant).handleDeleteFolder)
	route("PATCH", apiroutes.Item, (*Tenant).handleUpdateItem)
	route("POST", apiroutes.Analyze, (*Tenant).handleStartAnalysis)
	route("GET", apiroutes.Analysis, (*Tenant).handleGetAnalysis)
	route("GET", apiroutes.AnalysisReport, (*Tenant).handleReport)
	route("DELETE", apiroutes.Analysis, (*Tenant).handleDeleteAnalysis)

	// Inferred.
	route("GET", apiroutes.WorkflowProfiles, (*Tenant).handleListProfiles)
	route("GET", apiroutes.Profile, (*Tenant).handleGetProfile)
	route("POST", apiroutes.ProfileFolders, (*Tenant).handleCreateFolder)
	route("POST", apiroutes.FolderItems, (*Tenant).handleCreateItem)
	route("GET", apiroutes.Item, (*Tenant).handleGetItem)
	route("DELETE", apiroutes.Item, (*Tenant).handleDeleteItem)
	route("GET", apiroutes.ProfileAnalyses, (*Tenant).handleListAnalyses)

	// Storage artifacts of items (url and storageOriginalUrl).
	route("GET", storageOriginalPath, (*Tenant).handleItemOriginal)
	route("GET", storageTextPath, (*Tenant).handleItemText)

	// The control API.
	route("POST", "/_mock/reset", (*Tenant).handleReset)
	route("GET", "/_mock/workflows", (*Tenant).handleListWorkflows)
	route("POST", "/_mock/workflows", (*Tenant).handleAddWorkflow)
	route("POST", "/_mock/seed", (*Tenant).handleSeed)
	route("POST", "/_mock/items/{itemId}/status", (*Tenant).handleSetItemStatus)
	route("POST", "/_mock/analyses/{analysisId}/process", (*Tenant).handleProcessAnalysis)
	route("POST", "/_mock/analyses/{analysisId}/complete", (*Tenant).handleCompleteAnalysis)
	route("POST", "/_mock/analyses/{analysisId}/fail", (*Tenant).handleFailAnalysis)
	route("POST", "/_mock/analyses/{analysisId}/verification", (*Tenant).handleSetVerification)
	route("GET", "/_mock/faults", (*Tenant).handleListFaults)
	route("POST", "/_mock/faults", (*Tenant).handleAddFault)
	route("DELETE", "/_mock/faults", (*Tenant).handleClearFaults)
	route("DELETE", "/_mock/faults/{faultId}", (*Tenant).handleRemoveFault)
	route("GET", "/_mock/requests", (*Tenant).handleListRequests)
	route("DELETE", "/_mock/requests", (*Tenant).handleClearRequests)

	return s.middleware(r)
}

type tenantKey struct{}

// adapt runs a tenantHandler for the request's tenant.
func (s *Server) adapt(h tenantHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t, _ := r.Context().Value(tenantKey{}).(*Tenant)
		if t == nil {
			writeError(w, errorf(http.StatusUnauthorized, profilesvc.CodeUnauthorized, "invalid API key"))
			return
		}
		// The handler answers into a buffer, sent once it has returned: by
		// then it has released the tenant's lock, so a client slow to read
		// its answer never holds up the others.
		bw := &bufferedWriter{ResponseWriter: w}
		if e := h(t, bw, r); e != nil {
			writeError(bw, e)
		}
		bw.flush()
	})
}

// bufferedWriter keeps an answer in memory until flush. It keeps the
// slices it is given rather than copies: every handler writes bytes it
// never changes afterwards (fresh encodings, or cached answers that are
// replaced, never modified), and a cached analysis is too large to copy on
// every read.
type bufferedWriter struct {
	http.ResponseWriter
	status int
	body   [][]byte
}

func (b *bufferedWriter) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

func (b *bufferedWriter) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	b.body = append(b.body, p)
	return len(p), nil
}

// Unwrap lets http.ResponseController reach the connection, for the
// write deadline of long polls.
func (b *bufferedWriter) Unwrap() http.ResponseWriter { return b.ResponseWriter }

// flush sends the answer.
func (b *bufferedWriter) flush() {
	if b.status == 0 {
		return
	}
	b.ResponseWriter.WriteHeader(b.status)
	for _, p := range b.body {
		if _, err := b.ResponseWriter.Write(p); err != nil {
			return
		}
	}
}

// requestIDHeader names the header of every answer that carries its
// request ID, which the SDK reports as APIError.RequestID.
const requestIDHeader = "X-Request-Id"

// middleware names each answer with a request ID, authenticates, records,
// injects faults, logs and turns a panic into an error answer, around the
// router.
func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		// Set before anything can answer, so that every answer carries it:
		// a 401, an unknown route, an injected fault, a long poll's.
		requestID := s.reqIDs.next("req_")
		w.Header().Set(requestIDHeader, requestID)
		sw := &statusWriter{ResponseWriter: w}
		key := r.Header.Get("x-api-key")
		tenant := s.TenantOf(key)
		recordTo := tenant
		if recordTo == nil && !s.cfg.multiTenant {
			recordTo = s.Tenant
		}
		control := strings.HasPrefix(r.URL.Path, "/_mock/")
		var tap *bodyTap
		if recordTo != nil && !control && r.Body != nil && r.Body != http.NoBody {
			tap = &bodyTap{ReadCloser: r.Body}
			r.Body = tap
		}
		// The record is written as the answer's status is, before any byte
		// of the answer leaves (or before a dropped connection closes), so
		// that a client that has its answer finds its request recorded.
		// The record's generation is taken as the request arrives: a Reset
		// or ClearRequests while it is under way keeps it out of the record.
		if recordTo != nil && !control {
			generation := recordTo.record.generation()
			sw.onStatus = func(status int) {
				rec := RecordedRequest{
					Time:      s.clock.Now().UTC(),
					RequestID: requestID,
					Method:    r.Method,
					Path:      r.URL.EscapedPath(),
					Query:     recordedQuery(r),
					Header:    redactHeader(r.Header),
					Status:    status,
				}
				if tap != nil {
					tap.finish()
					rec.Body = append([]byte(nil), tap.buf.Bytes()...)
					rec.BodyTruncated = tap.truncated
				}
				recordTo.record.add(generation, rec)
			}
		}
		defer func() {
			p := recover()
			if p != nil && p != http.ErrAbortHandler && sw.status == 0 {
				writeError(sw, errorf(http.StatusInternalServerError, profilesvc.CodeInternal, "the mock server failed: %v", p))
			}
			sw.commit(0) // an answer that never began: a dropped connection
			if s.cfg.logger != nil {
				s.cfg.logger.LogAttrs(context.Background(), slog.LevelInfo, "request",
					slog.String("method", r.Method), slog.String("path", r.URL.EscapedPath()),
					slog.Int("status", sw.status), slog.Duration("duration", time.Since(start)),
					slog.String("requestId", requestID))
			}
			if p == http.ErrAbortHandler {
				panic(p)
			}
		}()
		if tenant == nil {
			msg := "invalid API key"
			if key == "" {
				msg = "the x-api-key header is missing"
			} else if s.cfg.multiTenant {
				msg = "invalid API key: a multi-tenant mock accepts any well-formed UUID"
			}
			writeError(sw, errorf(http.StatusUnauthorized, profilesvc.CodeUnauthorized, "%s", msg))
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), tenantKey{}, tenant))
		if !control {
			if f, ok := tenant.faults.match(r.Method, r.URL.EscapedPath()); ok {
				if s.applyFault(sw, r, f) {
					return
				}
			}
		}
		next.ServeHTTP(sw, r)
	})
}

// redactHeader copies h with the API key masked.
func redactHeader(h http.Header) http.Header {
	out := h.Clone()
	if out.Get("x-api-key") != "" {
		out.Set("x-api-key", redacted)
	}
	return out
}

// pathVar returns a path parameter, unescaped; the router matches on the
// escaped path, so an escaped slash arrives here as part of the ID.
func pathVar(r *http.Request, name string) string {
	v := mux.Vars(r)[name]
	if u, err := url.PathUnescape(v); err == nil {
		return u
	}
	return v
}

// recordedQuery is the request's query as the record keeps it: nil when
// there is none, to spare the parse on most requests.
func recordedQuery(r *http.Request) url.Values {
	if r.URL.RawQuery == "" {
		return nil
	}
	return r.URL.Query()
}
