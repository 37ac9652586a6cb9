//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package main

import (
	"errors"
	"time"
)

// processCPU is not available here: the figures need getrusage.
func processCPU() (time.Duration, error) {
	return 0, errors.New("the process's CPU time is read with getrusage, which this system lacks")
}
