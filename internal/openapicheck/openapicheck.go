// Package openapicheck holds requests and their answers to the service's
// OpenAPI document, api/openapi.yaml (or to the mock's control API's,
// api/mock-control.yaml): one exchange at a time, as it went over the
// wire, with an error that names the operation and the field when they
// disagree.
//
// It is what the contract suite (cmd/profilesvc-contract) checks every
// answer of the real service or the mock with, and what the mock's tests
// can check every exchange with:
//
//	v, err := openapicheck.New()
//	...
//	err = v.Check(ctx, openapicheck.Exchange{
//		Method: "GET", URL: "/v1/folders/fld_1", Header: reqHeader,
//		Status: resp.StatusCode, ResponseHeader: resp.Header, ResponseBody: body,
//	})
//	var m *openapicheck.Mismatch
//	if errors.As(err, &m) {
//		// m.Operation is "getFolder", m.Field "body /items/0/sizeBytes"
//	}
//
// Transport (client side) and Handler (server side) check every exchange
// that passes through them and report each mismatch to a function, such
// as a test's t.Error:
//
//	srv := httptest.NewServer(v.Handler(mock.Handler(), func(err error) { t.Error(err) }))
//
// The validation itself is kin-openapi's (openapi3filter), with its JSON
// Schema 2020-12 validator for OpenAPI 3.1 documents; this package routes
// requests itself, on the escaped path, so that an ID holding an escaped
// slash stays in its segment, and adds what the document implies but a
// generic validator does not check: a query parameter the operation does
// not declare makes the request one the document refuses, and a non-JSON
// answer (the PDF report) must be of its declared media type.
package openapicheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/profilesvc/profilesvc-go/api"
)

// Validator checks exchanges against one OpenAPI document. It is safe for
// concurrent use.
type Validator struct {
	doc    *openapi3.T
	routes []route
	// prefix is the first segment every path of the document shares
	// ("/v1/" or "/_mock/"): a path under it that no template matches is
	// one the document says does not exist.
	prefix string
	// preRouting holds the answers that may come before a request is
	// routed (see unrouted).
	preRouting *openapi3.Operation
	// schemas validates the answers' bodies.
	schemas *schemas
	// kin tells cheaply whether kin-openapi's validation of requests,
	// answers' headers and multipart bodies finds nothing.
	kin *kinSchemas
	// service is the service's document: doc itself, or the one the
	// control API's refers to.
	service *openapi3.T
}

// route is a path template of the document, split into segments.
type route struct {
	template string
	segments []string // a segment in braces is a parameter
	item     *openapi3.PathItem
}

// New returns the Validator of the service's document, api/openapi.yaml.
// It is loaded and validated once per process, on the first call, and
// shared by every caller after: a Validator is read-only, and loading one
// costs a noticeable fraction of a second (more under the race detector).
func New() (*Validator, error) { return serviceValidator() }

var serviceValidator = sync.OnceValues(func() (*Validator, error) {
	return load(api.OpenAPI(), api.OpenAPIFile)
})

// NewMockControl returns a Validator of the mock's control API's
// document, api/mock-control.yaml, whose references to openapi.yaml are
// resolved to the service's document.
func NewMockControl() (*Validator, error) {
	return load(api.MockControl(), api.MockControlFile)
}

