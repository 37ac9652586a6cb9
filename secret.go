package profilesvc

import (
	"errors"
	"net/url"
	"regexp"
	"strings"
)

// redacted stands in for the API key wherever it is masked.
const redacted = "[REDACTED]"

// secret is the API key as the SDK masks it in every string it produces or
// passes on: error messages, APIError fields, log lines. A broken or
// hostile server may echo the key anywhere (a status line, a header, a
// body), in another case, or split by markup that is dropped or turned
// into a space when the text is shown; so the mask matches the key in any
// case, with white space or markup tags between its characters.
type secret struct {
	key string
	re  *regexp.Regexp // nil for an empty key
}

// between is what may separate two characters of the key in text that
// still shows it: white space, and markup tags.
const between = `(?:\s|<[^<>]{0,256}>)*`

func newSecret(key string) *secret {
	s := &secret{key: key}
	if key == "" {
		return s
	}
	parts := make([]string, 0, len(key))
	for _, r := range key {
		parts = append(parts, regexp.QuoteMeta(string(r)))
	}
	s.re = regexp.MustCompile(`(?i)` + strings.Join(parts, between))
	return s
}

// mask returns str with every occurrence of the key replaced.
func (s *secret) mask(str string) string {
	if s == nil || s.re == nil || str == "" {
		return str
	}
	return s.re.ReplaceAllLiteralString(str, redacted)
}

// maskBytes returns b with every occurrence of the key replaced; b itself
// when it holds none.
func (s *secret) maskBytes(b []byte) []byte {
	if s == nil || s.re == nil || !s.re.Match(b) {
		return b
	}
	return s.re.ReplaceAllLiteral(b, []byte(redacted))
}

// maskErr returns err, or an error whose message has the key masked when
// err's shows it; errors.Is and errors.As see through it. A *url.Error in
// the chain has its cause masked too, so that one reached with errors.As
// shows no key either.
func (s *secret) maskErr(err error) error {
	if err == nil || s == nil || s.re == nil {
		return err
	}
	var uerr *url.Error
	if errors.As(err, &uerr) && s.re.MatchString(uerr.Err.Error()) {
		uerr.Err = &maskedError{err: uerr.Err, s: s}
	}
	if !s.re.MatchString(err.Error()) {
		return err
	}
	return &maskedError{err: err, s: s}
}

// maskedError is an error whose message has the API key masked.
type maskedError struct {
	err error
	s   *secret
}

func (e *maskedError) Error() string { return e.s.mask(e.err.Error()) }
func (e *maskedError) Unwrap() error { return e.err }
