//go:build tools

// Package build pins the Faucet MCP server as a dependency so `go build` can compile its
// cmd/faucet: `go install github.com/faucetdb/faucet/cmd/faucet@v0.1.12` refuses the module
// (its go.mod has replace directives), a requiring module does not.
package build

import _ "github.com/faucetdb/faucet/cmd/faucet"
