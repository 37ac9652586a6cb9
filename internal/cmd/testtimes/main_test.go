package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The lines of testdata/sample.json's tests and packages, as printed. The
// sample is recorded: a module of two packages, one without tests and one
// whose tests fail, skip, wait and run subtests in parallel, and excerpts
// of this repository's runs; a line of the go command comes first.
const (
	longChecks   = "   14.50s  github.com/profilesvc/profilesvc-go/internal/contract  TestTheMockPassesTheLongChecks\n"
	slowHeaders  = "   10.01s  github.com/profilesvc/profilesvc-go/cmd/profilesvc-mock  TestRunSlowHeaders\n"
	mockPasses   = "    9.03s  github.com/profilesvc/profilesvc-go/internal/contract  TestTheMockPasses\n"
	runServes    = "    0.40s  github.com/profilesvc/profilesvc-go/cmd/profilesvc-mock  TestRunServes\n"
	waits        = "    0.30s  example.com/sample/slow  TestWaits\n"
	cannotRun    = "    0.06s  github.com/profilesvc/profilesvc-go/internal/contract  TestCannotRun\n"
	runVersion   = "    0.01s  github.com/profilesvc/profilesvc-go/cmd/profilesvc-mock  TestRunVersion\n"
	fails        = "    0.00s  example.com/sample/slow  TestFails  FAIL\n"
	parallel     = "    0.00s  example.com/sample/slow  TestParallelParts\n"
	skipped      = "    0.00s  example.com/sample/slow  TestSkipped  SKIP\n"
	mainSignals  = "    0.00s  github.com/profilesvc/profilesvc-go/cmd/profilesvc-mock  TestRunMainSignals\n"
	faults       = "    0.00s  github.com/profilesvc/profilesvc-go/internal/contract  TestFaults\n"
	plan         = "    0.00s  github.com/profilesvc/profilesvc-go/internal/contract  TestPlan\n"
	samplePkgs   = "\nPackages (4), slowest first:\n" + contractPkg + mockPkg + slowPkg + emptyPkg
	contractPkg  = "   86.31s  github.com/profilesvc/profilesvc-go/internal/contract\n"
	mockPkg      = "   12.09s  github.com/profilesvc/profilesvc-go/cmd/profilesvc-mock\n"
	slowPkg      = "    0.51s  example.com/sample/slow  FAIL\n"
	emptyPkg     = "    0.00s  example.com/sample/empty  SKIP\n"
	sampleEvents = "testdata/sample.json"
)

func TestRun(t *testing.T) {
	t.Parallel()
	sample, err := os.ReadFile(sampleEvents)
	require.NoError(t, err)
	// An output event longer than a bufio.Scanner's line, then a test.
	long := `{"Action":"output","Package":"p","Test":"TestLong","Output":"` + strings.Repeat("x", 1<<20) + `\n"}` + "\n" +
		`{"Action":"pass","Package":"p","Test":"TestLong","Elapsed":1.5}` + "\n" +
		`{"Action":"pass","Package":"p","Elapsed":1.6}`
	tests := []struct {
		name   string
		args   []string
		input  string
		code   int
		stdout string
		reader io.Reader // read instead of input
		stderr string    // in stderr
	}{
		{name: "the ten slowest tests by default", input: string(sample),
			stdout: "Slowest tests (10):\n" + longChecks + slowHeaders + mockPasses + runServes + waits + cannotRun + runVersion + fails + parallel + skipped + samplePkgs},
		{name: "-n 3", args: []string{"-n", "3"}, input: string(sample),
			stdout: "Slowest tests (3):\n" + longChecks + slowHeaders + mockPasses + samplePkgs},
		{name: "-n beyond the tests there are", args: []string{"-n", "50"}, input: string(sample),
			stdout: "Slowest tests (13):\n" + longChecks + slowHeaders + mockPasses + runServes + waits + cannotRun + runVersion + fails + parallel + skipped + mainSignals + faults + plan + samplePkgs},
		{name: "-n 0: the packages alone", args: []string{"-n", "0"}, input: string(sample),
			stdout: "Slowest tests (0):\n" + samplePkgs},
		{name: "a line of any length", input: long,
			stdout: "Slowest tests (1):\n    1.50s  p  TestLong\n\nPackages (1), slowest first:\n    1.60s  p\n"},
		{name: "no events", input: "",
			stdout: "Slowest tests (0):\n\nPackages (0), slowest first:\n"},
		{name: "a read that fails", reader: iotest.ErrReader(errors.New("broken pipe")), code: 1, stderr: "testtimes: reading the events: broken pipe"},
		{name: "a negative -n", args: []string{"-n", "-1"}, code: 2, stderr: "usage: go test -json ./... | testtimes [-n 10]"},
		{name: "an argument", args: []string{"extra"}, code: 2, stderr: "usage: go test -json ./... | testtimes [-n 10]"},
		{name: "a flag it does not have", args: []string{"-nope"}, code: 2, stderr: "flag provided but not defined: -nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			in := tt.reader
			if in == nil {
				in = strings.NewReader(tt.input)
			}
			code := run(tt.args, in, &stdout, &stderr)
			assert.Equal(t, tt.code, code, stderr.String())
			if diff := cmp.Diff(tt.stdout, stdout.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if tt.stderr == "" {
				assert.Empty(t, stderr.String())
			} else {
				assert.Contains(t, stderr.String(), tt.stderr)
			}
		})
	}
}
