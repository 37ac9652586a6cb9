// Command testtimes reads the output of `go test -json` on its standard
// input and prints the slowest top-level tests, with their package and
// seconds, then every package by its elapsed time, slowest first, so that
// a slow test shows before it slows every run:
//
//	go test -race -count=1 -json ./... | go run ./internal/cmd/testtimes
//
// -n says how many tests it lists (10 by default). A test's time is the
// Elapsed of its pass, fail or skip event, a package's its own: go test
// leaves out of a test's time that of its subtests run in parallel (after
// t.Parallel), which are not listed. A test or package that did not pass
// is marked FAIL or SKIP. Lines that are not JSON events, such as those of
// the go command merged from stderr, are left out.
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the command: it returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("testtimes", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 10, "how many of the slowest tests to list")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || *n < 0 {
		fmt.Fprintln(stderr, "usage: go test -json ./... | testtimes [-n 10]")
		return 2
	}
	tests, packages, err := read(stdin)
	if err != nil {
		fmt.Fprintln(stderr, "testtimes:", err)
		return 1
	}
	report(stdout, tests, packages, *n)
	return 0
}

// event is the part of a `go test -json` event that testtimes reads.
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed *float64
}

// timing is the outcome of a test or a package and how long it took.
type timing struct {
	pkg, test string
	action    string // pass, fail or skip
	seconds   float64
}

// read collects the outcomes of the top-level tests and of the packages.
func read(r io.Reader) (tests, packages []timing, err error) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var e event
			if json.Unmarshal(line, &e) == nil && e.Elapsed != nil && e.Package != "" && isOutcome(e.Action) {
				t := timing{pkg: e.Package, test: e.Test, action: e.Action, seconds: *e.Elapsed}
				switch {
				case e.Test == "":
					packages = append(packages, t)
				case !strings.Contains(e.Test, "/"):
					tests = append(tests, t)
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return tests, packages, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("reading the events: %w", err)
		}
	}
}

// isOutcome reports whether an event's action ends a test or a package.
func isOutcome(action string) bool {
	return action == "pass" || action == "fail" || action == "skip"
}

// report prints the n slowest tests, then every package, slowest first.
func report(w io.Writer, tests, packages []timing, n int) {
	slowest := func(a, b timing) int {
		return cmp.Or(cmp.Compare(b.seconds, a.seconds), cmp.Compare(a.pkg, b.pkg), cmp.Compare(a.test, b.test))
	}
	slices.SortStableFunc(tests, slowest)
	slices.SortStableFunc(packages, slowest)
	tests = tests[:min(n, len(tests))]
	fmt.Fprintf(w, "Slowest tests (%d):\n", len(tests))
	for _, t := range tests {
		fmt.Fprintf(w, "%8.2fs  %s  %s%s\n", t.seconds, t.pkg, t.test, mark(t.action))
	}
	fmt.Fprintf(w, "\nPackages (%d), slowest first:\n", len(packages))
	for _, p := range packages {
		fmt.Fprintf(w, "%8.2fs  %s%s\n", p.seconds, p.pkg, mark(p.action))
	}
}

// mark is what follows a test or a package that did not pass.
func mark(action string) string {
	if action == "pass" {
		return ""
	}
	return "  " + strings.ToUpper(action)
}
