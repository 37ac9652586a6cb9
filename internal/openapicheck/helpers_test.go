package openapicheck_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/internal/openapicheck"
)

// newValidator returns a Validator of the service's document.
func newValidator(t *testing.T) *openapicheck.Validator {
	t.Helper()
	v, err := openapicheck.New()
	require.NoError(t, err)
	return v
}

// newControlValidator returns a Validator of the control API's document.
func newControlValidator(t *testing.T) *openapicheck.Validator {
	t.Helper()
	v, err := openapicheck.NewMockControl()
	require.NoError(t, err)
	return v
}
