package openapicheck

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKinSchemas checks requestCases' requests (parameters, JSON bodies,
// multipart uploads) and answers' headers with validators whose schemas
// are prepared once: first concurrently, from two goroutines at once, each
// in its own order, then once more. Every check reports what kin-openapi's
// validation, asked at every call, reports (validators without
// kinSchemas); the second round prepares no schema anew; and every schema
// of a parameter,
// a request's body and an answer's header of both documents is prepared,
// none left to kin-openapi's compiling at each call.
func TestKinSchemas(t *testing.T) {
	service, err := New()
	require.NoError(t, err)
	control, err := NewMockControl()
	require.NoError(t, err)
	// The reference validators share the documents, loaded once, and
	// leave every check to kin-openapi.
	unprepared := func(v *Validator) *Validator {
		ref := *v
		ref.kin = nil
		return &ref
	}
	cases := requestCases(t)
	check := func(service, control *Validator, c requestCase) string {
		v := service
		if c.control {
			v = control
		}
		err := v.Check(t.Context(), c.ex)
		if err == nil {
			return ""
		}
		// The answer's fields the schema does not have come in no set
		// order.
		lines := strings.Split(err.Error(), "\n")
		slices.Sort(lines)
		return strings.Join(lines, "\n")
	}
	refService, refControl := unprepared(service), unprepared(control)
	want := map[string]string{}
	refused := 0
	for _, c := range cases {
		want[c.name] = check(refService, refControl, c)
		if strings.Contains(want[c.name], "the document refuses the request") {
			refused++
		}
	}
	require.Greater(t, refused, 20, "requests the document refuses")

	t.Run("concurrently", func(t *testing.T) {
		got := make([]map[string]string, 2)
		var wg sync.WaitGroup
		for g := range got {
			got[g] = map[string]string{}
			wg.Go(func() {
				for i := range cases {
					c := cases[(i+g*len(cases)/len(got))%len(cases)] // each goroutine in its own order
					got[g][c.name] = check(service, control, c)
				}
			})
		}
		wg.Wait()
		for g := range got {
			assert.Equal(t, want, got[g], "goroutine %d", g)
		}
	})

	// The concurrent round was the first: this one is the second.
	t.Run("twice", func(t *testing.T) {
		prepared := func() int { return len(service.kin.bySchema) + len(control.kin.bySchema) }
		n := prepared()
		require.NotZero(t, n)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				assert.Equal(t, want[c.name], check(service, control, c), "round 2")
			})
		}
		assert.Equal(t, n, prepared(), "schemas prepared anew by round 2")
	})

	t.Run("every schema prepared", func(t *testing.T) {
		for _, v := range []*Validator{service, control} {
			seen := 0
			prepared := func(where string, schema *openapi3.SchemaRef) {
				require.NotNil(t, schema, where)
				assert.NotEqual(t, kinUnknown, v.kin.prepared(schema.Value).how, "%s: not prepared", where)
				seen++
			}
			for template, item := range v.doc.Paths.Map() {
				for _, p := range item.Parameters {
					prepared(template+" parameter "+p.Value.Name, p.Value.Schema)
				}
				for method, op := range item.Operations() {
					at := method + " " + template
					for _, p := range op.Parameters {
						prepared(at+" parameter "+p.Value.Name, p.Value.Schema)
					}
					if op.RequestBody != nil {
						for media, mt := range op.RequestBody.Value.Content {
							prepared(at+" body "+media, mt.Schema)
						}
					}
					for status, resp := range op.Responses.Map() {
						for name, h := range resp.Value.Headers {
							prepared(at+" "+status+" header "+name, h.Value.Schema)
						}
					}
				}
			}
			assert.Greater(t, seen, 50)
		}
	})
}