// load reads and validates a document; its references to the other
// embedded document, by file name, are resolved from memory.
func load(doc []byte, name string) (*Validator, error) {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = true
	loader.ReadFromURIFunc = func(_ *openapi3.Loader, u *url.URL) ([]byte, error) {
		if b, ok := api.Document(u.Path); ok {
			return b, nil
		}
		return nil, fmt.Errorf("openapicheck: %s refers to %s, which is not one of the embedded documents", name, u)
	}
	t, err := loader.LoadFromDataWithPath(doc, &url.URL{Path: name})
	if err != nil {
		return nil, fmt.Errorf("openapicheck: loading %s: %w", name, err)
	}
	if err := t.Validate(context.Background(), openapi3.EnableExamplesValidation()); err != nil {
		return nil, fmt.Errorf("openapicheck: %s is not a valid OpenAPI document: %w", name, err)
	}
	docs := map[string]*openapi3.T{name: t}
	service := t
	if name != api.OpenAPIFile {
		loaded, err := openapi3.NewLoader().LoadFromData(api.OpenAPI())
		if err != nil {
			return nil, fmt.Errorf("openapicheck: loading %s: %w", api.OpenAPIFile, err)
		}
		docs[api.OpenAPIFile] = loaded
		service = loaded
	}
	s, err := newSchemas(docs, name)
	if err != nil {
		return nil, err
	}
	v := &Validator{doc: t, schemas: s, kin: newKinSchemas(), service: service}
	for template, item := range t.Paths.Map() {
		v.routes = append(v.routes, route{template: template, segments: strings.Split(strings.Trim(template, "/"), "/"), item: item})
		first := "/" + strings.SplitN(strings.TrimPrefix(template, "/"), "/", 2)[0] + "/"
		switch {
		case v.prefix == "":
			v.prefix = first
		case v.prefix != first:
			return nil, fmt.Errorf("openapicheck: the paths of %s do not share a first segment (%s, %s)", name, v.prefix, first)
		}
	}
	// Most literal segments first: a template with fewer parameters wins.
	slices.SortFunc(v.routes, func(a, b route) int {
		if d := b.literals() - a.literals(); d != 0 {
			return d
		}
		return strings.Compare(a.template, b.template)
	})
	v.preRouting = preRoutingAnswers(t)
	return v, nil
}

// preRoutingAnswers gathers the answers every operation that needs the API
// key declares alike (the same response of the components, such as 401
// UNAUTHORIZED and 503 SERVICE_UNAVAILABLE) into an operation of their
// own. A service authenticates a request before it routes it, so these may
// answer a path or a method that has no operation too.
func preRoutingAnswers(t *openapi3.T) *openapi3.Operation {
	var common map[string]*openapi3.ResponseRef
	for _, item := range t.Paths.Map() {
		for _, op := range item.Operations() {
			if op.Security != nil && len(*op.Security) == 0 {
				continue // public: it answers before authentication
			}
			declared := op.Responses.Map()
			if common == nil {
				common = maps.Clone(declared)
				continue
			}
			for status, resp := range common {
				if d := declared[status]; d == nil || resp.Ref == "" || d.Ref != resp.Ref {
					delete(common, status)
				}
			}
		}
	}
	responses := openapi3.NewResponsesWithCapacity(len(common))
	for status, resp := range common {
		responses.Set(status, resp)
	}
	return &openapi3.Operation{Responses: responses}
}

// literals counts the template's segments that are not parameters.
func (r route) literals() int {
	n := 0
	for _, s := range r.segments {
		if !isParam(s) {
			n++
		}
	}
	return n
}

func isParam(segment string) bool {
	return strings.HasPrefix(segment, "{") && strings.HasSuffix(segment, "}")
}

// match reports whether the escaped path fits the template, with the
// template's parameters, unescaped.
func (r route) match(escaped []string) (map[string]string, bool) {
	if len(escaped) != len(r.segments) {
		return nil, false
	}
	var params map[string]string
	for i, s := range r.segments {
		if isParam(s) {
			if escaped[i] == "" {
				return nil, false
			}
			v, err := url.PathUnescape(escaped[i])
			if err != nil {
				return nil, false
			}
			if params == nil {
				params = map[string]string{}
			}
			params[s[1:len(s)-1]] = v
			continue
		}
		if escaped[i] != s {
			return nil, false
		}
	}
	return params, true
}

// Operation is an operation of the document, as found for a request.
type Operation struct {
	// ID is the operation's operationId, such as "createProfile".
	ID string
	// Method and Path are its method and path template.
	Method, Path string
	// Inferred is its x-inferred: an endpoint the interface document does
	// not show.
	Inferred bool
}

// Operations lists the document's operations, by path then method.
func (v *Validator) Operations() []Operation {
	var out []Operation
	for _, r := range v.routes {
		for method, op := range r.item.Operations() {
			inferred, _ := op.Extensions["x-inferred"].(bool)
			out = append(out, Operation{ID: op.OperationID, Method: method, Path: r.template, Inferred: inferred})
		}
	}
	slices.SortFunc(out, func(a, b Operation) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Method, b.Method)
	})
	return out
}

