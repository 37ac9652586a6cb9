// Package origin compares and normalises web origins (scheme, host and
// port), for the rules that keep the API key within the service's origin
// (the SDK's and the contract suite's redirects) and for the origins the
// mock's CORS allows.
package origin

import (
	"net/url"
	"strconv"
	"strings"
	"unicode"
)

// Same reports whether two URLs have the same origin: the same scheme,
// host and port, in any case, a missing port being the scheme's own.
func Same(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// port is u's port, or its scheme's default one.
func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

// Normal returns an origin as browsers send it in an Origin header: the
// scheme and host in lower case, the port as a plain number, and none
// when it is the scheme's default; false when s is not such an origin:
// http or https, a host in ASCII (a browser sends an international name
// in its punycode form, xn--...), a port from 1 to 65535, and no user,
// path, query or fragment.
func Normal(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" ||
		(u.Path != "" && u.Path != "/") {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", false
	}
	host := strings.ToLower(u.Hostname())
	if host == "" || strings.ContainsFunc(host, func(r rune) bool { return r > unicode.MaxASCII }) {
		return "", false
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	n := 0
	if p := u.Port(); p != "" {
		if n, err = strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", false
		}
	}
	if n == 0 || (scheme == "http" && n == 80) || (scheme == "https" && n == 443) {
		return scheme + "://" + host, true
	}
	return scheme + "://" + host + ":" + strconv.Itoa(n), true
}
