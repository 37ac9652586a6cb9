// Package testutil holds what the project's tests share across packages.
// It is imported by tests only.
package testutil

import (
	"bytes"
	"sync"
)

// LockedBuffer is a bytes.Buffer that goroutines may write to while a test
// reads it: a logger's output, a command's stdout. The zero value is ready
// to use.
type LockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p to the buffer.
func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what has been written so far.
func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
