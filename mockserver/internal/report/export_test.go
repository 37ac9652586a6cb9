package report

import (
	"reflect"
	"sort"

	"github.com/profilesvc/profilesvc-go/mockserver/engine"
)

// DrawnTexts renders d and returns every piece of text the report draws.
func DrawnTexts(d Data) ([]DrawnText, error) {
	_, out, err := RenderDrawn(d)
	return out, err
}

// RenderDrawn renders d, as Render does, and returns the document with
// every piece of text the report draws.
func RenderDrawn(d Data) ([]byte, []DrawnText, error) {
	var out []DrawnText
	pdf, err := render(d, func(t DrawnText) { out = append(out, t) })
	return pdf, out, err
}

// FontFamilies returns the TrueType data of each family a report draws
// with, by its name in DrawnText.
func FontFamilies() map[string][]byte {
	out := map[string][]byte{}
	for f := range faceCount {
		out[faceFamilies[f]] = faceData[f]()
	}
	return out
}

// SayFact says one of the engine's facts in a locale's words; ok is false
// when the locale has no words for its key.
func SayFact(locale string, f engine.Fact) (string, bool) {
	l := labelsFor(locale)
	say, ok := l.facts[f.Key]
	if !ok {
		return "", false
	}
	return say(l, f), true
}

// FactKeys lists the keys of the facts a locale can say.
func FactKeys(locale string) []string {
	return sortedKeys(labelsFor(locale).facts)
}

// Words lists every word of a locale's labels: its strings, and the
// values of its maps.
func Words(locale string) []string {
	var out []string
	v := reflect.ValueOf(labelsFor(locale)).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			out = append(out, f.String())
		case reflect.Map:
			if f.Type().Elem().Kind() != reflect.String {
				continue
			}
			iter := f.MapRange()
			for iter.Next() {
				out = append(out, iter.Value().String())
			}
		}
	}
	sort.Strings(out)
	return out
}

// Drawable reports whether the report's fonts have every character of s.
func Drawable(s string) bool {
	ts, err := parsedFaces()
	if err != nil {
		return false
	}
	for _, c := range s {
		if c != '\n' && !ts.metrics[sans].Has(c) && !ts.metrics[hangul].Has(c) {
			return false
		}
	}
	return true
}
