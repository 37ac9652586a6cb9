package mockserver

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/profilesvc/profilesvc-go"
)

// Fault is an injected failure: the requests it matches get its answer, its
// delay or a dropped connection instead of (or, for a delay alone, before)
// the real answer. Faults let clients test their retry code. The control
// API, POST /_mock/faults, takes the same fields in JSON, with the waits
// as retryAfterSeconds and delayMs.
type Fault struct {
	// ID is set by InjectFault.
	ID string
	// Method matches the request's method; empty matches any.
	Method string
	// Path is a path pattern, as RequestMatch.Path: "/v1/analyses/*",
	// where "*" matches one segment, and an ID may be given unescaped or
	// escaped; empty matches any. The package doc's "Path patterns" states
	// the rule.
	Path string
	// Status, if set, is the answer: the service's error body with Code
	// (default from the status) and Message.
	Status  int
	Code    string
	Message string
	// RetryAfter, if set, is sent as the Retry-After header, in whole
	// seconds (rounded up).
	RetryAfter time.Duration
	// Delay holds the request this long, on the server's clock, before
	// answering: a FakeClock must be advanced past it.
	Delay time.Duration
	// Drop closes the connection without answering.
	Drop bool
	// Truncate, if set, sends only the first Truncate bytes of the
	// answer's body (its headers promising the whole), then closes the
	// connection: a download broken half-way.
	Truncate int
	// BytesPerSecond, if set, trickles the answer's body at that rate, in
	// steps of a tenth of a second on the server's clock (below 10 bytes
	// a second, a byte at a time).
	BytesPerSecond int
	// Times is how many matching requests the fault applies to; 0 means
	// all of them until it is removed.
	Times int
	// Probability, between 0 and 1, applies the fault to that fraction of
	// the matching requests (drawn per request; see WithFaultSeed); 0
	// means every one.
	Probability float64
}

// faultJSON is the JSON form of a Fault, in the control API.
type faultJSON struct {
	ID                string  `json:"id"`
	Method            string  `json:"method,omitempty"`
	Path              string  `json:"path,omitempty"`
	Status            int     `json:"status,omitempty"`
	Code              string  `json:"code,omitempty"`
	Message           string  `json:"message,omitempty"`
	RetryAfterSeconds int     `json:"retryAfterSeconds,omitempty"`
	DelayMs           int     `json:"delayMs,omitempty"`
	Drop              bool    `json:"drop,omitempty"`
	Truncate          int     `json:"truncate,omitempty"`
	BytesPerSecond    int     `json:"bytesPerSecond,omitempty"`
	Times             int     `json:"times,omitempty"`
	Probability       float64 `json:"probability,omitempty"`
}

// fault checks the JSON form's waits and returns the Go form.
func (j faultJSON) fault() (Fault, error) {
	switch {
	case j.RetryAfterSeconds < 0 || j.RetryAfterSeconds > int(maxFaultRetryAfter/time.Second):
		return Fault{}, fmt.Errorf("field \"retryAfterSeconds\" must be 0 to %d, got %d", int(maxFaultRetryAfter/time.Second), j.RetryAfterSeconds)
	case j.DelayMs < 0 || j.DelayMs > int(maxFaultDelay/time.Millisecond):
		return Fault{}, fmt.Errorf("field \"delayMs\" must be 0 to %d, got %d", int(maxFaultDelay/time.Millisecond), j.DelayMs)
	}
	return Fault{
		Method: j.Method, Path: j.Path, Status: j.Status, Code: j.Code, Message: j.Message,
		RetryAfter: time.Duration(j.RetryAfterSeconds) * time.Second, Delay: time.Duration(j.DelayMs) * time.Millisecond,
		Drop: j.Drop, Truncate: j.Truncate, BytesPerSecond: j.BytesPerSecond, Times: j.Times, Probability: j.Probability,
	}, nil
}

// faultToJSON returns the JSON form of a fault.
func faultToJSON(f Fault) faultJSON {
	return faultJSON{
		ID: f.ID, Method: f.Method, Path: f.Path, Status: f.Status, Code: f.Code, Message: f.Message,
		RetryAfterSeconds: f.retryAfterSeconds(), DelayMs: int(f.Delay / time.Millisecond),
		Drop: f.Drop, Truncate: f.Truncate, BytesPerSecond: f.BytesPerSecond, Times: f.Times, Probability: f.Probability,
	}
}

// retryAfterSeconds is the Retry-After of the fault's answer.
func (f *Fault) retryAfterSeconds() int { return int((f.RetryAfter + time.Second - 1) / time.Second) }

// Bounds of a fault's waits.
const (
	maxFaultRetryAfter = 24 * time.Hour
	maxFaultDelay      = 10 * time.Minute
)

