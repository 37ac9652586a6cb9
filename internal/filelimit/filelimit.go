// Package filelimit reads files that a command line names with a bound on
// their size: a state file, a seed and the files it names, a TLS
// certificate. A file past its bound, such as /dev/zero or a FIFO that
// never ends, is refused with an error that names the file and the bound,
// once the bound has been read, instead of filling the process's memory.
package filelimit

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrTooLarge is matched (errors.Is) by the error of a file past its
// bound.
var ErrTooLarge = errors.New("file too large")

// TooLargeError is the error of a file past its bound.
type TooLargeError struct {
	Path string
	// Limit is the bound, in bytes.
	Limit int64
}

// Error names the file and the bound.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than the limit of %d bytes", e.Path, e.Limit)
}

// Is makes a *TooLargeError match ErrTooLarge.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// Read returns the contents of the file at path, of at most limit bytes.
// A regular file that says it is larger is refused before it is read; any
// other (a device, a FIFO) is read up to limit bytes and one more.
func Read(path string, limit int64) ([]byte, error) {
	f, err := Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(512)
	if fi, err := f.f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = min(fi.Size(), limit) + 1
	}
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// File is a file opened for reading at most its bound: a Read past it
// fails with a *TooLargeError.
type File struct {
	f     *os.File
	path  string
	limit int64
	left  int64
}

// Open opens the file at path for reading at most limit bytes. A regular
// file that says it is larger is refused at once.
//
// A FIFO is opened without waiting for a writer (a FIFO with none would
// hold the open, and the program, for ever): it reads as empty until one
// comes.
func Open(path string, limit int64) (*File, error) {
	flag := os.O_RDONLY
	if fi, err := os.Stat(path); err == nil && fi.Mode()&fs.ModeNamedPipe != 0 {
		flag |= syscall.O_NONBLOCK
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
		_ = f.Close()
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	return &File{f: f, path: path, limit: limit, left: limit}, nil
}

// Read reads from the file; past the bound, it fails with a
// *TooLargeError.
func (f *File) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if f.left <= 0 {
		// One byte more tells a file of exactly the bound from a longer one.
		var one [1]byte
		n, err := f.f.Read(one[:])
		if n > 0 {
			return 0, &TooLargeError{Path: f.path, Limit: f.limit}
		}
		return 0, err
	}
	if int64(len(p)) > f.left {
		p = p[:f.left]
	}
	n, err := f.f.Read(p)
	f.left -= int64(n)
	return n, err
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }
