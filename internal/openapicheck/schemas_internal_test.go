package openapicheck

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSchemasCompile checks that the schema of every JSON answer of both
// documents, and every schema of their components, has a place the
// compiler finds: none falls back to kin-openapi's compiling at each call.
func TestSchemasCompile(t *testing.T) {
	for _, load := range []func() (*Validator, error){New, NewMockControl} {
		v, err := load()
		require.NoError(t, err)
		answers := 0
		for template, item := range v.doc.Paths.Map() {
			for method, op := range item.Operations() {
				for key, resp := range op.Responses.Map() {
					for mediaKey, media := range resp.Value.Content {
						if mediaType(mediaKey) != "application/json" || media.Schema == nil {
							continue
						}
						loc := v.schemas.answerBody(v.schemas.operation(template, method), key, resp, mediaKey)
						require.NotEmpty(t, loc, "%s %s %s: no place in the document", method, template, key)
						_, err := v.schemas.compile(loc)
						assert.NoError(t, err, "%s %s %s", method, template, key)
						answers++
					}
				}
			}
		}
		assert.NotZero(t, answers, "no JSON answer found in %s", v.schemas.base)
		for name := range v.doc.Components.Schemas {
			_, err := v.schemas.compile(v.schemas.component(name))
			assert.NoError(t, err, "component %s of %s", name, v.schemas.base)
		}
	}
}