// normalize checks a fault and fills its defaults. Its messages name the
// JSON fields, which the control API reports.
func (f *Fault) normalize() error {
	f.Method = strings.ToUpper(f.Method)
	if err := f.checkRanges(); err != nil {
		return err
	}
	if err := f.checkShape(); err != nil {
		return err
	}
	if f.Path != "" {
		if err := checkPathPattern(f.Path); err != nil {
			return fmt.Errorf("field \"path\" is not a valid pattern: %v", err)
		}
	}
	if f.Status != 0 && f.Code == "" {
		f.Code = defaultCode(f.Status)
	}
	if f.Status != 0 && f.Message == "" {
		f.Message = "injected fault: " + http.StatusText(f.Status)
	}
	return nil
}

// checkRanges refuses a field whose value is outside what the mock can
// honour.
func (f *Fault) checkRanges() error {
	switch {
	case f.RetryAfter < 0 || f.RetryAfter > maxFaultRetryAfter:
		return fmt.Errorf("the fault's RetryAfter must be 0 to %v, got %v", maxFaultRetryAfter, f.RetryAfter)
	case f.Delay < 0 || f.Delay > maxFaultDelay:
		return fmt.Errorf("the fault's Delay must be 0 to %v, got %v", maxFaultDelay, f.Delay)
	case f.Status != 0 && (f.Status < 400 || f.Status > 599):
		return fmt.Errorf("field \"status\" must be 400 to 599, got %d", f.Status)
	case f.Truncate < 0:
		return fmt.Errorf("field \"truncate\" must not be negative, got %d", f.Truncate)
	case f.BytesPerSecond < 0:
		return fmt.Errorf("field \"bytesPerSecond\" must not be negative, got %d", f.BytesPerSecond)
	case f.Times < 0:
		return fmt.Errorf("field \"times\" must not be negative, got %d", f.Times)
	case f.Probability < 0 || f.Probability > 1:
		return fmt.Errorf("field \"probability\" must be between 0 and 1, got %v", f.Probability)
	}
	return nil
}

// checkShape refuses a fault that does nothing or whose effects
// exclude each other.
func (f *Fault) checkShape() error {
	switch {
	case f.Status == 0 && !f.Drop && f.Delay <= 0 && f.Truncate == 0 && f.BytesPerSecond == 0:
		return fmt.Errorf("a fault needs a \"status\", \"drop\", \"delayMs\", \"truncate\" or \"bytesPerSecond\"")
	case f.Status != 0 && f.Drop:
		return fmt.Errorf("fields \"status\" and \"drop\" cannot be used together")
	case f.Drop && (f.Truncate > 0 || f.BytesPerSecond > 0):
		return fmt.Errorf("field \"drop\" sends no answer to cut or trickle")
	}
	return nil
}

func defaultCode(status int) string {
	switch status {
	case 400:
		return profilesvc.CodeValidation
	case 401:
		return profilesvc.CodeUnauthorized
	case 404:
		return profilesvc.CodeNotFound
	case 409:
		return codeConflict
	case 429:
		return profilesvc.CodeRateLimited
	case 503:
		return profilesvc.CodeServiceUnavailable
	}
	if status >= 500 {
		return profilesvc.CodeInternal
	}
	return strings.ToUpper(strings.ReplaceAll(http.StatusText(status), " ", "_"))
}

// faultSet is a namespace's injected faults.
type faultSet struct {
	mu     sync.Mutex
	faults []*activeFault
	rng    *rand.Rand
	seq    int
	// count is len(faults), kept for match to skip the lock when there
	// are none, as on most requests.
	count atomic.Int32
}

type activeFault struct {
	Fault
	used int
}

