//go:build tools

// Package tools pins the k6 load tester as a Go module dependency so that
// `go build go.k6.io/k6` from this folder builds the k6 binary from source
// (no prebuilt binaries can be downloaded on the benchmark machines).
package tools

import _ "go.k6.io/k6"
