//go:build !linux

package mcpclient

import "net"

type fdIO struct{ net.Conn }

func newFdIO(*net.TCPConn) *fdIO { return nil }
