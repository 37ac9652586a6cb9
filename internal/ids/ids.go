// Package ids holds the rule of the IDs the mock server keeps: those it
// makes, those a seed, the test kit or a workflow chooses, and those a
// restored state holds, all by one rule, so that an ID goes unchanged
// into a URL's path, a header (a report's file name) and a state file.
package ids

import (
	"fmt"
	"strings"
)

// MaxLength is the longest ID, in bytes.
const MaxLength = 128

// Problem says what is wrong with id, or "": it must start with one of
// the prefixes and go on with at least one character, be at most
// MaxLength bytes, and hold only ASCII letters and digits, '_', '-', '.'
// and '~': the characters a URL's path segment, an HTTP header's quoted
// string and a file name all take as they are.
func Problem(id string, prefixes ...string) string {
	ok := false
	for _, p := range prefixes {
		if strings.HasPrefix(id, p) && len(id) > len(p) {
			ok = true
		}
	}
	switch {
	case !ok:
		quoted := make([]string, len(prefixes))
		for i, p := range prefixes {
			quoted[i] = fmt.Sprintf("%q", p)
		}
		return fmt.Sprintf("must start with %s and go on, got %q", strings.Join(quoted, " or "), clip(id))
	case len(id) > MaxLength:
		return fmt.Sprintf("must be at most %d bytes, got %d", MaxLength, len(id))
	case strings.IndexFunc(id, func(r rune) bool { return !allowed(r) }) >= 0:
		return fmt.Sprintf("must hold only ASCII letters and digits, _, -, . and ~, got %q", clip(id))
	}
	return ""
}

// allowed reports whether r may be in an ID.
func allowed(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("_-.~", r)
}

// clip shortens a long ID for a message.
func clip(id string) string {
	if len(id) <= 100 {
		return id
	}
	return id[:100] + "…"
}
