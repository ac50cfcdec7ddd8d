package trivial

import (
	"strings"
	"testing"
)

func TestCheckLoopback(t *testing.T) {
	for _, ok := range []string{"127.0.0.1:0", "127.0.0.5:8080", "[::1]:9000", "localhost:1234"} {
		if err := CheckLoopback(ok); err != nil {
			t.Errorf("%s rejected: %v", ok, err)
		}
	}
	for _, bad := range []string{"0.0.0.0:80", ":8080", "10.0.0.1:80", "example.com:80", "127.0.0.1"} {
		err := CheckLoopback(bad)
		if err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%s accepted or error does not name it: %v", bad, err)
		}
	}
}
