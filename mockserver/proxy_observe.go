package mockserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/openapicheck"
)

// maxViolations is how many violations a proxy keeps, the newest.
const maxViolations = 1000

// maxUnrouted is how many distinct requests outside the document's
// operations a proxy's conformance keeps apart.
const maxUnrouted = 100

// Violation is one disagreement between an exchange the proxy forwarded
// and the service's OpenAPI document.
type Violation struct {
	// RequestID is the service's X-Request-Id of the answer.
	RequestID string `json:"requestId"`
	// OperationID is the document's operation of the request, or its
	// method and path when the document has none.
	OperationID string `json:"operationId"`
	Method      string `json:"method"`
	// Path is the request's path and query, escaped.
	Path   string `json:"path"`
	Status int    `json:"status"`
	// In is "request" or "answer"; Field names what disagrees, as
	// "status", "header Retry-After" or "body /items/0/sizeBytes".
	In    string `json:"in"`
	Field string `json:"field"`
	// Pointer is the JSON pointer of the field in the body ("" for the
	// body as a whole, or a field outside it).
	Pointer string `json:"pointer"`
	// Message says what disagrees and how.
	Message string    `json:"message"`
	At      time.Time `json:"at"`
}

// ViolationList is the proxy's violations: the newest maxViolations,
// oldest first, and how many older ones were dropped.
type ViolationList struct {
	Count   int         `json:"count"`
	Dropped int         `json:"dropped"`
	Items   []Violation `json:"items"`
}

// Conformance summarises what the traffic through a proxy showed, per
// operation of the service's document.
type Conformance struct {
	// Target is the service's base URL.
	Target string `json:"target"`
	// Calls counts the exchanges forwarded and answered by the service.
	Calls int `json:"calls"`
	// Violations counts the disagreements with the document, dropped
	// ones included.
	Violations int `json:"violations"`
	// Operations has one entry per operation of the document, in its
	// order (by path, then method).
	Operations []OperationConformance `json:"operations"`
	// Unrouted lists requests under /v1/ that no operation of the
	// document has, by method and path (at most 100).
	Unrouted []UnroutedCalls `json:"unrouted"`
}

// OperationConformance is what the traffic showed of one operation.
type OperationConformance struct {
	OperationID string `json:"operationId"`
	Method      string `json:"method"`
	Path        string `json:"path"`
	// Inferred is true for an endpoint the interface document does not
	// show, whose path is this project's inference.
	Inferred bool `json:"inferred"`
	// Calls counts the exchanges; Statuses, by status code.
	Calls    int            `json:"calls"`
	Statuses map[string]int `json:"statuses"`
	// ErrorCodes are the codes of the error bodies seen.
	ErrorCodes []ErrorCodeSeen `json:"errorCodes"`
	Violations int             `json:"violations"`
	// Verdict, for an inferred operation: "confirmed" when the service
	// answered its route with a 2xx, "refuted" when it answered 404
	// NOT_FOUND or 405 there (the service has no such route), else
	// "unconfirmed". Empty for a published operation.
	Verdict string `json:"verdict,omitempty"`
}

// ErrorCodeSeen is an error code the service answered an operation with.
type ErrorCodeSeen struct {
	Code   string `json:"code"`
	Status int    `json:"status"`
	Count  int    `json:"count"`
	// Documented is false for a code (or a status) the document does not
	// list for the operation.
	Documented bool `json:"documented"`
}

// UnroutedCalls counts the requests of one method and path that no
// operation of the document has.
type UnroutedCalls struct {
	Method   string         `json:"method"`
	Path     string         `json:"path"`
	Calls    int            `json:"calls"`
	Statuses map[string]int `json:"statuses"`
}

// Verdicts of inferred operations.
const (
	VerdictConfirmed   = "confirmed"
	VerdictRefuted     = "refuted"
	VerdictUnconfirmed = "unconfirmed"
)

