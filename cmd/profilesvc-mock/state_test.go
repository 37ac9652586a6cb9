package main

// The binary's state file and the files it reads, attacked: IDs across a
// restart with -id-seed, a state file that cannot be written, endless
// files, and a -cors list written with spaces.

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/mockserver"
)

// TestRunState_IDSeedAcrossRestart restarts a run of -id-seed on its
// state file: the profile made after the restart gets an ID of its own,
// the same on every restart from the same file, and the saved profile
// keeps its items.
func TestRunState_IDSeedAcrossRestart(t *testing.T) {
	const key = "0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	args := func(file string) []string {
		return []string{"-addr", "127.0.0.1:0", "-api-key", key, "-id-seed", "5", "-state", file}
	}
	m := mStart(t, args(state)...)
	c := mClient(t, m, key)
	saved, err := c.CreateProfile(t.Context(), "wf_default", profilesvc.CreateProfileParams{Name: "Saved"})
	require.NoError(t, err)
	_, err = c.CreateTextItem(t.Context(), saved.DefaultFolder().ID, mPassport, profilesvc.CreateItemParams{Name: "passport.txt"})
	require.NoError(t, err)
	require.NoError(t, m.stop(t))
	copied := filepath.Join(dir, "copy.json")
	raw, err := os.ReadFile(state)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(copied, raw, 0o600))

	restart := func(file string) string {
		m := mStart(t, args(file)...)
		c := mClient(t, m, key)
		made, err := c.CreateProfile(t.Context(), "wf_default", profilesvc.CreateProfileParams{Name: "Made after"})
		require.NoError(t, err)
		assert.NotEqual(t, saved.ID, made.ID, "the profile made after the restart took the saved one's ID")
		assert.NotEqual(t, saved.DefaultFolder().ID, made.DefaultFolder().ID, "its default folder took the saved one's ID")
		got, err := c.GetProfile(t.Context(), saved.ID)
		require.NoError(t, err, "the saved profile after the restart")
		assert.Equal(t, "Saved", got.Name)
		assert.Equal(t, 1, got.ItemsCount, "the saved profile's items after the restart")
		require.NoError(t, m.stop(t))
		return made.ID
	}
	first := restart(state)
	assert.Equal(t, first, restart(copied), "the ID made after a restart from the same state and seed")
	after, err := os.ReadFile(state)
	require.NoError(t, err)
	assert.Contains(t, string(after), saved.ID, "the state file after the restart")
	assert.Contains(t, string(after), first, "the state file after the restart")
}

// TestRunState_CannotBeWritten starts runs whose state file cannot be
// kept: each stops at once with an error naming the file; one whose write
// fails at shutdown fails, on standard error, rather than exiting as if
// all was well.
func TestRunState_CannotBeWritten(t *testing.T) {
	const key = "1c2d3e4f-5061-4728-93a4-b5c6d7e8f90a"
	for _, state := range []string{filepath.Join(t.TempDir(), "missing", "state.json"), "/dev/zero"} {
		_, _, err := mRunError(t, "-addr", "127.0.0.1:0", "-api-key", key, "-state", state)
		assert.ErrorContains(t, err, state, "a run with -state %s", state)
	}

	dir := filepath.Join(t.TempDir(), "state")
	require.NoError(t, os.Mkdir(dir, 0o755))
	m := mStart(t, "-addr", "127.0.0.1:0", "-api-key", key, "-state", filepath.Join(dir, "state.json"))
	_, err := mClient(t, m, key).CreateProfile(t.Context(), "wf_default", profilesvc.CreateProfileParams{Name: "Lost"})
	require.NoError(t, err)
	require.NoError(t, os.RemoveAll(dir))
	err = m.stop(t)
	require.Error(t, err, "a run whose state could not be written at shutdown")
	assert.ErrorIs(t, err, mockserver.ErrStateNotSaved)
	assert.NotContains(t, m.stdout.String(), "stopped", "standard output of a run that lost its state")
}

// TestRunEndlessFiles gives /dev/zero as each file the binary reads: each
// run stops at once with an error, rather than reading until the memory
// runs out.
func TestRunEndlessFiles(t *testing.T) {
	const key = "2d3e4f50-6172-4839-a4b5-c6d7e8f90a1b"
	// A FIFO no one writes to: opening it to read must not wait for a
	// writer, which would hold the start for ever, deaf to signals.
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, args := range [][]string{
		{"-seed", "/dev/zero"},
		{"-tls-cert", "/dev/zero", "-tls-key", "/dev/zero"},
		{"-state", "/dev/zero"},
		{"-seed", fifo},
		{"-tls-cert", fifo, "-tls-key", fifo},
		{"-state", fifo},
	} {
		_, _, err := mRunError(t, append([]string{"-addr", "127.0.0.1:0", "-api-key", key}, args...)...)
		assert.Error(t, err, "a run with %v", args)
	}
}

// TestRunCORSList gives -cors a list written with spaces after its
// commas: every origin of it is allowed.
func TestRunCORSList(t *testing.T) {
	const key = "3e4f5061-7283-449a-b5c6-d7e8f90a1b2c"
	m := mStart(t, "-addr", "127.0.0.1:0", "-api-key", key, "-cors", "https://a.example, https://B.example ,")
	for _, origin := range []string{"https://a.example", "https://b.example"} {
		status, h := corsRequest(t, "OPTIONS", m.URL+"/v1/workflows/wf_default/profiles", "", origin)
		assert.Equal(t, 204, status, "a preflight from %s", origin)
		assert.Equal(t, origin, h.Get("Access-Control-Allow-Origin"), "a preflight from %s", origin)
	}
	_, _, err := mRunError(t, "-addr", "127.0.0.1:0", "-api-key", key, "-cors", "a.example")
	assert.ErrorContains(t, err, "a.example")
	assert.True(t, strings.Contains(err.Error(), "origin"), "the error of -cors a.example: %v", err)
	_, _, err = mRunError(t, "-addr", "127.0.0.1:0", "-api-key", key, "-cors", " , ")
	assert.ErrorContains(t, err, "no origin", "-cors with no origin in it")
}
