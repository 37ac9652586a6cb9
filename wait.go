package profilesvc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// WaitOptions tune WaitForAnalysis. The zero value (or nil) is ready to
// use.
type WaitOptions struct {
	// PollTimeout is how long the service may hold each long poll, clamped
	// to 10s..300s and to the time the context has left. Its default is
	// 120s (the service's own), or 10s when OnUpdate is set; set, it wins
	// in both cases.
	PollTimeout time.Duration
	// OnUpdate, if set, is called with the analysis each time its status
	// changes, the first status seen included: for showing progress. It
	// runs on the waiting goroutine.
	//
	// The service holds a long poll until the report exists, not until the
	// status changes, so a change is seen only when a poll ends. With
	// OnUpdate set, the first request is a plain read, so that the current
	// status is reported at once, and each long poll is held at most 10s
	// (the service's minimum) unless PollTimeout says otherwise: a change
	// (pending to processing, say) is reported within about 10 seconds, at
	// the cost of one request every 10 seconds rather than every 120.
	OnUpdate func(*Analysis)
}

// defaultPollTimeout is the service's own default hold.
const defaultPollTimeout = 120 * time.Second

// progressPollTimeout is the hold of each long poll when OnUpdate reports
// progress and PollTimeout is not set: the service's minimum.
const progressPollTimeout = MinLongPoll

// WaitForAnalysis waits for an analysis to finish and returns it. It long
// polls (GetAnalysis with WaitForReport), so it returns within one round
// trip of the service answering that the analysis has completed with its
// report generated or has failed; it never sleeps a fixed interval when the
// service holds the requests.
//
// An analysis that ends failed is returned together with an
// *AnalysisFailedError (matching ErrAnalysisFailed) that carries its error
// text. Transient failures (connection errors, 429, 5xx) are retried for as
// long as ctx allows; an error that waiting cannot cure (401, 404, a bad
// ID) ends the wait at once. ctx bounds the whole wait: when its deadline
// passes, WaitForAnalysis returns the last analysis it saw with an error
// matching both ErrWaitTimeout and context.DeadlineExceeded. So that there
// is one to return, the first request is a plain read whenever ctx has
// less than the service's minimum hold (10s) left. opts may be nil.
func (c *Client) WaitForAnalysis(ctx context.Context, analysisID string, opts *WaitOptions, reqOpts ...RequestOption) (*Analysis, error) {
	w := newWaiter(ctx, c, analysisID, opts, reqOpts)
	for {
		started := time.Now()
		a, err := w.poll(ctx)
		if err != nil {
			if err := w.failed(ctx, err); err != nil {
				return w.last, err
			}
			continue
		}
		if done, err := w.seen(a); done {
			return a, err
		}
		if err := w.pace(ctx, started); err != nil {
			return w.last, waitError(analysisID, w.last, err)
		}
	}
}

// waiter is the state of one WaitForAnalysis.
type waiter struct {
	c          *Client
	id         string
	opts       WaitOptions
	reqOpts    []RequestOption
	last       *Analysis
	lastStatus AnalysisStatus
	failures   int  // consecutive transient failures
	malformed  int  // consecutive answers that were not an analysis
	retries    int  // how many of those are retried
	quick      int  // consecutive polls the service did not hold
	first      bool // the next request is a plain read
	wasFirst   bool // the last request was a plain read
}

func newWaiter(ctx context.Context, c *Client, id string, opts *WaitOptions, reqOpts []RequestOption) *waiter {
	w := &waiter{c: c, id: id, reqOpts: reqOpts, retries: c.maxRetries}
	if n := newCallConfig(reqOpts).retries; n != nil && *n >= 0 {
		w.retries = *n
	}
	if opts != nil {
		w.opts = *opts
	}
	if w.opts.PollTimeout <= 0 {
		w.opts.PollTimeout = defaultPollTimeout
		if w.opts.OnUpdate != nil {
			w.opts.PollTimeout = progressPollTimeout
		}
	}
	// The first request does not wait when OnUpdate is set, so that the
	// caller hears of the status at once rather than at the end, and when
	// the context ends before the shortest long poll could, so that a
	// timeout still returns the analysis as it stands.
	w.first = w.opts.OnUpdate != nil
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < MinLongPoll {
		w.first = true
	}
	return w
}