// Description returns an operation's description.
func (v *Validator) Description(op Operation) string {
	item := v.doc.Paths.Value(op.Path)
	if item == nil {
		return ""
	}
	if o := item.GetOperation(op.Method); o != nil {
		return o.Description
	}
	return ""
}

// SuccessStatuses returns the 2xx statuses an operation declares, in
// increasing order.
func (v *Validator) SuccessStatuses(op Operation) []int {
	item := v.doc.Paths.Value(op.Path)
	if item == nil {
		return nil
	}
	o := item.GetOperation(op.Method)
	if o == nil || o.Responses == nil {
		return nil
	}
	var out []int
	for code := range o.Responses.Map() {
		if n, err := strconv.Atoi(code); err == nil && n >= 200 && n < 300 {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// Find returns the operation of a method and an escaped path (with or
// without a query), if the document has one.
func (v *Validator) Find(method, rawURL string) (Operation, bool) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return Operation{}, false
	}
	r, _, ok := v.route(u.EscapedPath())
	if !ok {
		return Operation{}, false
	}
	op := r.item.GetOperation(routeMethod(method))
	if op == nil {
		return Operation{}, false
	}
	inferred, _ := op.Extensions["x-inferred"].(bool)
	return Operation{ID: op.OperationID, Method: routeMethod(method), Path: r.template, Inferred: inferred}, true
}

// route finds the template of an escaped path. A trailing slash is a
// segment of its own, empty: /v1/profiles/pf_1/ is not /v1/profiles/pf_1.
func (v *Validator) route(escapedPath string) (route, map[string]string, bool) {
	segments := strings.Split(strings.TrimPrefix(escapedPath, "/"), "/")
	for _, r := range v.routes {
		if params, ok := r.match(segments); ok {
			return r, params, true
		}
	}
	return route{}, nil, false
}

// routeMethod is the method whose operation answers a request: HEAD is
// answered as GET, without a body.
func routeMethod(method string) string {
	if method == http.MethodHead {
		return http.MethodGet
	}
	return method
}

// Exchange is one request and its answer, as they went over the wire.
type Exchange struct {
	// Method, URL (the path as sent, escaped, with its query; or a whole
	// URL), Header and Body are the request's.
	Method string
	URL    string
	Header http.Header
	Body   []byte
	// Status, ResponseHeader and ResponseBody are the answer's.
	Status         int
	ResponseHeader http.Header
	ResponseBody   []byte
}

// underPaths reports whether an escaped path is under the document's
// paths: "//v1/..." is too, as a path no operation has, not one the
// document does not describe.
func (v *Validator) underPaths(escaped string) bool {
	return strings.HasPrefix("/"+strings.TrimLeft(escaped, "/"), v.prefix)
}

// ErrNotInDocument is matched by the error of Check for a request whose
// path is outside the document's (such as a /_mock/ or /storage/ path
// checked against the service's document): the document says nothing of
// it.
var ErrNotInDocument = errors.New("openapicheck: the path is not the document's")

// Mismatch is one disagreement between an exchange and the document.
type Mismatch struct {
	// Operation is the operationId of the request's operation, or, when
	// the document has none for the request, its method and path.
	Operation string
	// Method and URL are the request's.
	Method, URL string
	// In says where the field is: "request" or "answer".
	In string
	// Field names what disagrees: "status", "header Retry-After",
	// "query limit", "path profileId", "body" or "body /folders/0/id" (a
	// JSON pointer into the body).
	Field string
	// Problem says how.
	Problem string
}

// Error reads like `getFolder (GET /v1/folders/fld_1): answer body
// /items/0/sizeBytes: got string, want integer`.
func (m *Mismatch) Error() string {
	if m.Method == "" {
		return fmt.Sprintf("%s: %s %s: %s", m.Operation, m.In, m.Field, m.Problem)
	}
	return fmt.Sprintf("%s (%s %s): %s %s: %s", m.Operation, m.Method, m.URL, m.In, m.Field, m.Problem)
}

// UndocumentedField reports whether the mismatch is an answer's field the
// document's schema does not list: harmless to a client that ignores
// unknown fields, as the SDK does, where a missing or mistyped field is
// not.
func (m *Mismatch) UndocumentedField() bool {
	return m.In == "answer" && m.Problem == notAField
}

// Mismatches is the error of Check: every disagreement of one exchange.
// errors.As finds each *Mismatch in it.
type Mismatches []*Mismatch

// Error lists the mismatches, one a line.
func (ms Mismatches) Error() string {
	lines := make([]string, len(ms))
	for i, m := range ms {
		lines[i] = m.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap gives the mismatches to errors.Is and errors.As.
func (ms Mismatches) Unwrap() []error {
	out := make([]error, len(ms))
	for i, m := range ms {
		out[i] = m
	}
	return out
}

// Check validates one exchange against the document and returns nil, a
// Mismatches error naming the operation and each field that disagrees, or
// an error matching ErrNotInDocument for a path outside the document.
//
// The answer must be one the operation declares for its status, with the
// declared headers and a body of the declared schema. A request the
// document refuses (a field it does not have, a value out of bounds, a
// missing key, an undeclared query parameter) must be refused: answered
// with an error status the operation declares; one answered with success
// is a mismatch of the request. A path under the document's prefix that
// no operation has must be answered 404, and a method the path does not
// have 405, with the error body, unless the answer is one that comes
// before routing: one every operation that needs the API key declares
// alike (401 UNAUTHORIZED, 503 SERVICE_UNAVAILABLE), since a service
// authenticates a request before it routes it. A trailing slash is part
// of the path: /v1/profiles/pf_1/ is no operation's. HEAD is checked as
// GET, with an empty body. A multipart/form-data body is read part by
// part: a part whose property is a string, such as a file, is its bytes
// whatever its media type, which must be one its encoding allows.
func (v *Validator) Check(ctx context.Context, ex Exchange) error {
	return v.check(ctx, ex, true)
}

// CheckAnswer validates the answer of an exchange alone, as Check does,
// for a caller that does not have the request's headers and body: of the
// request, only Method and URL are read.
func (v *Validator) CheckAnswer(ctx context.Context, ex Exchange) error {
	return v.check(ctx, ex, false)
}

func (v *Validator) check(ctx context.Context, ex Exchange, withRequest bool) error {
	parse := url.Parse
	if strings.HasPrefix(ex.URL, "/") {
		// A path alone, as a server sees it: "//v1/..." is a path, not
		// a host.
		parse = url.ParseRequestURI
	}
	u, err := parse(ex.URL)
	if err != nil {
		return Mismatches{{Operation: ex.Method + " " + ex.URL, Method: ex.Method, URL: ex.URL, In: "request", Field: "URL", Problem: err.Error()}}
	}
	c := &check{v: v, ex: ex, u: u, target: u.RequestURI(), withRequest: withRequest}
	escaped := u.EscapedPath()
	r, params, ok := v.route(escaped)
	if !ok {
		if !v.underPaths(escaped) {
			return fmt.Errorf("%w: %s %s (the document's paths begin with %s)", ErrNotInDocument, ex.Method, c.target, v.prefix)
		}
		c.operation = ex.Method + " " + c.target
		c.unrouted(ctx, escaped, http.StatusNotFound, "no operation of the document has this path")
		return c.result()
	}
	op := r.item.GetOperation(routeMethod(ex.Method))
	if op == nil {
		c.operation = ex.Method + " " + r.template
		c.unrouted(ctx, r.template, http.StatusMethodNotAllowed, fmt.Sprintf("%s has no %s operation", r.template, ex.Method))
		return c.result()
	}
	c.operation = op.OperationID
	c.opLoc = v.schemas.operation(r.template, routeMethod(ex.Method))
	c.validate(ctx, &routers.Route{Spec: v.doc, Path: r.template, PathItem: r.item, Method: routeMethod(ex.Method), Operation: op}, params)
	return c.result()
}

// check is the checking of one exchange.
type check struct {
	v         *Validator
	ex        Exchange
	u         *url.URL
	target    string // the request's path and query
	operation string
	problems  Mismatches
	// withRequest is false when only the answer is checked.
	withRequest bool
	// opLoc is the operation's place in the document, for its schemas;
	// "" for an exchange no operation of the document routes.
	opLoc string
}

func (c *check) add(in, field, problem string) {
	c.problems = append(c.problems, &Mismatch{Operation: c.operation, Method: c.ex.Method, URL: c.target, In: in, Field: field, Problem: problem})
}

func (c *check) result() error {
	if len(c.problems) == 0 {
		return nil
	}
	return c.problems
}

// unrouted checks the answer to a request the document has no operation
// for: the status given, with the service's error body, or one of the
// answers that come before routing (401 for a missing or wrong key, 503),
// as the operations declare it.
func (c *check) unrouted(ctx context.Context, path string, status int, why string) {
	if c.ex.Status != status && c.v.preRouting.Responses.Status(c.ex.Status) != nil {
		c.withRequest = false
		c.validate(ctx, &routers.Route{Spec: c.v.doc, Path: path, Method: routeMethod(c.ex.Method), Operation: c.v.preRouting}, nil)
		return
	}
	if c.ex.Status != status {
		c.add("answer", "status", fmt.Sprintf("%s, so the answer should be %d, not %d", why, status, c.ex.Status))
		return
	}
	if c.ex.Method == http.MethodHead {
		return
	}
	schema, loc := c.v.errorSchema()
	if schema == nil {
		return
	}
	c.checkJSONBody(schema, loc, "answer")
}

// errorSchema is the schema of the service's error body, and its place:
// the document's own, or, for the control API's, the service document's
// it refers to.
func (v *Validator) errorSchema() (*openapi3.SchemaRef, string) {
	if schema := v.doc.Components.Schemas["Error"]; schema != nil {
		return schema, v.schemas.component("Error")
	}
	if v.service != nil && v.service != v.doc {
		if schema := v.service.Components.Schemas["Error"]; schema != nil {
			return schema, documentBase + api.OpenAPIFile + "#/components/schemas/Error"
		}
	}
	return nil, ""
}

// checkJSONBody checks the answer's body against a schema, at loc in the
// document, outside any operation.
func (c *check) checkJSONBody(schema *openapi3.SchemaRef, loc, in string) {
	if mt := mediaType(c.ex.ResponseHeader.Get("Content-Type")); mt != "application/json" {
		c.add(in, "header Content-Type", fmt.Sprintf("the error body is JSON, not %q", c.ex.ResponseHeader.Get("Content-Type")))
		return
	}
	var value any
	if err := jsonUnmarshal(c.ex.ResponseBody, &value); err != nil {
		c.add(in, "body", "not JSON: "+err.Error())
		return
	}
	for _, p := range c.v.schemas.problems(loc, schema, value) {
		c.add(in, "body"+p.field, p.problem)
	}
}

// validate checks the request and the answer against their operation.
func (c *check) validate(ctx context.Context, rt *routers.Route, params map[string]string) {
	req, err := http.NewRequestWithContext(ctx, rt.Method, "http://service"+c.target, bytes.NewReader(c.ex.Body))
	if err != nil {
		c.add("request", "URL", err.Error())
		return
	}
	req.Header = c.ex.Header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	// A multipart body is checked here (see multipartProblems).
	form := multipartContent(rt.Operation, req.Header.Get("Content-Type"))
	in := &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: rt,
		Options: &openapi3filter.Options{MultiError: true, AuthenticationFunc: authenticate, SkipSettingDefaults: true, ExcludeRequestBody: form != nil},
	}
	if !c.withRequest {
		c.validateAnswer(ctx, in, rt.Operation)
		return
	}
	var refused []problem
	if !c.v.kin.requestPasses(ctx, in, c.ex.Body) {
		refused = requestProblems(openapi3filter.ValidateRequest(ctx, in))
	}
	if form != nil {
		refused = append(refused, c.v.kin.multipartProblems(form, req.Header.Get("Content-Type"), c.ex.Body)...)
	}
	refused = append(refused, undeclaredQuery(rt.Operation, rt.PathItem, c.u.Query())...)
	refused = append(refused, requestBodyProblems(req.Header.Get("Content-Type"), c.ex.Body)...)

	if len(refused) > 0 && c.ex.Status >= 200 && c.ex.Status < 300 {
		for _, p := range refused {
			c.add("request", p.field, fmt.Sprintf("%s: the document refuses the request, but it was answered %d", p.problem, c.ex.Status))
		}
	}
	c.validateAnswer(ctx, in, rt.Operation)
}

// validateAnswer checks the answer against the operation's responses.
func (c *check) validateAnswer(ctx context.Context, in *openapi3filter.RequestValidationInput, op *openapi3.Operation) {
	resp := op.Responses.Status(c.ex.Status)
	if resp == nil {
		resp = op.Responses.Default()
	}
	if resp == nil {
		c.add("answer", "status", fmt.Sprintf("%d is not an answer of the operation (it declares %s)", c.ex.Status, strings.Join(statuses(op), ", ")))
		return
	}
	header := c.ex.ResponseHeader.Clone()
	if header == nil {
		header = http.Header{}
	}
	// JSON bodies are kin-openapi's to check; others are checked here, by
	// their media type.
	declared := len(resp.Value.Content) > 0
	if ct := header.Get("Content-Type"); ct != "" {
		if _, _, err := mime.ParseMediaType(ct); err != nil {
			c.add("answer", "header Content-Type", fmt.Sprintf("%q is not a media type: %v", ct, err))
			return
		}
	}
	jsonBody := declared && mediaType(header.Get("Content-Type")) == "application/json"
	head := c.ex.Method == http.MethodHead
	// A JSON body is checked with the document's compiled schema when the
	// answer has a place in the document, else by kin-openapi.
	var media *openapi3.MediaType
	if jsonBody && !head {
		media = resp.Value.Content.Get(header.Get("Content-Type"))
	}
	loc := c.answerBodyLocation(op, resp, media)
	rin := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: c.ex.Status, Header: header,
		Body:    io.NopCloser(bytes.NewReader(c.ex.ResponseBody)),
		Options: &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true, ExcludeResponseBody: head || !jsonBody || loc != ""},
	}
	if !c.v.kin.answerPasses(rin) {
		for _, p := range answerProblems(openapi3filter.ValidateResponse(ctx, rin)) {
			c.add("answer", p.field, p.problem)
		}
	}
	if loc != "" && media != nil && media.Schema != nil {
		c.checkJSONBody(media.Schema, loc, "answer")
	}
	switch {
	case head:
		if len(c.ex.ResponseBody) > 0 {
			c.add("answer", "body", fmt.Sprintf("an answer to HEAD has no body; this one has %d bytes", len(c.ex.ResponseBody)))
		}
	case !declared:
		if len(c.ex.ResponseBody) > 0 {
			c.add("answer", "body", fmt.Sprintf("the document gives this answer no body; it has %d bytes", len(c.ex.ResponseBody)))
		}
	case !jsonBody:
		c.checkMediaBody(resp.Value)
	}
}

