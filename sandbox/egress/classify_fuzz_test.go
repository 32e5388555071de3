package egress

import (
	"net/netip"
	"testing"
)

// FuzzClassify classifies any IPv6 address (a resolver's answer is the
// name owner's to choose): an address is never more public than its
// IPv4-mapped form's IPv4 address, nor than any IPv4 address it embeds,
// and a public one is global unicast.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{"::ffff:127.0.0.1", "64:ff9b::7f00:1", "2002:7f00:1::", "2001:0:7f00:1::", "2001:0:4136:e378:8000:63bf:80ff:fffe",
		"64:ff9b:1:7f00:1::", "::127.0.0.1", "2606:4700::1", "fe80::1", "::", "1.1.1.1"} {
		b := netip.MustParseAddr(s).As16()
		f.Add(b[:], "")
	}
	f.Add(make([]byte, 16), "eth0")
	f.Fuzz(func(t *testing.T, b []byte, zone string) {
		if len(b) != 16 {
			return
		}
		a := netip.AddrFrom16([16]byte(b)).WithZone(zone)
		c := classify(a)
		if a.Is4In6() && c != classify(a.Unmap()) {
			t.Fatalf("%s is %s, its IPv4 address %s is %s", a, c, a.Unmap(), classify(a.Unmap()))
		}
		for _, v4 := range embeddedV4(a.WithZone("")) {
			if cv := classify(v4); cv > c {
				t.Fatalf("%s is %s, but it embeds %s, which is %s", a, c, v4, cv)
			}
		}
		if c == classPublic && !a.IsGlobalUnicast() {
			t.Fatalf("%s is public but not global unicast", a)
		}
		if c.String() == "" {
			t.Fatalf("class %d has no name", c)
		}
	})
}
