package mockserver

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/profilesvc/profilesvc-go"
	"github.com/profilesvc/profilesvc-go/internal/ids"
)

// The rules of the records' fields that every path that makes or changes
// a record applies, the API, the test kit, seeds and restored snapshots
// alike, so that the server never holds, nor writes to its state file, a
// record it would refuse to load.

// maxStatusLength is the longest item status, in bytes.
const maxStatusLength = 255

// badRecordID says what is wrong with a record's ID, or "": the rule of
// package ids, which workflows' IDs follow too.
func badRecordID(id string, prefixes ...string) string { return ids.Problem(id, prefixes...) }

// checkFixedID validates an ID a seed or the test kit chose.
func checkFixedID(id, prefix string, taken bool) *apiError {
	if why := badRecordID(id, prefix); why != "" {
		return validation("field \"id\" %s", why)
	}
	if taken {
		return validation("field \"id\": %q is already in use", id)
	}
	return nil
}

// badItemStatus says what is wrong with an item's status, or "": ACTIVE,
// or any other word of at most maxStatusLength bytes of valid UTF-8 with
// no control character.
func badItemStatus(status profilesvc.ItemStatus) string {
	s := string(status)
	if s == "" || len(s) > maxStatusLength || !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl) {
		return fmt.Sprintf("must be 1 to %d bytes of valid UTF-8, with no control character", maxStatusLength)
	}
	return ""
}

// badContentType says what is wrong with a content type an item keeps (the
// one declared for an upload's file, served again with the item), or "":
// at most 255 bytes of valid UTF-8, with no control character.
func badContentType(ct string) string {
	if len(ct) > maxStatusLength || !utf8.ValidString(ct) || strings.ContainsFunc(ct, unicode.IsControl) {
		return fmt.Sprintf("must be at most %d bytes of valid UTF-8, with no control character", maxStatusLength)
	}
	return ""
}
