package mockserver

import (
	"fmt"
	"net/url"
	"path"
	"strings"
)

// Path patterns select requests by path, in Fault.Path and in
// RequestMatch.Path alike, with one rule, that of a route:
//
//   - the pattern and the path are split into segments at "/" (leading
//     and trailing slashes do not count);
//   - "*" matches any one segment: "/v1/analyses/*/report";
//   - any other segment matches the path's segment written the same way,
//     unescaped ("pf/x" for the segment "pf%2Fx", spanning as many of the
//     pattern's segments as the ID holds slashes) or escaped ("pf%2Fx");
//   - a segment holding one of the wildcards of path.Match ("*", "?",
//     "[...]") among other characters, such as "analysis_*", matches a
//     segment as path.Match does, in either form; it never matches across
//     a "/".
//
// The last rule keeps the patterns Fault.Path took before it followed the
// route rule (path.Match over the escaped path), which match the same
// requests under it. The mock's IDs hold none of those wildcards, so a
// literal ID is never read as one.

// pathMatches reports whether the escaped path of a request matches
// pattern, under the rule above.
func pathMatches(pattern, escaped string) bool {
	return segmentsMatch(splitPath(pattern), splitPath(escaped))
}

// splitPath splits a path or a pattern into its segments.
func splitPath(p string) []string { return strings.Split(strings.Trim(p, "/"), "/") }

func segmentsMatch(ps, rs []string) bool {
	for len(rs) > 0 {
		if len(ps) == 0 {
			return false
		}
		raw := rs[0]
		seg, err := url.PathUnescape(raw)
		if err != nil {
			seg = raw
		}
		n := strings.Count(seg, "/") + 1
		switch {
		case ps[0] == "*", ps[0] == raw, sameUnescaped(ps[0], seg):
			ps = ps[1:]
		case len(ps) >= n && strings.Join(ps[:n], "/") == seg:
			ps = ps[n:]
		case globMatches(ps[0], raw, seg):
			ps = ps[1:]
		default:
			return false
		}
		rs = rs[1:]
	}
	return len(ps) == 0
}

// sameUnescaped reports whether a pattern's segment written escaped
// ("pf%2Fx", "caf%C3%A9") names the path's segment seg, unescaped: the
// escapes of a path may be written in either case.
func sameUnescaped(p, seg string) bool {
	if !strings.Contains(p, "%") {
		return false
	}
	u, err := url.PathUnescape(p)
	return err == nil && u == seg
}

// maxGlobSegment bounds the path segments a segment with wildcards is
// matched against: path.Match's time grows with the product of the two
// lengths, and no ID of the service or the mock is longer (an ID is at
// most 128 bytes). A longer segment matches only "*" or itself.
const maxGlobSegment = 1 << 10

// maxPathPattern bounds a pattern's length, for the same reason.
const maxPathPattern = 1 << 10

// globMatches matches one segment holding path.Match's wildcards against
// a path's segment, escaped or unescaped; a pattern without wildcards, or
// a malformed one, matches nothing here.
func globMatches(p, raw, seg string) bool {
	if !strings.ContainsAny(p, "*?[\\") || len(raw) > maxGlobSegment || len(p) > maxPathPattern {
		return false
	}
	if ok, err := path.Match(p, raw); err == nil && ok {
		return true
	}
	ok, err := path.Match(p, seg)
	return err == nil && ok && !strings.Contains(seg, "/")
}

// checkPathPattern reports a pattern whose segments path.Match cannot
// read, such as "[a-", or one longer than maxPathPattern.
func checkPathPattern(pattern string) error {
	if len(pattern) > maxPathPattern {
		return fmt.Errorf("%d bytes, more than %d", len(pattern), maxPathPattern)
	}
	for _, p := range splitPath(pattern) {
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("segment %q: %v", p, err)
		}
	}
	return nil
}
