package report

// DrawnTexts renders d and returns every piece of text the report draws.
func DrawnTexts(d Data) ([]DrawnText, error) {
	var out []DrawnText
	_, err := render(d, func(t DrawnText) { out = append(out, t) })
	return out, err
}
