package profilesvc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// respell writes every integer of the JSON document b with spell, keeping
// strings and key order as they are.
func respell(t testing.TB, b []byte, spell func(n string) string) []byte {
	t.Helper()
	var out bytes.Buffer
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			out.WriteByte(c)
			if c == '\\' {
				i++
				out.WriteByte(b[i])
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
			out.WriteByte(c)
		case c == '-' || c >= '0' && c <= '9':
			end := i + 1
			for end < len(b) && strings.IndexByte("0123456789.eE+-", b[end]) >= 0 {
				end++
			}
			n := string(b[i:end])
			if strings.ContainsAny(n, ".eE") {
				out.WriteString(n)
			} else {
				out.WriteString(spell(n))
			}
			i = end - 1
		default:
			out.WriteByte(c)
		}
	}
	require.True(t, json.Valid(out.Bytes()), "respelt JSON is not valid:\n%s", out.Bytes())
	return out.Bytes()
}

// The interface document types every number as "number": a service may
// write a count as 3.0 or 3e0. Every golden file, with each of its
// integers so written, decodes to the same value, and a resource's Raw
// keeps the bytes as sent.
func TestDecodeWholeNumbersWrittenWithFractionOrExponent(t *testing.T) {
	t.Parallel()
	spellings := map[string]func(string) string{
		"zero fraction": func(n string) string { return n + ".0" },
		"exponent":      func(n string) string { return n + "e0" },
		"both":          func(n string) string { return n + ".00E+0" },
	}
	for _, tt := range goldenCases() {
		for name, spell := range spellings {
			t.Run(strings.TrimSuffix(tt.file, ".json")+"/"+name, func(t *testing.T) {
				t.Parallel()
				file := respell(t, readGolden(t, tt.file), spell)
				require.NotEqual(t, readGolden(t, tt.file), file, "the file has integers to respell")
				srv := jsonServer(t, file)
				got, err := tt.call(context.Background(), srv.client(t))
				require.NoError(t, err, "call")
				if diff := cmp.Diff(tt.want(t), got, resourceCmpOpts); diff != "" {
					t.Errorf("decoded value mismatch (-want +got):\n%s", diff)
				}
				if tt.raw != nil {
					raw := tt.raw(got)
					assert.True(t, bytes.Equal(raw, bytes.TrimSpace(file)), "Raw is not the bytes sent:\ngot  %s\nwant %s", raw, file)
				}
			})
		}
	}
}

// A fraction in an integer field is an error that names the field; so is
// a whole number out of the field's range, however written.
func TestDecodeRefusesFractionsInIntegerFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, count, field string
	}{
		{"fraction", "1.5", "count"},
		{"fraction in exponent form", "15e-1", "count"},
		{"beyond int64", "1e19", "count"},
		{"huge exponent", "1e999999999", "count"},
		{"negative huge exponent", "1e-999999999", "count"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := jsonServer(t, []byte(`{"count":`+tt.count+`,"nextCursor":null,"items":[]}`))
			_, err := srv.client(t).ListFoldersPage(context.Background(), "pf_1", nil)
			require.ErrorIs(t, err, ErrMalformedResponse)
			assert.Contains(t, err.Error(), tt.field)
		})
	}
}

// An error body whose status is written 409.0 keeps its code and message.
func TestAPIErrorWithStatusWrittenWithFraction(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		respond(w, http.StatusConflict, `{"error":{"code":"ANALYSIS_IN_PROGRESS","status":409.0,"message":"an analysis is running"}}`)
	})
	_, err := srv.client(t).StartAnalysis(context.Background(), "pf_1", StartAnalysisParams{ItemIDs: []string{"item_1"}})
	var apiErr *APIError
	require.True(t, errors.As(err, &apiErr), "error %v", err)
	assert.Equal(t, CodeAnalysisInProgress, apiErr.Code)
	assert.Equal(t, "an analysis is running", apiErr.Message)
}

func TestWholeNumbers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		changed  bool
	}{
		{`{"a":30.0}`, `{"a":30}`, true},
		{`{"a":-2.50e1,"b":[1.00,2e2,0.0]}`, `{"a":-25,"b":[1,200,0]}`, true},
		{`{"a":"30.0","b\"":"x\\"}`, `{"a":"30.0","b\"":"x\\"}`, false},
		{`{"a":30,"b":1.5,"c":1e-3}`, `{"a":30,"b":1.5,"c":1e-3}`, false},
		// Not JSON numbers: left for the decoder to refuse.
		{`{"a":01.0,"b":1.,"c":.5,"d":--1.0}`, `{"a":01.0,"b":1.,"c":.5,"d":--1.0}`, false},
		// Bounded: past int64, or an exponent past the bound.
		{`[9223372036854775807.0,9223372036854775808.0,1e25,1e18]`, `[9223372036854775807,9223372036854775808.0,1e25,1000000000000000000]`, true},
	}
	for _, tt := range tests {
		got, changed := wholeNumbers([]byte(tt.in))
		assert.Equal(t, tt.want, string(got), "wholeNumbers(%s)", tt.in)
		assert.Equal(t, tt.changed, changed, "wholeNumbers(%s) changed", tt.in)
	}
}