// answerBodyLocation is the place in the document of the schema of the
// answer's body, of media type media, as op declares it; "" when there is
// none to check or it has no place of its own.
func (c *check) answerBodyLocation(op *openapi3.Operation, resp *openapi3.ResponseRef, media *openapi3.MediaType) string {
	if media == nil || media.Schema == nil {
		return ""
	}
	key, mediaKey := "", ""
	for k, r := range op.Responses.Map() {
		if r == resp {
			key = k
		}
	}
	for k, m := range resp.Value.Content {
		if m == media {
			mediaKey = k
		}
	}
	if key == "" || mediaKey == "" {
		return ""
	}
	return c.v.schemas.answerBody(c.opLoc, key, resp, mediaKey)
}

// checkMediaBody checks a body that kin-openapi does not: its media type
// must be declared, and a PDF must be one.
func (c *check) checkMediaBody(resp *openapi3.Response) {
	ct := c.ex.ResponseHeader.Get("Content-Type")
	if resp.Content.Get(ct) == nil {
		c.add("answer", "header Content-Type", fmt.Sprintf("%q is not a media type of the answer (it declares %s)", ct, strings.Join(slices.Sorted(maps.Keys(resp.Content)), ", ")))
		return
	}
	if mediaType(ct) == "application/pdf" && !bytes.HasPrefix(c.ex.ResponseBody, []byte("%PDF-")) {
		c.add("answer", "body", fmt.Sprintf("not a PDF document: it begins %q", excerpt(c.ex.ResponseBody)))
	}
}

