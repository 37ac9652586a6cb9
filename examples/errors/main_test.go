package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestErrors(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		`validation: 400 VALIDATION_ERROR: field "name" is required and must not be empty`,
		"not found: folder, code SVC_3009, also ErrNotFound: true",
		"not found: item",
		"report not available: the analysis has not completed",
		"in progress: waiting for the running analysis",
		"in progress: started again once it had finished",
		`level=WARN msg="profilesvc: retrying request" method=GET`,
		"attempt=2",
		"retried: succeeded after waiting 2s as asked",
		"not retried: the service asked to wait 1h0m0s",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the output lacks %q:\n%s", want, got)
		}
	}
}
