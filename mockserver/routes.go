package mockserver

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/gorilla/mux"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/apiroutes"
)

// tenantHandler answers one route for the tenant of the request's API key;
// an error it returns is written as the service's error body.
type tenantHandler func(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError

// Paths of the storage of items' artifacts, which views name.
const (
	storageOriginalPath = apiroutes.StorageOriginal
	storageTextPath     = apiroutes.StorageText
)

// routes lists every route the mock serves but the public ones
// (publicRoutes), in one place: the published endpoints, the inferred
// ones, the storage artifacts and the control API. Each names its route
// in internal/apiroutes, which gives its method, path and query
// parameters. Mostly a table, it is built into the router once per
// process.
func routes() []route {
	table := []route{
		// Published.
		{name: "CreateProfile", handler: handleCreateProfile},
		{name: "UpdateProfile", handler: handleUpdateProfile},
		{name: "DeleteProfile", handler: handleDeleteProfile},
		{name: "ListFolders", handler: handleListFolders, streams: true},
		{name: "GetFolder", handler: handleGetFolder},
		{name: "RenameFolder", handler: handleRenameFolder},
		{name: "DeleteFolder", handler: handleDeleteFolder},
		{name: "UpdateItem", handler: handleUpdateItem},
		{name: "StartAnalysis", handler: handleStartAnalysis},
		{name: "GetAnalysis", handler: handleGetAnalysis},
		{name: "DownloadReport", handler: handleReport},
		{name: "DeleteAnalysis", handler: handleDeleteAnalysis},

		// Inferred.
		{name: "ListProfiles", handler: handleListProfiles, streams: true},
		{name: "GetProfile", handler: handleGetProfile},
		{name: "CreateFolder", handler: handleCreateFolder},
		// One route for UploadFile, CreateTextItem and CreateJSONItem,
		// which share it, told apart by the body.
		{name: "UploadFile", handler: handleCreateItem},
		{name: "GetItem", handler: handleGetItem},
		{name: "DeleteItem", handler: handleDeleteItem},
		{name: "ListAnalyses", handler: handleListAnalyses, streams: true},

		// Storage artifacts of items (url and storageOriginalUrl).
		{name: "getItemOriginal", handler: handleItemOriginal},
		{name: "getItemText", handler: handleItemText},

		// The control API (its public routes, which need no key, are in
		// publicRoutes).
		{name: "reset", handler: handleReset},
		{name: "listWorkflows", handler: handleListWorkflows},
		{name: "addWorkflow", handler: handleAddWorkflow},
		{name: "loadSeed", handler: handleSeed},
		{name: "saveState", handler: handleSaveState},
		{name: "getSnapshot", handler: handleGetSnapshot, streams: true},
		{name: "restoreSnapshot", handler: handleRestoreSnapshot},
		{name: "getState", handler: handleGetState},
		{name: "setItemStatus", handler: handleSetItemStatus},
		{name: "processAnalysis", handler: handleProcessAnalysis},
		{name: "completeAnalysis", handler: handleCompleteAnalysis},
		{name: "failAnalysis", handler: handleFailAnalysis},
		{name: "setVerificationStatus", handler: handleSetVerification},
		{name: "listFaults", handler: handleListFaults},
		{name: "addFault", handler: handleAddFault},
		{name: "clearFaults", handler: handleClearFaults},
		{name: "removeFault", handler: handleRemoveFault},
		{name: "listRequests", handler: handleListRequests, streams: true},
		{name: "clearRequests", handler: handleClearRequests},
		{name: "listViolations", handler: handleNotAProxy},
		{name: "getConformance", handler: handleNotAProxy},
		{name: "saveRecording", handler: handleNotAProxy},
	}
	for i := range table {
		r := namedRoute(table[i].name)
		table[i].method, table[i].path, table[i].query = r.Method, r.Path, r.Query
	}
	return table
}

// namedRoute returns the route of internal/apiroutes with the name. A
// name it does not have is a mistake in the mock's tables, which its
// tests find at once.
func namedRoute(name string) apiroutes.Route {
	r, ok := apiroutes.Named(name)
	if !ok {
		panic("mockserver: internal/apiroutes has no route " + name)
	}
	return r
}

// queryOf returns the request's query parameters, which the request's
// route has checked before its handler runs (checkQuery): the query is
// well formed, holds none but the route's parameters (apiroutes), and
// each at most once. A request without a query has none, without the
// allocation of an empty map; the handlers only read the values.
func queryOf(r *http.Request) url.Values {
	if r.URL.RawQuery == "" {
		return nil
	}
	return r.URL.Query()
}

// route is one entry of the route table: a GET route answers HEAD too, as
// HTTP requires, without a body.
type route struct {
	// name is the route's in internal/apiroutes, which gives the
	// method, the path and the query.
	name         string
	method, path string
	// template is path, read when the router is built.
	template pathTemplate
	handler  tenantHandler
	// query names the route's query parameters: any other, a malformed
	// query or a parameter given twice is refused before the handler runs.
	query []string
	// streams writes its answer as it makes it, rather than into a buffer
	// sent once the handler has returned: for an answer too large to hold,
	// made without the tenant's lock.
	streams bool
}

// serve runs the route's handler for the request's tenant. The handler
// answers into a buffer, sent once it has returned: by then it has
// released the tenant's lock, so a client slow to read its answer never
// holds up the others.
func (rt *route) serve(w http.ResponseWriter, r *http.Request) {
	x := exchangeOf(r)
	rt.template.match(x.path, &x.varValues)
	x.varNames = rt.template.vars
	if e := checkQuery(r, rt.query); e != nil {
		writeError(w, e)
		return
	}
	if rt.streams {
		if e := rt.handler(x.tenant, w, r); e != nil {
			writeError(w, e)
		}
		return
	}
	bw := &x.buffered
	bw.ResponseWriter = w
	if e := rt.handler(x.tenant, bw, r); e != nil {
		writeError(bw, e)
	}
	bw.flush()
}

// chain is the middleware around the router, built once per process: each
// stage finds the server and the tenant in the request's exchange.
var chain = sync.OnceValue(func() http.Handler {
	return recoverAndLog(cors(public(authenticate(record(injectFaults(http.HandlerFunc(dispatch)))))))
})

// dispatch finds the request's route and runs its handler, with the path's
// variables in the exchange. An unknown path is 404 NOT_FOUND, a known
// path with another method 405 METHOD_NOT_ALLOWED.
func dispatch(w http.ResponseWriter, r *http.Request) {
	x := exchangeOf(r)
	x.path, x.pathTaken = r.URL.EscapedPath(), true
	m := &x.match
	if !router().Match(r, m) || m.MatchErr != nil {
		noRoute(w, r, errors.Is(m.MatchErr, mux.ErrMethodMismatch))
		return
	}
	m.Handler.ServeHTTP(w, r)
}

// noRoute answers a request no route matched: 405 when some route has its
// path (knownPath), else 404.
func noRoute(w http.ResponseWriter, r *http.Request, knownPath bool) {
	if knownPath {
		writeError(w, errorf(http.StatusMethodNotAllowed, profilesvc.CodeMethodNotAllowed, "method %s is not allowed on %s", r.Method, r.URL.EscapedPath()))
		return
	}
	writeError(w, errorf(http.StatusNotFound, profilesvc.CodeNotFound, "no route for %s %s", r.Method, r.URL.EscapedPath()))
}

// router is the gorilla/mux router of the route table, built on first use
// and shared by every server of the process: it holds no server's state.
// Each route matches its path with its pathTemplate, which takes IDs as
// opaque, still-escaped segments, so that an encoded slash stays inside
// its segment; requests are matched, never cleaned or redirected. A GET
// route answers HEAD too.
var router = sync.OnceValue(func() *mux.Router {
	r := mux.NewRouter()
	r.UseEncodedPath()
	r.SkipClean(true)
	table := routes()
	for i := range table {
		rt := &table[i]
		t, err := parsePathTemplate(rt.path)
		if err != nil {
			panic("mockserver: route " + rt.name + ": " + err.Error())
		}
		rt.template = t
		methods := []string{rt.method}
		if rt.method == http.MethodGet {
			methods = append(methods, http.MethodHead)
		}
		r.NewRoute().MatcherFunc(rt.template.matcher()).Methods(methods...).Handler(http.HandlerFunc(rt.serve))
	}
	return r
})

// bufferedWriter keeps an answer in memory until flush. It keeps the
// slices it is given rather than copies: every handler writes bytes it
// never changes afterwards (fresh encodings, or cached answers that are
// replaced, never modified), and a cached analysis is too large to copy on
// every read.
type bufferedWriter struct {
	http.ResponseWriter
	status int
	body   [][]byte
	first  [2][]byte // body's first pieces, without an allocation
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
	if b.body == nil {
		b.body = b.first[:0]
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
	x := exchangeOf(r)
	var v string
	for i, n := range x.varNames {
		if n == name {
			v = x.varValues[i]
			break
		}
	}
	if !strings.Contains(v, "%") {
		return v // nothing to unescape, as is most often the case
	}
	if u, err := url.PathUnescape(v); err == nil {
		return u
	}
	return v
}
