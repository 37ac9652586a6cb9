package engine

import (
	"encoding/json"
	"regexp"
	"time"
)

// Script is what an analysis's documents script of its outcome, with
// values in an item's name, text or metadata:
//
//	mock:fail=<message>          the analysis fails with the message
//	mock:risk=low|medium|high    the risk level, whatever the findings
//	mock:duration=<Go duration>  how long the analysis runs, at most 1h
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
}

// scriptPattern finds the values of scripted outcomes.
var scriptPattern = regexp.MustCompile(`mock:(fail|risk|duration)=([^\s"',;]+(?:[ \t][^\s"',;:=]+)*)`)

// ParseScript reads the scripted outcomes of in's documents.
func ParseScript(in Input) Script {
	first := map[string]string{}
	for _, it := range in.Items {
		hay := []string{it.Name, it.Text}
		if len(it.Metadata) > 0 {
			b, _ := json.Marshal(it.Metadata)
			hay = append(hay, string(b))
		}
		for _, h := range hay {
			for _, m := range scriptPattern.FindAllStringSubmatch(h, -1) {
				if _, seen := first[m[1]]; !seen {
					first[m[1]] = m[2]
				}
			}
		}
	}
	s := Script{Fail: first["fail"], Risk: first["risk"]}
	if v, ok := first["duration"]; ok {
		d, err := time.ParseDuration(v)
		if err == nil && d >= 0 && d <= time.Hour {
			s.Duration, s.HasDuration = d, true
		}
	}
	return s
}
