package engine

import (
	"encoding/json"
	"regexp"
	"time"
)

// Script is what an analysis's documents script of its outcome, with
// values in an item's name, text or metadata:
//
//	mock:fail=<message>              the analysis fails with the message
//	mock:risk=low|medium|high        the risk level, whatever the findings
//	mock:duration=<Go duration>      how long the analysis runs, at most 1h
//	mock:stuck                       it stays processing until a test ends it
//	mock:report-delay=<Go duration>  it is completed that long, at most 1h,
//	                                 before its report exists
//
// The first value of each key counts, documents in order and, in each, its
// name, then its text, then its metadata.
type Script struct {
	// Fail is the message of mock:fail, or "" when there is none.
	Fail string
	// Risk is the value of mock:risk as written, or "" when there is
	// none. Default grades a low, medium or high one as such and notes
	// any other among the risk factors.
	Risk string
	// Duration is the value of mock:duration. HasDuration reports
	// whether there is one that parses and lies between 0 and 1h;
	// without it, Duration is 0.
	Duration    time.Duration
	HasDuration bool
	// Stuck reports mock:stuck.
	Stuck bool
	// ReportDelay is the value of mock:report-delay that parses and lies
	// between 0 and 1h, or 0.
	ReportDelay time.Duration
}

// scriptPattern finds the values of scripted outcomes.
var scriptPattern = regexp.MustCompile(`mock:(fail|risk|duration|report-delay)=([^\s"',;]+(?:[ \t][^\s"',;:=]+)*)`)

// scriptKeys is how many keys of scriptPattern take a value.
const scriptKeys = 4

// stuckPattern finds mock:stuck, which has no value.
var stuckPattern = regexp.MustCompile(`mock:stuck\b`)

// ParseScript reads the scripted outcomes of in's documents. Each value
// is cut to MaxValueBytes, as a document's values are.
func ParseScript(in Input) Script {
	first := map[string]string{}
	stuck := false
	for _, it := range in.Items {
		hay := []string{it.Name, it.Text}
		if len(it.Metadata) > 0 {
			b, _ := json.Marshal(it.Metadata)
			hay = append(hay, string(b))
		}
		for _, h := range hay {
			stuck = stuck || stuckPattern.MatchString(h)
			// One match at a time, until every key has its value: a
			// document that repeats them costs no more memory.
			for rest := h; len(first) < scriptKeys; {
				m := scriptPattern.FindStringSubmatchIndex(rest)
				if m == nil {
					break
				}
				key := rest[m[2]:m[3]]
				if _, seen := first[key]; !seen {
					first[key] = keepValue(rest[m[4]:m[5]])
				}
				rest = rest[m[1]:]
			}
		}
	}
	s := Script{Fail: first["fail"], Risk: first["risk"], Stuck: stuck}
	if d, ok := scriptDuration(first["duration"]); ok {
		s.Duration, s.HasDuration = d, true
	}
	s.ReportDelay, _ = scriptDuration(first["report-delay"])
	return s
}

// scriptDuration parses a scripted duration of 0 to 1h.
func scriptDuration(v string) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || d > time.Hour {
		return 0, false
	}
	return d, true
}
