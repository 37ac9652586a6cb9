package testutil

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// closed reports whether ch is closed, without waiting.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestLockedBufferChanged(t *testing.T) {
	var b LockedBuffer
	first := b.Changed()
	if again := b.Changed(); again != first {
		t.Errorf("two calls of Changed before a Write gave two channels")
	}
	if closed(first) {
		t.Fatalf("Changed is closed before any Write")
	}
	if _, err := b.Write([]byte("a")); err != nil {
		t.Fatal(err)
	}
	if !closed(first) {
		t.Errorf("Changed is not closed after a Write")
	}
	next := b.Changed()
	if closed(next) {
		t.Errorf("the Changed taken after a Write is closed before the next one")
	}
	if _, err := b.Write([]byte("b")); err != nil {
		t.Fatal(err)
	}
	if !closed(next) {
		t.Errorf("Changed is not closed after the second Write")
	}
	if got := b.String(); got != "ab" {
		t.Errorf("String() = %q, want %q", got, "ab")
	}
}

func TestLockedBufferWaitFor(t *testing.T) {
	tests := []struct {
		name string
		// before is written before WaitFor is called; after, piece by
		// piece, by another goroutine while it waits.
		before string
		after  []string
		want   string
	}{
		{name: "already written", before: "listening on x\n", want: "listening on"},
		{name: "written while waiting", after: []string{"listening on x\n"}, want: "listening on"},
		{name: "split across writes", before: "lis", after: []string{"ten", "ing", " on x\n"}, want: "listening on"},
		{name: "among other lines", after: []string{"starting\n", "api key: k\n", "listening on x\n"}, want: "api key: k"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b LockedBuffer
			if _, err := b.Write([]byte(tt.before)); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, p := range tt.after {
					_, _ = b.Write([]byte(p))
				}
			}()
			defer wg.Wait()
			// A hang guard only: the writes come at once.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			got, err := b.WaitFor(ctx, tt.want)
			if err != nil {
				t.Fatalf("WaitFor(%q) = %q, %v; buffer %q", tt.want, got, err, b.String())
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("WaitFor(%q) returned %q, which lacks it", tt.want, got)
			}
		})
	}
}

func TestLockedBufferWaitForEndsWithItsContext(t *testing.T) {
	var b LockedBuffer
	if _, err := b.Write([]byte("api key: k\n")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var got string
	var err error
	go func() {
		defer close(done)
		got, err = b.WaitFor(ctx, "listening on")
	}()
	// Writes that do not hold the text wake the waiter, which goes on
	// waiting.
	if _, err := b.Write([]byte("starting\n")); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("WaitFor did not return within a minute of its context ending")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("WaitFor after its context ended = %v, want context.Canceled", err)
	}
	if !strings.Contains(got, "api key: k") {
		t.Errorf("WaitFor returned %q, want what was written", got)
	}
}