func newFaultSet(seed *uint64) *faultSet {
	fs := &faultSet{}
	if seed != nil {
		fs.rng = rand.New(rand.NewPCG(*seed, *seed+1))
	} else {
		fs.rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	return fs
}

func (fs *faultSet) add(f Fault) (Fault, error) {
	if err := f.normalize(); err != nil {
		return Fault{}, err
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.seq++
	f.ID = "fault_" + strconv.Itoa(fs.seq)
	fs.faults = append(fs.faults, &activeFault{Fault: f})
	fs.count.Store(int32(len(fs.faults)))
	return f, nil
}

func (fs *faultSet) clear() {
	fs.mu.Lock()
	fs.faults = nil
	fs.count.Store(0)
	fs.mu.Unlock()
}

func (fs *faultSet) remove(id string) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for i, f := range fs.faults {
		if f.ID == id {
			fs.faults = append(fs.faults[:i], fs.faults[i+1:]...)
			fs.count.Store(int32(len(fs.faults)))
			return true
		}
	}
	return false
}

func (fs *faultSet) list() []Fault {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	out := make([]Fault, len(fs.faults))
	for i, f := range fs.faults {
		out[i] = f.Fault
		if f.Times > 0 {
			out[i].Times = f.Times - f.used
		}
	}
	return out
}

// match returns the fault that applies to the request, if any, counting
// it as used.
func (fs *faultSet) match(method, p string) (Fault, bool) {
	if fs.count.Load() == 0 {
		return Fault{}, false
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for i, f := range fs.faults {
		if f.Method != "" && f.Method != method {
			continue
		}
		if f.Path != "" && !pathMatches(f.Path, p) {
			continue
		}
		if f.Probability > 0 && f.Probability < 1 && fs.rng.Float64() >= f.Probability {
			continue
		}
		f.used++
		out := f.Fault
		if f.Times > 0 && f.used >= f.Times {
			fs.faults = append(fs.faults[:i], fs.faults[i+1:]...)
			fs.count.Store(int32(len(fs.faults)))
		}
		return out, true
	}
	return Fault{}, false
}

// applyFault carries out a fault; it reports whether the request was
// answered (or dropped), so that the real handler must not run. A delay
// runs on the server's clock. A fault that shapes the answer (Truncate,
// BytesPerSecond) leaves the answering to the handler and returns the
// writer it must write to.
func (s *Server) applyFault(w http.ResponseWriter, r *http.Request, f Fault) (bool, http.ResponseWriter) {
	answered := s.applyFaultAnswer(w, r, f)
	if answered || (f.Truncate == 0 && f.BytesPerSecond == 0) {
		return answered, w
	}
	return false, &shapedWriter{ResponseWriter: w, fault: f, clock: s.clock, ctx: r}
}

// applyFaultAnswer carries out a fault's delay and answer.
func (s *Server) applyFaultAnswer(w http.ResponseWriter, r *http.Request, f Fault) bool {
	if f.Delay > 0 {
		// The wait is the server's clock's, which a test may hold for
		// as long as it likes: no write deadline runs out meanwhile.
		rc := http.NewResponseController(w)
		_ = rc.SetWriteDeadline(time.Time{})
		elapsed := make(chan struct{})
		stop := s.clock.AfterFunc(f.Delay, func() { close(elapsed) })
		select {
		case <-elapsed:
		case <-r.Context().Done():
			stop()
			return true
		case <-s.closing:
			stop()
			return true
		}
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	}
	switch {
	case f.Drop:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return true
			}
		}
		panic(http.ErrAbortHandler)
	case f.Status != 0:
		e := &apiError{status: f.Status, code: f.Code, message: f.Message}
		if f.RetryAfter > 0 {
			e.retryAfter = strconv.Itoa(f.retryAfterSeconds())
		}
		if f.Truncate > 0 || f.BytesPerSecond > 0 {
			w = &shapedWriter{ResponseWriter: w, fault: f, clock: s.clock, ctx: r}
		}
		writeError(w, e)
		return true
	}
	return false
}

// shapedWriter writes an answer as a fault shapes it: its body cut after
// fault.Truncate bytes, the connection then closed, or trickled at
// fault.BytesPerSecond.
type shapedWriter struct {
	http.ResponseWriter
	fault   Fault
	clock   Clock
	ctx     *http.Request
	written int
	// inStep is how many bytes went out since the last pause.
	inStep int
}

func (w *shapedWriter) Write(p []byte) (int, error) {
	if w.fault.Truncate > 0 && w.written+len(p) > w.fault.Truncate {
		_, _ = w.trickle(p[:w.fault.Truncate-w.written])
		w.cut() // does not return: the handler is aborted
	}
	return w.trickle(p)
}

// trickle writes p, at the fault's rate if it has one: a tenth of the
// rate's bytes, then a pause of a tenth of a second (below 10 bytes a
// second, a byte, then a pause of a byte's time), counted across writes,
// so that many small writes are paced as one large one.
func (w *shapedWriter) trickle(p []byte) (int, error) {
	if w.fault.BytesPerSecond == 0 {
		n, err := w.ResponseWriter.Write(p)
		w.written += n
		return n, err
	}
	step := max(1, w.fault.BytesPerSecond/10)
	total := 0
	for len(p) > 0 {
		if w.inStep >= step {
			if !w.pause() {
				return total, http.ErrAbortHandler
			}
			w.inStep = 0
		}
		chunk := p[:min(step-w.inStep, len(p))]
		n, err := w.ResponseWriter.Write(chunk)
		total += n
		w.written += n
		w.inStep += n
		if err != nil {
			return total, err
		}
		p = p[len(chunk):]
		http.NewResponseController(w.ResponseWriter).Flush()
	}
	return total, nil
}

// pause waits, on the server's clock, the time a step of the rate takes
// (a tenth of a second from 10 bytes a second up); false when the client
// left.
func (w *shapedWriter) pause() bool {
	// A trickle lasts as long as its rate makes it: each step has a
	// write deadline of its own, and none runs during a pause.
	rc := http.NewResponseController(w.ResponseWriter)
	_ = rc.SetWriteDeadline(time.Time{})
	elapsed := make(chan struct{})
	step := max(1, w.fault.BytesPerSecond/10)
	stop := w.clock.AfterFunc(time.Duration(step)*time.Second/time.Duration(w.fault.BytesPerSecond), func() { close(elapsed) })
	select {
	case <-elapsed:
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		return true
	case <-w.ctx.Context().Done():
		stop()
		return false
	}
}

// cut sends what was written and closes the connection, as a download
// broken half-way; the handler is aborted.
func (w *shapedWriter) cut() {
	rc := http.NewResponseController(w.ResponseWriter)
	_ = rc.Flush()
	if conn, _, err := rc.Hijack(); err == nil {
		_ = conn.Close()
	}
	panic(http.ErrAbortHandler)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *shapedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
