package ids_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/profilesvc/profilesvc-go/internal/ids"
)

func TestProblem(t *testing.T) {
	for _, tt := range []struct {
		id       string
		prefixes []string
		ok       bool
	}{
		{"pf_xmw7thnjzq3vpd9hj6p2", []string{"pf_"}, true},
		{"fd_1", []string{"fld_", "fd_"}, true},
		{"wf_default", []string{"wf_"}, true},
		{"item_a.b-c~d_E9", []string{"item_"}, true},
		{"pf_", []string{"pf_"}, false},
		{"item_1", []string{"pf_"}, false},
		{"pf_" + strings.Repeat("x", 126), []string{"pf_"}, false},
		{"pf_" + strings.Repeat("x", 125), []string{"pf_"}, true},
	} {
		assert.Equal(t, tt.ok, ids.Problem(tt.id, tt.prefixes...) == "", "Problem(%q)", tt.id)
	}
	for _, c := range []string{"/", "?", "#", "%", "\\", " ", "\t", "\"", ";", ",", ":", "\u00a0", "\u200b", "\xff", "é"} {
		assert.NotEmpty(t, ids.Problem("pf_a"+c+"b", "pf_"), "an ID holding %q", c)
	}
}
