package filelimit_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/internal/filelimit"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	// The FIFO's writer, open before the reader comes: more than the
	// bound, and never an end.
	writer, err := os.OpenFile(fifo, os.O_RDWR, 0)
	require.NoError(t, err)
	defer writer.Close()
	_, err = writer.WriteString(strings.Repeat("f", 64))
	require.NoError(t, err)
	lonely := filepath.Join(dir, "lonely")
	require.NoError(t, syscall.Mkfifo(lonely, 0o600))

	for _, tt := range []struct {
		name, path string
		limit      int64
		want       string // the contents, when read
		tooLarge   bool
	}{
		{"within the bound", write("small", "hello"), 10, "hello", false},
		{"exactly the bound", write("exact", "0123456789"), 10, "0123456789", false},
		{"empty", write("empty", ""), 10, "", false},
		{"one byte over", write("over", "0123456789A"), 10, "", true},
		{"endless", "/dev/zero", 1 << 16, "", true},
		{"a FIFO past the bound", fifo, 32, "", true},
		{"a FIFO with no writer, read at once as empty", lonely, 32, "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b, err := filelimit.Read(tt.path, tt.limit)
			if tt.tooLarge {
				require.ErrorIs(t, err, filelimit.ErrTooLarge)
				var tl *filelimit.TooLargeError
				require.True(t, errors.As(err, &tl))
				assert.Equal(t, tt.path, tl.Path)
				assert.Contains(t, err.Error(), tt.path)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(b))
		})
	}

	_, err = filelimit.Read(filepath.Join(dir, "missing"), 10)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// TestFileRead reads through Open in small pieces, as a decoder does: the
// bound holds across reads.
func TestFileRead(t *testing.T) {
	f, err := filelimit.Open("/dev/zero", 100)
	require.NoError(t, err)
	defer f.Close()
	n, err := io.Copy(io.Discard, io.LimitReader(f, 1000))
	assert.Equal(t, int64(100), n, "bytes read before the bound")
	assert.ErrorIs(t, err, filelimit.ErrTooLarge)

	big := filepath.Join(t.TempDir(), "big")
	require.NoError(t, os.WriteFile(big, make([]byte, 200), 0o600))
	_, err = filelimit.Open(big, 100)
	assert.ErrorIs(t, err, filelimit.ErrTooLarge, "a regular file that says it is larger is refused at Open")
}