// proxyObservations is everything a proxy learns from the traffic, under
// one lock: its violations and its tally per operation.
type proxyObservations struct {
	check *openapicheck.Validator

	mu         sync.Mutex
	limit      int
	violations []Violation // the newest limit, oldest first
	dropped    int
	total      int
	calls      int
	ops        map[string]*opTally // by "METHOD template"
	order      []openapicheck.Operation
	unrouted   map[string]*UnroutedCalls
}

// opTally counts one operation's exchanges.
type opTally struct {
	calls      int
	statuses   map[int]int
	codes      map[errorCodeKey]int
	violations int
	refuted    bool
	confirmed  bool
}

type errorCodeKey struct {
	code       string
	status     int
	documented bool
}

func newProxyObservations(check *openapicheck.Validator, limit int) *proxyObservations {
	o := &proxyObservations{check: check, limit: limit, ops: map[string]*opTally{}, unrouted: map[string]*UnroutedCalls{}, order: check.Operations()}
	for _, op := range o.order {
		o.ops[op.Method+" "+op.Path] = &opTally{statuses: map[int]int{}, codes: map[errorCodeKey]int{}}
	}
	return o
}

// count tallies one exchange answered by the service, and returns the
// violations of its check's error (nil when it agreed, or was not
// checked), for the caller to keep.
func (o *proxyObservations) count(method, path string, status int, header http.Header, jsonBody []byte, checkErr error) []Violation {
	found := violationsOf(checkErr, status)
	code := errorCodeOf(status, jsonBody)
	documented := true
	for _, v := range found {
		if v.In == "answer" && (v.Field == "status" || v.Pointer == "/error/code" || v.Pointer == "/error") {
			documented = false
		}
	}
	op, routed := o.check.Find(method, path)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls++
	if !routed {
		o.countUnrouted(method, path, status)
		return found
	}
	t := o.ops[op.Method+" "+op.Path]
	if t == nil {
		return found
	}
	t.calls++
	t.statuses[status]++
	t.violations += len(found)
	if code != "" {
		t.codes[errorCodeKey{code, status, documented}]++
	}
	switch {
	case status >= 200 && status < 300:
		t.confirmed = true
	case status == http.StatusMethodNotAllowed, status == http.StatusNotFound && code == profilesvc.CodeNotFound:
		t.refuted = true
	}
	return found
}

// countUnrouted tallies a request no operation has, under o.mu.
func (o *proxyObservations) countUnrouted(method, path string, status int) {
	key := method + " " + path
	u := o.unrouted[key]
	if u == nil {
		if len(o.unrouted) >= maxUnrouted {
			return
		}
		u = &UnroutedCalls{Method: method, Path: path, Statuses: map[string]int{}}
		o.unrouted[key] = u
	}
	u.Calls++
	u.Statuses[strconv.Itoa(status)]++
}

// addViolation keeps a violation, dropping the oldest beyond the limit.
func (o *proxyObservations) addViolation(v Violation) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.total++
	if len(o.violations) == o.limit {
		copy(o.violations, o.violations[1:])
		o.violations = o.violations[:o.limit-1]
		o.dropped++
	}
	o.violations = append(o.violations, v)
}

func (o *proxyObservations) violationList() ViolationList {
	o.mu.Lock()
	defer o.mu.Unlock()
	return ViolationList{Count: len(o.violations), Dropped: o.dropped, Items: append([]Violation{}, o.violations...)}
}

