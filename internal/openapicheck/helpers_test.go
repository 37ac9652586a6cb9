package openapicheck_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/profilesvc/profilesvc-go/internal/openapicheck"
)

// newValidator returns the Validator of the service's document the tests
// share.
func newValidator(t *testing.T) *openapicheck.Validator {
	t.Helper()
	v, err := openapicheck.SharedService()
	require.NoError(t, err)
	return v
}

// newControlValidator returns the Validator of the control API's document
// the tests share.
func newControlValidator(t *testing.T) *openapicheck.Validator {
	t.Helper()
	v, err := openapicheck.SharedControl()
	require.NoError(t, err)
	return v
}
