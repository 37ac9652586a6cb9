package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/profilesvc/profilesvc-go"
)

// TestQuickstart runs the quickstart as a newcomer does, against the
// embedded mock, and checks what it prints and the two PDFs it saves.
func TestQuickstart(t *testing.T) {
	t.Setenv(profilesvc.EnvBaseURL, "")
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-out", dir}, &out, false); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	text := out.String()
	lines := strings.Split(text, "\n")
	if !strings.HasPrefix(lines[0], "Talking to the embedded mock server at http://127.0.0.1:") {
		t.Errorf("first line %q does not say which service it talks to", lines[0])
	}
	for _, want := range []string{
		"Created profile pf_", "Added file  item", "Added text  item", "Added json  item", "Started analysis analysis_",
		"pending", "completed", "Risk: low (10/100)", "Decision: approve",
		"✓ classify_documents", "! cross_check_identity", "Top recommendations:", "1. [priority 2]",
		"full_name        Jane Marie Doe", "date_of_birth    1990-04-12", "Deleted profile pf_",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the output lacks %q:\n%s", want, text)
		}
	}
	saved := regexp.MustCompile(`Saved the (en|ko) report to (\S+)`).FindAllStringSubmatch(text, -1)
	if len(saved) != 2 {
		t.Fatalf("want 2 saved reports in the output, got %v", saved)
	}
	for _, m := range saved {
		if filepath.Dir(m[2]) != dir {
			t.Errorf("the %s report went to %s, want it in %s", m[1], m[2], dir)
		}
		pdf, err := os.ReadFile(m[2])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(pdf, []byte("%PDF-")) || len(pdf) < 10_000 {
			t.Errorf("%s is not a PDF report: %d bytes starting %.8q", m[2], len(pdf), pdf)
		}
	}
}

func TestQuickstartKeep(t *testing.T) {
	t.Setenv(profilesvc.EnvBaseURL, "")
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-out", t.TempDir(), "-keep"}, &out, false); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	if strings.Contains(out.String(), "Deleted profile") {
		t.Errorf("-keep deleted the profile:\n%s", out.String())
	}
}

func TestQuickstartSpinner(t *testing.T) {
	t.Setenv(profilesvc.EnvBaseURL, "")
	var out syncBuffer
	if err := run(context.Background(), []string{"-out", t.TempDir()}, &out, true); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "\r  ✓ completed") {
		t.Errorf("the spinner did not end on the final status:\n%q", out.String())
	}
}

func TestQuickstartErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"out is not a directory", []string{"-out", "/nonexistent/dir"}, nil, "not a directory"},
		{"bad flag", []string{"-bogus"}, nil, "flag provided but not defined"},
		{"service without a key", nil, map[string]string{profilesvc.EnvBaseURL: "http://127.0.0.1:1", profilesvc.EnvAPIKey: ""}, "no API key"},
		{"service that is not there", nil, map[string]string{profilesvc.EnvBaseURL: "http://127.0.0.1:1", profilesvc.EnvAPIKey: "k"}, "creating the profile"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(profilesvc.EnvBaseURL, "")
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			var out bytes.Buffer
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			args := tt.args
			if !strings.Contains(strings.Join(args, " "), "-out") {
				args = append(args, "-out", t.TempDir())
			}
			err := run(ctx, args, &out, false)
			if err == nil || !strings.Contains(err.Error()+out.String(), tt.want) {
				t.Errorf("run = %v (output %q), want an error mentioning %q", err, out.String(), tt.want)
			}
		})
	}
}