func (o *proxyObservations) conformance(target string) *Conformance {
	o.mu.Lock()
	defer o.mu.Unlock()
	c := &Conformance{Target: target, Calls: o.calls, Violations: o.total, Operations: []OperationConformance{}, Unrouted: []UnroutedCalls{}}
	for _, op := range o.order {
		t := o.ops[op.Method+" "+op.Path]
		oc := OperationConformance{OperationID: op.ID, Method: op.Method, Path: op.Path, Inferred: op.Inferred,
			Calls: t.calls, Statuses: map[string]int{}, ErrorCodes: []ErrorCodeSeen{}, Violations: t.violations}
		for s, n := range t.statuses {
			oc.Statuses[strconv.Itoa(s)] = n
		}
		for k, n := range t.codes {
			oc.ErrorCodes = append(oc.ErrorCodes, ErrorCodeSeen{Code: k.code, Status: k.status, Count: n, Documented: k.documented})
		}
		slices.SortFunc(oc.ErrorCodes, func(a, b ErrorCodeSeen) int {
			if a.Status != b.Status {
				return a.Status - b.Status
			}
			return strings.Compare(a.Code, b.Code)
		})
		if op.Inferred {
			oc.Verdict = verdictOf(t)
		}
		c.Operations = append(c.Operations, oc)
	}
	for _, k := range slices.Sorted(maps.Keys(o.unrouted)) {
		u := *o.unrouted[k]
		u.Statuses = maps.Clone(u.Statuses)
		c.Unrouted = append(c.Unrouted, u)
	}
	return c
}

// verdictOf says what the traffic showed of an inferred operation's
// route: a 2xx confirms it, whatever else came.
func verdictOf(t *opTally) string {
	switch {
	case t.confirmed:
		return VerdictConfirmed
	case t.refuted:
		return VerdictRefuted
	}
	return VerdictUnconfirmed
}

// errorCodeOf returns the code of an error body, "" for a success or a
// body that is not the service's error shape.
func errorCodeOf(status int, body []byte) string {
	if status < 400 || len(body) == 0 {
		return ""
	}
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) != nil {
		return ""
	}
	return e.Error.Code
}

// violationsOf turns the error of a check into violations.
func violationsOf(err error, status int) []Violation {
	var ms openapicheck.Mismatches
	if !errors.As(err, &ms) {
		return nil
	}
	now := time.Now().UTC()
	out := make([]Violation, 0, len(ms))
	for _, m := range ms {
		v := Violation{OperationID: m.Operation, Method: m.Method, Path: m.URL, Status: status, In: m.In, Field: m.Field,
			Message: fmt.Sprintf("%s %s: %s", m.In, m.Field, m.Problem), At: now}
		if rest, ok := strings.CutPrefix(m.Field, "body"); ok {
			v.Pointer = strings.TrimSpace(rest)
		}
		out = append(out, v)
	}
	return out
}

// WriteTable writes the summary as a table, one line per operation that
// saw traffic or is inferred, for a person at a terminal: the binary
// prints it to standard error at shutdown.
func (c *Conformance) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "Conformance of %s to api/openapi.yaml: %d calls, %d violations\n", c.Target, c.Calls, c.Violations)
	fmt.Fprintln(tw, "OPERATION\tMETHOD PATH\tCALLS\tSTATUSES\tERROR CODES\tVIOLATIONS\tINFERRED")
	for _, op := range c.Operations {
		if op.Calls == 0 && !op.Inferred {
			continue
		}
		verdict := ""
		if op.Inferred {
			verdict = op.Verdict
		}
		fmt.Fprintf(tw, "%s\t%s %s\t%d\t%s\t%s\t%d\t%s\n", op.OperationID, op.Method, op.Path, op.Calls, statusList(op.Statuses), codeList(op.ErrorCodes), op.Violations, verdict)
	}
	for _, u := range c.Unrouted {
		fmt.Fprintf(tw, "(no operation)\t%s %s\t%d\t%s\t\t\t\n", u.Method, u.Path, u.Calls, statusList(u.Statuses))
	}
	return tw.Flush()
}

func statusList(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s×%d", k, m[k]))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

func codeList(codes []ErrorCodeSeen) string {
	var parts []string
	for _, c := range codes {
		s := fmt.Sprintf("%s×%d", c.Code, c.Count)
		if !c.Documented {
			s += " (not in the document)"
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}
