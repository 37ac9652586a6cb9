package mockserver

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/filelimit"
)

// The state file (WithStateFile, the binary's -state): a Snapshot of the
// server's own namespace, checked at start, loaded when it exists, and
// written at shutdown and on POST /_mock/snapshot, one write at a time,
// each whole and synced to disk before it replaces the file.

// MaxStateFileSize is the largest state file a server loads: a larger one,
// or an endless one such as /dev/zero, is refused at start, once that
// much has been read.
const MaxStateFileSize = 1 << 30

// ErrStateNotSaved is matched (errors.Is) by the error of Shutdown when
// the server keeps a state file and could not write it: the state of the
// run is lost, and the file holds what it held before.
var ErrStateNotSaved = errors.New("mockserver: the state was not written to the state file")

// stateTarget is the file the state is written to: the state file, or
// the file it points to when it is a symbolic link (followed through as
// many links as the system allows), resolved as the system resolves it:
// each directory through its own links, so that ".." after a link to a
// directory goes up from the link's target, not from the link.
func stateTarget(path string) (string, error) {
	p := path
	for range 40 {
		dir, base := ".", p
		if i := strings.LastIndexByte(p, filepath.Separator); i >= 0 {
			dir, base = p[:i], p[i+1:]
			if dir == "" {
				dir = string(filepath.Separator)
			}
		}
		if base == "" || base == "." || base == ".." {
			return "", fmt.Errorf("%s names a directory, not a file", path)
		}
		realDir, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return "", err
		}
		p = filepath.Join(realDir, base)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		link, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			// Joined as it is, not cleaned: the next round resolves its
			// directory as the system would.
			link = realDir + string(filepath.Separator) + link
		}
		p = link
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// partPath is the temporary file a state is written to before it is
// renamed over target.
func partPath(target string) string {
	return filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+".part")
}

// prepareStateFile checks, at start, that the state file can be written:
// it is a regular file or does not exist yet, and a file can be made
// beside it (the temporary file, left by a crash or made now, is
// removed).
func (s *Server) prepareStateFile() error {
	path := s.cfg.stateFile
	target, err := stateTarget(path)
	if err != nil {
		return fmt.Errorf("the state file %s cannot be written: %w", path, err)
	}
	if fi, err := os.Stat(target); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("the state file %s is not a regular file", path)
	}
	part := partPath(target)
	f, err := createPart(part, 0o600)
	if err != nil {
		return fmt.Errorf("the state file %s cannot be written: %w", path, err)
	}
	_ = f.Close()
	if err := os.Remove(part); err != nil {
		return fmt.Errorf("the state file %s cannot be written: %w", path, err)
	}
	return nil
}

// createPart creates the temporary file a state is written to, anew: one
// left by a crash is removed first, and the new one is made exclusively,
// so that a link put in its place is never followed to truncate another
// file.
func createPart(part string, mode fs.FileMode) (*os.File, error) {
	if err := os.Remove(part); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return os.OpenFile(part, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
}

// loadState restores the state file, if the server keeps one and it
// exists. The file is read within MaxStateFileSize and checked whole
// before any of it is used.
func (s *Server) loadState() error {
	if s.cfg.stateFile == "" {
		return nil
	}
	if err := s.prepareStateFile(); err != nil {
		return err
	}
	path := s.cfg.stateFile
	f, err := filelimit.Open(path, MaxStateFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the state file: %w", err)
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	var snap Snapshot
	if err := dec.Decode(&snap); err != nil {
		if err == io.EOF {
			err = errors.New("it is empty: remove it to start afresh")
		}
		return fmt.Errorf("the state file %s: %w", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("the state file %s: more follows the snapshot", path)
	}
	if err := s.Restore(&snap); err != nil {
		return fmt.Errorf("the state file %s: %w", path, err)
	}
	return nil
}

// saveState writes the state file, if the server keeps one: one write at
// a time, each taking the state when its turn comes, so that a write
// never puts an older state over a newer one already acknowledged.
func (s *Server) saveState() error {
	if s.cfg.stateFile == "" {
		return nil
	}
	if !s.saveMu.TryLock() {
		s.stateEvent("queued")
		s.saveMu.Lock()
	}
	defer s.saveMu.Unlock()
	d := s.Tenant.store.snapshot()
	target, err := stateTarget(s.cfg.stateFile)
	if err != nil {
		return fmt.Errorf("writing the state file: %w", err)
	}
	mode := fs.FileMode(0o600)
	if fi, err := os.Stat(target); err == nil {
		mode = fi.Mode().Perm()
	}
	part := partPath(target)
	if err := writeStateFile(part, mode, &d); err != nil {
		_ = os.Remove(part)
		return fmt.Errorf("writing the state file: %w", err)
	}
	s.stateEvent("renaming")
	if err := os.Rename(part, target); err != nil {
		_ = os.Remove(part)
		return fmt.Errorf("writing the state file: %w", err)
	}
	syncDir(filepath.Dir(target))
	return nil
}

// stateEvent tells the package's tests of a step of a write of the state
// file.
func (s *Server) stateEvent(event string) {
	if s.cfg.stateEvent != nil {
		s.cfg.stateEvent(event)
	}
}

// writeStateFile writes d to the temporary file at path, record by
// record, and syncs it to disk.
func writeStateFile(path string, mode fs.FileMode, d *snapshotData) error {
	f, err := createPart(path, mode)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = writeSnapshot(bw, d)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir syncs a directory, so that a rename in it is on disk; a file
// system that cannot sync a directory keeps the rename all the same.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// handleSaveState writes the state file now: POST /_mock/snapshot.
func handleSaveState(t *Tenant, w http.ResponseWriter, r *http.Request) *apiError {
	s := t.srv
	if t != s.Tenant {
		return errorf(http.StatusBadRequest, profilesvc.CodeValidation, "only the server's own key's namespace is kept in the state file")
	}
	if s.cfg.stateFile == "" {
		return errorf(http.StatusBadRequest, profilesvc.CodeValidation, "the server keeps no state file: start it with -state FILE (WithStateFile)")
	}
	if err := s.saveState(); err != nil {
		return errorf(http.StatusInternalServerError, profilesvc.CodeInternal, "%v", err)
	}
	writeJSON(w, http.StatusOK, map[string]string{"path": s.cfg.stateFile})
	return nil
}
