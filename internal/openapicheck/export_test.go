package openapicheck

import "sync"

// The validators of the two documents, loaded once for all the package's
// tests, inside and outside the package: a Validator is safe for
// concurrent use, and loading one validates its whole document.
var (
	sharedService = sync.OnceValues(New)
	sharedControl = sync.OnceValues(NewMockControl)
)

// SharedService returns the tests' validator of the service's document.
func SharedService() (*Validator, error) { return sharedService() }

// SharedControl returns the tests' validator of the control API's
// document.
func SharedControl() (*Validator, error) { return sharedControl() }