// poll sends the next request: a plain read first if so decided, then long
// polls held for PollTimeout or the time the context has left.
func (w *waiter) poll(ctx context.Context) (*Analysis, error) {
	w.wasFirst = w.first
	if w.first {
		w.first = false
		return w.c.GetAnalysis(ctx, w.id, nil, w.reqOpts...)
	}
	hold := w.opts.PollTimeout
	if deadline, ok := ctx.Deadline(); ok {
		hold = min(hold, time.Until(deadline))
	}
	params := &GetAnalysisParams{WaitForReport: true, Timeout: clampLongPoll(hold)}
	return w.c.GetAnalysis(ctx, w.id, params, w.reqOpts...)
}

// failed decides what a failed poll means: nil to poll again after a
// pause, or the error that ends the wait.
func (w *waiter) failed(ctx context.Context, err error) error {
	// The context ended, or a retry's wait would pass its deadline; a poll
	// that ran out of its own time limit is only transient.
	var passDeadline *deadlineError
	if ctxErr := ctx.Err(); ctxErr != nil {
		if !errors.Is(err, ctxErr) {
			// The context ended as the failure came: the wait ends for
			// the context, and says what failed last.
			err = fmt.Errorf("%w; last error: %w", ctxErr, err)
		}
		return waitError(w.id, w.last, err)
	}
	if errors.As(err, &passDeadline) {
		return waitError(w.id, w.last, err)
	}
	if errors.Is(err, ErrMalformedResponse) {
		// A service that answers 200 with something else may do so again:
		// asked again as often as a failed request is retried, no more.
		w.malformed++
		if w.malformed > w.retries {
			return err
		}
	} else if !transient(err) {
		return err
	}
	if err := sleep(ctx, backoff(w.c.retryWaitMin, w.c.retryWaitMax, w.failures, randomJitter)); err != nil {
		return waitError(w.id, w.last, err)
	}
	w.failures++
	return nil
}

// seen takes in an analysis the service answered with, reporting a change
// of status; it reports whether the wait is over, and with what error.
func (w *waiter) seen(a *Analysis) (bool, error) {
	w.failures, w.malformed = 0, 0
	w.last = a
	if a.Status != w.lastStatus {
		w.lastStatus = a.Status
		if w.opts.OnUpdate != nil {
			w.opts.OnUpdate(a)
		}
	}
	if a.Status == AnalysisFailed {
		reason := ""
		if a.Error != nil {
			reason = *a.Error
		}
		s := w.c.secret
		return true, &AnalysisFailedError{AnalysisID: s.mask(a.ID), Reason: s.mask(reason)}
	}
	return a.Done(), nil
}

// The pause after a poll the service answered at once grows from
// quickPauseMin to quickPauseMax (see pace).
const (
	quickPauseMin = 250 * time.Millisecond
	quickPauseMax = 5 * time.Second
)

// pace pauses before the next poll when the service answered a long poll
// at once without the analysis being done: a service that holds requests
// answers early only when the analysis is done, so one that answered at
// once does not hold them (or a proxy cut the poll short). The pause grows
// with each such answer rather than spinning.
func (w *waiter) pace(ctx context.Context, started time.Time) error {
	if w.wasFirst || time.Since(started) >= time.Second {
		w.quick = 0
		return nil
	}
	if err := sleep(ctx, backoff(w.c.pauseMin, w.c.pauseMax, w.quick, randomJitter)); err != nil {
		return err
	}
	w.quick++
	return nil
}

// transient reports whether waiting may cure err: a 429, a 5xx, or a
// failure to get any answer.
func transient(err error) bool {
	if errors.Is(err, ErrInvalidID) || errors.Is(err, context.Canceled) {
		return false
	}
	var apiErr *APIError
	if errors.As(err, &apiErr) {
		return apiErr.StatusCode == http.StatusTooManyRequests || apiErr.StatusCode >= 500
	}
	return true
}

// waitError is the error of a wait that its context ended.
func waitError(id string, last *Analysis, err error) error {
	state := "not yet seen"
	if last != nil {
		state = "still " + string(last.Status)
		if last.Status == AnalysisCompleted {
			state = "completed, report not yet generated"
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: analysis %s %s: %w", ErrWaitTimeout, id, state, err)
	}
	return fmt.Errorf("profilesvc: waiting for analysis %s (%s): %w", id, state, err)
}

// sleep waits for d or until ctx ends, whichever comes first.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
