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
	var o WaitOptions
	if opts != nil {
		o = *opts
	}
	if o.PollTimeout <= 0 {
		o.PollTimeout = defaultPollTimeout
		if o.OnUpdate != nil {
			o.PollTimeout = progressPollTimeout
		}
	}
	var (
		last       *Analysis
		lastStatus AnalysisStatus
		failures   int // consecutive transient failures
		quick      int // consecutive polls the service did not hold
		first      = o.OnUpdate != nil
	)
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < MinLongPoll {
		first = true
	}
	for {
		// The first request does not wait when OnUpdate is set, so that
		// the caller hears of the status at once rather than at the end,
		// and when the context ends before the shortest long poll could,
		// so that a timeout still returns the analysis as it stands.
		var params *GetAnalysisParams
		if !first {
			params = &GetAnalysisParams{WaitForReport: true}
		}
		hold := o.PollTimeout
		if deadline, ok := ctx.Deadline(); ok {
			hold = min(hold, time.Until(deadline))
		}
		hold = clampLongPoll(hold)
		if params != nil {
			params.Timeout = hold
		}
		started := time.Now()
		a, err := c.GetAnalysis(ctx, analysisID, params, reqOpts...)
		if err != nil {
			// The context ended, or a retry's wait would pass its deadline;
			// a poll that ran out of its own time limit is only transient.
			var passDeadline *deadlineError
			if ctx.Err() != nil || errors.As(err, &passDeadline) {
				return last, waitError(analysisID, last, err)
			}
			if !transient(err) {
				return last, err
			}
			if err := sleep(ctx, backoff(c.retryWaitMin, c.retryWaitMax, failures, randomJitter)); err != nil {
				return last, waitError(analysisID, last, err)
			}
			failures++
			continue
		}
		failures = 0
		last = a
		wasFirst := first
		first = false
		if a.Status != lastStatus {
			lastStatus = a.Status
			if o.OnUpdate != nil {
				o.OnUpdate(a)
			}
		}
		if a.Status == AnalysisFailed {
			reason := ""
			if a.Error != nil {
				reason = *a.Error
			}
			return a, &AnalysisFailedError{AnalysisID: a.ID, Reason: reason}
		}
		if a.Done() {
			return a, nil
		}
		// A service that holds the request answers early only when the
		// analysis is done; one that answered at once does not hold
		// requests (or a proxy cut it), so fall back to polling with a
		// growing pause rather than spinning.
		if !wasFirst && time.Since(started) < time.Second {
			if err := sleep(ctx, backoff(250*time.Millisecond, 5*time.Second, quick, randomJitter)); err != nil {
				return last, waitError(analysisID, last, err)
			}
			quick++
		} else {
			quick = 0
		}
	}
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