// CheckSchema validates a JSON value against a schema of the document's
// components, such as "Analysis": for a value met outside an exchange,
// like a golden file. The error is a Mismatches whose Operation is the
// schema's name and whose fields are "body" and JSON pointers into it.
func (v *Validator) CheckSchema(name string, body []byte) error {
	schema := v.doc.Components.Schemas[name]
	if schema == nil {
		return fmt.Errorf("openapicheck: the document has no schema %q", name)
	}
	var value any
	if err := jsonUnmarshal(body, &value); err != nil {
		return fmt.Errorf("openapicheck: the value is not JSON: %w", err)
	}
	var out Mismatches
	for _, p := range v.schemas.problems(v.schemas.component(name), schema, value) {
		out = append(out, &Mismatch{Operation: name, In: "value", Field: strings.TrimSpace("body" + p.field), Problem: p.problem})
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// authenticate is the security check of the document's API key: the
// header must be there. Whether the key is right, only the service knows.
func authenticate(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	s := in.SecurityScheme
	if s == nil || s.Type != "apiKey" || s.In != "header" {
		return nil
	}
	if in.RequestValidationInput.Request.Header.Get(s.Name) == "" {
		return fmt.Errorf("the %s header is missing", s.Name)
	}
	return nil
}

// undeclaredQuery names the query parameters the operation does not
// declare.
func undeclaredQuery(op *openapi3.Operation, item *openapi3.PathItem, query url.Values) []problem {
	declared := map[string]queryParam{}
	for _, params := range []openapi3.Parameters{item.Parameters, op.Parameters} {
		for _, p := range params {
			if p.Value != nil && p.Value.In == openapi3.ParameterInQuery {
				declared[p.Value.Name] = queryParam{p.Value}
			}
		}
	}
	var out []problem
	for _, name := range slices.Sorted(maps.Keys(query)) {
		p, ok := declared[name]
		switch {
		case !ok:
			out = append(out, problem{field: "query " + name, problem: "not a parameter of the operation"})
		case len(query[name]) > 1 && !p.acceptsMany():
			out = append(out, problem{field: "query " + name, problem: fmt.Sprintf("given %d times; the parameter takes one value", len(query[name]))})
		}
	}
	return out
}

// requestBodyProblems finds what kin-openapi lets through in a request's
// body: a Content-Type that is not a media type, and a JSON body followed
// by more (kin-openapi decodes the first value and ignores the rest).
func requestBodyProblems(ct string, body []byte) []problem {
	if ct == "" {
		return nil
	}
	if _, _, err := mime.ParseMediaType(ct); err != nil {
		return []problem{{field: "header Content-Type", problem: fmt.Sprintf("%q is not a media type: %v", ct, err)}}
	}
	if mediaType(ct) != "application/json" || len(body) == 0 || json.Valid(body) {
		return nil
	}
	var first any
	err := jsonUnmarshal(body, &first)
	if !errors.Is(err, errTrailingData) {
		return nil // not JSON at all: kin-openapi says so
	}
	return []problem{{field: "body", problem: err.Error()}}
}

// queryParam is a query parameter an operation declares.
type queryParam struct{ *openapi3.Parameter }

// acceptsMany reports whether the parameter may be repeated: an array
// exploded into one value per repetition.
func (p queryParam) acceptsMany() bool {
	if p.Parameter == nil || p.Schema == nil || p.Schema.Value == nil || p.Schema.Value.Type == nil {
		return false
	}
	return p.Schema.Value.Type.Includes("array") && (p.Explode == nil || *p.Explode)
}

// statuses lists the statuses an operation declares.
func statuses(op *openapi3.Operation) []string {
	return slices.Sorted(maps.Keys(op.Responses.Map()))
}

// mediaType is the lower-cased media type of a Content-Type, without
// parameters.
func mediaType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(ct))
	}
	return mt
}

func excerpt(b []byte) string {
	if len(b) > 16 {
		b = b[:16]
	}
	return string(b)
}
