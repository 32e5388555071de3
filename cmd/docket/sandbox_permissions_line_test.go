package main

import (
	"testing"

	"github.com/docket-engine/docket/sandbox/egress"
)

func TestSandboxVerboseSaysEachConnectionAndEachRefusalCount(t *testing.T) {
	req := func(host string, port int) egress.Request {
		return egress.Request{Protocol: "http", Host: host, Port: port}
	}
	for _, tc := range []struct {
		name string
		ev   egress.Event
		want string
	}{
		{"an allowed connection", egress.Event{Request: req("example.com", 443), Allowed: true, Rule: "domain example.com"},
			"docket sandbox: network: allowed http example.com:443 (domain example.com)\n"},
		{"a refused connection", egress.Event{Request: req("evil.test", 80), Rule: "no rule"},
			"docket sandbox: network: refused http evil.test:80 (no rule)\n"},
		{"a host's refusals counted", egress.Event{Request: req("evil.test", 80), Refusals: 1000, Rule: "counted"},
			"docket sandbox: network: refused http evil.test:80 1000 times (counted)\n"},
		{"the other hosts' refusals counted, no port", egress.Event{Request: req("", 0), Refusals: 7, Rule: "counted"},
			"docket sandbox: network: refused http other hosts 7 times (counted)\n"},
		{"a host with control characters, escaped", egress.Event{Request: req("evil.test\r\x1b[2K", 80), Rule: "no rule"},
			"docket sandbox: network: refused http evil.test\\r\\e[2K:80 (no rule)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := connectionLine(tc.ev); got != tc.want {
				t.Errorf("connectionLine = %q, want %q", got, tc.want)
			}
		})
	}
}
