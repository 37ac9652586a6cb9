package report

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

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
// when the report has no words for its key.
func SayFact(locale string, f engine.Fact) (string, bool) {
	words, ok := factWords[f.Key]
	if !ok {
		return "", false
	}
	return words.in(langOf(locale))(f), true
}

// FactKeys lists the keys of the facts the report says, in order.
func FactKeys() []engine.FactKey {
	return slices.Sorted(maps.Keys(factWords))
}

// Words lists every word of the labels in a locale's language.
func Words(locale string) []string {
	var out []string
	eachText(func(_ string, t text) { out = append(out, t.in(langOf(locale))) })
	slices.Sort(out)
	return out
}

// eachText calls do with every text of the labels, and where it is: its
// field, and its key in a map. Fields of other types it passes over.
func eachText(do func(where string, t text)) {
	v := reflect.ValueOf(labels)
	textType := reflect.TypeFor[text]()
	textOf := func(v reflect.Value) text { return text{v.Field(0).String(), v.Field(1).String()} }
	for i := range v.NumField() {
		name, f := v.Type().Field(i).Name, v.Field(i)
		switch {
		case f.Type() == textType:
			do(name, textOf(f))
		case f.Kind() == reflect.Map && f.Type().Elem() == textType:
			iter := f.MapRange()
			for iter.Next() {
				do(fmt.Sprintf("%s[%v]", name, iter.Key()), textOf(iter.Value()))
			}
		}
	}
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
