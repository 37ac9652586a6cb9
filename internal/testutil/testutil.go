// Package testutil holds what the project's tests share across packages.
// It is imported by tests only.
package testutil

import (
	"bytes"
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
)

// LockedBuffer is a bytes.Buffer that goroutines may write to while a test
// reads it: a logger's output, a command's stdout. A test waits for what
// it expects to be written (WaitFor, Changed), never for a fixed time. The
// zero value is ready to use.
type LockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	// changed, made when a waiter asks for it, is closed (and dropped) at
	// the next Write.
	changed chan struct{}
}

// Write appends p to the buffer and wakes those waiting for a change.
func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
	return n, err
}

// String returns what has been written so far.
func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Changed returns a channel that is closed at the next Write. Take it
// before reading the buffer, so that a write that comes after the read is
// never missed:
//
//	for {
//		changed := buf.Changed()
//		if done(buf.String()) {
//			break
//		}
//		<-changed // or a select with the other events awaited
//	}
func (b *LockedBuffer) Changed() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.changed == nil {
		b.changed = make(chan struct{})
	}
	return b.changed
}

// WaitFor blocks until the buffer holds s, and returns what has been
// written by then. If ctx ends first, it returns what has been written
// with ctx's error.
func (b *LockedBuffer) WaitFor(ctx context.Context, s string) (string, error) {
	for {
		changed := b.Changed()
		written := b.String()
		if strings.Contains(written, s) {
			return written, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return b.String(), ctx.Err()
		}
	}
}

// RetryWaits is a slog.Handler for an SDK client's logger that keeps, for
// each retry the client logs, the wait it chose (the SDK's "retrying
// request" line, with "wait") and the wait its transport then started
// (go-retryablehttp's line, with "timeout"): what a test checks instead of
// timing the call. OnRetry, if set, is called at each retry the SDK logs,
// after its wait is kept. The zero value is ready to use.
type RetryWaits struct {
	OnRetry func()

	mu      sync.Mutex
	waits   []time.Duration // chosen
	started []time.Duration // handed to the transport's timer
}

// Enabled reports that every record is wanted.
func (h *RetryWaits) Enabled(context.Context, slog.Level) bool { return true }

// Handle keeps the waits of a retry's lines.
func (h *RetryWaits) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "profilesvc: retrying request" {
		return nil
	}
	sdkLine := false
	r.Attrs(func(a slog.Attr) bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		switch {
		case a.Key == "wait" && a.Value.Kind() == slog.KindDuration:
			h.waits = append(h.waits, a.Value.Duration())
			sdkLine = true
		case a.Key == "timeout":
			// The transport's values reach the log as text.
			d, err := time.ParseDuration(a.Value.String())
			if err != nil {
				d = -1
			}
			h.started = append(h.started, d)
		}
		return true
	})
	if sdkLine && h.OnRetry != nil {
		h.OnRetry()
	}
	return nil
}

// WithAttrs returns h: the handler keeps no attributes.
func (h *RetryWaits) WithAttrs([]slog.Attr) slog.Handler { return h }

// WithGroup returns h: the handler keeps no groups.
func (h *RetryWaits) WithGroup(string) slog.Handler { return h }

// Waits returns the waits the SDK chose, in order.
func (h *RetryWaits) Waits() []time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.waits)
}

// Started returns the waits the transport started, in order.
func (h *RetryWaits) Started() []time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.started)
}
