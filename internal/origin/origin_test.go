package origin_test

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/profilesvc/profilesvc-go/internal/origin"
)

func TestSame(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"http://a.example/x", "http://a.example:80/y", true},
		{"https://A.example", "HTTPS://a.EXAMPLE:443", true},
		{"http://a.example", "https://a.example", false},
		{"http://a.example:8080", "http://a.example:8081", false},
		{"http://a.example", "http://b.example", false},
		{"http://[::1]:80", "http://[::1]", true},
		{"http://h/x", "http://h/y", true},
		{"https://h/x", "https://h:443/y", true},
		{"http://h:8080/x", "http://h:8081/y", false},
	} {
		a, _ := url.Parse(tt.a)
		b, _ := url.Parse(tt.b)
		assert.Equal(t, tt.want, origin.Same(a, b), "Same(%s, %s)", tt.a, tt.b)
	}
}

func TestNormal(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"https://a.example", "https://a.example", true},
		{"HTTPS://A.Example:443", "https://a.example", true},
		{"http://a.example:80/", "http://a.example", true},
		{"http://c.example:8080", "http://c.example:8080", true},
		{"http://[::1]:3000", "http://[::1]:3000", true},
		{"a.example", "", false},
		{"https://a.example/app", "", false},
		{"ftp://a.example", "", false},
		{"https://user@a.example", "", false},
		{"https://a.example?x=1", "", false},
		{"", "", false},
		{"http://a.example:0080", "http://a.example", true},
		{"https://a.example:08443", "https://a.example:8443", true},
		{"http://a.example:99999", "", false},
		{"http://a.example:0", "", false},
		{"http://bücher.example", "", false},
		{"http://xn--bcher-kva.example", "http://xn--bcher-kva.example", true},
		{"https://*.example.com", "", false},
		{"https://a_b.example", "", false},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080", true},
		{"http://[::1]:8080", "http://[::1]:8080", true},
		{"http://[zz::1]", "", false},
	} {
		got, ok := origin.Normal(tt.in)
		assert.Equal(t, tt.ok, ok, "Normal(%q)", tt.in)
		assert.Equal(t, tt.want, got, "Normal(%q)", tt.in)
	}
}
