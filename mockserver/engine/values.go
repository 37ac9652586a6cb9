package engine

import (
	"strings"
	"time"
)

// dateLayouts are the date forms the engine reads.
var dateLayouts = []string{"2006-01-02", "02/01/2006", "2006/01/02", "02.01.2006", "2 January 2006", "January 2, 2006", "02 Jan 2006", "2 Jan 2006", "Jan 2, 2006", time.RFC3339}

// parseDate reads a date in one of dateLayouts.
func parseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// normValue folds a value for comparison: dates to ISO form, text to lower
// case with single spaces.
func normValue(field, v string) string {
	if strings.Contains(field, "date") || field == "date_of_birth" {
		if t, ok := parseDate(v); ok {
			return t.Format("2006-01-02")
		}
	}
	return strings.Join(strings.Fields(strings.ToLower(v)), " ")
}

// SameValue reports whether Default counts a and b, two values of a
// field, as the same: dates compared as dates (whatever their form),
// other text regardless of case and of runs of spaces.
func SameValue(field, a, b string) bool { return ValueKey(field, a) == ValueKey(field, b) }

// ValueKey is the form in which Default compares the values of a field:
// two values are the same (SameValue) exactly when their keys are equal,
// so that values can be grouped by key at one reading of each.
func ValueKey(field, v string) string { return normValue(field, v) }

// label turns a field name into words.
func label(f string) string { return strings.ReplaceAll(f, "_", " ") }

// labels turns field names into a list of words.
func labels(fs []string) string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = label(f)
	}
	return strings.Join(out, ", ")
}
