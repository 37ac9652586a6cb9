package mockserver_test

import (
	"go/doc/comment"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/mockserver"
)

// TestKitDocumented holds the package doc's "The test kit" and the
// README's "The test kit" to the same list: every method of the test kit
// (the Tenant's, and the Server's that a test calls on the state) is named
// in both.
func TestKitDocumented(t *testing.T) {
	t.Parallel()
	var kit []string
	tenant := reflect.TypeFor[*mockserver.Tenant]()
	for i := range tenant.NumMethod() {
		kit = append(kit, tenant.Method(i).Name)
	}
	kit = append(kit, "Snapshot", "Restore", "TenantOf", "Certificate", "HTTPClient")

	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	readmeKit := section(t, string(readme), "\n### The test kit\n", "\n### ")

	src, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	var text strings.Builder
	for _, line := range strings.Split(string(src), "\n") {
		if rest, ok := strings.CutPrefix(line, "//"); ok {
			text.WriteString(strings.TrimPrefix(rest, " ") + "\n")
		}
	}
	var p comment.Parser
	docText := string((&comment.Printer{}).Text(p.Parse(text.String())))
	docKit := section(t, docText, "\n# The test kit\n", "\n# ")

	for _, name := range kit {
		word := regexp.MustCompile(`\b` + name + `\b`)
		assert.True(t, word.MatchString(readmeKit), "the README's test kit does not name %s", name)
		assert.True(t, word.MatchString(docKit), "the package doc's test kit does not name %s", name)
	}
}

// section returns the text from the heading to the next heading of its
// level.
func section(t *testing.T, text, heading, next string) string {
	t.Helper()
	i := strings.Index(text, heading)
	require.GreaterOrEqual(t, i, 0, "no section %q", strings.TrimSpace(heading))
	rest := text[i+len(heading):]
	if j := strings.Index(rest, next); j >= 0 {
		rest = rest[:j]
	}
	return rest
}
