package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/internal/testutil"
)

// Code generators, pinned: the versions the README names. They run through
// go run, so that nothing needs installing.
const (
	oapiCodegen = "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2"
	ogen        = "github.com/ogen-go/ogen/cmd/ogen@v1.24.0"
)

// asBinaryEnv makes this package's test binary, started with it set, run
// the mock's main with its arguments: the binary itself, in a process of
// its own, without a build of its own.
const asBinaryEnv = "PROFILESVC_MOCK_TEST_AS_BINARY"

func TestMain(m *testing.M) {
	if os.Getenv(asBinaryEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestGeneratedClients generates a client from api/openapi.yaml, as it is
// and with no configuration beyond the package name, with each generator
// the README names, compiles it, and runs a program written against it
// with the mock's binary: oapi-codegen's through a whole flow with every
// answer decoded with unknown fields disallowed (testdata/oapiflow),
// ogen's through a profile, a null and an error (testdata/ogenflow).
func TestGeneratedClients(t *testing.T) {
	t.Parallel()
	doc, err := filepath.Abs(filepath.Join("..", "..", "api", "openapi.yaml"))
	require.NoError(t, err)
	mock := startMockBinary(t, "-analysis-duration", "1h", "-max-json-body", "65536")
	tests := []struct {
		name     string
		generate []string // the generator's arguments after the document's place, {doc} for it
		flowArgs []string
	}{
		{
			name:     "oapiflow",
			generate: []string{"run", oapiCodegen, "-generate", "types,client", "-package", "api", "-o", "api/api.go", doc},
			flowArgs: []string{"-max-json-body", "65536"},
		},
		{
			name:     "ogenflow",
			generate: []string{"run", ogen, "--target", "api", "--clean", "--package", "api", doc},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join("testdata", tt.name))))
			goCommand(t, dir, tt.generate...)
			flow := filepath.Join(dir, tt.name)
			// -trimpath: the temporary directory stays out of the build, so that
			// the build cache serves the next run.
			goCommand(t, dir, "build", "-trimpath", "-o", flow, ".")
			args := append([]string{"-base-url", mock.URL, "-api-key", mock.Key}, tt.flowArgs...)
			out, err := exec.Command(flow, args...).CombinedOutput()
			require.NoError(t, err, "%s against the mock's binary:\n%s", tt.name, out)
			require.Contains(t, string(out), "every step passed")
		})
	}
}

// goCommand runs the go command in dir, in module mode with go.sum as
// committed, and fails the test with its output if it fails.
func goCommand(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go %s:\n%s", strings.Join(args, " "), out)
}

// mockBinary is the mock's binary, running in a process of its own.
type mockBinary struct {
	URL, Key string
}

// startMockBinary starts this test binary as the mock's binary with args,
// on a free port and a key of its own, waits for its listening line, and
// stops it with SIGTERM when the test ends.
func startMockBinary(t *testing.T, args ...string) mockBinary {
	t.Helper()
	const key = "0b9d6c1e-2f3a-4b5c-8d7e-6f5a4b3c2d1e"
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, append([]string{"-addr", "127.0.0.1:0", "-api-key", key}, args...)...)
	cmd.Env = append(os.Environ(), asBinaryEnv+"=1")
	stdout := &testutil.LockedBuffer{}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		<-exited
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard only
	defer cancel()
	for {
		changed := stdout.Changed()
		if m := mListening.FindStringSubmatch(stdout.String()); m != nil {
			return mockBinary{URL: m[1], Key: key}
		}
		select {
		case <-changed:
		case err := <-exited:
			exited <- err
			t.Fatalf("the mock's binary exited (%v) before listening: %s", err, stderr.String())
		case <-ctx.Done():
			t.Fatalf("the mock's binary printed no address within a minute: %s", stdout.String())
		}
	}
}
