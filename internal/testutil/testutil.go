// Package testutil holds what the project's tests share across packages.
// It is imported by tests only.
package testutil

import (
	"bytes"
	"context"
	"strings"
	"sync"
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
