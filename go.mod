module github.com/profilesvc/profilesvc-go

go 1.25

require (
	github.com/google/go-cmp v0.7.0
	github.com/gorilla/mux v1.8.1
	github.com/hashicorp/go-retryablehttp v0.7.8
	github.com/signintech/gopdf v0.37.0
	github.com/stretchr/testify v1.12.1
)

require (
	github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
	github.com/phpdave11/gofpdi v1.0.14-0.20211212211723-1f10f9844311 // indirect
	github.com/pkg/errors v0.8.1 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
