package openapicheck

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSchemasCompile checks that the schema of every JSON answer of both
// documents, and every schema of their components, has a place the
// compiler finds: none falls back to kin-openapi's compiling at each call.
func TestSchemasCompile(t *testing.T) {
	t.Parallel()
	for _, load := range []func() (*Validator, error){sharedService, sharedControl} {
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

// TestDefaultAnswer checks that an answer no status of the operation
// names is held to its "default" response, with that response's schema.
func TestDefaultAnswer(t *testing.T) {
	t.Parallel()
	doc := []byte(`openapi: 3.1.0
info: {title: t, version: "1"}
paths:
  /v1/things:
    get:
      operationId: listThings
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {type: object}
        default:
          description: any other
          content:
            application/json:
              schema:
                type: object
                required: [error]
                properties:
                  error: {type: string}
`)
	v, err := load(doc, "things.yaml")
	require.NoError(t, err)
	header := http.Header{"Content-Type": {"application/json"}}
	ex := Exchange{Method: "GET", URL: "/v1/things", Status: 500, ResponseHeader: header, ResponseBody: []byte(`{"error":"down"}`)}
	require.NoError(t, v.Check(t.Context(), ex), "an answer of the default response")
	ex.ResponseBody = []byte(`{"message":"down"}`)
	var m *Mismatch
	require.ErrorAs(t, v.Check(t.Context(), ex), &m, "an answer the default response refuses")
	assert.Equal(t, "body /error", m.Field, "%v", m)
}
